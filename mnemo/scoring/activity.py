"""Activity days (MIRA seed): a day counts when the store is used (a save, recall or touch).

Decay measured in activity days does not run while nobody uses the store, so a holiday does not
age memories. ``ActivityCalendar`` answers "how many activity days between two times" from one
sorted list of days, so scoring a batch of memories costs one query, not one per memory.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable

from ..clock import day_of


class ActivityCalendar:
    """The store's activity days (UTC dates, ``YYYY-MM-DD``), loaded once."""

    def __init__(self, days: Iterable[str]) -> None:
        self.days = sorted(set(days))

    @classmethod
    def of(cls, store) -> ActivityCalendar:  # noqa: ANN001 - any object with activity_day_list()
        return cls(store.activity_day_list())

    def between(self, start: float, end: float) -> int:
        """Activity days strictly after ``start``'s day, up to and including ``end``'s day (the
        same count as ``Store.activity_days_between``)."""
        if end <= start:
            return 0
        lo = bisect_right(self.days, day_of(start))
        hi = bisect_right(self.days, day_of(end))
        return max(0, hi - lo)
