"""One operation for the crash tests (``tests/test_faults.py``), run as its own process so that
``MNEMO_FAULT_KILL_AT`` can SIGKILL it at a chosen write.

``python tests/fault_driver.py SCENARIO WORK`` opens the engine on ``WORK/home`` and
``WORK/vault`` (the hash embedder and the clock in ``WORK/plan.json``) and runs the scenario's
plan. Every result the engine has returned is printed at once, one JSON line each, flushed: that
is what the caller was told, so it must survive a kill that comes after it.

The same ``run`` is imported by the tests to count an operation's write points in-process.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

Emit = Callable[..., None]


def open_engine(work: Path, now: float) -> Any:
    from mnemo.clock import Clock
    from mnemo.config import load_settings
    from mnemo.engine import Mnemo
    from mnemo.nlp.embedder import HashEmbedder

    settings = load_settings(home=work / "home", vault=work / "vault", overrides={"embedding.model": "hash-64"})
    return Mnemo(settings, clock=Clock(now), embedder=HashEmbedder(64))


def run(scenario: str, work: Path, emit: Emit) -> None:
    plan = json.loads((work / "plan.json").read_text())
    with open_engine(work, plan["now"]) as m:
        if scenario == "import":
            for name in plan["files"]:
                result = m.import_jsonl(work / name)
                emit("saved", *result.ids)
        elif scenario == "promote":
            for op, mid in plan["steps"]:
                emit("begin", op, mid)
                if op == "promote":
                    emit("promoted", mid, m.promote(mid)[0].path)
                elif op == "demote":
                    m.demote(mid)
                    emit("demoted", mid)
                elif op == "touch":
                    m.touch(mid)
                    emit("touched", mid)
                elif op == "save":
                    emit("saved", *(r.memory.id for r in m.save_many([{"content": mid, "type": "fact"}])))
        elif scenario == "index":
            emit("indexed", m.index_vault())
        elif scenario == "dream":
            emit("dreamt", m.dream()["run_id"])
        else:
            raise SystemExit(f"unknown scenario {scenario!r}")


def _print(*fields: Any) -> None:
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    run(sys.argv[1], Path(sys.argv[2]), _print)
    sys.stdout.write(json.dumps(["done"]) + "\n")
