"""File modes of what mnemo keeps in ``MNEMO_HOME``: private to the user who runs it.

The home holds the memories, their vectors, the daemon's token and its logs. It is created
``0700``; every file mnemo (or Chroma, for mnemo) creates in it is ``0600`` and every folder
``0700``, so a second account on the machine reads nothing even if the home's own mode is later
loosened. SQLite gives its ``-wal``/``-shm`` files the mode of the database file, so creating
the database ``0600`` before SQLite opens it covers them; Chroma creates its files with the
process umask, so its folder is tightened after it writes (``tighten_tree``). The process umask
is never changed: it would also change the notes mnemo writes into the person's vault.

Where a note path comes from outside (CLI, API, MCP), ``mnemo.vault.names.resolve_in_vault`` is
the one confinement check; this module does not duplicate it.
"""

from __future__ import annotations

import contextlib
import os
import stat
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import Any

FILE_MODE = 0o600
DIR_MODE = 0o700
LOOSE = 0o077  # any permission for the group or others


def private_dir(path: Path) -> Path:
    """Create ``path`` (and missing parents) as ``0700``; tighten it if it exists with group or
    other permissions. Parents that already exist are left alone (they may be the user's)."""
    path.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    _tighten(path, DIR_MODE)
    return path


def private_file(path: Path) -> Path:
    """Make sure ``path`` exists as a ``0600`` file (created empty if missing, never truncated)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, FILE_MODE)
    os.close(fd)
    _tighten(path, FILE_MODE)
    return path


def _tighten(path: Path, mode: int) -> None:
    with contextlib.suppress(FileNotFoundError):
        st = os.lstat(path)
        if not stat.S_ISLNK(st.st_mode) and st.st_mode & LOOSE:
            os.chmod(path, mode)


def tighten_tree(root: Path) -> int:
    """Remove group/other permissions under ``root`` (files ``0600``, folders ``0700``); symlinks
    are not followed. Returns how many entries changed."""
    changed = 0
    for found in loose_modes(root):
        p = Path(found)
        with contextlib.suppress(FileNotFoundError):
            is_dir = stat.S_ISDIR(os.lstat(p).st_mode)
            os.chmod(p, DIR_MODE if is_dir else FILE_MODE)
            changed += 1
    return changed


def loose_modes(root: Path) -> list[str]:
    """Paths under ``root`` (itself included) that the group or others may access."""
    out: list[str] = []
    if not root.exists():
        return out
    paths = [str(root)]
    for base, dirs, files in os.walk(root):
        paths += [os.path.join(base, name) for name in (*dirs, *files)]
    for p in paths:
        with contextlib.suppress(FileNotFoundError):
            st = os.lstat(p)
            if not stat.S_ISLNK(st.st_mode) and st.st_mode & LOOSE:
                out.append(os.path.normpath(p))
    return out


# What mnemo keeps in its home (name prefixes at the top level). Checks and repairs touch only
# these, so a home set to a folder that also holds other things never has those chmod-ed.
HOME_ENTRIES = ("mnemo.db", "owner.lock", "config.toml", "daemon.json", "daemon.log", "mcp.log", "chroma",
                "dream-history")


def _home_paths(home: Path) -> list[Path]:
    if not home.is_dir():
        return []
    return [p for p in sorted(home.iterdir()) if p.name.startswith(HOME_ENTRIES)]


def _home_is_loose(home: Path) -> bool:
    st = os.lstat(home)
    return not stat.S_ISLNK(st.st_mode) and bool(st.st_mode & LOOSE)


def loose_in_home(home: Path) -> list[str]:
    """``loose_modes`` for the home folder itself and what mnemo keeps in it."""
    out = [os.path.normpath(home)] if home.is_dir() and _home_is_loose(home) else []
    for p in _home_paths(home):
        out.extend(loose_modes(p))
    return out


def tighten_home(home: Path) -> int:
    """``tighten_tree`` for the home folder itself and what mnemo keeps in it."""
    changed = 0
    if home.is_dir() and _home_is_loose(home):
        os.chmod(home, DIR_MODE)
        changed += 1
    for p in _home_paths(home):
        changed += tighten_tree(p)
    return changed


class PrivateRotatingFileHandler(RotatingFileHandler):
    """A rotating log whose every new file is ``0600``: the standard handler reopens the log
    after a rollover with the process umask (``0644``)."""

    def _open(self) -> Any:  # the stream type of logging.FileHandler
        private_file(Path(self.baseFilename))
        return super()._open()
