"""The safe writer and safe names, on real files in a temporary vault."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mnemo.errors import ConflictError, UnsafePath
from mnemo.vault import writer
from mnemo.vault.names import FORBIDDEN, RESERVED, note_filename, resolve_in_vault, safe_title
from mnemo.vault.writer import bytes_hash, move_note_file, read_note_file, update_note, write_note


def _temps(folder: Path) -> list[str]:
    return [p.name for p in folder.rglob("*") if p.name.endswith(writer.TEMP_SUFFIX)]


@pytest.mark.parametrize(
    "title",
    ["../x", "../../etc/passwd", "/etc/passwd", "C:\\Windows\\x", "CON", "con.txt", "Nul", "LPT1", "COM9.md",
     "a # b | c ^ d : e [ f ] g \\ h % i", "..", ".", ".hidden", "trailing dot.", "  ", "x" * 400, "tab\there\x00nul"],
)
def test_safe_titles_stay_inside_the_vault(vault: Path, title: str) -> None:
    name = note_filename(title)
    stem = name[:-3]
    assert not any(ch in stem for ch in FORBIDDEN)
    assert stem and not stem.startswith(".") and not stem.endswith((".", " "))
    assert stem.split(".")[0].upper() not in RESERVED
    assert len(name.encode()) <= 130
    result = write_note(vault, f"Memories/{name}", "hello\n")
    path = (vault / result.path).resolve()
    assert path.is_relative_to(vault.resolve()) and path.parent == (vault / "Memories").resolve()


@pytest.mark.parametrize("rel", ["../x.md", "../../x.md", "/etc/x.md", "a/../../x.md", ".obsidian/app.md",
                                 ".trash/x.md", "a/.hidden/x.md", "..\\x.md"])
def test_writer_refuses_paths_outside_or_hidden(vault: Path, rel: str) -> None:
    with pytest.raises(UnsafePath):
        write_note(vault, rel, "x")
    assert not (vault.parent / "x.md").exists()


def test_writer_refuses_symlink_escape(vault: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (vault / "link").symlink_to(outside, target_is_directory=True)
    with pytest.raises(UnsafePath):
        write_note(vault, "link/x.md", "x")
    assert list(outside.iterdir()) == []


def test_absolute_path_inside_the_vault_is_fine(vault: Path) -> None:
    _, rel = resolve_in_vault(vault, str(vault / "A" / "b.md"))
    assert rel == "A/b.md"


def test_create_update_identical_and_expected_hash(vault: Path) -> None:
    r = write_note(vault, "n.md", "one\n")
    assert r.status == "created"
    with pytest.raises(ConflictError):  # create must not overwrite
        write_note(vault, "n.md", "two\n")
    text, digest = read_note_file(vault, "n.md")
    st = os.stat(vault / "n.md")
    assert write_note(vault, "n.md", "one\n", expected_hash=digest).status == "unchanged"
    assert os.stat(vault / "n.md").st_mtime_ns == st.st_mtime_ns  # identical bytes: not written
    assert write_note(vault, "n.md", "two\n", expected_hash=digest).status == "updated"
    with pytest.raises(ConflictError):  # the caller's read is stale now
        write_note(vault, "n.md", "three\n", expected_hash=digest)
    assert (vault / "n.md").read_text() == "two\n"
    assert _temps(vault) == []


def test_a_note_changed_between_read_and_write_is_not_clobbered(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The race: mnemo read the note, wrote its temp file; the person saves before the replace."""
    (vault / "n.md").write_text("original\n")
    _, digest = read_note_file(vault, "n.md")
    real_fsync = writer._fsync_file

    def person_saves(fd: int) -> None:
        real_fsync(fd)
        (vault / "n.md").write_text("the person's edit\n")

    monkeypatch.setattr(writer, "_fsync_file", person_saves)
    with pytest.raises(ConflictError, match="changed on disk"):
        write_note(vault, "n.md", "mnemo's version\n", expected_hash=digest)
    assert (vault / "n.md").read_text() == "the person's edit\n"
    assert _temps(vault) == []


def test_update_note_retries_on_the_new_content(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (vault / "n.md").write_text("line 1\n")
    real_fsync = writer._fsync_file
    raced = []

    def person_saves_once(fd: int) -> None:
        real_fsync(fd)
        if not raced:
            raced.append(1)
            (vault / "n.md").write_text("line 1\nperson's line\n")

    monkeypatch.setattr(writer, "_fsync_file", person_saves_once)
    result = update_note(vault, "n.md", lambda text: text + "mnemo's line\n")
    assert result is not None and result.status == "updated"
    assert (vault / "n.md").read_text() == "line 1\nperson's line\nmnemo's line\n"


def test_update_note_gives_up_and_reports(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (vault / "n.md").write_text("v0\n")
    real_fsync = writer._fsync_file
    n = []

    def always(fd: int) -> None:
        real_fsync(fd)
        n.append(1)
        (vault / "n.md").write_text(f"v{len(n)}\n")

    monkeypatch.setattr(writer, "_fsync_file", always)
    with pytest.raises(ConflictError):
        update_note(vault, "n.md", lambda t: t + "x\n", attempts=3)
    assert (vault / "n.md").read_text() == "v3\n" and _temps(vault) == []


def test_move_never_overwrites_and_checks_the_source(vault: Path) -> None:
    (vault / "a.md").write_text("A\n")
    (vault / "b.md").write_text("B\n")
    with pytest.raises(ConflictError):
        move_note_file(vault, "a.md", "b.md")
    assert (vault / "a.md").read_text() == "A\n" and (vault / "b.md").read_text() == "B\n"
    stale = bytes_hash(b"something else")
    with pytest.raises(ConflictError):
        move_note_file(vault, "a.md", "c.md", "A2\n", stale)
    assert not (vault / "c.md").exists() and (vault / "a.md").exists()
    r = move_note_file(vault, "a.md", "Archive/a.md")
    assert r.path == "Archive/a.md" and not (vault / "a.md").exists() and (vault / "Archive/a.md").read_text() == "A\n"


def test_safe_title_keeps_readable_text() -> None:
    assert safe_title("Use PostgreSQL: why?") == "Use PostgreSQL why"
    assert safe_title("café / naïve") == "café naïve"
    assert safe_title("CON") == "CON note"
