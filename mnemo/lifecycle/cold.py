"""Cold storage: a memory below the cold threshold leaves the hot vector index; its vector is
kept int8-quantized in the store (≈4× smaller, cosine fidelity ≈ 0.9999 per the layered-
lifecycle seed) so ``restore`` can bring it back without re-embedding."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from ..models import Memory, Status

if TYPE_CHECKING:
    from ..engine import Mnemo


def quantize(vec: np.ndarray) -> tuple[bytes, float]:
    """Symmetric int8: q = round(v / s), s = max|v| / 127."""
    v = np.asarray(vec, dtype=np.float32)
    scale = float(np.max(np.abs(v))) / 127.0 or 1.0
    return np.clip(np.round(v / scale), -127, 127).astype(np.int8).tobytes(), scale


def dequantize(blob: bytes, scale: float) -> np.ndarray:
    v = np.frombuffer(blob, dtype=np.int8).astype(np.float32) * scale
    n = float(np.linalg.norm(v))
    return v / n if n else v


def freeze(engine: Mnemo, memories: list[Memory]) -> int:
    """Move memories to cold storage: quantized vector into the store, out of Chroma."""
    from ..engine import vector_meta  # noqa: F401 - keeps the import graph obvious

    if not memories:
        return 0
    vecs = engine.index.get_vectors("memories", [m.id for m in memories])
    now = engine.now()
    with engine.write_lock, engine.index_write():
        with engine.store.tx() as conn:
            for m in memories:
                vec = vecs.get(m.id)
                if vec is None:
                    vec = engine.embedder.embed([m.content])[0]
                blob, scale = quantize(vec)
                engine.store.update_memory(replace(m, status=Status.COLD, updated_at=now))
                conn.execute("UPDATE memories SET cold_vector = ?, cold_scale = ? WHERE id = ?", (blob, scale, m.id))
        engine.index.delete("memories", [m.id for m in memories])
    return len(memories)


def warm_up(engine: Mnemo, m: Memory) -> Memory:
    """Bring an archived or cold memory back to active, its vector back into the hot index."""
    from ..engine import vector_meta

    rows = engine.store.query("SELECT cold_vector, cold_scale FROM memories WHERE id = ?", (m.id,))
    blob, scale = (rows[0][0], rows[0][1]) if rows else (None, None)
    new = replace(m, status=Status.ACTIVE, updated_at=engine.now(), archived_at=None)
    with engine.write_lock, engine.index_write():
        engine.store.update_memory(new)
        if blob is not None:
            vec = dequantize(blob, float(scale))
        elif m.id in engine.index.get_vectors("memories", [m.id]):
            engine.index.update_metadata("memories", [m.id], [vector_meta(new)])
            return new
        else:
            vec = engine.embedder.embed([new.content])[0]
        engine.index.upsert("memories", [m.id], vec[None, :], [vector_meta(new)])
        engine.store.execute("UPDATE memories SET cold_vector = NULL, cold_scale = NULL WHERE id = ?", (m.id,))
    return new
