"""The foundation: settings, clock, store, write path, import, reindex (in-process)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mnemo.clock import Clock, day_of, iso, parse_time
from mnemo.config import load_settings
from mnemo.engine import Mnemo
from mnemo.errors import ConfigError, InvalidInput, LockedError, NotFound
from mnemo.models import Memory, MemoryType, Status
from mnemo.nlp.embedder import HashEmbedder
from mnemo.store.fts import fts_query

from .conftest import T0


def test_settings_precedence(tmp_path: Path) -> None:
    home = tmp_path / "h"
    home.mkdir()
    (home / "config.toml").write_text('[recall]\nk = 7\nintent = "explore"\n[vault]\npath = "/tmp/v1"\n')
    s = load_settings(home=home, env={})
    assert (s.recall.k, s.recall.intent, str(s.vault)) == (7, "explore", "/tmp/v1")
    s = load_settings(home=home, env={"MNEMO_RECALL_K": "9", "MNEMO_VAULT": "/tmp/v2"})
    assert (s.recall.k, s.recall.intent, str(s.vault)) == (9, "explore", "/tmp/v2")
    s = load_settings(home=home, vault="/tmp/v3", env={"MNEMO_RECALL_K": "9"}, overrides={"recall.k": 11})
    assert (s.recall.k, str(s.vault)) == (11, "/tmp/v3")
    assert s.to_dict()["vault"]["path"] == "/tmp/v3"


def test_settings_reject_bad_values(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="MNEMO_RECALL_K"):
        load_settings(home=tmp_path, env={"MNEMO_RECALL_K": "many"})
    (tmp_path / "config.toml").write_text("[recall\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings(home=tmp_path, env={})
    (tmp_path / "config.toml").write_text("[recall]\nnope = 1\n")
    with pytest.raises(ConfigError, match="unknown setting 'recall.nope'"):
        load_settings(home=tmp_path, env={})


def test_clock_parsing_and_modes() -> None:
    assert parse_time("2026-03-02") == parse_time("2026-03-02T00:00:00Z")
    assert parse_time("2026-03-02T10:00:00+02:00") == parse_time("2026-03-02T08:00:00Z")
    assert iso(parse_time("2026-03-02T08:00:00Z")) == "2026-03-02T08:00:00Z"
    assert day_of(parse_time("2026-03-02T23:59:59Z")) == "2026-03-02"
    with pytest.raises(InvalidInput):
        parse_time("next tuesday")
    fixed = Clock(T0)
    assert fixed.now() == fixed.now() == T0
    fixed.advance(60)
    assert fixed.now() == T0 + 60
    running = Clock(T0, running=True)
    assert T0 <= running.now() < T0 + 5


def test_fts_query_is_never_syntax() -> None:
    assert fts_query('which "database" AND NOT x*') == '"which" OR "database" OR "and" OR "not" OR "x"'
    assert fts_query("?!") is None


def test_save_get_list_forget_restore(engine: Mnemo) -> None:
    r = engine.save("We decided to use PostgreSQL for the database", tags=["db", "#arch"], meta={"ticket": 12})
    m = r.memory
    assert m.type == MemoryType.DECISION
    assert m.tags == ("db", "arch")
    assert m.tokens == 8
    assert m.created_at == T0
    got = engine.get(m.id[:8])
    assert got.content == m.content and got.meta == {"ticket": 12}
    assert [x.id for x in engine.list(type="decision")] == [m.id]
    archived = engine.forget(m.id)
    assert archived.status == Status.ARCHIVED
    assert engine.recall("PostgreSQL database", touch=False) == []
    assert engine.restore(m.id).status == Status.ACTIVE
    assert engine.recall("PostgreSQL database", touch=False)[0].id == m.id


def test_recall_returns_meta_unchanged_and_touches(engine: Mnemo, clock: Clock) -> None:
    meta = {"dia_id": "D1:3", "nested": {"a": [1, 2]}}
    r = engine.save("Melanie painted a sunrise over the lake", meta=meta)
    engine.save("The weekly report is due on Mondays")
    clock.advance(3600)
    hits = engine.recall("sunrise painting", k=1)
    assert hits[0].id == r.memory.id and hits[0].meta == meta and hits[0].tier == "stm"
    after = engine.get(r.memory.id)
    assert after.use_count == 1 and after.last_used == T0 + 3600
    assert engine.core.store.use_times(r.memory.id) == [T0 + 3600]


def test_bad_input_is_refused_and_nothing_written(engine: Mnemo) -> None:
    with pytest.raises(InvalidInput, match="empty"):
        engine.save("   ")
    with pytest.raises(InvalidInput, match="65536"):
        engine.save("x" * (64 * 1024 + 1))
    with pytest.raises(InvalidInput, match="item 2: unknown type"):
        engine.save_many([{"content": "fine"}, {"content": "bad", "type": "gossip"}])
    with pytest.raises(NotFound):
        engine.get("does-not-exist")
    assert engine.stats().memories == 0


def test_second_owner_is_refused(engine: Mnemo) -> None:
    with pytest.raises(LockedError, match="owned by"):
        Mnemo(engine.settings, embedder=HashEmbedder(64))


def test_import_jsonl_all_or_nothing(engine: Mnemo, tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text("\n".join(json.dumps({"content": f"memory {i} about topic {i % 7}", "tags": ["t"]}) for i in range(1000)))
    res = engine.import_jsonl(good)
    assert res.saved == 1000 and engine.stats().memories == 1000
    assert engine.core.index.count("memories") == 1000
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"content": "ok"}\n{"content": "broken"\n{"content": "\xff\xfe"}\n')
    with pytest.raises(InvalidInput) as err:
        engine.import_jsonl(bad)
    assert "line 2: malformed JSON" in err.value.message and "line 3: not valid UTF-8" in err.value.message
    assert engine.stats().memories == 1000


def test_reindex_after_losing_chroma_gives_identical_recall(home: Path, clock: Clock, real_embedder) -> None:
    settings = load_settings(home=home)
    services = ["billing", "search", "auth", "mail", "ledger"]
    queues = ["kafka", "redis", "rabbit", "sqs"]
    texts = [f"the {s} service talks to the {q} queue {'every hour' * (i % 3)}".strip()
             for i, (s, q) in enumerate((s, q) for s in services for q in queues)]
    with Mnemo(settings, clock=clock, embedder=real_embedder) as m:
        m.save_many([{"content": t} for t in texts])
        before = [(h.id, h.score) for h in m.recall("which queue does billing use", touch=False)]
    shutil.rmtree(home / "chroma")
    with Mnemo(settings, clock=clock, embedder=real_embedder) as m:
        out = m.reindex()
        assert out == {"fts": 20, "vectors": 20}
        after = [(h.id, h.score) for h in m.recall("which queue does billing use", touch=False)]
    assert after == before and len(before) == 10


def test_changing_the_model_reembeds(home: Path, clock: Clock) -> None:
    s64 = load_settings(home=home, overrides={"embedding.model": "hash-64"})
    with Mnemo(s64, clock=clock, embedder=HashEmbedder(64)) as m:
        m.save_many([{"content": f"fact number {i}"} for i in range(30)])
        assert len(next(iter(m.core.index.get_vectors("memories", [m.list(limit=1)[0].id]).values()))) == 64
    s32 = load_settings(home=home, overrides={"embedding.model": "hash-32"})
    with Mnemo(s32, clock=clock, embedder=HashEmbedder(32)) as m:
        hits = m.recall("fact number 7", touch=False)
        assert hits[0].content == "fact number 7"
        vec = next(iter(m.core.index.get_vectors("memories", [hits[0].id]).values()))
        assert len(vec) == 32 and m.core.index.count("memories") == 30
        assert m.core.store.kv_get("index.model_hash") == HashEmbedder(32).model_hash


def test_index_catches_up_after_a_crash_between_store_and_chroma(home: Path, clock: Clock) -> None:
    settings = load_settings(home=home, overrides={"embedding.model": "hash-64"})
    with Mnemo(settings, clock=clock, embedder=HashEmbedder(64)) as m:
        m.save_many([{"content": f"indexed {i}"} for i in range(5)])
        # What a kill between the SQLite commit and the Chroma write leaves behind: the dirty
        # mark set by the write unit, a row Chroma lacks, a vector the store lacks.
        m.core.store.kv_set("index.dirty", "1")
        ghost = Memory(id="ghost-1", content="only in the store", created_at=T0, updated_at=T0)
        m.core.store.insert_memories([ghost])
        m.core.index.upsert("memories", ["orphan-vector"], HashEmbedder(64).embed(["orphan"]), [{"status": "active"}])
    with Mnemo(settings, clock=clock, embedder=HashEmbedder(64)) as m:
        _ = m.core.index
        ids = set(m.core.index.all_ids("memories"))
        assert "ghost-1" in ids and "orphan-vector" not in ids and len(ids) == 6


def test_store_uses_wal_and_named_migrations(engine: Mnemo) -> None:
    assert engine.core.store.query("PRAGMA journal_mode")[0][0] == "wal"
    names = engine.core.store.migrations()
    assert names[0] == "0001_initial" and names == sorted(names)
