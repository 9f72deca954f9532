"""A person's demotion, remembered so that it sticks.

``mnemo demote`` is a person's decision: the note goes to ``Archive/`` and the memory becomes
active again, but the score that promoted it is still there, so without a record the next
automatic promotion (the daemon's hourly job, ``promote --auto``, an MCP ``promote``) would move
it straight back. The time of the demotion is kept (table ``demotions``), and until it is
cleared the automatic rule counts only the uses made *after* it: the memory comes back on its
own only when it earns promotion again on new evidence (``promote_uses`` uses after the
demotion, within the window). An explicit ``mnemo promote ID`` clears the record at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..store import Store


def record(store: Store, memory_id: str, at: float) -> None:
    store.record_demotion(memory_id, at)


def clear(store: Store, memory_id: str) -> None:
    store.clear_demotion(memory_id)


def demotions_of(store: Store, ids: Sequence[str]) -> dict[str, tuple[float, int]]:
    """Demoted memories among ``ids``: id → (when, how many uses since)."""
    return store.demotions_of(ids)
