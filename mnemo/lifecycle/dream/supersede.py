"""Step ``supersede``: a newer memory that updates an older one on the same subject
(``graph.rules``: an update cue such as "now", "switched to", "instead", with an overlap of
subject) gets a ``supersedes`` link to it, and the older is marked ``superseded_by`` the newer.
The older stays active: it is the version history (MIRA: supersession never deletes). Pairs are
looked for among vector neighbours of any age, beyond the recent window enrichment compares."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...models import Link
from .journal import Op
from .relate import relations

if TYPE_CHECKING:
    from ...core import Core
    from .workspace import ApplyContext, PlanContext

NAME = "supersede"


def plan(ctx: PlanContext) -> list[Op]:
    ops: list[Op] = []
    for link, new, old in relations(ctx):
        if link.rel != "supersedes" or old.superseded_by:
            continue
        ops.append(Op(NAME, "supersede", f"{new.id}>{old.id}", f"{new.id[:8]} supersedes {old.id[:8]}",
                      {"new": new.id, "old": old.id, "origin": link.origin, "weight": link.weight}))
    return ops


def apply_supersede(core: Core, op: Op, actx: ApplyContext) -> dict[str, Any]:
    p = op.payload
    rows = core.store.get_memories([p["new"], p["old"]])
    if len(rows) != 2:
        return {"status": "skipped", "new": p["new"], "old": p["old"], "reason": "a memory no longer exists"}
    old = rows[p["old"]]
    if old.superseded_by not in (None, p["new"]):
        return {"status": "skipped", "new": p["new"], "old": p["old"], "reason": f"already superseded by {old.superseded_by[:8]}"}
    with core.write_lock, core.store.tx():
        core.store.add_links([Link(p["new"], p["old"], "supersedes", p["origin"], p["weight"], actx.now)])
        core.store.set_superseded_by(p["old"], p["new"])
    return {"new": p["new"], "old": p["old"]}


APPLY = {"supersede": apply_supersede}
