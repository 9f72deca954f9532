"""FTS5's ``bm25()`` for an OR of words, computed from cached postings: the same scores, bit for
bit, in the same order, for a fraction of the work.

**Why.** FTS5 scores every row that holds any query word, and for each one it runs a statement
of its own to read the row's size (its ``docsize`` table): on the 10k bench store the two keyword
searches of a recall score ~2,000 rows each, ~3 ms apiece, most of it that per-row statement.
The sizes and the postings of the words queries use change only when the FTS table is written,
which a recall never does: kept in memory, a search is a few array operations (~0.5 ms).

**What is computed** is FTS5's own formula (``fts5Bm25Function`` in SQLite's ``fts5_aux.c``),
with its constants and in its order of operations, so the doubles are the ones FTS5 returns::

    idf(p)   = ln((N − n(p) + 0.5) / (n(p) + 0.5)), 1e-6 if not above 0
    f(p, d)  = Σ over the instances of phrase p in row d of the weight of the instance's column
    score(d) = Σ_p idf(p) · f(p, d) · (k1 + 1) / (f(p, d) + k1 · (1 − b + b · |d| / avgdl))

with k1 = 1.2, b = 0.75, N the table's rows, n(p) the rows holding p, |d| the tokens of row d
in every column and avgdl = total tokens / N (FTS5's averages record). Rows are ordered by score,
equal scores by rowid, as SQLite's ``ORDER BY bm25(...) LIMIT n`` over FTS5's rowid-ordered scan
returns them (``tests/test_index_bm25.py`` compares both on thousands of queries).

**When it answers** (else ``top`` returns None and the caller asks FTS5, as before):

- every word of the query is one token for the table's tokenizer (a phrase of several, "e_mail"
  → "e" "mail", or of none, is left to FTS5);
- the cache is current: it belongs to the FTS table's averages and structure records (FTS5
  rewrites both on every insert, delete or merge, and its write counter never repeats), read
  again before every search, and no transaction is open on the connection (FTS5 keeps a
  transaction's writes in memory until it commits). A cache is built only once the same records
  have been seen by two searches in a row: a store written between every two searches keeps
  asking FTS5 (reading the two records is all it pays), a quiet one pays the build once
  (~10 ms at 10k rows, ~0.1 s at 100k) and then searches from memory.

Postings are read from FTS5's own ``fts5vocab`` instance table (the SQL is ``store/postings.py``), a word at a time, the first time
a search uses it (``POSTINGS_CACHE`` entries at most, least recently used out first), so they are
FTS5's tokens. Everything lives in temporary tables of the connection and in this process's
memory: the store file is never written.
"""

from __future__ import annotations

import logging
import math
import re
import sqlite3
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..store import postings as postings_sql

if TYPE_CHECKING:
    from ..store.sqlite import Store

log = logging.getLogger(__name__)

K1 = 1.2
B = 0.75
POSTINGS_CACHE = 2_000_000  # (row, weight) entries kept a table: 32 MB
TOKEN_CACHE = 20_000  # words whose tokens are kept
SPARSE = 16  # postings under 1 / SPARSE of the table's rows are scored on their own rows (``_score``)
_WORD = re.compile(r"\w+", re.UNICODE)  # the words of ``store.fts.fts_query``

Version = tuple[bytes, bytes]


@dataclass
class _Table:
    """What is kept of one FTS5 table: its size and the postings read so far."""

    version: Version | None = None  # the records the cache was built for
    seen: Version | None = None  # the records the last search saw
    rows: int = 0
    avgdl: float = 1.0
    sizes: np.ndarray = field(default_factory=lambda: np.zeros(0))  # rowid → tokens in every column
    norm: np.ndarray = field(default_factory=lambda: np.zeros(0))  # rowid → k1 · (1 − b + b · |d| / avgdl)
    postings: OrderedDict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=OrderedDict)
    entries: int = 0


_TABLES: weakref.WeakKeyDictionary[Any, dict[str, _Table]] = weakref.WeakKeyDictionary()
_TOKENS: dict[str, tuple[str, ...]] = {}  # word → its tokens (the tokenizer is fixed)


def words_of(text: str) -> list[str]:
    """The words ``store.fts.fts_query`` makes phrases of, in order, without repeats."""
    return list(dict.fromkeys(w.lower() for w in _WORD.findall(text)))


def varints(blob: bytes) -> list[int]:
    """SQLite's variable-length integers (FTS5's ``docsize`` and averages records)."""
    out: list[int] = []
    i, n = 0, len(blob)
    while i < n:
        v = 0
        for k in range(9):
            x = blob[i]
            i += 1
            if k == 8:
                v = (v << 8) | x
                break
            v = (v << 7) | (x & 0x7F)
            if not x & 0x80:
                break
        out.append(v)
    return out


def _version(conn: Any, fts: str) -> Version | None:
    return postings_sql.records(conn, fts)


def _build(conn: Any, fts: str, t: _Table, version: Version) -> bool:
    """Read the table's row sizes and totals; False if the table moved while reading."""
    found = postings_sql.sizes(conn, fts)
    ncol = len(postings_sql.columns(conn, fts))
    top = max((r[0] for r in found), default=0)
    sizes = np.zeros(top + 1, dtype=np.float64)
    for rowid, sz in found:
        # A record of one byte a column holds counts below 128: their sum is the size.
        sizes[rowid] = sum(sz) if len(sz) == ncol else sum(varints(sz))
    totals = varints(version[0])
    if _version(conn, fts) != version or not totals:
        return False
    rows = max(1, totals[0])  # FTS5 reads at least one row and one token (fts5Bm25GetData)
    tokens = max(1, sum(totals[1:]))
    t.version, t.rows, t.avgdl, t.sizes = version, rows, float(tokens) / float(rows), sizes
    t.norm = K1 * (1 - B + B * sizes / t.avgdl)  # FTS5's operations, in its order
    t.postings.clear()
    t.entries = 0
    return True


def _tokens(conn: Any, words: Sequence[str]) -> list[tuple[str, ...]]:
    """Each word's tokens by the FTS tables' tokenizer (kept: the tokenizer is fixed)."""
    known = {w: _TOKENS.get(w) for w in words}
    new = [w for w, found in known.items() if found is None]
    if new:
        read = dict(zip(new, postings_sql.tokens(conn, new), strict=True))
        known.update(read)
        if len(_TOKENS) + len(new) > TOKEN_CACHE:
            _TOKENS.clear()
        _TOKENS.update(read)
    return [known[w] or () for w in words]


def _postings(conn: Any, fts: str, t: _Table, term: str, weights: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """(rowids ascending, f(term, row)) of one term, read from FTS5's instance vocabulary."""
    kept = t.postings.get(term)
    if kept is not None:
        t.postings.move_to_end(term)
        return kept
    found = postings_sql.postings(conn, fts, term, weights)
    rowids = np.fromiter((r[0] for r in found), dtype=np.int64, count=len(found))
    freq = np.fromiter((r[1] for r in found), dtype=np.float64, count=len(found))
    t.postings[term] = (rowids, freq)
    t.entries += len(rowids)
    while t.entries > POSTINGS_CACHE and len(t.postings) > 1:
        _, (old, _) = t.postings.popitem(last=False)
        t.entries -= len(old)
    return rowids, freq


def top(store: Store, fts: str, text: str, weights: Sequence[float], limit: int) -> list[tuple[int, float]] | None:
    """(rowid, −bm25) of the ``limit`` best rows of ``fts`` for the OR of the words of ``text``
    (what ``store.fts.fts_query(text)`` matches), best first, equal scores by rowid: what FTS5
    ordering by ``bm25(fts, *weights)`` with a limit gives (``store.fts``), negated.
    None when the cache cannot answer (the module docstring): ask FTS5."""
    words = words_of(text)
    if not words or limit <= 0:
        return None
    try:
        return _top(store, fts, words, weights, limit)
    except sqlite3.Error:  # a table made without what this reads (detail, sizes): FTS5 answers
        log.debug("kept postings unavailable for %s", fts, exc_info=True)
        return None


def _top(store: Store, fts: str, words: list[str], weights: Sequence[float], limit: int) -> list[tuple[int, float]] | None:
    with store.lock:
        conn = store.conn
        if conn.in_transaction:
            return None
        version = _version(conn, fts)
        if version is None:
            return None
        t = _TABLES.setdefault(store, {}).setdefault(fts, _Table())
        if t.version != version:
            seen, t.seen = t.seen, version
            if seen != version or not _build(conn, fts, t, version):
                return None
        t.seen = version
        tokens = _tokens(conn, words)
        if any(len(ts) != 1 for ts in tokens):
            return None
        fresh = any(ts[0] not in t.postings for ts in tokens)
        lists = [_postings(conn, fts, t, ts[0], weights) for ts in tokens]
        if fresh and _version(conn, fts) != version:  # written while the postings were read
            t.version = None
            return None
        # Under the lock: another thread's rebuild must not swap the sizes under these postings.
        return _score(t, lists, limit)


def _score(t: _Table, lists: list[tuple[np.ndarray, np.ndarray]], limit: int) -> list[tuple[int, float]]:
    for rowids, _ in lists:
        if len(rowids) and rowids[-1] >= len(t.sizes):  # cannot be with a current cache
            raise RuntimeError("a row beyond the cached sizes")
    total = sum(len(rowids) for rowids, _ in lists)
    # Few postings against the table (rare words, a big store): work on their rows only; else on
    # arrays over every rowid (no sort of the matching rows). The same additions either way.
    rows = np.unique(np.concatenate([r for r, _ in lists])) if total * SPARSE < len(t.sizes) else None
    score = np.zeros(len(t.sizes) if rows is None else len(rows), dtype=np.float64)
    for rowids, freq in lists:  # in phrase order, as FTS5 sums them (a phrase a row lacks adds +0.0)
        n = len(rowids)
        idf = math.log((t.rows - n + 0.5) / (n + 0.5))
        if idf <= 0.0:
            idf = 1e-6
        at = rowids if rows is None else np.searchsorted(rows, rowids)
        score[at] += idf * ((freq * (K1 + 1.0)) / (freq + t.norm[rowids]))
    if rows is None:
        hit = np.zeros(len(t.sizes), dtype=bool)
        for rowids, _ in lists:
            hit[rowids] = True
        rows = np.flatnonzero(hit)
        found = score[rows]
    else:
        found = score
    order = np.lexsort((rows, -found))[:limit]
    return [(int(rows[i]), float(found[i])) for i in order]


def forget(store: Store) -> None:
    """Drop what is kept for ``store`` (tests; a closed store's entry goes with it anyway)."""
    _TABLES.pop(store, None)
