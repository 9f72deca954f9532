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


# -- 3. the first index keeps moving and names the one-time step -------------------------------
class FakeClock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


EXPORT = "exporting the embedding model to ONNX Runtime (once, about a minute)"


class SlowFirstEmbedder(HashEmbedder):
    """The hash embedder as slow as MiniLM on a busy laptop (0.25 s a text, 0.2 s a call, on an
    injected clock), with a one-time export step that lasts until the bar has been told three
    more times that it is still running."""

    def __init__(self, clock: FakeClock) -> None:
        super().__init__(64)
        self.clock = clock
        self.exported = False
        import threading

        self.heartbeats = threading.Semaphore(0)

    def setup_step(self) -> str | None:
        return None if self.exported else EXPORT

    def prepare(self) -> None:
        for _ in range(3):
            assert self.heartbeats.acquire(timeout=30)
        self.exported = True

    def embed(self, texts):  # noqa: ANN001, ANN201
        self.clock.t += 0.2 + 0.25 * len(texts)
        return super().embed(texts)


def test_first_index_progress_moves_every_two_seconds_and_names_the_export(
        home: Path, vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mnemo import progress as progress_mod
    from mnemo.vault import indexer

    fake = FakeClock()
    monkeypatch.setattr(indexer, "_monotonic", fake)
    monkeypatch.setattr(progress_mod, "HEARTBEAT", 0.01)
    for i in range(40):
        sections = "\n\n".join(f"## Part {j}\n\n" + f"Paragraph {j} of note {i} about topic {i * 7 + j}. " * 30
                               for j in range(3))
        (vault / f"Note {i:02d}.md").write_text(f"# Note {i}\n\n{sections}\n", encoding="utf-8")
    embedder = SlowFirstEmbedder(fake)
    settings = load_settings(home=home, vault=vault, overrides={"embedding.model": "hash-64"})
    calls: list[tuple[float, int, str | None]] = []

    def progress(n: int, step: str | None = None) -> None:
        calls.append((fake.t, n, step))
        if step and step.startswith(EXPORT + " ("):  # a heartbeat during the export
            embedder.heartbeats.release()

    with Mnemo(settings, clock=Clock(T0), embedder=embedder) as m:
        result = m.index_vault(progress=progress)
        end = fake.t
    assert result["embedded"] >= 120 and end > 30  # half a minute of (fake) embedding
    steps = [s for _, _, s in calls if s]
    # the one-time step is named, and named again while it runs (it reports nothing itself)
    assert steps.count(EXPORT) == 1 and sum(s.startswith(EXPORT + " (") for s in steps) >= 3
    times = [0.0] + [t for t, _, _ in calls] + [end]
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert max(gaps) <= 2.0, gaps
    assert sum(n for _, n, _ in calls) == result["notes"] == len(list(vault.glob("*.md")))


def test_the_heartbeat_of_a_silent_step_is_under_two_seconds() -> None:
    from mnemo import progress as progress_mod

    assert 0 < progress_mod.HEARTBEAT <= 2.0 and 0 < progress_mod.SLICE_SECONDS <= 1.0


# -- 4. a promoted note whose YAML a person broke shows in doctor and daemon status -----------
def test_broken_yaml_of_a_promoted_note_shows_in_doctor_and_daemon_status(daemon: Daemon, home: Path, vault: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    from mnemo.cli.daemon import _status_text
    from mnemo.daemon.process import daemon_status

    c = RemoteMnemo.connect(home)
    mid = c.save(DB).memory.id
    [p] = c.promote(mid)
    assert daemon_status(home)["broken_notes"] == []
    note = vault / p.path
    text = note.read_text(encoding="utf-8")
    broken = text.replace("tags:", "tags: [unclosed", 1)
    note.write_text(broken, encoding="utf-8")
    c.index_note(p.path)  # what the watcher does once its retries are spent
    code, out, _ = invoke_main(capsys, "doctor")
    assert code == 1 and "properties" in out and "broken_yaml 1" in out
    assert f"{p.path}: " in out and "YAML between the two --- lines" in out
    st = daemon_status(home)
    [b] = st["broken_notes"]
    assert b["path"] == p.path and b["memory_id"] == mid and b["error"] and "---" in b["fix"]
    assert p.path in _status_text(st) and "fix:" in _status_text(st)
    assert note.read_text(encoding="utf-8") == broken  # reported, never "fixed"
    # The person fixes it: doctor is clean again.
    note.write_text(text, encoding="utf-8")
    c.index_note(p.path)
    assert invoke_main(capsys, "doctor")[0] == 0 and daemon_status(home)["broken_notes"] == []


# -- 5. the dream rests: an idle second run changes nothing; the dry run is the run ------------
def test_two_dream_runs_in_a_row_the_second_changes_nothing(home: Path, vault: Path, clock: Clock) -> None:
    from .dream_helpers import open_engine as dream_engine
    from .dream_helpers import state
    from .test_dream_recovery import seed_everything

    with dream_engine(home, vault, clock) as m:
        seed_everything(m)
        clock.advance(60)
        plan = m.dream(dry_run=True)
        first = m.dream()
        # The dry run's plan is what the run applies, operation for operation (the report too).
        assert [(o["kind"], o["key"]) for o in first["ops"]] == [(o["kind"], o["key"]) for o in plan["ops"]]
        assert plan["planned"] == first["planned"] == first["applied"] == len(plan["ops"]) > 5
        assert first["report"] and len(list((vault / "Dreams").glob("*.md"))) == 1
        # A nightly run later with nothing new: no operation, no byte, no row, no report.
        for _ in range(2):
            clock.advance(60)
            before = state(m)
            again_plan = m.dream(dry_run=True)
            again = m.dream()
            assert again_plan["ops"] == [] and again["planned"] == 0 and again["report"] is None
            assert state(m) == before
        assert len(list((vault / "Dreams").glob("*.md"))) == 1
