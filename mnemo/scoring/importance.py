"""Importance (MIRA seed): how much a memory matters, whatever its recency.

    importance = sigmoid(raw - 2),  sigmoid(x) = 1 / (1 + e^(-x))
    raw = (value + hub + entity_hub + mention + newness + base + actr)
          × recency × temporal × expiration

MIRA's terms, with its numbers:
    value      = ln(1 + (effective_access / max(7, age)) / 0.02) × 0.8
    effective_access = access_count × 0.95^(activity days since the last access)
    recency    = 1 / (1 + activity days since the last access × 0.015)    (~67-day half-life)
    newness    = max(0, 2.0 - age × 0.033)        (the seed's "15 activity-day grace": the boost
                                                   still holds 1.5 of 2.0 at day 15, 0 by ~day 60)
    hub        = 0.04 per inbound link up to 10, then 0.4 + 0.4·ln(1 + (n-10)/10)
                 (same slope at 10, diminishing after)
    temporal   = 2.0 within 24 h of the event, 1.5 within a week before it, 1.2 within two
    expiration = 1 until expiry, then linear to 0 over 5 calendar days

mnemo's terms for what the seed names without a formula:
    entity_hub = min(0.4, 0.02 × Σ over the memory's entities of min(10, other memories naming it))
    mention    = min(1.0, 0.25 × ln(1 + times it was observed in use))
    base       = 2 × (base importance − 0.5)  (the stored importance, moved by surprise at write;
                                               the default 0.5 adds nothing)
    actr       = 0.5 × ACT-R recall probability from the use timestamps (layered-lifecycle seed)

The sum is floored at 0 before the multipliers. A fresh memory (newness 2.0, nothing else) sits
at sigmoid(0) = 0.5. Clocks: ages and idle times in activity days; event and expiry in calendar
time.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from ..clock import DAY
from .actr import base_level_activation, recall_probability

if TYPE_CHECKING:
    from ..models import Memory
    from .activity import ActivityCalendar

ACCESS_DECAY = 0.95
HUB_PER_LINK = 0.04
HUB_LINEAR_LINKS = 10


def sigmoid(x: float) -> float:
    if x < -60:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))


def effective_access(access_count: int, idle_activity_days: float, rate: float = ACCESS_DECAY) -> float:
    """MIRA: ``access_count × 0.95^(activity days idle)`` — 5% momentum lost per activity day.
    10 uses idle 20 activity days → 3.58."""
    return max(0, access_count) * rate ** max(0.0, idle_activity_days)


def value_score(eff_access: float, age_days: float) -> float:
    """MIRA: ``ln(1 + (effective_access / max(7, age_days)) / 0.02) × 0.8`` (age in activity days)."""
    return math.log1p((eff_access / max(7.0, age_days)) / 0.02) * 0.8


def recency_boost(idle_activity_days: float) -> float:
    """MIRA: ``1 / (1 + activity days since access × 0.015)``."""
    return 1.0 / (1.0 + max(0.0, idle_activity_days) * 0.015)


def newness_boost(age_days: float) -> float:
    """MIRA: ``max(0, 2.0 - age_days × 0.033)`` (age in activity days)."""
    return max(0.0, 2.0 - max(0.0, age_days) * 0.033)


def hub_score(inbound_links: int) -> float:
    """MIRA: 0.04 per inbound link up to 10; beyond, ``0.4 + 0.4·ln(1 + (n - 10)/10)``."""
    n = max(0, inbound_links)
    if n <= HUB_LINEAR_LINKS:
        return HUB_PER_LINK * n
    cap = HUB_PER_LINK * HUB_LINEAR_LINKS
    return cap + cap * math.log1p((n - HUB_LINEAR_LINKS) / HUB_LINEAR_LINKS)


def entity_hub_score(peer_counts: list[int] | tuple[int, ...]) -> float:
    """``min(0.4, 0.02 × Σ_e min(10, peers_e))``: a memory naming entities many other memories
    name is a hub of the entity graph."""
    return min(0.4, 0.02 * sum(min(10, max(0, p)) for p in peer_counts))


def mention_score(mentions: int) -> float:
    """``min(1.0, 0.25 × ln(1 + mentions))``: explicit use in conversation (observe)."""
    return min(1.0, 0.25 * math.log1p(max(0, mentions)))


def temporal_multiplier(event_at: float | None, now: float) -> float:
    """MIRA: 2.0 within 24 h of the event (either side), 1.5 when it is within a week ahead, 1.2
    within two weeks ahead, else 1.0. Clock: calendar seconds."""
    if event_at is None:
        return 1.0
    ahead = event_at - now
    if abs(ahead) <= DAY:
        return 2.0
    if 0 < ahead <= 7 * DAY:
        return 1.5
    if 0 < ahead <= 14 * DAY:
        return 1.2
    return 1.0


def expiration_trailoff(expires_at: float | None, now: float, days: float = 5.0) -> float:
    """MIRA: 1 until expiry, then linear to 0 over 5 calendar days."""
    if expires_at is None or now <= expires_at:
        return 1.0
    return max(0.0, 1.0 - (now - expires_at) / (days * DAY))


def base_term(base_importance: float) -> float:
    return 2.0 * (base_importance - 0.5)


@dataclass(frozen=True)
class ImportanceFactors:
    importance: float
    raw: float
    value: float
    effective_access: float
    hub: float
    entity_hub: float
    mention: float
    newness: float
    base: float
    actr: float
    actr_activation: float | None
    recency: float
    temporal: float
    expiration: float
    access_count: int
    inbound_links: int
    idle_activity_days: float
    age_activity_days: float
    clocks: dict[str, str]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


CLOCKS = {
    "effective_access": "activity days since the last use",
    "recency": "activity days since the last use",
    "value": "activity days since creation",
    "newness": "activity days since creation",
    "actr": "activity days since each use (+1)",
    "temporal": "calendar time to the event",
    "expiration": "calendar days after expiry",
}


def importance_factors(
    *,
    access_count: int,
    idle_days: float,
    age_days: float,
    now: float = 0.0,
    inbound_links: int = 0,
    entity_peers: list[int] | tuple[int, ...] = (),
    mentions: int = 0,
    base_importance: float = 0.5,
    use_ages: list[float] | tuple[float, ...] = (),
    event_at: float | None = None,
    expires_at: float | None = None,
) -> ImportanceFactors:
    """Importance and its factors (formula in the module docstring). Pure: ``idle_days``,
    ``age_days`` and ``use_ages`` in activity days; ``now``, ``event_at``, ``expires_at`` in
    UNIX seconds."""
    eff = effective_access(access_count, idle_days)
    value = value_score(eff, age_days)
    hub = hub_score(inbound_links)
    ent = entity_hub_score(entity_peers)
    men = mention_score(mentions)
    new = newness_boost(age_days)
    base = base_term(base_importance)
    act = base_level_activation(use_ages)
    actr = 0.5 * recall_probability(act)
    rec = recency_boost(idle_days)
    tmp = temporal_multiplier(event_at, now)
    exp_ = expiration_trailoff(expires_at, now)
    raw = max(0.0, value + hub + ent + men + new + base + actr) * rec * tmp * exp_
    return ImportanceFactors(
        importance=sigmoid(raw - 2.0), raw=raw, value=value, effective_access=eff, hub=hub, entity_hub=ent,
        mention=men, newness=new, base=base, actr=actr, actr_activation=act, recency=rec, temporal=tmp,
        expiration=exp_, access_count=int(access_count), inbound_links=int(inbound_links),
        idle_activity_days=float(idle_days), age_activity_days=float(age_days), clocks=dict(CLOCKS),
    )


def importance(**kwargs: Any) -> float:
    return importance_factors(**kwargs).importance


def importances(memories: list[Memory], now: float, calendar: ActivityCalendar, uses: dict[str, list[float]],
                inbound: dict[str, int], entities: dict[str, int]) -> dict[str, ImportanceFactors]:
    """Importance factors of each memory from what was measured of it: ``uses`` (id → use
    times), ``inbound`` (id → inbound links) and ``entities`` (entity → live memories naming it)."""
    out: dict[str, ImportanceFactors] = {}
    for m in memories:
        last = m.last_used if m.last_used is not None else m.created_at
        mine = m.status.value in ("active", "promoted")
        peers = [entities.get(e, 0) - (1 if mine else 0) for e in m.fingerprint.entities]
        out[m.id] = importance_factors(
            access_count=m.use_count,
            idle_days=calendar.between(last, now),
            age_days=calendar.between(m.created_at, now),
            now=now,
            inbound_links=inbound.get(m.id, 0),
            entity_peers=peers,
            mentions=m.review_count,
            base_importance=m.importance,
            use_ages=[calendar.between(t, now) + 1.0 for t in uses.get(m.id, []) if t <= now],
            event_at=m.event_at,
            expires_at=m.expires_at,
        )
    return out
