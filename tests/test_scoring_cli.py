"""Must show 4, through the real ``mnemo`` command with ``--now``: a memory saved and never used
is not eligible; touched 5 times over 4 days it is; left alone while the store is used, it
falls below the forget threshold, ``gc`` archives it and ``restore`` brings it back.

Subprocesses use the ``hash-64`` embedder: this is a test of the lifecycle logic, not of
embedding quality, and it keeps each call well under a second."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.conftest import run_cli

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
ENV = {"MNEMO_EMBEDDING_MODEL": "hash-64"}


def _at(days: float) -> str:
    return (START + timedelta(days=days)).isoformat().replace("+00:00", "Z")


def mnemo(home: Path, days: float, *args: str) -> dict:
    p = run_cli("--now", _at(days), *args, "--json", home=home, env=ENV)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_save_touch_eligible_fade_gc_restore(home: Path) -> None:
    mid = mnemo(home, 0, "save", "The release checklist lives in docs/release.md", "--type", "fact")["id"]
    other = mnemo(home, 0, "save", "Standup moved to 9:30", "--type", "fact")["id"]

    ex = mnemo(home, 0.1, "explain", mid)
    assert ex["promotion"]["eligible"] is False and ex["promotion"]["why"] == "never used"
    assert ex["retention"] <= 0.5

    for day in (0.2, 1, 2, 3, 4):  # five touches over four days
        mnemo(home, day, "touch", mid)
    ex = mnemo(home, 4.01, "explain", mid)
    assert ex["use_count"] == 5 and ex["promotion"]["uses_in_window"] == 5
    assert ex["retention"] >= 0.65 and ex["promotion"]["eligible"] is True

    day = 4.01
    for _ in range(14):  # the store is used every day, this memory never
        day += 1
        mnemo(home, day, "touch", other)
    ex = mnemo(home, day, "explain", mid)
    assert ex["retention"] < 0.05 and ex["retention_factors"]["idle_activity_days"] == 14
    assert ex["would_forget"] is True and ex["promotion"]["eligible"] is False

    dry = mnemo(home, day, "gc", "--dry-run")
    assert mid in [a["id"] for a in dry["archived"]]
    done = mnemo(home, day, "gc")  # the dry run changed nothing: gc still has it to archive
    assert mid in [a["id"] for a in done["archived"]] and other not in [a["id"] for a in done["archived"]]
    assert mnemo(home, day, "show", mid)["status"] == "archived"

    back = mnemo(home, day + 0.1, "restore", mid[:8])
    assert back["id"] == mid and back["status"] == "active"


def test_cli_errors_are_clean(home: Path) -> None:
    p = run_cli("explain", "nope-nope", home=home, env=ENV)
    assert p.returncode == 1 and p.stderr.startswith("Error: no memory with id") and "Traceback" not in p.stderr
    p = run_cli("observe", home=home, env=ENV)
    assert p.returncode == 2  # usage error: ids are required
