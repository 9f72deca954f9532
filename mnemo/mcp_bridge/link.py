"""The bridge's connection to the daemon.

``DaemonLink`` finds the daemon that owns ``MNEMO_HOME``, starts one when none runs, and
forwards one operation at a time over the daemon's JSON API (through ``client.RemoteMnemo``).

Several bridges may start at the same moment (MCP clients often start two copies of every
server). Each one may try to start a daemon; the owner lock lets exactly one of them become
the owner, and the others see the lock held by a daemon and wait for it to answer. So they all
end up talking to the same process.

Standard library only (plus mnemo's light client modules): the bridge must never pay for the
model stack.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import DaemonError, LockedError, MnemoError

log = logging.getLogger("mnemo.mcp")

POLL = 0.1  # seconds between checks while a daemon is starting


class OperationUnavailable(MnemoError):
    """The daemon does not provide an operation a tool needs (an older or partial install)."""

    code = "unavailable"
    http_status = 501


@dataclass
class DaemonLink:
    home: Path
    vault: Path | None = None
    now: str | None = None
    start_timeout: float = 120.0
    autostart: bool = True
    _client: Any = field(default=None, repr=False)
    _clock: Any = field(default=None, repr=False)
    _ops: dict[str, Any] | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    started_pid: int | None = None  # set when this bridge started the daemon it uses

    # -- finding or starting the daemon -----------------------------------------------------
    def connect(self) -> Any:
        """The daemon's client: the one already known if it still answers, else find one, else
        start one (when ``autostart``). Raises ``DaemonError``/``LockedError`` with a message
        the model can relay when there is no daemon to talk to."""
        with self._lock:
            client = self._client
            if client is not None and client.ping(timeout=2.0):
                return client
            self._client, self._ops = None, None
            client = self._find_or_start()
            if self.now:
                # The bridge's MNEMO_NOW goes with every call (a daemon already running keeps its
                # own clock): it starts there and runs on, as the daemon's clock would.
                if self._clock is None:
                    from ..clock import Clock, parse_time

                    self._clock = Clock(parse_time(self.now), running=True)
                client.clock = self._clock
            self._client = client
            ep = client.endpoint
            log.info("using the daemon pid %s at %s", ep.pid, ep.url)
            if self.vault is not None and ep.vault != str(self.vault):
                log.warning("the running daemon serves the vault %s, not %s; restart it to change the vault", ep.vault, self.vault)
            return client

    def _find_or_start(self) -> Any:
        from ..client import RemoteMnemo

        client = RemoteMnemo.connect(self.home)
        if client is not None:
            return client
        if not self.autostart:
            raise DaemonError(
                f"no mnemo daemon is running for {self.home}",
                hint="start it with `mnemo daemon start`",
            )
        from ..daemon.process import start_daemon

        try:
            info = start_daemon(self.home, vault=self.vault, now=self.now, timeout=self.start_timeout)
        except (LockedError, DaemonError) as exc:
            # Another bridge (or a `mnemo daemon start`) may have won the race to own the home:
            # then its daemon holds the lock and will answer shortly.
            client = self._wait_for_daemon(exc)
            if client is None:
                raise
            return client
        self.started_pid = int(info["pid"])
        log.info("started the daemon (pid %s, log %s)", info["pid"], info.get("log"))
        client = RemoteMnemo.connect(self.home)
        if client is None:  # it answered start_daemon a moment ago
            raise DaemonError(f"the daemon started for {self.home} stopped answering", hint=f"see {self.home / 'daemon.log'}")
        return client

    def _wait_for_daemon(self, why: MnemoError) -> Any:
        """Wait for a daemon that another process is starting; None when no daemon holds the
        home (the failure was real, not a lost race)."""
        from ..client import RemoteMnemo
        from ..daemon.endpoint import pid_alive
        from ..lock import OwnerLock

        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            client = RemoteMnemo.connect(self.home)
            if client is not None:
                log.info("another process started the daemon (pid %s)", client.endpoint.pid)
                return client
            held = OwnerLock.is_held(self.home)
            holder = OwnerLock(self.home).holder() if held else {}
            if not held or holder.get("kind") != "daemon" or not pid_alive(int(holder.get("pid") or 0)):
                # No daemon owns the home (or a CLI command does): `why` was a real failure.
                # One last look, in case the owner became ready between the two checks.
                return RemoteMnemo.connect(self.home)
            time.sleep(POLL)
        log.warning("gave up waiting for the daemon after %.0fs: %s", self.start_timeout, why.message)
        return None

    # -- operations ---------------------------------------------------------------------------
    def operations(self, client: Any) -> dict[str, Any]:
        """The operations the connected daemon serves (cached per daemon)."""
        ops = self._ops
        if ops is None or ops.get("_pid") != client.endpoint.pid:
            listed = client.operations()  # {op: {"mutating": ..., "params": ...}}
            ops = {"_pid": client.endpoint.pid, **listed}
            self._ops = ops
        return ops

    def has(self, op: str) -> bool:
        return op in self.operations(self.connect())

    def call(self, op: str, **kwargs: Any) -> Any:
        """Run one daemon operation with the given keyword arguments (``None`` values are left
        out, so the engine's defaults apply); returns its plain JSON result."""
        from ..client import ConnectionLost

        args = {k: v for k, v in kwargs.items() if v is not None}
        for attempt in range(2):
            client = self.connect()
            ops = self.operations(client)
            if op not in ops:
                raise OperationUnavailable(
                    f"this mnemo daemon does not provide the `{op}` operation",
                    hint="this mnemo version lacks the feature; update mnemo and restart the daemon (`mnemo daemon stop`)",
                )
            try:
                return client.call(op, args)
            except ConnectionLost:
                raise
            except DaemonError as exc:
                # The request never reached a working daemon (it stopped, or is stopping):
                # nothing ran, so it is safe to find or start the daemon again and retry once.
                if attempt or client.ping(timeout=1.0):
                    raise
                log.warning("the daemon went away (%s); reconnecting", exc.message)
                with self._lock:
                    self._client, self._ops = None, None
        raise AssertionError("unreachable")

    def warm_up(self) -> None:
        """Find or start the daemon now (on a background thread), so the first tool call does
        not wait for it. Failures are only logged: the next tool call tries again and reports."""
        try:
            self.connect()
        except MnemoError as exc:
            log.warning("no daemon yet: %s", exc.message)
        except Exception:  # noqa: BLE001 - a background thread must not die noisily
            log.exception("finding the daemon failed")

    def identity(self) -> dict[str, Any]:
        """Which daemon this bridge talks to (for `stats`)."""
        client = self.connect()
        ep = client.endpoint
        return {"pid": ep.pid, "url": ep.url, "home": ep.home, "vault": ep.vault, "version": ep.version,
                "started_by_this_bridge": ep.pid == self.started_pid}
