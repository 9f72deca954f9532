"""Step ``forget``: the forgetting pass, planned by ``lifecycle.gc`` (retention recomputed with
the scoring functions; archive below ``scoring.forget_threshold``, cold storage below
``scoring.cold_threshold``, working → episodic by age or use) and applied one journaled
operation per memory. Nothing is deleted: ``mnemo restore`` brings an archived or cold memory
back, its vector re-entering the hot index."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ...models import Layer, Status
from ..gc import plan as gc_plan
from .journal import Op
from .workspace import set_fields

if TYPE_CHECKING:
    from ...core import Core
    from ...models import Memory
    from .workspace import ApplyContext, PlanContext

NAME = "forget"
GONE = "the memory no longer exists"


def plan(ctx: PlanContext) -> list[Op]:
    p, memories = gc_plan(ctx.core, ctx.now)
    ops: list[Op] = []
    moved = {d["id"]: d["to"] for d in p.layers}
    gone: set[str] = set()
    for d in p.cold:
        m = memories[d["id"]]
        gone.add(m.id)
        ops.append(Op(NAME, "freeze", m.id, f"cold storage: {m.id[:8]} ({d['reason']})",
                      {"id": m.id, "from": m.status.value, "uses": m.use_count, "layer": moved.get(m.id),
                       "reason": d["reason"], "retention": d["retention"]}))
    for d in p.archive:
        m = memories[d["id"]]
        gone.add(m.id)
        ops.append(Op(NAME, "archive", m.id, f"archive {m.id[:8]} ({d['reason']})",
                      {"id": m.id, "uses": m.use_count, "layer": moved.get(m.id), "reason": d["reason"],
                       "retention": d["retention"]}))
    for mid, to in moved.items():
        if mid not in gone:
            ops.append(Op(NAME, "layer", mid, f"{mid[:8]}: {memories[mid].layer.value} → {to}",
                          {"id": mid, "from": memories[mid].layer.value, "to": to}))
    ctx.claimed |= gone
    return ops


def _changed(m: Memory, op: Op) -> str | None:
    if m.pinned:
        return "pinned since the plan"
    if m.use_count != op.payload["uses"]:
        return "used since the plan"
    return None


def apply_archive(core: Core, op: Op, actx: ApplyContext) -> dict[str, Any]:
    mid = op.payload["id"]
    m = core.store.get_memory(mid)
    if m is not None and m.status == Status.ARCHIVED and m.archived_at == actx.now:
        actx.touch_meta(mid)  # this run archived it already; the index may not know yet
        return {"id": mid, "reason": op.payload["reason"]}
    if m is None:
        return {"status": "skipped", "id": mid, "reason": GONE}
    why = _changed(m, op)
    if why is None and m.status != Status.ACTIVE:
        why = f"it is {m.status.value} now"
    if why:
        return {"status": "skipped", "id": mid, "reason": why}
    layer = Layer(op.payload["layer"]) if op.payload.get("layer") else m.layer
    with core.write_lock:
        set_fields(core, mid, status=Status.ARCHIVED, layer=layer, archived_at=actx.now, updated_at=actx.now)
    actx.touch_meta(mid)
    return {"id": mid, "reason": op.payload["reason"]}


def apply_freeze(core: Core, op: Op, actx: ApplyContext) -> dict[str, Any]:
    mid = op.payload["id"]
    m = core.store.get_memory(mid)
    if m is not None and m.status == Status.COLD:
        actx.freeze_later(m)  # makes sure its vector left the hot index
        return {"id": mid, "reason": op.payload["reason"]}
    if m is None:
        return {"status": "skipped", "id": mid, "reason": GONE}
    why = _changed(m, op)
    if why is None and m.status.value != op.payload["from"]:
        why = f"it is {m.status.value} now"
    if why:
        return {"status": "skipped", "id": mid, "reason": why}
    layer = Layer(op.payload["layer"]) if op.payload.get("layer") else m.layer
    actx.freeze_later(replace(m, layer=layer, archived_at=m.archived_at or actx.now))
    return {"id": mid, "reason": op.payload["reason"]}


def apply_layer(core: Core, op: Op, actx: ApplyContext) -> dict[str, Any]:
    mid = op.payload["id"]
    m = core.store.get_memory(mid)
    if m is None:
        return {"status": "skipped", "id": mid, "reason": GONE}
    if m.layer.value == op.payload["to"]:
        return {"id": mid, "to": op.payload["to"]}
    if m.layer.value != op.payload["from"]:
        return {"status": "skipped", "id": mid, "reason": f"its layer is {m.layer.value} now"}
    with core.write_lock:
        set_fields(core, mid, layer=Layer(op.payload["to"]), updated_at=actx.now)
    actx.touch_meta(mid)
    return {"id": mid, "to": op.payload["to"]}


APPLY = {"archive": apply_archive, "freeze": apply_freeze, "layer": apply_layer}
