"""Step ``beliefs``: adversarial belief probing. Two memories that cannot both hold
(``graph.rules.exclusive``: polarity flipped, an antonym swapped, a decision choosing what the
other rejected) and carry no update cue are linked ``conflicts`` (newer → older, meaning both
ways); the older one loses importance (× ``dream.conflict_penalty``, 0.5) because the newer
evidence challenges it, and both are listed in the report for a person to settle. Conflicts the
graph already holds (found at write time) are probed too; each older memory is penalised once
per conflicting memory (``meta.belief_probe`` records which)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...clock import iso
from ...models import Link
from .journal import Op
from .relate import relations
from .workspace import set_fields

if TYPE_CHECKING:
    from ...core import Core
    from ...models import Memory
    from .workspace import ApplyContext, PlanContext

NAME = "beliefs"


def _penalised(m: Memory) -> list[str]:
    probe = m.meta.get("belief_probe") if isinstance(m.meta, dict) else None
    return list(probe.get("conflicts_with", [])) if isinstance(probe, dict) else []


def plan(ctx: PlanContext) -> list[Op]:
    ops: list[Op] = []
    pairs: dict[tuple[str, str], tuple[Memory, Memory, Link | None]] = {}
    for link, new, old in relations(ctx):
        if link.rel == "conflicts":
            pairs[(new.id, old.id)] = (new, old, link)
    live = ctx.live()
    if live:
        for src, dst in ctx.core.store.conflict_links():
            a, b = live.get(src), live.get(dst)
            if a is None or b is None:
                continue
            new, old = (a, b) if (a.created_at, a.id) >= (b.created_at, b.id) else (b, a)
            pairs.setdefault((new.id, old.id), (new, old, None))
    for (nid, oid), (_new, old, found) in sorted(pairs.items(), key=lambda kv: (kv[1][0].created_at, kv[0])):
        if nid in _penalised(old):
            continue
        factor = ctx.cfg.conflict_penalty
        ops.append(Op(NAME, "conflict", f"{nid}>{oid}",
                      f"{nid[:8]} conflicts with older {oid[:8]}: its importance {old.importance:.2f} → {old.importance * factor:.2f}",
                      {"new": nid, "old": oid, "link": found is not None, "origin": found.origin if found else None,
                       "weight": found.weight if found else None, "factor": factor}))
    return ops


def apply_conflict(core: Core, op: Op, actx: ApplyContext) -> dict[str, Any]:
    p = op.payload
    rows = core.store.get_memories([p["new"], p["old"]])
    if len(rows) != 2:
        return {"status": "skipped", "new": p["new"], "old": p["old"], "reason": "a memory no longer exists"}
    old = rows[p["old"]]
    before = old.importance
    done = _penalised(old)
    with core.write_lock, core.store.tx():
        if p["link"]:
            core.store.add_links([Link(p["new"], p["old"], "conflicts", p["origin"], p["weight"], actx.now)])
        if p["new"] not in done:
            probe = {"conflicts_with": [*done, p["new"]], "at": iso(actx.now)}
            set_fields(core, old.id, importance=round(before * p["factor"], 6), updated_at=actx.now,
                       meta={**old.meta, "belief_probe": probe})
        else:
            before = before / p["factor"] if p["factor"] else before  # an earlier attempt applied it
    return {"new": p["new"], "old": p["old"], "importance": [round(before, 6), round(before * p["factor"], 6)]}


APPLY = {"conflict": apply_conflict}
