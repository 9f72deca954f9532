"""Scheduled lifecycle jobs: each runs every ``daemon.<name>_interval`` seconds of the daemon's
clock (0 turns it off).

Why it survives restarts: the time of each job's last run is kept in the store (kv
``daemon.job.<name>.last_run``), and a job is due when ``now >= last_run + interval`` (or when
it never ran). A restart therefore neither repeats a job that just ran nor skips one whose time
came while the daemon was down (it runs once at start, not once per missed interval). The
last-run time is written only when a run ends, so a run cut short by a crash is run again.
Every run leaves a row in the ``jobs`` journal (``ok``, ``error`` or ``skipped``, with what it
did). A job whose engine method does not exist (yet) is journaled as skipped, never a crash.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..clock import day_of, iso
from ..wire import accepts, to_jsonable

if TYPE_CHECKING:
    from ..clock import Clock
    from ..engine import Mnemo
    from ..store import Store

log = logging.getLogger("mnemo.daemon.scheduler")

MAX_DETAIL_ITEMS = 50


class JobSkipped(Exception):
    """The job cannot run here (no such engine method, no vault): journaled as skipped."""


@dataclass
class Job:
    name: str
    interval: float  # seconds of the daemon's clock; <= 0: off
    action: Callable[[], Any]
    about: str = ""
    first_after: float = 0.0  # a job that never ran first runs this long after it was first scheduled
    # Due early, at most every ``early_gap`` seconds, when ``changed(last_run)`` says its output is
    # out of date (the dashboard: a note that says "0 memories" for an hour after an import is wrong).
    changed: Callable[[float], bool] | None = None
    early_gap: float = 60.0

    @property
    def enabled(self) -> bool:
        return self.interval > 0


def _trim(value: Any) -> Any:
    """Journal details stay small: long lists are cut with a count of what was left out."""
    value = to_jsonable(value)
    if isinstance(value, list) and len(value) > MAX_DETAIL_ITEMS:
        return [*value[:MAX_DETAIL_ITEMS], f"... and {len(value) - MAX_DETAIL_ITEMS} more"]
    if isinstance(value, dict):
        return {k: _trim(v) for k, v in value.items()}
    return value


class Scheduler:
    def __init__(
        self,
        store: Store,
        clock: Clock,
        jobs: list[Job],
        runner: Callable[[Callable[[], Any]], Any] | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.jobs = {j.name: j for j in jobs}
        # The daemon passes a runner that holds its operation lock, so a job never runs at the
        # same time as an API call.
        self.runner = runner or (lambda fn: fn())
        self.last_status: dict[str, dict[str, Any]] = {}
        self.running: str | None = None
        self._checked: dict[str, float] = {}  # when each job's ``changed`` was last asked

    @staticmethod
    def _key(name: str) -> str:
        return f"daemon.job.{name}.last_run"

    def last_run(self, name: str) -> float | None:
        value = self.store.kv_get(self._key(name))
        return float(value) if value is not None else None

    def next_run(self, job: Job, now: float | None = None) -> float | None:
        """When ``job`` runs next: ``last_run + interval``; for a job that never ran, its
        ``first_after`` after the time it was first scheduled (kept in the store too, so
        restarts do not push it back); None if it is off."""
        if not job.enabled:
            return None
        last = self.last_run(job.name)
        if last is not None:
            return last + job.interval
        if job.first_after <= 0:
            return self.clock.now() if now is None else now
        key = f"daemon.job.{job.name}.first_scheduled"
        since = self.store.kv_get(key)
        if since is None:
            since = repr(self.clock.now() if now is None else now)
            self.store.kv_set(key, since)
        return float(since) + job.first_after

    def due(self, now: float | None = None) -> list[Job]:
        now = self.clock.now() if now is None else now
        out = []
        for job in self.jobs.values():
            nxt = self.next_run(job, now)
            if nxt is not None and (nxt <= now or self._changed_since_last_run(job, now)):
                out.append(job)
        return out

    def _changed_since_last_run(self, job: Job, now: float) -> bool:
        last = self.last_run(job.name)
        if job.changed is None or last is None or now - last < job.early_gap:
            return False
        if now - self._checked.get(job.name, float("-inf")) < job.early_gap:
            return False
        self._checked[job.name] = now
        try:
            return bool(job.changed(last))
        except Exception:  # noqa: BLE001 - the regular schedule still runs it
            log.exception("checking whether %s is out of date failed", job.name)
            return False

    def run(self, job: Job) -> dict[str, Any]:
        """Run one job now, journal it and record its last run. Never raises."""

        def body() -> dict[str, Any]:
            started = self.clock.now()
            job_id = self.store.job_start(job.name, started)
            self.running = job.name
            try:
                detail = _trim(job.action())
                status = "ok"
            except JobSkipped as exc:
                detail, status = {"reason": str(exc)}, "skipped"
            except Exception as exc:  # noqa: BLE001 - a failing job must not stop the daemon
                log.exception("job %s failed", job.name)
                detail, status = {"error": f"{type(exc).__name__}: {getattr(exc, 'message', exc)}"}, "error"
            finally:
                self.running = None
            if not isinstance(detail, dict):
                detail = {"result": detail}
            finished = self.clock.now()
            self.store.job_finish(job_id, finished, status, detail)
            self.store.kv_set(self._key(job.name), repr(started))
            record = {"id": job_id, "name": job.name, "status": status, "started_at": started,
                      "finished_at": finished, "detail": detail}
            self.last_status[job.name] = record
            log.info("job %s: %s %s", job.name, status, detail)
            return record

        return self.runner(body)

    def tick(self, now: float | None = None) -> list[dict[str, Any]]:
        """Run every job that is due (in a stable order)."""
        return [self.run(job) for job in self.due(now)]

    def seconds_until_next(self) -> float | None:
        now = self.clock.now()
        times = [t for t in (self.next_run(j, now) for j in self.jobs.values()) if t is not None]
        return max(0.0, min(times) - now) if times else None

    def loop(self, stop: threading.Event, max_wait: float = 1.0) -> None:
        """Run due jobs until ``stop`` is set. The wait is capped so a changed clock (tests,
        simulations) is noticed within ``max_wait`` seconds."""
        while not stop.is_set():
            try:
                self.tick()
            except Exception:  # noqa: BLE001 - e.g. the store closed under us at shutdown
                if stop.is_set():
                    return
                log.exception("scheduler tick failed")
            wait = self.seconds_until_next()
            stop.wait(max_wait if wait is None else min(max_wait, max(0.05, wait)))

    def state(self) -> list[dict[str, Any]]:
        out = []
        for job in self.jobs.values():
            last = self.last_run(job.name)
            rec = self.last_status.get(job.name)
            if rec is None:
                rows = self.store.jobs(job.name, limit=1)
                rec = rows[0] if rows else None
            out.append({
                "name": job.name,
                "about": job.about,
                "interval": job.interval,
                "enabled": job.enabled,
                "running": self.running == job.name,
                "last_run": iso(last),
                "next_run": iso(self.next_run(job)),
                "last_status": rec["status"] if rec else None,
                "last_detail": rec["detail"] if rec else None,
            })
        return out


# -- the lifecycle jobs -------------------------------------------------------------------------
def _engine_call(engine: Mnemo, name: str, **kwargs: Any) -> Any:
    """Call ``engine.<name>`` if it exists, passing only the keywords it accepts."""
    method = getattr(engine, name, None)
    if not callable(method):
        raise JobSkipped(f"the engine has no {name}() yet")
    return method(**{k: v for k, v in kwargs.items() if accepts(method, k)})


def _needs_vault(engine: Mnemo) -> None:
    if engine.settings.vault is None:
        raise JobSkipped("no vault is configured")


def mark_activity_day(engine: Mnemo, since: float | None, vault_events: int = 0) -> dict[str, Any]:
    """Mark today an activity day if mnemo was used since the last run: a use, a new memory, or
    a note edited in the vault. Saves, recalls and touches mark the day themselves; this catches
    use that reaches mnemo another way (notes edited in Obsidian). The daemon's own jobs do not
    count: a day on which the person did nothing stays unmarked, so a holiday does not age
    memories."""
    now = engine.now()
    day = day_of(now)
    since = since if since is not None else now - 86400.0
    used = engine.core.store.uses_and_new_since(since)
    reason = "uses or new memories" if used else ("vault edits" if vault_events else None)
    if reason:
        engine.core.store.mark_activity(now)
    return {"day": day, "marked": bool(reason), "reason": reason or "nothing happened"}


def lifecycle_jobs(engine: Mnemo, scheduler_last_run: Callable[[str], float | None],
                   vault_events: Callable[[], int]) -> list[Job]:
    """The daemon's jobs, with intervals from ``DaemonSettings``."""
    d = engine.settings.daemon

    def activity() -> Any:
        return mark_activity_day(engine, scheduler_last_run("activity"), vault_events())

    def promote() -> Any:
        _needs_vault(engine)
        results = _engine_call(engine, "promote", auto=True, dry_run=False)
        return {"promoted": len(results or []), "notes": [getattr(r, "path", r) for r in results or []]}

    def gc() -> Any:
        return _engine_call(engine, "gc", dry_run=False)

    def enrich() -> Any:
        return _engine_call(engine, "enrich_pending")

    def dashboard() -> Any:
        _needs_vault(engine)
        return {"note": _engine_call(engine, "dashboard")}

    def store_changed(since: float) -> bool:
        """A memory saved, used or changed, or a note promoted or demoted, since ``since``."""
        return engine.core.store.changed_since(since)

    def dream() -> Any:
        return _engine_call(engine, "dream", dry_run=False)

    return [
        Job("activity", d.activity_interval, activity, "mark today an activity day when mnemo was used"),
        Job("promote", d.promote_interval, promote, "promote eligible memories into notes"),
        Job("gc", d.gc_interval, gc, "forget (archive) and cold-store faded memories"),
        Job("enrich", d.enrich_interval, enrich, "entities and links for memories saved in bulk"),
        Job("dashboard", d.dashboard_interval, dashboard, "refresh the dashboard note (within a minute of a change)",
            changed=store_changed),
        # The dream cycle first runs one interval after the first start, not on a fresh home.
        Job("dream", d.dream_interval, dream, "the dream cycle", first_after=d.dream_interval),
    ]
