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

from .conftest import T0, invoke_main, serving

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
    with serving(settings) as d:
        yield d


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
    assert m.core.store.query("SELECT count(*) FROM demotions")[0][0] == 0


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
        # A day later memories age into the episodic layer: that run does only that; a peer
        # card is not rewritten (nor planned) for a change it does not show.
        clock.advance(DAY)
        later = m.dream()
        assert {o["kind"] for o in later["ops"]} == {"layer", "report"}
        assert all((o.get("result") or {}).get("card") != "unchanged" for o in later["ops"])


# -- 6. same-title notes are ambiguous, never picked silently ---------------------------------
def _cli_env(monkeypatch: pytest.MonkeyPatch, home: Path, vault: Path) -> None:
    for key, value in {"MNEMO_HOME": str(home), "MNEMO_VAULT": str(vault), "MNEMO_EMBEDDING_MODEL": "hash-64",
                       "MNEMO_NOW": "2026-03-02T09:00:00Z"}.items():
        monkeypatch.setenv(key, value)


def _mcp_call(home: Path, tool: str, args: dict) -> tuple[bool, str]:
    import anyio
    from mcp import Client

    from mnemo.mcp_bridge.bridge import build_server
    from mnemo.mcp_bridge.link import DaemonLink

    async def call() -> tuple[bool, str]:
        async with Client(build_server(DaemonLink(home=home, autostart=False))) as c:
            r = await c.call_tool(tool, args)
            return r.is_error, " ".join(getattr(x, "text", "") for x in r.content)

    return anyio.run(call)


def test_same_title_notes_are_ambiguous_in_note_show_and_mcp(daemon: Daemon, home: Path, vault: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    (vault / "Help").mkdir()
    (vault / "Templates.md").write_text("# Templates\n\nHow to use templates.\n")
    (vault / "Help" / "Templates.md").write_text("# Templates\n\nThe Templates core plugin.\n")
    (vault / "Security.md").write_text("# Security\n\nOne note only.\n")
    c = RemoteMnemo.connect(home)
    c.index_vault()
    code, out, err = invoke_main(capsys, "note", "show", "Templates")
    assert code == 1 and out == ""
    assert "ambiguous" in err and "Templates.md" in err and "Help/Templates.md" in err
    is_error, text = _mcp_call(home, "read_note", {"path_or_title": "Templates"})
    assert is_error and "ambiguous" in text and "Help/Templates.md" in text and "Templates.md," in text
    # a path, or a title only one note has, still reads
    assert invoke_main(capsys, "note", "show", "Help/Templates.md")[0] == 0
    is_error, text = _mcp_call(home, "read_note", {"path_or_title": "Security"})
    assert not is_error and "One note only" in text


# -- 7. every id recall prints is accepted by the commands that take ids ----------------------
def test_every_recall_handle_is_accepted_by_show_and_touch(vengine: Mnemo, home: Path, vault: Path,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    import json
    import re

    m = vengine
    mid = m.save(DB).memory.id
    m.promote(mid)
    m.save("PostgreSQL replicas serve the reporting queries")
    (vault / "Ops notes.md").write_text("# Ops notes\n\nPostgreSQL backups run at two in the morning.\n")
    m.index_vault()
    m.close()
    _cli_env(monkeypatch, home, vault)
    code, out, _ = invoke_main(capsys, "recall", "PostgreSQL database backups", "--json", "--no-touch")
    hits = json.loads(out)["hits"]
    assert {h["tier"] for h in hits} == {"stm", "ltm"} and any(h["path"] == "Ops notes.md" for h in hits)
    code, text, _ = invoke_main(capsys, "recall", "PostgreSQL database backups", "--no-touch")
    handles = [line.split()[2] for line in text.splitlines()]
    assert len(handles) == len(hits)
    code, block, _ = invoke_main(capsys, "context", "PostgreSQL database backups", "--no-touch")
    named = re.findall(r"^\[([^\]]+)\]", block, flags=re.M)  # how `context` names each item
    assert "Ops notes.md#Ops notes" in named and len(named) >= 3
    for ref in [h["id"] for h in hits] + handles + named:
        code, shown, err = invoke_main(capsys, "show", ref, "--json")
        assert code == 0, (ref, err)
        shown = json.loads(shown)
        if "path" in shown and shown.get("mnemo_id") is None:  # a person's note: shown as the note
            assert shown["path"] == "Ops notes.md"
            code, _, err = invoke_main(capsys, "touch", ref)
            assert code == 1 and "is the note Ops notes.md, not a memory" in err and "note show" in err
            assert invoke_main(capsys, "note", "show", ref)[0] == 0
        else:  # a memory, or a passage of a promoted note: its memory
            assert invoke_main(capsys, "touch", ref)[0] == 0
    promoted_hit = next(h for h in hits if h["tier"] == "ltm" and h["path"].startswith("Memories/"))
    assert json.loads(invoke_main(capsys, "show", promoted_hit["id"], "--json")[1])["id"] == mid


# -- 8. wording ---------------------------------------------------------------------------------
def test_mcp_argument_errors_are_clean_text(daemon: Daemon, home: Path) -> None:
    for tool, args, field in (("recall", {"query": "tea", "k": "many"}, "k"),
                              ("save_memory", {"tags": ["x"]}, "content"),
                              ("get_memory", {"memory_id": 5}, "memory_id")):
        is_error, text = _mcp_call(home, tool, args)
        assert is_error and text.startswith(f"invalid arguments for {tool}: {field}: ")
        assert "pydantic" not in text and "http" not in text and "input_value" not in text


def test_reading_a_dot_folder_file_is_refused_by_its_own_name(vengine: Mnemo, vault: Path) -> None:
    from mnemo.errors import UnsafePath

    (vault / ".obsidian").mkdir(exist_ok=True)
    (vault / ".obsidian" / "app.json").write_text("{}")
    with pytest.raises(UnsafePath) as caught:
        vengine.read_note(".obsidian/app.json")
    assert caught.value.message.startswith(".obsidian/app.json is not a note")
    assert "app.json.md" not in caught.value.message and "write" not in caught.value.message


def test_import_of_a_non_text_content_says_what_is_wrong(vengine: Mnemo, tmp_path: Path) -> None:
    from mnemo.errors import InvalidInput

    lines = tmp_path / "in.jsonl"
    for bad, said in (('{"content": 5}', "content must be text, not a number (5)"),
                      ('{"content": ["a", "b"]}', "content must be text, not a list"),
                      ('{"content": "  "}', "content is empty")):
        lines.write_text(bad + "\n")
        with pytest.raises(InvalidInput, match=r"line 1: " + said.replace("(", r"\(").replace(")", r"\)")):
            vengine.import_jsonl(lines)
    assert vengine.stats().memories == 0


def test_init_and_stats_print_no_python_reprs(home: Path, vault: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    _cli_env(monkeypatch, home, vault)
    code, out, _ = invoke_main(capsys, "init")
    assert code == 0 and "created: " in out and "Archive/, Dreams/, " in out
    assert invoke_main(capsys, "init")[1].count("created: none") == 1  # nothing new the second time
    invoke_main(capsys, "save", DB)
    code, out, _ = invoke_main(capsys, "stats")
    assert code == 0 and "by_status: active 1" in out and "by_type: decision 1" in out
    for text in (out, invoke_main(capsys, "init")[1]):
        assert not any(ch in text for ch in "[]{}'"), text


def test_recall_scores_stay_in_the_documented_range(vengine: Mnemo) -> None:
    """docs/API.md and the README give a hit's score as [0, 1 + the larger neighbour share]."""
    root = Path(__file__).resolve().parent.parent
    w = max(vengine.settings.recall.neighbour_weight, vengine.settings.recall.answer_weight)
    assert f"[0, {1 + w:g}]" in (root / "docs" / "API.md").read_text()
    assert (f"[0, 1 + max(`recall.neighbour_weight`, `recall.answer_weight`)] = [0, {1 + w:g}]"
            in (root / "README.md").read_text())
    turns = ["Where did you go hiking last weekend with the dog?", "Yes, last Saturday! Up the ridge trail.",
             "The dog loved the hiking trail by the lake.", "We hiked the lake trail with the dog again."]
    for i, t in enumerate(turns):
        vengine.save(t, session_id="s1", created_at=T0 - 100 + i)
    hits = vengine.recall("hiking trail with the dog", k=10, touch=False)
    assert hits and all(0.0 <= h.score <= 1.0 + w + 1e-9 for h in hits)


def test_note_properties_carry_times_to_the_second(vengine: Mnemo, vault: Path, clock: Clock) -> None:
    import re

    clock.set(T0 + 0.123456)
    mid = vengine.save(DB).memory.id
    clock.advance(1.5)
    [p] = vengine.promote(mid)
    text = (vault / p.path).read_text()
    times = re.findall(r"^(created|updated): (\S+)$", text, flags=re.M)
    assert [k for k, _ in times] == ["created", "updated"]
    for _, value in times:
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", value), value
    clock.advance(10.25)
    vengine.demote(mid)
    archived = next((vault / "Archive").glob("*.md")).read_text()
    assert re.search(r"^demoted: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", archived, flags=re.M)


def test_titles_end_at_a_phrase_boundary(vengine: Mnemo) -> None:
    from mnemo.vault.render import title_for

    cases = {
        "Deploys go out on Tuesday mornings through the blue-green pipeline with a manual approval step.":
            "Deploys go out on Tuesday mornings",
        "The cloud bill is reviewed monthly, and any service above its budget gets a ticket for its owners.":
            "The cloud bill is reviewed monthly",
        DB: "We decided to use PostgreSQL for the database",
        "Alice Bob Carol Dave Erin Frank Grace Heidi Ivan Judy Mallory Niaj Olivia Peggy Rupert Sybil Trent":
            "Alice Bob Carol Dave Erin Frank Grace Heidi Ivan Judy…",
    }
    for content, title in cases.items():
        assert title_for(vengine.save(content).memory) == title


def test_the_dashboard_follows_a_change_within_a_minute(vengine: Mnemo, vault: Path, clock: Clock) -> None:
    from mnemo.daemon.scheduler import Scheduler, lifecycle_jobs

    sched = Scheduler(vengine.core.store, clock, [])
    for job in lifecycle_jobs(vengine, sched.last_run, lambda: 0):
        if job.name == "dashboard":
            sched.jobs[job.name] = job
    assert [r["status"] for r in sched.tick()] == ["ok"]  # the first run, on an empty store
    note = vault / "mnemo Dashboard.md"
    assert "**0** memories" in note.read_text()
    clock.advance(30)
    assert sched.tick() == []  # nothing changed
    for i in range(3):
        vengine.save(f"Imported memory number {i} about the billing service")
    clock.advance(20)
    assert sched.tick() == []  # not yet a minute since the last run
    clock.advance(15)
    assert [r["status"] for r in sched.tick()] == ["ok"]
    text = note.read_text()
    assert "**3** memories" in text and "Counts as of 2026-03-02 09:01 UTC" in text
    clock.advance(120)
    assert sched.tick() == []  # refreshed, and nothing new since: waits for its hour


def test_index_steps_reach_a_client_through_the_daemon_stream(home: Path, vault: Path) -> None:
    for i in range(5):
        (vault / f"Note {i}.md").write_text(f"# Note {i}\n\nSome text about topic {i}.\n")
    calls: list[tuple] = []
    # No watcher: the notes are indexed by this call, not by the daemon noticing them first.
    settings = load_settings(home=home, vault=vault, overrides={"embedding.model": "hash-64", "daemon.watch": False,
                                                                **NO_JOBS})
    with serving(settings):
        result = RemoteMnemo.connect(home).index_vault(progress=lambda *args: calls.append(args))
    steps = [a[1] for a in calls if len(a) == 2]
    assert "checking the embedding model" in steps and "embedding note text" in steps
    assert sum(a[0] for a in calls) == result["notes"]  # stage lines acknowledge nothing
