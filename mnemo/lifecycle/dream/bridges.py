"""Step ``bridges``: cross-domain synthesis. An entity named in different domains — different
wings, or tag sets that barely overlap (Jaccard < 0.3, Mnemex's cross-domain test) — links the
most important memory of each domain to the others' with ``shares_entity:{Name}`` (at most
``MAX_BRIDGES`` pairs per entity), and the bridge is noted on the entity's peer card and in the
report. Enrichment links memories by entity only within a recent window; bridges join domains
that never met."""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING, Any

from ...models import Link, Memory
from .journal import Op
from .relate import entity_groups

if TYPE_CHECKING:
    from ...core import Core
    from .workspace import ApplyContext, PlanContext

NAME = "bridges"
MAX_BRIDGES = 3
CROSS_DOMAIN_JACCARD = 0.3
BRIDGE_WEIGHT = 0.6


def domain(m: Memory) -> tuple[str, tuple[str, ...]] | None:
    if m.wing:
        return ("wing", (m.wing,))
    if m.tags:
        return ("tags", tuple(sorted(m.tags)))
    return None


def apart(a: tuple[str, tuple[str, ...]], b: tuple[str, tuple[str, ...]]) -> bool:
    """Whether two domains are different enough for a bridge."""
    if a[0] != b[0]:
        return False  # a wing and a bare tag set: not comparable
    if a[0] == "wing":
        return a[1] != b[1]
    sa, sb = set(a[1]), set(b[1])
    return len(sa & sb) / len(sa | sb) < CROSS_DOMAIN_JACCARD


def describe(d: tuple[str, tuple[str, ...]]) -> str:
    return f"wing {d[1][0]}" if d[0] == "wing" else "tags " + ", ".join(d[1])


def plan(ctx: PlanContext) -> list[Op]:
    live = ctx.live()
    ops: list[Op] = []
    for key, (name, ids) in sorted(entity_groups(ctx).items()):
        reps: dict[tuple[str, tuple[str, ...]], Memory] = {}
        for i in ids:
            m = live.get(i)
            d = domain(m) if m else None
            if m is None or d is None:
                continue
            best = reps.get(d)
            if best is None or (-m.importance, m.id) < (-best.importance, best.id):
                reps[d] = m
        pairs = [(a, b) for a, b in combinations(sorted(reps), 2) if apart(a, b)][:MAX_BRIDGES]
        if not pairs:
            continue
        rel = f"shares_entity:{name}"
        for a, b in pairs:
            x, y = reps[a], reps[b]
            have = {(ln.src, ln.dst) for ln in ctx.core.store.links_of(x.id, rel=rel)}
            if (x.id, y.id) in have or (y.id, x.id) in have:
                continue
            ops.append(Op(NAME, "bridge", f"{key}:{x.id}:{y.id}", f"bridge {name}: {describe(a)} ↔ {describe(b)} ({x.id[:8]} ↔ {y.id[:8]})",
                          {"entity": name, "key": key, "a": x.id, "b": y.id, "domains": [describe(a), describe(b)]}))
    return ops


def apply_bridge(core: Core, op: Op, actx: ApplyContext) -> dict[str, Any]:
    p = op.payload
    if len(core.store.get_memories([p["a"], p["b"]])) != 2:
        return {"status": "skipped", "entity": p["entity"], "reason": "a memory no longer exists"}
    with core.write_lock:
        core.store.add_links([Link(p["a"], p["b"], f"shares_entity:{p['entity']}", "rule", BRIDGE_WEIGHT, actx.now)])
    return {"entity": p["entity"], "a": p["a"], "b": p["b"], "domains": p["domains"]}


APPLY = {"bridge": apply_bridge}
