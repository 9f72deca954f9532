"""Forgetting curves: Mnemex's decay with reinforcement, three genuinely different decay models,
the three retention modes, per-type decay rates and trust-weighted half-lives.

Every function is pure: elapsed time comes in as an argument, in the unit each docstring names.
The clock that produces that argument is chosen by the caller (``retention.py`` passes activity
days for recency, calendar days for the per-type rate).

A note on the anchor (Mnemex): its three models all reduced to ``exp(-λt)``. Here exponential,
power-law and two-component are different functions of time, all calibrated to pass through 0.5
at the configured half-life so that choosing a model changes the *shape*, not the speed:

- exponential      ``2^(-t/H)``                              constant hazard
- power-law        ``(1 + t/τ)^(-α)``, ``τ = H / (2^(1/α) - 1)``  faster at first, long tail
- two-component    ``w·2^(-t/Hf) + (1-w)·2^(-t/Hs)``, ``Hf = H/4``, ``Hs`` solved so D(H) = 0.5
                                                              fast drop, then a slow trace

Since log D is linear for the exponential and convex for the other two, both lie *below* the
exponential before H and *above* it after H; far out the power law beats the two-component
curve (a power beats an exponential), which beats the single exponential.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

DAY = 86400.0
LN2 = math.log(2.0)

MODELS = ("exponential", "power_law", "two_component")
MODES = ("l2", "huber", "elastic")

# Power-law exponent (Mnemex's power-law default).
POWER_ALPHA = 1.1
# Two-component mixture: 40% of the trace fades with a quarter of the half-life.
TWO_FAST_WEIGHT = 0.4
TWO_FAST_FRACTION = 0.25
# Huber mode switches from exponential to the gentler branch after this many half-lives.
HUBER_DELTA = 2.0
# Elastic mode: the L1 soft threshold on the L2 curve.
ELASTIC_THRESHOLD = 0.05

# Go MIRA seed: decay rate per day by memory type, and calendar days after which a type is
# archived outright.
TYPE_DECAY_PER_DAY: Mapping[str, float] = {
    "decision": 0.001,
    "fact": 0.005,
    "preference": 0.01,
    "session_note": 0.1,
    "debug_log": 0.5,
}
TYPE_AUTO_ARCHIVE_DAYS: Mapping[str, float] = {"session_note": 30.0, "debug_log": 7.0}

# Layered-lifecycle seed: trust per source, and auto-extracted memories decay 3x faster.
TRUST_BY_SOURCE: Mapping[str, float] = {"human": 1.0, "ai": 0.7, "ingest": 0.5}
AUTO_EXTRACTED_SPEEDUP = 3.0


def decay_constant(half_life_seconds: float) -> float:
    """λ = ln 2 / half-life, per second (Mnemex seed: 3 days → λ ≈ 2.673e-6 /s)."""
    if half_life_seconds <= 0:
        raise ValueError("half-life must be positive")
    return LN2 / half_life_seconds


def mnemex_score(use_count: int, elapsed_seconds: float, strength: float = 1.0, beta: float = 0.6,
                 half_life_seconds: float = 3 * DAY) -> float:
    """Mnemex seed, verbatim: ``score = (use_count + 1)^β · e^(-λ·Δt) · strength``.

    Unbounded (a fresh memory scores 1.0 and a used one more), which is why mnemo does not use it
    as its retention directly: ``retention.py`` bounds the amplitude. Clock: whatever Δt the
    caller passes, in seconds (mnemo passes activity days × 86 400).
    """
    lam = decay_constant(half_life_seconds)
    return (use_count + 1) ** beta * math.exp(-lam * max(0.0, elapsed_seconds)) * strength


def _two_component_slow(h: float) -> float:
    """The slow half-life that makes the two-component curve pass through 0.5 at ``h``."""
    fast = TWO_FAST_WEIGHT * 2.0 ** (-1.0 / TWO_FAST_FRACTION)
    slow_at_h = (0.5 - fast) / (1.0 - TWO_FAST_WEIGHT)
    return h / -math.log2(slow_at_h)


def model_penalty(t: float, half_life: float, model: str = "exponential") -> float:
    """``p = -log2 D_model(t)``: how many halvings a curve has done after ``t``.

    exponential ``t/H``; power-law ``α·log2(1 + t/τ)`` with ``τ = H/(2^(1/α) - 1)``;
    two-component ``-log2(w·2^(-t/Hf) + (1-w)·2^(-t/Hs))``. All give exactly 1 at t = H.
    ``t`` and ``half_life`` in the same unit; an infinite half-life never decays.
    """
    t = max(0.0, t)
    if math.isinf(half_life) or t == 0.0:
        return 0.0
    if half_life <= 0:
        raise ValueError("half-life must be positive")
    if model == "exponential":
        return t / half_life
    if model == "power_law":
        tau = half_life / (2.0 ** (1.0 / POWER_ALPHA) - 1.0)
        return POWER_ALPHA * math.log2(1.0 + t / tau)
    if model == "two_component":
        fast_h = half_life * TWO_FAST_FRACTION
        slow_h = _two_component_slow(half_life)
        # log-sum-exp in base 2 keeps far-out values finite instead of log2(0).
        a = math.log2(TWO_FAST_WEIGHT) - t / fast_h
        b = math.log2(1.0 - TWO_FAST_WEIGHT) - t / slow_h
        m = max(a, b)
        return -(m + math.log2(2.0 ** (a - m) + 2.0 ** (b - m)))
    raise ValueError(f"unknown decay model {model!r}; choose one of {', '.join(MODELS)}")


def decay_model(t: float, half_life: float, model: str = "exponential") -> float:
    """The raw forgetting curve ``D_model(t) = 2^(-model_penalty(t))`` in (0, 1]."""
    return 2.0 ** (-model_penalty(t, half_life, model))


def huber_penalty(p: float, delta: float = HUBER_DELTA) -> float:
    """Huber's loss read on the penalty: with the residual ``r = √(2p)``, ``r²/2 = p`` below the
    knee and ``k·r - k²/2`` above it (``k²/2 = δ``), i.e. ``p`` for ``p ≤ δ`` and
    ``2√(δ·p) - δ`` beyond: continuous, same slope at the knee, growing like √p afterwards."""
    if p <= delta:
        return p
    return 2.0 * math.sqrt(delta * p) - delta


def decay(t: float, half_life: float, model: str = "exponential", mode: str = "huber") -> float:
    """The decay factor in [0, 1] after ``t`` (same unit as ``half_life``).

    Layered-lifecycle seed's retention modes applied to a decay model's curve:

    - ``l2``: the model's curve itself, ``D = 2^(-p)`` (classic Ebbinghaus for the exponential:
      50% at the half-life).
    - ``huber`` (default): ``D = 2^(-huber(p))``; identical to l2 for the first δ = 2 halvings,
      then the penalty grows like √p, so a burst of use followed by quiet is not wiped out.
    - ``elastic``: L1 + L2, the l2 curve soft-thresholded,
      ``D = max(0, (2^(-p) - θ) / (1 - θ))`` with θ = 0.05: what is strongly held stays near its
      l2 value, what is weak drops to exactly 0 (sparse).
    """
    p = model_penalty(t, half_life, model)
    if mode == "l2":
        return 2.0 ** (-p)
    if mode == "huber":
        return 2.0 ** (-huber_penalty(p))
    if mode == "elastic":
        return max(0.0, (2.0 ** (-p) - ELASTIC_THRESHOLD) / (1.0 - ELASTIC_THRESHOLD))
    raise ValueError(f"unknown retention mode {mode!r}; choose one of {', '.join(MODES)}")


def type_decay(memory_type: str, age_days: float, rates: Mapping[str, float] = TYPE_DECAY_PER_DAY) -> float:
    """Go MIRA seed: ``η = e^(-λ_type · age)``, λ per day (decision 0.001 … debug_log 0.5).
    Clock: calendar days since creation (the seed counts plain days). Unknown types: no decay."""
    return math.exp(-rates.get(memory_type, 0.0) * max(0.0, age_days))


def trust_factor(source: str, auto_extracted: bool = False, trust: float | None = None) -> float:
    """Layered-lifecycle seed: half-lives scale with source trust (human 1.0, ai 0.7, ingest
    0.5) and auto-extracted memories decay 3× faster (their half-lives are divided by 3)."""
    t = TRUST_BY_SOURCE.get(source, 1.0) if trust is None else trust
    return t / AUTO_EXTRACTED_SPEEDUP if auto_extracted else t
