"""Rank fusion."""

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
