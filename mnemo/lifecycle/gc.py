"""Garbage collection: the forgetting pass. It never deletes: forgetting archives (``restore``
brings a memory back) and the deepest fade moves a memory to cold storage.

Rules, in order, for each memory (pinned ones are never forgotten; promoted ones live in the
vault and are left alone):

1. layers: a working memory 30 minutes old or used twice becomes episodic; an episodic one
   with importance ≥ 0.7 and ≥ 5 uses (and retention still above the forget threshold) becomes
   semantic, or procedural for decisions and preferences (layered-lifecycle seed's
   auto-promotion): permanent knowledge, no longer decaying. Writing its vault note is
   ``promote``'s job;
2. cold: retention < ``cold_threshold`` (0.001), active or archived → cold storage
   (``lifecycle.cold.freeze``: its vector leaves the hot index, int8-quantized in the store);
3. forget: active with retention < ``forget_threshold`` (0.05) → archived;
4. per-type expiry (Go MIRA seed): a session_note older than 30 calendar days, a debug_log older
   than 7 → archived (semantic and procedural exempt);
5. archival (layered-lifecycle seed): older than 90 calendar days with retention < 0.15,
   importance < 0.3 and fewer than 3 uses → archived (semantic and procedural exempt).

``plan`` decides and changes nothing (``gc --dry-run`` prints it); ``apply`` writes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..clock import DAY
from ..models import Layer, Memory, Status
from ..scoring.activity import ActivityCalendar
from ..scoring.decay import TYPE_AUTO_ARCHIVE_DAYS
from ..scoring.layers import is_permanent, promoted_layer
from .assess import assess

if TYPE_CHECKING:
    from ..core import Core


@dataclass
class GcPlan:
    now: float
    checked: int = 0
    layers: list[dict[str, Any]] = field(default_factory=list)
    archive: list[dict[str, Any]] = field(default_factory=list)
    cold: list[dict[str, Any]] = field(default_factory=list)
    pinned_kept: int = 0

    def to_dict(self, dry_run: bool) -> dict[str, Any]:
        return {
            "dry_run": dry_run,
            "checked": self.checked,
            "archived": self.archive,
            "cold": self.cold,
            "layers": self.layers,
            "pinned_kept": self.pinned_kept,
        }


def archive_reason(m: Memory, layer: str, retention: float, importance: float, age_days: float, s: Any) -> str | None:
    """Why an active, unpinned memory should be archived now, or None (rules 3–5). Pure."""
    if retention < s.forget_threshold:
        return f"retention {retention:.4f} < forget threshold {s.forget_threshold}"
    if is_permanent(layer):
        return None
    limit = TYPE_AUTO_ARCHIVE_DAYS.get(m.type.value)
    if limit is not None and age_days >= limit:
        return f"{m.type.value} older than {limit:g} days"
    if (age_days >= s.archive_after_days and retention < s.archive_retention
            and importance < s.archive_importance and m.use_count < s.archive_max_uses):
        return (f"older than {s.archive_after_days:g} days with retention {retention:.3f} < {s.archive_retention}, "
                f"importance {importance:.3f} < {s.archive_importance} and {m.use_count} uses")
    return None


def plan(core: Core, now: float | None = None) -> tuple[GcPlan, dict[str, Memory]]:
    now = core.now() if now is None else now
    s = core.settings.scoring
    p = GcPlan(now=now)
    calendar = ActivityCalendar(core.store.activity_day_list())
    entities = core.store.entity_counts()
    seen: dict[str, Memory] = {}
    for batch in core.store.iter_memories(batch=1000, status=("active", "archived")):
        scored = assess(core, batch, now, calendar=calendar, entities=entities)
        for m in batch:
            a = scored[m.id]
            p.checked += 1
            seen[m.id] = m
            r = a.retention
            layer = a.layer
            if (m.status == Status.ACTIVE and layer == "episodic" and a.importance >= s.promote_importance
                    and m.use_count >= s.promote_uses and r >= s.forget_threshold):
                layer = promoted_layer(m.type.value)
            if m.status == Status.ACTIVE and layer != m.layer.value:
                p.layers.append({"id": m.id, "from": m.layer.value, "to": layer})
            if m.pinned:
                if m.status == Status.ACTIVE and (r < s.forget_threshold):
                    p.pinned_kept += 1
                continue
            item = {"id": m.id, "retention": round(r, 6)}
            if r < s.cold_threshold:
                p.cold.append({**item, "from": m.status.value, "reason": f"retention {r:.5f} < cold threshold {s.cold_threshold}"})
                continue
            if m.status != Status.ACTIVE:
                continue
            why = archive_reason(m, layer, r, a.importance, max(0.0, now - m.created_at) / DAY, s)
            if why:
                p.archive.append({**item, "importance": round(a.importance, 6), "reason": why})
    return p, seen


def apply(core: Core, p: GcPlan, memories: dict[str, Memory]) -> None:
    from .cold import freeze

    now = p.now
    moved = {d["id"]: d["to"] for d in p.layers}
    updated: list[Memory] = []
    for d in p.archive:
        m = memories[d["id"]]
        layer = Layer(moved.get(m.id, m.layer.value))
        updated.append(replace(m, layer=layer, status=Status.ARCHIVED, archived_at=now, updated_at=now))
    archived_ids = {m.id for m in updated}
    cold_ids = {d["id"] for d in p.cold}
    for mid, to in moved.items():
        if mid not in archived_ids and mid not in cold_ids:
            updated.append(replace(memories[mid], layer=Layer(to), updated_at=now))
    if updated:
        with core.writes() as w:
            for m in updated:
                w.store.update_memory(m)
            w.update_meta(updated)
    if cold_ids:
        frozen = []
        for d in p.cold:
            m = memories[d["id"]]
            frozen.append(replace(m, layer=Layer(moved.get(m.id, m.layer.value)),
                                  archived_at=m.archived_at or now))
        freeze(core, frozen)


def gc(core: Core, dry_run: bool = False, now: float | None = None) -> dict[str, Any]:
    """Plan the forgetting pass and, unless ``dry_run``, apply it. Recorded in the jobs journal."""
    now = core.now() if now is None else now
    job = None if dry_run else core.store.job_start("gc", now)
    try:
        p, memories = plan(core, now)
        if not dry_run:
            apply(core, p, memories)
    except BaseException as exc:
        if job is not None:
            core.store.job_finish(job, core.now(), "failed", {"error": str(exc)})
        raise
    out = p.to_dict(dry_run)
    if job is not None:
        core.store.job_finish(job, core.now(), "done", {
            "checked": p.checked, "archived": len(p.archive), "cold": len(p.cold), "layers": len(p.layers)})
    return out
