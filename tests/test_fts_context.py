"""Contextual keyword indexing: a memory said in a conversation is indexed with the turn before
it (``meta.context``) in an FTS5 column of its own, weighed below the memory's own words; the
context is stored with the memory so ``mnemo reindex`` rebuilds it, an older store gains the
column by migration and keeps its data, and recall still shows the content alone."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from mnemo.config import load_settings
from mnemo.engine import Mnemo
from mnemo.nlp.embedder import HashEmbedder
from mnemo.store.fts import MEMORY_WEIGHTS, fts_query

from .conftest import T0


def _bm25(engine: Mnemo, word: str) -> dict[str, float]:
    match = fts_query(word)
    assert match is not None
    return dict(engine.core.store.memory_bm25(match, 50))


def _fts_context(engine: Mnemo, memory_id: str) -> str:
    rows = engine.core.store.query("SELECT context FROM memories_fts WHERE id = ?", (memory_id,))
    assert len(rows) == 1
    return str(rows[0][0])


def test_ingest_indexes_the_turn_before_and_recall_finds_the_answer_by_the_questions_words(real_engine) -> None:
    conversation = [
        {"speaker": "Alice", "text": "What got you into pottery, Bob?"},
        {"speaker": "Bob", "text": "I started after my dad passed away in 2019, it calmed me down a lot."},
        {"speaker": "Alice", "text": "I moved to Lisbon last spring for a new job at a bakery."},
    ]
    out = real_engine.ingest(json.dumps(conversation), format="json")
    kept = {m["turn"]: m for m in out["memories"] if m["created"]}
    answer = kept[1]
    assert "pottery" not in answer["content"].lower()
    stored = real_engine.get(answer["id"])
    assert stored.meta["context"] == "What got you into pottery, Bob?"
    assert "pottery" in _fts_context(real_engine, answer["id"]).lower()

    hits = real_engine.recall("pottery", k=3, touch=False)
    assert hits and hits[0].id == answer["id"]
    # The context ranks; only the content is shown.
    assert "pottery" not in hits[0].content.lower()
    assert hits[0].content == stored.content


def test_context_weighs_below_content_with_equal_lengths(engine) -> None:
    assert 0 < MEMORY_WEIGHTS[3] < MEMORY_WEIGHTS[1]
    own, lent, neither = engine.save_many([
        {"content": "alpha zephyr", "meta": {"context": "beta gamma"}},
        {"content": "alpha beta", "meta": {"context": "zephyr gamma"}},
        {"content": "alpha gamma", "meta": {"context": "beta delta"}},
    ])
    scores = _bm25(engine, "zephyr")
    assert set(scores) == {own.id, lent.id}
    assert scores[own.id] > scores[lent.id] > 0
    assert neither.id not in scores


def test_reindex_rebuilds_the_context_column_and_an_update_rewrites_it(engine) -> None:
    (r,) = engine.save_many([{"content": "Bob: it calmed me down a lot", "meta": {"context": "what got you into pottery"}}])
    engine.core.store.execute("DELETE FROM memories_fts")
    assert _bm25(engine, "pottery") == {}
    engine.reindex()
    assert set(_bm25(engine, "pottery")) == {r.id}

    m = engine.get(r.id)
    engine.core.store.update_memory(m.__class__(**{**m.__dict__, "meta": {**m.meta, "context": "why did you take up kayaking"}}))
    assert _fts_context(engine, r.id) == "why did you take up kayaking"
    assert _bm25(engine, "pottery") == {}
    assert set(_bm25(engine, "kayaking")) == {r.id}


def _as_before_migration(db: Path) -> None:
    """The store as it was at migration 0008: memories_fts without the context column."""
    conn = sqlite3.connect(db)
    try:
        conn.executescript(
            """
            BEGIN;
            DROP TABLE memories_fts;
            CREATE VIRTUAL TABLE memories_fts USING fts5(
                id UNINDEXED, content, tags, tokenize = 'porter unicode61 remove_diacritics 2'
            );
            INSERT INTO memories_fts (rowid, id, content, tags) SELECT rowid, id, content,
                (SELECT coalesce(group_concat(value, ' '), '') FROM json_each(memories.tags)) FROM memories;
            DELETE FROM schema_migrations WHERE name = '0009_fts_context';
            COMMIT;
            """
        )
        cols = [r[1] for r in conn.execute("PRAGMA table_info(memories_fts)")]
        assert cols == ["id", "content", "tags"]
    finally:
        conn.close()


def test_an_older_store_gains_the_context_column_and_keeps_its_data(home: Path, clock) -> None:
    settings = load_settings(home=home, overrides={"embedding.model": "hash-64"})
    with Mnemo(settings, clock=clock, embedder=HashEmbedder(64)) as m:
        saved = m.save_many([
            {"content": "Bob: it calmed me down a lot", "tags": ["hobby"], "meta": {"context": "what got you into pottery"}},
            {"content": "Alice moved to Lisbon for a bakery job", "created_at": T0 - 86400},
        ])
        db = Path(m.core.store.path)
        before = {r.id: (m.get(r.id).content, m.get(r.id).tags, m.get(r.id).meta, m.get(r.id).created_at) for r in saved}
    _as_before_migration(db)

    with Mnemo(settings, clock=clock, embedder=HashEmbedder(64)) as m:
        assert "0009_fts_context" in m.core.store.migrations()
        cols = [r[1] for r in m.core.store.query("PRAGMA table_info(memories_fts)")]
        assert cols == ["id", "content", "tags", "context"]
        after = {i: (m.get(i).content, m.get(i).tags, m.get(i).meta, m.get(i).created_at) for i in before}
        assert after == before
        assert m.core.store.query("SELECT count(*) FROM memories_fts")[0][0] == 2
        assert set(_bm25(m, "pottery")) == {saved[0].id}
        assert set(_bm25(m, "hobby")) == {saved[0].id}
        assert set(_bm25(m, "lisbon")) == {saved[1].id}
        # The doctor's keyword-index check agrees with the migrated table.
        assert m.core.store.fts_stale_ids() == []


def test_the_doctor_sees_a_keyword_row_whose_context_went_stale(home: Path, clock) -> None:
    settings = load_settings(home=home, overrides={"embedding.model": "hash-64"})
    with Mnemo(settings, clock=clock, embedder=HashEmbedder(64)) as m:
        saved = m.save_many([{"content": "Bob: it calmed me down a lot", "meta": {"context": "what got you into pottery"}}])
        mid = saved[0].id
        assert m.core.store.fts_stale_ids() == []
        rowid = m.core.store.query("SELECT rowid FROM memories WHERE id = ?", (mid,))[0][0]
    # Another writer (or a crash between the two writes) left the keyword row's context behind.
    conn = sqlite3.connect(m.core.store.path)
    try:
        conn.execute("DELETE FROM memories_fts WHERE rowid = ?", (rowid,))
        conn.execute("INSERT INTO memories_fts (rowid, id, content, tags, context) VALUES (?, ?, ?, '', 'an old question')",
                     (rowid, mid, "Bob: it calmed me down a lot"))
        conn.commit()
    finally:
        conn.close()
    with Mnemo(settings, clock=clock, embedder=HashEmbedder(64)) as m:
        assert m.core.store.fts_stale_ids() == [mid]
        m.core.store.fts_rebuild()
        assert m.core.store.fts_stale_ids() == []
        assert set(_bm25(m, "pottery")) == {mid}
