"""Natural spaced repetition (Mnemex seed): the danger zone and the review queue.

A memory whose retention sits in the danger zone (0.15–0.35 by default) is about to be forgotten
but still worth saving; surfacing it in a relevant recall and having it used reinforces it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..models import Memory

DANGER_MIN = 0.15
DANGER_MAX = 0.35


def review_priority(retention: float, low: float = DANGER_MIN, high: float = DANGER_MAX) -> float:
    """Inverted parabola over the danger zone (Mnemex seed):
    ``x = (R - low) / (high - low)``, ``priority = 1 - 4·(x - 0.5)²`` inside [low, high], 0
    outside. Peak 1.0 at the midpoint (0.25), 0 at both edges. Clock: none (a function of R)."""
    if high <= low:
        raise ValueError("the danger zone needs low < high")
    if retention < low or retention > high:
        return 0.0
    x = (retention - low) / (high - low)
    return max(0.0, min(1.0, 1.0 - 4.0 * (x - 0.5) ** 2))


def rank_reviews(prioritised: Iterable[tuple[Memory, float]], limit: int = 20) -> list[tuple[Memory, float]]:
    """The ``limit`` memories of (memory, review priority) pairs worth a review, highest
    priority first (ties: the older last use first)."""
    out = [(m, p) for m, p in prioritised if p > 0.0]
    out.sort(key=lambda mp: (-mp[1], mp[0].last_used or mp[0].created_at, mp[0].id))
    return out[: max(0, limit)]
