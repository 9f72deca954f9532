"""``Core``: the parts every feature works on, for one ``MNEMO_HOME``.

The core holds the store (the truth), the vector index and the embedder (derived, loaded on
first use), the settings and the clock, and the owner lock while open: two cores on one home
never run at once (design.md §2). Features (recall, lifecycle, dream, graph, vault) take a
``Core``; the façade ``engine.Mnemo`` above them holds only the public operations.

Write order: SQLite (the truth) commits first, then Chroma (derived). ``write()`` is the one
place that pairs them (see ``core/write.py``); if a crash lands between the two, ``sync_index``
at the next open finds the memories Chroma lacks and embeds them.
"""

from __future__ import annotations

import logging
import os
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..clock import Clock, parse_time
from ..config import Settings
from ..errors import HomeError, InvalidInput, NotFound
from ..lock import OwnerLock
from ..models import Memory, Status
from ..store import Store
from .write import WriteUnit, vector_meta

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

    from ..index.chroma import VectorIndex
    from ..nlp.embedder import Embedder
    from .deferred import DeferredMetadata

log = logging.getLogger(__name__)

Progress = Callable[[int], None]
HOT = ("active", "promoted", "archived")


class Core:
    def __init__(self, settings: Settings, clock: Clock | None = None, embedder: Embedder | None = None,
                 lock: bool = True) -> None:
        self.settings = settings
        self.clock = clock or Clock(parse_time(settings.now) if settings.now else None)
        self.home: Path = settings.home
        self._prepare_home()
        self._lock = OwnerLock(self.home, kind="engine") if lock else None
        if self._lock:
            self._lock.acquire()
        try:
            self.store = Store(self.home / "mnemo.db")
        except BaseException:
            if self._lock:
                self._lock.release()
            raise
        self._embedder = embedder
        self._index: VectorIndex | None = None
        self._init_lock = threading.RLock()
        self._background: ThreadPoolExecutor | None = None
        from .deferred import DeferredMetadata

        self.deferred_meta: DeferredMetadata = DeferredMetadata()
        self.writes = WriteUnit(self)
        self._call_time = threading.local()  # a caller's own "now", for one call on one thread (``at``)

    @property
    def write_lock(self) -> threading.RLock:
        """Serialises writers of one home (the store and the index together)."""
        return self.writes.lock

    def _prepare_home(self) -> None:
        home = self.home
        try:
            home.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as exc:
            raise HomeError(f"cannot create the mnemo home {home}: {exc.strerror}", hint="pass --home PATH or set MNEMO_HOME") from exc
        if not os.access(home, os.R_OK | os.W_OK | os.X_OK):
            raise HomeError(f"the mnemo home {home} is not readable and writable", hint="fix its permissions or pass --home PATH")

    def close(self) -> None:
        try:
            if self._background is not None:
                self._background.shutdown(wait=True)
                self._background = None
            self.deferred_meta.close(self)  # a no-op unless a layer change awaits its index write
            if self._index is not None:
                self._index.close()
                self._index = None
            self.store.close()
        finally:
            if self._lock:
                self._lock.release()

    # -- time ---------------------------------------------------------------------------------
    def now(self) -> float:
        t = getattr(self._call_time, "t", None)
        return self.clock.now() if t is None else t

    @contextmanager
    def at(self, now: float | str | None) -> Iterator[None]:
        """Run what happens inside at the time ``now`` (``--now``/``MNEMO_NOW`` of one caller),
        on this thread only: the core's own clock never moves, so a daemon serving several
        clients and its scheduler keep their time while one request runs at another."""
        if now is None:
            yield
            return
        previous = getattr(self._call_time, "t", None)
        self._call_time.t = parse_time(now)
        try:
            yield
        finally:
            self._call_time.t = previous

    # -- lazy heavy parts -----------------------------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        with self._init_lock:
            if self._embedder is None:
                from ..nlp.embedder import make_embedder

                e = self.settings.embedding
                cache = Path(e.model_cache).expanduser() if e.model_cache else self.home / "models"
                self._embedder = make_embedder(e.model, e.batch_size, e.query_cache, backend=e.backend, cache_dir=cache)
            return self._embedder

    @property
    def background(self) -> ThreadPoolExecutor:
        """One worker thread for work beside a request's own (a query's embedding while FTS5 runs)."""
        with self._init_lock:
            if self._background is None:
                from concurrent.futures import ThreadPoolExecutor

                self._background = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mnemo-worker")
            return self._background

    @property
    def index(self) -> VectorIndex:
        with self._init_lock:
            if self._index is None:
                from ..index.chroma import VectorIndex

                url = self.settings.index.chroma_url
                if url:
                    self._index = VectorIndex(url=url, batch=self.settings.index.batch, prefix=self.index_prefix())
                else:
                    from .recover import open_embedded

                    # A folder Chroma cannot read is moved aside and rebuilt from the store.
                    path = self.home / "chroma"
                    batch = self.settings.index.batch
                    self._index = open_embedded(path, lambda: VectorIndex(path=path, batch=batch), self.store)
                self._check_model()
            return self._index

    @property
    def loaded_index(self) -> VectorIndex | None:
        """The vector index if it is open, without opening it."""
        return self._index

    def swap_index(self, index: VectorIndex | None, expected: VectorIndex | None = None) -> None:
        """Put ``index`` in place of the open one (``index.move``); with ``expected``, only
        while that one is still in place."""
        with self._init_lock:
            if expected is None or self._index is expected:
                self._index = index

    def index_prefix(self) -> str:
        """Each home gets its own collections on a shared Chroma server."""
        pid = self.store.kv_get("home.id")
        if pid is None:
            pid = uuid.uuid4().hex[:12]
            self.store.kv_set("home.id", pid)
        return f"h{pid}_"

    def _check_model(self) -> None:
        """Re-embed everything when the configured model is not the one the index was built with,
        and embed what a crash left out of the index."""
        current = self.embedder.model_hash
        recorded = self.store.kv_get("index.model_hash")
        if recorded != current:
            if recorded is not None or self.store.count() > 0:
                log.info("embedding model changed (%s → %s): re-embedding", recorded, current)
                self.rebuild_vectors()
            self.store.kv_set("index.model_hash", current)
            self.store.kv_set("index.model_name", self.embedder.name)
        else:
            self.sync_index()

    # -- the dual write (core/write.py) --------------------------------------------------------
    def rebuild_vectors(self, progress: Progress | None = None) -> int:
        idx = self._index
        assert idx is not None
        idx.drop("memories")
        return self.embed_into_index(self.store.iter_memories(batch=512, status=HOT), progress)

    def embed_into_index(self, batches: Iterable[list[Memory]], progress: Progress | None = None) -> int:
        return self.writes.embed(batches, progress)

    def sync_index(self) -> None:
        """Bring the vector index in line with the store after a crash between the SQLite
        commit and the Chroma write, or a lost Chroma folder (``core.recover.sync``). Cheap
        when the last write finished and the counts agree."""
        from .recover import sync

        sync(self)

    def set_status(self, m: Memory, status: Status) -> Memory:
        now = self.now()
        with self.writes(transaction=False) as w:
            # Only the status and the note change: the rest comes from the row as it is now, so a
            # use recorded since the caller read ``m`` (another request) is not written over.
            current = w.store.get_memory(m.id) or m
            new = replace(current, status=status, note_path=m.note_path, updated_at=now,
                          archived_at=now if status == Status.ARCHIVED else current.archived_at)
            w.store.update_memory(new)
            w.update_meta([new])
        return new

    def update(self, memory: Memory) -> Memory:
        """Write a changed memory back (content changes are re-embedded)."""
        old = self.get(memory.id)
        new = replace(memory, updated_at=self.now())
        # Statement by statement (transaction=False): the row and the enrichment queue commit
        # one after the other, as they always have; the index follows both.
        with self.writes(transaction=False) as w:
            if new.content != old.content:
                from ..nlp.tokens import count_tokens

                new = replace(new, tokens=count_tokens(new.content))
                w.store.update_memory(new)
                w.store.queue_enrich([new.id], self.now())  # new words: fingerprint and links again
                w.upsert([new], self.embedder.embed([new.content]))
            else:
                w.store.update_memory(new)
                w.update_meta([new])
        return new

    # -- reads ----------------------------------------------------------------------------------
    def draft(self, item: Any, where: str = "") -> tuple[Memory, bool]:
        """Validate one save item at the current time (``inputs.draft``)."""
        from .. import inputs

        return inputs.draft(item, self.now(), where)

    def resolve_id(self, memory_id: str) -> str:
        memory_id = (memory_id or "").strip()
        if not memory_id:
            raise InvalidInput("no memory id given")
        if self.store.get_memory(memory_id) is not None:
            return memory_id
        if len(memory_id) >= 4:
            found = self.store.find_prefix(memory_id)
            if len(found) == 1:
                return found[0]
            if len(found) > 1:
                raise InvalidInput(f"id prefix {memory_id!r} is ambiguous", hint="give more characters of the id")
        note = self.store.note_of_handle(memory_id)
        if note is not None:
            path, owner = note
            if owner and self.store.get_memory(owner) is not None:
                return owner  # a passage of a promoted note: its memory
            raise NotFound(f"{memory_id!r} is the note {path}, not a memory",
                           hint=f"read it with `mnemo note show \"{path}\"`; a person's note is recalled, never touched or changed")
        raise NotFound(f"no memory with id {memory_id!r}", hint="`mnemo list` shows the ids")

    def get(self, memory_id: str) -> Memory:
        m = self.store.get_memory(self.resolve_id(memory_id))
        assert m is not None
        return m


__all__ = ["HOT", "Core", "Progress", "vector_meta"]
