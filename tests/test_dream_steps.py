"""The dream cycle's other steps on a seeded store and vault (hash embedder: these are tests of
logic): split, supersession, belief probing, peer cards, drift, pruning, and the dry run."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from mnemo.clock import DAY, Clock
from mnemo.errors import InvalidInput
from mnemo.lifecycle.dream.drift import cited_paths
from mnemo.lifecycle.dream.split import split_text
from mnemo.models import Status
from mnemo.vault.parse import parse_note

from .dream_helpers import open_engine, tree_hashes

BLOATED = "\n\n".join([
    "## Database\n" + " ".join(["The orders service keeps its data in PostgreSQL 16 with logical replication to a reporting replica."] * 5),
    "## Deploys\n" + " ".join(["Deploys go out on Tuesday mornings through the blue-green pipeline with a manual approval step."] * 5),
    "## On call\n" + " ".join(["The on-call rotation changes every Monday and pages through PagerDuty for anything above severity three."] * 5),
    "## Costs\n" + " ".join(["The cloud bill is reviewed monthly and any service above its budget gets a ticket for its owners."] * 5),
])


@pytest.fixture
def mind(home: Path, vault: Path, clock: Clock):
    with open_engine(home, vault, clock) as m:
        yield m


def _old(m, content: str, days: float, **fields):
    return m.save(content, created_at=m.now() - days * DAY, **fields)


def test_split_text_cuts_at_headings_and_keeps_every_word() -> None:
    pieces = split_text(BLOATED, 120)
    assert len(pieces) >= 3
    assert [p.splitlines()[0] for p in pieces[:1]] == ["## Database"]
    assert " ".join(" ".join(pieces).split()) == " ".join(BLOATED.split())


def test_a_bloated_memory_splits_into_linked_pieces_and_stays(mind) -> None:
    big = _old(mind, BLOATED, days=10).id
    young = mind.save(BLOATED + " (copy)").id  # too new to split
    for _ in range(5):
        mind.touch(big)
        mind.touch(young)
    result = mind.dream(steps=["split"])
    [op] = [op for op in result["ops"] if op["kind"] == "split"]
    assert op["key"] == big
    pieces = op["result"]["pieces"]
    assert len(pieces) >= 3
    original = mind.get(big)
    assert original.status == Status.ACTIVE and original.content == BLOATED
    for pid in pieces:
        piece = mind.get(pid)
        assert piece.status == Status.ACTIVE and piece.tokens <= 130 and piece.meta["split_from"] == big
        assert any(ln.rel == "split_from" and ln.src == pid and ln.dst == big for ln in mind.core.store.links_of(pid))
    assert {"## Deploys", "## On call"} <= {mind.get(p).content.splitlines()[0] for p in pieces}
    # Split once: the next run leaves it alone, and the pieces never merge back into it.
    again = mind.dream(dry_run=True, steps=["split", "cluster", "merge"])
    assert not [o for o in again["ops"] if o["kind"] in ("split", "merge") and big in str(o)]


def test_a_superseded_memory_is_marked(mind) -> None:
    # 60 days apart: beyond the window enrichment compares at write time.
    old = _old(mind, "We decided the orders service uses MySQL.", days=60, type="decision").id
    new = mind.save("We switched the orders service from MySQL to PostgreSQL.", type="decision").id
    assert mind.get(old).superseded_by is None
    result = mind.dream(steps=["supersede"])
    assert [op["kind"] for op in result["ops"] if op["step"] == "supersede"] == ["supersede"]
    assert mind.get(old).superseded_by == new
    assert mind.get(old).status == Status.ACTIVE  # a version, not a deletion
    assert any(ln.rel == "supersedes" and ln.src == new and ln.dst == old for ln in mind.core.store.links_of(old))
    assert "## Superseded (1)" in (mind.settings.vault / result["report"]).read_text()


def test_a_conflict_is_linked_and_the_older_loses_importance(mind) -> None:
    old = _old(mind, "I like dark mode in the code editor.", days=60, type="preference", importance=0.8).id
    new = mind.save("I do not like dark mode in the code editor.", type="preference").id
    before, newer = mind.get(old).importance, mind.get(new).importance
    result = mind.dream(steps=["beliefs"])
    assert any(ln.rel == "conflicts" and ln.src == new and ln.dst == old for ln in mind.core.store.links_of(old))
    assert mind.get(old).importance == pytest.approx(before * 0.5)
    assert mind.get(new).importance == newer
    report = (mind.settings.vault / result["report"]).read_text()
    assert "## Conflicts (1)" in report and f"{before:.2f} → {before * 0.5:.2f}" in report
    # Probed once: the next run does not halve it again.
    mind.dream(steps=["beliefs"])
    assert mind.get(old).importance == pytest.approx(before * 0.5)


def test_a_peer_card_is_written_then_updated_in_place(mind, vault: Path) -> None:
    for text in ("We cache sessions in Redis.", "Redis runs with 2 GB of memory in staging.",
                 "The rate limiter counts requests in Redis."):
        mind.save(text)
    first = mind.dream(steps=["cards"])
    [card] = [op for op in first["ops"] if op["kind"] == "card"]
    path = vault / card["result"]["path"]
    assert card["result"]["card"] == "created" and path.parent.name == "Entities"
    text = path.read_text()
    assert parse_note(card["result"]["path"], text).mnemo_id == "entity:redis" and "3 memories mention Redis" in text
    # A person writes in the note; a new memory mentions Redis.
    path.write_text(text.replace("## What the memories say", "Our Redis is managed by the platform team.\n\n## What the memories say"))
    mind.save("Redis keys for carts expire after 7 days.")
    second = mind.dream(steps=["cards"])
    [card2] = [op for op in second["ops"] if op["kind"] == "card"]
    assert card2["result"]["card"] == "updated" and card2["result"]["path"] == card["result"]["path"]
    after = path.read_text()
    assert "Our Redis is managed by the platform team." in after
    assert "4 memories mention Redis" in after and "carts expire" in after
    assert after.count("## What the memories say") == 1
    assert sorted(p.name for p in (vault / "Entities").iterdir()) == [path.name]  # in place, no copy
    # The version before the rewrite is in the history folder, inside MNEMO_HOME.
    kept = list((mind.home / "dream-history").rglob(path.name))
    assert len(kept) == 1 and "Our Redis is managed" in kept[0].read_text() and "3 memories mention" in kept[0].read_text()


def test_a_memory_citing_a_deleted_file_is_flagged(mind, vault: Path, tmp_path: Path) -> None:
    (vault / "Projects").mkdir()
    plan = vault / "Projects" / "plan.md"
    plan.write_text("# Plan\n")
    root = tmp_path / "code"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print(1)\n")
    mind.settings.dream.drift_roots = [str(root)]
    a = mind.save("The roadmap lives in Projects/plan.md and nowhere else.").id
    b = mind.save(f"The entry point is {root}/src/app.py, see file://{root}/src/app.py").id
    c = mind.save("Unrelated: src/other/thing.py is from another project; /etc/hosts is not ours.").id
    assert mind.dream(dry_run=True, steps=["drift"])["ops"] == []
    plan.unlink()
    (root / "src" / "app.py").unlink()
    result = mind.dream(steps=["drift"])
    assert mind.get(a).meta["invalidated_by"]["missing"] == [str(plan)]
    assert mind.get(b).meta["invalidated_by"]["missing"] == [str(root / "src" / "app.py")]
    assert "invalidated_by" not in mind.get(c).meta
    assert "## Drift: cited paths that are gone (2)" in (vault / result["report"]).read_text()
    plan.write_text("# Plan again\n")
    mind.dream(steps=["drift"])
    assert "invalidated_by" not in mind.get(a).meta and "invalidated_by" in mind.get(b).meta


def test_cited_paths_only_inside_the_roots(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    text = (f"see {tmp_path}/a.txt, notes/b.md and https://example.com{tmp_path}/c and "
            f"file://{tmp_path}/d%20e.txt; /usr/bin/env and other/f.md")
    assert cited_paths(text, [tmp_path]) == [tmp_path / "d e.txt", tmp_path / "a.txt", tmp_path / "notes" / "b.md"]


def test_old_logs_and_journals_are_pruned(mind, vault: Path) -> None:
    m = mind.save("A memory that was used long ago.").id
    mind.core.store.add_uses([(m, mind.now() - 400 * DAY, "touch", None), (m, mind.now() - 5 * DAY, "touch", None)])
    (vault / "Projects").mkdir()
    mind.save("The plan was in Projects/gone.md.")
    old_run = mind.dream(steps=["drift"])  # a finished run and its report ...
    assert old_run["report"] and mind.core.store.query("SELECT count(*) FROM dream_runs")[0][0] == 1
    mind.core.clock.advance(200 * DAY)  # ... 200 days ago
    mind.core.store.add_uses([(m, mind.now() - DAY, "touch", None)])
    result = mind.dream(steps=["prune"])
    [op] = [op for op in result["ops"] if op["kind"] == "prune"]
    assert op["result"]["counts"]["uses"] == 2 and op["result"]["counts"]["dream_runs"] == 1
    assert len(mind.core.store.use_times(m)) == 1
    assert [r["id"] for r in mind.core.store.query("SELECT id FROM dream_runs")] == [result["run_id"]]
    assert old_run["run_id"] != result["run_id"]
    assert mind.get(m).use_count == 0 and mind.get(m).status == Status.ACTIVE  # memories are never pruned


def test_a_run_with_nothing_to_do_leaves_no_trace(mind, vault: Path) -> None:
    mind.save("Nothing to see here.")
    result = mind.dream()
    assert result["planned"] == 0 and result["report"] is None and not result["dry_run"]
    assert mind.core.store.query("SELECT count(*) FROM dream_runs")[0][0] == 0 and not (vault / "Dreams").exists()


def test_unknown_steps_are_refused(mind) -> None:
    with pytest.raises(InvalidInput, match="unknown dream step"):
        mind.dream(steps="merge,nap")


def test_dry_run_leaves_store_and_vault_byte_identical(mind, vault: Path) -> None:
    from .test_dream_recovery import seed_everything

    seed_everything(mind)
    mind.core.index.count("memories")
    # Everything in the home but SQLite's shared-memory WAL index (readers mark it; it holds no data).
    skip = ("chroma", "mnemo.db-shm")
    before_vault, before_home = tree_hashes(vault), tree_hashes(mind.home, skip=skip)
    before_chroma = tree_hashes(mind.home / "chroma")
    plan = mind.dream(dry_run=True)
    kinds = {op["kind"] for op in plan["ops"]}
    assert {"archive", "freeze", "merge", "split", "supersede", "conflict", "card", "flag"} <= kinds
    assert tree_hashes(vault) == before_vault
    assert {"mnemo.db", "mnemo.db-wal"} <= set(before_home)
    assert tree_hashes(mind.home, skip=skip) == before_home  # the database and its WAL
    assert tree_hashes(mind.home / "chroma") == before_chroma
    assert hashlib.sha256((mind.home / "mnemo.db").read_bytes()).hexdigest() == before_home["mnemo.db"]
    # The same plan is what a real run applies.
    applied = mind.dream()
    assert [(o["kind"], o["key"]) for o in applied["ops"]] == [(o["kind"], o["key"]) for o in plan["ops"]]
    assert applied["run_id"] == plan["run_id"]


def test_the_forgetting_pass_archives_and_freezes_and_restore_brings_back(mind) -> None:
    for k in range(1, 40):
        mind.core.store.mark_activity(mind.now() - k * DAY)
    faded = _old(mind, "A passing remark about the weather that nobody needed again.", days=12, type="fact").id
    gone = _old(mind, "A remark about a lunch order from two months ago.", days=60, type="fact").id
    kept = _old(mind, "A pinned remark that must stay.", days=60, type="fact", pinned=True).id
    result = mind.dream(steps=["forget"])
    assert mind.get(faded).status == Status.ARCHIVED and mind.get(gone).status == Status.COLD
    assert mind.get(kept).status == Status.ACTIVE
    assert gone not in mind.core.index.get_vectors("memories", [gone])  # out of the hot index, kept quantized
    report = (mind.settings.vault / result["report"]).read_text()
    assert "## Archived (faded) (1)" in report and "## Cold storage (1)" in report
    back = mind.restore(gone)
    assert back.status == Status.ACTIVE and gone in mind.core.index.get_vectors("memories", [gone])
