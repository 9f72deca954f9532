"""The dream cycle's steps by name, in the order they run (no heavy imports: the CLI checks
``--steps`` with this before it opens anything)."""

from __future__ import annotations

from collections.abc import Sequence

from ...errors import InvalidInput

STEPS = ("forget", "cluster", "merge", "split", "supersede", "beliefs", "bridges", "cards", "drift", "prune")


def select_steps(steps: Sequence[str] | str | None, configured: Sequence[str] = ()) -> list[str]:
    """The steps to run, in the cycle's order. ``None`` means the configured ones (all when
    none are configured)."""
    if isinstance(steps, str):
        steps = [s for s in steps.replace(" ", ",").split(",") if s]
    chosen = list(steps or configured or STEPS)
    unknown = [s for s in chosen if s not in STEPS]
    if unknown:
        raise InvalidInput(f"unknown dream step(s): {', '.join(unknown)}", hint=f"choose from: {', '.join(STEPS)}")
    return [s for s in STEPS if s in chosen]
