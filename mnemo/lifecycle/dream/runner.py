"""Running the dream cycle: plan every step, then apply the plan through the journal.

1. Plan: each selected step, in the cycle's order, reads the store, the index and the vault and
   returns operations; nothing is written (``--dry-run`` stops here and prints them).
2. Record: the run and all its operations go into the journal in one transaction.
3. Apply: operations run in order, in groups of one step; each group's vector-index writes are
   flushed, then the group is marked applied. A report note closes the run.

A run left unfinished (crash, kill, power loss) is finished by the next ``dream`` before
anything new is planned. Ids of what a run creates are derived from what it plans (cluster ids,
content hashes) and the run id from its start time and its plan, so a run that is killed and
finished ends in the same state as one that was never interrupted.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections import Counter
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ...clock import iso
from ...errors import InvalidInput, MnemoError, NotFound
from .journal import MAX_ATTEMPTS, Journal, Op, checkpoint
from .steps import select_steps
from .workspace import ApplyContext, PlanContext

if TYPE_CHECKING:
    from ...core import Core

log = logging.getLogger(__name__)

GROUP = 200  # operations applied between two flushes of the vector index
Progress = Callable[[int], None]


def _modules() -> dict[str, ModuleType]:
    from . import beliefs, bridges, cards, cluster, drift, forget, merge, prune, split, supersede

    mods = [forget, cluster, merge, split, supersede, beliefs, bridges, cards, drift, prune]
    return {m.NAME: m for m in mods}


def _appliers() -> dict[str, Callable[..., dict[str, Any]]]:
    from . import report

    out: dict[str, Callable[..., dict[str, Any]]] = {"report": report.apply_report}
    for mod in _modules().values():
        out.update(mod.APPLY)
    return out


# -- planning -------------------------------------------------------------------------------------
def plan(core: Core, steps: list[str], now: float, only_clusters: set[str] | None = None,
         progress: Progress | None = None) -> tuple[list[Op], dict[str, float]]:
    vault = core.settings.vault if core.settings.vault and core.settings.vault.is_dir() else None
    ctx = PlanContext(core=core, now=now, cfg=core.settings.dream, vault=vault)
    if only_clusters is not None:
        ctx.shared["only_clusters"] = only_clusters
    mods = _modules()
    ops: list[Op] = []
    seconds: dict[str, float] = {}
    for name in steps:
        t0 = time.perf_counter()
        planned = mods[name].plan(ctx)
        ops += planned
        ctx.planned.extend(planned)
        seconds[name] = time.perf_counter() - t0
        if progress:
            progress(1)
    ops = _without_reviews_linked_apart(ops)
    for i, op in enumerate(ops, start=1):
        op.seq = i
    return ops, seconds


def _without_reviews_linked_apart(ops: list[Op]) -> list[Op]:
    """A pair that this same run links as superseded or conflicting is kept apart from then on
    (``store.dream.KEPT_APART``), so it is no near-duplicate for a person to review: listing it would only
    retire it again on the next run."""
    apart = {frozenset(op.key.split(">")) for op in ops if op.kind in ("supersede", "conflict")}
    return [op for op in ops if not (op.kind == "review" and frozenset(op.payload.get("members", ())) in apart)]


def run_id_for(now: float, previous_runs: int, ops: Sequence[Op]) -> str:
    """Deterministic: the same plan at the same time in the same store gets the same id."""
    digest = hashlib.sha256()
    digest.update(f"{now!r}|{previous_runs}".encode())
    for op in ops:
        digest.update(json.dumps([op.step, op.kind, op.key, op.payload], sort_keys=True, default=str).encode())
    return digest.hexdigest()[:12]


# -- applying -------------------------------------------------------------------------------------
def _groups(ops: list[Op]) -> list[list[Op]]:
    out: list[list[Op]] = []
    for op in ops:
        if out and out[-1][0].step == op.step and len(out[-1]) < GROUP:
            out[-1].append(op)
        else:
            out.append([op])
    return out


def apply(core: Core, run_id: str, started_at: float, ops: list[Op], seconds: dict[str, float],
          progress: Progress | None = None) -> None:
    from ...vault import vault_lock

    journal = Journal(core.store)
    appliers = _appliers()
    actx = ApplyContext(core, run_id, now=started_at, started_at=started_at)
    todo = [op for op in ops if op.status == "planned"]
    given_up = [op for op in todo if op.attempts >= MAX_ATTEMPTS]
    for op in given_up:
        op.status, op.result = "failed", {"error": f"gave up after {op.attempts} interrupted attempts"}
    if given_up:
        journal.settle(run_id, given_up, core.now())
    todo = [op for op in todo if op.status == "planned"]
    groups = _groups(todo)
    with vault_lock(core):
        for n, group in enumerate(groups):
            t0 = time.perf_counter()
            step = group[0].step
            for op in group:
                journal.attempt(run_id, [op.seq])  # counted before: an op that kills every attempt is given up
                try:
                    result = dict(appliers[op.kind](core, op, actx))
                except MnemoError as exc:
                    log.warning("dream %s: %s failed: %s", run_id, op.summary, exc.message)
                    result = {"status": "failed", "error": exc.message}
                op.status = result.pop("status", "applied")
                op.result = result
                checkpoint(f"{op.step}:{op.kind}:{op.seq}")
            actx.flush()
            checkpoint(f"{step}:flushed")
            journal.settle(run_id, group, core.now())
            checkpoint(f"{step}:done")
            seconds[step] = seconds.get(step, 0.0) + time.perf_counter() - t0
            if progress and (n + 1 == len(groups) or groups[n + 1][0].step != step):
                progress(1)  # a step (or the report) is applied


def counts(ops: Sequence[Op], status: str | None = None) -> dict[str, dict[str, int]]:
    out: dict[str, Counter[str]] = {}
    for op in ops:
        if status is None or op.status == status:
            out.setdefault(op.step, Counter())[op.kind] += 1
    return {step: dict(c) for step, c in out.items()}


def _summary(ops: Sequence[Op]) -> dict[str, Any]:
    return {
        "planned": len(ops),
        "applied": sum(op.status == "applied" for op in ops),
        "done": counts(ops, "applied"),
        "skipped": [{"seq": op.seq, "step": op.step, "summary": op.summary, "reason": (op.result or {}).get("reason")}
                    for op in ops if op.status == "skipped"],
        "failed": [{"seq": op.seq, "step": op.step, "summary": op.summary, "error": (op.result or {}).get("error")}
                   for op in ops if op.status == "failed"],
    }


def _finish(core: Core, run_id: str, journal: Journal) -> dict[str, Any]:
    ops = journal.ops(run_id)
    summary = _summary(ops)
    report = next((op.result or {} for op in ops if op.kind == "report"), {})
    journal.finish(run_id, core.now(), summary, report.get("path"))
    checkpoint("finished")
    return {**summary, "report": report.get("path"), "ops": [op.to_dict() for op in ops]}


def dream(core: Core, dry_run: bool = False, steps: Sequence[str] | str | None = None,
          only_clusters: set[str] | None = None, progress: Progress | None = None) -> dict[str, Any]:
    """Plan the selected steps and, unless ``dry_run``, apply them (see the module docstring).
    ``progress(1)`` is called as each step is planned and as each step with work is applied."""
    t_start = time.perf_counter()
    journal = Journal(core.store)
    unfinished = journal.unfinished()
    if unfinished is not None:
        return _resume(core, unfinished, dry_run, t_start, progress)
    chosen = select_steps(steps, core.settings.dream.steps)
    now = core.now()
    ops, plan_seconds = plan(core, chosen, now, only_clusters, progress)
    run_id = run_id_for(now, journal.count(), ops)
    base = {"run_id": run_id, "started_at": iso(now), "steps": chosen, "resumed": False}
    if ops:  # the report is an operation of the plan too: the dry run lists exactly what a run applies
        ops.append(Op("report", "report", "report", "write the report note", {}, seq=len(ops) + 1))
    if dry_run or not ops:  # nothing to do is not a run: no journal entry, no empty report note each night
        if progress and not dry_run:
            progress(len(chosen) + 1)
        return {**base, "dry_run": dry_run, "planned": len(ops), "counts": counts(ops),
                "ops": [op.to_dict() for op in ops], "review": review(core),
                **({} if dry_run else {"applied": 0, "done": {}, "skipped": [], "failed": [], "report": None}),
                "seconds": {"plan": _round(plan_seconds), "total": round(time.perf_counter() - t_start, 3)}}
    journal.begin(run_id, now, chosen, ops)
    checkpoint("planned")
    apply_seconds: dict[str, float] = {}
    ticks = _Ticks(progress, len(chosen) + 1)  # plan() gave one tick per step already
    apply(core, run_id, now, ops, apply_seconds, ticks)
    ticks.finish()
    out = _finish(core, run_id, journal)
    return {**base, "dry_run": False, **out, "counts": counts(ops), "review": review(core),
            "seconds": {"plan": _round(plan_seconds), "apply": _round(apply_seconds),
                        "total": round(time.perf_counter() - t_start, 3)}}


def _resume(core: Core, run: dict[str, Any], dry_run: bool, t_start: float,
            progress: Progress | None = None) -> dict[str, Any]:
    journal = Journal(core.store)
    run_id = run["id"]
    ops = journal.ops(run_id)
    base = {"run_id": run_id, "started_at": iso(run["started_at"]), "steps": run["steps"], "resumed": True}
    if dry_run:
        pending = [op for op in ops if op.status == "planned"]
        return {**base, "dry_run": True, "planned": len(pending), "counts": counts(pending),
                "ops": [op.to_dict() for op in pending], "review": review(core),
                "seconds": {"total": round(time.perf_counter() - t_start, 3)}}
    log.info("finishing dream run %s, which was interrupted", run_id)
    apply_seconds: dict[str, float] = {}
    apply(core, run_id, float(run["started_at"]), ops, apply_seconds, progress)
    out = _finish(core, run_id, journal)
    return {**base, "dry_run": False, **out, "counts": counts(ops), "review": review(core),
            "seconds": {"apply": _round(apply_seconds), "total": round(time.perf_counter() - t_start, 3)}}


class _Ticks:
    """The apply phase's progress: one tick per step with work and one for the report, topped
    up at the end (steps without work give none), so the bar always ends full."""

    def __init__(self, progress: Progress | None, total: int) -> None:
        self.progress, self.total, self.given = progress, total, 0

    def __call__(self, n: int) -> None:
        self.given += n
        if self.progress:
            self.progress(n)

    def finish(self) -> None:
        if self.progress and self.given < self.total:
            self.progress(self.total - self.given)
        self.given = self.total


def _round(seconds: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 3) for k, v in seconds.items()}


# -- the review list --------------------------------------------------------------------------------
def review(core: Core) -> list[dict[str, Any]]:
    """Clusters waiting for a person (cohesion in the review band), with their members' text."""
    out: list[dict[str, Any]] = []
    for r in core.store.clusters_in_review():
        ids = r["members"]
        found = core.store.get_memories(ids)
        live = [found[i] for i in ids if i in found and found[i].status.value in ("active", "promoted")]
        if len(live) != len(ids):
            continue  # a member went meanwhile: the next clustering retires it
        out.append({
            "id": r["id"], "cohesion": round(float(r["cohesion"]), 4), "first_seen": iso(r["first_seen"]),
            "members": [{"id": m.id, "content": m.content, "status": m.status.value, "note": m.note_path} for m in live],
        })
    return out


def decide(core: Core, cluster_id: str, accept: bool) -> dict[str, Any]:
    """A person's decision on a review cluster. Accepting merges it now (a journaled run of the
    merge step for this cluster); rejecting keeps its memories apart for good (until the
    cluster's membership changes, which gives it a new id)."""
    cluster_id = (cluster_id or "").strip()
    rows = core.store.clusters_named(cluster_id)
    if not cluster_id or not rows:
        raise NotFound(f"no cluster {cluster_id!r} waits for review", hint="`mnemo dream review` lists them")
    if len(rows) > 1:
        raise InvalidInput(f"cluster id {cluster_id!r} is ambiguous", hint="give more characters of the id")
    row = rows[0]
    cid = row["id"]
    if row["status"] not in ("review", "accepted", "rejected"):
        raise InvalidInput(f"cluster {cid} is {row['status']}", hint="`mnemo dream review` lists the clusters that wait")
    now = core.now()
    with core.write_lock:
        core.store.decide_cluster(cid, "accepted" if accept else "rejected", now)
    if not accept:
        return {"cluster_id": cid, "status": "rejected", "merged_into": None, "run": None}
    result = dream(core, steps=["merge"], only_clusters={cid})
    if result["resumed"]:  # an interrupted run was finished first; now the merge itself
        result = dream(core, steps=["merge"], only_clusters={cid})
    merged = [op for op in result.get("ops", []) if op["kind"] == "merge" and op["key"] == cid]
    if not merged or merged[0]["status"] != "applied":
        why = (merged[0].get("result") or {}).get("reason") if merged else "its memories changed since it was listed"
        return {"cluster_id": cid, "status": "accepted", "merged_into": None, "reason": why, "run": result["run_id"]}
    return {"cluster_id": cid, "status": "merged", "merged_into": merged[0]["result"]["new_id"],
            "note": merged[0]["result"].get("note"), "run": result["run_id"]}
