"""Concurrency: 4 client processes × 500 mixed operations (save, recall, touch, promote) through
one real daemon. No error, nothing lost, and every count exact: the memories saved, the uses
recorded and each memory's use count, the notes promoted (one per memory, however many clients
promoted it at once), and doctor finds the indexes in agreement with the store and the vault.

The daemon runs with the hash embedder (the model's quality is not what this is about) and
without scheduled jobs (they would change what is counted); its vault watcher runs.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import pytest

from mnemo.client import RemoteMnemo
from mnemo.clock import Clock
from mnemo.config import load_settings
from mnemo.daemon.endpoint import pid_alive
from mnemo.daemon.process import start_daemon, stop_daemon
from mnemo.engine import Mnemo
from mnemo.nlp.embedder import HashEmbedder
from mnemo.vault.parse import parse_note

from .conftest import ROOT, T0

CLIENT = ROOT / "tests" / "concurrency_client.py"
CLIENTS, OPS, SHARED = 4, 500, 10
JOBS_OFF = {f"MNEMO_DAEMON_{job.upper()}_INTERVAL": "0" for job in ("activity", "promote", "gc", "enrich", "dashboard", "dream")}


@pytest.fixture
def place(tmp_path: Path):
    """Home and vault on a memory file system when there is one: every Chroma write commits
    with an fsync, and this virtual machine's disk makes that 30 ms, which is not what this
    test is about (the fault tests are about what reaches the disk)."""
    shm = Path("/dev/shm")
    root = Path(tempfile.mkdtemp(prefix="mnemo-concurrency-", dir=shm)) if shm.is_dir() and os.access(shm, os.W_OK) else tmp_path
    (root / "vault").mkdir()
    yield root / "home", root / "vault"
    if root != tmp_path:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def daemon(place: tuple[Path, Path]):
    home, vault = place
    env = {"MNEMO_EMBEDDING_MODEL": "hash-64", "MNEMO_VAULT": str(vault), "MNEMO_NOW": "2026-03-02T09:00:00Z", **JOBS_OFF}
    info = start_daemon(home, vault=vault, extra_env=env, timeout=120)
    try:
        yield info, env, home, vault
    finally:
        if pid_alive(info["pid"]):
            try:
                stop_daemon(home)
            except Exception:  # noqa: BLE001 - the test already failed; make sure it is gone
                os.kill(info["pid"], signal.SIGKILL)


def test_four_clients_500_operations_each_lose_nothing(daemon) -> None:
    info, env, home, vault = daemon
    client = RemoteMnemo.connect(home)
    assert client is not None
    shared = [r.memory.id for r in client.save_many(
        [{"content": f"Shared memory {i}: the {t} runbook lives in the wiki.", "tags": ["shared"]}
         for i, t in enumerate(["billing", "search", "deploys", "alerts", "invoices", "gateway", "backups",
                                "onboarding", "mobile", "payments"][:SHARED])])]
    full_env = {**os.environ, "MNEMO_HOME": str(home), **env}
    t0 = time.monotonic()
    procs = [subprocess.Popen([sys.executable, str(CLIENT), str(home), str(n), str(OPS), json.dumps(shared)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=full_env)
             for n in range(CLIENTS)]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err[-2000:]
        results.append(json.loads(out))
    took = time.monotonic() - t0
    assert [r["errors"] for r in results] == [[]] * CLIENTS
    assert [sum(r["counts"].values()) for r in results] == [OPS] * CLIENTS
    saved = {mid: text for r in results for mid, text in r["saved"].items()}
    assert len(saved) == sum(r["counts"]["save"] for r in results)  # every save got its own id
    stats = client.stats()
    assert stats.memories == SHARED + len(saved)
    stop_daemon(home)
    assert not pid_alive(info["pid"])

    settings = load_settings(home=home, vault=vault, overrides={"embedding.model": "hash-64"})
    with Mnemo(settings, clock=Clock(T0), embedder=HashEmbedder(64)) as m:
        # Nothing lost: every acknowledged save, with its text.
        stored = m.core.store.get_memories(list(saved))
        assert {i: mem.content for i, mem in stored.items()} == saved
        # Every touch recorded once, and each memory's use count is exactly its uses (no lost update).
        touches = Counter()
        for r in results:
            touches.update(r["touched"])
        rows = m.core.store.query("SELECT memory_id, kind, count(*) FROM uses GROUP BY memory_id, kind")
        got_touch = {r[0]: r[2] for r in rows if r[1] == "touch"}
        assert got_touch == dict(touches)
        uses = Counter()
        for r in rows:
            uses[r[0]] += r[2]
        counts = {r[0]: r[1] for r in m.core.store.query("SELECT id, use_count FROM memories")}
        assert {i: c for i, c in counts.items() if c} == dict(uses)
        # One note per promoted memory, at the path every client was told.
        promoted: dict[str, set[str]] = {}
        for r in results:
            for mid, paths in r["promoted"].items():
                promoted.setdefault(mid, set()).update(paths)
        assert all(len(paths) == 1 for paths in promoted.values())
        for mid, (path,) in promoted.items():
            mem = m.get(mid)
            assert mem.status.value == "promoted" and mem.note_path == path
            assert parse_note(path, (vault / path).read_text()).mnemo_id == mid
        owners = [parse_note(p.name, p.read_text()).mnemo_id for p in (vault / "Memories").glob("*.md")]
        assert sorted(owners) == sorted(promoted)
        report = m.doctor()
        assert report["ok"], {k: c["sample"] for k, c in report["checks"].items() if not c["ok"]}
    kinds = ("save", "recall", "touch", "promote")
    ops = {k: sum(r["counts"][k] for r in results) for k in kinds}
    ms = {k: round(1000 * sum(r["seconds"][k] for r in results) / max(1, ops[k])) for k in kinds}
    print(f"\n{CLIENTS} clients x {OPS} operations in {took:.1f} s: {ops}, {len(promoted)} notes; mean ms {ms}")
