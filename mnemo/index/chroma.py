"""Vector index in Chroma: an embedded ``PersistentClient`` in ``MNEMO_HOME/chroma``, or a
Chroma server through ``HttpClient`` when ``index.chroma_url`` is set.

We always hand Chroma our own vectors (its default embedding function would download a
model), telemetry is off, and writes go in batches under Chroma's limit. Collections use cosine
space; similarity = 1 - distance.

Stored vectors read by id are kept (``VECTOR_CACHE`` a collection, least recently read out
first): recall reads those of its ~50 best candidates on every query, Chroma's ``get`` turns
each into Python floats (2-4 ms a recall), and the same memories come back query after query
(a third of those read by 100 distinct queries on the 10k bench store had been read before).
Every write of vectors goes through this class, which forgets the ids it writes or deletes
(and a whole collection when it is dropped or found gone), so a vector read from the cache is
the one Chroma holds. Callers get their own copy of each.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import faults
from ..errors import StorageError

if TYPE_CHECKING:
    from chromadb.config import Settings

log = logging.getLogger(__name__)

MEMORIES = "mnemo_memories"
CHUNKS = "mnemo_chunks"
# How many nodes an HNSW search keeps in its beam (hnswlib's ef; Chroma's default is 100). With
# at least as many as the collection holds, the search visits the whole graph and is exact.
# Chroma builds a different graph each time from the same vectors added in the same order (it
# ignores ``hnsw:num_threads``), so an approximate search ranked two builds of one store
# differently: 700 random directions, 50 queries for the top 60, ef 100: two builds disagree on
# 26-29 queries and 17-22 queries miss one of the exact top 60; ef 1000: exact on both builds
# (tests/test_index_exact.py). LoCoMo's conv-26 stored as turns (419) ranked 17 of its 150
# questions differently in two builds; with 1000, none. Beyond 1000 vectors the search stays
# approximate but closer: the top 60 of 100 queries near stored vectors missed 18 of 6000 at ef
# 100 and 0 at 1000 on the 10k bench store (71 and 0 at 100k), for 1.8-2.4 → 4.5 ms a query
# at 10k and 2.5-2.7 → 4.3 ms at 100k (load average 4-5). Set when a collection is created: an
# existing one keeps its own (``mnemo reindex`` makes a new one).
SEARCH_EF = 1000
VECTOR_CACHE = 10_000  # vectors kept a collection (1.5 KB each at 384 dimensions: 15 MB)
CACHED_READ = 1_000  # reads of more ids (a dream's, a reindex's) pass by the cache


def _client_settings() -> Settings:
    from chromadb.config import Settings

    return Settings(anonymized_telemetry=False, allow_reset=True)


class VectorIndex:
    def __init__(self, path: Path | None = None, url: str | None = None, batch: int = 5000, prefix: str = "") -> None:
        import chromadb

        self.path = path
        self.url = url
        self.batch = max(1, min(batch, 5000))
        # A prefix lets several stores share one Chroma server without colliding.
        self.prefix = prefix
        self._lock = threading.RLock()
        self._cols: dict[str, Any] = {}
        self._vectors: dict[str, OrderedDict[str, np.ndarray]] = {}  # collection → id → stored vector
        if url:
            from .chroma_server import connect, parse_url

            self.url = parse_url(url).url
            self.client = connect(self.url, _client_settings())  # StorageError with a hint if it does not answer
            return
        assert path is not None
        try:
            from ..security import private_dir, tighten_tree

            private_dir(path)
            self.client = chromadb.PersistentClient(path=str(path), settings=_client_settings())
            tighten_tree(path)  # Chroma creates its files with the process umask
        except Exception as exc:  # chromadb raises many unrelated types here
            raise StorageError(
                f"cannot open the vector index at {path}: {exc}", hint="run `mnemo reindex` to rebuild it"
            ) from exc

    @property
    def where(self) -> str:
        return self.url or str(self.path)

    def _run(self, name: str, doing: str, op: Callable[[Any], Any]) -> Any:
        """Run ``op(collection)`` under the lock, turning index failures into one StorageError.
        A collection that vanished (a server restarted on an empty folder, a dropped collection)
        is looked up again once: the store's sync at the next open refills it."""
        from .chroma_server import index_errors, index_failure, is_not_found

        errors = index_errors()
        with self._lock:
            for attempt in (0, 1):
                try:
                    return op(self.collection(name))
                except errors as exc:
                    if attempt == 0 and is_not_found(exc):
                        self._cols.pop(name, None)
                        self._vectors.pop(name, None)
                        continue
                    raise index_failure(self.where, f"{doing} {name!r}", exc) from exc
        raise AssertionError("unreachable")

    def close(self) -> None:
        """Release Chroma's process-wide system for this path so its files are closed (a later
        open, even in this process, sees the folder as it is on disk)."""
        with self._lock:
            self._cols.clear()
            self._vectors.clear()
            try:
                self.client.clear_system_cache()
            except Exception:  # noqa: BLE001 - closing must not fail
                log.debug("chroma system cache was already clear")
            self._tighten()  # segment files Chroma made during this session

    def _name(self, name: str) -> str:
        return f"{self.prefix}{name}"

    def collection(self, name: str) -> Any:
        with self._lock:
            col = self._cols.get(name)
            if col is None:
                col = self.client.get_or_create_collection(
                    self._name(name), metadata={"hnsw:space": "cosine", "hnsw:search_ef": SEARCH_EF}, embedding_function=None
                )
                self._cols[name] = col
            return col

    def drop(self, name: str) -> None:
        from .chroma_server import index_errors, index_failure, is_not_found

        faults.point()
        with self._lock:
            self._cols.pop(name, None)
            self._vectors.pop(name, None)
            try:
                self.client.delete_collection(self._name(name))
            except index_errors() as exc:
                if not is_not_found(exc):
                    raise index_failure(self.where, f"dropping {name!r}", exc) from exc
                log.debug("collection %s was absent", name)
            except ValueError:  # older chromadb raise ValueError for an absent collection
                log.debug("collection %s was absent", name)

    def upsert(
        self,
        name: str,
        ids: Sequence[str],
        vectors: np.ndarray | Sequence[Sequence[float]],
        metadatas: Sequence[dict[str, Any]] | None = None,
    ) -> None:
        if not len(ids):
            return
        vecs = np.asarray(vectors, dtype=np.float32)

        def op(col: Any) -> None:
            for i in range(0, len(ids), self.batch):
                j = i + self.batch
                col.upsert(
                    ids=list(ids[i:j]),
                    embeddings=vecs[i:j],
                    metadatas=[_clean_meta(m) for m in metadatas[i:j]] if metadatas else None,
                )

        faults.point()
        with self._lock:  # no read between forgetting and writing could cache the old vectors
            self._forget(name, ids)
            self._run(name, "writing to", op)
        self._tighten()

    def _tighten(self) -> None:
        """Chroma makes its segment files with the process umask when a collection first gets
        vectors; make them private at once rather than at close (a few entries to walk)."""
        if self.path is not None and not self.url:
            from ..security import tighten_tree

            tighten_tree(self.path)

    def update_metadata(self, name: str, ids: Sequence[str], metadatas: Sequence[dict[str, Any]]) -> None:
        if not ids:
            return

        def op(col: Any) -> None:
            for i in range(0, len(ids), self.batch):
                col.update(ids=list(ids[i : i + self.batch]), metadatas=[_clean_meta(m) for m in metadatas[i : i + self.batch]])

        faults.point()
        self._run(name, "updating", op)

    def delete(self, name: str, ids: Sequence[str]) -> None:
        if not ids:
            return

        def op(col: Any) -> None:
            for i in range(0, len(ids), self.batch):
                col.delete(ids=list(ids[i : i + self.batch]))

        faults.point()
        with self._lock:
            self._forget(name, ids)
            self._run(name, "deleting from", op)

    def query(
        self, name: str, vector: np.ndarray, n: int, where: dict[str, Any] | None = None
    ) -> list[tuple[str, float]]:
        """(id, cosine similarity), best first."""
        return self.query_many(name, np.asarray([vector], dtype=np.float32), n, where=where)[0]

    def query_many(
        self, name: str, vectors: np.ndarray, n: int, where: dict[str, Any] | None = None
    ) -> list[list[tuple[str, float]]]:
        if len(vectors) == 0:
            return []
        if n <= 0:
            return [[] for _ in range(len(vectors))]

        # Chroma answers an ``n_results`` beyond the collection's size (or an empty collection)
        # with what it has; asking the count first cost as much as the query on 100k vectors.
        def op(col: Any) -> Any:
            return col.query(
                query_embeddings=np.asarray(vectors, dtype=np.float32),
                n_results=int(n),
                where=where or None,
                include=["distances"],
            )

        res = self._run(name, "querying", op)
        if res is None:
            return [[] for _ in range(len(vectors))]
        dists = res.get("distances") or [[1.0] * len(ids) for ids in res["ids"]]
        return [
            [(i, 1.0 - float(d)) for i, d in zip(ids, ds, strict=False)]
            for ids, ds in zip(res["ids"], dists, strict=False)
        ]

    def get_vectors(self, name: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """id → stored vector of the ``ids`` the collection holds (each a copy the caller owns)."""
        if not ids:
            return {}
        if len(ids) > CACHED_READ:
            return self._read(name, ids)
        with self._lock:
            cache = self._vectors.setdefault(name, OrderedDict())
            missing = [i for i in dict.fromkeys(ids) if i not in cache]
            if missing:
                for vid, vec in self._read(name, missing).items():
                    vec.setflags(write=False)
                    cache[vid] = vec
            out: dict[str, np.ndarray] = {}
            for i in ids:
                kept = cache.get(i)
                if kept is not None:
                    cache.move_to_end(i)
                    out[i] = kept.copy()
            while len(cache) > VECTOR_CACHE:
                cache.popitem(last=False)
            return out

    def _read(self, name: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        def op(col: Any) -> dict[str, np.ndarray]:
            out: dict[str, np.ndarray] = {}
            for i in range(0, len(ids), self.batch):
                res = col.get(ids=list(ids[i : i + self.batch]), include=["embeddings"])
                for vid, vec in zip(res["ids"], res["embeddings"], strict=False):
                    out[vid] = np.asarray(vec, dtype=np.float32)
            return out

        return self._run(name, "reading", op)

    def _forget(self, name: str, ids: Sequence[str]) -> None:
        """Drop ``ids`` from the cache of read vectors (they are being written or deleted)."""
        with self._lock:
            cache = self._vectors.get(name)
            if cache:
                for i in ids:
                    cache.pop(i, None)

    def entries(self, name: str, include: Sequence[str] = ("metadatas",)) -> Iterator[dict[str, Any]]:
        """Every entry of a collection, a page (``ids`` plus the ``include`` fields) at a time.
        Pages follow Chroma's stable internal order; callers hold no lock between pages, so a
        concurrent writer may shift them (the doctor and the move hold the core's write lock)."""
        total = self.count(name)
        for off in range(0, total, self.batch):
            def read(col: Any, off: int = off) -> Any:
                return col.get(include=list(include), limit=self.batch, offset=off)

            page = self._run(name, "reading", read)
            if not page["ids"]:
                return
            yield page

    def all_ids(self, name: str) -> list[str]:
        out: list[str] = []
        for page in self.entries(name, include=()):
            out.extend(page["ids"])
        return out

    def count(self, name: str) -> int:
        return int(self._run(name, "counting", lambda col: col.count()))


def _clean_meta(meta: dict[str, Any]) -> dict[str, Any]:
    """Chroma metadata takes str/int/float/bool only, and no None."""
    out: dict[str, Any] = {}
    for k, v in meta.items():
        if v is None:
            continue
        if isinstance(v, bool | int | float | str):
            out[k] = v
        else:
            out[k] = str(v)
    return out or {"_": 0}
