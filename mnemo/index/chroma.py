"""Vector index in Chroma: an embedded ``PersistentClient`` in ``MNEMO_HOME/chroma``, or a
Chroma server through ``HttpClient`` when ``index.chroma_url`` is set.

We always hand Chroma our own vectors (its default embedding function would download a
model), telemetry is off, and writes go in batches under Chroma's limit. Collections use cosine
space; similarity = 1 - distance.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import numpy as np

from ..errors import ConfigError, StorageError

log = logging.getLogger(__name__)

MEMORIES = "mnemo_memories"
CHUNKS = "mnemo_chunks"


def _client_settings():  # noqa: ANN202
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
        try:
            if url:
                parsed = urlparse(url)
                if not parsed.hostname:
                    raise ConfigError(f"index.chroma_url {url!r} is not a URL", hint="e.g. http://127.0.0.1:8000")
                self.client = chromadb.HttpClient(
                    host=parsed.hostname,
                    port=parsed.port or (443 if parsed.scheme == "https" else 8000),
                    ssl=parsed.scheme == "https",
                    settings=_client_settings(),
                )
                self.client.heartbeat()
            else:
                assert path is not None
                path.mkdir(parents=True, exist_ok=True)
                self.client = chromadb.PersistentClient(path=str(path), settings=_client_settings())
        except ConfigError:
            raise
        except Exception as exc:  # chromadb raises many unrelated types here
            where = url or str(path)
            raise StorageError(
                f"cannot open the vector index at {where}: {exc}",
                hint="run `mnemo reindex` to rebuild it" if not url else "is the Chroma server running?",
            ) from exc

    def close(self) -> None:
        """Release Chroma's process-wide system for this path so its files are closed (a later
        open, even in this process, sees the folder as it is on disk)."""
        with self._lock:
            self._cols.clear()
            try:
                self.client.clear_system_cache()
            except Exception:  # noqa: BLE001 - closing must not fail
                log.debug("chroma system cache was already clear")

    def _name(self, name: str) -> str:
        return f"{self.prefix}{name}"

    def collection(self, name: str) -> Any:
        with self._lock:
            col = self._cols.get(name)
            if col is None:
                col = self.client.get_or_create_collection(
                    self._name(name), metadata={"hnsw:space": "cosine"}, embedding_function=None
                )
                self._cols[name] = col
            return col

    def drop(self, name: str) -> None:
        with self._lock:
            self._cols.pop(name, None)
            try:
                self.client.delete_collection(self._name(name))
            except Exception:  # noqa: BLE001 - absent is fine
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
        col = self.collection(name)
        vecs = np.asarray(vectors, dtype=np.float32)
        with self._lock:
            for i in range(0, len(ids), self.batch):
                j = i + self.batch
                col.upsert(
                    ids=list(ids[i:j]),
                    embeddings=vecs[i:j],
                    metadatas=[_clean_meta(m) for m in metadatas[i:j]] if metadatas else None,
                )

    def update_metadata(self, name: str, ids: Sequence[str], metadatas: Sequence[dict[str, Any]]) -> None:
        if not ids:
            return
        col = self.collection(name)
        with self._lock:
            for i in range(0, len(ids), self.batch):
                col.update(ids=list(ids[i : i + self.batch]), metadatas=[_clean_meta(m) for m in metadatas[i : i + self.batch]])

    def delete(self, name: str, ids: Sequence[str]) -> None:
        if not ids:
            return
        col = self.collection(name)
        with self._lock:
            for i in range(0, len(ids), self.batch):
                col.delete(ids=list(ids[i : i + self.batch]))

    def query(
        self, name: str, vector: np.ndarray, n: int, where: dict[str, Any] | None = None
    ) -> list[tuple[str, float]]:
        """(id, cosine similarity), best first."""
        col = self.collection(name)
        with self._lock:
            total = col.count()
            if total == 0 or n <= 0:
                return []
            res = col.query(
                query_embeddings=[np.asarray(vector, dtype=np.float32)],
                n_results=min(n, total),
                where=where or None,
                include=["distances"],
            )
        ids = res["ids"][0]
        dists = res["distances"][0] if res.get("distances") else [1.0] * len(ids)
        return [(i, 1.0 - float(d)) for i, d in zip(ids, dists, strict=False)]

    def query_many(
        self, name: str, vectors: np.ndarray, n: int, where: dict[str, Any] | None = None
    ) -> list[list[tuple[str, float]]]:
        col = self.collection(name)
        if len(vectors) == 0:
            return []
        with self._lock:
            total = col.count()
            if total == 0 or n <= 0:
                return [[] for _ in range(len(vectors))]
            res = col.query(
                query_embeddings=np.asarray(vectors, dtype=np.float32),
                n_results=min(n, total),
                where=where or None,
                include=["distances"],
            )
        return [
            [(i, 1.0 - float(d)) for i, d in zip(ids, dists, strict=False)]
            for ids, dists in zip(res["ids"], res["distances"], strict=False)
        ]

    def get_vectors(self, name: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        if not ids:
            return {}
        col = self.collection(name)
        out: dict[str, np.ndarray] = {}
        with self._lock:
            for i in range(0, len(ids), self.batch):
                res = col.get(ids=list(ids[i : i + self.batch]), include=["embeddings"])
                for vid, vec in zip(res["ids"], res["embeddings"], strict=False):
                    out[vid] = np.asarray(vec, dtype=np.float32)
        return out

    def all_ids(self, name: str) -> list[str]:
        col = self.collection(name)
        out: list[str] = []
        with self._lock:
            total = col.count()
            for off in range(0, total, self.batch):
                res = col.get(include=[], limit=self.batch, offset=off)
                out.extend(res["ids"])
        return out

    def count(self, name: str) -> int:
        with self._lock:
            return int(self.collection(name).count())


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
