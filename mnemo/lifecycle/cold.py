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
    from ..core import vector_meta  # noqa: F401 - keeps the import graph obvious

    if not memories:
        return 0
    vecs = core.index.get_vectors("memories", [m.id for m in memories])
    now = core.now()
    with core.write_lock, core.index_write():
        with core.store.tx() as conn:
            for m in memories:
                vec = vecs.get(m.id)
                if vec is None:
                    vec = core.embedder.embed([m.content])[0]
                blob, scale = quantize(vec)
                core.store.update_memory(replace(m, status=Status.COLD, updated_at=now))
                conn.execute("UPDATE memories SET cold_vector = ?, cold_scale = ? WHERE id = ?", (blob, scale, m.id))
        core.index.delete("memories", [m.id for m in memories])
    return len(memories)


def warm_up(core: Core, m: Memory) -> Memory:
    """Bring an archived or cold memory back to active, its vector back into the hot index."""
    from ..core import vector_meta

    rows = core.store.query("SELECT cold_vector, cold_scale FROM memories WHERE id = ?", (m.id,))
    blob, scale = (rows[0][0], rows[0][1]) if rows else (None, None)
    new = replace(m, status=Status.ACTIVE, updated_at=core.now(), archived_at=None)
    with core.write_lock, core.index_write():
        core.store.update_memory(new)
        if blob is not None:
            vec = dequantize(blob, float(scale))
        elif m.id in core.index.get_vectors("memories", [m.id]):
            core.index.update_metadata("memories", [m.id], [vector_meta(new)])
            return new
        else:
            vec = core.embedder.embed([new.content])[0]
        core.index.upsert("memories", [m.id], vec[None, :], [vector_meta(new)])
        core.store.execute("UPDATE memories SET cold_vector = NULL, cold_scale = NULL WHERE id = ?", (m.id,))
    return new
