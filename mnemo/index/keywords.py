"""The keyword side of search: BM25 (FTS5, in the store) over memories and note chunks, kept
fast on big stores.

FTS5 scores every row that matches any query word (an OR query), so a query's cost grows with
the postings of its words. Two measures keep it small:

1. The FTS5 query runs alone (no join with ``memories``); its top ``2n`` rows are then checked
   against the filters on light rows. Only if that leaves fewer than ``n`` while FTS5 had more
   to give is the filtered join run (joining costs a lookup per *matching* row: 5x the time
   on 100k memories).
2. On a store of more than ``COMMON_MIN_DF / COMMON_SHARE`` (20,000) memories, a query word
   found in more than 5 % of the memories is left to the vector side, as long as a rarer word
   remains (the same holds for note chunks: ``table="chunks"``). Its IDF is low (``ln(19) ≈
   2.9`` at 5 %, against 7–11 for a rare word), so it barely moves the BM25 order, but its
   postings would dominate the work. Document frequencies
   come from FTS5's own vocabulary (``fts5vocab``), the query words are stemmed by FTS5's own
   tokenizer in a connection-private temporary table, so both sides agree on what a term is.
   Small stores (every store LoCoMo-sized) never prune. A count is cached per stem until the
   store's size moves by 2 % (common words are the ones queries repeat).

The SQL of both lives in the store (``store/fts.py``); this module decides what to ask.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from ..store.fts import CHUNK_WEIGHTS, MEMORY_WEIGHTS, fts_query
from ..store.postings import chunk_ids
from .bm25 import top
from .filters import Filters

if TYPE_CHECKING:
    from ..core import Core

Ranking = list[tuple[str, float]]
COMMON_SHARE = 0.05
COMMON_MIN_DF = 1000


class KeywordQuery(Protocol):
    """What the keyword side reads of a parsed query (recall's ``Query``)."""

    @property
    def keywords(self) -> str: ...
    @property
    def phrase(self) -> bool: ...


def document_frequencies(core: Core, words: list[str], size: int | None = None,
                         table: str = "memories") -> dict[str, int]:
    """How many memories (or note chunks) hold each word (as FTS5 stems it). Temporary tables
    belong to this connection and live outside the store file: the store itself is not written."""
    return core.store.document_frequencies(words, size, table)


def prune_common(core: Core, words: list[str], table: str = "memories") -> list[str]:
    """The query words worth an FTS5 lookup (rule 2 of the module docstring)."""
    if len(words) <= 1:
        return words
    size = core.store.fts_size_bound(table)  # O(log n); an upper bound
    limit = max(COMMON_MIN_DF, COMMON_SHARE * size)
    if size <= limit:
        return words
    df = document_frequencies(core, words, size, table)
    keep = [w for w in words if df[w] <= limit]
    return keep or [min(words, key=lambda w: df[w])]


def memory_bm25(core: Core, q: KeywordQuery, filters: Filters, n: int,
                rows_cache: dict[str, Any] | None = None) -> Ranking:
    """(memory id, BM25) best first, filtered; FTS5's bm25() is smaller-is-better, so it is
    negated. Columns: content weighs 1.0, tags 0.5, the conversation context 0.5
    (``store.fts.MEMORY_WEIGHTS``)."""
    if n <= 0:
        return []
    words = None if q.phrase else " ".join(prune_common(core, q.keywords.split()))
    match = fts_query(q.keywords, "phrase") if words is None else fts_query(words, "or")
    if match is None:
        return []
    # Most memories pass the default filter (archived ones are few): a little over n will do.
    fetch = n + max(10, n // 5) if filters.is_default else 2 * n
    cache: dict[str, Any] = {} if rows_cache is None else rows_cache
    found = _memory_top(core, words, fetch, cache) if words is not None else None
    if found is None:
        found = core.store.memory_bm25(match, fetch, cache)
    light = core.store.light_rows([i for i, _ in found], cache)
    kept = [(i, s) for i, s in found if i in light and filters.matches_row(light[i])]
    if len(kept) >= n or len(found) < fetch:
        return kept[:n]
    return core.store.memory_bm25_filtered(match, filters, n)


def _memory_top(core: Core, words: str, fetch: int, cache: dict[str, Any]) -> Ranking | None:
    """``store.memory_bm25`` of ``fts_query(words)`` from the postings kept in memory (``bm25``:
    the same ranking), or None when they cannot answer."""
    found = top(core.store, "memories_fts", words, MEMORY_WEIGHTS, fetch)
    if found is None:
        return None
    light = core.store.light_rows_at([r for r, _ in found], cache)
    return [(light[r]["id"], s) for r, s in found if r in light]


def chunk_bm25(core: Core, query: str, n: int, mode: str = "or") -> Ranking:
    """(note chunk id, BM25) best first; ``mode="phrase"`` for an exact phrase."""
    if mode == "or":
        # On a big vault a word in most chunks costs the most and ranks the least (rule 2).
        query = " ".join(prune_common(core, query.split(), table="chunks"))
    match = fts_query(query, mode)
    if match is None or n <= 0:
        return []
    found = top(core.store, "chunks_fts", query, CHUNK_WEIGHTS, n) if mode == "or" else None
    if found is None:
        return core.store.chunk_bm25(match, n)
    with core.store.lock:
        ids = chunk_ids(core.store.conn, [r for r, _ in found])
    return [(ids[r], s) for r, s in found if r in ids]
