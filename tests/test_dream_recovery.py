"""The dream cycle is safe: a person's edit made between plan and apply wins, and a run killed at
any point is finished by the next one, ending in the same state as a run never interrupted."""

from __future__ import annotations

import fnmatch
import json
import shutil
import signal
from pathlib import Path

import pytest

from mnemo.clock import DAY, Clock, iso
from mnemo.lifecycle.dream import journal
from mnemo.models import Link, Status

from .conftest import T0, run_cli
from .dream_helpers import open_engine, state
from .test_dream_steps import BLOATED

DUPS = [
    "The billing service stores invoices in PostgreSQL with daily backups to S3.",
    "The billing service stores invoices in PostgreSQL, with daily backups to S3.",
    "The billing service stores its invoices in PostgreSQL with daily backups to S3.",
]


def seed_everything(m) -> dict[str, str]:
    """A store and vault with work for every step: near-duplicates (two promoted into notes),
    a bloated memory, a supersession and a conflict beyond enrichment's window, an entity for a
    peer card, a memory citing a deleted note, a memory that faded and one nearly gone."""
    now = m.now()
    for k in range(1, 40):
        m.core.store.mark_activity(now - k * DAY)
    ids: dict[str, str] = {}
    dups = [r.id for r in m.save_many([{"content": t, "type": "fact"} for t in DUPS], enrich="inline")]
    ids.update(dup0=dups[0], dup1=dups[1], dup2=dups[2])
    ids["other"] = m.save("Invoices are emailed to customers on the first of each month.", type="fact").id
    m.core.store.add_links([Link(ids["other"], dups[2], "causes", "person", 1.0, now)])
    ids["big"] = m.save(BLOATED, type="fact", created_at=now - 10 * DAY).id
    ids["old_db"] = m.save("We decided the orders service uses MySQL.", type="decision", created_at=now - 60 * DAY).id
    ids["new_db"] = m.save("We switched the orders service from MySQL to PostgreSQL.", type="decision").id
    ids["old_pref"] = m.save("I like dark mode in the code editor.", type="preference", created_at=now - 60 * DAY,
                             importance=0.8).id
    ids["new_pref"] = m.save("I do not like dark mode in the code editor.", type="preference").id
    for i, text in enumerate(("We cache sessions in Redis.", "Redis runs with 2 GB of memory in staging.",
                              "The rate limiter counts requests in Redis.")):
        ids[f"redis{i}"] = m.save(text, type="fact").id
    vault = m.settings.vault
    (vault / "Projects").mkdir()
    (vault / "Projects" / "roadmap.md").write_text("# Roadmap\n")
    ids["drift"] = m.save("The roadmap for the year is in Projects/roadmap.md.", type="fact").id
    (vault / "Projects" / "roadmap.md").unlink()
    ids["faded"] = m.save("A passing remark about the weather that nobody needed again.", type="fact",
                          created_at=now - 12 * DAY).id  # retention ≈ 0.03: archived
    ids["gone"] = m.save("A remark about a lunch order from two months ago.", type="fact",
                         created_at=now - 60 * DAY).id  # retention < 0.001: cold storage
    for key in ("big", "old_db", "old_pref"):
        for _ in range(5):
            m.touch(ids[key])
    m.promote(dups[0])
    m.promote(dups[1])
    return ids


class Killed(BaseException):
    """Stands for SIGKILL in-process: nothing catches it, no cleanup of the run happens."""


def _kill_at(pattern: str):
    def hook(point: str) -> None:
        if fnmatch.fnmatchcase(point, pattern):
            raise Killed(point)
    return hook


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("dream-template")
    (root / "vault").mkdir()
    with open_engine(root / "home", root / "vault", Clock(T0)) as m:
        ids = seed_everything(m)
    return root, ids


@pytest.fixture(scope="module")
def reference(template, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The state after an uninterrupted run (computed in the same place the others run)."""
    work = tmp_path_factory.mktemp("dream-work") / "w"
    shutil.copytree(template[0], work)
    with open_engine(work / "home", work / "vault", Clock(T0)) as m:
        result = m.dream()
        assert not result["failed"] and not result["resumed"]
        snap = state(m)
        texts = {p.relative_to(work / "vault").as_posix(): p.read_text() for p in (work / "vault").rglob("*.md")}
    shutil.rmtree(work)
    return {"work": work, "state": snap, "result": result, "texts": texts}


def test_uninterrupted_run_does_every_step(reference, template) -> None:
    _, ids = template
    done = reference["result"]["done"]
    assert {"archive", "merge", "split", "supersede", "conflict", "card", "flag"} <= {k for step in done.values() for k in step}
    snap = reference["state"]
    statuses = {row["id"]: row["status"] for row in snap["memories"]}
    assert statuses[ids["dup0"]] == statuses[ids["dup1"]] == statuses[ids["dup2"]] == "archived"
    assert statuses[ids["faded"]] == "archived" and statuses[ids["gone"]] == "cold"
    [merge] = [op["result"] for op in reference["result"]["ops"] if op["kind"] == "merge" and op["status"] == "applied"]
    texts = reference["texts"]
    # The promoted members' notes: copied to the history folder, marked and moved to Archive/;
    # the consolidated memory has its own note.
    assert len(merge["archived_notes"]) == 2 and merge["note"].startswith("Memories/")
    for rel in merge["archived_notes"]:
        assert rel.startswith("Archive/") and "mnemo_status: consolidated" in texts[rel]
        assert f"consolidated_into: \"[[{Path(merge['note']).stem}]]\"" in texts[rel]
        assert any(h.endswith(Path(rel).name) for h in snap["history"])
    assert f"mnemo_id: {merge['new_id']}" in texts[merge["note"]]
    assert statuses[merge["new_id"]] == "promoted"
    report = next(t for p, t in texts.items() if p.startswith("Dreams/"))
    stem = Path(merge["note"]).stem  # the archived note has the same title: the link carries the path
    assert f"[[{merge['note'][:-3]}|{stem}]]" in report or f"[[{stem}]]" in report  # wikilinks to what was touched


@pytest.mark.parametrize("point", [
    "planned",  # journal written, nothing applied
    "forget:done",  # a whole step applied
    "merge:*:stored",  # inside a merge: the store has it, index and notes do not yet
    "merge:merge:*",  # after a merge's notes moved, before the index flush
    "merge:flushed",  # flushed, not yet marked applied
    "split:split:*",
    "cards:card:*",  # a peer card written, not yet marked
    "report:report:*",  # the report note written, the run not yet finished
])
def test_a_run_killed_anywhere_is_finished_by_the_next(point: str, template, reference) -> None:
    work = reference["work"]
    shutil.copytree(template[0], work)
    try:
        m = open_engine(work / "home", work / "vault", Clock(T0))
        with journal.on_checkpoint(_kill_at(point)), pytest.raises(Killed):
            m.dream()
        m.close()
        with open_engine(work / "home", work / "vault", Clock(T0)) as again:
            result = again.dream()
            assert result["resumed"] and result["run_id"] == reference["result"]["run_id"]
            assert not result["failed"]
            assert state(again) == reference["state"]
            assert not again.dream(dry_run=True)["resumed"]  # nothing left unfinished
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_a_sigkilled_dream_process_is_finished_by_the_next(template, reference) -> None:
    work = reference["work"]
    shutil.copytree(template[0], work)
    env = {"MNEMO_NOW": iso(T0), "MNEMO_EMBEDDING_MODEL": "hash-64", "MNEMO_VAULT": str(work / "vault")}
    try:
        killed = run_cli("dream", "--json", home=work / "home", env={**env, journal.CRASH_ENV: "merge:*:stored"})
        assert killed.returncode == -signal.SIGKILL, killed.stderr
        finished = run_cli("dream", "--json", home=work / "home", env=env)
        assert finished.returncode == 0, finished.stderr
        out = json.loads(finished.stdout)
        assert out["resumed"] and out["run_id"] == reference["result"]["run_id"]
        with open_engine(work / "home", work / "vault", Clock(T0)) as again:
            assert state(again) == reference["state"]
    finally:
        shutil.rmtree(work, ignore_errors=True)


# -- a person's edit between plan and apply ------------------------------------------------------
@pytest.fixture
def seeded(template, tmp_path: Path):
    shutil.copytree(template[0], tmp_path / "w")
    with open_engine(tmp_path / "w" / "home", tmp_path / "w" / "vault", Clock(T0)) as m:
        yield m, template[1]


def _edit_when_planned(path: Path, edit):
    def hook(point: str) -> None:
        if point == "planned":
            path.write_text(edit(path.read_text()))
    return hook


def test_a_note_edited_between_plan_and_apply_keeps_the_persons_text(seeded) -> None:
    m, ids = seeded
    note = m.settings.vault / m.get(ids["dup0"]).note_path
    person = "\nI checked: the backups actually go to S3 *and* to the NAS.\n"
    with journal.on_checkpoint(_edit_when_planned(note, lambda t: t.replace("\n## Related", person + "\n## Related"))):
        result = m.dream(steps=["cluster", "merge"])
    [merge] = [op for op in result["ops"] if op["kind"] == "merge"]
    assert merge["status"] == "skipped" and "edited since the plan" in merge["result"]["reason"]
    assert person in note.read_text()  # the person's text, in place
    assert all(m.get(ids[k]).status != Status.ARCHIVED for k in ("dup0", "dup1", "dup2"))
    assert "edited since the plan" in (m.settings.vault / result["report"]).read_text()
    assert not (m.settings.vault / "Archive").exists()


def test_a_peer_card_is_rebuilt_around_a_persons_edit_or_left_to_them(seeded) -> None:
    m, _ = seeded
    first = m.dream(steps=["cards"])
    [card] = [op["result"] for op in first["ops"] if op["kind"] == "card" and op["result"]["entity"] == "Redis"]
    path = m.settings.vault / card["path"]
    m.save("Redis keys for carts expire after 7 days.", type="fact")
    outside = "Platform team owns our Redis.\n\n"
    with journal.on_checkpoint(_edit_when_planned(path, lambda t: t.replace("## What the memories say", outside + "## What the memories say"))):
        second = m.dream(steps=["cards"])
    [op] = [op for op in second["ops"] if op["kind"] == "card" and op["key"] == "redis"]
    assert op["status"] == "applied" and op["result"]["rebased"]
    text = path.read_text()
    assert outside in text and "4 memories mention Redis" in text
    m.save("Redis is also the queue for email jobs.", type="fact")
    inside = "- (my own note inside the card)\n"
    with journal.on_checkpoint(_edit_when_planned(path, lambda t: t.replace("%% mnemo: end of peer card %%", inside + "%% mnemo: end of peer card %%"))):
        third = m.dream(steps=["cards"])
    [op] = [op for op in third["ops"] if op["kind"] == "card" and op["key"] == "redis"]
    assert op["status"] == "skipped" and "their text is kept" in op["result"]["reason"]
    assert inside in path.read_text() and "4 memories mention Redis" in path.read_text()


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    from mnemo.cli import main

    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_dream_cli_plans_applies_and_reviews(template, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(template[0], tmp_path / "w")
    for key, value in {"MNEMO_NOW": iso(T0), "MNEMO_EMBEDDING_MODEL": "hash-64", "MNEMO_VAULT": str(tmp_path / "w" / "vault"),
                       "MNEMO_HOME": str(tmp_path / "w" / "home")}.items():
        monkeypatch.setenv(key, value)
    code, out, _ = _cli(capsys, "dream", "--dry-run", "--steps", "merge,split", "--json")
    plan = json.loads(out)
    assert code == 0 and plan["dry_run"] and {op["kind"] for op in plan["ops"]} == {"merge", "split", "report"}
    code, out, _ = _cli(capsys, "dream", "--steps", "merge")
    assert code == 0 and "applied 2 of 2 operations" in out and "report: Dreams/" in out
    code, out, _ = _cli(capsys, "dream", "review", "--json")
    assert code == 0 and json.loads(out) == {"clusters": []}
    code, out, err = _cli(capsys, "dream", "--steps", "nap")
    assert code == 1 and out == "" and "Error: unknown dream step(s): nap" in err and "Hint: choose from" in err
    code, out, err = _cli(capsys, "dream", "review", "accept", "cnope")
    assert code == 1 and "Error: no cluster 'cnope' waits for review" in err
