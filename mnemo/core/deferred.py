"""Vector metadata writes that need not hold up the request that caused them.

A recall reinforces what it returns, and a use can move a memory to the next layer; the layer
is also in the memory's vector metadata (a Chroma filter). On a fresh store nearly every recall
moves some memory, and a Chroma metadata write costs about 9 ms however few ids it carries:
written at once (or even on another thread right after) it added 8-9 ms to a recall's p50 at
100k memories. So the store, the truth, is written at once, and the vector copies are brought
in step together, ``DELAY`` seconds after the first pending change, in one write.

Crash safety: the caller sets ``index.dirty`` in the same transaction that changed the store,
and it stays set until the write is done (the write unit (``core.writes``) leaves it set while anything is
pending), so a kill in between is repaired by the re-sync at the next open. A filtered vector
query, the doctor, a reindex and closing the core flush first, so nobody reads a stale layer.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from . import Core

log = logging.getLogger(__name__)

DELAY = 2.0  # seconds from the first pending change to the write


class DeferredMetadata:
    def __init__(self, delay: float = DELAY) -> None:
        self.ids: set[str] = set()
        self.delay = delay
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    def __bool__(self) -> bool:
        return bool(self.ids)

    def add(self, core: Core, ids: Iterable[str]) -> None:
        """Call inside the store transaction that changed these memories."""
        new = set(ids)
        if not new:
            return
        core.store.kv_set("index.dirty", "1")
        with self._lock:
            self.ids |= new
            if self._timer is None:
                self._timer = threading.Timer(self.delay, self._due, args=(core,))
                self._timer.daemon = True
                self._timer.name = "mnemo-index-meta"
                self._timer.start()

    def _due(self, core: Core) -> None:
        with self._lock:
            self._timer = None
        self.flush(core)

    def close(self, core: Core) -> None:
        """Write what is pending now (the core is closing)."""
        with self._lock:
            timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
        self.flush(core)

    def flush(self, core: Core) -> int:
        """Write the current store rows' metadata for every pending id; the count written."""
        from .recover import HOT

        if not self.ids:
            return 0  # nothing pending: no need to wait for the write lock
        with core.write_lock:
            with self._lock:
                ids, self.ids = sorted(self.ids), set()
            if not ids:
                return 0
            try:
                # No transaction: the store is only read here, and the index is written after.
                with core.writes(transaction=False) as w:
                    found = w.store.get_memories(ids)
                    live = [m for m in found.values() if m.status.value in HOT]
                    w.update_meta(live)
            except Exception:
                # The dirty mark stays set: the next open re-syncs the metadata from the store.
                log.warning("deferred vector metadata write failed for %d memories", len(ids), exc_info=True)
                return 0
            return len(live)
