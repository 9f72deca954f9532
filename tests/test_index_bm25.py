"""``index.bm25``: FTS5's bm25() from postings kept in memory must rank and score exactly as
FTS5 does, on a real store, and must never answer from a stale cache."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from mnemo.engine import Mnemo
from mnemo.index import bm25
from mnemo.index.filters import make_filters
from mnemo.index.keywords import memory_bm25
from mnemo.recall.query import parse_query
from mnemo.store.fts import MEMORY_WEIGHTS, fts_query

WORDS = [
    "garden", "tomato", "basil", "watering", "hose", "shed", "roof", "rain", "pesto", "heron",
    "pond", "bike", "train", "deploy", "build", "release", "budget", "review", "alice", "bob",
    "carol", "migrated", "migrating", "migration", "database", "cache", "leak",
]


def _fill(m: Mnemo, n: int, seed: int = 3) -> list[str]:
    """``n`` memories of a few dozen words, with repeated words, tags and a context column, so
    scores tie often and every column weighs in."""
    rng = random.Random(seed)
    items = []
    for i in range(n):
        words = [rng.choice(WORDS) for _ in range(rng.randint(1, 12))]
        item: dict = {"content": " ".join(words) + f" number{i % 7}"}
        if i % 5 == 0:
            item["tags"] = [rng.choice(WORDS)]
        if i % 3 == 0:
            item["meta"] = {"context": " ".join(rng.choice(WORDS) for _ in range(4))}
        items.append(item)
    # A memory of more than 127 tokens: its size record holds a varint of two bytes.
    items.append({"content": " ".join(rng.choice(WORDS) for _ in range(300))})
    return [r.memory.id for r in m.save_many(items)]


def _fts(m: Mnemo, text: str, limit: int) -> list[tuple[int, float]]:
    match = fts_query(text)
    assert match is not None
    rows = m.core.store.query(
        f"SELECT rowid, bm25(memories_fts, {', '.join(map(str, MEMORY_WEIGHTS))}) AS s FROM memories_fts "
        "WHERE memories_fts MATCH ? ORDER BY s LIMIT ?", [match, limit])
    return [(int(r[0]), -float(r[1])) for r in rows]


def _top(m: Mnemo, text: str, limit: int) -> list[tuple[int, float]] | None:
    return bm25.top(m.core.store, "memories_fts", text, MEMORY_WEIGHTS, limit)


def _warm(m: Mnemo) -> None:
    """A cache is built once the store has looked the same to two searches in a row."""
    _top(m, "garden", 5)
    assert _top(m, "garden", 5) is not None


@pytest.mark.parametrize("sparse", [0, 10**6])  # only the matching rows; an array cell for every rowid
def test_scores_and_order_equal_fts5_bit_for_bit(engine: Mnemo, monkeypatch: pytest.MonkeyPatch, sparse: int) -> None:
    monkeypatch.setattr(bm25, "SPARSE", sparse)
    m = engine
    _fill(m, 400)
    _warm(m)
    rng = random.Random(11)
    queries = [" ".join(rng.sample(WORDS + ["number3", "absent", "migrates"], rng.randint(1, 6))) for _ in range(300)]
    ties = 0
    for text in queries:
        for limit in (5, 60):
            want = _fts(m, text, limit)
            got = _top(m, text, limit)
            assert got == want, text  # the same floats, the same order (ties by rowid)
            ties += len(want) - len({s for _, s in want})
    assert ties > 100  # the order of equal scores was put to the test


def test_a_write_is_seen_by_the_next_search(engine: Mnemo) -> None:
    """Saving, editing and deleting rewrite FTS5's records: the cache is not used until rebuilt,
    and once rebuilt it ranks the new rows as FTS5 does."""
    m = engine
    ids = _fill(m, 150)
    _warm(m)
    before = _top(m, "heron pond", 60)
    assert before == _fts(m, "heron pond", 60)

    new = m.save("the heron stood in the pond by the heron statue").memory.id
    assert _top(m, "heron pond", 60) is None  # the store moved: FTS5 answers
    got = _top(m, "heron pond", 60)  # the same store twice: rebuilt from it
    assert got is not None and got == _fts(m, "heron pond", 60)
    row = m.core.store.light_rows([new])[new]["seq"]
    assert got[0][0] == row

    old = m.core.store.get_memory(ids[0])
    assert old is not None
    m.core.store.update_memory(replace(old, content="heron heron heron pond pond"))
    assert _top(m, "heron pond", 60) is None
    assert _top(m, "heron pond", 60) == _fts(m, "heron pond", 60)

    m.core.store.execute("DELETE FROM memories_fts WHERE rowid = ?", (row,))
    assert _top(m, "heron pond", 60) is None
    again = _top(m, "heron pond", 60)
    assert again == _fts(m, "heron pond", 60) and row not in {r for r, _ in again}


def test_a_store_written_between_searches_keeps_asking_fts5(engine: Mnemo) -> None:
    m = engine
    _fill(m, 60)
    for i in range(4):
        assert _top(m, "garden", 10) is None
        m.save(f"garden note {i}")
    assert _top(m, "garden", 10) is None
    assert _top(m, "garden", 10) == _fts(m, "garden", 10)


def test_no_answer_inside_a_transaction_or_for_a_word_of_several_tokens(engine: Mnemo) -> None:
    m = engine
    _fill(m, 60)
    _warm(m)
    with m.core.store.tx():
        assert _top(m, "garden", 10) is None  # FTS5 keeps a transaction's writes in memory
    assert _top(m, "garden_shed", 10) is None  # one word, two tokens: a phrase, for FTS5
    assert _top(m, "garden", 10) == _fts(m, "garden", 10)
    assert _top(m, "zzzunknown", 10) == []


def test_recall_keyword_side_is_the_same_with_and_without_the_cache(engine: Mnemo) -> None:
    m = engine
    _fill(m, 300)
    f = make_filters("all")
    queries = ["garden tomato", "alice budget review", "deploy release build", "migrating the database cache", "pond"]
    cold = []
    for text in queries:
        bm25.forget(m.core.store)
        cold.append(memory_bm25(m.core, parse_query(text, None, "recall"), f, 50))
    _warm(m)
    warm = [memory_bm25(m.core, parse_query(text, None, "recall"), f, 50) for text in queries]
    assert warm == cold and all(warm)


@pytest.mark.parametrize("blob,values", [(b"\x00\x13\x00\x00", [0, 19, 0, 0]), (b"\x81\x00\x05", [128, 5]),
                                         (b"\xce\x10\x00\x8a\xdd\x38", [10000, 0, 175800])])
def test_varints(blob: bytes, values: list[int]) -> None:
    assert bm25.varints(blob) == values


def test_note_passages_rank_as_fts5_ranks_them(engine: Mnemo) -> None:
    """The vault's passages (``chunks_fts``: title, heading, body and tags weigh differently)."""
    from mnemo.index.keywords import chunk_bm25
    from mnemo.store.fts import CHUNK_WEIGHTS

    m = engine
    rng = random.Random(5)
    with m.core.store.tx() as conn:
        for i in range(1, 301):
            conn.execute("INSERT INTO chunks_fts (rowid, id, title, heading, content, tags) VALUES (?,?,?,?,?,?)",
                         (i, f"c{i}", rng.choice(WORDS), rng.choice(WORDS + [""]),
                          " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 20))), rng.choice(["", "garden", "bike"])))
    weights = ", ".join(map(str, CHUNK_WEIGHTS))
    bm25.top(m.core.store, "chunks_fts", "garden", CHUNK_WEIGHTS, 5)
    for text in ["garden pond", "bike train deploy", "heron", "alice bob carol budget", "absent words"]:
        match = fts_query(text)
        want = [(r[0], -float(r[1])) for r in m.core.store.query(
            f"SELECT id, bm25(chunks_fts, {weights}) AS s FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY s LIMIT 40", [match])]
        assert bm25.top(m.core.store, "chunks_fts", text, CHUNK_WEIGHTS, 40) is not None
        assert chunk_bm25(m.core, text, 40) == want
