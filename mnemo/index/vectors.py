"""The vector side of search: cosine (Chroma) over memories and note chunks, and the Chroma
``where`` form of a search filter (the SQL form is the store's: ``store.fts.filter_clauses``).

A metadata filter makes Chroma test every stored vector (about a second per query on 100k
memories), so wherever the wanted rows are most of the collection, the index is asked without a
filter, over-fetching a little, and the rows are checked afterwards on the store's light rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .filters import Filters

if TYPE_CHECKING:
    from ..core import Core

Ranking = list[tuple[str, float]]
MEMORIES = "memories"
CHUNKS = "chunks"
LIVE = ("active", "promoted")
OVERFETCH = 4  # neighbours asked for per live one wanted (``live_neighbours``)


def where(f: Filters) -> dict[str, Any]:
    """Chroma metadata filter. Tags are not in Chroma's metadata: ``Filters.matches`` checks them."""
    clauses: list[dict[str, Any]] = [{"status": {"$in": list(f.statuses)}}]
    for key in ("type", "layer", "wing", "room"):
        value = getattr(f, key)
        if value:
            clauses.append({key: value})
    if f.since is not None:
        clauses.append({"created_at": {"$gte": f.since}})
    if f.until is not None:
        clauses.append({"created_at": {"$lte": f.until}})
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


def unfiltered_fetch(filters: Filters, n: int) -> int | None:
    """How many neighbours ``memory_vectors`` asks the index for without a filter (``None``:
    the filter goes to Chroma)."""
    if not filters.is_default:
        return None
    fetch = n * 4 if filters.tags else n
    return fetch + max(10, fetch // 5)


def memory_neighbours(core: Core, qvec: Any, filters: Filters, n: int) -> Ranking | None:
    """The unfiltered index query of ``memory_vectors`` alone (no store read), so recall can run
    it on its worker thread right after the query's embedding, while FTS5 works; ``None`` when
    the filter must go to Chroma."""
    fetch = unfiltered_fetch(filters, n)
    return None if fetch is None else core.index.query(MEMORIES, qvec, fetch)


def memory_vectors(core: Core, qvec: Any, filters: Filters, n: int,
                   rows_cache: dict[str, Any] | None = None, found: Ranking | None = None) -> Ranking:
    """(memory id, cosine) best first. The default filter (live statuses; archived memories are
    few) is checked afterwards on light rows, over-fetching a little; other filters go to
    Chroma. Tag lists Chroma cannot test: with a tag filter more are fetched and checked later.
    Stored vectors are not asked for: returning 120 of them costs 3.5 ms of a 5 ms query (as
    Python floats); the head's are read after re-ranking (``recall.rerank.vectors_of``).
    ``found``: ``memory_neighbours`` already run for the same query and filters."""
    fetch = n * 4 if filters.tags else n
    if filters.is_default:
        if found is None:
            found = memory_neighbours(core, qvec, filters, n)
        assert found is not None
        rows = core.store.light_rows([i for i, _ in found], rows_cache)
        kept = [(i, s) for i, s in found if i in rows and filters.matches_row(rows[i])]
        if len(kept) >= fetch or len(found) < fetch:
            return kept[:fetch]
    core.deferred_meta.flush(core)  # the filter must see the current layers
    return core.index.query(MEMORIES, qvec, fetch, where=where(filters))


def chunk_vectors(core: Core, query_vec: Any, n: int) -> Ranking:
    """(note chunk id, cosine) best first; empty when the vault has no chunks or their vectors
    are another model's (re-embedded at the next index: keyword ranking only until then)."""
    if n <= 0 or query_vec is None:
        return []
    if not core.store.has_chunks():
        return []  # do not create an empty collection just to ask it
    if core.store.kv_get("vault.model_hash") != core.embedder.model_hash:
        return []
    return core.index.query(CHUNKS, query_vec, n)


def live_neighbours(core: Core, vectors: Any, k: int, overfetch: int = OVERFETCH) -> list[Ranking]:
    """The ``k`` nearest active or promoted memories of each vector, best first.

    The index is asked for ``k · overfetch`` neighbours without a filter and the live ones are
    kept, their status read from the store. Results come sorted, so the first live one is the
    nearest live memory overall; only a vector whose every neighbour fetched is archived is
    asked again with the filter."""
    vecs = np.asarray(vectors, dtype=np.float32)
    if not len(vecs):
        return []
    n = k * overfetch
    found = core.index.query_many(MEMORIES, vecs, n)
    statuses = core.store.memory_statuses([i for row in found for i, _ in row])
    live = {i for i, status in statuses.items() if status in LIVE}
    out = [[(i, sim) for i, sim in row if i in live][:k] for row in found]
    again = [j for j, row in enumerate(found) if not out[j] and len(row) == n]
    if again:
        redo = core.index.query_many(MEMORIES, vecs[again], k, where=where(Filters(statuses=LIVE)))
        for j, row in zip(again, redo, strict=True):
            out[j] = row
    return out
