"""The vault tier end to end, in-process, on a real temporary vault: real SQLite, real Chroma,
real files; the hash embedder (counting its calls) stands in for the model where only logic
matters."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np
import pytest
import yaml

from mnemo.clock import DAY, Clock
from mnemo.config import load_settings
from mnemo.engine import Mnemo
from mnemo.errors import ConflictError, InvalidInput, NotFound, UnsafePath, VaultError
from mnemo.models import Status
from mnemo.nlp.embedder import HashEmbedder
from mnemo.setup import init_home
from mnemo.vault import writer
from mnemo.vault.search import chunk_hits, note_candidates

DB = "We decided to use PostgreSQL for the database because the team knows it well"
DB_PATH = "Memories/We decided to use PostgreSQL for the database.md"


class CountingEmbedder(HashEmbedder):
    """The hash embedder, counting how many texts it embedded."""

    def __init__(self) -> None:
        super().__init__(64)
        self.count = 0

    def embed(self, texts):  # noqa: ANN001, ANN201
        self.count += len(texts)
        return super().embed(texts)


@pytest.fixture
def vengine(home: Path, vault: Path, clock: Clock):
    settings = load_settings(home=home, vault=vault, overrides={"embedding.model": "hash-64"})
    init_home(settings)
    with Mnemo(settings, clock=clock, embedder=CountingEmbedder()) as m:
        yield m


def _fm(path: Path) -> dict:
    """The frontmatter as any YAML reader (Obsidian's included) sees it."""
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n") and text.count("\n---\n") >= 1
    return yaml.safe_load(text.split("---\n")[1])


def _files(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in root.rglob("*") if p.is_file()}


# -- Must show 1: promote, promote again, demote ------------------------------------------------
def test_promote_update_demote_on_a_real_vault(vengine: Mnemo, vault: Path, clock: Clock) -> None:
    m = vengine
    db = m.save(DB, tags=["db", "#architecture"]).memory
    m.save("PostgreSQL backups run every night at two", tags=["ops"])
    [p] = m.promote(db.id)
    assert (p.memory_id, p.path, p.created, p.dry_run, p.status) == (db.id, DB_PATH, True, False, "created")
    note = vault / DB_PATH
    text = note.read_text()
    # Obsidian reads these as properties: tags a YAML list without '#', links quoted.
    assert "tags:\n  - db\n  - architecture\n" in text
    assert '  - "[[PostgreSQL]]"\n' in text
    fm = _fm(note)
    assert fm["mnemo_id"] == db.id and fm["type"] == "decision" and fm["layer"] == db.layer.value
    assert fm["tags"] == ["db", "architecture"] and fm["source"] == "human"
    assert fm["aliases"] == [DB]
    assert str(fm["created"]).startswith("2026-03-02 09:00:00") and "updated" in fm  # ISO times
    assert fm["entities"] == ["PostgreSQL"] and fm["related"] == ["[[PostgreSQL]]"]
    assert text.split("---\n", 2)[2].startswith(DB + "\n\n## Related\n")
    assert p.entity_notes == ("Entities/PostgreSQL.md",)
    assert _fm(vault / "Entities/PostgreSQL.md")["mnemo_id"] == "entity:postgresql"
    got = m.get(db.id)
    assert got.status == Status.PROMOTED and got.note_path == DB_PATH

    # Promote again: same file, nothing to change, not even the bytes.
    before = note.read_bytes()
    [p2] = m.promote(db.id)
    assert (p2.path, p2.created, p2.status) == (DB_PATH, False, "unchanged") and note.read_bytes() == before

    # The memory changed: promoting again updates the same note (no "Note 1.md").
    clock.advance(DAY)
    from dataclasses import replace

    m.core.update(replace(m.get(db.id), tags=("db", "postgres")))
    [p3] = m.promote(db.id)
    assert (p3.path, p3.created, p3.status) == (DB_PATH, False, "updated")
    fm3 = _fm(note)
    assert fm3["tags"] == ["db", "postgres"] and fm3["created"] == fm["created"] and fm3["updated"] != fm["updated"]
    assert sorted(p.name for p in (vault / "Memories").iterdir()) == [note.name]

    # Demote: the note moves to Archive/, marked, never deleted; the memory is active again.
    back = m.demote(db.id)
    assert back.status == Status.ACTIVE and back.note_path is None
    archived = vault / "Archive" / note.name
    assert not note.exists() and archived.exists()
    afm = _fm(archived)
    assert afm["mnemo_status"] == "demoted" and afm["mnemo_id"] == db.id
    assert m.core.store.query("SELECT count(*) FROM notes WHERE path = ?", (f"Archive/{note.name}",))[0][0] == 1
    with pytest.raises(InvalidInput, match="not promoted"):
        m.demote(db.id)

    # Promoting once more brings the same note back out of the archive.
    [p4] = m.promote(db.id)
    assert p4.path == DB_PATH and not archived.exists() and "mnemo_status" not in _fm(note)
    assert [x.name for x in (vault / "Archive").iterdir()] == []


def test_dry_run_and_auto(vengine: Mnemo, vault: Path, clock: Clock) -> None:
    m = vengine
    used = m.save("Our API authenticates with short-lived JWT tokens", tags=["api"]).memory
    idle = m.save("Lunch is on Fridays").memory
    for _ in range(5):
        clock.advance(DAY)
        m.touch(used.id)
    plan = m.promote(auto=True, dry_run=True)
    assert [(p.memory_id, p.dry_run, p.status) for p in plan] == [(used.id, True, "planned")]
    assert list((vault / "Memories").iterdir()) == [] and m.get(used.id).status == Status.ACTIVE
    done = m.promote(auto=True)
    assert [(p.memory_id, p.created) for p in done] == [(used.id, True)]
    assert (vault / done[0].path).is_file() and m.get(idle.id).status == Status.ACTIVE
    assert m.promote(auto=True) == []  # promoted memories are no longer candidates
    with pytest.raises(InvalidInput):
        m.promote()


# -- Must show 2: nothing mnemo does not own changes ----------------------------------------------
PLAN = """---
tags: ["json", 'style']   # the person's own formatting
custom: {a: 1}
---
Plan. Links: [[Old title]], [[Old title|the decision]], [[Old title#Why]], [[Old title#^b1]], [[Older title]].
```
[[Old title]] in code stays
```
"""
DAILY = "Morning. ![[Old title]] and [[Memories/Old title]] and `[[Old title]]`.\r\nCRLF line ^blk\r\n"


def test_notes_mnemo_does_not_own_are_untouched(vengine: Mnemo, vault: Path, clock: Clock) -> None:
    m = vengine
    (vault / "Projects").mkdir()
    (vault / "Projects/Plan.md").write_text(PLAN)
    (vault / "Daily").mkdir()
    (vault / "Daily/2026-03-01.md").write_bytes(DAILY.encode())
    (vault / "Broken.md").write_text("---\ntags: [unclosed\n---\nMentions [[Old title]] too.\n")
    (vault / "Chapter 2.md").write_text("# Chapter\nPostgreSQL everywhere.\n")
    (vault / "Projects/Plan 2.md").write_text("a conflict copy [[Old title]]\n")
    (vault / ".obsidian/workspace.json").write_text('{"x": 1}')
    (vault / "image.png").write_bytes(bytes(range(256)))
    (vault / "mnemo README.md").write_text("my own readme, not the template\n")
    before = _files(vault)

    init_home(m.settings)  # on an existing vault: adds what is missing, overwrites nothing
    m.index_vault()
    mem = m.save(DB, meta={"title": "Old title"}).memory
    other = m.save("PostgreSQL replicas are read-only").memory
    m.promote(mem.id)
    m.promote(other.id)
    m.dashboard()
    m.index_vault()
    result = m.rename_note("Memories/Old title.md", "New title")
    m.index_vault()
    after = _files(vault)

    expected_plan = PLAN.replace("Links: [[Old title]], [[Old title|", "Links: [[New title]], [[New title|").replace(
        "[[Old title#Why]], [[Old title#^b1]]", "[[New title#Why]], [[New title#^b1]]")
    expected_daily = DAILY.replace("![[Old title]] and [[Memories/Old title]]", "![[New title]] and [[Memories/New title]]")
    expected_broken = "---\ntags: [unclosed\n---\nMentions [[New title]] too.\n"
    rewritten = {"Projects/Plan.md": expected_plan, "Daily/2026-03-01.md": expected_daily, "Broken.md": expected_broken}
    for rel, digest in before.items():
        if rel in rewritten:
            assert (vault / rel).read_bytes() == rewritten[rel].encode(), rel  # only the link text changed
        else:
            assert after[rel] == digest, f"{rel} changed"
    person_changed = sorted(r for r in result["notes_changed"] if r in before)
    assert person_changed == ["Broken.md", "Daily/2026-03-01.md", "Projects/Plan.md"]
    # The other changed notes are mnemo's own (the other memory's Related section, the dashboard).
    assert all("mnemo_id" in _fm(vault / r) for r in result["notes_changed"] if r not in before)
    assert m.get(mem.id).note_path == "Memories/New title.md"
    assert (vault / "Memories/New title.md").exists() and not (vault / "Memories/Old title.md").exists()
    # Everything mnemo created is its own (mnemo_id) or came from the template.
    created = set(after) - set(before)
    for rel in created:
        if rel.endswith(".md") and not rel.startswith("Templates/"):
            assert "mnemo_id" in _fm(vault / rel), rel
    assert not any(r.startswith(".obsidian/") for r in created)


# -- Must show 3: the race at promotion level ------------------------------------------------------
def test_edit_during_promotion_update_is_kept(vengine: Mnemo, vault: Path, clock: Clock,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    m = vengine
    db = m.save(DB, tags=["db"]).memory
    m.promote(db.id)
    note = vault / DB_PATH
    from dataclasses import replace

    clock.advance(DAY)
    m.core.update(replace(m.get(db.id), tags=("db", "sql")))
    real = writer._fsync_file
    raced: list[int] = []

    def person_saves(fd: int) -> None:
        real(fd)
        if not raced:  # the person saves the note after mnemo read it, before the replace
            raced.append(1)
            text = note.read_text()
            assert "---\n" + DB + "\n" in text
            note.write_text(text.replace("---\n" + DB + "\n", "---\n" + DB + "\nAdded by the person while mnemo wrote.\n"))

    monkeypatch.setattr(writer, "_fsync_file", person_saves)
    [p] = m.promote(db.id)
    assert raced and p.status == "updated"
    text = note.read_text()
    assert "Added by the person while mnemo wrote." in text  # not clobbered
    assert _fm(note)["tags"] == ["db", "sql"]  # and mnemo's update was applied on top of it
    m.index_note(DB_PATH)
    assert m.get(db.id).content == DB + "\nAdded by the person while mnemo wrote."


# -- Must show 4: escapes, unsafe names, conflict copies ------------------------------------------
@pytest.mark.parametrize("title", ["../../escape", "/etc/passwd", "CON", "a#b|c^d:e[f]g\\h", "..", ".obsidian/app"])
def test_escaping_titles_stay_inside_the_vault(vengine: Mnemo, vault: Path, tmp_path: Path, title: str) -> None:
    outside_before = {p for p in tmp_path.rglob("*") if vault not in p.parents and p != vault}
    mem = vengine.save("A memory with a hostile title", meta={"title": title}).memory
    [p] = vengine.promote(mem.id)
    path = (vault / p.path).resolve()
    assert path.is_file() and path.parent == (vault / "Memories").resolve()
    name = path.name[:-3]
    assert not any(ch in name for ch in '#|^:[]\\/') and not name.startswith(".") and name.upper() != "CON"
    created_outside = {p for p in tmp_path.rglob("*") if vault not in p.parents and p != vault} - outside_before
    assert all((tmp_path / "home") in p.parents for p in created_outside)  # only MNEMO_HOME


def test_conflict_copies_dot_paths_and_exclusions_are_not_indexed(vengine: Mnemo, vault: Path) -> None:
    for rel in ["Note.md", "Note 2.md", "Note (1).md", "Note (conflicted copy 2024-01-01).md",
                "Note.sync-conflict-20240101-120000-ABCDEFG.md", "Chapter 2.md", ".trash/Old.md",
                ".obsidian/snippet.md", "Templates/Daily.md", "Inbox/.hidden.md", "Inbox/idea.md"]:
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(f"text of {rel}\n")
    r = vengine.index_vault()
    paths = {row[0] for row in vengine.core.store.query("SELECT path FROM notes")}
    assert paths == {"Note.md", "Chapter 2.md", "Inbox/idea.md", "mnemo README.md"}
    assert r["added"] == 4
    assert vengine.index_note("Note 2.md")["status"] == "ignored"
    with pytest.raises(UnsafePath):
        vengine.index_note("../outside.md")


# -- Indexing by content hash ------------------------------------------------------------------------
def test_unchanged_notes_are_never_re_embedded(vengine: Mnemo, vault: Path) -> None:
    m = vengine
    emb: CountingEmbedder = m.core.embedder
    (vault / "A.md").write_text("# One\n\nalpha text\n\n# Two\n\nbeta text\n")
    (vault / "B.md").write_text("bravo note about kubernetes\n")
    first = m.index_vault()
    readme = m.core.store.query("SELECT count(*) FROM chunks c JOIN notes n ON n.uid = c.note_uid WHERE n.path = ?",
                           ("mnemo README.md",))[0][0]
    assert first["added"] == 3 and first["embedded"] == emb.count == readme + 3  # README + A (2 chunks) + B
    n0 = emb.count
    again = m.index_vault()
    assert (again["unchanged"], again["embedded"], emb.count) == (3, 0, n0)
    os.utime(vault / "A.md", (1, 1))  # touched, same bytes: hashed, not re-embedded
    assert m.index_vault()["embedded"] == 0 and emb.count == n0
    (vault / "A.md").write_text("# One\n\nalpha text\n\n# Two\n\nbeta text changed\n")
    r = m.index_vault()
    assert (r["changed"], r["embedded"]) == (1, 1) and emb.count == n0 + 1  # only the changed chunk
    (vault / "A.md").write_text("# Zero\n\nnew first section\n\n# One\n\nalpha text\n\n# Two\n\nbeta text changed\n")
    assert m.index_vault()["embedded"] == 1  # the shifted chunks kept their vectors
    (vault / "Sub").mkdir()
    os.rename(vault / "B.md", vault / "Sub/B moved.md")
    r = m.index_vault()
    assert (r["moved"], r["embedded"], r["removed"]) == (1, 0, 0)
    (vault / "Sub/B moved.md").unlink()
    assert m.index_vault()["removed"] == 1
    rows = m.core.store.query("SELECT count(*) FROM chunks")[0][0]
    fts = m.core.store.query("SELECT count(*) FROM chunks_fts")[0][0]
    assert rows == fts == m.core.index.count("chunks") == readme + 3


def test_watcher_operations(vengine: Mnemo, vault: Path) -> None:
    m = vengine
    emb: CountingEmbedder = m.core.embedder
    (vault / "N.md").write_text("a note about gardening\n")
    assert m.index_note(str(vault / "N.md"))["status"] == "added"  # absolute paths are fine
    assert m.index_note("N.md")["status"] == "unchanged"
    n0 = emb.count
    os.rename(vault / "N.md", vault / "Renamed.md")
    r = m.move_note("N.md", "Renamed.md")
    assert r["status"] == "moved" and emb.count == n0
    hits = chunk_hits(m.core, [i for i, _ in note_candidates(m.core, "gardening", m.core.embedder.embed_query("gardening"), 5)[0]])
    assert [h.path for h in hits.values()] == ["Renamed.md"]
    (vault / "Renamed.md").unlink()
    assert m.remove_note("Renamed.md")["removed"] is True
    assert note_candidates(m.core, "gardening", m.core.embedder.embed_query("gardening"), 5)[0] == []
    # A create on a path the index knows is a modify.
    (vault / "X.md").write_text("one\n")
    m.index_note("X.md")
    (vault / "X.md").write_text("two\n")
    assert m.index_note("X.md")["status"] == "changed"


# -- Two-way sync ------------------------------------------------------------------------------------
def test_a_persons_edit_flows_back_and_survives_an_update(vengine: Mnemo, vault: Path, clock: Clock) -> None:
    m = vengine
    a = m.save(DB, tags=["db"]).memory
    b = m.save("Redis caches the sessions", meta={"title": "Session cache"}).memory
    m.promote(a.id)
    m.promote(b.id)
    note = vault / DB_PATH
    text = note.read_text()
    text = text.replace("tags:\n  - db\n", "tags:\n  - db\n  - decided\nmy_key: kept   # my comment\n")
    text = text.replace("\n" + DB + "\n", "\nWe chose PostgreSQL 16.\n\n## My reasons\n\nIt has [[Session cache]] friends. ^why\n")
    note.write_text(text)
    r = m.index_note(DB_PATH)
    assert r["synced"] is True
    got = m.get(a.id)
    assert got.content == "We chose PostgreSQL 16.\n\n## My reasons\n\nIt has [[Session cache]] friends. ^why"
    assert got.tags == ("db", "decided")
    assert [(ln.dst, ln.rel) for ln in m.core.store.links_of(a.id, direction="out", rel="wikilink")] == [(b.id, "wikilink")]
    vec = m.core.index.get_vectors("memories", [a.id])[a.id]
    assert np.allclose(vec, m.core.embedder.embed([got.content])[0], atol=1e-6)  # re-embedded
    # mnemo updates the note later: the person's text, key, comment, heading and block id stay.
    clock.advance(DAY)
    from dataclasses import replace

    m.core.update(replace(m.get(a.id), tags=("db", "decided", "sql")))
    m.promote(a.id)
    final = note.read_text()
    assert "my_key: kept   # my comment\n" in final and "## My reasons" in final and "^why" in final
    assert "We chose PostgreSQL 16." in final and _fm(note)["tags"] == ["db", "decided", "sql"]
    assert final.count("\n---\n") == 1 and final.count("## Related") <= 1


def test_deleting_a_promoted_note_archives_its_memory(vengine: Mnemo, vault: Path) -> None:
    m = vengine
    a = m.save(DB).memory
    m.promote(a.id)
    (vault / DB_PATH).unlink()
    assert m.remove_note(DB_PATH)["removed"] is True
    got = m.get(a.id)
    assert got.status == Status.ARCHIVED and got.note_path is None and got.content == DB


def test_a_copy_of_an_owned_note_is_not_its_owner(vengine: Mnemo, vault: Path) -> None:
    m = vengine
    a = m.save(DB).memory
    m.promote(a.id)
    copy = vault / "Inbox/copy.md"
    copy.write_text((vault / DB_PATH).read_text().replace(DB, "Edited copy"))
    m.index_note("Inbox/copy.md")
    assert m.get(a.id).content == DB and m.get(a.id).note_path == DB_PATH


# -- Recall candidates over notes ----------------------------------------------------------------------
def test_note_candidates_and_hits(vengine: Mnemo, vault: Path) -> None:
    m = vengine
    (vault / "Infra.md").write_text("# Cluster\n\nThe kubernetes cluster runs on three nodes.\n\n# Budget\n\nMoney.\n")
    a = m.save(DB).memory
    m.promote(a.id)
    m.index_vault()
    bm, vec = note_candidates(m.core, "kubernetes cluster nodes", m.core.embedder.embed_query("kubernetes cluster nodes"), 5)
    hits = chunk_hits(m.core, [bm[0][0], vec[0][0]])
    top = hits[bm[0][0]]
    assert (top.tier, top.path, top.heading) == ("ltm", "Infra.md", "Cluster")
    assert top.content == "The kubernetes cluster runs on three nodes." and top.meta["title"] == "Infra"
    assert "mnemo_id" not in top.meta
    owned = chunk_hits(m.core, [i for i, _ in note_candidates(m.core, "PostgreSQL database team", None, 5)[0]])
    mine = [h for h in owned.values() if h.path == DB_PATH]
    assert mine and mine[0].meta["mnemo_id"] == a.id and mine[0].content == DB


# -- Entities -----------------------------------------------------------------------------------------
def test_entity_notes_created_once_or_linked(vengine: Mnemo, vault: Path) -> None:
    m = vengine
    (vault / "People").mkdir()
    (vault / "People/Ada L.md").write_text("---\naliases: [Ada Lovelace]\n---\nMy note on Ada.\n")
    m.index_vault()
    before = (vault / "People/Ada L.md").read_bytes()
    a = m.save("Ada Lovelace reviewed the PostgreSQL schema in London").memory
    m.save("Ada Lovelace wrote the first program")
    m.save("The PostgreSQL schema has twelve tables")
    [p] = m.promote(a.id)
    fm = _fm(vault / p.path)
    assert "[[Ada L]]" in fm["related"]  # linked to the person's note by its alias, not duplicated
    assert not (vault / "Entities/Ada Lovelace.md").exists()
    assert (vault / "People/Ada L.md").read_bytes() == before
    assert (vault / "Entities/PostgreSQL.md").exists()  # two memories mention it
    assert not (vault / "Entities/London.md").exists()  # only one does
    b = m.save("PostgreSQL vacuum runs weekly").memory
    [p2] = m.promote(b.id)
    assert p2.entity_notes == () and len(list((vault / "Entities").iterdir())) == 1
    assert f"[[{Path(p.path).stem}]]" in _fm(vault / p2.path)["related"]  # related promoted note


# -- Dashboard, reading notes, no vault ---------------------------------------------------------------
def test_dashboard(vengine: Mnemo, vault: Path, clock: Clock) -> None:
    m = vengine
    a = m.save(DB).memory
    m.save("Another memory")
    m.promote(a.id)
    path = m.dashboard()
    text = (vault / path).read_text()
    assert path == "mnemo Dashboard.md" and _fm(vault / path)["mnemo_id"] == "dashboard"
    assert text.count("```mermaid") == 4 and '"promoted" : 1' in text and '"active" : 1' in text
    assert "xychart-beta" in text and f"[[{Path(DB_PATH).stem}]]" in text
    st = os.stat(vault / path).st_mtime_ns
    m.dashboard()
    assert os.stat(vault / path).st_mtime_ns == st  # same numbers: same bytes, not rewritten
    m.promote(m.save("A third memory, promoted").memory.id)
    m.dashboard()
    assert '"promoted" : 2' in (vault / path).read_text()


def test_dashboard_refuses_a_persons_note_of_that_name(vengine: Mnemo, vault: Path) -> None:
    (vault / "mnemo Dashboard.md").write_text("mine\n")
    with pytest.raises(ConflictError):
        vengine.dashboard()
    assert (vault / "mnemo Dashboard.md").read_text() == "mine\n"


def test_read_note_is_confined_to_the_vault(vengine: Mnemo, vault: Path) -> None:
    m = vengine
    (vault / "Inbox/Idea.md").write_text("---\ntags: [x]\naliases: [Big idea]\n---\n# Idea\nBody [[Other]]\n")
    m.index_vault()
    d = m.read_note("Big idea")
    assert (d["path"], d["title"], d["owned"], d["tags"]) == ("Inbox/Idea.md", "Idea", False, ["x"])
    assert m.read_note("Inbox/Idea")["path"] == "Inbox/Idea.md"
    for bad in ("../secret.md", "/etc/passwd", ".obsidian/app.json"):
        with pytest.raises(UnsafePath):
            m.read_note(bad)
    with pytest.raises(NotFound):
        m.read_note("No such note")


def test_vault_commands_without_a_vault_say_how_to_fix(engine: Mnemo) -> None:
    a = engine.save("x").memory
    for call in (lambda: engine.promote(a.id), engine.index_vault, engine.dashboard, lambda: engine.read_note("x")):
        with pytest.raises(VaultError) as exc:
            call()
        assert exc.value.hint and "--vault" in exc.value.hint


def test_cli_promote_demote_index_and_show(home: Path, vault: Path) -> None:
    import json

    from click.testing import CliRunner

    from mnemo.cli import cli

    env = {"MNEMO_HOME": str(home), "MNEMO_VAULT": str(vault), "MNEMO_EMBEDDING_MODEL": "hash-64",
           "MNEMO_NOW": "2026-03-02T09:00:00Z"}
    run = CliRunner().invoke
    assert run(cli, ["init"], env=env).exit_code == 0
    out = run(cli, ["save", DB, "--json"], env=env)
    mid = json.loads(out.output)["id"]
    dry = json.loads(run(cli, ["promote", mid, "--dry-run", "--json"], env=env).output)
    assert dry["promotions"][0]["dry_run"] is True and not (vault / DB_PATH).exists()
    done = json.loads(run(cli, ["promote", mid, "--json"], env=env).output)
    assert done["promotions"][0]["path"] == DB_PATH and (vault / DB_PATH).exists()
    first = json.loads(run(cli, ["vault", "index", "--json"], env=env).output)
    assert first["unchanged"] == 2 and first["added"] == 0  # the promoted note and the README (init indexed it)
    again = json.loads(run(cli, ["index", "--json"], env=env).output)
    assert again["unchanged"] == 2 and again["embedded"] == 0
    shown = json.loads(run(cli, ["note", "show", DB_PATH, "--json"], env=env).output)
    assert shown["mnemo_id"] == mid and shown["owned"] is True
    assert json.loads(run(cli, ["demote", mid, "--json"], env=env).output)["status"] == "active"
    bad = run(cli, ["note", "show", "../x.md"], env=env)
    assert bad.exit_code != 0


# -- Quality with the real model ----------------------------------------------------------------------
def test_semantic_note_recall_with_the_real_model(home: Path, vault: Path, clock: Clock, real_embedder) -> None:
    """MiniLM finds the right note chunk by meaning, with no word of the query in it."""
    notes = {
        "Infra/Storage.md": "# Database\n\nWe run PostgreSQL 16 on two replicas.\n\n# Files\n\nUploads go to S3 buckets.\n",
        "People/Team.md": "# On call\n\nBob carries the pager this month.\n\n# Lunch\n\nFridays at noon.\n",
        "Ideas.md": "Maybe a mobile app for the shop, written in Kotlin.\n",
    }
    for rel, text in notes.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text)
    settings = load_settings(home=home, vault=vault)
    with Mnemo(settings, clock=clock, embedder=real_embedder) as m:
        m.index_vault()
        for query, path, heading in [("which SQL engine stores our data?", "Infra/Storage.md", "Database"),
                                     ("who is responsible for incidents right now", "People/Team.md", "On call")]:
            _, vec = note_candidates(m.core, query, m.core.embedder.embed_query(query), 3)
            top = chunk_hits(m.core, [vec[0][0]])[vec[0][0]]
            assert (top.path, top.heading) == (path, heading), query


def test_broken_properties_are_reported_not_duplicated(vengine: Mnemo, vault: Path) -> None:
    m = vengine
    a = m.save(DB).memory
    m.promote(a.id)
    note = vault / DB_PATH
    note.write_text(note.read_text().replace("tags:", "tags: [unclosed\nx:", 1))
    before = note.read_bytes()
    with pytest.raises(VaultError, match="unreadable properties"):
        m.promote(a.id)
    assert note.read_bytes() == before and len(list((vault / "Memories").iterdir())) == 1
    assert m.index_note(DB_PATH)["synced"] is False  # unreadable YAML: not mnemo's to follow


def test_reindex_rebuilds_notes_and_a_new_model_re_embeds(vengine: Mnemo, vault: Path, home: Path, clock: Clock) -> None:
    m = vengine
    (vault / "A.md").write_text("alpha note about sailing\n")
    m.index_vault()
    n = m.stats().chunks
    assert m.reindex()["notes"] == 2 and m.stats().chunks == n and m.core.index.count("chunks") == n
    m.close()
    settings = load_settings(home=home, vault=vault, overrides={"embedding.model": "hash-32"})
    with Mnemo(settings, clock=clock, embedder=HashEmbedder(32)) as m2:
        q = m2.core.embedder.embed_query("sailing")
        assert note_candidates(m2.core, "sailing", q, 5)[1] == []  # old vectors are not queried with a new model
        r = m2.index_vault()
        assert r["embedded"] == n and r["changed"] == 2
        assert note_candidates(m2.core, "sailing", q, 5)[1]


def test_recall_over_notes_through_the_engine(vengine: Mnemo, vault: Path) -> None:
    m = vengine
    (vault / "Infra.md").write_text("# Cluster\n\nThe kubernetes cluster runs on three nodes.\n")
    a = m.save(DB).memory
    m.promote(a.id)
    m.index_vault()
    ltm = m.recall("kubernetes cluster nodes", tier="ltm", touch=False)
    assert ltm and (ltm[0].tier, ltm[0].path, ltm[0].heading) == ("ltm", "Infra.md", "Cluster")
    everything = m.recall("PostgreSQL database team", tier="all", touch=False)
    mine = [h for h in everything if h.path == DB_PATH or h.id == a.id]
    assert len(mine) == 1 and mine[0].path == DB_PATH  # the note, not the note and a duplicate memory
    assert all(h.path != "Infra.md" for h in m.recall("kubernetes cluster nodes", tier="stm", touch=False))


def test_reconcile_after_downtime_follows_moves_edits_and_deletions(vengine: Mnemo, vault: Path) -> None:
    """What happened while nothing watched the vault is picked up by index_vault (daemon start)."""
    m = vengine
    a = m.save(DB).memory
    b = m.save("Redis caches the sessions", meta={"title": "Session cache"}).memory
    m.promote(a.id)
    m.promote(b.id)
    (vault / "Twin A.md").write_text("same bytes\n")
    (vault / "Twin B.md").write_text("same bytes\n")
    m.index_vault()
    # Moved and edited at once (no hash match), and deleted.
    moved = vault / "Inbox/Database decision.md"
    moved.write_text((vault / DB_PATH).read_text().replace("\n" + DB + "\n", "\nWe use PostgreSQL 16.\n"))
    (vault / DB_PATH).unlink()
    (vault / "Memories/Session cache.md").unlink()
    (vault / "Twin A.md").unlink()
    (vault / "Twin B.md").unlink()
    r = m.index_vault()
    assert r["removed"] == 4 and r["added"] == 1 and r["synced"] == 1
    got = m.get(a.id)
    assert (got.status, got.note_path, got.content) == (Status.PROMOTED, "Inbox/Database decision.md", "We use PostgreSQL 16.")
    assert m.get(b.id).status == Status.ARCHIVED
    assert not m.core.store.query("SELECT 1 FROM notes WHERE path LIKE 'Twin%'")
