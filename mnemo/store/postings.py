"""The reads behind ``index.bm25`` (FTS5's bm25() from postings kept in memory): an FTS5 table's
averages and structure records, its rows' sizes, one term's postings from FTS5's instance
vocabulary, and words split into tokens by the tables' tokenizer. Every function takes the
store's connection and is called with the store's lock held; temporary tables belong to the
connection and live outside the store file, so nothing here writes to the store."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from .fts import _TOKENIZER

AVERAGES, STRUCTURE = 1, 10  # FTS5's rowids of its averages and structure records in <table>_data


def _plain(conn: sqlite3.Connection) -> sqlite3.Cursor:
    """A cursor giving tuples (the store's rows are ``sqlite3.Row``: slower to make by the thousand)."""
    cur = conn.cursor()
    cur.row_factory = None
    return cur


def records(conn: sqlite3.Connection, fts: str) -> tuple[bytes, bytes] | None:
    """The table's averages and structure records (FTS5 rewrites both on every write), or None."""
    got = dict(_plain(conn).execute(f"SELECT id, block FROM {fts}_data WHERE id IN (?, ?)", (AVERAGES, STRUCTURE)).fetchall())
    a, s = got.get(AVERAGES), got.get(STRUCTURE)
    return (bytes(a), bytes(s)) if a is not None and s is not None else None


def columns(conn: sqlite3.Connection, fts: str) -> list[str]:
    return [d[0] for d in conn.execute(f"SELECT * FROM {fts} LIMIT 0").description]


def sizes(conn: sqlite3.Connection, fts: str) -> list[tuple[int, bytes]]:
    """(rowid, size record: a varint of tokens a column) of every row."""
    return _plain(conn).execute(f"SELECT id, sz FROM {fts}_docsize").fetchall()


def postings(conn: sqlite3.Connection, fts: str, term: str, weights: Sequence[float]) -> list[tuple[int, float]]:
    """(rowid, Σ over the term's instances in the row of its column's weight), by rowid."""
    vocab = f"mnemo_bm25_{fts}_i"
    conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{vocab} USING fts5vocab(main, {fts}, 'instance')")
    names = columns(conn, fts)
    weight = " ".join(f"WHEN ? THEN {float(weights[i]) if i < len(weights) else 1.0!r}" for i in range(len(names)))
    # Sums of column weights (1.0, 0.5) are exact in any order: FTS5's instance order need not be kept.
    return _plain(conn).execute(f"SELECT doc, sum(CASE col {weight} ELSE 1.0 END) FROM temp.{vocab} "
                                "WHERE term = ? GROUP BY doc ORDER BY doc", [*names, term]).fetchall()


def tokens(conn: sqlite3.Connection, words: Sequence[str]) -> list[tuple[str, ...]]:
    """Each word's tokens, in order, by the tokenizer of ``memories_fts`` and ``chunks_fts``."""
    conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.mnemo_bm25_words USING fts5(w, tokenize = '{_TOKENIZER}')")
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.mnemo_bm25_words_i USING fts5vocab(temp, mnemo_bm25_words, 'instance')")
    conn.execute("DELETE FROM temp.mnemo_bm25_words")
    conn.executemany("INSERT INTO temp.mnemo_bm25_words (rowid, w) VALUES (?, ?)", list(enumerate(words, start=1)))
    found: dict[int, list[str]] = {}
    for term, doc in _plain(conn).execute("SELECT term, doc FROM temp.mnemo_bm25_words_i ORDER BY doc, offset"):
        found.setdefault(int(doc), []).append(term)
    conn.execute("DELETE FROM temp.mnemo_bm25_words")
    return [tuple(found.get(i, ())) for i in range(1, len(words) + 1)]


def chunk_ids(conn: Any, rowids: Sequence[int]) -> dict[int, str]:
    """rowid → the ``id`` column of those ``chunks_fts`` rows."""
    if not rowids:
        return {}
    marks = ",".join("?" * len(rowids))
    return {int(r[0]): r[1] for r in _plain(conn).execute(f"SELECT rowid, id FROM chunks_fts WHERE rowid IN ({marks})", list(rowids))}
