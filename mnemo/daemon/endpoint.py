"""The endpoint file: where a running daemon listens and the token every request must carry.

``MNEMO_HOME/daemon.json``, mode ``0600`` (only the owner of the home can read the token, so
only they can call the API). It is written atomically once the daemon is ready and removed when
it stops; after a ``kill -9`` a stale file may remain, which clients detect (nothing answers)
and the next owner removes. Standard library only: thin clients import this module.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import NamedTuple

ENDPOINT_NAME = "daemon.json"
LOG_NAME = "daemon.log"


# A NamedTuple, not a dataclass: every hook process reads the endpoint, and ``dataclasses``
# (with the ``inspect`` it imports) would cost it ~15 ms of imports for one small record.
class Endpoint(NamedTuple):
    pid: int
    host: str
    port: int
    token: str
    home: str
    vault: str | None = None
    started_at: float = 0.0
    version: str = ""

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"


def endpoint_path(home: Path) -> Path:
    return Path(home) / ENDPOINT_NAME


def read_endpoint(home: Path) -> Endpoint | None:
    """The endpoint a daemon wrote, or None when there is none (or it is unreadable)."""
    try:
        data = json.loads(endpoint_path(home).read_text(encoding="utf-8"))
        return Endpoint(**{k: data[k] for k in Endpoint._fields if k in data})
    except (OSError, ValueError, TypeError, KeyError):
        return None


def write_endpoint(home: Path, ep: Endpoint) -> Path:
    """Write atomically with mode 0600 from the start (the token is never world-readable, not
    even for an instant): a unique temp file created 0600, fsync, rename."""
    path = endpoint_path(home)
    tmp = path.with_name(f".{ENDPOINT_NAME}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_EXCL, 0o600)
    try:
        os.write(fd, json.dumps(ep._asdict(), indent=1).encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    return path


def remove_endpoint(home: Path, pid: int | None = None) -> bool:
    """Remove the endpoint file (only if it names ``pid``, when given)."""
    path = endpoint_path(home)
    if pid is not None:
        ep = read_endpoint(home)
        if ep is not None and ep.pid != pid:
            return False
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
        return True
    return False


def pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (exited, not yet reaped by its parent) is not a live daemon.
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True
