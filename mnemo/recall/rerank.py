"""Step 3 of recall: the relevance floor, re-ranking by retention and importance, one copy of
near-duplicates, at most a few chunks per note, and results that do not repeat each other
(``diversify``).

Re-ranking (a documented weight that can be switched off)::

    score(d) = relevance(d) · ((1 − w) + w · v(d))          w = recall.rerank_weight (0.1)
    v(d)     = (retention(d) + importance(d)) / 2            for a memory, both in [0, 1]
    v(d)     = 1                                             for a pinned memory
    v(d)     = (1 + 0.5) / 2 = 0.75                          for a person's note (long-term: no
                                                             decay; default importance 0.5)

Relevance stays in charge: with w = 0.1 the strongest memory can gain at most 10 % on the
weakest, enough to order near ties, never to lift an unrelated memory over a relevant one.
``w = 0`` is pure relevance. Retention comes from ``lifecycle.assess.retentions`` (the clock
is the core's: activity days and calendar days as that module documents).

Floor (Go MIRA seed, early pruning ρ = (1 + cos)/2 > 0.6, i.e. cos > 0.2): a candidate stays if
BM25 matched it, if its cosine is above ``recall.floor``, or if it borrowed its relevance from
a neighbouring turn that passes. If nothing passes, the best five stay (the seed's fallback).
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .candidates import Candidate, rank_key

if TYPE_CHECKING:
    from ..core import Core

NOTE_VALUE = 0.75
FLOOR_FALLBACK = 5


def rerank_factor(value: float, weight: float) -> float:
    """``(1 − w) + w · v`` with v and w clamped to [0, 1]."""
    w = min(1.0, max(0.0, weight))
    v = min(1.0, max(0.0, value))
    return (1.0 - w) + w * v


def passes_floor(c: Candidate, floor: float, pool: dict[str, Candidate] | None = None) -> bool:
    def direct(x: Candidate) -> bool:
        return x.bm25 is not None or x.dated or (x.sim is not None and x.sim > floor)

    if direct(c) or c.reason != "match":
        return True
    if c.context_from and pool is not None:
        lender = pool.get(c.context_from)
        return lender is not None and direct(lender)
    return False


def apply_floor(cands: dict[str, Candidate], floor: float) -> list[Candidate]:
    kept = [c for c in cands.values() if passes_floor(c, floor, cands)]
    if kept:
        return kept
    return sorted(cands.values(), key=lambda c: rank_key(c, c.fused))[:FLOOR_FALLBACK]


def rerank(core: Core, cands: Sequence[Candidate], weight: float, now: float | None = None) -> dict[str, float]:
    """Set ``score`` on each candidate; returns the retention of each memory candidate (the
    review step needs it and it costs a query)."""
    if weight <= 0:
        for c in cands:
            c.score = c.fused
        return {}
    from ..lifecycle.assess import retentions

    mems = [c.memory for c in cands if c.memory is not None]
    ret = retentions(core, mems, now) if mems else {}
    for c in cands:
        m = c.memory
        if m is None:
            v = NOTE_VALUE
        elif m.pinned:
            v = 1.0
        else:
            v = (ret.get(m.id, 0.0) + min(1.0, max(0.0, m.importance))) / 2.0
        c.score = c.fused * rerank_factor(v, weight)
    return ret


def vectors_of(core: Core, cands: Sequence[Candidate]) -> dict[str, np.ndarray]:
    """Stored vectors of candidates (memories from "memories", chunks from "chunks")."""
    mem_ids = [c.id for c in cands if c.tier == "stm"]
    chunk_ids = [c.id for c in cands if c.tier == "ltm"]
    out: dict[str, np.ndarray] = {}
    if mem_ids:
        out.update(core.index.get_vectors("memories", mem_ids))
    if chunk_ids:
        # A missing chunk collection only means there are no vectors to compare.
        with contextlib.suppress(Exception):
            out.update(core.index.get_vectors("chunks", chunk_ids))
    return out


def collapse(
    ordered: Sequence[Candidate], vectors: dict[str, Any], threshold: float, per_note: int
) -> list[Candidate]:
    """Walk best first; drop a candidate that is a near-duplicate (cosine ≥ ``threshold``, or
    flagged ``duplicate_of`` a kept memory) of one already kept, or that would be the
    ``per_note + 1``-th chunk of one note."""
    kept: list[Candidate] = []
    kept_ids: set[str] = set()
    per: dict[str, int] = {}
    # The kept vectors, one row each, in a matrix filled as they come (not stacked again for
    # every candidate): the first ``nkept`` rows are what a stack of them would be.
    matrix: np.ndarray | None = None
    nkept = 0
    for c in ordered:
        if c.memory is not None and c.memory.duplicate_of and c.memory.duplicate_of in kept_ids:
            continue
        note = c.hit.path if (c.tier == "ltm" and c.hit is not None) else None
        if note is not None and per_note > 0 and per.get(note, 0) >= per_note:
            continue
        v = vectors.get(c.id)
        if v is not None and nkept and threshold < 1.0 and matrix is not None:
            sims = matrix[:nkept] @ np.asarray(v, dtype=np.float32)
            if float(sims.max()) >= threshold:
                continue
        kept.append(c)
        kept_ids.add(c.id)
        if c.memory is not None:
            kept_ids.add(c.memory.id)
        if v is not None:
            row = np.asarray(v, dtype=np.float32)
            if matrix is None:
                matrix = np.empty((len(ordered), len(row)), dtype=np.float32)
            matrix[nkept] = row
            nkept += 1
        if note is not None:
            per[note] = per.get(note, 0) + 1
    return kept


def diversify(ordered: Sequence[Candidate], vectors: dict[str, Any], weight: float, k: int) -> list[Candidate]:
    """Maximal marginal relevance (Carbonell & Goldstein 1998), greedily from the best: the next
    result is the one with the highest ``score · (1 − λ · max(0, cos to a result already
    chosen))``, λ = ``recall.diversity``. A question whose answer is spread over several talks
    ("what has Caroline done to help others?") is better served by one turn of each than by
    five turns of one; a candidate without a stored vector is never penalised. λ = 0 keeps the
    order. Only the ``k`` results are chosen so; the rest follow in their order, scores untouched
    (review candidates are judged on their relevance). Each chosen score becomes its value when
    chosen (non-increasing down the k: a value only falls as results are chosen), so later steps
    that sort the results by score keep this order."""
    if weight <= 0 or len(ordered) < 3:
        return list(ordered)
    n = len(ordered)
    dim = next((len(v) for c in ordered if (v := vectors.get(c.id)) is not None), 0)
    if dim == 0:
        return list(ordered)
    m = np.zeros((n, dim), dtype=np.float32)
    for i, c in enumerate(ordered):
        v = vectors.get(c.id)
        if v is not None:
            m[i] = np.asarray(v, dtype=np.float32)
    sims = m @ m.T  # a row of zeros (no vector) is never penalised, nor penalises
    scores = np.array([c.score for c in ordered], dtype=np.float64)
    nearest = np.zeros(n)  # max(0, cos) to the results chosen so far
    left = list(range(n))
    out: list[Candidate] = []
    while left and len(out) < k:
        # The first of the best: candidates come in rank order, so ties keep it.
        j = max(left, key=lambda i: (scores[i] * (1.0 - weight * nearest[i]), -i))
        left.remove(j)
        ordered[j].score = float(scores[j] * (1.0 - weight * nearest[j]))
        out.append(ordered[j])
        nearest = np.maximum(nearest, sims[j])
    return out + [ordered[i] for i in left]
