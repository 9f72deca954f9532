"""``doctor``: do the derived indexes agree with the store (the source of truth)?

Each check looks at one derived structure and can repair it from the truth:

- ``vectors``: every hot memory (status active, promoted or archived) is in Chroma's
  ``memories`` collection exactly once, with its current status in the vector's metadata; no
  vector belongs to a memory that is gone or cold (orphans); the index was built with the
  configured model.
- ``fts``: the keyword index has exactly one row per memory, with the memory's current text.

Opening the vector index already embeds memories a crash left out of it (``Mnemo._sync_index``),
so on a fresh process this reports the state after that self-repair. Checks are plain objects
in ``CHECKS``; more (notes, links) are added there.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .engine import Mnemo

HOT = ("active", "promoted", "archived")
SAMPLE = 10


@dataclass
class Check:
    name: str
    about: str
    find: Callable[[Mnemo], dict[str, list[str]]]  # problem kind → ids (empty lists when fine)
    repair: Callable[[Mnemo, dict[str, list[str]]], dict[str, int]]


# -- vectors -----------------------------------------------------------------------------------
def _vector_entries(engine: Mnemo) -> list[tuple[str, dict[str, Any]]]:
    idx = engine.index
    col = idx.collection("memories")
    out: list[tuple[str, dict[str, Any]]] = []
    with idx._lock:
        total = col.count()
        for off in range(0, total, idx.batch):
            res = col.get(include=["metadatas"], limit=idx.batch, offset=off)
            out.extend(zip(res["ids"], res["metadatas"] or [{}] * len(res["ids"]), strict=False))
    return out


def find_vector_problems(engine: Mnemo) -> dict[str, list[str]]:
    store = engine.store
    marks = ",".join("?" * len(HOT))
    status = {r[0]: r[1] for r in store.query(f"SELECT id, status FROM memories WHERE status IN ({marks})", HOT)}
    entries = _vector_entries(engine)
    seen = Counter(i for i, _ in entries)
    meta = dict(entries)
    recorded = store.kv_get("index.model_hash")
    return {
        "missing": sorted(set(status) - set(seen)),
        "duplicate": sorted(i for i, n in seen.items() if n > 1),
        "orphan": sorted(set(seen) - set(status)),
        "stale_status": sorted(i for i, m in meta.items() if i in status and (m or {}).get("status") != status[i]),
        "model": [] if recorded == engine.embedder.model_hash else [f"index built with {recorded}, model is {engine.embedder.model_hash}"],
    }


def repair_vectors(engine: Mnemo, found: dict[str, list[str]]) -> dict[str, int]:
    from .engine import vector_meta

    done: dict[str, int] = {}
    with engine.write_lock:
        if found["model"] or found["duplicate"]:
            done["reembedded"] = engine.reindex()["vectors"]
            return done
        if found["orphan"]:
            engine.index.delete("memories", found["orphan"])
            done["orphans_removed"] = len(found["orphan"])
        if found["missing"]:
            mems = list(engine.store.get_memories(found["missing"]).values())
            done["embedded"] = engine._embed_into_index([mems[i : i + 512] for i in range(0, len(mems), 512)])
        if found["stale_status"]:
            mems = list(engine.store.get_memories(found["stale_status"]).values())
            engine.index.update_metadata("memories", [m.id for m in mems], [vector_meta(m) for m in mems])
            done["metadata_fixed"] = len(mems)
    return done


# -- keyword index -----------------------------------------------------------------------------
def find_fts_problems(engine: Mnemo) -> dict[str, list[str]]:
    q = engine.store.query
    ids = {r[0] for r in q("SELECT id FROM memories")}
    rows = Counter({r[0]: int(r[1]) for r in q("SELECT id, count(*) FROM memories_fts GROUP BY id")})
    stale = [r[0] for r in q("SELECT m.id FROM memories m JOIN memories_fts f ON f.id = m.id WHERE f.content != m.content")]
    return {
        "missing": sorted(ids - set(rows)),
        "duplicate": sorted(i for i, n in rows.items() if n > 1),
        "orphan": sorted(set(rows) - ids),
        "stale_text": sorted(set(stale)),
    }


def repair_fts(engine: Mnemo, found: dict[str, list[str]]) -> dict[str, int]:
    with engine.write_lock:
        return {"fts_rebuilt": engine.store.fts_rebuild()}


CHECKS: list[Check] = [
    Check("vectors", "every hot memory in the vector index once, with current metadata and model", find_vector_problems, repair_vectors),
    Check("fts", "one keyword-index row per memory, with its current text", find_fts_problems, repair_fts),
]


def run_checks(engine: Mnemo, repair: bool = False) -> dict[str, Any]:
    """Run every check; with ``repair``, fix what was found from the store and check again.
    Returns ``{"ok", "checks": {name: {"ok", "problems": {kind: count}, "sample": {kind: [ids]}}},
    "repaired": {name: {...}}}``; ``ok`` describes the final state."""
    report: dict[str, Any] = {"ok": True, "checks": {}, "repaired": {}}
    for check in CHECKS:
        found = check.find(engine)
        if repair and any(found.values()):
            report["repaired"][check.name] = check.repair(engine, found)
            found = check.find(engine)
        bad = {k: v for k, v in found.items() if v}
        report["checks"][check.name] = {
            "about": check.about,
            "ok": not bad,
            "problems": {k: len(v) for k, v in bad.items()},
            "sample": {k: v[:SAMPLE] for k, v in bad.items()},
        }
        report["ok"] = report["ok"] and not bad
    return report
