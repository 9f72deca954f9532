"""Reinforcement: a use of a memory (touch, recall, observe)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from ..models import Layer, Memory

if TYPE_CHECKING:
    from ..core import Core

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


def reinforced(m: Memory, now: float, cross_domain: bool = False, review: bool = False,
               boost: float = CROSS_DOMAIN_BOOST, cap: float = STRENGTH_CAP, touch_boost: float = 0.0) -> Memory:
    """Mnemex: a use resets ``last_used``, adds a use and may add strength (``touch_boost``,
    0 by default); a cross-domain use adds ``boost`` (0.1). Strength never exceeds ``cap`` (2.0)
    and never drops. The working → episodic transition (2 uses) is applied here too."""
    from ..scoring.layers import next_layer

    strength = m.strength + touch_boost + (boost if cross_domain else 0.0)
    strength = max(m.strength, min(cap, strength))
    layer = Layer(next_layer(m.layer.value, now - m.created_at, m.use_count + 1))
    return replace(
        m,
        use_count=m.use_count + 1,
        last_used=now,
        strength=strength,
        layer=layer,
        cross_domain_count=m.cross_domain_count + int(cross_domain),
        review_count=m.review_count + int(review),
        last_review_at=now if review else m.last_review_at,
    )


def reinforce(
    core: Core, ids: Sequence[str], context_tags: Sequence[str] | None = None, kind: str = "touch",
    session_id: str | None = None,
) -> list[Memory]:
    """Reinforce ``ids`` now. Each use row's context records the context tags and the session
    the use happened in (the graph links what was recalled in a session to what is saved in it)."""
    now = core.now()
    s = core.settings.scoring
    out: list[Memory] = []
    moved: list[Memory] = []
    with core.write_lock, core.store.tx():
        # Read under the lock: two requests reinforcing one memory at once must add two uses.
        found = core.store.get_memories(ids)
        for mid in ids:
            m = found.get(mid)
            if m is None:
                continue
            cross = is_cross_domain(m.tags, context_tags or ())
            new = reinforced(m, now, cross_domain=cross, review=kind == "observe", boost=s.cross_domain_boost,
                             cap=s.strength_cap, touch_boost=s.touch_strength_boost)
            core.store.update_memory(new)
            out.append(new)
            if new.layer != m.layer and new.status.value != "cold":
                moved.append(new)
        context: dict[str, object] = {}
        if context_tags:
            context["tags"] = list(context_tags)
        if session_id:
            context["session_id"] = session_id
        core.store.add_uses((m.id, now, kind, json.dumps(context) if context else None) for m in out)
        core.store.mark_activity(now)
        # The layer is an index filter: Chroma's copy follows in one deferred write
        # (core/deferred.py), the dirty mark committed with this transaction.
        core.deferred_meta.add(core, (m.id for m in moved))
    return out
