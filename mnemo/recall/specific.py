"""Specificity: a memory that says something particular outranks one that says something general,
at equal relevance.

**Why.** A question asks for something in particular ("What activities does Melanie partake
in?", "Where has Melanie camped?"), and what answers it is usually a particular fact ("Melanie
signed up for a pottery class"). Both retrievers also favour general statements: BM25 because a
short memory made of common words scores well on the one common word it shares with the query
("Melanie values family time ..."), and the embedding because a general statement lies near many
questions about its person (a hub, in the sense of Radovanović et al. 2010). Chatter in a
conversation ("Thanks, that means a lot!") is the same kind of memory. How particular a memory
is can be read from the store the keyword side already keeps: the inverse document frequency of
its words, the measure of a word's information content (Spärck Jones 1972).

**How.** The specificity of a text with content words W (its words of two letters or more that
are no stopword, each once, as FTS5 stems them) in a store of N memories (or note passages, for
a passage) is the mean information of its words, as a share of the most a word can carry::

    s(d) = mean_{w ∈ W} ln(N / df(w)) / ln N              in [0, 1]; 1 for a word only d holds

and with γ = ``recall.specificity`` the relevance of each head candidate becomes::

    fused(d) ← fused(d) · ((1 − γ) + γ · s(d))

A factor in [1 − γ, 1], like the re-ranking by retention (``rerank``): relevance only falls, and
by at most 1 − γ, so the pipeline's bound on what can still reach the head stays exact divided by
it; and it depends on the candidate alone, so what recall leaves unloaded changes no score. A
memory is weighed against the memories, a note passage against the passages; a table of fewer
than ``MIN_SIZE`` rows says too little, and its candidates are weighed against the other table
(a vault of a few passages beside a store of thousands of memories), or left alone when both are
that small. A text with no content word is left alone (s = 1). Dividing by ln N keeps the scale
the same on a store of a hundred memories and of a hundred thousand.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Protocol, TypeVar

from .query import STOPWORDS

if TYPE_CHECKING:
    from ..core import Core

_WORD = re.compile(r"[^\W\d_]{2,}", re.UNICODE)
# Below this many memories (or note passages) a table is left alone: document frequencies from a
# few dozen texts are noise (a word in 2 of 12 memories looks as common as one in 1,700 of 10,000),
# and a fact saved with a near-duplicate or two would look general. Not tuned: every LoCoMo store
# is larger (184 to 663 memories), so the held-out figures do not depend on it.
MIN_SIZE = 100


@lru_cache(maxsize=20_000)
def content_words(text: str) -> tuple[str, ...]:
    """The distinct content words of ``text``, lower-cased, in order (cached: the same memories
    come back query after query)."""
    return tuple(dict.fromkeys(w for w in (m.lower() for m in _WORD.findall(text)) if w not in STOPWORDS))


def information(df: int, size: int) -> float:
    """``ln(N / df) / ln N`` of one word, in [0, 1]; a word the store does not hold (df 0)
    counts as held by one text alone."""
    return min(1.0, math.log(size / max(1, min(size, df))) / math.log(size))


def specificity(words: Sequence[str], df: Mapping[str, int], size: int) -> float:
    """``s(d)`` of the module docstring for the content words ``words`` of one text."""
    if not words or size <= 1:
        return 1.0
    return sum(information(df.get(w, 0), size) for w in words) / len(words)


def factor(s: float, weight: float) -> float:
    """``(1 − γ) + γ · s`` with both clamped to [0, 1]."""
    g = min(1.0, max(0.0, weight))
    return (1.0 - g) + g * min(1.0, max(0.0, s))


class _Weighed(Protocol):
    fused: float
    tier: str  # "ltm": a note passage


W = TypeVar("W", bound=_Weighed)


def weigh_specific(core: Core, cands: Sequence[W], text_of: Callable[[W], str], weight: float) -> None:
    """Apply the module docstring's factor to each candidate's relevance, in place."""
    if weight <= 0 or not cands:
        return
    sizes = {table: core.store.fts_size_bound(table) for table in ("memories", "chunks")}
    for own, other, group in (("memories", "chunks", [c for c in cands if c.tier != "ltm"]),
                              ("chunks", "memories", [c for c in cands if c.tier == "ltm"])):
        # Against its own table, or the other one when its own is too small to say anything.
        table = own if sizes[own] >= MIN_SIZE else other
        size = sizes[table]
        if not group or size < MIN_SIZE:
            continue
        words = [content_words(text_of(c)) for c in group]
        vocabulary = list(dict.fromkeys(w for ws in words for w in ws))
        df = core.store.document_frequencies(vocabulary, size, table) if vocabulary else {}
        info = {w: information(df.get(w, 0), size) for w in vocabulary}  # each word once
        for c, ws in zip(group, words, strict=True):
            c.fused *= factor(sum(info[w] for w in ws) / len(ws) if ws else 1.0, weight)
