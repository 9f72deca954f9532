"""Injectable time.

Every command reads "now" from a Clock so tests, simulations and benchmarks can set it
(``--now`` / ``MNEMO_NOW``). Times in the store are UNIX seconds (float, UTC).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime

from .errors import InvalidInput

DAY = 86400.0


def parse_time(value: str | float | int | datetime) -> float:
    """ISO-8601 (``2026-01-02``, ``2026-01-02T10:00``, with or without zone; naive = UTC) or
    UNIX seconds → UNIX seconds."""
    if isinstance(value, datetime):
        dt = value if value.tzinfo else value.replace(tzinfo=UTC)
        return dt.timestamp()
    if isinstance(value, int | float):
        return float(value)
    text = str(value).strip()
    try:
        return float(text)
    except ValueError:
        pass
    try:
        dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise InvalidInput(
            f"not an ISO-8601 time: {value!r}", hint="use e.g. 2026-03-01 or 2026-03-01T09:30:00Z"
        ) from exc
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.timestamp()


def iso(ts: float | None) -> str | None:
    if ts is None:
        return None
    return datetime.fromtimestamp(ts, tz=UTC).isoformat().replace("+00:00", "Z")


def day_of(ts: float) -> str:
    """The activity-day key (UTC calendar date) of a timestamp."""
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%d")


@dataclass
class Clock:
    """Real time, or a fixed start that either stays put (CLI commands: every read of "now"
    in one command agrees) or runs on from the start (the daemon, so schedules advance)."""

    start: float | None = None
    running: bool = False
    _t0: float = field(default_factory=time.monotonic, repr=False)

    def now(self) -> float:
        if self.start is None:
            return time.time()
        if self.running:
            return self.start + (time.monotonic() - self._t0)
        return self.start

    def set(self, ts: float) -> None:
        """Move a fixed clock (simulations drive time through this)."""
        self.start = ts
        self._t0 = time.monotonic()

    def advance(self, seconds: float) -> None:
        self.set(self.now() + seconds)

    @property
    def fixed(self) -> bool:
        return self.start is not None
