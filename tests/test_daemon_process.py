"""The daemon as a real process: `mnemo daemon start|stop|status`, the CLI as its thin client,
the one-owner rule, the token and loopback-only API, and what a `kill -9` mid-import leaves.

Each test starts a real daemon subprocess on a temporary home (the hash embedder keeps the
start-up to about a second; the model's quality is not what these tests are about)."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mnemo.client import RemoteMnemo
from mnemo.daemon.endpoint import endpoint_path, pid_alive, read_endpoint
from mnemo.lock import OwnerLock

from .conftest import run_cli

# The hash embedder, and spaCy loaded only by a test that needs it (2 cores are shared).
FAST = {"MNEMO_EMBEDDING_MODEL": "hash-64", "MNEMO_DAEMON_PRELOAD_NLP": "0"}
HEAVY = ("torch", "sentence_transformers", "transformers", "spacy", "chromadb")

# Runs the real CLI entry point, then reports which heavy packages the process imported.
PROBE = """
import json, sys
from mnemo.cli import main
code = 0
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code or 0
loaded = sorted(m for m in HEAVY if m in sys.modules)
sys.stderr.write("\\nLOADED=" + json.dumps(loaded) + "\\n")
sys.exit(code)
""".replace("HEAVY", repr((*HEAVY, "numpy")))


def probe_cli(*args: str, home: Path, env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    full = {**os.environ, "MNEMO_HOME": str(home), **env}
    r = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, env=full, timeout=120)
    m = re.search(r"LOADED=(\[.*\])", r.stderr)
    assert m, r.stderr
    return r, json.loads(m.group(1))


class Daemons:
    """Starts daemons for a test and makes sure none outlives it."""

    def __init__(self, home: Path, env: dict[str, str]) -> None:
        self.home, self.env, self.pids = home, env, []

    def start(self, **extra_env: str) -> dict:
        r = run_cli("daemon", "start", "--json", home=self.home, env={**self.env, **extra_env})
        assert r.returncode == 0, r.stderr
        info = json.loads(r.stdout)
        self.pids.append(info["pid"])
        return info

    def cleanup(self) -> None:
        for pid in self.pids:
            if pid_alive(pid):
                os.kill(pid, signal.SIGTERM)
                end = time.monotonic() + 20
                while pid_alive(pid) and time.monotonic() < end:
                    time.sleep(0.05)
                if pid_alive(pid):
                    os.kill(pid, signal.SIGKILL)


@pytest.fixture
def daemons(home: Path):
    d = Daemons(home, dict(FAST))
    yield d
    d.cleanup()


def _listening_addresses(port: int) -> list[str]:
    """Local addresses with a listening TCP socket on ``port`` (Linux /proc/net/tcp{,6})."""
    out = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, _remote, st = line.split()[1:4]
            addr, p = local.rsplit(":", 1)
            if int(p, 16) == port and st == "0A":  # 0A: LISTEN
                out.append(addr)
    return out


def _non_loopback_ip() -> str | None:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the outgoing interface
        ip = s.getsockname()[0]
    except OSError:
        return None
    finally:
        s.close()
    return None if ip.startswith("127.") else ip


def test_one_owner_token_and_loopback_only(daemons: Daemons, home: Path) -> None:
    info = daemons.start()
    ep = read_endpoint(home)
    assert ep is not None and ep.pid == info["pid"] and ep.host == "127.0.0.1"
    assert oct(endpoint_path(home).stat().st_mode & 0o777) == "0o600"

    # `daemon start` again: the daemon wanted is there; it says so, exits 0, and starts no second one.
    again = run_cli("daemon", "start", home=home, env=FAST)
    assert again.returncode == 0, again.stderr
    assert f"a mnemo daemon is already running for {home} (pid {info['pid']}" in again.stdout
    assert "Traceback" not in again.stderr
    assert RemoteMnemo.connect(home) is not None and read_endpoint(home).pid == info["pid"]

    # No token, or a wrong one: refused before anything runs.
    for headers in ({}, {"Authorization": "Bearer not-the-token"}):
        conn = http.client.HTTPConnection(ep.host, ep.port, timeout=5)
        conn.request("POST", "/v1/save", body=b'{"content": "sneaky"}', headers={"Content-Type": "application/json", **headers})
        resp = conn.getresponse()
        assert resp.status == 401 and json.loads(resp.read())["error"] == "AuthError"
        conn.close()

    # Bound to 127.0.0.1 only: the kernel's socket table says so, and another address of this
    # machine does not answer on that port.
    assert _listening_addresses(ep.port) == ["0100007F"]
    ip = _non_loopback_ip()
    if ip is not None:
        with pytest.raises(OSError):
            socket.create_connection((ip, ep.port), timeout=2).close()

    status = json.loads(run_cli("daemon", "status", "--json", home=home, env=FAST).stdout)
    assert status["running"] is True and status["counts"]["memories"] == 0  # "sneaky" was never saved

    stop = run_cli("daemon", "stop", "--json", home=home, env=FAST)
    assert stop.returncode == 0 and json.loads(stop.stdout)["pid"] == info["pid"]
    assert not pid_alive(info["pid"]) and not endpoint_path(home).exists() and not OwnerLock.is_held(home)
    status = json.loads(run_cli("daemon", "status", "--json", home=home, env=FAST).stdout)
    assert status == {"running": False, "home": str(home), "why": "no daemon is running"}


def test_cli_goes_through_the_daemon_without_the_model_stack(daemons: Daemons, home: Path) -> None:
    daemons.start()
    saved, loaded = probe_cli("save", "We decided to use PostgreSQL for the database", "--tag", "db", "--json",
                              home=home, env=FAST)
    assert saved.returncode == 0, saved.stderr
    assert loaded == [], f"a client command imported {loaded}"
    memory_id = json.loads(saved.stdout)["id"]
    recalled, loaded = probe_cli("recall", "which database did we choose", "--json", home=home, env=FAST)
    assert recalled.returncode == 0 and loaded == []
    assert json.loads(recalled.stdout)["hits"][0]["id"] == memory_id
    # The daemon did the work: it counted both requests, and it alone holds the store.
    st = RemoteMnemo.connect(home).daemon_status()
    assert st["requests"] >= 2 and st["counts"]["memories"] == 1
    assert OwnerLock(home).holder()["kind"] == "daemon"
    # Errors keep their class and hint across the API.
    missing = run_cli("show", "zzzzzzzz", home=home, env=FAST)
    assert missing.returncode == 1 and missing.stderr.startswith("Error: no memory with id 'zzzzzzzz'")


def test_kill_9_mid_import_loses_nothing_acknowledged(daemons: Daemons, home: Path, tmp_path: Path) -> None:
    daemon = daemons.start()
    lines = [f"imported memory {i}: the {['red', 'green', 'blue'][i % 3]} server number {i} runs job {i * 7}"
             for i in range(2000)]
    path = tmp_path / "bulk.jsonl"
    path.write_text("\n".join(json.dumps({"content": c, "tags": ["bulk"]}) for c in lines) + "\n")
    client = RemoteMnemo.connect(home)
    env = {**os.environ, "MNEMO_HOME": str(home), **FAST}
    proc = subprocess.Popen([sys.executable, "-m", "mnemo", "import", str(path)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        # Kill once a second chunk is committed: the first one's acknowledgement was sent before
        # the second started, so the client has at least one acknowledged chunk.
        while time.monotonic() < deadline:
            if client.daemon_status()["counts"]["memories"] >= 512:
                break
            time.sleep(0.01)
        os.kill(daemon["pid"], signal.SIGKILL)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1, (out, err)
    m = re.search(r"the first (\d+) memories were saved and acknowledged", err)
    assert m, err
    acked = int(m.group(1))
    assert 256 <= acked < 2000 and acked % 256 == 0  # whole chunks, and the import was really cut

    # Restart: the new daemon takes over the stale endpoint, re-syncs the index, and agrees.
    assert read_endpoint(home) is not None and read_endpoint(home).pid == daemon["pid"]  # stale
    daemons.start()
    doctor = run_cli("doctor", "--json", home=home, env=FAST)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert json.loads(doctor.stdout)["ok"] is True
    listed = json.loads(run_cli("list", "--limit", "5000", "--json", home=home, env=FAST).stdout)["memories"]
    stored = {m["content"] for m in listed}
    assert set(lines[:acked]) <= stored  # every acknowledged save survived
    assert stored <= set(lines)  # and nothing half-written or foreign
    recalled = json.loads(run_cli("recall", "green server number 4", "--json", home=home, env=FAST).stdout)["hits"]
    assert recalled and all(h["content"] in stored for h in recalled)


def test_sigterm_stops_an_import_at_a_committed_chunk(daemons: Daemons, home: Path, tmp_path: Path) -> None:
    daemon = daemons.start()
    path = tmp_path / "bulk.jsonl"
    path.write_text("\n".join(json.dumps({"content": f"note {i} on topic {i % 11}"}) for i in range(2000)))
    client = RemoteMnemo.connect(home)
    env = {**os.environ, "MNEMO_HOME": str(home), **FAST}
    proc = subprocess.Popen([sys.executable, "-m", "mnemo", "import", str(path)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and client.daemon_status()["counts"]["memories"] < 256:
        time.sleep(0.01)
    os.kill(daemon["pid"], signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    end = time.monotonic() + 20
    while pid_alive(daemon["pid"]) and time.monotonic() < end:
        time.sleep(0.05)
    assert not pid_alive(daemon["pid"])
    assert proc.returncode == 1 and "the daemon was stopped" in err, err
    m = re.search(r"\((\d+) memories were saved before this", err)
    assert m, err
    assert not endpoint_path(home).exists() and not OwnerLock.is_held(home)  # cleaned up
    # In-process now (no daemon): exactly the acknowledged chunks are there, and all is consistent.
    stats = json.loads(run_cli("stats", "--json", home=home, env=FAST).stdout)
    assert stats["memories"] == int(m.group(1))
    assert json.loads(run_cli("doctor", "--json", home=home, env=FAST).stdout)["ok"] is True
    assert "stopping (SIGTERM)" in (home / "daemon.log").read_text()


def _wait_for(predicate, timeout: float, step: float = 0.05):  # noqa: ANN001, ANN202
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return predicate()


def test_scheduled_promotion_needs_no_command(daemons: Daemons, home: Path, vault: Path) -> None:
    daemons.start(MNEMO_VAULT=str(vault), MNEMO_NOW="2026-03-02T09:00:00Z", MNEMO_DAEMON_PROMOTE_INTERVAL="1",
                  MNEMO_DAEMON_PRELOAD_NLP="1")
    client = RemoteMnemo.connect(home)
    st = client.daemon_status()
    assert st["now"].startswith("2026-03-02T09:0") and st["clock"] == "fixed start, running"
    memory = client.save("We decided to deploy the billing service on Fridays only", tags=["ops"]).memory
    for _ in range(5):  # five uses: the memory earns its promotion
        client.touch(memory.id)
    # No `mnemo promote`: the scheduler's next promote run turns it into a note.
    promoted = _wait_for(lambda: client.get(memory.id).note_path, timeout=15)
    assert promoted, client.daemon_status()["jobs"]
    note = vault / promoted
    assert note.is_file() and re.search(rf"^mnemo_id: \"?{memory.id}\"?$", note.read_text(), re.MULTILINE)
    assert client.get(memory.id).status.value == "promoted"
    job = next(j for j in client.daemon_status()["jobs"] if j["name"] == "promote")
    assert job["last_status"] == "ok" and job["interval"] == 1.0
    journal = [r for r in _journal(home, client) if r["name"] == "promote"]
    assert any(r["detail"].get("promoted") == 1 for r in journal)


def _journal(home: Path, client: RemoteMnemo) -> list[dict]:
    """The jobs journal, read through a daemon stop (the store has one owner)."""
    run_cli("daemon", "stop", home=home, env=FAST)
    from mnemo.store import Store

    store = Store(home / "mnemo.db")
    try:
        return store.jobs(limit=100)
    finally:
        store.close()


def _recall_paths(home: Path, query: str, env: dict[str, str]) -> list[str]:
    r = run_cli("recall", query, "--tier", "ltm", "--no-touch", "--json", home=home, env=env)
    assert r.returncode == 0, r.stderr
    return [h["path"] for h in json.loads(r.stdout)["hits"] if h.get("path")]


def _within(seconds: float, predicate) -> float:  # noqa: ANN001
    """Poll until ``predicate()`` holds; returns the time it took (fails after ``seconds``)."""
    t0 = time.monotonic()
    while not predicate():
        assert time.monotonic() - t0 < seconds, f"not within {seconds}s"
        time.sleep(0.1)
    return time.monotonic() - t0


def test_vault_edits_reach_recall_live_and_after_downtime(daemons: Daemons, home: Path, vault: Path) -> None:
    env = {**FAST, "MNEMO_VAULT": str(vault), "MNEMO_DAEMON_DASHBOARD_INTERVAL": "0"}  # only our notes
    (vault / "Garden").mkdir()
    (vault / "Garden" / "Roses.md").write_text("# Roses\n\nPrune the roses in February.\n")
    (vault / "Kitchen.md").write_text("# Kitchen\n\nThe oven runs ten degrees hot.\n")
    daemons.start(**env)
    client = RemoteMnemo.connect(home)
    _within(10, lambda: client.daemon_status()["watcher"]["state"] == "watching")
    assert client.daemon_status()["watcher"]["reconcile"]["added"] == 2

    # A new note is found by `mnemo recall` within 3 seconds of being written.
    note = vault / "Ideas" / "Zephyr.md"
    note.parent.mkdir()
    t0 = time.monotonic()
    note.write_text("# Zephyr\n\nZephyrine tomatoes need volcanic fertilizer every spring.\n")
    while "Ideas/Zephyr.md" not in _recall_paths(home, "zephyrine tomatoes fertilizer", env):
        assert time.monotonic() - t0 < 3, client.daemon_status()["watcher"]
        time.sleep(0.05)

    # Renamed: found under the new path only.
    t0 = time.monotonic()
    note.rename(vault / "Garden" / "Zephyr tomatoes.md")
    while _recall_paths(home, "zephyrine tomatoes fertilizer", env)[:1] != ["Garden/Zephyr tomatoes.md"]:
        assert time.monotonic() - t0 < 3, client.daemon_status()["watcher"]
        time.sleep(0.05)
    assert "Ideas/Zephyr.md" not in _recall_paths(home, "zephyrine tomatoes fertilizer", env)

    # Deleted: gone.
    t0 = time.monotonic()
    (vault / "Garden" / "Zephyr tomatoes.md").unlink()
    while any("Zephyr" in p for p in _recall_paths(home, "zephyrine tomatoes fertilizer", env)):
        assert time.monotonic() - t0 < 3, client.daemon_status()["watcher"]
        time.sleep(0.05)

    # Edits made while the daemon is stopped are found after it starts, and only they are
    # re-read: the unchanged note is not re-embedded.
    assert run_cli("daemon", "stop", home=home, env=env).returncode == 0
    (vault / "Kitchen.md").write_text("# Kitchen\n\nThe oven runs ten degrees hot. Xylophone lessons on Thursday.\n")
    (vault / "Offline.md").write_text("# Offline\n\nQuokka sightings near the harbour.\n")
    daemons.start(**env)
    client = RemoteMnemo.connect(home)
    _within(10, lambda: client.daemon_status()["watcher"]["state"] == "watching")
    reconcile = client.daemon_status()["watcher"]["reconcile"]
    assert (reconcile["added"], reconcile["changed"], reconcile["unchanged"]) == (1, 1, 1)
    assert reconcile["embedded"] == 2  # one chunk each for the two edited notes; Roses.md untouched
    assert _recall_paths(home, "xylophone lessons", env)[:1] == ["Kitchen.md"]
    assert _recall_paths(home, "quokka sightings harbour", env)[:1] == ["Offline.md"]
