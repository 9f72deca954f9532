"""Step ``prune``: logs and journals older than ``dream.prune_days`` (180) are deleted — the use
log (``uses``), finished jobs, finished dream runs with their operations, retired or merged
clusters, the vault log — and so are note-history folders of runs that old. Memories, links and
notes are never pruned. Scoring keeps what it needs: each memory's use count and last use live on
the memory itself; only the oldest use timestamps (beyond ACT-R's useful horizon) go."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ...clock import DAY, iso
from .journal import Op
from .workspace import history_root

if TYPE_CHECKING:
    from ...core import Core
    from .workspace import ApplyContext, PlanContext

NAME = "prune"
def old_history(core: Core, cutoff: float) -> list[str]:
    root = history_root(core)
    if not root.is_dir():
        return []
    out = []
    for d in sorted(root.iterdir()):
        try:
            at = datetime.strptime(d.name.split("-", 1)[0], "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC).timestamp()
        except ValueError:
            continue  # not ours
        if d.is_dir() and at < cutoff:
            out.append(d.name)
    return out


def plan(ctx: PlanContext) -> list[Op]:
    cutoff = ctx.now - ctx.cfg.prune_days * DAY
    found: dict[str, Any] = {name: n for name, n in ctx.core.store.prune_counts(cutoff).items() if n}
    history = old_history(ctx.core, cutoff)
    if history:
        found["history"] = len(history)
    if not found:
        return []
    what = ", ".join(f"{n} {k}" for k, n in found.items())
    return [Op(NAME, "prune", "prune", f"prune what is older than {(iso(cutoff) or '')[:10]}: {what}",
               {"cutoff": cutoff, "counts": found, "history": history})]


def apply_prune(core: Core, op: Op, actx: ApplyContext) -> dict[str, Any]:
    cutoff = op.payload["cutoff"]
    with core.write_lock:
        core.store.prune_before(cutoff)
    root = history_root(core)
    for name in op.payload["history"]:
        target = root / name
        if target.is_dir() and target.resolve().is_relative_to(root):
            shutil.rmtree(target)
    return {"counts": op.payload["counts"]}


APPLY = {"prune": apply_prune}
