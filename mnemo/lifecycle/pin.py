"""Pinning (layered-lifecycle seed): a pinned memory is immune to forgetting — ``gc`` never
archives or freezes it and ``forget`` refuses it — while it keeps decaying in its scores, so
``explain`` and review still say how it is doing."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..core import Core
    from ..models import Memory


def set_pinned(core: Core, memory_id: str, pinned: bool) -> Memory:
    m = core.get(memory_id)
    if m.pinned == pinned:
        return m
    if m.status.value == "cold":
        # A cold memory has no vector in the index to carry the flag: the store is enough.
        new = replace(m, pinned=pinned, updated_at=core.now())
        with core.write_lock:
            core.store.update_memory(new)
        return new
    return core.update(replace(m, pinned=pinned))
