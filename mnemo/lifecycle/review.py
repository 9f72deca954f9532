"""The review queue as the core serves it: memories in the danger zone with their priority
(pure priority and queue in ``scoring.review_priority``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import InvalidInput
from .assess import retentions, review_queue

if TYPE_CHECKING:
    from ..core import Core


def review(core: Core, limit: int = 20) -> list[dict[str, Any]]:
    if not isinstance(limit, int) or limit < 1:
        raise InvalidInput("limit must be a positive whole number")
    now = core.now()
    queue = review_queue(core, limit=limit, now=now)
    r = retentions(core, [m for m, _ in queue], now)
    return [
        {"memory": m.to_dict(), "priority": round(p, 6), "retention": round(r[m.id], 6)}
        for m, p in queue
    ]
