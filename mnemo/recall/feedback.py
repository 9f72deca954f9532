"""Pseudo-relevance feedback for the keyword side (RM3-style, Lavrenko & Croft 2001; Abdul-Jaleel
et al. 2004).

A question and the memory that answers it often share one word or none ("What does Melanie do
to destress?" / "Running has been great for my mental health"). The best few memories found by
fusion usually do share the topic, and the words they have in common that the query lacks are
the vocabulary the answer is likely to use. So the words that weigh most in the top
``DOCS`` memories (term frequency in the memory × inverse document frequency in the store) are
added to the content words of the query, and that expanded query's BM25 ranking is fused in as
one more ranking, with ``recall.feedback_weight`` × the BM25 weight of the intent:

    fused'(d) = [fused(d) + φ · w_bm25 · minmax(bm25_expanded(d))] / (1 + φ · w_bm25)
                                                                        φ = recall.feedback_weight

The division keeps the weights of the rankings summing to 1, so relevance stays in [0, 1] (the
range the README and docs/API.md give); it scales every candidate alike and changes no order.

Words in more than half of the memories carry no information and are never added. ``φ = 0``
switches it off (one FTS5 query and a read of ``DOCS`` memories saved).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING

from ..index.filters import Filters
from ..index.keywords import document_frequencies, memory_bm25
from .candidates import Pool, fuse_in, rank_key
from .query import STOPWORDS, Query

if TYPE_CHECKING:
    from ..core import Core

DOCS = 3  # memories read for feedback
TERMS = 5  # words added to the query
_WORD = re.compile(r"[^\W\d_]{3,}", re.UNICODE)


def expansion_terms(texts: list[str], query_words: set[str], df: dict[str, int], size: int, terms: int = TERMS) -> list[str]:
    """The ``terms`` words with the highest Σ_d tf(w, d) / |d| · ln(N / df(w)) over ``texts``,
    leaving out stopwords, the query's words, and words found in half the store or more."""
    weight: dict[str, float] = {}
    for text in texts:
        words = [w.lower() for w in _WORD.findall(text)]
        if not words:
            continue
        for w, n in Counter(words).items():
            if w in STOPWORDS or w in query_words:
                continue
            d = df.get(w, 0)
            if d <= 0 or d * 2 >= size:
                continue
            weight[w] = weight.get(w, 0) + n / len(words) * math.log(size / d)
    return [w for w, _ in sorted(weight.items(), key=lambda kv: (-kv[1], kv[0]))[:terms]]


def feed_back(core: Core, pool: Pool, q: Query, filters: Filters, n: int, weight: float) -> list[str]:
    """Apply the module docstring's formula to the pool (in place); returns the words added.
    Only when the keywords matched some memory: feedback refines a keyword search, and words
    taken from what the vector side alone found would pull in memories about anything."""
    if weight <= 0 or q.phrase or not filters.wants_stm or not pool.bm25_memories:
        return []
    top = sorted((c for c in pool.candidates.values() if c.tier == "stm"), key=lambda c: rank_key(c, c.fused))[:DOCS]
    if not top:
        return []
    # In a fixed order: the store returns them in id order, and the sums below would round
    # differently with random ids.
    texts = sorted(core.store.memory_contents([c.id for c in top]))
    query_words = {w.lower() for w in re.findall(r"\w+", q.text)}
    candidates = sorted({w.lower() for t in texts for w in _WORD.findall(t)} - query_words - STOPWORDS)
    if not candidates:
        return []
    size = core.store.fts_size_bound("memories")
    if size <= 0:
        return []
    added = expansion_terms(texts, query_words, document_frequencies(core, candidates, size), size)
    if not added:
        return []
    # FTS5's BM25 is a sum over the query's words, so the expanded query's score is the query's
    # own (known for its best n) plus the added words': only the added words are looked up, half
    # the postings read. (A memory outside both top-n lists is missed, as a cut-off would miss it.)
    summed = dict(pool.memory_scores)
    for cid, raw in memory_bm25(core, replace(q, keywords=" ".join(added)), filters, n, pool.rows):
        summed[cid] = summed.get(cid, 0.0) + raw
    ranking = sorted(summed.items(), key=lambda kv: -kv[1])[:n]
    for c, raw in fuse_in(pool, ranking, pool.rows, weight * q.w_bm25):
        if c.bm25 is None:  # a keyword match after all: it passes the relevance floor
            c.bm25 = raw
    return added
