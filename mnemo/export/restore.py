"""``mnemo import EXPORT.jsonl``: a mnemo export back into a store, exactly (core side).

The records are written as they were (ids, every field, uses, links both ways, entity index,
enrichment queue, activity days, the chat-export journal), not through the save path: a
restored memory keeps its importance, strength, status and history instead of being judged new.
Vectors are made again with this home's model (hot memories into the index, cold ones
quantized into the store) and the keyword index with the rows.

Like every import, all or nothing on bad input: the whole file is read and checked first (one
bad line stops it with the line number, nothing written), then written in slices, each slice
with its uses and links in one transaction. A memory whose id the store already holds with the
same content counts as restored already, so an import cut short can be run again; the same id
with other content is refused.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InvalidInput
from ..models import ImportResult, Memory, valid_link_type
from . import FORMAT, HEADER_KEY, HEADER_VALUE

if TYPE_CHECKING:
    from ..core import Core, Progress

MAX_LINE = 16 * 1024 * 1024
SLICE = 256
MAX_REPORTED = 5
_FIELDS = {f for f in Memory.__dataclass_fields__ if f != "embed_model"}
_EXTRA = {"record", "uses", "links", "entities", "pending", "cold"}
_NUM = ("trust", "importance", "strength", "created_at", "updated_at")
_OPT_NUM = ("last_used", "surprise", "last_review_at", "event_at", "expires_at", "archived_at")
_INT = ("tokens", "use_count", "review_count", "cross_domain_count")
_OPT_STR = ("wing", "room", "note_path", "session_id", "duplicate_of", "superseded_by")
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def export_size(path: Path) -> int | None:
    """The number of memories a mnemo export's header announces; None when ``path`` does not
    start with such a header (an ordinary JSONL import, or no readable file)."""
    try:
        with Path(path).open("rb") as fh:
            for raw in fh:
                if raw.strip():
                    head = json.loads(raw.decode("utf-8-sig")) if len(raw) < 4096 else None
                    if isinstance(head, dict) and head.get(HEADER_KEY) == HEADER_VALUE:
                        n = head.get("memories")
                        return n if isinstance(n, int) and not isinstance(n, bool) else 0
                    return None
    except (OSError, ValueError):
        return None
    return None


def is_export(path: Path) -> bool:
    return export_size(path) is not None


def _lines(path: Path) -> Iterator[tuple[int, Any]]:
    """(line number, decoded JSON) for every non-blank line; InvalidInput for the first bad one."""
    try:
        fh = Path(path).open("rb")  # noqa: SIM115 - closed by the with below, errors reported here
    except FileNotFoundError:
        raise InvalidInput(f"no such file: {path}") from None
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror}") from exc
    with fh:
        for n, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            if len(raw) > MAX_LINE:
                raise InvalidInput(f"line {n}: longer than {MAX_LINE} bytes")
            try:
                yield n, json.loads(raw.decode("utf-8-sig" if n == 1 else "utf-8"))
            except UnicodeDecodeError as exc:
                raise InvalidInput(f"line {n}: not valid UTF-8 (byte {exc.start + 1})") from None
            except json.JSONDecodeError as exc:
                raise InvalidInput(f"line {n}: malformed JSON ({exc.msg} at column {exc.colno})") from None
            except RecursionError:
                raise InvalidInput(f"line {n}: JSON nested too deeply") from None


def check_memory(rec: Any, where: str) -> Memory:
    """One memory record → the Memory it describes; InvalidInput saying what is wrong."""
    from .. import inputs

    if not isinstance(rec, dict):
        raise InvalidInput(f"{where}expected an object")
    unknown = set(rec) - _FIELDS - _EXTRA
    if unknown:
        raise InvalidInput(f"{where}unknown field(s): {', '.join(sorted(unknown))}", hint="was the export made by a newer mnemo?")
    if inputs.memory_id(rec.get("id"), where) is None:
        raise InvalidInput(f"{where}a memory needs its id")
    if not isinstance(rec.get("content"), str) or not rec["content"].strip():
        raise InvalidInput(f"{where}content is empty")
    for k in _NUM:
        if not _is_num(rec.get(k)):
            raise InvalidInput(f"{where}{k} must be a number")
    for k in _OPT_NUM:
        if rec.get(k) is not None and not _is_num(rec[k]):
            raise InvalidInput(f"{where}{k} must be a number or null")
    for k in _INT:
        if isinstance(rec.get(k), bool) or not isinstance(rec.get(k), int) or rec[k] < 0:
            raise InvalidInput(f"{where}{k} must be a whole number ≥ 0")
    for k in _OPT_STR:
        if rec.get(k) is not None and not isinstance(rec[k], str):
            raise InvalidInput(f"{where}{k} must be a string or null")
    inputs.flag(rec.get("pinned"), where, "pinned")
    if not isinstance(rec.get("tags"), list) or not all(isinstance(t, str) for t in rec["tags"]):
        raise InvalidInput(f"{where}tags must be a list of strings")
    if not isinstance(rec.get("meta"), dict) or not isinstance(rec.get("fingerprint"), dict):
        raise InvalidInput(f"{where}meta and fingerprint must be objects")
    for k, shape in (("uses", (_is_num, _is_str, _is_opt_str)), ("links", (_is_str, _is_rel, _is_str, _is_num, _is_num)),
                     ("entities", (_is_str, _is_str, _is_num))):
        rows = rec.get(k, [])
        if not isinstance(rows, list) or not all(
            isinstance(r, list) and len(r) == len(shape) and all(ok(v) for ok, v in zip(shape, r, strict=True)) for r in rows
        ):
            raise InvalidInput(f"{where}{k} is malformed")
    cold = rec.get("cold")
    if cold is not None and not (isinstance(cold, list) and len(cold) == 3 and _is_str(cold[0]) and _is_num(cold[1])
                                 and _is_opt_str(cold[2]) and _is_base64(cold[0])):
        raise InvalidInput(f"{where}cold is malformed")
    try:
        return Memory.from_dict({k: v for k, v in rec.items() if k in _FIELDS})
    except (ValueError, TypeError) as exc:
        raise InvalidInput(f"{where}{exc}") from None


def restore(core: Core, path: str | Path, progress: Progress | None = None) -> ImportResult:
    from ..store.sqlite import content_hash

    t0 = time.perf_counter()
    path = Path(path).expanduser()
    # Pass 1: every line checked; nothing is written unless all are good.
    errors: list[str] = []
    ids: list[str] = []
    hashes: dict[str, str] = {}
    first = True
    for n, rec in _lines(path):
        where = f"line {n}: "
        try:
            if first:
                first = False
                _check_header(rec, where)
                continue
            kind = rec.get("record") if isinstance(rec, dict) else None
            if kind == "memory":
                m = check_memory(rec, where)
                ids.append(m.id)
                hashes[m.id] = content_hash(m.content)
            elif kind == "day":
                if not (isinstance(rec.get("day"), str) and _DAY.fullmatch(rec["day"]) and _is_num(rec.get("first_at"))):
                    raise InvalidInput(f"{where}a day record needs day (YYYY-MM-DD) and first_at")
            elif kind == "journal":
                if not (_is_str(rec.get("key")) and rec["key"].startswith("history.") and _is_str(rec.get("value"))):
                    raise InvalidInput(f"{where}a journal record needs a history.* key and a value")
            else:
                raise InvalidInput(f"{where}unknown record {kind!r}", hint="records are memory, day or journal")
        except InvalidInput as exc:
            errors.append(exc.message)
            if len(errors) > MAX_REPORTED:
                break
    seen: set[str] = set()
    for i in ids:
        if i in seen:
            errors.append(f"id {i!r} appears twice")
            break
        seen.add(i)
    done: set[str] = set()
    for mid, digest in core.store.content_hashes(ids).items():
        if digest == hashes[mid]:
            done.add(mid)  # restored by an earlier run of this import
        else:
            errors.append(f"a different memory with id {mid!r} is already in the store")
    if errors:
        shown = "; ".join(errors[:MAX_REPORTED])
        more = " (and more)" if len(errors) > MAX_REPORTED else ""
        raise InvalidInput(f"{path}: {shown}{more}. Nothing was imported.",
                           hint="an export is imported whole or not at all; import it into an empty home")
    # Pass 2: the writes, a slice at a time.
    batch: list[dict[str, Any]] = []
    restored: list[str] = []
    days: list[tuple[str, float]] = []
    journal: list[tuple[str, str]] = []
    for _, rec in _lines(path):
        kind = rec.get("record")
        if kind == "memory":
            if rec["id"] not in done:
                batch.append(rec)
            if len(batch) >= SLICE:
                restored += _write(core, batch, progress)
                batch = []
        elif kind == "day":
            days.append((rec["day"], rec["first_at"]))
        elif kind == "journal":
            journal.append((rec["key"], rec["value"]))
    if batch:
        restored += _write(core, batch, progress)
    with core.write_lock:
        core.store.restore_days_and_journal(days, journal)
    return ImportResult(saved=len(restored), ids=tuple(restored), seconds=time.perf_counter() - t0)


def _write(core: Core, records: list[dict[str, Any]], progress: Progress | None) -> list[str]:
    from ..lifecycle.cold import quantize
    from ..models import Link

    memories = [Memory.from_dict({k: v for k, v in r.items() if k in _FIELDS}) for r in records]
    links = [Link(r["id"], dst, rel, origin, weight, at) for r in records for dst, rel, origin, weight, at in r["links"]]
    uses = [(r["id"], at, kind, ctx) for r in records for at, kind, ctx in r["uses"]]
    ents = [(r["id"], key, name, at) for r in records for key, name, at in r["entities"]]
    pending = [(r["id"], r["created_at"]) for r in records if r.get("pending")]
    _ = core.index  # opens the vector index (and checks the model) before anything is written
    hot = [m for m in memories if m.status.value != "cold"]
    cold = [m for m in memories if m.status.value == "cold"]
    with core.writes() as w:
        rows: list[tuple[Any, Any, str, str]] = []
        if cold:
            model = core.embedder.model_hash
            kept = {r["id"]: r["cold"] for r in records if r.get("cold") and r["cold"][2] == model}
            fresh = [m for m in cold if m.id not in kept]  # quantized by another model: made again
            vecs: Any = core.embedder.embed([m.content for m in fresh]) if fresh else []
            rows = [(*quantize(v), model, m.id) for m, v in zip(fresh, vecs, strict=True)]
            rows += [(base64.b64decode(b), scale, model, i) for i, (b, scale, _) in kept.items()]
        w.store.restore_memories(memories, uses, links, ents, pending, rows)
        if hot:
            w.then(lambda: _embed(core, hot))
    if progress:
        progress(len(memories))
    return [m.id for m in memories]


def _embed(core: Core, memories: list[Memory]) -> None:
    core.embed_into_index([memories])


def _check_header(rec: Any, where: str) -> None:
    if not isinstance(rec, dict) or rec.get(HEADER_KEY) != HEADER_VALUE:
        raise InvalidInput(f"{where}not a mnemo export header")
    if rec.get("format") != FORMAT:
        raise InvalidInput(f"{where}export format {rec.get('format')!r} is not {FORMAT}",
                           hint="import it with the mnemo version that made it, or a newer one")


def _is_num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _is_str(v: Any) -> bool:
    return isinstance(v, str)


def _is_opt_str(v: Any) -> bool:
    return v is None or isinstance(v, str)


def _is_base64(v: str) -> bool:
    try:
        base64.b64decode(v, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _is_rel(v: Any) -> bool:
    return isinstance(v, str) and valid_link_type(v)
