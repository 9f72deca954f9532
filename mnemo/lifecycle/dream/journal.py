"""The dream journal: what a run planned, and how far it got.

A run is written as one ``dream_runs`` row and one ``dream_ops`` row per operation, all in one
transaction, before the first change is made. Each operation then goes ``planned`` →
``applied`` (or ``skipped`` / ``failed``, with the reason). A run that a crash or a kill left in
``applying`` is finished by the next ``dream``: its remaining operations are applied again, and
every operation is written so that applying it twice, or after a partial first attempt, ends in
the same state as applying it once.

``checkpoint`` marks the points where a run may be cut short: tests register a hook there (or set
``MNEMO_DREAM_CRASH_AT`` to a point pattern, which SIGKILLs the process at that point) to show that
a run killed anywhere is finished cleanly by the next one.
"""

from __future__ import annotations

import fnmatch
import json
import os
import signal
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...store import Store

CRASH_ENV = "MNEMO_DREAM_CRASH_AT"
MAX_ATTEMPTS = 3  # an operation that broke a run this often is marked failed, so one bad op never blocks every later run

_HOOKS: list[Callable[[str], None]] = []


def checkpoint(point: str) -> None:
    """A point where a run may stop. Points are ``planned``, ``<step>:<kind>:<seq>`` after an
    operation's own writes, ``<step>:flushed`` after the vector index caught up with a group,
    ``<step>:done`` after the group was marked applied, and ``finished``."""
    for hook in list(_HOOKS):
        hook(point)
    target = os.environ.get(CRASH_ENV)
    if target and fnmatch.fnmatchcase(point, target):
        os.kill(os.getpid(), signal.SIGKILL)


@contextmanager
def on_checkpoint(hook: Callable[[str], None]) -> Iterator[None]:
    _HOOKS.append(hook)
    try:
        yield
    finally:
        _HOOKS.remove(hook)


@dataclass
class Op:
    """One planned change. ``payload`` holds what applying needs and what the plan saw (content
    hashes, note hashes), so a change made meanwhile is noticed and never overwritten."""

    step: str
    kind: str
    key: str
    summary: str
    payload: dict[str, Any] = field(default_factory=dict)
    seq: int = 0
    status: str = "planned"
    attempts: int = 0
    result: dict[str, Any] | None = None

    def to_dict(self, full: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {"seq": self.seq, "step": self.step, "kind": self.kind, "key": self.key,
                               "summary": self.summary, "status": self.status}
        if self.result:
            out["result"] = self.result
        if full:
            out["payload"] = self.payload
        return out


class Journal:
    def __init__(self, store: Store) -> None:
        self.store = store

    # -- runs -------------------------------------------------------------------------------
    def unfinished(self) -> dict[str, Any] | None:
        row = self.store.unfinished_dream_run()
        return _run(row) if row else None

    def run(self, run_id: str) -> dict[str, Any] | None:
        row = self.store.dream_run(run_id)
        return _run(row) if row else None

    def runs(self, limit: int = 20) -> list[dict[str, Any]]:
        return [_run(r) for r in self.store.dream_runs(limit)]

    def count(self) -> int:
        return self.store.count_dream_runs()

    def begin(self, run_id: str, started_at: float, steps: Sequence[str], ops: Sequence[Op]) -> None:
        """Record the run and every planned operation in one transaction: after a crash the
        journal holds the whole plan or nothing of it."""
        self.store.begin_dream_run(run_id, started_at, json.dumps(list(steps)),
                                   [(op.seq, op.step, op.kind, op.key, op.summary, _dumps(op.payload)) for op in ops])

    def finish(self, run_id: str, at: float, summary: dict[str, Any], report_path: str | None) -> None:
        self.store.finish_dream_run(run_id, at, _dumps(summary), report_path)

    # -- operations -------------------------------------------------------------------------
    def ops(self, run_id: str) -> list[Op]:
        return [
            Op(step=r["step"], kind=r["kind"], key=r["key"], summary=r["summary"], payload=json.loads(r["payload"]),
               seq=int(r["seq"]), status=r["status"], attempts=int(r["attempts"]),
               result=json.loads(r["result"]) if r["result"] else None)
            for r in self.store.dream_ops(run_id)
        ]

    def attempt(self, run_id: str, seqs: Sequence[int]) -> None:
        self.store.count_dream_attempts(run_id, seqs)

    def settle(self, run_id: str, done: Sequence[Op], at: float) -> None:
        """Mark operations applied, skipped or failed, with their results (one transaction)."""
        self.store.settle_dream_ops(run_id, [(op.seq, op.status, _dumps(op.result or {})) for op in done], at)


def _run(row: dict[str, Any]) -> dict[str, Any]:
    out = dict(row)
    out["steps"] = json.loads(out.get("steps") or "[]")
    out["summary"] = json.loads(out["summary"]) if out.get("summary") else None
    return out


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, sort_keys=True, default=str)
