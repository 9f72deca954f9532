"""The vault watcher's event handling, fed events with explicit times (no sleeps, no observer)
against a real engine on a real temporary vault."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemo.clock import Clock
from mnemo.config import load_settings
from mnemo.daemon.watcher import EngineActions, NoteEvents
from mnemo.engine import Mnemo
from mnemo.nlp.embedder import HashEmbedder


class CountingActions(EngineActions):
    """The real engine calls, counted, so a test can see which ones happened."""

    def __init__(self, engine: Mnemo) -> None:
        super().__init__(engine)
        self.calls: list[tuple[str, ...]] = []
        inner = self.call

        def call(op: str, *args: str) -> object:
            self.calls.append((op, *args))
            return inner(op, *args)

        self.call = call


@pytest.fixture
def veng(home: Path, vault: Path, clock: Clock):
    settings = load_settings(home=home, vault=vault, overrides={"embedding.model": "hash-64"})
    with Mnemo(settings, clock=clock, embedder=HashEmbedder(64)) as m:
        yield m


@pytest.fixture
def actions(veng: Mnemo) -> CountingActions:
    return CountingActions(veng)


@pytest.fixture
def events(vault: Path, actions: CountingActions) -> NoteEvents:
    return NoteEvents(vault, actions, debounce=1.0, retry_delays=(2.0, 5.0))


def _write(vault: Path, rel: str, text: str) -> Path:
    p = vault / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def _indexed(engine: Mnemo) -> dict[str, str]:
    return {r[0]: r[1] for r in engine.core.store.query("SELECT path, content_hash FROM notes")}


def _vectors(engine: Mnemo) -> int:
    return engine.core.index.count("chunks")


def test_debounce_indexes_a_burst_of_writes_once(events: NoteEvents, actions: CountingActions, vault: Path, veng: Mnemo) -> None:
    p = _write(vault, "Ideas/Garden.md", "# Garden\n\nPlant tomatoes in May.\n")
    events.feed("created", str(p), at=10.0)
    for t in (10.2, 10.4, 10.6):
        p.write_text(f"# Garden\n\nPlant tomatoes in May. ({t})\n")
        events.feed("modified", str(p), at=t)
    assert events.flush(now=11.5) == [] and actions.calls == []  # still within a second of the last write
    done = events.flush(now=11.6)
    assert [d["action"] for d in done] == ["index"] and actions.calls == [("index_note", "Ideas/Garden.md")]
    assert "Ideas/Garden.md" in _indexed(veng) and events.pending_count() == 0


def test_ignored_paths_never_reach_the_engine(events: NoteEvents, actions: CountingActions, vault: Path) -> None:
    _write(vault, "Note.md", "the real note\n")
    for rel in (".obsidian/workspace.md", ".trash/Old.md", "Note 2.md", "Plan (conflicted copy).md",
                "Plan.sync-conflict-20260302-ABCDEF.md", "picture.png", ".Note.md.1a2b3c.mnemo-tmp", "Folder/.hidden.md"):
        events.feed("modified", str(_write(vault, rel, "x")), at=1.0)
    events.feed("opened", str(vault / "Note.md"), at=1.0)  # not a mutating event
    events.feed("created", "/somewhere/else/Outside.md", at=1.0)
    assert events.pending_count() == 0
    assert events.flush(now=100.0) == [] and actions.calls == []


def test_own_writes_and_no_op_saves_are_skipped(events: NoteEvents, actions: CountingActions, vault: Path, veng: Mnemo) -> None:
    from mnemo.vault.writer import write_note

    write_note(vault, "Memories/Decision.md", "---\nmnemo_id: x\n---\nWe chose Postgres.\n")
    veng.index_note("Memories/Decision.md")  # mnemo indexes what it writes
    before = list(actions.calls)
    events.feed("created", str(vault / "Memories/Decision.md"), at=1.0)  # the echo of that write
    events.feed("modified", str(vault / "Memories/Decision.md"), at=1.1)
    done = events.flush(now=5.0)
    assert done == [{"path": "Memories/Decision.md", "action": "none", "why": "unchanged"}]
    assert actions.calls == before and events.skipped == 1


def test_create_on_a_known_path_is_a_modify(events: NoteEvents, actions: CountingActions, vault: Path, veng: Mnemo) -> None:
    p = _write(vault, "Log.md", "first version\n")
    veng.index_note("Log.md")
    p.unlink()  # an editor that saves by delete + create
    events.feed("deleted", str(p), at=1.0)
    _write(vault, "Log.md", "second version\n")
    events.feed("created", str(p), at=1.2)
    done = events.flush(now=3.0)
    assert [d["action"] for d in done] == ["index"] and done[0]["result"]["status"] == "changed"
    assert ("remove_note", "Log.md") not in actions.calls


def test_a_rename_is_a_move_without_re_embedding(events: NoteEvents, actions: CountingActions, vault: Path, veng: Mnemo) -> None:
    p = _write(vault, "Draft.md", "# Trip\n\nBook the train to Lyon.\n\n## Hotel\n\nNear the station.\n")
    veng.index_note("Draft.md")
    vectors = _vectors(veng)
    new = vault / "Travel" / "Draft.md"  # same title: the chunks' text is unchanged
    new.parent.mkdir()
    p.rename(new)
    events.feed("moved", str(p), str(new), at=1.0)
    done = events.flush(now=2.5)
    assert done[0]["action"] == "move" and done[0]["src"] == "Draft.md"
    assert done[0]["result"]["status"] == "moved" and done[0]["result"]["embedded"] == 0
    assert set(_indexed(veng)) == {"Travel/Draft.md"} and _vectors(veng) == vectors


def test_delete_plus_create_with_the_same_bytes_is_a_move(events: NoteEvents, actions: CountingActions, vault: Path, veng: Mnemo) -> None:
    text = "# Recipe\n\nBake at 200 degrees for 40 minutes.\n"
    p = _write(vault, "Recipe.md", text)
    veng.index_note("Recipe.md")
    p.unlink()
    events.feed("deleted", str(p), at=1.0)  # a sync tool: delete here, create there
    q = _write(vault, "Kitchen/Bread.md", text)
    events.feed("created", str(q), at=1.3)
    done = events.flush(now=2.1)  # the delete is due first; it finds its twin
    assert [d["action"] for d in done] == ["move"] and done[0]["src"] == "Recipe.md"
    assert ("remove_note", "Recipe.md") not in actions.calls and events.flush(now=10) == []
    assert set(_indexed(veng)) == {"Kitchen/Bread.md"}


def test_a_deleted_note_leaves_the_index(events: NoteEvents, actions: CountingActions, vault: Path, veng: Mnemo) -> None:
    p = _write(vault, "Gone.md", "soon gone\n")
    veng.index_note("Gone.md")
    p.unlink()
    events.feed("deleted", str(p), at=1.0)
    assert [d["action"] for d in events.flush(now=2.0)] == ["remove"]
    assert _indexed(veng) == {} and _vectors(veng) == 0
    # a file created and deleted within the debounce never reaches the engine
    t = _write(vault, "Scratch.md", "tmp")
    events.feed("created", str(t), at=5.0)
    t.unlink()
    events.feed("deleted", str(t), at=5.1)
    assert events.pending_count() == 0


def test_atomic_saves_and_moves_to_trash(events: NoteEvents, actions: CountingActions, vault: Path, veng: Mnemo) -> None:
    p = _write(vault, "Todo.md", "- milk\n")
    veng.index_note("Todo.md")
    tmp = _write(vault, ".Todo.md.swp", "- milk\n- eggs\n")
    tmp.replace(p)  # an editor's atomic save: temp file renamed onto the note
    events.feed("moved", str(tmp), str(p), at=1.0)
    assert [d["action"] for d in events.flush(now=2.0)] == ["index"]
    trash = vault / ".trash"
    trash.mkdir()
    p.rename(trash / "Todo.md")  # Obsidian's "move to trash"
    events.feed("moved", str(p), str(trash / "Todo.md"), at=3.0)
    assert [d["action"] for d in events.flush(now=4.0)] == ["remove"] and _indexed(veng) == {}


def test_a_deleted_folder_removes_its_notes(events: NoteEvents, vault: Path, veng: Mnemo) -> None:
    for name in ("a", "b"):
        _write(vault, f"Projects/{name}.md", f"note {name}\n")
        veng.index_note(f"Projects/{name}.md")
    _write(vault, "Keep.md", "stays\n")
    veng.index_note("Keep.md")
    import shutil

    shutil.rmtree(vault / "Projects")
    events.feed("deleted", str(vault / "Projects"), at=1.0, is_dir=True)
    assert sorted(d["action"] for d in events.flush(now=2.0)) == ["remove", "remove"]
    assert set(_indexed(veng)) == {"Keep.md"}


def test_unparsable_yaml_is_retried_and_never_fixed(events: NoteEvents, actions: CountingActions, vault: Path, veng: Mnemo) -> None:
    broken = "---\ntags: [unclosed\ntitle: x\n---\nBody text.\n"
    p = _write(vault, "Half.md", broken)
    events.feed("created", str(p), at=1.0)
    done = events.flush(now=2.0)
    assert done[0]["action"] == "retry" and done[0]["attempt"] == 1 and actions.calls == []
    assert events.flush(now=3.9) == []  # the retry waits 2 s
    p.write_text("---\ntags: [fixed]\n---\nBody text.\n")  # the sync tool finished writing
    done = events.flush(now=4.0)
    assert done[0]["action"] == "index" and "yaml_error" not in done[0]
    assert "Half.md" in _indexed(veng)
    # still broken after every retry: indexed as plain text, and the file is left as it is
    q = _write(vault, "Bad.md", broken)
    events.feed("modified", str(q), at=10.0)
    actions_seen = [d["action"] for t in (11.0, 13.0, 18.0) for d in events.flush(now=t)]
    assert actions_seen == ["retry", "retry", "index"] and q.read_text() == broken
    assert "Bad.md" in _indexed(veng)
