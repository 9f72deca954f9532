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


# Times must fit a calendar date (day_of, iso): 1970-01-01 .. 9999-12-31 UTC.
MIN_TIME = 0.0
MAX_TIME = 253402300799.0


def _in_range(ts: float, value: object) -> float:
    if not (MIN_TIME <= ts <= MAX_TIME):  # also false for NaN
        raise InvalidInput(
            f"time {value!r} is out of range", hint="give a time from 1970-01-01 to 9999-12-31, e.g. 2026-03-01T09:30:00Z"
        )
    return ts


def parse_time(value: str | float | int | datetime) -> float:
    """ISO-8601 (``2026-01-02``, ``2026-01-02T10:00``, with or without zone; naive = UTC) or
    UNIX seconds → UNIX seconds, between 1970 and 9999 (NaN, infinities and booleans are refused)."""
    if isinstance(value, datetime):
        dt = value if value.tzinfo else value.replace(tzinfo=UTC)
        return _in_range(dt.timestamp(), value)
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise InvalidInput(f"not a time: {value!r}", hint="use an ISO-8601 text such as 2026-03-01T09:30:00Z")
    if isinstance(value, int | float):
        return _in_range(float(value), value)
    text = str(value).strip()
    try:
        return _in_range(float(text), value)
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
    return _in_range(dt.timestamp(), value)


def iso(ts: float | None) -> str | None:
    if ts is None:
        return None
    return datetime.fromtimestamp(ts, tz=UTC).isoformat().replace("+00:00", "Z")


def note_time(ts: float) -> str:
    """A time as a note's property shows it: ISO 8601 UTC to the second (``2026-03-02T09:00:00Z``,
    NOTE-FORMAT.md). Microseconds are noise to a person reading the properties."""
    return datetime.fromtimestamp(ts, tz=UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


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
