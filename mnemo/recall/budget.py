"""Step 6 of recall: the context budget allocator (CBA of the Go MIRA seed).

Greedy by score with lazy re-scoring. Each popped item is re-scored against what is already
chosen (S)::

    adjusted(c) = score(c) · (1 − max_{s∈S} max(0, cos(c, s)))      overlap with what is chosen
                          · exp(−α · |{s ∈ S : causal link c–s}|)  α = 0.15: long causal chains
                          · (1 + β · [∃ s ∈ S : |t(c) − t(s)| < 2 h])   β = 0.2: same session

If the next item's key · 0.8 still beats ``adjusted(c)``, c goes back with its new key (the
seed's dynamic renormalisation); otherwise c is taken, rendered in the richest mode the budget
left allows, and downgraded when that mode would not fit:

    remaining ≥ 1000 tokens → verbatim (T0, the text),  ≥ 100 → fingerprint (T1, ~15 %),
    below → header ([type | date | wing] → id).

One change to the seed: a richer rendering that costs at most 1.5 times the one the budget
asks for is used instead (a short memory's fingerprint or header saves a few tokens and loses
what it says; compressing must save at least a third). Token counts are cl100k (tiktoken) and
include the newline that separates items. **The budget is never exceeded**: an item that does
not fit even as a header is skipped, and ``allocate`` re-counts the assembled block at the end,
dropping the lowest-scored items should the separately counted parts ever disagree with it.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..nlp.tokens import count_tokens

VERBATIM, FINGERPRINT, HEADER = "verbatim", "fingerprint", "header"
MODES = (VERBATIM, FINGERPRINT, HEADER)
VERBATIM_MIN_REMAINING = 1000
FINGERPRINT_MIN_REMAINING = 100
DEFER_RATIO = 0.8
WORTH_COMPRESSING = 1.5  # a richer rendering costing at most 1.5x the poorer one is used instead
SEPARATOR = "\n"


@dataclass(frozen=True)
class CBAParams:
    overlap_penalty: bool = True
    causal_alpha: float = 0.15
    session_window: float = 7200.0
    session_boost: float = 0.2


@dataclass
class Item:
    """Something that can go into a prompt: its three renderings and what the penalties need."""

    key: str
    score: float
    texts: dict[str, str]  # mode → rendered text (one line or more, no trailing newline)
    vector: np.ndarray | None = None
    created_at: float | None = None
    causal: frozenset[str] = frozenset()  # keys of items it has a causal link with
    payload: Any = None
    _costs: dict[str, int] = field(default_factory=dict, repr=False)

    def cost(self, mode: str) -> int:
        """Tokens of the rendering plus its separating newline."""
        if mode not in self._costs:
            self._costs[mode] = count_tokens(self.texts[mode]) + 1
        return self._costs[mode]


@dataclass
class Chosen:
    item: Item
    mode: str
    tokens: int
    adjusted: float

    @property
    def text(self) -> str:
        return self.item.texts[self.mode]


@dataclass
class Allocation:
    budget: int
    chosen: list[Chosen]
    used: int

    @property
    def text(self) -> str:
        return SEPARATOR.join(c.text for c in self.chosen)


def mode_for(remaining: int) -> str:
    """The richest mode the remaining budget allows (seed thresholds)."""
    if remaining >= VERBATIM_MIN_REMAINING:
        return VERBATIM
    if remaining >= FINGERPRINT_MIN_REMAINING:
        return FINGERPRINT
    return HEADER


def fit(item: Item, remaining: int, left_overall: int | None = None) -> tuple[str, int] | None:
    """The mode and cost ``item`` takes with ``remaining`` tokens left (``left_overall`` of the
    whole prompt, which picks the mode), downgrading until it fits; None if even its header
    does not."""
    mode = mode_for(remaining if left_overall is None else left_overall)
    for richer in MODES[: MODES.index(mode)]:
        if item.cost(richer) <= WORTH_COMPRESSING * item.cost(mode):
            mode = richer  # compressing would save less than a third: not worth losing the text
            break
    for m in MODES[MODES.index(mode):]:
        c = item.cost(m)
        if c <= remaining:
            return m, c
    return None


def adjusted_score(item: Item, chosen: Sequence[Chosen], p: CBAParams) -> float:
    """The seed's re-scored value of ``item`` given the items already chosen."""
    if not chosen:
        return item.score
    s = item.score
    if p.overlap_penalty and item.vector is not None:
        vecs = [c.item.vector for c in chosen if c.item.vector is not None]
        if vecs:
            sims = np.stack(vecs) @ np.asarray(item.vector, dtype=np.float32)
            s *= 1.0 - min(1.0, max(0.0, float(sims.max())))
    links = sum(1 for c in chosen if c.item.key in item.causal or item.key in c.item.causal)
    s *= math.exp(-p.causal_alpha * links)
    if item.created_at is not None and any(
        c.item.created_at is not None and abs(item.created_at - c.item.created_at) < p.session_window for c in chosen
    ):
        s *= 1.0 + p.session_boost
    return s


def allocate(
    items: Sequence[Item], budget: int, params: CBAParams = CBAParams(), counter: Callable[[str], int] = count_tokens,
    headroom: int = 0,
) -> Allocation:
    """Pick and render items within ``budget`` tokens (algorithm in the module docstring).
    ``headroom``: tokens of the whole prompt budget beyond this allocation's own (a section
    capped below what is left): render modes follow what is left of the whole, costs must fit
    this allocation."""
    budget = max(0, int(budget))
    chosen: list[Chosen] = []
    used = 0
    heap: list[tuple[float, int, int, int]] = []  # (-key, tie, index, |S| when the key was set)
    for i, it in enumerate(items):
        if it.score > 0:
            heapq.heappush(heap, (-it.score, i, i, 0))
    while heap and used < budget:
        neg, tie, i, version = heapq.heappop(heap)
        item = items[i]
        adj = -neg if version == len(chosen) else adjusted_score(item, chosen, params)
        if adj <= 0:
            continue  # a duplicate of what is chosen adds nothing
        if version != len(chosen) and heap and -heap[0][0] * DEFER_RATIO > adj:
            heapq.heappush(heap, (-adj, tie, i, len(chosen)))
            continue
        placed = fit(item, budget - used, budget - used + max(0, headroom))
        if placed is None:
            continue
        mode, cost = placed
        chosen.append(Chosen(item, mode, cost, adj))
        used += cost
    alloc = Allocation(budget=budget, chosen=chosen, used=used)
    return enforce(alloc, counter)


def enforce(alloc: Allocation, counter: Callable[[str], int] = count_tokens) -> Allocation:
    """Count the assembled text; drop the lowest-scored items until it is within budget."""
    while alloc.chosen and counter(alloc.text) > alloc.budget:
        worst = min(range(len(alloc.chosen)), key=lambda j: alloc.chosen[j].adjusted)
        alloc.chosen.pop(worst)
    alloc.used = counter(alloc.text) if alloc.chosen else 0
    return alloc


# -- renderings -------------------------------------------------------------------------------
def _one_line(text: str) -> str:
    return " ".join(text.split())


def gist(text: str, tokens: int | None = None) -> str:
    """About 15 % of a text (at least 8 tokens, whole words), for the fingerprint mode of a
    memory whose fingerprint has no facts."""
    from ..nlp.tokens import truncate_to_tokens

    flat = _one_line(text)
    n = tokens if tokens is not None else count_tokens(flat)
    limit = max(8, math.ceil(0.15 * n))
    if n <= limit:
        return flat
    cut = truncate_to_tokens(flat, limit)
    if " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:") + "…"


def facts_text(fp: Any) -> str:
    """T1 of a memory, the essentials of its fingerprint in one line ('' when it has none)."""
    if fp is None:
        return ""
    parts: list[str] = []
    if getattr(fp, "decision", None):
        parts.append(f"decision: {fp.decision}")
    if getattr(fp, "rejected", ()):
        parts.append("rejected: " + ", ".join(fp.rejected))
    if getattr(fp, "reasons", ()):
        parts.append("because: " + "; ".join(fp.reasons))
    if getattr(fp, "entities", ()):
        parts.append("entities: " + ", ".join(fp.entities[:8]))
    if getattr(fp, "subjects", ()):
        parts.append("subjects: " + ", ".join(fp.subjects[:5]))
    return _one_line("; ".join(parts))


def renderings(
    ref: str, label: str, content: str, fingerprint: Any = None, header: str | None = None, tokens: int | None = None
) -> dict[str, str]:
    """The three renderings of one item. ``ref`` is what a reader uses to act on it (a short
    memory id, or a note's path), ``label`` its kind and date."""
    body = content.strip()
    facts = facts_text(fingerprint)
    return {
        VERBATIM: f"[{ref}] ({label}) {body}",
        FINGERPRINT: f"[{ref}] ({label}) {facts or gist(body, tokens)}",
        HEADER: header or f"[{label}] → {ref}",
    }
