"""The one retention score in [0, 1] that promotion, forgetting, review and recall all use.

    R = M · D · L · η                                           (each factor in [0, 1])

    M = min(1, E / (1 + E) + ρ)       amplitude: evidence that the memory is worth keeping
        E = (n + 1)^β · s             Mnemex's reinforcement term (n uses, strength s ∈ [1, 2],
                                      β = 0.6); E/(1+E) bounds it: a fresh memory starts at 0.5
                                      (Mnemex would give it 1.0, above the promotion line)
        ρ = min(0.3, 0.1 · ln(1 + n)) access reinforcement, log-scaled, capped at +0.3
                                      (layered-lifecycle seed)
    D = decay(a, H · T)               recency: the configured decay model (exponential,
                                      power_law, two_component) under the retention mode
                                      (l2, huber, elastic); see ``decay.decay``
        a = activity days since the last use (since creation if never used)     [activity days]
        H = scoring.half_life_days (3; Mnemex)
        T = trust factor: human 1.0, ai 0.7, ingest 0.5, ÷3 if auto-extracted
    L = 2^(-g / (30 · T)) for episodic memories, else 1        age of an episode
        g = activity days since creation                                        [activity days]
    η = e^(-λ_type · c)               per-type decay (decision 0.001 … debug_log 0.5 per day)
        c = calendar days since creation                                        [calendar days]

Semantic and procedural memories have an infinite half-life: D = L = η = 1, so R = M.

Because only D depends on the idle time, R halves exactly over one half-life (l2 and huber; the
Huber knee is at two half-lives), never increases with idle time and never decreases with uses.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from ..clock import DAY
from . import decay as dk
from .activity import ActivityCalendar
from .layers import EPISODIC_HALF_LIFE_DAYS, is_permanent, layer_age_half_life, next_layer

if TYPE_CHECKING:
    from ..models import Memory


@dataclass(frozen=True)
class RetentionParams:
    half_life_days: float = 3.0
    beta: float = 0.6
    decay_model: str = "exponential"
    retention_mode: str = "huber"
    episodic_half_life_days: float = EPISODIC_HALF_LIFE_DAYS
    reinforcement_scale: float = 0.1
    reinforcement_cap: float = 0.3

    @classmethod
    def from_settings(cls, s: Any) -> RetentionParams:
        """From ``ScoringSettings`` (fields it lacks keep their defaults)."""
        return cls(**{k: getattr(s, k) for k in cls.__dataclass_fields__ if hasattr(s, k)})


def amplitude(use_count: int, strength: float = 1.0, beta: float = 0.6) -> float:
    """Mnemex's reinforcement term bounded to [0.5, 1): ``E/(1+E)``, ``E = (n+1)^β · s``."""
    e = (max(0, use_count) + 1) ** beta * max(0.0, strength)
    return e / (1.0 + e)


def access_reinforcement(use_count: int, scale: float = 0.1, cap: float = 0.3) -> float:
    """Layered-lifecycle seed: each use strengthens retention, log-scaled and capped:
    ``ρ = min(cap, scale · ln(1 + n))`` (+0.3 at most)."""
    return min(cap, scale * math.log1p(max(0, use_count)))


@dataclass(frozen=True)
class RetentionFactors:
    """Every factor of one retention value, and the clock each one used."""

    retention: float
    amplitude: float
    evidence: float
    evidence_bounded: float
    reinforcement: float
    decay: float
    layer_age: float
    type_decay: float
    half_life_days: float
    layer_half_life_days: float
    trust_factor: float
    idle_activity_days: float
    age_activity_days: float
    age_calendar_days: float
    layer: str
    model: str
    mode: str
    clocks: dict[str, str]

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        for k, v in out.items():
            if isinstance(v, float) and math.isinf(v):
                out[k] = None  # JSON has no infinity: None means "never decays"
        return out


CLOCKS = {
    "decay": "activity days since the last use (since creation if never used)",
    "layer_age": "activity days since creation",
    "type_decay": "calendar days since creation",
}


def retention_factors(
    *,
    use_count: int,
    strength: float = 1.0,
    idle_days: float = 0.0,
    age_days: float = 0.0,
    age_calendar_days: float = 0.0,
    layer: str = "episodic",
    memory_type: str = "fact",
    source: str = "human",
    trust: float | None = None,
    auto_extracted: bool = False,
    params: RetentionParams = RetentionParams(),
) -> RetentionFactors:
    """R and its factors (formula in the module docstring). Pure: the caller measures the
    times — ``idle_days`` and ``age_days`` in activity days, ``age_calendar_days`` in days."""
    n = max(0, int(use_count))
    e = (n + 1) ** params.beta * max(0.0, strength)
    rho = access_reinforcement(n, params.reinforcement_scale, params.reinforcement_cap)
    m = min(1.0, e / (1.0 + e) + rho)
    tf = dk.trust_factor(source, auto_extracted, trust)
    if is_permanent(layer):
        h = lh = math.inf
        d = la = eta = 1.0
    else:
        h = params.half_life_days * tf
        lh = layer_age_half_life(layer, params.episodic_half_life_days) * tf
        d = dk.decay(idle_days, h, params.decay_model, params.retention_mode)
        la = 2.0 ** (-max(0.0, age_days) / lh) if math.isfinite(lh) else 1.0
        eta = dk.type_decay(memory_type, age_calendar_days)
    r = min(1.0, max(0.0, m * d * la * eta))
    return RetentionFactors(
        retention=r, amplitude=m, evidence=e, evidence_bounded=e / (1.0 + e), reinforcement=rho, decay=d,
        layer_age=la, type_decay=eta,
        half_life_days=h, layer_half_life_days=lh, trust_factor=tf, idle_activity_days=float(idle_days),
        age_activity_days=float(age_days), age_calendar_days=float(age_calendar_days), layer=layer,
        model=params.decay_model, mode=params.retention_mode, clocks=dict(CLOCKS),
    )


def retention(**kwargs: Any) -> float:
    """The retention value alone; same arguments as ``retention_factors``."""
    return retention_factors(**kwargs).retention


# -- stored memories (the caller measured the clocks: ``lifecycle.assess``) --------------

def is_auto_extracted(m: Memory) -> bool:
    """A memory an extractor produced (not said by a person) carries ``meta.auto_extracted``."""
    return bool(m.meta.get("auto_extracted")) if isinstance(m.meta, dict) else False


def memory_factors(m: Memory, now: float, calendar: ActivityCalendar, params: RetentionParams) -> RetentionFactors:
    """Retention factors of a stored memory at ``now``."""
    last = m.last_used if m.last_used is not None else m.created_at
    layer = next_layer(m.layer.value, now - m.created_at, m.use_count)
    return retention_factors(
        use_count=m.use_count,
        strength=m.strength,
        idle_days=calendar.between(last, now),
        age_days=calendar.between(m.created_at, now),
        age_calendar_days=max(0.0, now - m.created_at) / DAY,
        layer=layer,
        memory_type=m.type.value,
        source=m.source.value,
        trust=m.trust,
        auto_extracted=is_auto_extracted(m),
        params=params,
    )

