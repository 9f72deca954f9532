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
        rows = self.store.query("SELECT * FROM dream_runs WHERE status = 'applying' ORDER BY started_at, id LIMIT 1")
        return _run(rows[0]) if rows else None

    def run(self, run_id: str) -> dict[str, Any] | None:
        rows = self.store.query("SELECT * FROM dream_runs WHERE id = ?", (run_id,))
        return _run(rows[0]) if rows else None

    def runs(self, limit: int = 20) -> list[dict[str, Any]]:
        rows = self.store.query("SELECT * FROM dream_runs ORDER BY started_at DESC, id DESC LIMIT ?", (limit,))
        return [_run(r) for r in rows]

    def count(self) -> int:
        return int(self.store.query("SELECT count(*) FROM dream_runs")[0][0])

    def begin(self, run_id: str, started_at: float, steps: Sequence[str], ops: Sequence[Op]) -> None:
        """Record the run and every planned operation in one transaction: after a crash the
        journal holds the whole plan or nothing of it."""
        with self.store.tx() as conn:
            conn.execute(
                "INSERT INTO dream_runs (id, started_at, status, steps) VALUES (?, ?, 'applying', ?)",
                (run_id, started_at, json.dumps(list(steps))),
            )
            conn.executemany(
                "INSERT INTO dream_ops (run_id, seq, step, kind, key, summary, payload) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(run_id, op.seq, op.step, op.kind, op.key, op.summary, _dumps(op.payload)) for op in ops],
            )

    def finish(self, run_id: str, at: float, summary: dict[str, Any], report_path: str | None) -> None:
        self.store.execute(
            "UPDATE dream_runs SET status = 'done', finished_at = ?, summary = ?, report_path = ? WHERE id = ?",
            (at, _dumps(summary), report_path, run_id),
        )

    # -- operations -------------------------------------------------------------------------
    def ops(self, run_id: str) -> list[Op]:
        rows = self.store.query("SELECT * FROM dream_ops WHERE run_id = ? ORDER BY seq", (run_id,))
        return [
            Op(step=r["step"], kind=r["kind"], key=r["key"], summary=r["summary"], payload=json.loads(r["payload"]),
               seq=int(r["seq"]), status=r["status"], attempts=int(r["attempts"]),
               result=json.loads(r["result"]) if r["result"] else None)
            for r in rows
        ]

    def attempt(self, run_id: str, seqs: Sequence[int]) -> None:
        with self.store.tx() as conn:
            conn.executemany("UPDATE dream_ops SET attempts = attempts + 1 WHERE run_id = ? AND seq = ?",
                             [(run_id, s) for s in seqs])

    def settle(self, run_id: str, done: Sequence[Op], at: float) -> None:
        """Mark operations applied, skipped or failed, with their results (one transaction)."""
        with self.store.tx() as conn:
            conn.executemany(
                "UPDATE dream_ops SET status = ?, result = ?, applied_at = ? WHERE run_id = ? AND seq = ?",
                [(op.status, _dumps(op.result or {}), at, run_id, op.seq) for op in done],
            )


def _run(row: Any) -> dict[str, Any]:
    out = dict(row)
    out["steps"] = json.loads(out.get("steps") or "[]")
    out["summary"] = json.loads(out["summary"]) if out.get("summary") else None
    return out


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, sort_keys=True, default=str)
