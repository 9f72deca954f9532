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

import math
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


def confidence(scores: Sequence[float]) -> float:
    """How far a ranking's best score stands out from the rest of its list: ``(max − mean) / std``
    (0 for a list of fewer than three or of equal scores). A keyword search whose rare word
    matches one memory has a best score many deviations above the rest; a search that matched
    only common words, or a vector search where everything is a little alike, has not."""
    if len(scores) < 3:
        return 0.0
    mean = sum(scores) / len(scores)
    var = sum((x - mean) ** 2 for x in scores) / len(scores)
    if var <= 1e-24:
        return 0.0
    return (max(scores) - mean) / math.sqrt(var)


def adapt_weights(rankings: Sequence[tuple[Sequence[tuple[str, float]], float]], alpha: float
                  ) -> list[tuple[Sequence[tuple[str, float]], float]]:
    """The rankings with their weights moved toward the ones that are sure of this query:
    ``w_i' ∝ w_i · confidence_i^α``, rescaled so the weights of the non-empty rankings keep their
    sum (relevance stays in [0, 1]). α = 0 (or fewer than two rankings that can be judged)
    leaves the weights as they are."""
    if alpha <= 0:
        return list(rankings)
    conf = [confidence([x for _, x in r]) if r else 0.0 for r, _ in rankings]
    judged = [i for i, (r, _) in enumerate(rankings) if r and conf[i] > 0]
    if len(judged) < 2:
        return list(rankings)
    raw = {i: rankings[i][1] * conf[i] ** alpha for i in judged}
    total, new_total = sum(rankings[i][1] for i in judged), sum(raw.values())
    if new_total <= 0:
        return list(rankings)
    return [(r, raw[i] * total / new_total if i in raw else w) for i, (r, w) in enumerate(rankings)]
