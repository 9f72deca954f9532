"""mnemo inside Obsidian: installing the plugin, the pane's `related` request, and promoted notes
woven into the person's notes. (The plugin itself is tested by tests/node/ against a real daemon.)"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from mnemo.config import load_settings
from mnemo.engine import Mnemo
from mnemo.errors import InvalidInput, UnsafePath
from mnemo.nlp.embedder import HashEmbedder
from mnemo.obsidian.install import FILES, SOURCE, plugin_dir
from mnemo.setup import init_home

from .conftest import invoke_main


def _tree(root: Path) -> dict[str, tuple[bytes, int]]:
    return {p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns) for p in root.rglob("*") if p.is_file()}


@pytest.fixture
def person_vault(vault: Path) -> Path:
    """A vault someone already uses: Obsidian settings, another plugin, mnemo's plugin settings."""
    obs = vault / ".obsidian"
    (obs / "plugins" / "other").mkdir(parents=True)
    (obs / "app.json").write_text('{"vimMode": true}')
    (obs / "appearance.json").write_text('{"theme": "obsidian"}')
    (obs / "community-plugins.json").write_text('["other"]')
    (obs / "plugins" / "other" / "main.js").write_text("module.exports = {};")
    (obs / "plugins" / "mnemo").mkdir()
    (obs / "plugins" / "mnemo" / "data.json").write_text('{"k": 7}')  # the person's plugin settings
    (vault / "Ideas.md").write_text("# Ideas\n")
    return vault


def test_install_changes_nothing_but_the_plugin_folder_and_is_idempotent(person_vault: Path, capsys) -> None:
    before = _tree(person_vault)
    code, out, err = invoke_main(capsys, "obsidian", "install", "--vault", str(person_vault), "--json")
    assert code == 0, err
    r = json.loads(out)
    assert r["action"] == "installed" and r["up_to_date"] and r["enabled"] is False
    after = _tree(person_vault)
    changed = {p for p in set(before) | set(after) if before.get(p) != after.get(p)}
    assert changed == {f".obsidian/plugins/mnemo/{f}" for f in FILES}
    for f in FILES:
        assert (plugin_dir(person_vault) / f).read_bytes() == (SOURCE / f).read_bytes()
    assert after[".obsidian/plugins/mnemo/data.json"] == before[".obsidian/plugins/mnemo/data.json"]

    code, out, _ = invoke_main(capsys, "obsidian", "install", "--vault", str(person_vault), "--json")
    assert code == 0 and json.loads(out)["action"] == "unchanged"
    assert _tree(person_vault) == after  # not even rewritten

    code, out, _ = invoke_main(capsys, "obsidian", "status", "--vault", str(person_vault), "--json")
    s = json.loads(out)
    assert code == 0 and s["installed"] and s["version"] == s["bundled"] and s["up_to_date"]


def test_an_older_version_is_updated_a_newer_one_kept(person_vault: Path, capsys) -> None:
    dst = plugin_dir(person_vault)
    (dst / "manifest.json").write_text(json.dumps({"id": "mnemo", "version": "0.0.1"}))
    (dst / "main.js").write_text("/* old */")
    code, out, _ = invoke_main(capsys, "obsidian", "install", "--vault", str(person_vault), "--json")
    r = json.loads(out)
    assert code == 0 and r["action"] == "updated" and r["previous"] == "0.0.1" and r["up_to_date"]
    assert (dst / "main.js").read_bytes() == (SOURCE / "main.js").read_bytes()
    assert (dst / "data.json").read_text() == '{"k": 7}'

    (dst / "manifest.json").write_text(json.dumps({"id": "mnemo", "version": "99.0.0"}))
    code, out, _ = invoke_main(capsys, "obsidian", "install", "--vault", str(person_vault))
    assert code == 0 and "kept the newer" in out
    assert json.loads((dst / "manifest.json").read_text())["version"] == "99.0.0"
    code, out, _ = invoke_main(capsys, "obsidian", "install", "--vault", str(person_vault), "--force", "--json")
    assert json.loads(out)["action"] == "updated"


def test_install_refuses_a_missing_vault(tmp_path: Path, capsys) -> None:
    code, _, err = invoke_main(capsys, "obsidian", "install", "--vault", str(tmp_path / "nope"))
    assert code == 1 and "is not a folder" in err
    assert not (tmp_path / "nope").exists()


def test_a_vault_made_by_init_has_the_plugin(home: Path, tmp_path: Path, capsys) -> None:
    vault = tmp_path / "new-vault"
    code, out, err = invoke_main(capsys, "--vault", str(vault), "init", "--json")
    assert code == 0, err
    assert ".obsidian/plugins/mnemo/" in json.loads(out)["created"]
    for f in FILES:
        assert (plugin_dir(vault) / f).read_bytes() == (SOURCE / f).read_bytes()
    code, out, _ = invoke_main(capsys, "--vault", str(vault), "obsidian", "status")
    assert code == 0 and "up to date" in out


def test_built_plugin_is_committed_and_matches_its_manifest() -> None:
    manifest = json.loads((SOURCE / "manifest.json").read_text())
    assert manifest["id"] == "mnemo" and manifest["isDesktopOnly"] is True
    js = (SOURCE / "main.js").read_text()
    assert 'require("obsidian")' in js and "mnemo-related" in js  # the bundle, with the pane


# -- the pane's request: related to a note, never the note itself ---------------------------------
@pytest.fixture
def vengine(home: Path, vault: Path, clock):
    settings = load_settings(home=home, vault=vault, overrides={"embedding.model": "hash-64"})
    init_home(settings)
    with Mnemo(settings, clock=clock, embedder=HashEmbedder(64)) as m:
        yield m


def test_related_never_lists_the_note_or_its_own_memory(vengine: Mnemo, vault: Path) -> None:
    (vault / "Orders database.md").write_text("# Orders database\n\nPostgreSQL runs the orders database.\n")
    mid = vengine.save("We use PostgreSQL for the orders database", tags=["db"]).memory.id
    other = vengine.save("PostgreSQL backups of the orders database run nightly").memory.id
    note = vengine.promote(mid)[0].path
    vengine.index_vault()
    r = vengine.related(note, k=10)
    ids = {h.id for h in r["hits"]}
    assert r["path"] == note and mid not in ids and other in ids
    assert all(h.path != note for h in r["hits"])
    assert all((h.meta or {}).get("mnemo_id") != mid for h in r["hits"])
    assert any(h.path == "Orders database.md" for h in r["hits"])
    # The person's note: its chunks are left out, the promoted note is related.
    r2 = vengine.related("Orders database.md", k=10)
    assert all(h.path != "Orders database.md" for h in r2["hits"]) and any(h.path == note for h in r2["hits"])
    # A selection is the query; the editor's unsaved text is used over the file's.
    r3 = vengine.related("Orders database.md", text="nightly backups")
    assert r3["query"] == "nightly backups" and r3["hits"][0].id == other
    r4 = vengine.related("Orders database.md", content="# Unsaved title\n\nsomething else entirely")
    assert r4["query"].startswith("Orders database Unsaved title")
    # Uses are not recorded: the pane only looks.
    assert vengine.get(other).use_count == 0


def test_related_reuses_the_notes_stored_vectors_while_it_is_unchanged(vengine: Mnemo, vault: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import numpy as np

    from mnemo.vault.related import note_query
    from mnemo.vault.search import COLLECTION

    text = "# Orders database\n\nPostgreSQL runs the orders database.\n\n## Backups\n\nNightly, to S3.\n"
    (vault / "Orders database.md").write_text(text)
    vengine.save("PostgreSQL backups of the orders database run nightly")
    vengine.index_vault()
    (vault / "Unindexed.md").write_text("# Unindexed\n\nWritten after the index.\n")
    core = vengine.core
    embedded: list[str] = []
    real = core.embedder.embed_query
    monkeypatch.setattr(core.embedder, "embed_query", lambda q: embedded.append(q) or real(q))

    # Indexed and unchanged (on disk, or the editor's text equal to it): its first chunk's vector, no embedding.
    row = core.store.note_at("Orders database.md")
    assert row is not None
    ids = sorted(core.store.note_chunk_ids(row.uid))
    stored = core.index.get_vectors(COLLECTION, ids)
    assert len(stored) == 2 and not np.allclose(stored[ids[0]], stored[ids[1]])
    for nq in (note_query(core, "Orders database.md"), note_query(core, "Orders database.md", content=text)):
        assert nq.vector is not None and np.allclose(nq.vector, stored[f"{row.uid}:0"], atol=1e-6)
    r = vengine.related("Orders database.md", content=text)
    assert embedded == [] and r["hits"] and all(h.path != "Orders database.md" for h in r["hits"])
    # Unsaved edits, a selection, a note the index does not hold: the query is embedded.
    assert note_query(core, "Orders database.md", content=text + "More.\n").vector is None
    assert note_query(core, "Orders database.md", text="nightly backups").vector is None
    assert note_query(core, "Unindexed.md").vector is None
    vengine.related("Orders database.md", content=text + "More.\n")
    vengine.related("Unindexed.md")
    assert len(embedded) == 2
    # Changed on disk since it was indexed: embedded too, until the index catches up.
    (vault / "Orders database.md").write_text(text.replace("Nightly", "Weekly"))
    assert note_query(core, "Orders database.md").vector is None
    vengine.index_vault()
    assert note_query(core, "Orders database.md").vector is not None


def test_related_refuses_bad_input(vengine: Mnemo, vault: Path) -> None:
    (vault / "A.md").write_text("# A\n\ntext\n")
    with pytest.raises(UnsafePath):
        vengine.related("../outside.md")
    with pytest.raises(InvalidInput):
        vengine.related("A.md", text="   ")
    with pytest.raises(InvalidInput):
        vengine.related("A.md", k=0)
    with pytest.raises(InvalidInput):
        vengine.related()


# -- woven links: a promoted note links to the person's notes about the same thing ------------------
WIKILINK = re.compile(r"\[\[([^\]|#]+)")


@pytest.mark.slow
def test_promoted_note_links_the_persons_note_on_its_subject_not_a_common_word(home: Path, vault: Path, clock,
                                                                             real_embedder) -> None:
    (vault / "Projects").mkdir()
    (vault / "Projects" / "CI migration.md").write_text(
        "# CI migration\n\nMoving every pipeline off Jenkins onto GitHub Actions. The Jenkins build agents "
        "ran out of disk space every week and nobody wanted to maintain them any more.\n")
    (vault / "Team offsite.md").write_text(
        "# Team offsite\n\nThe team goes kayaking on Friday afternoon. Bring dry clothes and sunscreen; "
        "dinner at the harbour afterwards.\n")
    (vault / "Groceries.md").write_text("# Groceries\n\nEggs, flour, lemons, coffee beans.\n")
    settings = load_settings(home=home, vault=vault)
    init_home(settings)
    with Mnemo(settings, clock=clock, embedder=real_embedder) as m:
        m.index_vault()
        mid = m.save("The team moved CI from Jenkins to GitHub Actions because the Jenkins agents kept running out of disk",
                     tags=["ci"]).memory.id
        path = m.promote(mid)[0].path
    text = (vault / path).read_text(encoding="utf-8")
    related = yaml.safe_load(text.split("---\n")[1])["related"]
    assert "[[CI migration]]" in related
    assert not any("Team offsite" in r or "Groceries" in r for r in related)
    section = text.split("## Related", 1)[1]
    assert "[[CI migration]]" in section and "Team offsite" not in section
    # Every link in the note resolves to a note that exists.
    names = {p.stem for p in vault.rglob("*.md")} | {p.relative_to(vault).with_suffix("").as_posix() for p in vault.rglob("*.md")}
    for target in WIKILINK.findall(text):
        assert target in names, target



def test_no_woven_links_with_a_model_the_threshold_was_not_calibrated_on(vengine: Mnemo, vault: Path) -> None:
    (vault / "Orders database.md").write_text("# Orders database\n\nPostgreSQL runs the orders database.\n")
    vengine.index_vault()
    mid = vengine.save("We use PostgreSQL for the orders database").memory.id
    from mnemo.vault import weave

    assert weave.candidates(vengine.core, vengine.get(mid))  # the hash embedder does find candidates…
    assert weave.woven_links(vengine.core, vengine.get(mid)) == []  # …but its cosines mean nothing
