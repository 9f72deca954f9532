"""The safe writer: the only way mnemo changes a file in the vault (design.md §7).

1. The target must stay inside the vault and out of dot folders (``names.resolve_in_vault``).
2. Identical bytes are not written (no mtime churn, no sync traffic, no watcher echo).
3. The new bytes go to a unique dot-prefixed temp file in the same folder (same file system, so
   the final ``os.replace`` is atomic; dot-prefixed so Obsidian, sync tools and our scanner
   ignore it), which is fsynced.
4. Right before ``os.replace`` the target is hashed again: if it is no longer what the caller
   read (``expected_hash``; ``None`` means "must not exist"), the temp file is removed and
   ``ConflictError`` is raised. The person's file is never clobbered; callers re-read and retry
   on the new content, or skip and report.
5. After the replace the folder is fsynced so the rename itself survives a crash.
6. A move records what it does (``.<name>.<hex>.mnemo-move``) before it creates the new note,
   and removes the record once the old note is gone; ``vault.recover`` finishes a move that a
   kill cut in between, and removes the temp files a kill left.

The window between the re-check and the replace is a few microseconds; an editor that saves in
exactly that window is the one case left, as with every tool that writes files atomically.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .. import faults
from ..errors import ConflictError, VaultError
from .names import resolve_in_vault

TEMP_SUFFIX = ".mnemo-tmp"
MOVE_SUFFIX = ".mnemo-move"  # a move in progress (see move_note_file)


def bytes_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def text_hash(text: str) -> str:
    return bytes_hash(text.encode("utf-8"))


@dataclass(frozen=True)
class WriteResult:
    path: str  # vault-relative
    status: str  # created | updated | unchanged
    hash: str

    @property
    def written(self) -> bool:
        return self.status != "unchanged"


def current_hash(path: Path) -> str | None:
    """The hash of the file's bytes now, or None when it does not exist."""
    try:
        return bytes_hash(path.read_bytes())
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise VaultError(f"{path} is a folder, not a note") from None


def read_note_file(vault: Path, rel_path: str) -> tuple[str, str]:
    """(text, hash of its bytes) of a note, for a later ``write_note(..., expected_hash=...)``."""
    path, _ = resolve_in_vault(vault, rel_path)
    data = path.read_bytes()
    return data.decode("utf-8", errors="replace"), bytes_hash(data)


def _fsync_file(fd: int) -> None:
    os.fsync(fd)


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):  # not supported everywhere (e.g. Windows); best effort
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_note(vault: Path, rel_path: str, text: str, expected_hash: str | None = None) -> WriteResult:
    """Write ``text`` to the vault-relative ``rel_path`` safely (see the module docstring).

    ``expected_hash`` is the hash of the bytes the caller read (``read_note_file``), or None to
    create a note that must not exist yet. Raises ConflictError when the file on disk is not
    what the caller expected, before or during the write; nothing is written then."""
    path, rel = resolve_in_vault(vault, rel_path, write=True)
    if not rel.lower().endswith(".md"):
        raise VaultError(f"mnemo only writes Markdown notes, not {rel}")
    data = text.encode("utf-8")
    new_hash = bytes_hash(data)
    before = current_hash(path)
    if before == new_hash:
        return WriteResult(rel, "unchanged", new_hash)
    _check(rel, before, expected_hash)
    path.parent.mkdir(parents=True, exist_ok=True)
    # The folder may have been created through a symlink after the first check: check again.
    resolve_in_vault(vault, rel, write=True)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}{TEMP_SUFFIX}")
    mode = _mode_of(path)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        try:
            view = memoryview(data)
            while view:
                n = os.write(fd, view)
                view = view[n:]
            _fsync_file(fd)
        finally:
            os.close(fd)
        faults.point()  # the temp file is written; the note is not replaced yet
        _check(rel, current_hash(path), expected_hash)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)
    return WriteResult(rel, "created" if before is None else "updated", new_hash)


def _mode_of(path: Path) -> int:
    try:
        return os.stat(path).st_mode & 0o777
    except FileNotFoundError:
        return 0o644  # before the umask


def _check(rel: str, found: str | None, expected: str | None) -> None:
    if found == expected:
        return
    if expected is None:
        raise ConflictError(f"{rel} already exists", hint="mnemo never overwrites a note it did not read")
    if found is None:
        raise ConflictError(f"{rel} was deleted while mnemo was updating it; nothing was written")
    raise ConflictError(f"{rel} changed on disk while mnemo was updating it; nothing was overwritten",
                        hint="run the command again to apply it on top of the new content")


def update_note(
    vault: Path, rel_path: str, transform: Callable[[str], str | None], attempts: int = 3
) -> WriteResult | None:
    """Read a note, compute its new text with ``transform`` (None: leave it alone) and write it
    with the hash check. If the note changes under us, re-read and apply the transform to the
    new content, up to ``attempts`` times; then the ConflictError propagates (skip and report)."""
    for attempt in range(attempts):
        text, digest = read_note_file(vault, rel_path)
        new = transform(text)
        if new is None:
            return None
        try:
            return write_note(vault, rel_path, new, expected_hash=digest)
        except ConflictError:
            if attempt == attempts - 1:
                raise
    return None


def move_note_file(vault: Path, old_rel: str, new_rel: str, text: str | None = None,
                   expected_hash: str | None = None) -> WriteResult:
    """Move a note (optionally with new text) without ever overwriting: the new file is created
    (it must not exist), then the old one is removed only if it still has the bytes we read."""
    old_path, old = resolve_in_vault(vault, old_rel, write=True)
    if text is None or expected_hash is None:
        text, expected_hash = read_note_file(vault, old)
    new_path, new = resolve_in_vault(vault, new_rel, write=True)
    # A kill between creating the new note and removing the old one would leave two notes with
    # one mnemo_id: the record lets the next reconcile finish the move (``vault.recover``).
    record = _record_move(new_path, {"from": old, "to": new, "old_hash": expected_hash, "new_hash": text_hash(text)})
    try:
        result = write_note(vault, new_rel, text, expected_hash=None)
        try:
            _check(old, current_hash(old_path), expected_hash)
        except ConflictError:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(new_path)
            raise
        faults.point()  # the new note exists; the old one is not removed yet
        os.unlink(old_path)
        _fsync_dir(old_path.parent)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(record)
    return WriteResult(result.path, "moved", result.hash)


def _record_move(new_path: Path, intent: dict[str, str]) -> Path:
    new_path.parent.mkdir(parents=True, exist_ok=True)
    record = new_path.with_name(f".{new_path.name}.{uuid.uuid4().hex[:12]}{MOVE_SUFFIX}")
    fd = os.open(record, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, json.dumps(intent).encode("utf-8"))
        _fsync_file(fd)
    finally:
        os.close(fd)
    return record
