"""Memory layers (layered-lifecycle seed): working → episodic → semantic / procedural.

- working: the current task's context. Becomes episodic once it is 30 minutes old (calendar
  time: it is about the task at hand) or has been used twice. Its recency decays with the short
  Mnemex half-life; it has no age decay of its own.
- episodic: events and experiences. Besides recency, its age erodes it with a 30-day half-life
  (activity days since creation): an episode that is never promoted fades even while used.
- semantic / procedural: permanent knowledge and how-to. No time decay at all (infinite
  half-life); reached by promotion (importance ≥ 0.7 with ≥ 5 uses, or the retention rule).
  Decisions and preferences go to procedural, everything else to semantic.
"""

from __future__ import annotations

import math

WORKING_MAX_AGE_SECONDS = 30 * 60.0
WORKING_MAX_USES = 2
EPISODIC_HALF_LIFE_DAYS = 30.0
PERMANENT = frozenset({"semantic", "procedural"})
PROCEDURAL_TYPES = frozenset({"decision", "preference"})


def next_layer(layer: str, age_seconds: float, use_count: int,
               max_age_seconds: float = WORKING_MAX_AGE_SECONDS, max_uses: int = WORKING_MAX_USES) -> str:
    """The automatic transition: working → episodic after 30 minutes (calendar) or 2 uses;
    every other layer stays where it is (semantic/procedural are reached by promotion only)."""
    if layer == "working" and (age_seconds >= max_age_seconds or use_count >= max_uses):
        return "episodic"
    return layer


def promoted_layer(memory_type: str) -> str:
    """Where promotion takes a memory: procedural for decisions and preferences, else semantic."""
    return "procedural" if memory_type in PROCEDURAL_TYPES else "semantic"


def is_permanent(layer: str) -> bool:
    return layer in PERMANENT


def layer_age_half_life(layer: str, episodic_days: float = EPISODIC_HALF_LIFE_DAYS) -> float:
    """Half-life (activity days) of the age factor per layer: episodic 30 days; working, semantic
    and procedural none (∞): working is minutes old, the permanent layers never fade."""
    return episodic_days if layer == "episodic" else math.inf
