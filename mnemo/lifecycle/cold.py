"""Cold storage: a memory below the cold threshold leaves the hot vector index; its vector is
kept int8-quantized in the store (≈4× smaller, cosine fidelity ≈ 0.9999 per the layered-
lifecycle seed) so ``restore`` can bring it back without re-embedding."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from ..models import Memory, Status

if TYPE_CHECKING:
    from ..core import Core


def quantize(vec: np.ndarray) -> tuple[bytes, float]:
    """Symmetric int8: q = round(v / s), s = max|v| / 127."""
    v = np.asarray(vec, dtype=np.float32)
    scale = float(np.max(np.abs(v))) / 127.0 or 1.0
    return np.clip(np.round(v / scale), -127, 127).astype(np.int8).tobytes(), scale


def dequantize(blob: bytes, scale: float) -> np.ndarray:
    v = np.frombuffer(blob, dtype=np.int8).astype(np.float32) * scale
    n = float(np.linalg.norm(v))
    return v / n if n else v


def freeze(core: Core, memories: list[Memory]) -> int:
    """Move memories to cold storage: quantized vector into the store, out of Chroma."""
    if not memories:
        return 0
    vecs = core.index.get_vectors("memories", [m.id for m in memories])
    now = core.now()
    with core.writes() as w:
        for m in memories:
            vec = vecs.get(m.id)
            if vec is None:
                vec = core.embedder.embed([m.content])[0]
            blob, scale = quantize(vec)
            w.store.update_memory(replace(m, status=Status.COLD, updated_at=now))
            w.store.set_cold_vector(m.id, blob, scale)
        w.delete([m.id for m in memories])
    return len(memories)


def warm_up(core: Core, m: Memory) -> Memory:
    """Bring an archived or cold memory back to active, its vector back into the hot index."""
    cold = core.store.cold_vector(m.id)
    new = replace(m, status=Status.ACTIVE, updated_at=core.now(), archived_at=None)
    # Statement by statement: the row changes, then the index, and only then is the cold copy
    # dropped, so a crash in between never leaves a memory with neither vector.
    with core.writes(transaction=False) as w:
        w.store.update_memory(new)
        if cold is not None:
            vec = dequantize(*cold)
        elif m.id in core.index.get_vectors("memories", [m.id]):
            w.update_meta([new])
            return new
        else:
            vec = core.embedder.embed([new.content])[0]
        w.upsert([new], vec[None, :])
        w.then(lambda: core.store.clear_cold_vector(m.id))
    return new
