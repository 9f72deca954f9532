"""The FTS5 side of the store: BM25 over memories (``memories_fts``) and note chunks
(``chunks_fts``), the SQL form of a search filter, and document frequencies read from FTS5's own
vocabulary. The search policy (what to ask, when to prune) is ``index.keywords``.

Query words are stemmed by FTS5's own tokenizer in a connection-private temporary table and
counted in ``fts5vocab`` views, so the store and the query agree on what a term is; temporary
tables live outside the store file, so counting writes nothing to the store.
"""

from __future__ import annotations

import re
import sqlite3
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .rows import Rows

if TYPE_CHECKING:
    import threading

    from ..index.filters import Filters

Ranking = list[tuple[str, float]]
_WORD = re.compile(r"\w+", re.UNICODE)
# The conversation a memory was said in (``meta.context``: the turn before it, set by ingest) is
# indexed in a column of its own, weighed below the memory's own words (``MEMORY_WEIGHTS``).
FTS_FILL = (
    "INSERT INTO memories_fts (rowid, id, content, tags, context) SELECT rowid, id, content, "
    "(SELECT coalesce(group_concat(value, ' '), '') FROM json_each(memories.tags)), "
    "coalesce(json_extract(meta, '$.context'), '') FROM memories"
)
FTS_INSERT = "INSERT INTO memories_fts (rowid, id, content, tags, context) VALUES (?, ?, ?, ?, ?)"
# bm25() column weights for memories_fts (id, content, tags, context). The context (the turn
# before a memory, which often holds the words a later question repeats: "What got you into
# pottery?" before "I started after my dad passed") counts half of the memory's own words.
# Held out (scripts/eval_locomo.py --store ingest --folds loo on the three dev conversations, the
# weight chosen on two conversations and reported on the third): recall@10 pooled 0.679 without
# the column; with it, weight 0.1 0.696, 0.25 0.728, 0.5 0.739, 1.0 0.715; 0.5 is chosen on
# every fold (held out per conversation 0.734 / 0.704 / 0.762 against 0.661 / 0.628 / 0.723).
MEMORY_WEIGHTS = (0.0, 1.0, 0.5, 0.5)
_MEMORY_BM25 = f"bm25(memories_fts, {', '.join(str(w) for w in MEMORY_WEIGHTS)})"
_TOKENIZER = "porter unicode61 remove_diacritics 2"  # the tokenizer of memories_fts (schema 0001)
# bm25() column weights for chunks_fts (id, title, heading, content, tags): a word in the note's
# title or a heading says more about the chunk than one in its body.
CHUNK_WEIGHTS = (0.0, 2.0, 1.5, 1.0, 1.0)

# The searchable tables: FTS table, its vocabulary view, and how to bound the row count cheaply.
TABLES = {
    "memories": ("memories_fts", "mnemo_memvocab", "SELECT max(rowid) FROM memories"),
    "chunks": ("chunks_fts", "mnemo_chunkvocab", "SELECT max(n) FROM chunks"),
}


def context_of(meta: Any) -> str:
    """The text a memory is indexed with beside its content (``meta.context``), or ''."""
    ctx = meta.get("context") if isinstance(meta, dict) else None
    return ctx if isinstance(ctx, str) else ""

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


def fts_query(text: str, mode: str = "or") -> str | None:
    """A safe FTS5 MATCH expression from free text: every word quoted (so no user text is
    FTS syntax), joined by OR for ranking, or as one phrase for ``mode="phrase"``."""
    words = [w.lower() for w in _WORD.findall(text)]
    if not words:
        return None
    if mode == "phrase":
        return '"' + " ".join(words) + '"'
    seen: dict[str, None] = {}
    for w in words:
        seen.setdefault(w, None)
    return " OR ".join(f'"{w}"' for w in seen)


def filter_clauses(f: Filters, alias: str = "m") -> tuple[str, list[Any]]:
    """``AND ...`` clauses over the memories table for a search filter, and their parameters."""
    p = f"{alias}."
    clauses = [f"{p}status IN ({','.join('?' * len(f.statuses))})"]
    params: list[Any] = list(f.statuses)
    for col, value in (("type", f.type), ("layer", f.layer), ("wing", f.wing), ("room", f.room)):
        if value:
            clauses.append(f"{p}{col} = ?")
            params.append(value)
    for tag in f.tags:
        clauses.append(f"EXISTS (SELECT 1 FROM json_each({p}tags) WHERE value = ?)")
        params.append(tag)
    if f.since is not None:
        clauses.append(f"{p}created_at >= ?")
        params.append(f.since)
    if f.until is not None:
        clauses.append(f"{p}created_at <= ?")
        params.append(f.until)
    return " AND " + " AND ".join(clauses), params


def _ensure_temp(conn: sqlite3.Connection) -> None:
    conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.mnemo_qterms USING fts5(w, tokenize = '{_TOKENIZER}')")
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.mnemo_qterms_i USING fts5vocab(temp, mnemo_qterms, 'instance')")
    for fts, vocab, _ in TABLES.values():
        conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{vocab} USING fts5vocab(main, {fts}, 'row')")


def _stems(conn: sqlite3.Connection, words: list[str]) -> dict[str, str | None]:
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


class KeywordSearch(Rows):
    """Mixin of ``Store``: the FTS5 tables, read and rebuilt."""

    conn: sqlite3.Connection
    lock: threading.RLock

    if TYPE_CHECKING:
        @staticmethod
        def filter_sql(status: str | Sequence[str] | None = None, type: str | None = None, tag: str | None = None,
                       layer: str | None = None, wing: str | None = None, room: str | None = None,
                       alias: str = "") -> tuple[str, list[Any]]: ...

        def light_rows_at(self, seqs: Sequence[int], cache: dict[str, dict[str, Any] | None] | None = None
                          ) -> dict[int, dict[str, Any]]: ...

    def fts_search(
        self,
        text: str,
        limit: int = 50,
        mode: str = "or",
        filters: dict[str, Any] | None = None,
    ) -> list[tuple[str, float]]:
        """(id, bm25) best first. FTS5's bm25() is smaller-is-better, so it is negated here."""
        match = fts_query(text, mode)
        if match is None:
            return []
        where, params = self.filter_sql(alias="m", **(filters or {}))
        extra = where.replace("WHERE", "AND") if where else ""
        rows = self.query(
            f"SELECT f.id, {_MEMORY_BM25} AS s FROM memories_fts f "
            f"JOIN memories m ON m.id = f.id WHERE memories_fts MATCH ? {extra} ORDER BY s, f.id LIMIT ?",
            [match, *params, limit],
        )
        return [(r[0], -float(r[1])) for r in rows]

    def fts_rebuild(self) -> int:
        """Refill ``memories_fts`` from ``memories``; returns its row count."""
        with self.tx() as conn:
            conn.execute("DELETE FROM memories_fts")
            conn.execute(FTS_FILL)
        return int(self.query("SELECT count(*) FROM memories_fts")[0][0])

    def fts_size_bound(self, table: str = "memories") -> int:
        """An upper bound on the rows of a searchable table, in O(log n)."""
        return int(self.query(TABLES[table][2])[0][0] or 0)

    def document_frequencies(self, words: list[str], size: int | None = None,
                             table: str = "memories") -> dict[str, int]:
        """How many memories (or note chunks) hold each word, as FTS5 stems it; a count is
        reused until ``size`` has moved by ``DF_CACHE_DRIFT``."""
        vocab = TABLES[table][1]
        cache = _DF_CACHE.setdefault(self, {}).setdefault(table, {})
        with self.lock:
            conn = self.conn
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

    def memory_bm25(self, match: str, limit: int, cache: dict[str, dict[str, Any] | None] | None = None) -> Ranking:
        """(memory id, negated bm25) best first for a MATCH expression, unfiltered (no join).
        FTS5 reads the ``id`` column of every matching row before sorting (thousands on a 10k
        store) while the rowid is free, and the FTS row shares its memory's rowid: the ids of the
        ``limit`` best come from their light rows, read here (into ``cache``, for the filters)."""
        rows = self.query(
            f"SELECT rowid, {_MEMORY_BM25} AS s FROM memories_fts WHERE memories_fts MATCH ? ORDER BY s LIMIT ?",
            [match, limit],
        )
        light = self.light_rows_at([r[0] for r in rows], cache)
        return [(light[r[0]]["id"], -float(r[1])) for r in rows if r[0] in light]

    def memory_bm25_filtered(self, match: str, filters: Filters, limit: int) -> Ranking:
        """The same, joined with ``memories`` to apply the filter in SQL."""
        extra, params = filter_clauses(filters, "m")
        rows = self.query(
            f"SELECT f.id, {_MEMORY_BM25} AS s FROM memories_fts f JOIN memories m ON m.id = f.id "
            f"WHERE memories_fts MATCH ? {extra} ORDER BY s LIMIT ?",
            [match, *params, int(limit)],
        )
        return [(r[0], -float(r[1])) for r in rows]

    def chunk_bm25(self, match: str, limit: int) -> Ranking:
        """(chunk id, negated bm25) best first, with the column weights of ``CHUNK_WEIGHTS``."""
        weights = ", ".join(str(w) for w in CHUNK_WEIGHTS)
        rows = self.query(
            f"SELECT id, bm25(chunks_fts, {weights}) AS s FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY s LIMIT ?",
            (match, limit),
        )
        return [(r[0], -float(r[1])) for r in rows]
