"""A first week on a real vault: what a new user trips over, each item tried as they would
(real SQLite, Chroma, files in a temporary vault, a real daemon on a loopback socket; the hash
embedder where only logic matters)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemo.client import RemoteMnemo
from mnemo.clock import DAY, Clock, iso, parse_time
from mnemo.config import load_settings
from mnemo.connect import open_engine
from mnemo.daemon.server import Daemon
from mnemo.engine import Mnemo
from mnemo.models import Status
from mnemo.nlp.embedder import HashEmbedder
from mnemo.setup import init_home

from .conftest import T0, invoke_main

NO_JOBS = {f"daemon.{j}_interval": 0 for j in ("activity", "promote", "gc", "enrich", "dashboard", "dream")}
DB = "We decided to use PostgreSQL for the database because the team knows it well"


@pytest.fixture
def vengine(home: Path, vault: Path, clock: Clock):
    settings = load_settings(home=home, vault=vault, overrides={"embedding.model": "hash-64"})
    init_home(settings)
    with Mnemo(settings, clock=clock, embedder=HashEmbedder(64)) as m:
        yield m


@pytest.fixture
def daemon(home: Path, vault: Path):
    settings = load_settings(home=home, vault=vault, overrides={"embedding.model": "hash-64", **NO_JOBS})
    init_home(settings)
    d = Daemon(settings, clock=Clock(T0, running=True))
    d.open()
    d.start_threads()
    yield d
    d.request_stop("test over")
    d.shutdown()


def _auto_paths(m: Mnemo, dry_run: bool = True) -> list[str]:
    return [r.memory_id for r in m.promote(auto=True, dry_run=dry_run)]


# -- 1. a demotion sticks ----------------------------------------------------------------------
def test_a_demotion_outranks_the_score_until_new_uses_or_a_person_promotes(vengine: Mnemo, vault: Path,
                                                                          clock: Clock) -> None:
    m = vengine
    mid = m.save(DB).memory.id
    for _ in range(5):
        clock.advance(3600)
        m.touch(mid)
    assert _auto_paths(m) == [mid]  # earned by its uses
    m.promote(mid)
    clock.advance(60)
    m.demote(mid)
    assert m.get(mid).status == Status.ACTIVE
    # The score still says "promote"; the person said no: neither the dry run nor the real run
    # (the daemon's hourly job) takes it back, and explain says why.
    assert _auto_paths(m) == [] and _auto_paths(m, dry_run=False) == []
    assert not (vault / "Memories" / "We decided to use PostgreSQL for the database.md").exists()
    assert "demoted by a person; 0 use(s) since" in m.explain(mid)["promotion"]["why"]
    # New uses after the demotion are evidence the person can see: four are not enough ...
    for _ in range(4):
        clock.advance(3600)
        m.touch(mid)
    assert _auto_paths(m) == []
    # ... the fifth brings it back.
    clock.advance(3600)
    m.touch(mid)
    assert _auto_paths(m) == [mid]
    m.promote(auto=True)
    assert m.get(mid).status == Status.PROMOTED
    # Demoted again, an explicit promote by the person brings it back at once, and clears it.
    m.demote(mid)
    assert _auto_paths(m) == []
    m.promote(mid)
    m.demote(mid)
    m.promote(mid)
    assert m.get(mid).status == Status.PROMOTED
    assert m.store.query("SELECT count(*) FROM demotions")[0][0] == 0


# -- 2. --now / MNEMO_NOW are honoured per call while a daemon runs ----------------------------
def test_now_goes_with_each_call_to_the_daemon_and_never_moves_its_clock(daemon: Daemon, home: Path) -> None:
    past = "2026-01-05T10:00:00Z"
    eng = open_engine(load_settings(home=home, now=past))
    assert isinstance(eng, RemoteMnemo)
    saved = eng.save("the staging database moved to the new cluster").memory
    assert saved.created_at == parse_time(past)
    touched = eng.touch(saved.id)
    assert touched.last_used == parse_time(past)
    # recall's own `now` argument is per call too (it used to reset the engine's clock).
    later = parse_time(past) + 2 * DAY
    eng.recall("staging database", now=later)
    assert eng.get(saved.id).last_used == later
    # The daemon's clock (its scheduler's, every other client's) did not move.
    plain = open_engine(load_settings(home=home))
    assert abs(plain.save("a memory saved at the daemon's time").memory.created_at - T0) < 600
    assert daemon.clock.now() - T0 < 600 and daemon.engine.now() - T0 < 600


def test_cli_now_reaches_the_daemon(daemon: Daemon, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    code, out, _ = invoke_main(capsys, "--now", "2025-12-24T08:00:00Z", "save", "a note from christmas eve", "--json")
    assert code == 0
    mid = json.loads(out)["id"]
    code, out, _ = invoke_main(capsys, "--now", "2025-12-25T08:00:00Z", "touch", mid, "--json")
    assert code == 0
    got = RemoteMnemo.connect(home).get(mid)
    assert iso(got.created_at) == "2025-12-24T08:00:00Z" and iso(got.last_used) == "2025-12-25T08:00:00Z"
