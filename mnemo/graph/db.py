"""The graph's tables (migration ``0005_graph``): the enrichment queue, the entity index and
the lookups the link rules need. Plain SQL over the store's connection."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from ..models import Memory

if TYPE_CHECKING:
    from ..store import Store

LIVE = ("active", "promoted")


# -- enrichment queue ----------------------------------------------------------------------
def queue(store: Store, ids: Sequence[str], at: float) -> None:
    store.queue_enrich(ids, at)


def dequeue(store: Store, ids: Sequence[str]) -> None:
    with store.tx() as conn:
        conn.executemany("DELETE FROM enrich_queue WHERE memory_id = ?", [(i,) for i in ids])


def pending_ids(store: Store, limit: int) -> list[str]:
    """Oldest memories first (in write order for equal times), so each is enriched after the
    ones it may link back to."""
    rows = store.query(
        "SELECT q.memory_id FROM enrich_queue q LEFT JOIN memories m ON m.id = q.memory_id "
        "ORDER BY coalesce(m.created_at, 0), m.rowid, q.queued_at LIMIT ?",
        (int(limit),),
    )
    return [r[0] for r in rows]


def pending_count(store: Store) -> int:
    return int(store.query("SELECT count(*) FROM enrich_queue")[0][0])


def is_pending(store: Store, memory_id: str) -> bool:
    return bool(store.query("SELECT 1 FROM enrich_queue WHERE memory_id = ?", (memory_id,)))


# -- entity index --------------------------------------------------------------------------
def index_entities(store: Store, rows: Iterable[tuple[str, str, str, float]]) -> None:
    """(memory id, entity key, display name, created_at) rows (``clear_entities`` first when a
    memory is enriched again)."""
    with store.tx() as conn:
        conn.executemany(
            "INSERT OR IGNORE INTO memory_entities (memory_id, key, name, created_at) VALUES (?, ?, ?, ?)", list(rows)
        )


def clear_entities(store: Store, ids: Sequence[str]) -> None:
    with store.tx() as conn:
        conn.executemany("DELETE FROM memory_entities WHERE memory_id = ?", [(i,) for i in ids])


def entity_holders(store: Store, key: str, before: float, exclude: Sequence[str], limit: int) -> list[tuple[str, float]]:
    """The most recent live memories (created no later than ``before``) naming entity ``key``."""
    marks = ",".join("?" * len(exclude)) or "''"
    rows = store.query(
        "SELECT e.memory_id, e.created_at FROM memory_entities e JOIN memories m ON m.id = e.memory_id "
        f"WHERE e.key = ? AND e.created_at <= ? AND e.memory_id NOT IN ({marks}) AND m.status IN ('active', 'promoted') "
        "ORDER BY e.created_at DESC, m.rowid DESC LIMIT ?",
        [key, before, *exclude, int(limit)],
    )
    return [(r[0], float(r[1])) for r in rows]


def canonical_names(store: Store, keys: Sequence[str]) -> dict[str, str]:
    """The first spelling each entity was seen with, so ``shares_entity:{Name}`` is stable."""
    out: dict[str, str] = {}
    keys = list(dict.fromkeys(keys))
    for i in range(0, len(keys), 500):
        part = keys[i : i + 500]
        marks = ",".join("?" * len(part))
        for r in store.query(
            # SQLite takes the bare column ``name`` from the row holding min(created_at).
            f"SELECT key, name, min(created_at) FROM memory_entities WHERE key IN ({marks}) GROUP BY key",
            part,
        ):
            out[r[0]] = r[1]
    return out


def known_names(store: Store, limit: int = 20000) -> list[str]:
    """Entity names seen in the store, most frequent first (the gazetteer for new text)."""
    rows = store.query(
        "SELECT name, count(*) AS n FROM memory_entities GROUP BY name ORDER BY n DESC LIMIT ?", (int(limit),)
    )
    return [r[0] for r in rows]


def names_version(store: Store) -> tuple[int, int]:
    r = store.query("SELECT count(*), coalesce(max(rowid), 0) FROM memory_entities")[0]
    return int(r[0]), int(r[1])


# -- recent memories and sessions ----------------------------------------------------------
def recent_memories(
    store: Store, before: float, since: float, limit: int, exclude: Sequence[str] = ()
) -> list[Memory]:
    """Live memories created in [since, before], newest first, at most ``limit``."""
    marks = ",".join("?" * len(exclude)) or "''"
    # ``+status``: walk the created_at index newest first and stop at ``limit``; the status index
    # would sort every live memory first (0.35 s at 100k memories against 0.3 ms).
    rows = store.query(
        f"SELECT * FROM memories WHERE +status IN ('active', 'promoted') AND created_at <= ? AND created_at >= ? "
        f"AND id NOT IN ({marks}) ORDER BY created_at DESC, rowid DESC LIMIT ?",
        [before, since, *exclude, int(limit)],
    )
    return [store._row_to_memory(r) for r in rows]


def recalled_in_session(store: Store, session_id: str, until: float, limit: int) -> list[str]:
    """Memories recalled in ``session_id`` (the recall path records ``{"session_id": ...}`` in
    the context of each use), most recently recalled first."""
    rows = store.query(
        "SELECT memory_id, max(at) AS last FROM uses WHERE json_valid(context) "
        "AND json_extract(context, '$.session_id') = ? AND at <= ? GROUP BY memory_id ORDER BY last DESC LIMIT ?",
        (session_id, until, int(limit)),
    )
    return [r[0] for r in rows]

