"""Finishing what a killed process left half-done in the vault.

The safe writer never leaves a half-written note: a note is replaced at once by a temp file
that was written in full and fsynced. A kill (or a power cut) can still leave:

1. a temp file (``.<name>.<hex>.mnemo-tmp``) that was never renamed into place;
2. a move cut between creating the new note and removing the old one: two notes with one
   ``mnemo_id``. ``writer.move_note_file`` first records what it is about to do in
   ``.<name>.<hex>.mnemo-move`` beside the new note;
3. a promotion cut between writing the note and marking the memory promoted (a note in the
   memories folder that names an active memory with no note), or a demotion cut between moving
   the note to the archive and marking the memory active (a note marked ``mnemo_status:
   demoted`` that names a memory still promoted to a note that is gone).

``sweep`` (every vault reconcile runs it first; ``doctor`` reports what it would do) handles 1
and 2, and only for files older than the current owner's lock: ``MNEMO_HOME/owner.lock`` is
rewritten when an owner starts, and there is one owner at a time, so an older temp or record
belongs to a process that is gone and a write in progress now is never touched. A temp is
removed. A move is finished (the old note removed) only if the new note holds exactly the
bytes recorded and the old one still holds exactly the bytes it had; otherwise someone changed
them since and both are left as they are. ``finish_cut_short`` handles 3 when the reconcile
syncs the note back into its memory: the operation is finished, as if it had not been cut.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..lock import LOCK_NAME
from ..models import Memory, Status
from .writer import MOVE_SUFFIX, TEMP_SUFFIX, current_hash

if TYPE_CHECKING:
    from ..core import Core
    from .parse import ParsedNote

log = logging.getLogger(__name__)


def owner_started_ns(home: Path) -> int | None:
    """When the current owner took the home (the lock file's mtime), or None without one."""
    try:
        return (home / LOCK_NAME).stat().st_mtime_ns
    except OSError:
        return None


def leftovers(vault: Path, before_ns: int | None) -> dict[str, list[str]]:
    """Temp files and move records older than ``before_ns`` (vault-relative paths). Dot folders
    (``.obsidian``, ``.trash``) are not mnemo's and are not looked into."""
    out: dict[str, list[str]] = {"temp_files": [], "unfinished_moves": []}
    if before_ns is None or not vault.is_dir():
        return out
    for folder, dirs, files in os.walk(vault, followlinks=False):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if not name.startswith("."):
                continue
            kind = "temp_files" if name.endswith(TEMP_SUFFIX) else "unfinished_moves" if name.endswith(MOVE_SUFFIX) else None
            if kind is None:
                continue
            path = Path(folder) / name
            with contextlib.suppress(OSError):
                if path.lstat().st_mtime_ns < before_ns:
                    out[kind].append(path.relative_to(vault).as_posix())
    return {k: sorted(v) for k, v in out.items()}


def sweep(vault: Path, home: Path) -> dict[str, int]:
    """Remove dead temp files and finish (or drop) dead move records; returns the counts."""
    found = leftovers(vault, owner_started_ns(home))
    done = {"temp_files_removed": 0, "moves_finished": 0, "moves_dropped": 0}
    for rel in found["temp_files"]:
        with contextlib.suppress(FileNotFoundError):
            (vault / rel).unlink()
            done["temp_files_removed"] += 1
    for rel in found["unfinished_moves"]:
        done["moves_finished" if _finish_move(vault, vault / rel) else "moves_dropped"] += 1
    if any(done.values()):
        log.info("vault: cleared what an interrupted write left: %s", done)
    return {k: v for k, v in done.items() if v}


def _finish_move(vault: Path, record: Path) -> bool:
    try:
        intent: dict[str, Any] = json.loads(record.read_text(encoding="utf-8"))
        old, new = vault / intent["from"], vault / intent["to"]
        finish = (
            current_hash(new) == intent["new_hash"]
            and current_hash(old) == intent["old_hash"]
            and old.resolve().is_relative_to(vault.resolve())
        )
    except (OSError, ValueError, KeyError, TypeError):
        finish = False  # cut while the record itself was written: no note was touched yet
    if finish:
        old.unlink()
        log.info("finished moving %s to %s", intent["from"], intent["to"])
    record.unlink(missing_ok=True)
    return finish


def finish_cut_short(core: Core, m: Memory, rel: str, parsed: ParsedNote) -> Memory:
    """Case 3 of the module docstring, met while syncing the owned note ``rel`` back into its
    memory ``m``; returns the memory as it is afterwards."""
    from .sync import log_event

    vault = core.settings.vault
    marked = parsed.frontmatter.get("mnemo_status")
    archive = core.settings.vault_cfg.archive_folder.strip("/") + "/"
    if (marked == "demoted" and m.status == Status.PROMOTED and m.note_path not in (None, rel)
            and vault is not None and not (vault / m.note_path).exists()):
        log.info("%s: finishing the demotion of %s that was cut short", rel, m.id)
        m = core.set_status(replace(m, note_path=None), Status.ACTIVE)
        log_event(core, "demote", m.id, rel)
    elif marked is None and m.status == Status.ACTIVE and m.note_path is None and not rel.startswith(archive):
        log.info("%s: finishing the promotion of %s that was cut short", rel, m.id)
        m = core.set_status(replace(m, note_path=rel), Status.PROMOTED)
        log_event(core, "promote", m.id, rel)
    return m
