"""Promotion eligibility: which short-term memories have earned a note in the vault.

A memory is eligible when it is active and either
- its retention is ≥ 0.65 and it was used ≥ 5 times within a true sliding 14-day window (the
  use timestamps in ``(now - 14 days, now]``, calendar time), or
- it is past the working layer, its importance is ≥ 0.7 and it has ≥ 5 uses in all
  (the layered-lifecycle seed's episodic → semantic rule).
Both need evidence of use, so a fresh, never-used memory is never eligible (Mnemex's
unbounded score would let it through; see ``scoring.retention``). A memory whose retention has
fallen below the forget threshold is not eligible either: forgetting and promotion never claim
the same memory. A memory a person demoted (``lifecycle.demotion``) is judged on the uses made
after the demotion only, so the person's choice outranks the score until new uses earn it back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..clock import DAY

if TYPE_CHECKING:
    from ..core import Core
    from ..models import Memory


@dataclass(frozen=True)
class PromotionRule:
    retention: float = 0.65
    uses: int = 5
    window_days: float = 14.0
    importance: float = 0.7
    forget: float = 0.05

    @classmethod
    def from_settings(cls, s: Any) -> PromotionRule:
        return cls(
            retention=s.promote_threshold,
            uses=s.promote_uses,
            window_days=s.promote_window_days,
            importance=getattr(s, "promote_importance", cls.importance),
            forget=s.forget_threshold,
        )


def uses_in_window(use_times: Sequence[float], now: float, window_days: float = 14.0) -> int:
    """Uses in the sliding window ``(now - window, now]`` (calendar seconds)."""
    start = now - window_days * DAY
    return sum(1 for t in use_times if start < t <= now)


def promotion_decision(*, status: str, layer: str, use_count: int, retention: float, window_uses: int,
                       importance: float | None, rule: PromotionRule = PromotionRule(),
                       demoted: bool = False) -> tuple[bool, str]:
    """(eligible, why) — pure. ``importance`` may be None when the caller skipped it because
    the memory cannot pass the importance branch anyway (fewer uses than the rule needs).
    For a memory a person ``demoted``, ``use_count`` and ``window_uses`` count only the uses
    made after the demotion."""
    if status != "active":
        return False, f"status is {status}"
    if demoted and use_count < rule.uses:
        return False, (f"demoted by a person; {use_count} use(s) since, {rule.uses} bring it back "
                       "(or an explicit `mnemo promote`)")
    if use_count <= 0:
        return False, "never used"
    if retention < rule.forget:
        return False, f"retention {retention:.4f} is below the forget threshold {rule.forget}"
    if retention >= rule.retention and window_uses >= rule.uses:
        return True, f"retention {retention:.3f} ≥ {rule.retention} with {window_uses} uses in {rule.window_days:g} days"
    if layer != "working" and importance is not None and importance >= rule.importance and use_count >= rule.uses:
        return True, f"importance {importance:.3f} ≥ {rule.importance} with {use_count} uses ({layer} → semantic)"
    need = []
    if retention < rule.retention:
        need.append(f"retention {retention:.3f} < {rule.retention}")
    if window_uses < rule.uses:
        need.append(f"{window_uses} uses in {rule.window_days:g} days < {rule.uses}")
    return False, "; ".join(need) or "importance rule not met"


def is_promotion_eligible(core: Core, memory: Memory, now: float | None = None) -> bool:
    from .assess import assess

    return assess(core, [memory], now)[memory.id].eligible


def promotion_candidates(core: Core, now: float | None = None) -> list[Memory]:
    """Every eligible active memory, highest retention first."""
    from .assess import assess

    now = core.now() if now is None else now
    found: list[tuple[float, Memory]] = []
    for batch in core.store.iter_memories(batch=1000, status=("active",)):
        scored = assess(core, batch, now)
        found += [(scored[m.id].retention, m) for m in batch if scored[m.id].eligible]
    found.sort(key=lambda rm: (-rm[0], rm[1].id))
    return [m for _, m in found]
