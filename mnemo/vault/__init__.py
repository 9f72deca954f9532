"""The vault tier: the person's Obsidian vault, read and indexed whole, written only where mnemo
owns a note (frontmatter ``mnemo_id``) and only through the safe writer."""

from __future__ import annotations

import threading
import weakref
from typing import Any

_locks: weakref.WeakKeyDictionary[Any, threading.RLock] = weakref.WeakKeyDictionary()
_guard = threading.Lock()


def vault_lock(core: Any) -> threading.RLock:
    """One vault operation at a time per core: the daemon serves requests from several
    threads, and a promotion, a watcher event and a reconcile must not interleave their reads
    and writes of the same notes."""
    with _guard:
        lock = _locks.get(core)
        if lock is None:
            lock = _locks[core] = threading.RLock()
        return lock
