"""The one write unit: the store (the truth) and the vector index (derived) changed together.

A write takes the home's write lock, marks the index dirty in the store, commits its SQL in one
transaction, and only then applies the vector changes it queued. If the process dies between
the commit and Chroma's write, the next open sees the mark (``index.dirty``) and re-syncs the
index from the store (``core.recover.sync``); a failed index write leaves the mark set for the
same reason. Nested writes clear the mark only when the outermost one ends.

    with core.write() as w:
        w.store.insert_memories(stored)
        w.upsert(stored, vectors)           # runs after the commit

Every feature that changes memories goes through here; nothing else pairs the two by hand.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..models import Memory

if TYPE_CHECKING:
    import numpy as np

    from ..store import Store
    from .core import Core

COLLECTION = "memories"


def vector_meta(m: Memory) -> dict[str, Any]:
    """What the vector index knows of a memory (the fields its filters test)."""
    return {
        "status": m.status.value,
        "type": m.type.value,
        "layer": m.layer.value,
        "wing": m.wing,
        "room": m.room,
        "source": m.source.value,
        "created_at": m.created_at,
        "pinned": m.pinned,
    }


class Write:
    """One open write: the store inside its transaction, and the vector changes to make after."""

    def __init__(self, core: Core) -> None:
        self.core = core
        self.store: Store = core.store
        self._after: list[Callable[[], None]] = []

    def upsert(self, memories: Sequence[Memory], vectors: Any) -> None:
        """Store these vectors for these memories (new or re-embedded content)."""
        if memories:
            ids, metas = [m.id for m in memories], [vector_meta(m) for m in memories]
            self._after.append(lambda: self.core.index.upsert(COLLECTION, ids, vectors, metas))

    def update_meta(self, memories: Sequence[Memory]) -> None:
        """Tell the vector index the memories' new status, type, layer or place."""
        if memories:
            ids, metas = [m.id for m in memories], [vector_meta(m) for m in memories]
            self._after.append(lambda: self.core.index.update_metadata(COLLECTION, ids, metas))

    def delete(self, ids: Sequence[str], collection: str = COLLECTION) -> None:
        if ids:
            ids = list(ids)
            self._after.append(lambda: self.core.index.delete(collection, ids))

    def then(self, step: Callable[[], None]) -> None:
        """Any other index step, run after the commit in the order queued."""
        self._after.append(step)


class WriteUnit:
    def __init__(self, core: Core) -> None:
        self.core = core
        self.lock = threading.RLock()
        self._depth = 0  # nested ``marked`` blocks
        self._failed = False

    @contextmanager
    def __call__(self, transaction: bool = True) -> Iterator[Write]:
        """A write of the store and then the index, under the write lock (see the module
        docstring). ``transaction=False`` leaves the store's statements to autocommit one by
        one (a long rebuild that commits as it goes)."""
        with self.lock, self.marked():
            w = Write(self.core)
            if transaction:
                with self.core.store.tx():
                    yield w
            else:
                yield w
            for step in w._after:
                step()

    @contextmanager
    def marked(self) -> Iterator[None]:
        """Mark the vector index dirty around a write to it: if the process dies between the
        store's commit and Chroma's write, the next open sees the mark and re-syncs. Nested
        uses clear the mark only when the outermost one ends; a failed write leaves it set."""
        store = self.core.store
        with self.lock:
            if not self._depth:
                store.kv_set("index.dirty", "1")
                self._failed = False
            self._depth += 1
            try:
                yield
            except BaseException:
                self._failed = True
                raise
            finally:
                self._depth -= 1
            if not self._depth and not self._failed and not self.core.deferred_meta:
                store.kv_set("index.dirty", "0")

    def embed(self, batches: Iterable[list[Memory]], progress: Callable[[int], None] | None = None) -> int:
        """Embed memories into the index (a rebuild or a repair), recording which model made
        each vector (the doctor checks it against the current one)."""
        core = self.core
        n = 0
        for batch in batches:
            vecs: np.ndarray = core.embedder.embed([m.content for m in batch])
            index = core.loaded_index if core.loaded_index is not None else core.index
            index.upsert(COLLECTION, [m.id for m in batch], vecs, [vector_meta(m) for m in batch])
            core.store.set_embed_model([m.id for m in batch], core.embedder.model_hash)
            n += len(batch)
            if progress:
                progress(len(batch))
        return n
