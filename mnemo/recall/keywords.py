"""The BM25 side over memories, kept fast on big stores.

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
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from ..store.sqlite import fts_query
from .filters import Filters
from .query import Query

if TYPE_CHECKING:
    from ..core import Core

Ranking = list[tuple[str, float]]
COMMON_SHARE = 0.05
COMMON_MIN_DF = 1000
_TOKENIZER = "porter unicode61 remove_diacritics 2"  # the tokenizer of memories_fts (schema 0001)


# The searchable tables: FTS table, its vocabulary view, and how to bound the row count cheaply.
TABLES = {
    "memories": ("memories_fts", "mnemo_memvocab", "SELECT max(rowid) FROM memories"),
    "chunks": ("chunks_fts", "mnemo_chunkvocab", "SELECT max(n) FROM chunks"),
}


def _ensure_temp(conn: Any) -> None:
    conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.mnemo_qterms USING fts5(w, tokenize = '{_TOKENIZER}')")
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.mnemo_qterms_i USING fts5vocab(temp, mnemo_qterms, 'instance')")
    for fts, vocab, _ in TABLES.values():
        conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{vocab} USING fts5vocab(main, {fts}, 'row')")


# Per store and table: stem → (document frequency, table size when counted). Counting walks the term's
# postings (milliseconds for a common word on 100k memories); common words are exactly the ones
# that recur in queries, and their share moves slowly, so a count stays good until the store
# has grown or shrunk by 2 %.
_DF_CACHE: weakref.WeakKeyDictionary[Any, dict[str, dict[str, tuple[int, int]]]] = weakref.WeakKeyDictionary()
DF_CACHE_DRIFT = 0.02


# word → its FTS5 stem (None: no token). Stemming is fixed by the tokenizer, and query words
# recur, so a word is run through the temporary table once.
_STEMS: dict[str, str | None] = {}
STEM_CACHE = 20_000


def _stems(conn: Any, words: list[str]) -> dict[str, str | None]:
    new = [w for w in dict.fromkeys(words) if w not in _STEMS]
    if new:
        conn.execute("DELETE FROM temp.mnemo_qterms")
        conn.executemany("INSERT INTO temp.mnemo_qterms (rowid, w) VALUES (?, ?)", list(enumerate(new, start=1)))
        by_row = {int(r[1]): r[0] for r in conn.execute("SELECT term, doc FROM temp.mnemo_qterms_i")}
        conn.execute("DELETE FROM temp.mnemo_qterms")
        if len(_STEMS) + len(new) > STEM_CACHE:
            _STEMS.clear()
        _STEMS.update((w, by_row.get(i)) for i, w in enumerate(new, start=1))
    return {w: _STEMS.get(w) for w in words}


def document_frequencies(core: Core, words: list[str], size: int | None = None,
                         table: str = "memories") -> dict[str, int]:
    """How many memories (or note chunks) hold each word (as FTS5 stems it). Temporary tables
    belong to this connection and live outside the store file: the store itself is not written."""
    store = core.store
    vocab = TABLES[table][1]
    cache = _DF_CACHE.setdefault(store, {}).setdefault(table, {})
    with store.lock:
        conn = store.conn
        _ensure_temp(conn)
        stems = _stems(conn, words)
        out: dict[str, int] = {}
        for w in words:
            stem = stems.get(w)
            if stem is None:
                out[w] = 0
                continue
            hit = cache.get(stem)
            if hit is not None and size is not None and abs(size - hit[1]) <= DF_CACHE_DRIFT * max(1, hit[1]):
                out[w] = hit[0]
                continue
            row = conn.execute(f"SELECT doc FROM temp.{vocab} WHERE term = ?", (stem,)).fetchone()
            out[w] = int(row[0]) if row else 0
            if size is not None:
                cache[stem] = (out[w], size)
    return out


def prune_common(core: Core, words: list[str], table: str = "memories") -> list[str]:
    """The query words worth an FTS5 lookup (rule 2 of the module docstring)."""
    if len(words) <= 1:
        return words
    size = core.store.query(TABLES[table][2])[0][0] or 0  # O(log n); an upper bound
    limit = max(COMMON_MIN_DF, COMMON_SHARE * size)
    if size <= limit:
        return words
    df = document_frequencies(core, words, size, table)
    keep = [w for w in words if df[w] <= limit]
    return keep or [min(words, key=lambda w: df[w])]


def memory_bm25(core: Core, q: Query, filters: Filters, n: int, rows_cache: dict[str, Any] | None = None) -> Ranking:
    """(memory id, BM25) best first, filtered; FTS5's bm25() is smaller-is-better, so it is
    negated. Columns: content weighs 1.0, tags 0.5."""
    if n <= 0:
        return []
    if q.phrase:
        match = fts_query(q.keywords, "phrase")
    else:
        match = fts_query(" ".join(prune_common(core, q.keywords.split())), "or")
    if match is None:
        return []
    # Most memories pass the default filter (archived ones are few): a little over n will do.
    fetch = n + max(10, n // 5) if filters.is_default else 2 * n
    rows = core.store.query(
        "SELECT id, bm25(memories_fts, 0.0, 1.0, 0.5) AS s FROM memories_fts WHERE memories_fts MATCH ? ORDER BY s LIMIT ?",
        [match, fetch],
    )
    found = [(r[0], -float(r[1])) for r in rows]
    from .candidates import light_rows

    light = light_rows(core, [i for i, _ in found], rows_cache)
    kept = [(i, s) for i, s in found if i in light and filters.matches_row(light[i])]
    if len(kept) >= n or len(found) < fetch:
        return kept[:n]
    extra, params = filters.sql("m")
    rows = core.store.query(
        "SELECT f.id, bm25(memories_fts, 0.0, 1.0, 0.5) AS s FROM memories_fts f JOIN memories m ON m.id = f.id "
        f"WHERE memories_fts MATCH ? {extra} ORDER BY s LIMIT ?",
        [match, *params, int(n)],
    )
    return [(r[0], -float(r[1])) for r in rows]
