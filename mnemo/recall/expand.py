"""Step 4 of recall: expansion along typed links from the top hits, depth-limited and damped.

The MIRA seeds surface memories "with their relational graphs intact but depth-limited": a
decision comes with what superseded it, a bug with what resolved it. Breadth-first from each
of the top ``recall.expand_from`` hits, up to ``recall.expand_depth`` links away::

    score(x) = max over paths  score(seed) · δ^d · Π weight(rel)      δ = recall.expand_damping (0.5)

so a neighbour one link away counts at most half its seed, two links away a quarter. Link
types weigh by how much they say about the seed: typed and causal links 1.0, structural links
(consolidation, splits) 0.8, wikilinks 0.6, ``related`` 0.5, ``was_context_for`` 0.4 and the
dense, cheap ``shares_entity:{Name}`` links 0.3 (sparse links over dense ones, MIRA).

Dead links (the other end no longer exists) are healed on read, but only when the recall is
allowed to write (``touch=True``): a look-only recall changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..index.filters import Filters
from ..models import Link, Memory
from .candidates import Candidate, rank_key

if TYPE_CHECKING:
    from ..core import Core

REL_WEIGHTS: dict[str, float] = {
    "supersedes": 1.0,
    "conflicts": 1.0,
    "causes": 1.0,
    "because": 1.0,
    "triggered": 1.0,
    "contradicts": 1.0,
    "updates": 1.0,
    "resolves": 1.0,
    "invalidated_by": 1.0,
    "motivated_by": 1.0,
    "instance_of": 1.0,
    "consolidated_into": 0.8,
    "split_from": 0.8,
    "wikilink": 0.6,
    "related": 0.5,
    "was_context_for": 0.4,
}
SHARES_ENTITY_WEIGHT = 0.3
MAX_EXPANDED = 50


def rel_weight(rel: str) -> float:
    if rel.startswith("shares_entity:"):
        return SHARES_ENTITY_WEIGHT
    return REL_WEIGHTS.get(rel, 0.5)


def expand(
    core: Core,
    seeds: Sequence[Candidate],
    filters: Filters,
    depth: int,
    damping: float,
    exclude: set[str],
    heal: bool = False,
) -> list[Candidate]:
    """Linked memories reached from ``seeds`` (memories, or notes mnemo owns), best first,
    as candidates with ``reason="link"``; ``exclude`` holds ids already in the results."""
    if depth <= 0 or damping <= 0 or not seeds:
        return []
    store = core.store
    best: dict[str, tuple[float, str, Memory]] = {}
    seen_memory: dict[str, Memory] = {}
    dead: list[Link] = []
    for seed in seeds:
        if seed.memory is None:
            continue
        frontier: list[tuple[str, float]] = [(seed.memory.id, seed.score)]
        visited = {seed.memory.id}
        for _ in range(depth):
            nxt: list[tuple[str, float]] = []
            for node, score in frontier:
                links = store.links_of(node)
                others = [ln.dst if ln.src == node else ln.src for ln in links]
                want = [o for o in others if o not in seen_memory]
                if want:
                    seen_memory.update(store.get_memories(want))
                for ln, other in zip(links, others, strict=True):
                    m = seen_memory.get(other)
                    if m is None:
                        dead.append(ln)
                        continue
                    if other in visited:
                        continue
                    visited.add(other)
                    s = score * damping * rel_weight(ln.rel)
                    nxt.append((other, s))
                    if other in exclude or not filters.matches(m):
                        continue
                    if other not in best or best[other][0] < s:
                        best[other] = (s, seed.id, m)
            frontier = nxt
            if not frontier or len(best) >= MAX_EXPANDED:
                break
    if heal and dead:
        with core.write_lock, store.tx():
            for ln in dead:
                store.remove_links(ln.src, ln.dst, ln.rel)
    out = [Candidate(id=mid, tier="stm", memory=m, score=s, fused=s, reason="link", via=via)
           for mid, (s, via, m) in best.items()]
    return sorted(out, key=lambda c: rank_key(c, c.score))[:MAX_EXPANDED]
