"""ACT-R base-level activation (layered-lifecycle seed lists it among the importance factors).

Each past use leaves a trace that decays as a power of its age; their sum (in log) is how
available the memory is. Unlike a use count, it rewards spaced use over a burst.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

DECAY = 0.5  # ACT-R's standard d
THRESHOLD = 0.0  # τ: activation at which recall is a coin toss
NOISE = 0.4  # s: logistic noise


def base_level_activation(ages: Iterable[float], d: float = DECAY, min_age: float = 1.0) -> float | None:
    """``B = ln Σ_j t_j^(-d)`` over the ages of the uses (ACT-R's base-level learning
    equation). Ages below ``min_age`` count as ``min_age`` (ACT-R needs t > 0). None when there
    are no uses. Clock: whatever unit the ages are in; mnemo passes activity days since each use
    plus one, so a use today is one day old."""
    total = 0.0
    any_use = False
    for t in ages:
        total += max(min_age, t) ** (-d)
        any_use = True
    return math.log(total) if any_use else None


def recall_probability(activation: float | None, tau: float = THRESHOLD, s: float = NOISE) -> float:
    """ACT-R's retrieval probability ``1 / (1 + e^(-(B - τ)/s))``; 0 without any use."""
    if activation is None:
        return 0.0
    z = (activation - tau) / s
    if z < -60:
        return 0.0
    return 1.0 / (1.0 + math.exp(-z))
