"""Surprise at write (layered-lifecycle seed): a new memory is compared with its k = 5 nearest
stored neighbours (and with the other memories saved in the same batch).

- max cosine ≥ 0.92 → a near-duplicate: flagged ``duplicate_of`` the neighbour and its base
  importance lowered by 0.2; it is stored (never silently twice: the flag is reported).
- otherwise novelty = 1 - max cosine; importance gains ``0.3 · clamp((novelty - 0.08) / 0.42)``,
  i.e. nothing at the duplicate line, the full +0.3 when nothing stored is closer than 0.5.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from ..models import Memory

K = 5
DUPLICATE_COSINE = 0.92
MAX_BOOST = 0.3
DUPLICATE_PENALTY = 0.2


def surprise_boost(max_cosine: float) -> float:
    """Importance gain for a memory whose nearest neighbour has cosine ``max_cosine``."""
    novelty = 1.0 - max_cosine
    return MAX_BOOST * min(1.0, max(0.0, (novelty - (1.0 - DUPLICATE_COSINE)) / 0.42))


def adjust(memory: Memory, max_cosine: float | None, neighbour: str | None) -> tuple[Memory, str | None]:
    if max_cosine is None:
        # Nothing stored yet: the first memory is maximally novel.
        return replace(memory, surprise=1.0, importance=min(1.0, memory.importance + MAX_BOOST)), None
    surprise = round(1.0 - max_cosine, 6)
    if max_cosine >= DUPLICATE_COSINE and neighbour:
        imp = max(0.0, memory.importance - DUPLICATE_PENALTY)
        return replace(memory, surprise=surprise, importance=imp, duplicate_of=neighbour), neighbour
    return replace(memory, surprise=surprise, importance=min(1.0, memory.importance + surprise_boost(max_cosine))), None


def annotate(memories: list[Memory], vectors: Any,
             stored: list[list[tuple[str, float]]]) -> list[tuple[Memory, str | None]]:
    """Each memory adjusted by its nearest neighbour: among ``stored`` (the nearest live stored
    memories of each vector, best first: ``index.vectors.live_neighbours``) and the memories
    before it in the batch; with the id of the neighbour it duplicates, if any."""
    vecs = np.asarray(vectors, dtype=np.float32)
    out: list[tuple[Memory, str | None]] = []
    sims = vecs @ vecs.T if len(vecs) > 1 else None
    for i, m in enumerate(memories):
        best_sim: float | None = None
        best_id: str | None = None
        for nid, sim in stored[i] if i < len(stored) else []:
            if best_sim is None or sim > best_sim:
                best_sim, best_id = sim, nid
        if sims is not None and i > 0:
            j = int(np.argmax(sims[i, :i]))
            if best_sim is None or sims[i, j] > best_sim:
                best_sim, best_id = float(sims[i, j]), memories[j].id
        out.append(adjust(m, best_sim, best_id))
    return out

