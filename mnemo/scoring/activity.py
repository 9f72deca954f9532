"""Activity days (MIRA seed): a day counts when the store is used (a save, recall or touch).

Decay measured in activity days does not run while nobody uses the store, so a holiday does not
age memories. ``ActivityCalendar`` answers "how many activity days between two times" from one
sorted list of days, so scoring a batch of memories costs one query, not one per memory.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from datetime import date

from ..clock import DAY

_EPOCH = date(1970, 1, 1).toordinal()


def day_number(ts: float) -> int:
    """The UTC day of a timestamp as a whole number (UNIX time has no leap seconds, so this is
    the same day ``clock.day_of`` names, without formatting a date)."""
    return int(ts // DAY)


class ActivityCalendar:
    """The store's activity days (UTC dates, ``YYYY-MM-DD``), loaded once."""

    def __init__(self, days: Iterable[str]) -> None:
        self.days = sorted({date.fromisoformat(d).toordinal() - _EPOCH for d in days})

    def between(self, start: float, end: float) -> int:
        """Activity days strictly after ``start``'s day, up to and including ``end``'s day (the
        same count as ``Store.activity_days_between``)."""
        if end <= start:
            return 0
        lo = bisect_right(self.days, day_number(start))
        hi = bisect_right(self.days, day_number(end))
        return max(0, hi - lo)
