"""Reinforcement: a use of a memory (touch, recall, observe)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from ..models import Memory

if TYPE_CHECKING:
    from ..engine import Mnemo

STRENGTH_CAP = 2.0
CROSS_DOMAIN_BOOST = 0.1
CROSS_DOMAIN_JACCARD = 0.3


def is_cross_domain(memory_tags: Sequence[str], context_tags: Sequence[str]) -> bool:
    """Mnemex: Jaccard(memory tags, context tags) < 0.3 means the memory is used in another
    domain. Without tags on either side nothing can be said, so it is not cross-domain."""
    a, b = set(memory_tags), set(context_tags)
    if not a or not b:
        return False
    return len(a & b) / len(a | b) < CROSS_DOMAIN_JACCARD


def reinforced(m: Memory, now: float, cross_domain: bool = False, review: bool = False) -> Memory:
    strength = min(STRENGTH_CAP, m.strength + CROSS_DOMAIN_BOOST) if cross_domain else m.strength
    return replace(
        m,
        use_count=m.use_count + 1,
        last_used=now,
        strength=strength,
        cross_domain_count=m.cross_domain_count + int(cross_domain),
        review_count=m.review_count + int(review),
        last_review_at=now if review else m.last_review_at,
    )


def reinforce(
    engine: Mnemo, ids: Sequence[str], context_tags: Sequence[str] | None = None, kind: str = "touch"
) -> list[Memory]:
    now = engine.now()
    found = engine.store.get_memories(ids)
    out: list[Memory] = []
    with engine.write_lock, engine.store.tx():
        for mid in ids:
            m = found.get(mid)
            if m is None:
                continue
            cross = is_cross_domain(m.tags, context_tags or ())
            new = reinforced(m, now, cross_domain=cross, review=kind == "observe")
            engine.store.update_memory(new)
            out.append(new)
        engine.store.add_uses(
            (m.id, now, kind, json.dumps({"tags": list(context_tags)}) if context_tags else None) for m in out
        )
        engine.store.mark_activity(now)
    return out
