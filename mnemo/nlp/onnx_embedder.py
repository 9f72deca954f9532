"""The sentence-transformers model on ONNX Runtime: the same vectors, less time per text.

Measured on this 2-core machine with all-MiniLM-L6-v2: one query 5.3 ms p50 against 15 ms
through PyTorch (which also holds the GIL between its many small operations, slowing the
recall thread that runs beside it), and 512 short texts in 1.1 s against 1.75 s. The vectors
differ from PyTorch's by at most ~2e-7, so an index built by either serves the other and the
model hash (of the weights) stays the same.

The ONNX graph is exported once from the installed PyTorch weights (``torch.onnx``, the model
plus mean pooling and normalisation) into the model cache (``<home>/models`` unless
``embedding.model_cache`` says otherwise), checked there against PyTorch on probe texts
(including one past the 256-token limit and a padded batch), and saved with the probes'
vectors. Every later load runs the probes again through the tokenizer and the graph alone and
compares, so a wrong tokenizer setting or a damaged file is caught before any vector is made.
Anything that fails (the ``onnx`` package missing, an export error, a mismatch) falls back to
PyTorch with one warning: the backend is a speed-up, never a different answer.

Only models built as Transformer → mean Pooling (→ Normalize), with a ``tokenizer.json``, are
exported; any other local model stays on PyTorch.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import uuid
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .embedder import SentenceTransformerEmbedder, _QueryCache, embed_batched

log = logging.getLogger(__name__)

PROBES = (
    "Alice prefers dark mode in the mobile app.",
    "Ünïcödé, emoji 🙂 and CJK 日本語 text",
    "a",
    " ".join(["The deploy pipeline was migrated to the new CDN after the outage."] * 40),  # > 256 tokens
)
TOLERANCE = 1e-4  # largest difference from PyTorch accepted (measured: 1.5e-7)
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
ST_TYPES = ("sentence_transformers.models.Transformer", "sentence_transformers.models.Pooling")
NORMALIZE = "sentence_transformers.models.Normalize"


def exportable(path: Path) -> bool:
    """A Transformer → mean Pooling (→ Normalize) model with a fast tokenizer file."""
    try:
        modules = json.loads((path / "modules.json").read_text())
        types = [m["type"] for m in modules]
        pooling = json.loads((path / modules[1]["path"] / "config.json").read_text())
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return False
    mean_only = pooling.get("pooling_mode_mean_tokens") and not any(
        pooling.get(k) for k in ("pooling_mode_cls_token", "pooling_mode_max_tokens", "pooling_mode_mean_sqrt_len_tokens")
    )
    return (tuple(types[:2]) == ST_TYPES and types[2:] in ([], [NORMALIZE]) and bool(mean_only)
            and (path / "tokenizer.json").is_file())


class OnnxEmbedder:
    """``Embedder`` on ONNX Runtime, built from (and falling back to) a PyTorch embedder."""

    def __init__(self, torch_embedder: SentenceTransformerEmbedder, cache_dir: Path, cache_size: int = 1000) -> None:
        self.torch = torch_embedder
        self.path = torch_embedder.path
        self.name = torch_embedder.name
        self.batch_size = torch_embedder.batch_size
        self.dim = torch_embedder.dim
        self.cache_dir = cache_dir
        self._cache = _QueryCache(cache_size)
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Any = None
        self._failed = False

    @property
    def model_hash(self) -> str:
        return self.torch.model_hash  # the weights decide the vectors, whichever runtime runs them

    @property
    def backend(self) -> str:
        return "torch" if self._failed else "onnx"

    # -- embedding ----------------------------------------------------------------------------
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if not self._ready():
            return self.torch.embed(texts)
        return embed_batched(texts, self.batch_size, self.dim, self._run)

    def embed_query(self, text: str) -> np.ndarray:
        return self._cache.through(text, lambda t: self.embed([t])[0])

    def _feeds(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """The graph's inputs (``INPUTS``, in order) for a padded batch."""
        enc = self._tokenizer.encode_batch(list(texts))
        return {
            "input_ids": np.array([e.ids for e in enc], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in enc], dtype=np.int64),
        }

    def _run(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self._session.run(None, self._feeds(texts))[0], dtype=np.float32)

    # -- building -----------------------------------------------------------------------------
    def setup_step(self) -> str | None:
        """What the first embedding will wait for, named for a progress bar (None: nothing)."""
        if self._session is not None or self._failed:
            return None
        if self._file.is_file() and self._file.with_suffix(".probes.npy").is_file():
            return "loading the embedding model"
        return "exporting the embedding model to ONNX Runtime (once, about a minute)"

    def prepare(self) -> None:
        self._ready()

    def _ready(self) -> bool:
        if self._session is not None:
            return True
        if self._failed:
            return False
        with self._lock:
            if self._session is None and not self._failed:
                try:
                    self._open()
                except Exception as exc:  # noqa: BLE001 - any failure means: use PyTorch
                    self._failed = True
                    log.warning("ONNX Runtime unavailable for %s (%s): embedding with PyTorch", self.name, exc)
        return self._session is not None

    @property
    def _file(self) -> Path:
        return self.cache_dir / f"{Path(self.name).name}-{self.model_hash}.onnx"

    def _open(self) -> None:
        self._tokenizer = _tokenizer(self.path)
        model, probes = self._file, self._file.with_suffix(".probes.npy")
        if model.is_file() and probes.is_file():
            try:
                self._session = _session(model)
                want = np.load(probes)
                if _matches(self._run(PROBES), want):
                    self.dim = int(want.shape[1])
                    return
                log.warning("the cached ONNX model %s no longer matches its probes: exporting again", model)
            except Exception as exc:  # noqa: BLE001 - a damaged file is exported again
                log.warning("cannot load the cached ONNX model %s (%s): exporting again", model, exc)
            self._session = None
        self._export(model, probes)

    def _export(self, model: Path, probes: Path) -> None:
        import onnx  # noqa: F401 - torch.onnx needs it; fail here with a clear ImportError
        import torch

        from ..security import private_dir, private_file

        private_dir(self.cache_dir)
        st = self.torch._load()
        wrapped = _pooled(st[0].auto_model).eval()
        sample = self._feeds(["a short text", "and a somewhat longer one to pad the first"])
        args = tuple(torch.from_numpy(sample[k]) for k in INPUTS)
        tmp = model.with_name(f".{model.name}.{uuid.uuid4().hex[:8]}.tmp")
        tmp_probes = tmp.with_suffix(".npy")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                torch.onnx.export(
                    wrapped, args, str(tmp), dynamo=False, input_names=list(INPUTS), output_names=["embedding"],
                    dynamic_axes={**{k: {0: "batch", 1: "tokens"} for k in INPUTS}, "embedding": {0: "batch"}},
                    opset_version=17,
                )
            session = _session(tmp)
            self._session = session
            got = self._run(PROBES)
            want = self.torch.embed(list(PROBES))
            if not _matches(got, want):
                raise RuntimeError(f"exported graph differs from PyTorch by {float(np.abs(got - want).max()):.2e}")
            self.dim = int(got.shape[1])
            np.save(tmp_probes, got)
            for p in (tmp, tmp_probes):
                private_file(p)
            os.replace(tmp_probes, probes)
            os.replace(tmp, model)  # last: a model file is only ever seen with its probes
            log.info("exported %s to ONNX at %s", self.name, model)
            self.torch.unload()  # a few hundred MB this process will not need again
        except BaseException:
            self._session = None
            raise
        finally:
            for p in (tmp, tmp_probes):
                p.unlink(missing_ok=True)


def _pooled(model: Any) -> Any:
    """The transformer plus mean pooling and L2 normalisation, as one exportable module (the
    class is made here because torch is imported only when exporting)."""
    import torch

    class Pooled(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            out = self.inner(input_ids=input_ids, attention_mask=attention_mask,
                             token_type_ids=token_type_ids).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(out.dtype)
            mean = (out * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(mean, p=2.0, dim=1)

    return Pooled(model)


def _matches(got: np.ndarray, want: np.ndarray) -> bool:
    return got.shape == want.shape and float(np.abs(got - want).max()) <= TOLERANCE


def _tokenizer(path: Path) -> Any:
    """The model's fast tokenizer with sentence-transformers' settings: truncation at the
    model's ``max_seq_length`` (256 for MiniLM, whatever tokenizer.json says) and padding to
    the longest text of a batch."""
    # The tokenizer's thread pool warns on stderr when the process later forks (a daemon start).
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(path / "tokenizer.json"))
    limit = 256
    try:
        limit = int(json.loads((path / "sentence_bert_config.json").read_text())["max_seq_length"])
    except (OSError, ValueError, KeyError, TypeError):
        log.debug("no max_seq_length in %s: truncating at %d", path, limit)
    tok.enable_truncation(max_length=limit)
    pad = tok.token_to_id("[PAD]")
    tok.enable_padding(pad_id=pad if pad is not None else 0, pad_token="[PAD]")
    return tok


def _session(path: Path) -> Any:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = max(1, min(4, os.cpu_count() or 1))
    opts.inter_op_num_threads = 1
    # Spinning threads would take the core the recall thread needs while FTS5 runs beside it.
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # ORT's arena keeps the peak of the largest batch ever run for good (459 MB resident after
    # 300 note chunks, against 162 MB without it, at the same speed).
    opts.enable_cpu_mem_arena = False
    opts.log_severity_level = 3
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
