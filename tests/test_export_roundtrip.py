"""Taking the memory out: ``mnemo export`` and the way back in.

A store with every kind of state (tags, meta, pins, typed links made by hand and by the rules,
uses from touches and recalls, an archived, a cold and a promoted memory, enrichment still
pending, activity days, the chat-export journal) is exported to JSONL and imported into an
empty home; the two stores are then compared table by table, and the vector index too."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from mnemo.clock import Clock
from mnemo.config import load_settings
from mnemo.engine import Mnemo
from mnemo.errors import InvalidInput
from mnemo.export.write import export
from mnemo.nlp.embedder import HashEmbedder

from .conftest import T0, invoke_main

DAY = 86400.0


def _engine(home: Path, vault: Path | None, clock: Clock) -> Mnemo:
    settings = load_settings(home=home, vault=vault, overrides={"embedding.model": "hash-64"})
    return Mnemo(settings, clock=clock, embedder=HashEmbedder(64))


def _rich_store(m: Mnemo, clock: Clock) -> dict[str, str]:
    from mnemo.lifecycle.cold import freeze

    ids: dict[str, str] = {}
    ids["db"] = m.save("We decided to use PostgreSQL for the billing service because it has transactions.",
                       tags=["db", "billing"], meta={"ticket": "OPS-12"}, type="decision").memory.id
    ids["pool"] = m.save("The billing service exhausted its PostgreSQL connection pool on Friday.", tags=["db"]).memory.id
    ids["pin"] = m.save("Maya prefers dark mode in every editor.", pinned=True, wing="people").memory.id
    ids["old"] = m.save("The staging cluster ran Kubernetes 1.24 until March.", room="infra").memory.id
    ids["cold"] = m.save("Debug: the nightly export failed with a timeout on the reports table.", type="debug_log").memory.id
    bulk = m.save_many([{"content": "The invoices bucket lives in Frankfurt.", "session_id": "s-9"},
                        {"content": "Backups of the invoices bucket run at 02:00 UTC.", "id": "custom-id-1"}])
    ids["bulk"], ids["custom"] = (r.memory.id for r in bulk)  # left pending enrichment
    m.link(ids["pool"], ids["db"], "because")
    m.link(ids["old"], ids["pin"], "conflicts", origin="person", weight=0.4)
    for day in range(1, 4):
        clock.advance(DAY)
        m.touch(ids["db"], context_tags=["billing"])
        m.recall("PostgreSQL billing", k=3, session_id=f"sess-{day}")
    m.forget(ids["old"])
    freeze(m.core, [m.get(ids["cold"])])
    m.promote(ids["db"])
    m.core.store.kv_set("history.chatgpt.6a1f0c2e", json.dumps({"updated_at": 1.0, "at": 2.0, "kept": 3}))
    return ids


TABLES = {
    "memories": "SELECT * FROM memories ORDER BY id",
    "links": "SELECT * FROM links ORDER BY src, dst, rel, dir",
    "uses": "SELECT memory_id, at, kind, context FROM uses ORDER BY memory_id, at, kind, context",
    "activity_days": "SELECT * FROM activity_days ORDER BY day",
    "memory_entities": "SELECT * FROM memory_entities ORDER BY memory_id, key",
    "enrich_queue": "SELECT memory_id FROM enrich_queue ORDER BY memory_id",
    "journal": "SELECT key, value FROM kv WHERE key LIKE 'history.%' ORDER BY key",
    "fts": "SELECT id, content, tags FROM memories_fts ORDER BY id",
}


def _tables(home: Path) -> dict[str, list[tuple]]:
    db = sqlite3.connect(home / "mnemo.db")
    try:
        return {name: [tuple(r) for r in db.execute(sql)] for name, sql in TABLES.items()}
    finally:
        db.close()


def test_jsonl_export_then_import_gives_back_an_identical_store(tmp_path: Path, vault: Path) -> None:
    clock = Clock(T0)
    a_home, b_home = tmp_path / "a", tmp_path / "b"
    with _engine(a_home, vault, clock) as a:
        ids = _rich_store(a, clock)
        out = tmp_path / "memories.jsonl"
        result = export(a, "jsonl", out=out)
        assert result["memories"] == 7 and result["links"] >= 2 and result["uses"] >= 3
        hot = [i for i in ids.values() if i != ids["cold"]]
        a_vectors = a.core.index.get_vectors("memories", hot)
        a_recall = [h.id for h in a.recall("PostgreSQL billing", k=5, touch=False, tier="stm")]
        a_stats = a.stats().to_dict()
    statuses = {r[0]: r for r in _tables(a_home)["memories"]}
    assert {statuses[ids["old"]][7], statuses[ids["cold"]][7], statuses[ids["db"]][7]} == {"archived", "cold", "promoted"}

    with _engine(b_home, None, Clock(clock.now())) as b:
        r = b.import_jsonl(out)
        assert r.saved == 7 and set(r.ids) == set(ids.values())
        b_vectors = b.core.index.get_vectors("memories", hot)
        assert b.core.index.get_vectors("memories", [ids["cold"]]) == {}  # cold stays out of the hot index
        assert [h.id for h in b.recall("PostgreSQL billing", k=5, touch=False, tier="stm")] == a_recall
        b_stats = b.stats().to_dict()

    a_tables, b_tables = _tables(a_home), _tables(b_home)
    for name in TABLES:
        assert b_tables[name] == a_tables[name], name
    assert set(b_vectors) == set(a_vectors) == set(hot)
    for i in hot:
        np.testing.assert_allclose(b_vectors[i], a_vectors[i], atol=1e-6)
    same = ("memories", "by_status", "by_type", "by_layer", "links", "uses", "activity_days", "embed_model")
    assert {k: b_stats[k] for k in same} == {k: a_stats[k] for k in same}


def test_import_refuses_bad_or_clashing_exports_whole(tmp_path: Path, engine) -> None:  # noqa: ANN001
    engine.save("Ana moved the standup to 9:30.")
    out = tmp_path / "x.jsonl"
    export(engine, "jsonl", out=out)
    lines = out.read_text().splitlines()
    # Into the same store: the same ids with the same content count as restored already.
    assert engine.import_jsonl(out).saved == 0
    rec = json.loads(lines[1])
    clash = dict(rec, content="Something else entirely.")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([lines[0], json.dumps(clash)]) + "\n")
    with pytest.raises(InvalidInput, match="a different memory with id"):
        engine.import_jsonl(bad)
    for broken, message in ((dict(rec, status="sleeping"), "sleeping"), (dict(rec, use_count=-1), "use_count"),
                            (dict(rec, links=[["x", "likes", "auto", 1.0, 0.0]]), "links is malformed"),
                            (dict(rec, colour="red"), "unknown field")):
        bad.write_text("\n".join([lines[0], json.dumps(dict(broken, id="fresh-1"))]) + "\n")
        with pytest.raises(InvalidInput, match=message) as info:
            engine.import_jsonl(bad)
        assert "line 2" in info.value.message and "Nothing was imported" in info.value.message
    assert engine.stats().memories == 1


def test_markdown_export_layout_and_the_vault_refused(tmp_path: Path, vault: Path) -> None:
    clock = Clock(T0)
    with _engine(tmp_path / "home", vault, clock) as m:
        ids = _rich_store(m, clock)
        with pytest.raises(InvalidInput, match="inside the vault"):
            export(m, "markdown", out=vault / "Export", vault=vault)
        assert not (vault / "Export").exists()
        out = tmp_path / "leaving"
        result = export(m, "markdown", out=out, vault=vault)
        assert result["memories"] == 7
        (tmp_path / "busy").mkdir()
        (tmp_path / "busy" / "keep.md").write_text("mine")
        with pytest.raises(InvalidInput, match="not an empty folder"):
            export(m, "markdown", out=tmp_path / "busy", vault=vault)
    notes = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.md"))
    assert "index.md" in notes and len(notes) == 8
    assert {n.split("/")[0] for n in notes if "/" in n} == {"decision", "fact", "preference", "debug_log"}
    db_note = next(out.glob(f"decision/* ({ids['db'][:8]}).md")).read_text()
    import frontmatter

    post = frontmatter.loads(db_note)
    assert post["id"] == ids["db"] and post["status"] == "promoted" and post["uses"] >= 3
    assert post["tags"] == ["db", "billing"] and post["meta"] == {"ticket": "OPS-12"}
    assert post.content.startswith("We decided to use PostgreSQL")
    assert "## Uses" in post.content
    pool_note = next(out.glob(f"*/* ({ids['pool'][:8]}).md")).read_text()
    assert f"- because: [[We decided to use PostgreSQL for the billing service ({ids['db'][:8]})]]" in pool_note
    index = (out / "index.md").read_text()
    assert index.count("| [[") == 7


def test_cli_export_and_import(capsys, tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setenv("MNEMO_EMBEDDING_MODEL", "hash-64")
    monkeypatch.setenv("MNEMO_HOME", str(tmp_path / "one"))
    assert invoke_main(capsys, "save", "Ana moved the standup to 9:30.", "--pin")[0] == 0
    code, out, err = invoke_main(capsys, "export")
    assert code == 0 and err == ""
    header, rec, *tail = (json.loads(x) for x in out.splitlines())
    assert header["mnemo"] == "export" and header["memories"] == 1 and rec["pinned"] is True
    assert [t["record"] for t in tail] == ["day"]
    code, out, _ = invoke_main(capsys, "export", "--out", str(tmp_path / "m.jsonl"), "--json")
    assert code == 0 and json.loads(out)["memories"] == 1
    code, _, err = invoke_main(capsys, "export", "--format", "markdown")
    assert code == 2 and "--out" in err
    monkeypatch.setenv("MNEMO_HOME", str(tmp_path / "two"))
    code, out, _ = invoke_main(capsys, "import", str(tmp_path / "m.jsonl"), "--json")
    assert code == 0 and json.loads(out)["saved"] == 1
    code, out, _ = invoke_main(capsys, "show", rec["id"], "--json")
    assert code == 0 and json.loads(out)["pinned"] is True
