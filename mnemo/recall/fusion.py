"""Rank fusion of the BM25 and vector rankings.

Two fusions, one formula. For each ranking ``i`` (ids best first, scores, a weight ``w_i`` from
the intent) and each document ``d`` it holds at rank ``r`` with score ``s``:

    fused(d) = Σ_i w_i · [ μ · (k + 1) / (k + r)  +  (1 − μ) · (s − min_i) / (max_i − min_i) ]

- μ = 1 is weighted reciprocal rank fusion (Cormack et al. 2009, k = 60; the MIRA seed's
  hybrid search), scaled so rank 1 gives exactly ``w_i``: the same order as ``weighted_rrf``.
- μ = 0 (mnemo's default, ``recall.rank_mix``) is a convex combination of min–max normalised
  scores (Bruch et al., "An Analysis of Fusion Functions for Hybrid Retrieval", 2023). It keeps
  what ranks throw away: how far ahead the best match is. A memory that shares a rare word
  with the query gets a BM25 score well above the rest, and a memory that says the same thing
  in other words a cosine well above the rest; RRF gives either only 1/61 against 1/62.

Weights per intent (BM25, vector) come from the MIRA seed. Both parts lie in [0, 1], so a fused
score lies in [0, Σ w_i] = [0, 1] when each ranking is used once.
"""

from __future__ import annotations

from collections.abc import Sequence

# BM25 / vector weights per intent (MIRA seed's hybrid search table).
INTENT_WEIGHTS: dict[str, tuple[float, float]] = {
    "recall": (0.6, 0.4),
    "explore": (0.3, 0.7),
    "exact": (0.8, 0.2),
    "general": (0.4, 0.6),
}


def weighted_rrf(rankings: Sequence[tuple[Sequence[str], float]], k: int = 60) -> dict[str, float]:
    """Weighted reciprocal rank fusion: ``score(d) = Σ_i w_i / (k + rank_i(d))`` with ranks from 1.

    ``rankings`` is a list of (ids best-first, weight). A document absent from a ranking gets
    nothing from it. k = 60 is the constant of Cormack et al. (2009).
    """
    scores: dict[str, float] = {}
    for ids, weight in rankings:
        for rank, doc in enumerate(ids, start=1):
            scores[doc] = scores.get(doc, 0.0) + weight / (k + rank)
    return scores


def minmax(scores: Sequence[float]) -> list[float]:
    """``(s − min) / (max − min)``; every score maps to 1.0 when they are all equal (a lone
    match is the best match)."""
    if not scores:
        return []
    lo, hi = min(scores), max(scores)
    if hi - lo <= 1e-12:
        return [1.0] * len(scores)
    return [(s - lo) / (hi - lo) for s in scores]


def fuse(
    rankings: Sequence[tuple[Sequence[tuple[str, float]], float]], k: int = 60, rank_mix: float = 0.0
) -> dict[str, float]:
    """The fusion in the module docstring. ``rankings``: (list of (id, score) best first,
    weight). ``rank_mix`` is μ: 1 = weighted RRF, 0 = normalised-score combination."""
    mu = min(1.0, max(0.0, rank_mix))
    out: dict[str, float] = {}
    for ranking, weight in rankings:
        if not ranking:
            continue
        norm = minmax([s for _, s in ranking])
        for rank, ((doc, _), n) in enumerate(zip(ranking, norm, strict=True), start=1):
            part = mu * (k + 1) / (k + rank) + (1.0 - mu) * n
            out[doc] = out.get(doc, 0.0) + weight * part
    return out

