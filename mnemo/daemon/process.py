"""Managing the daemon from another process: ``start`` (in the background, returning once it
answers), ``stop`` (graceful) and ``status``. Light: these are client-side commands and import
neither the engine's heavy parts nor the server.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ..errors import DaemonError, LockedError
from ..lock import OwnerLock
from .endpoint import LOG_NAME, pid_alive, read_endpoint


def _client(home: Path) -> Any:
    from ..client import RemoteMnemo

    return RemoteMnemo.connect(home)


def log_tail(home: Path, lines: int = 20) -> list[str]:
    try:
        text = (home / LOG_NAME).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return text.splitlines()[-lines:]


def _failure_reason(tail: list[str]) -> str | None:
    """The daemon's own explanation (``Error: ...`` from the CLI) in the log, if any."""
    for line in reversed(tail):
        if line.startswith("Error: "):
            return line[len("Error: "):]
    return None


def spawn_daemon(home: Path, vault: Path | None = None, now: str | None = None,
                 extra_env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """Start ``mnemo daemon run`` detached (its own session, output to the daemon's log) and
    return at once; ``start_daemon`` waits for it to answer."""
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    cmd = [sys.executable, "-m", "mnemo", "--home", str(home)]
    if vault is not None:
        cmd += ["--vault", str(vault)]
    if now:
        cmd += ["--now", now]
    cmd += ["daemon", "run", "--background"]
    return spawn_detached(cmd, home / LOG_NAME, extra_env)


def spawn_detached(cmd: list[str], log_path: Path, extra_env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """Run ``cmd`` in its own session, outliving the caller, its output appended to ``log_path``."""
    env = {**os.environ, **(extra_env or {})}
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        return subprocess.Popen(  # noqa: S603 - our own interpreter and module
            cmd, stdin=subprocess.DEVNULL, stdout=fd, stderr=fd, env=env, start_new_session=True, close_fds=True,
        )
    finally:
        os.close(fd)


def start_daemon(home: Path, vault: Path | None = None, now: str | None = None, timeout: float = 120.0,
                 extra_env: dict[str, str] | None = None) -> dict[str, Any]:
    """Start ``mnemo daemon run`` detached and wait until it answers. Refuses (LockedError) when
    a daemon already runs for this home or another process owns it."""
    home = Path(home)
    running = _client(home)
    if running is not None:
        ep = running.endpoint
        raise LockedError(
            f"a mnemo daemon is already running for {home} (pid {ep.pid}, {ep.url})",
            hint="`mnemo daemon status` shows it; `mnemo daemon stop` stops it",
        )
    if OwnerLock.is_held(home):
        holder = OwnerLock(home).holder()
        kind, pid = holder.get("kind", "another process"), holder.get("pid", "?")
        if kind == "daemon":
            raise LockedError(f"a mnemo daemon (pid {pid}) is starting or busy for {home} but does not answer yet",
                              hint="wait a few seconds and run `mnemo daemon status`")
        raise LockedError(f"{home} is in use by a mnemo {kind} command (pid {pid})",
                          hint="wait for it to finish, then start the daemon")
    proc = spawn_daemon(home, vault, now, extra_env)
    log_path = home / LOG_NAME
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        code = proc.poll()
        if code is not None:
            tail = log_tail(home)
            reason = _failure_reason(tail) or (tail[-1] if tail else f"exit code {code}")
            raise DaemonError(f"the daemon did not start: {reason}", hint=f"see {log_path}")
        client = _client(home)
        if client is not None and client.endpoint.pid == proc.pid:
            ep = client.endpoint
            return {"started": True, "pid": ep.pid, "url": ep.url, "home": ep.home, "vault": ep.vault,
                    "log": str(log_path)}
        time.sleep(0.1)
    raise DaemonError(f"the daemon (pid {proc.pid}) did not become ready within {timeout:.0f}s",
                      hint=f"it may still be loading; see `mnemo daemon status` and {log_path}")


def stop_daemon(home: Path, timeout: float = 60.0) -> dict[str, Any]:
    """Ask the daemon to stop and wait until it has released the home."""
    home = Path(home)
    client = _client(home)
    if client is not None:
        pid = client.endpoint.pid
        client.shutdown()
    else:
        holder = OwnerLock(home).holder() if OwnerLock.is_held(home) else {}
        if holder.get("kind") != "daemon" or not pid_alive(int(holder.get("pid", 0))):
            raise DaemonError(f"no mnemo daemon is running for {home}", hint="start one with `mnemo daemon start`")
        pid = int(holder["pid"])
        os.kill(pid, signal.SIGTERM)  # it holds the lock but does not answer (still starting?)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not pid_alive(pid) or not OwnerLock.is_held(home):
            # the lock is released as the very last step; wait for the process to go too
            end = time.monotonic() + 5
            while pid_alive(pid) and time.monotonic() < end:
                time.sleep(0.05)
            return {"stopped": True, "pid": pid}
        time.sleep(0.05)
    raise DaemonError(f"the daemon (pid {pid}) did not stop within {timeout:.0f}s",
                      hint="it may be finishing a long operation; `kill -TERM` it again or wait")


def daemon_status(home: Path) -> dict[str, Any]:
    """The running daemon's status, or why there is none."""
    home = Path(home)
    client = _client(home)
    if client is not None:
        return {"running": True, **client.daemon_status()}
    out: dict[str, Any] = {"running": False, "home": str(home)}
    if OwnerLock.is_held(home):
        holder = OwnerLock(home).holder()
        out["owner"] = holder
        out["why"] = ("a daemon holds the home but does not answer yet (starting?)" if holder.get("kind") == "daemon"
                      else f"a mnemo {holder.get('kind', '')} command holds the home")
    elif read_endpoint(home) is not None:
        out["why"] = "a stale endpoint file remains from a daemon that did not stop cleanly"
    else:
        out["why"] = "no daemon is running"
    return out
