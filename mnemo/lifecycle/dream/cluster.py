"""Step ``cluster``: near-duplicates found through the vector index, never by comparing all
pairs (Mnemex's clustering, made to scale).

1. Every live memory asks the Chroma index for its ``dream.neighbours`` nearest neighbours
   (``VectorIndex.query_many``, in batches): O(n·k) similarities instead of O(n²).
2. Two memories closer than ``dream.cluster_threshold`` (cosine > 0.83) are joined; clusters are
   the connected components (single linkage, union-find). Pairs the graph says are deliberately
   distinct (``split_from``, ``supersedes``, ``conflicts``, ``consolidated_into``) are not joined,
   and pinned memories stay out.
3. Cohesion is the mean pairwise cosine of a cluster's members (exact, from their vectors):
   ≥ ``dream.merge_cohesion`` (0.9) merges automatically (step ``merge``), from
   ``dream.review_cohesion`` (0.75) up goes to the review list a person accepts or rejects
   (``mnemo dream review``), below that the memories are kept apart. A single-linkage chain
   longer than ``dream.max_cluster`` is reported, never merged.
4. A cluster's id is a hash of its sorted member ids: the same members give the same id in every
   run, so a decision about a cluster sticks until its membership changes.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .journal import Op

if TYPE_CHECKING:
    from ...core import Core
    from .workspace import ApplyContext, PlanContext

NAME = "cluster"


@dataclass(frozen=True)
class Cluster:
    id: str
    members: tuple[str, ...]
    cohesion: float
    size: int

    def band(self, merge_at: float, review_at: float, max_size: int) -> str:
        if self.size > max_size:
            return "oversize"
        if self.cohesion >= merge_at:
            return "merge"
        if self.cohesion >= review_at:
            return "review"
        return "apart"


def cluster_id(members: list[str] | tuple[str, ...]) -> str:
    """Stable across runs: a hash of the sorted member ids."""
    return "c" + hashlib.sha256("\n".join(sorted(members)).encode()).hexdigest()[:16]


def cohesion(vectors: np.ndarray) -> float:
    """Mean pairwise cosine of the rows (Mnemex: average intra-cluster similarity)."""
    n = len(vectors)
    if n < 2:
        return 1.0
    v = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    sims = v @ v.T
    return float((sims.sum() - np.trace(sims)) / (n * (n - 1)))


def components(edges: list[tuple[str, str]]) -> list[list[str]]:
    """Connected components (single linkage) of an edge list, each sorted, largest first then by id."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[str, list[str]] = {}
    for x in parent:
        groups.setdefault(find(x), []).append(x)
    return sorted((sorted(g) for g in groups.values()), key=lambda g: (-len(g), g[0]))


def find_clusters(ctx: PlanContext) -> list[Cluster]:
    """Every cluster of two or more live, unpinned memories (computed once per plan)."""
    if "clusters" in ctx.shared:
        return ctx.shared["clusters"]
    from .relate import neighbours

    cfg = ctx.cfg
    live = {i: m for i, m in ctx.live().items() if not m.pinned}
    near = neighbours(ctx)
    edges: dict[tuple[str, str], float] = {}
    for me in sorted(live):
        for other, sim in near.get(me, []):
            if other in live and sim > cfg.cluster_threshold:
                pair = (min(me, other), max(me, other))
                edges[pair] = max(sim, edges.get(pair, -1.0))
    if edges:
        apart = ctx.core.store.pairs_kept_apart({x for pair in edges for x in pair})
        for pair in apart:
            edges.pop(pair, None)
    out: list[Cluster] = []
    vecs = ctx.vectors(sorted({x for pair in edges for x in pair}))
    for group in components(sorted(edges)):
        if len(group) > cfg.max_cluster:
            members = set(group)
            coh = float(np.mean([s for (a, _b), s in edges.items() if a in members]))  # a chain: a cheap estimate
        else:
            coh = cohesion(np.stack([vecs[i] for i in group]))
        out.append(Cluster(cluster_id(group), tuple(group), round(coh, 6), len(group)))
    ctx.shared["clusters"] = out
    return out


def known(core: Core) -> dict[str, dict[str, Any]]:
    return core.store.dream_clusters()


def plan(ctx: PlanContext) -> list[Op]:
    cfg = ctx.cfg
    seen = known(ctx.core)
    clusters = find_clusters(ctx)
    ops: list[Op] = []
    current: set[str] = set()
    for c in clusters:
        band = c.band(cfg.merge_cohesion, cfg.review_cohesion, cfg.max_cluster)
        current.add(c.id)
        if band == "review" and seen.get(c.id, {}).get("status", "stale") == "stale":
            ops.append(Op(NAME, "review", c.id, f"review cluster {c.id} ({c.size} memories, cohesion {c.cohesion:.3f})",
                          {"cluster_id": c.id, "members": list(c.members), "cohesion": c.cohesion}))
        elif band == "oversize":
            ops.append(Op(NAME, "oversize", c.id, f"chain of {c.size} near-duplicates left alone ({c.id})",
                          {"cluster_id": c.id, "size": c.size, "members": list(c.members[:20])}))
    from .merge import auto_merges

    # Cohesive enough to merge, but contradicting itself (or doubted by the judge): a person decides.
    for c, why in auto_merges(ctx):
        if why and seen.get(c.id, {}).get("status", "stale") == "stale":
            ops.append(Op(NAME, "review", c.id, f"review cluster {c.id} ({c.size} memories): {why}",
                          {"cluster_id": c.id, "members": list(c.members), "cohesion": c.cohesion, "why": why}))
    for cid, row in sorted(seen.items()):
        if row["status"] == "review" and cid not in current:
            ops.append(Op(NAME, "retire", cid, f"review cluster {cid} no longer exists (its memories changed)",
                          {"cluster_id": cid}))
    return ops


def apply_review(core: Core, op: Op, actx: ApplyContext) -> dict[str, Any]:
    p = op.payload
    with core.write_lock:
        core.store.put_cluster_in_review(p["cluster_id"], p["members"], p["cohesion"], actx.now)
    return {"cluster_id": p["cluster_id"], "members": p["members"], "cohesion": p["cohesion"]}


def apply_retire(core: Core, op: Op, actx: ApplyContext) -> dict[str, Any]:
    with core.write_lock:
        core.store.retire_cluster(op.payload["cluster_id"], actx.now)
    return {"cluster_id": op.payload["cluster_id"]}


def apply_oversize(core: Core, op: Op, actx: ApplyContext) -> dict[str, Any]:
    return {"cluster_id": op.payload["cluster_id"], "size": op.payload["size"]}  # reported only


APPLY = {"review": apply_review, "retire": apply_retire, "oversize": apply_oversize}
