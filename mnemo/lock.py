"""The one-owner lock (design.md §2): an exclusive ``flock`` on ``MNEMO_HOME/owner.lock``.

The kernel drops the lock when its process dies, even by ``kill -9``, so a crash never leaves
a stale lock behind. The file holds the owner's pid and kind for the error message.
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path

from .errors import LockedError

LOCK_NAME = "owner.lock"


class OwnerLock:
    def __init__(self, home: Path, kind: str = "cli") -> None:
        self.path = home / LOCK_NAME
        self.kind = kind
        self.fd: int | None = None

    def acquire(self) -> None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = self.holder()
            os.close(fd)
            who = f"{holder.get('kind', 'another process')} (pid {holder.get('pid', '?')})" if holder else "another process"
            raise LockedError(
                f"the mnemo home {self.path.parent} is owned by {who}",
                hint="talk to the running daemon (it is used automatically), or stop it with `mnemo daemon stop`",
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps({"pid": os.getpid(), "kind": self.kind}).encode())
        os.fsync(fd)
        self.fd = fd

    def holder(self) -> dict:
        try:
            return json.loads(self.path.read_text() or "{}")
        except (OSError, ValueError):
            return {}

    def release(self) -> None:
        if self.fd is not None:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_UN)
            finally:
                os.close(self.fd)
                self.fd = None

    @staticmethod
    def is_held(home: Path) -> bool:
        path = home / LOCK_NAME
        if not path.exists():
            return False
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        else:
            fcntl.flock(fd, fcntl.LOCK_UN)
            return False
        finally:
            os.close(fd)
