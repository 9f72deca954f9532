"""``mnemo doctor``: each kind of disagreement is made for real (files edited, rows and vectors
removed, modes loosened), found, and repaired from the sources of truth."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from mnemo.clock import Clock
from mnemo.config import load_settings
from mnemo.engine import Mnemo
from mnemo.models import Link, Status
from mnemo.nlp.embedder import HashEmbedder

from .conftest import T0, invoke_main


@pytest.fixture
def veng(home: Path, vault: Path):
    settings = load_settings(home=home, vault=vault, overrides={"embedding.model": "hash-64"})
    with Mnemo(settings, clock=Clock(T0), embedder=HashEmbedder(64)) as m:
        yield m


def problems(report: dict, check: str) -> dict[str, int]:
    return report["checks"][check]["problems"]


def test_notes_and_chunks_agree_with_the_vault(veng: Mnemo, vault: Path) -> None:
    for name, text in {"Alpha.md": "# Alpha\nthe alpha project ships in May\n",
                       "Beta.md": "# Beta\nbeta notes about billing\n",
                       "Gamma.md": "# Gamma\ngamma is the on-call rota\n"}.items():
        (vault / name).write_text(text)
    veng.index_vault()
    assert veng.doctor()["ok"]
    (vault / "Delta.md").write_text("# Delta\ndelta is a brand new note about invoices\n")  # unindexed
    (vault / "Beta.md").write_text("# Beta\nbeta notes about refunds now\n")  # stale
    os.utime(vault / "Beta.md", (T0 + 100, T0 + 100))
    (vault / "Gamma.md").unlink()  # gone
    alpha_chunk = veng.core.store.query("SELECT c.id FROM chunks c JOIN notes n ON n.uid = c.note_uid WHERE n.path = 'Alpha.md'")[0][0]
    veng.core.index.delete("chunks", [alpha_chunk])  # missing vector
    veng.core.index.upsert("chunks", ["zz:0"], HashEmbedder(64).embed(["ghost"]), [{"path": "Ghost.md"}])  # orphan
    report = veng.doctor()
    assert not report["ok"]
    assert problems(report, "notes") == {"unindexed": 1, "stale": 1, "gone": 1, "missing_vector": 1, "orphan_vector": 1}
    assert report["checks"]["notes"]["sample"]["unindexed"] == ["Delta.md"]
    fixed = veng.doctor(repair=True)
    assert fixed["ok"], fixed
    assert fixed["repaired"]["notes"]["orphan_vectors_removed"] == 1
    rows = veng.core.store.query("SELECT n.path, c.id, c.content FROM chunks c JOIN notes n ON n.uid = c.note_uid ORDER BY n.path")
    assert {(r[0], r[2].splitlines()[-1]) for r in rows} == {
        ("Alpha.md", "the alpha project ships in May"), ("Beta.md", "beta notes about refunds now"),
        ("Delta.md", "delta is a brand new note about invoices")}
    assert set(veng.core.index.all_ids("chunks")) == {r[1] for r in rows}


def test_chunks_of_another_model_are_reembedded(veng: Mnemo, vault: Path) -> None:
    (vault / "A.md").write_text("# A\nsomething to embed\n")
    veng.index_vault()
    veng.core.store.kv_set("vault.model_hash", "an-older-model")
    assert problems(veng.doctor(), "notes") == {"model": 1}
    assert veng.doctor(repair=True)["ok"]


def test_links_are_stored_both_ways(engine: Mnemo) -> None:
    a, b, c = (r.id for r in engine.save_many([{"content": t} for t in ("cause", "effect", "other")]))
    engine.core.store.add_links([Link(a, b, "causes", "person", 1.0, T0), Link(b, c, "supersedes", "person", 1.0, T0)])
    assert engine.doctor()["checks"]["links"]["ok"]
    engine.core.store.execute("DELETE FROM links WHERE dir = 'in' AND src = ?", (b,))  # a → b loses its twin
    engine.core.store.execute("DELETE FROM links WHERE dir = 'out' AND src = ?", (b,))  # b → c keeps only its twin
    report = engine.doctor()
    assert problems(report, "links") == {"out_without_in": 1, "in_without_out": 1}
    assert report["checks"]["links"]["sample"]["out_without_in"] == [f"{a} -causes-> {b}"]
    fixed = engine.doctor(repair=True)
    assert fixed["ok"] and fixed["repaired"]["links"] == {"twins_added": 2}
    assert [(x.src, x.dst) for x in engine.core.store.links_of(b, direction="in")] == [(a, b)]
    assert [(x.src, x.dst) for x in engine.core.store.links_of(b, direction="out")] == [(b, c)]


def test_no_note_is_claimed_twice(veng: Mnemo, vault: Path) -> None:
    from dataclasses import replace

    a, b = (r.id for r in veng.save_many([{"content": "We chose PostgreSQL"}, {"content": "We chose Redis"}]))
    result = veng.promote(a)[0]
    path = veng.get(a).note_path
    assert path and veng.get(a).status == Status.PROMOTED, result
    veng.core.store.update_memory(replace(veng.get(b), note_path=path, status=Status.PROMOTED))  # b claims a's note
    shutil.copy(vault / path, vault / "Copy of the note.md")  # a person copies the note: two files, one mnemo_id
    veng.index_vault()
    copy_bytes = (vault / "Copy of the note.md").read_bytes()
    report = veng.doctor()
    assert problems(report, "claims") == {"note_shared_by_memories": 1, "mnemo_id_in_several_notes": 1}
    assert "remove mnemo_id" in report["checks"]["claims"]["hints"]["mnemo_id_in_several_notes"]
    fixed = veng.doctor(repair=True)
    assert fixed["repaired"]["claims"] == {"claims_released": 1}
    assert problems(fixed, "claims") == {"mnemo_id_in_several_notes": 1}  # the person's call
    assert (veng.get(a).note_path, veng.get(b).note_path, veng.get(b).status) == (path, None, Status.ACTIVE)
    assert (vault / "Copy of the note.md").read_bytes() == copy_bytes  # never rewritten to settle it


def test_vectors_made_by_another_model_are_found(engine: Mnemo) -> None:
    ids = [r.id for r in engine.save_many([{"content": f"fact {i}"} for i in range(3)])]
    assert {r[0] for r in engine.core.store.query("SELECT DISTINCT embed_model FROM memories")} == {engine.core.embedder.model_hash}
    engine.core.store.execute("UPDATE memories SET embed_model = 'old-model' WHERE id = ?", (ids[1],))
    assert problems(engine.doctor(), "vectors") == {"stale_model": 1}
    fixed = engine.doctor(repair=True)
    assert fixed["ok"] and fixed["repaired"]["vectors"] == {"reembedded": 1}
    engine.core.store.kv_set("index.model_hash", "another-model")  # the whole index from another model
    assert problems(engine.doctor(), "vectors") == {"model": 1}
    assert engine.doctor(repair=True)["ok"]


def test_loose_modes_in_the_home_are_tightened(engine: Mnemo, home: Path) -> None:
    engine.save("something private")
    (home / "my-notes.txt").write_text("not mnemo's")  # a person's own file in the home: left alone
    os.chmod(home / "my-notes.txt", 0o644)
    os.chmod(home / "mnemo.db", 0o644)
    os.chmod(home / "chroma", 0o755)
    report = engine.doctor()
    assert problems(report, "permissions") == {"open_to_others": 2}
    assert engine.doctor(repair=True)["ok"]
    assert stat.S_IMODE((home / "mnemo.db").stat().st_mode) == 0o600
    assert stat.S_IMODE((home / "chroma").stat().st_mode) == 0o700
    assert stat.S_IMODE((home / "my-notes.txt").stat().st_mode) == 0o644


def test_doctor_cli(home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNEMO_EMBEDDING_MODEL", "hash-64")
    settings = load_settings(home=home, overrides={"embedding.model": "hash-64"})
    with Mnemo(settings, clock=Clock(T0), embedder=HashEmbedder(64)) as m:
        a, b = (r.id for r in m.save_many([{"content": "x"}, {"content": "y"}]))
        m.core.store.add_links([Link(a, b, "causes", "person", 1.0, T0)])
        m.core.store.execute("DELETE FROM links WHERE dir = 'in'")

    def run(*args: str) -> tuple[int, str, str]:
        return invoke_main(capsys, *args)

    code, out, _ = run("doctor", "--json")
    assert code == 1 and json.loads(out)["checks"]["links"]["problems"] == {"out_without_in": 1}
    code, out, _ = run("doctor")
    assert code == 1 and "links      PROBLEMS: out_without_in 1" in out and "mnemo doctor --repair" in out
    code, out, _ = run("doctor", "--repair", "--json")
    assert code == 0 and json.loads(out)["repaired"]["links"] == {"twins_added": 1}
    assert run("doctor")[0] == 0
