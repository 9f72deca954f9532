"""Score stored memories: measure their times against the store's clocks, then apply the pure
scoring functions. One batch costs a fixed handful of queries (activity days, uses, inbound
links, entity counts) whatever its size, so ``gc`` over thousands of memories stays cheap."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..scoring.activity import ActivityCalendar
from ..scoring.importance import ImportanceFactors, importances
from ..scoring.retention import RetentionFactors, RetentionParams, memory_factors
from ..scoring.review_priority import DANGER_MAX, DANGER_MIN, rank_reviews, review_priority
from .demotion import demotions_of
from .eligibility import PromotionRule, promotion_decision, uses_in_window

if TYPE_CHECKING:
    from ..core import Core
    from ..models import Memory


@dataclass(frozen=True)
class Assessment:
    memory_id: str
    layer: str  # the layer the memory is in now (working may already have become episodic)
    factors: RetentionFactors
    importance_factors: ImportanceFactors
    window_uses: int
    eligible: bool
    why: str
    review_priority: float

    @property
    def retention(self) -> float:
        return self.factors.retention

    @property
    def importance(self) -> float:
        return self.importance_factors.importance


def assess(core: Core, memories: list[Memory], now: float | None = None,
           calendar: ActivityCalendar | None = None, entities: dict[str, int] | None = None) -> dict[str, Assessment]:
    if not memories:
        return {}
    now = core.now() if now is None else now
    s = core.settings.scoring
    calendar = calendar or ActivityCalendar(core.store.activity_day_list())
    params = RetentionParams.from_settings(s)
    rule = PromotionRule.from_settings(s)
    low, high = getattr(s, "review_min", DANGER_MIN), getattr(s, "review_max", DANGER_MAX)
    ids = [m.id for m in memories]
    window = core.store.use_times_many(ids, since=now - rule.window_days * 86400.0)
    demoted = demotions_of(core.store, ids)
    imps = importances(memories, now, calendar, core.store.use_times_many(ids), core.store.inbound_counts(ids),
                       core.store.entity_counts() if entities is None else entities)
    out: dict[str, Assessment] = {}
    for m in memories:
        f = memory_factors(m, now, calendar, params)
        imp = imps[m.id]
        times, uses = window.get(m.id, []), m.use_count
        if m.id in demoted:  # a person's demotion: only the uses made after it count
            at, uses = demoted[m.id]
            times = [t for t in times if t > at]
        wu = uses_in_window(times, now, rule.window_days)
        ok, why = promotion_decision(status=m.status.value, layer=f.layer, use_count=uses, retention=f.retention,
                                     window_uses=wu, importance=imp.importance, rule=rule, demoted=m.id in demoted)
        out[m.id] = Assessment(m.id, f.layer, f, imp, wu, ok, why, review_priority(f.retention, low, high))
    return out


def explain(core: Core, memory: Memory, now: float | None = None) -> dict[str, Any]:
    """Every factor of a memory's scores, the clock each one used, and what the lifecycle
    rules make of them."""
    from ..clock import iso

    now = core.now() if now is None else now
    s = core.settings.scoring
    a = assess(core, [memory], now)[memory.id]
    r = a.retention
    return {
        "id": memory.id,
        "now": iso(now),
        "status": memory.status.value,
        "layer": memory.layer.value,
        "effective_layer": a.layer,
        "type": memory.type.value,
        "source": memory.source.value,
        "pinned": memory.pinned,
        "use_count": memory.use_count,
        "strength": memory.strength,
        "created_at": iso(memory.created_at),
        "last_used": iso(memory.last_used),
        "retention": r,
        "importance": a.importance,
        "retention_factors": a.factors.to_dict(),
        "importance_factors": a.importance_factors.to_dict(),
        "review_priority": a.review_priority,
        "promotion": {
            "eligible": a.eligible,
            "why": a.why,
            "uses_in_window": a.window_uses,
            "window_days": s.promote_window_days,
            "window_clock": "calendar time (use timestamps)",
        },
        "thresholds": {
            "promote": s.promote_threshold,
            "promote_importance": getattr(s, "promote_importance", 0.7),
            "forget": s.forget_threshold,
            "cold": s.cold_threshold,
        },
        "would_forget": (not memory.pinned) and memory.status.value == "active" and r < s.forget_threshold,
        "would_freeze": (not memory.pinned) and memory.status.value in ("active", "archived") and r < s.cold_threshold,
    }


def retentions(core: Core, memories: list[Memory], now: float | None = None) -> dict[str, float]:
    """Retention of each memory (id → R). One query (the activity days) for the whole batch,
    so recall can call it on every query."""
    if not memories:
        return {}
    now = core.now() if now is None else now
    calendar = ActivityCalendar(core.store.activity_day_list())
    params = RetentionParams.from_settings(core.settings.scoring)
    return {m.id: memory_factors(m, now, calendar, params).retention for m in memories}


def review_queue(core: Core, limit: int = 20, now: float | None = None) -> list[tuple[Memory, float]]:
    """Active memories in the danger zone, highest priority first (ties: the older last use
    first). Pinned memories are included: pinning stops forgetting, not reviewing."""
    now = core.now() if now is None else now
    s = core.settings.scoring
    low, high = getattr(s, "review_min", DANGER_MIN), getattr(s, "review_max", DANGER_MAX)
    scored: list[tuple[Memory, float]] = []
    for batch in core.store.iter_memories(batch=1000, status=("active",)):
        r = retentions(core, batch, now)
        scored += [(m, review_priority(r[m.id], low, high)) for m in batch]
    return rank_reviews(scored, limit)
