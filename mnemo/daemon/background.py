"""Operations the daemon runs after it has answered: ``POST /v1/background/<op>``.

A client that must not wait (a client hook at the end of a session: the assistant waits for it)
hands the daemon an operation; the daemon checks the arguments, queues it and answers ``202``
with a job id at once. One worker thread runs the queue in order, each job under the operation
lock like any request, so jobs never overlap each other or a request. Jobs live in memory: a
daemon that stops drops what is still queued (the log says so). Work that must not be lost is
written so that repeating it is harmless (``capture`` keeps its offset in the store and moves it
only after the ingest succeeded, so the next capture reads those lines again).
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections import deque
from typing import TYPE_CHECKING, Any

from ..api import OPERATIONS
from ..errors import DaemonError, InvalidInput, MnemoError, NotFound

if TYPE_CHECKING:
    from .server import Daemon

log = logging.getLogger("mnemo.daemon.background")

MAX_QUEUED = 1000
KEPT = 200  # finished jobs remembered for GET /v1/background


class Background:
    def __init__(self, app: Daemon) -> None:
        self.app = app
        self._ids = itertools.count(1)
        self._cond = threading.Condition()
        self._queue: deque[dict[str, Any]] = deque()
        self._jobs: dict[int, dict[str, Any]] = {}
        self._done: deque[int] = deque()
        self._running: dict[str, Any] | None = None
        self._thread: threading.Thread | None = None

    def submit(self, op: str, kwargs: dict[str, Any]) -> dict[str, Any]:
        """Check the call, queue it, return the job's view (``state: queued``)."""
        if op not in OPERATIONS:
            raise NotFound(f"no operation {op!r}", hint="GET /v1/operations lists them")
        if not OPERATIONS[op]:
            raise InvalidInput(f"{op} only reads: call it directly", hint=f"POST /v1/{op}")
        if self.app.stopping.is_set():
            raise DaemonError("the daemon is stopping", hint="start it again with `mnemo daemon start`")
        self.app._method(op)
        self.app._arguments(op, dict(kwargs))  # bad arguments fail now, not later
        with self._cond:
            if len(self._queue) >= MAX_QUEUED:
                raise DaemonError(f"{MAX_QUEUED} background jobs are already waiting", hint="try again later")
            job: dict[str, Any] = {"id": next(self._ids), "op": op, "state": "queued", "queued_at": time.time(),
                                   "started_at": None, "finished_at": None, "result": None, "error": None,
                                   "_kwargs": kwargs}
            self._jobs[job["id"]] = job
            self._queue.append(job)
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="mnemo-background", daemon=True)
                self._thread.start()
            self._cond.notify_all()
            return {**view(job), "ahead": len(self._queue) - 1 + (self._running is not None)}

    def _loop(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self.app.stopping.is_set():
                    self._cond.wait(0.5)
                if self.app.stopping.is_set():
                    if self._queue:
                        log.warning("stopping with %d background jobs not run: %s", len(self._queue),
                                    ", ".join(f"{j['op']}#{j['id']}" for j in self._queue))
                    return
                job = self._queue.popleft()
                job["state"], job["started_at"] = "running", time.time()
                self._running = job
            try:
                job["result"] = self.app.call(job["op"], job.pop("_kwargs"))
                job["state"] = "done"
            except MnemoError as exc:
                job["state"], job["error"] = "failed", exc.to_dict()
                log.warning("background %s#%d failed: %s", job["op"], job["id"], exc.message)
            except Exception as exc:  # noqa: BLE001 - a job must never kill the worker
                job["state"], job["error"] = "failed", {"error": type(exc).__name__, "message": str(exc)}
                log.exception("background %s#%d failed", job["op"], job["id"])
            with self._cond:
                job["finished_at"] = time.time()
                self._running = None
                self._done.append(job["id"])
                while len(self._done) > KEPT:
                    self._jobs.pop(self._done.popleft(), None)
                self._cond.notify_all()

    def get(self, job_id: int) -> dict[str, Any]:
        with self._cond:
            job = self._jobs.get(job_id)
            if job is None:
                raise NotFound(f"no background job {job_id}", hint="GET /v1/background lists the recent ones")
            return view(job)

    def wait(self, job_id: int | None = None, timeout: float = 60.0) -> bool:
        """Block until job ``job_id`` (or every queued job) has finished; False on timeout."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                job = self._jobs.get(job_id) if job_id is not None else None
                busy = (job is not None and job["state"] in ("queued", "running")) if job_id is not None \
                    else bool(self._queue or self._running)
                if not busy:
                    return True
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)

    def state(self) -> dict[str, Any]:
        with self._cond:
            jobs = list(self._jobs.values())
            return {
                "queued": len(self._queue),
                "running": view(self._running) if self._running else None,
                "failed": sum(1 for j in jobs if j["state"] == "failed"),
                "done": sum(1 for j in jobs if j["state"] == "done"),
                "recent": [view(j) for j in jobs[-10:]],
            }


def view(job: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in job.items() if not k.startswith("_")}
