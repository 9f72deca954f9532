"""How a surface gets an engine: the running daemon's client when one owns the home, else an
in-process engine holding the owner lock. Both implement ``api.MnemoAPI``.

The order matters for the one-owner rule (design.md §2): a client never opens the store while
a daemon owns it. If the lock is held but nothing answers, the holder is either a daemon still
starting (we wait for it, briefly) or another in-process command (a clear ``LockedError``).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from .clock import Clock, parse_time
from .config import Settings
from .errors import LockedError

if TYPE_CHECKING:
    from .api import MnemoAPI
    from .client import RemoteMnemo

STARTING_WAIT = 30.0  # seconds to wait for a daemon that holds the lock but is still loading


def open_engine(settings: Settings, clock: Clock | None = None, embedder: Any = None, use_daemon: bool = True) -> MnemoAPI:
    """The daemon's client if a daemon answers for ``settings.home``, else an in-process engine.
    ``use_daemon=False`` (or an explicit embedder, as tests pass) forces in-process."""
    from .client import RemoteMnemo

    if clock is None and settings.now:
        clock = Clock(parse_time(settings.now))
    if use_daemon and embedder is None:
        remote = RemoteMnemo.connect(settings.home)
        if remote is not None:
            remote.clock = clock  # the daemon runs each of our calls at our time
            return remote
    from .engine import Mnemo

    for attempt in range(2):
        try:
            engine = Mnemo(settings, clock=clock, embedder=embedder)
            break
        except LockedError:
            remote = _wait_for_starting_daemon(settings) if use_daemon and embedder is None else None
            if remote is not None:
                remote.clock = clock
                return remote
            from .lock import OwnerLock

            if attempt or OwnerLock.is_held(settings.home):
                raise _locked(settings) from None
            # the holder just finished: try once more
    # We own the home: an endpoint file left by a daemon that was killed is stale.
    from .daemon.endpoint import remove_endpoint

    remove_endpoint(settings.home)
    return engine


def _wait_for_starting_daemon(settings: Settings) -> RemoteMnemo | None:
    from .client import RemoteMnemo
    from .daemon.endpoint import pid_alive
    from .lock import OwnerLock

    deadline = time.monotonic() + STARTING_WAIT
    while time.monotonic() < deadline:
        holder = OwnerLock(settings.home).holder()
        if holder.get("kind") != "daemon" or not pid_alive(int(holder.get("pid") or 0)):
            return None
        remote = RemoteMnemo.connect(settings.home)
        if remote is not None:
            return remote
        if not OwnerLock.is_held(settings.home):
            return None
        time.sleep(0.1)
    return None


def _locked(settings: Settings) -> LockedError:
    from .lock import OwnerLock

    holder = OwnerLock(settings.home).holder()
    kind, pid = holder.get("kind", "another process"), holder.get("pid", "?")
    if kind == "daemon":
        return LockedError(
            f"the mnemo home {settings.home} is owned by a daemon (pid {pid}) that does not answer",
            hint="it may be busy starting; check `mnemo daemon status`, or stop it with `mnemo daemon stop`",
        )
    return LockedError(
        f"the mnemo home {settings.home} is in use by another mnemo {kind} command (pid {pid})",
        hint="wait for it to finish, or run `mnemo daemon start` so that commands share one owner",
    )
