"""The daemon's API, its thin client, the scheduler and doctor, in-process (a real Daemon on a
real loopback socket, real SQLite and Chroma; the hash embedder, as quality is not the point)."""

from __future__ import annotations

import http.client
import json
import os
import stat
from pathlib import Path

import pytest

from mnemo.client import RemoteMnemo
from mnemo.clock import Clock
from mnemo.config import load_settings
from mnemo.connect import open_engine
from mnemo.daemon.endpoint import endpoint_path, read_endpoint
from mnemo.daemon.scheduler import Job, Scheduler, mark_activity_day
from mnemo.daemon.server import Daemon
from mnemo.engine import Mnemo
from mnemo.errors import ConfigError, InvalidInput, LockedError, NotFound
from mnemo.models import Hit, ImportResult, Memory, SaveResult, Stats, Status
from mnemo.nlp.embedder import HashEmbedder

from .conftest import T0

NO_JOBS = {f"daemon.{j}_interval": 0 for j in ("activity", "promote", "gc", "enrich", "dashboard", "dream")}


def _settings(home: Path, **extra: object):
    return load_settings(home=home, overrides={"embedding.model": "hash-64", **NO_JOBS, **extra})


@pytest.fixture
def daemon(home: Path):
    d = Daemon(_settings(home), clock=Clock(T0, running=True))
    d.open()
    d.start_threads()
    yield d
    d.request_stop("test over")
    d.shutdown()


@pytest.fixture
def client(daemon: Daemon) -> RemoteMnemo:
    c = RemoteMnemo.connect(daemon.home)
    assert c is not None
    return c


def _raw(daemon: Daemon, method: str, path: str, body: bytes | None = None, token: str | None = "ok",
         headers: dict[str, str] | None = None) -> tuple[int, dict]:
    ep = daemon.endpoint
    conn = http.client.HTTPConnection(ep.host, ep.port, timeout=10)
    h = dict(headers or {})
    if token is not None:
        h["Authorization"] = f"Bearer {ep.token if token == 'ok' else token}"
    conn.request(method, path, body=body, headers=h)
    resp = conn.getresponse()
    data = json.loads(resp.read() or b"{}")
    conn.close()
    return resp.status, data


def test_endpoint_file_is_private_and_loopback(daemon: Daemon) -> None:
    path = endpoint_path(daemon.home)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    ep = read_endpoint(daemon.home)
    assert ep is not None and ep.pid == os.getpid() and ep.host == "127.0.0.1" and ep.port > 0
    assert len(ep.token) >= 32


def test_every_request_needs_the_token(daemon: Daemon) -> None:
    for token in (None, "wrong-token"):
        status, body = _raw(daemon, "GET", "/v1/status", token=token)
        assert status == 401 and body["error"] == "AuthError"
        status, body = _raw(daemon, "POST", "/v1/save", json.dumps({"content": "x"}).encode(), token=token)
        assert status == 401
    assert daemon.engine.core.store.count() == 0  # nothing was saved by the refused requests
    status, body = _raw(daemon, "GET", "/v1/health")
    assert status == 200 and body["ok"] is True and body["pid"] == os.getpid()


def test_bad_requests_get_clear_errors(daemon: Daemon) -> None:
    status, body = _raw(daemon, "POST", "/v1/no_such_op", b"{}")
    assert status == 404 and body["error"] == "NotFound" and "operations" in body["hint"]
    status, body = _raw(daemon, "POST", "/v1/save", b"{not json")
    assert status == 400 and "not valid JSON" in body["message"]
    status, body = _raw(daemon, "POST", "/v1/save", b"[1, 2]")
    assert status == 400 and "JSON object" in body["message"]
    status, body = _raw(daemon, "POST", "/v1/recall", json.dumps({"qurey": "x"}).encode())
    assert status == 400 and body["error"] == "InvalidInput" and "query" in body["hint"]
    status, body = _raw(daemon, "POST", "/v1/get", json.dumps({"memory_id": "zzzzzz"}).encode())
    assert status == 404 and body["code"] == "not_found"
    status, body = _raw(daemon, "GET", "/v1/save")
    assert status == 400 and "POST" in body["message"]
    status, body = _raw(daemon, "POST", "/v1/recall", json.dumps({"query": "x"}).encode(),
                        headers={"X-Mnemo-Now": "yesterday"})
    assert status == 400 and "ISO-8601" in body["message"]
    status, body = _raw(daemon, "POST", "/v1/import_jsonl", json.dumps({"path": "x", "progress": 1}).encode())
    assert status == 400 and "stream" in body["message"]


def test_client_returns_the_engine_types(client: RemoteMnemo) -> None:
    r = client.save("We decided to use PostgreSQL for the database", tags=["db"], meta={"ticket": "OPS-12"})
    assert isinstance(r, SaveResult) and isinstance(r.memory, Memory)
    assert r.memory.tags == ("db",) and r.memory.meta == {"ticket": "OPS-12"} and r.memory.status is Status.ACTIVE
    hits = client.recall("which database did we choose", k=3, touch=False)
    assert hits and isinstance(hits[0], Hit) and hits[0].id == r.id and hits[0].meta == {"ticket": "OPS-12"}
    assert client.get(r.id[:8]).id == r.id  # short ids resolve on the daemon's side
    touched = client.touch(r.id)
    assert isinstance(touched, Memory) and touched.use_count == 1
    assert client.forget(r.id).status is Status.ARCHIVED
    assert client.restore(r.id).status is Status.ACTIVE
    listed = client.list(status="active")
    assert [m.id for m in listed] == [r.id] and all(isinstance(m, Memory) for m in listed)
    stats = client.stats()
    assert isinstance(stats, Stats) and stats.memories == 1 and stats.uses >= 1 and stats.embed_model == "hash-64"


def test_client_reraises_the_engine_errors(client: RemoteMnemo) -> None:
    with pytest.raises(NotFound, match="no memory with id"):
        client.get("nope-nope")
    with pytest.raises(InvalidInput, match="content is empty") as info:
        client.save("   ")
    assert info.value.hint
    with pytest.raises(TypeError):  # arguments are checked like a direct call, before sending
        client.recall()
    with pytest.raises(AttributeError):
        client.no_such_operation  # noqa: B018


def test_import_streams_acknowledgements(client: RemoteMnemo, tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    path.write_text("\n".join(json.dumps({"content": f"memory number {i} about topic {i % 7}"}) for i in range(600)))
    seen: list[int] = []
    os.chdir(tmp_path)
    result = client.import_jsonl("m.jsonl", progress=seen.append)  # relative: made absolute by the client
    assert isinstance(result, ImportResult) and result.saved == 600
    assert seen == [256, 256, 88] and client.acknowledged == 600
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"content": "ok"}\n{"content": \n')
    with pytest.raises(InvalidInput, match="line 2"):
        client.import_jsonl(str(bad))
    assert client.stats().memories == 600  # all or nothing


def test_operations_are_listed_with_their_parameters(client: RemoteMnemo) -> None:
    ops = client.operations()
    assert {"save", "recall", "import_jsonl", "doctor"} <= set(ops)
    assert ops["recall"]["params"]["query"]["required"] is True
    assert ops["import_jsonl"]["streams_progress"] is True and "progress" not in ops["import_jsonl"]["params"]
    assert ops["get"]["mutating"] is False


def test_status_reports_counts_jobs_and_queue(daemon: Daemon, client: RemoteMnemo) -> None:
    assert daemon.warmed.wait(60)  # the start-up warm-up (spaCy, throwaway searches) is over ...
    client.save("a memory to count")
    st = client.daemon_status()
    assert st["warm"] is True
    assert client.stats().uses == 0  # ... and its searches touched nothing
    assert st["pid"] == os.getpid() and st["home"] == str(daemon.home)
    assert st["counts"]["memories"] == 1 and st["counts"]["by_status"] == {"active": 1}
    assert st["queue"] == {"in_flight": None, "waiting": 0, "watcher_pending": 0}
    assert {j["name"] for j in st["jobs"]} >= {"activity", "promote", "gc", "dream"}
    assert st["watcher"]["state"] == "off" and st["requests"] >= 1
    assert st["now"].startswith("2026-03-02T09:00")  # --now: the clock starts there and runs on


def test_open_engine_prefers_the_daemon(daemon: Daemon, home: Path) -> None:
    eng = open_engine(load_settings(home=home))
    assert isinstance(eng, RemoteMnemo)
    with pytest.raises(LockedError, match="already running"):
        Daemon(_settings(home)).open()
    with pytest.raises(LockedError):
        Mnemo(load_settings(home=home))  # a second in-process owner never opens the store


def test_second_in_process_owner_gets_a_clear_error(home: Path) -> None:
    settings = _settings(home)
    with Mnemo(settings, embedder=HashEmbedder(64)):
        with pytest.raises(LockedError, match="in use by another mnemo") as info:
            open_engine(settings)
        assert "daemon start" in (info.value.hint or "")


def test_stale_endpoint_is_ignored_and_removed(home: Path) -> None:
    d = Daemon(_settings(home), clock=Clock(T0, running=True))
    d.open()
    d.httpd.server_close()  # the daemon "dies": nothing answers, and the lock goes with it
    d._lock.release()
    d._lock = None
    assert endpoint_path(home).exists()
    eng = open_engine(_settings(home))
    try:
        assert isinstance(eng, Mnemo) and not endpoint_path(home).exists()
    finally:
        eng.close()
        d.engine.close()


def test_non_loopback_bind_is_refused(home: Path) -> None:
    with pytest.raises(ConfigError, match="not a loopback address"):
        Daemon(_settings(home, **{"daemon.host": "0.0.0.0"})).open()
    assert not endpoint_path(home).exists()


def test_doctor_finds_and_repairs_index_drift(engine: Mnemo) -> None:
    ids = [r.id for r in engine.save_many([{"content": f"fact number {i}"} for i in range(5)])]
    assert engine.doctor()["ok"]
    engine.core.index.delete("memories", [ids[0]])
    engine.core.index.upsert("memories", ["ghost"], HashEmbedder(64).embed(["ghost"]), [{"status": "active"}])
    engine.core.index.update_metadata("memories", [ids[1]], [{"status": "archived"}])
    engine.core.store.execute("DELETE FROM memories_fts WHERE id = ?", (ids[2],))
    report = engine.doctor()
    assert not report["ok"]
    assert report["checks"]["vectors"]["problems"] == {"missing": 1, "orphan": 1, "stale_status": 1}
    assert report["checks"]["vectors"]["sample"]["missing"] == [ids[0]]
    assert report["checks"]["fts"]["problems"] == {"missing": 1}
    fixed = engine.doctor(repair=True)
    assert fixed["ok"] and fixed["repaired"]["vectors"] == {"orphans_removed": 1, "embedded": 1, "metadata_fixed": 1}
    assert engine.doctor()["ok"] and engine.recall("fact number", k=10, touch=False)


# -- the scheduler -------------------------------------------------------------------------------
def test_scheduler_persists_last_runs_and_journals(engine: Mnemo, clock: Clock) -> None:
    calls: list[str] = []

    def make() -> Scheduler:
        return Scheduler(engine.core.store, clock, [
            Job("hourly", 3600, lambda: calls.append("hourly") or {"did": 1}),
            Job("daily", 86400, lambda: calls.append("daily")),
            Job("off", 0, lambda: calls.append("off")),
            Job("broken", 7200, lambda: 1 / 0),
        ])

    s = make()
    assert [r["status"] for r in s.tick()] == ["ok", "ok", "error"]  # never ran: due at once; "off" never
    assert calls == ["hourly", "daily"] and s.tick() == []
    clock.advance(1800)
    s = make()  # a restart half-way through the hour: nothing repeats
    assert s.tick() == [] and calls == ["hourly", "daily"]
    clock.advance(1800)
    assert [r["name"] for r in s.tick()] == ["hourly"]
    clock.advance(5 * 86400)  # the daemon was down for days: each job runs once, not once per miss
    s = make()
    assert sorted(r["name"] for r in s.tick()) == ["broken", "daily", "hourly"] and s.tick() == []
    journal = engine.core.store.jobs("hourly")
    assert len(journal) == 3 and journal[0]["status"] == "ok" and journal[0]["detail"] == {"did": 1}
    assert "ZeroDivisionError" in engine.core.store.jobs("broken")[0]["detail"]["error"]
    state = {j["name"]: j for j in s.state()}
    assert state["off"]["enabled"] is False and state["off"]["next_run"] is None
    assert state["hourly"]["last_status"] == "ok"


def test_a_job_can_wait_one_interval_before_its_first_run(engine: Mnemo, clock: Clock) -> None:
    calls: list[str] = []

    def make() -> Scheduler:
        return Scheduler(engine.core.store, clock, [Job("nightly", 86400, lambda: calls.append("run"), first_after=86400)])

    assert make().tick() == []
    clock.advance(86000)
    assert make().tick() == []  # a restart does not push the first run back
    clock.advance(400)
    assert [r["name"] for r in make().tick()] == ["nightly"] and calls == ["run"]


def test_missing_engine_methods_are_journaled_as_skipped(engine: Mnemo, clock: Clock) -> None:
    from mnemo.daemon.scheduler import _engine_call, lifecycle_jobs

    s = Scheduler(engine.core.store, clock, [])
    jobs = {j.name: j for j in lifecycle_jobs(engine, s.last_run, lambda: 0)}
    s.jobs = {"promote": jobs["promote"], "future": Job("future", 60, lambda: _engine_call(engine, "no_such_step"))}
    records = {r["name"]: r for r in s.tick()}
    assert records["future"]["status"] == "skipped" and "no_such_step" in records["future"]["detail"]["reason"]
    assert records["promote"]["status"] == "skipped" and "no vault" in records["promote"]["detail"]["reason"]
    assert engine.core.store.jobs("future")[0]["status"] == "skipped"
    assert jobs["dream"].first_after == jobs["dream"].interval  # no dream cycle on a fresh home


def test_activity_job_marks_only_days_with_use(engine: Mnemo, clock: Clock) -> None:
    days = engine.core.store.activity_day_list()
    clock.advance(3 * 86400)  # a holiday: nothing happened
    assert mark_activity_day(engine, since=clock.now() - 3600)["marked"] is False
    assert engine.core.store.activity_day_list() == days
    assert mark_activity_day(engine, since=clock.now() - 3600, vault_events=2)["reason"] == "vault edits"
    assert len(engine.core.store.activity_day_list()) == len(days) + 1


def test_a_taken_port_is_a_clear_error(home: Path) -> None:
    import socket

    from mnemo.errors import DaemonError

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(DaemonError, match=f"cannot listen on 127.0.0.1:{port}"):
            Daemon(_settings(home, **{"daemon.port": port})).open()
    from mnemo.lock import OwnerLock

    assert not endpoint_path(home).exists() and not OwnerLock.is_held(home)  # nothing left behind


def test_a_client_waits_for_a_daemon_that_is_still_starting(daemon: Daemon, home: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from mnemo import connect

    path = endpoint_path(home)
    hidden = path.with_name("daemon.json.hidden")
    path.rename(hidden)  # as if the daemon held the lock but was still loading its models
    threading.Timer(0.5, hidden.rename, args=(path,)).start()
    assert isinstance(open_engine(load_settings(home=home)), RemoteMnemo)

    path.rename(hidden)  # a daemon that never answers: a clear error once the wait is over
    monkeypatch.setattr(connect, "STARTING_WAIT", 0.3)
    try:
        with pytest.raises(LockedError, match="owned by a daemon .* that does not answer"):
            open_engine(load_settings(home=home))
    finally:
        hidden.rename(path)
