"""Step ``drift``: drift detection. A memory that cites a file under the vault or a configured
root (``dream.drift_roots``) that no longer exists is flagged ``invalidated_by`` the missing
paths (``meta.invalidated_by``); when every cited path exists again the flag is lifted.

Citations found: ``file://`` URLs, absolute paths, ``~/`` paths, and relative paths with a
folder and an extension (``Projects/plan.md``) whose folder exists in a root — a relative path
whose folder is not in any root is someone else's and is left alone (so is one whose whole folder
went: sparse flags over noisy ones). Only paths inside a
root are ever checked (existence only: nothing is opened); nothing is fetched from the network.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from ...clock import iso
from .journal import Op
from .workspace import set_fields

if TYPE_CHECKING:
    from ...core import Core
    from .workspace import ApplyContext, PlanContext

NAME = "drift"
FLAG = "invalidated_by"
_SEG = r"[\w.@%+~-]+"
_FILE_URL = re.compile(r"file://(?:localhost)?(/[^\s<>'\"()\[\]`]+)")
_ABSOLUTE = re.compile(rf"(?<![\w:/.~\\-])(/(?:{_SEG}/)*{_SEG})")
_HOME = re.compile(rf"(?<![\w/])(~/(?:{_SEG}/)*{_SEG})")
_RELATIVE = re.compile(rf"(?<![\w/.:~\\-])((?:{_SEG}/)+{_SEG}\.[A-Za-z0-9]{{1,8}})(?![\w/])")
_TRAIL = ".,;:!?)]}'\"`"


def roots(core: Core) -> list[Path]:
    out: list[Path] = []
    if core.settings.vault is not None:
        out.append(Path(os.path.realpath(core.settings.vault)))
    for r in core.settings.dream.drift_roots:
        out.append(Path(os.path.realpath(Path(r).expanduser())))
    return list(dict.fromkeys(out))


def cited_paths(text: str, under: list[Path]) -> list[Path]:
    """The absolute paths ``text`` cites that lie inside one of ``under`` (no I/O but ``is_dir``
    on the folder of a relative path)."""
    found: list[Path] = []
    for m in _FILE_URL.finditer(text):
        found.append(Path(unquote(m.group(1).rstrip(_TRAIL))))
    stripped = _FILE_URL.sub(" ", text)
    stripped = re.sub(r"[a-z][a-z0-9+.-]*://\S+", " ", stripped)  # other URLs are not paths
    for m in _ABSOLUTE.finditer(stripped):
        found.append(Path(m.group(1).rstrip(_TRAIL)))
    for m in _HOME.finditer(stripped):
        found.append(Path(m.group(1).rstrip(_TRAIL)).expanduser())
    for m in _RELATIVE.finditer(stripped):
        rel = m.group(1).rstrip(_TRAIL)
        folder = rel.rsplit("/", 1)[0]
        for root in under:
            if (root / folder).is_dir():
                found.append(root / rel)
                break
    out: list[Path] = []
    for p in found:
        norm = Path(os.path.normpath(p))
        if any(norm == r or norm.is_relative_to(r) for r in under) and norm not in out:
            out.append(norm)
    return out


def plan(ctx: PlanContext) -> list[Op]:
    under = roots(ctx.core)
    if not under:
        return []
    ops: list[Op] = []
    for m in ctx.live().values():
        flagged = m.meta.get(FLAG) if isinstance(m.meta, dict) else None
        before = sorted(flagged.get("missing", [])) if isinstance(flagged, dict) else []
        if "/" not in m.content and not before:
            continue
        cited = cited_paths(m.content, under)
        missing = sorted(str(p) for p in cited if not p.exists())
        if missing and missing != before:
            ops.append(Op(NAME, "flag", m.id, f"{m.id[:8]} cites {len(missing)} missing path(s): {', '.join(missing[:3])}",
                          {"id": m.id, "missing": missing}))
        elif not missing and before:
            ops.append(Op(NAME, "unflag", m.id, f"{m.id[:8]}: the paths it cites exist again", {"id": m.id}))
    return ops


def apply_flag(core: Core, op: Op, actx: ApplyContext) -> dict[str, Any]:
    m = core.store.get_memory(op.payload["id"])
    if m is None:
        return {"status": "skipped", "id": op.payload["id"], "reason": "the memory no longer exists"}
    flag = {"missing": op.payload["missing"], "at": iso(actx.now)}
    if m.meta.get(FLAG) != flag:
        with core.write_lock:
            set_fields(core, m.id, meta={**m.meta, FLAG: flag}, updated_at=actx.now)
    return {"id": m.id, "missing": op.payload["missing"]}


def apply_unflag(core: Core, op: Op, actx: ApplyContext) -> dict[str, Any]:
    m = core.store.get_memory(op.payload["id"])
    if m is None:
        return {"status": "skipped", "id": op.payload["id"], "reason": "the memory no longer exists"}
    if FLAG in m.meta:
        with core.write_lock:
            set_fields(core, m.id, meta={k: v for k, v in m.meta.items() if k != FLAG}, updated_at=actx.now)
    return {"id": m.id}


APPLY = {"flag": apply_flag, "unflag": apply_unflag}
