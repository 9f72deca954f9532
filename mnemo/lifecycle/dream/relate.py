"""What several steps read from the same pass over the index and the memories: each memory's
nearest neighbours (one batch of ``query_many`` calls for the whole plan), the entities the live
memories name, and the supersedes / conflicts relations the graph rules find between neighbours."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...models import Link, Memory, MemoryType

if TYPE_CHECKING:
    from .workspace import PlanContext

QUERY_BATCH = 1000
ENTITY_CANDIDATES = 20  # the most recent earlier memories naming an entity that are compared with a memory
RELATED_TYPES = (MemoryType.DECISION, MemoryType.PREFERENCE, MemoryType.FACT)


def neighbours(ctx: PlanContext) -> dict[str, list[tuple[str, float]]]:
    """Each live memory's ``dream.neighbours`` nearest live memories (id, cosine), best first,
    from the Chroma index: O(n·k), never all pairs."""
    if "neighbours" in ctx.shared:
        return ctx.shared["neighbours"]
    live = ctx.live()
    ids = sorted(live)
    vecs = ctx.vectors(ids)
    ids = [i for i in ids if i in vecs]
    k = max(2, ctx.cfg.neighbours + 1)  # +1: a memory is its own nearest neighbour
    out: dict[str, list[tuple[str, float]]] = {}
    for start in range(0, len(ids), QUERY_BATCH):
        part = ids[start : start + QUERY_BATCH]
        found = ctx.core.index.query_many("memories", np.stack([vecs[i] for i in part]), k)
        for me, hits in zip(part, found, strict=True):
            out[me] = [(o, s) for o, s in hits if o != me and o in live]
    ctx.shared["neighbours"] = out
    return out


def entity_groups(ctx: PlanContext) -> dict[str, tuple[str, list[str]]]:
    """entity key → (display name, ids of the live memories naming it, sorted)."""
    if "entities" in ctx.shared:
        return ctx.shared["entities"]
    from ...nlp.fingerprint import entity_key

    groups: dict[str, tuple[str, list[str]]] = {}
    for m in sorted(ctx.live().values(), key=lambda x: (x.created_at, x.id)):
        for name in dict.fromkeys(m.fingerprint.entities):
            key = entity_key(name)
            if not key:
                continue
            shown, ids = groups.setdefault(key, (name, []))
            if m.id not in ids:
                ids.append(m.id)
    if groups and ctx.core.store.has_entity_table():
        from ...graph.db import canonical_names

        canon = canonical_names(ctx.core.store, sorted(groups))
        groups = {k: (canon.get(k, shown), sorted(ids)) for k, (shown, ids) in groups.items()}
    else:
        groups = {k: (shown, sorted(ids)) for k, (shown, ids) in groups.items()}
    ctx.shared["entities"] = groups
    return groups


def relations(ctx: PlanContext) -> list[tuple[Link, Memory, Memory]]:
    """(link, newer, older) for each supersedes or conflicts relation the graph rules
    (``graph.rules.propose``) find between a memory and its older neighbours that the graph
    does not have yet (enrichment only compares a new memory with the recent ones), each
    confirmed by the judge (``judge.relation``)."""
    if "relations" in ctx.shared:
        return ctx.shared["relations"]
    from ...graph.rules import propose
    from ...judge import make_judge
    from ...nlp.fingerprint import entity_key

    judge = make_judge(ctx.core.settings)
    live = ctx.live()
    near = neighbours(ctx)
    have = ctx.core.store.pairs_kept_apart(set(near))
    # Memories naming the same entity are candidates too, whatever their embeddings say.
    holders = {k: sorted(ids, key=lambda i: (live[i].created_at, i)) for k, (_, ids) in entity_groups(ctx).items()}
    out: list[tuple[Link, Memory, Memory]] = []
    for m in sorted(live.values(), key=lambda x: (x.created_at, x.id)):
        if m.type not in RELATED_TYPES:
            continue
        cands = {o for o, sim in near.get(m.id, []) if sim >= ctx.cfg.relate_threshold and o in live}
        for key in {entity_key(e) for e in m.fingerprint.entities}:
            same = holders.get(key, [])
            cands |= set(same[max(0, same.index(m.id) - ENTITY_CANDIDATES):same.index(m.id)] if m.id in same else [])
        older = [live[o] for o in sorted(cands)]
        older = [o for o in older if o.type == m.type and (o.created_at, o.id) < (m.created_at, m.id)
                 and not (m.wing and o.wing and m.wing != o.wing)  # the graph's rule: wings do not mix
                 and (min(o.id, m.id), max(o.id, m.id)) not in have]
        if not older:
            continue
        older.sort(key=lambda x: (x.created_at, x.id))
        for link in propose(m, older, ctx.now):
            if link.rel not in ("supersedes", "conflicts"):
                continue
            other = live[link.dst if link.src == m.id else link.src]
            verdict = judge.relation(m, other, link)
            if verdict is not None and verdict.rel in ("supersedes", "conflicts"):
                out.append((verdict, m, other))
    ctx.shared["relations"] = out
    return out
