"""Faults: nothing acknowledged is lost and nothing is left half-written.

- ``kill -9`` at seeded random writes of an import, a promotion, a vault index and a dream run.
  Each trial runs the operation in its own process (``tests/fault_driver.py``), which prints
  every result the engine returned, flushed, as it gets it; ``MNEMO_FAULT_KILL_AT=N``
  (``mnemo/faults.py``) SIGKILLs it at its Nth durable write. N is drawn from a seeded generator,
  one point in each equal slice of the operation's writes (counted in-process first), so the
  trials cover the whole operation and each can be replayed. Then a restart does what a
  starting daemon does (open: the vector index re-syncs; the vault reconcile; an interrupted
  dream run is finished) and ``doctor`` must find nothing wrong, every acknowledged result must
  be there, and no temp file or partial note may be left in the vault.
- A write that fails for lack of space (``RLIMIT_FSIZE`` in a real ``mnemo import`` process):
  a clear error, the store intact.
- A deleted or corrupted Chroma folder: detected when the index opens and rebuilt from the store.
"""

from __future__ import annotations

import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mnemo import faults
from mnemo.lifecycle.dream.journal import Journal
from mnemo.vault.parse import parse_note
from mnemo.vault.writer import TEMP_SUFFIX

from .conftest import ROOT, T0
from .dream_helpers import state
from .fault_driver import open_engine, run

DRIVER = ROOT / "tests" / "fault_driver.py"
SEED = 20260302
TRIALS = {"import": 6, "promote": 6, "index": 5, "dream": 6}

TOPICS = ["billing", "search", "deploys", "alerts", "invoices", "gateway", "backups", "onboarding",
          "mobile", "payments", "caching", "logging"]
VERBS = ["retries", "stores", "batches", "compresses", "signs", "encrypts", "throttles", "mirrors"]


def sentence(i: int) -> str:
    t, v = TOPICS[i % len(TOPICS)], VERBS[(i // len(TOPICS)) % len(VERBS)]
    return f"Item {i}: the {t} service {v} its records every {i % 7 + 2} minutes, as decided in review {i}."


# -- the scenarios' starting points --------------------------------------------------------------
def _plan(work: Path, **plan: Any) -> None:
    (work / "plan.json").write_text(json.dumps({"now": T0, **plan}))


def _notes(vault: Path, n: int, folder: str = "Projects") -> None:
    (vault / folder).mkdir(parents=True, exist_ok=True)
    for i in range(n):
        body = "\n\n".join(f"## Part {k}\n\n{sentence(i * 5 + k)} " * 3 for k in range(3))
        (vault / folder / f"Note {i:03d}.md").write_text(f"---\ntags: [project]\n---\n# Note {i}\n\n{body}\n")


def build_import(work: Path) -> None:
    _notes(work / "vault", 5)
    with open_engine(work, T0) as m:
        m.save_many([{"content": sentence(i), "id": f"old-{i:03d}"} for i in range(40)])
        m.index_vault()
    files = []
    for name, n in (("a", 300), ("b", 300), ("c", 120)):
        lines = [json.dumps({"id": f"imp-{name}-{i:04d}", "content": sentence(1000 + i) + f" ({name})",
                             "tags": [name]}) for i in range(n)]
        (work / f"{name}.jsonl").write_text("\n".join(lines) + "\n")
        files.append(f"{name}.jsonl")
    _plan(work, files=files)


# Each names an entity, so promotion takes the entities from the fingerprint (no spaCy load).
DECISIONS = [
    "We decided to run the billing database on PostgreSQL in Frankfurt.",
    "Alice Martin owns the Kafka cluster for the search team.",
    "Redis caches the sessions of the Berlin office.",
    "Microsoft Teams replaced Slack for the support team in March.",
    "Backups of the invoices go to Amazon S3 in Ireland.",
    "The onboarding guide lives in Confluence, owned by Bob Chen.",
    "Stripe handles card payments for customers in Canada.",
    "Grafana dashboards alert the on-call engineer in London.",
    "Terraform provisions the staging cluster on Google Cloud.",
    "We decided to keep the Orders API in Frankfurt on PostgreSQL.",
]


def build_promote(work: Path) -> None:
    _notes(work / "vault", 3)
    with open_engine(work, T0) as m:
        items = [{"content": text, "type": "decision"} for text in DECISIONS]
        ids = [r.memory.id for r in m.save_many(items, enrich="inline")]
        assert all(m.get(i).fingerprint.entities for i in ids)
        m.index_vault()
    steps = [("promote", i) for i in ids[:6]]
    steps += [("touch", ids[0]), ("demote", ids[1]), ("save", "The search index is rebuilt every night at 2 am."),
              ("demote", ids[2]), ("promote", ids[1]), ("promote", ids[6]), ("touch", ids[3]), ("promote", ids[7])]
    _plan(work, steps=steps)


def build_index(work: Path) -> None:
    vault = work / "vault"
    _notes(vault, 40)
    with open_engine(work, T0) as m:
        ids = [r.memory.id for r in m.save_many([{"content": sentence(500 + i), "type": "fact"} for i in range(4)])]
        m.index_vault()
        paths = [m.promote(i)[0].path for i in ids]
    # What changes while nobody indexes: edits, new notes, deletions, moves, and a person's edit
    # of two promoted notes (their memories must take the new text).
    for i in range(0, 12):
        p = vault / "Projects" / f"Note {i:03d}.md"
        p.write_text(p.read_text() + f"\n## Update\n\nEdited paragraph {i} about the rollout.\n")
    _notes(vault, 15, folder="Inbox")
    for i in range(12, 16):
        (vault / "Projects" / f"Note {i:03d}.md").unlink()
    (vault / "Archive").mkdir(exist_ok=True)
    for i in range(16, 20):
        (vault / "Projects" / f"Note {i:03d}.md").rename(vault / "Archive" / f"Note {i:03d}.md")
    for rel in paths[:2]:
        p = vault / rel
        p.write_text(p.read_text().rstrip("\n") + "\nA person added this line in Obsidian.\n")
    _plan(work, edited={ids[k]: paths[k] for k in range(2)})


def build_dream(work: Path) -> None:
    from mnemo.clock import Clock

    from .dream_helpers import open_engine as dream_engine
    from .test_dream_recovery import seed_everything

    with dream_engine(work / "home", work / "vault", Clock(T0)) as m:
        seed_everything(m)
        m.index_vault()
    _plan(work)


BUILD = {"import": build_import, "promote": build_promote, "index": build_index, "dream": build_dream}


# -- restart and the checks after it ---------------------------------------------------------------
def restart(work: Path) -> Any:
    """What a starting daemon does: open (the vector index re-syncs with the store), reconcile
    the vault, finish an interrupted dream run."""
    m = open_engine(work, T0)
    _ = m.core.index
    m.index_vault()
    if Journal(m.core.store).unfinished() is not None:
        m.dream()
    return m


def leftovers(vault: Path) -> list[str]:
    """Temp or partial files in the vault: the writer's ``.name.<hex>.mnemo-tmp``, any ``.tmp``
    or ``.part``."""
    out = []
    for p in vault.rglob("*"):
        if p.is_file() and (p.name.endswith((TEMP_SUFFIX, ".tmp", ".part")) or ".mnemo-tmp" in p.name):
            out.append(p.relative_to(vault).as_posix())
    return out


def check_vault(vault: Path) -> None:
    assert leftovers(vault) == []
    for p in vault.rglob("*.md"):
        rel = p.relative_to(vault).as_posix()
        if rel.startswith("."):
            continue
        parsed = parse_note(rel, p.read_text())
        assert parsed.fm_error is None, (rel, parsed.fm_error)  # never a half-written note


def doctor_clean(m: Any) -> dict:
    report = m.doctor()
    bad = {name: c["sample"] for name, c in report["checks"].items() if not c["ok"]}
    assert report["ok"], bad
    return report


class Acks:
    def __init__(self, lines: list[list[Any]]) -> None:
        self.lines = lines

    def of(self, kind: str) -> list[list[Any]]:
        return [line[1:] for line in self.lines if line[0] == kind]

    @property
    def in_flight(self) -> list[Any] | None:
        """The operation begun and not acknowledged when the kill came."""
        if not self.lines or self.lines[-1][0] != "begin":
            return None
        return self.lines[-1][1:]


def verify(scenario: str, work: Path, acks: Acks, ctx: dict[str, Any]) -> None:
    m = restart(work)
    try:
        doctor_clean(m)
        check_vault(work / "vault")
        # Everything acknowledged before this operation is still there.
        for mid in ctx["before"]:
            assert m.core.store.get_memory(mid) is not None, mid
        VERIFY[scenario](m, work, acks, ctx)
    finally:
        m.close()


def verify_import(m: Any, work: Path, acks: Acks, ctx: dict[str, Any]) -> None:
    acked = [i for line in acks.of("saved") for i in line]
    got = m.core.store.get_memories(acked)
    assert set(got) == set(acked)
    for name in ("a", "b", "c"):
        ids = [json.loads(line)["id"] for line in (work / f"{name}.jsonl").read_text().splitlines()]
        found = m.core.store.get_memories(ids)
        for k in range(0, len(ids), 256):  # a committed chunk is there whole, or not at all
            part = ids[k : k + 256]
            assert len([i for i in part if i in found]) in (0, len(part)), (name, k)
        assert all(mem.content.endswith(f"({name})") for mem in found.values())


def verify_promote(m: Any, work: Path, acks: Acks, ctx: dict[str, Any]) -> None:
    flying = acks.in_flight
    vault = work / "vault"
    last: dict[str, tuple[str, list[Any]]] = {}
    touches: dict[str, int] = {}
    for line in acks.lines:
        if line[0] in ("promoted", "demoted"):
            last[line[1]] = (line[0], line)
        elif line[0] == "touched":
            touches[line[1]] = touches.get(line[1], 0) + 1
        elif line[0] == "saved":
            assert m.core.store.get_memory(line[1]) is not None
    for mid, (kind, line) in last.items():
        if flying and flying[1] == mid:
            continue  # its newest operation may or may not have happened; doctor checked it is whole
        mem = m.get(mid)
        if kind == "promoted":
            assert mem.status.value == "promoted" and mem.note_path == line[2]
            assert parse_note(line[2], (vault / line[2]).read_text()).mnemo_id == mid
        else:
            assert mem.status.value == "active" and mem.note_path is None
    for mid in {*touches, *(i for i in ctx["before"])}:
        n = int(m.core.store.query("SELECT count(*) FROM uses WHERE memory_id = ? AND kind = 'touch'", (mid,))[0][0])
        want = touches.get(mid, 0)
        assert n in ((want, want + 1) if flying and flying == ["touch", mid] else (want,)), (mid, n, want)
    # One note per promoted memory, and no memory's id in two live notes.
    owners = [parse_note(p.name, p.read_text()).mnemo_id for p in (vault / "Memories").glob("*.md")]
    owners = [o for o in owners if o]
    assert len(owners) == len(set(owners))
    assert set(owners) == {r[0] for r in m.core.store.query("SELECT id FROM memories WHERE status = 'promoted'")}


def verify_index(m: Any, work: Path, acks: Acks, ctx: dict[str, Any]) -> None:
    for mid, rel in ctx["plan"]["edited"].items():
        assert "A person added this line in Obsidian." in m.get(mid).content
        assert m.get(mid).note_path == rel
    n_notes = len([p for p in (work / "vault").rglob("*.md") if not p.relative_to(work / "vault").as_posix().startswith((".", "Templates/"))])
    assert int(m.core.store.query("SELECT count(*) FROM notes")[0][0]) == n_notes


def verify_dream(m: Any, work: Path, acks: Acks, ctx: dict[str, Any]) -> None:
    if not Journal(m.core.store).count():
        m.dream()  # killed before the plan was recorded: nothing happened, so it runs again
    assert state(m) == ctx["reference"]


VERIFY = {"import": verify_import, "promote": verify_promote, "index": verify_index, "dream": verify_dream}


# -- the trials ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def scenarios(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, dict[str, Any]]]:
    """Per scenario: its template, and its count of write points (an in-process run to the end,
    checked the same way as the trials: with no kill it must pass too)."""
    out: dict[str, dict[str, Any]] = {}
    base = tmp_path_factory.mktemp("faults")
    mp = pytest.MonkeyPatch()
    for name, build in BUILD.items():
        template = base / f"{name}-template"
        (template / "vault").mkdir(parents=True)
        build(template)
        work = base / f"{name}-work"  # every trial of a scenario runs in the same place
        shutil.copytree(template, work)
        with open_engine(work, T0) as m:
            before = [r[0] for r in m.core.store.query("SELECT id FROM memories")]
        lines: list[list[Any]] = []
        mp.setattr(faults, "armed", True)
        mp.setattr(faults, "kill_at", 0)
        mp.setattr(faults, "passed", 0)
        run(name, work, lambda *f, out=lines: out.append(list(f)))
        count = faults.passed
        mp.undo()
        ctx = {"before": before, "plan": json.loads((template / "plan.json").read_text()), "count": count}
        if name == "dream":
            with restart(work) as m:
                ctx["reference"] = state(m)
        verify(name, work, Acks(lines), ctx)
        shutil.rmtree(work)
        out[name] = {"template": template, "work": work, "ctx": ctx}
    yield out


def kill_point(scenario: str, trial: int, count: int) -> int:
    """The trial's write: a seeded random one within the trial's slice of the operation."""
    k = TRIALS[scenario]
    lo, hi = 1 + trial * count // k, max(1 + trial * count // k, (trial + 1) * count // k)
    return random.Random(f"{SEED}:{scenario}:{trial}").randint(lo, hi)


TRIAL_IDS = [(s, t) for s, n in TRIALS.items() for t in range(n)]


@pytest.mark.parametrize(("scenario", "trial"), TRIAL_IDS, ids=[f"{s}-{t}" for s, t in TRIAL_IDS])
def test_kill_9_at_a_random_write_loses_nothing(scenario: str, trial: int, scenarios) -> None:
    sc = scenarios[scenario]
    ctx, work = sc["ctx"], sc["work"]
    at = kill_point(scenario, trial, ctx["count"])
    shutil.copytree(sc["template"], work)
    try:
        env = {**os.environ, faults.ENV: str(at), "MNEMO_EMBEDDING_MODEL": "hash-64"}
        proc = subprocess.run([sys.executable, str(DRIVER), scenario, str(work)], capture_output=True, text=True,
                              env=env, timeout=120)
        assert proc.returncode == -signal.SIGKILL, (at, ctx["count"], proc.returncode, proc.stderr[-2000:])
        lines = [json.loads(line) for line in proc.stdout.splitlines()]
        assert ["done"] not in lines
        verify(scenario, work, Acks(lines), ctx)
    finally:
        shutil.rmtree(work, ignore_errors=True)


# -- a full disk ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("model", "filler", "fails"), [
    ("hash-64", " lorem ipsum dolor sit amet" * 40, "store"),  # long texts: the store's WAL hits the limit
    ("hash-2048", "", "index"),  # short texts, wide vectors: Chroma's files hit it first
])
def test_a_write_past_the_file_size_limit_is_a_clear_error_and_the_store_stays_whole(
        model: str, filler: str, fails: str, tmp_path: Path) -> None:
    from mnemo.clock import Clock
    from mnemo.config import load_settings
    from mnemo.engine import Mnemo
    from mnemo.nlp.embedder import HashEmbedder

    home = tmp_path / "home"
    dim = int(model.split("-")[1])

    def engine() -> Mnemo:
        return Mnemo(load_settings(home=home, overrides={"embedding.model": model}), clock=Clock(T0),
                     embedder=HashEmbedder(dim))

    with engine() as m:
        before = {r.memory.id: r.memory.content for r in m.save_many([{"content": sentence(i)} for i in range(50)])}
    big = tmp_path / "big.jsonl"
    big.write_text("\n".join(json.dumps({"id": f"big-{i:04d}", "content": f"Imported memory {i}.{filler}"})
                             for i in range(3000)) + "\n")
    limit = max(p.stat().st_size for p in home.rglob("*") if p.is_file()) + 300_000

    def limited() -> None:  # runs in the child: a write past `limit` bytes fails with EFBIG
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    env = {**os.environ, "MNEMO_HOME": str(home), "MNEMO_EMBEDDING_MODEL": model, "MNEMO_NOW": "2026-03-02T09:00:00Z"}
    proc = subprocess.run([sys.executable, "-m", "mnemo", "import", str(big), "--json"], capture_output=True, text=True,
                          env=env, preexec_fn=limited, timeout=120)
    assert proc.returncode == 1 and proc.stdout == ""
    assert "Traceback" not in proc.stderr
    [error, hint] = [line for line in proc.stderr.splitlines() if line.startswith(("Error:", "Hint:"))]
    assert "disk I/O error" in error and ("vector index" in error) == (fails == "index")
    assert "disk space" in hint or "rebuilds it" in hint
    with engine() as m:
        assert m.core.store.query("PRAGMA integrity_check")[0][0] == "ok"
        assert {i: m.get(i).content for i in before} == before
        imported = [r[0] for r in m.core.store.query("SELECT id FROM memories WHERE id LIKE 'big-%' ORDER BY id")]
        assert len(imported) % 256 == 0  # whole committed chunks, nothing half-written
        assert imported == [f"big-{i:04d}" for i in range(len(imported))]
        assert (len(imported) > 0) == (fails == "index")  # the index failed after the store's commit
        doctor_clean(m)  # the open re-synced the index with the store
        assert m.recall(sentence(7), k=1, touch=False)[0].content == sentence(7)


# -- a lost or damaged vector index -------------------------------------------------------------------
def _seeded(work: Path) -> list[str]:
    _notes(work / "vault", 6)
    with open_engine(work, T0) as m:
        ids = [r.memory.id for r in m.save_many([{"content": sentence(i)} for i in range(1200)])]
        m.index_vault()
    return ids


def _damage(home: Path, how: str) -> None:
    chroma = home / "chroma"
    if how == "deleted":
        shutil.rmtree(chroma)
    elif how == "database":
        size = (chroma / "chroma.sqlite3").stat().st_size
        (chroma / "chroma.sqlite3").write_bytes(random.Random(1).randbytes(size))
    elif how == "segment":  # the vectors of one collection (the biggest HNSW file)
        seg = max(chroma.glob("*/data_level0.bin"), key=lambda p: p.stat().st_size)
        seg.write_bytes(random.Random(2).randbytes(seg.stat().st_size))


@pytest.mark.parametrize("how", ["deleted", "database", "segment"])
def test_a_lost_or_corrupted_chroma_folder_is_rebuilt_from_the_store(how: str, tmp_path: Path) -> None:
    work = tmp_path / "w"
    (work / "vault").mkdir(parents=True)
    ids = _seeded(work)
    _damage(work / "home", how)
    with open_engine(work, T0) as m:
        assert m.core.index.count("memories") == len(ids)  # re-embedded from the store when it opened
        if how != "deleted":
            assert (work / "home" / "chroma.broken").is_dir()  # kept aside, not deleted
        report = m.doctor()
        assert report["checks"]["vectors"]["ok"]
        # Every note is marked for the next reconcile (the daemon's start), which re-embeds it.
        assert set(report["checks"]["notes"]["problems"]) == {"stale", "missing_vector"}
        assert report["checks"]["notes"]["problems"]["stale"] == 6
        m.index_vault()
        doctor_clean(m)
        assert m.recall(sentence(42), k=1, touch=False)[0].id == ids[42]
        assert m.recall(sentence(3 * 5 + 1), k=1, touch=False, tier="ltm")[0].path == "Projects/Note 003.md"


# -- what a killed writer leaves ----------------------------------------------------------------------
def test_temp_files_and_half_done_moves_of_a_dead_writer_are_swept(tmp_path: Path) -> None:
    from mnemo.vault.writer import MOVE_SUFFIX, move_note_file, text_hash

    work = tmp_path / "w"
    vault = work / "vault"
    _notes(vault, 3)
    with open_engine(work, T0) as m:
        m.index_vault()
    projects = vault / "Projects"
    old = "Projects/Note 000.md"
    moved = (vault / old).read_text()
    # A move cut after the new note was written: both exist, the record says so.
    (vault / "Archive").mkdir()
    (vault / "Archive" / "Note 000.md").write_text(moved)
    (vault / "Archive" / f".Note 000.md.aaaa{MOVE_SUFFIX}").write_text(json.dumps(
        {"from": old, "to": "Archive/Note 000.md", "old_hash": text_hash(moved), "new_hash": text_hash(moved)}))
    # A move whose old note a person edited since: nothing is removed, only the record.
    (vault / "Archive" / "Note 001.md").write_text("# a copy\n")
    (projects / f".Note 001.md.bbbb{MOVE_SUFFIX}").write_text(json.dumps(
        {"from": "Projects/Note 001.md", "to": "Archive/Note 001.md", "old_hash": "0" * 64, "new_hash": text_hash("# a copy\n")}))
    (projects / f".Note 002.md.cccc{TEMP_SUFFIX}").write_text("half a no")
    (projects / ".obsidian-like.json").write_text("{}")  # not mnemo's: left alone
    past = T0 - 3600
    for p in [*projects.glob(".*"), *(vault / "Archive").glob(".*")]:
        os.utime(p, (past, past))
    with open_engine(work, T0) as m:
        fresh = projects / f".Note 002.md.dddd{TEMP_SUFFIX}"
        fresh.write_text("a write in progress in this process")  # newer than the owner: untouched
        report = m.doctor()
        assert report["checks"]["leftovers"]["problems"] == {"temp_files": 1, "unfinished_moves": 2}
        counts = m.index_vault()
        assert counts["moved"] == 1 and counts["added"] == 1  # the finished move; the person's copy
        assert m.doctor()["ok"]
        assert not (vault / old).exists() and (vault / "Archive" / "Note 000.md").read_text() == moved
        assert (projects / "Note 001.md").exists() and (vault / "Archive" / "Note 001.md").exists()
        assert {p.name for p in projects.glob(".*")} == {".obsidian-like.json", fresh.name}
        fresh.unlink()
        # A real move leaves no record behind.
        move_note_file(vault, "Projects/Note 002.md", "Archive/Note 002.md")
        assert leftovers(vault) == [] and not list(vault.rglob(f"*{MOVE_SUFFIX}"))
