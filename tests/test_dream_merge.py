"""The dream cycle's clustering and consolidation, with real similarity (MiniLM)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mnemo.clock import Clock
from mnemo.errors import NotFound
from mnemo.lifecycle.dream.cluster import cluster_id
from mnemo.lifecycle.dream.merge import merged_id
from mnemo.models import Link, Status

from .conftest import T0
from .dream_helpers import open_engine

DUPS = [
    "The staging database runs PostgreSQL 16 on port 5433.",
    "Our staging database runs PostgreSQL 16 on port 5433.",
    "The staging database is PostgreSQL 16, running on port 5433.",
]
# Cosine 0.88 with MiniLM: close enough to cluster (> 0.83), not cohesive enough to merge (< 0.9).
BAND = [
    "The nightly backup job copies the database to S3 at 2am.",
    "Every night at 2am a backup of the database is uploaded to S3.",
]
CONTRADICTING = ["I like dark mode in the code editor.", "I do not like dark mode in the code editor."]
OTHERS = [
    "The office coffee machine is broken again.",
    "Bob is allergic to peanuts.",
    "The CI pipeline caches pip downloads between jobs.",
    "Alice prefers code reviews within one day.",
]


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory, real_embedder) -> tuple[Path, dict[str, list[str]]]:
    """One seeded home and vault for the module (MiniLM is slow on a busy machine); each test
    works on its own copy."""
    root = tmp_path_factory.mktemp("dream-seed")
    (root / "vault").mkdir()
    with open_engine(root / "home", root / "vault", Clock(T0), real_embedder) as m:
        items = [{"content": t, "tags": [f"t{i}"]} for i, t in enumerate(DUPS)]
        items += [{"content": t, "tags": ["backup"]} for t in BAND] + [{"content": t} for t in OTHERS]
        items += [{"content": t, "type": "preference"} for t in CONTRADICTING]
        ids = [r.id for r in m.save_many(items, enrich="inline")]
    return root, {"dups": ids[:3], "band": ids[3:5], "others": ids[5:9], "contra": ids[9:]}


@pytest.fixture
def mind(seeded, tmp_path: Path, clock: Clock, real_embedder):
    root, _ = seeded
    shutil.copytree(root, tmp_path / "copy")
    with open_engine(tmp_path / "copy" / "home", tmp_path / "copy" / "vault", clock, real_embedder) as m:
        yield m


def _seed(m):
    """The seeded ids (the copy has the same ones)."""
    ids = {}
    for group, texts in (("dups", DUPS), ("band", BAND), ("others", OTHERS), ("contra", CONTRADICTING)):
        by_text = {x.content: x.id for x in m.list(limit=None)}
        ids[group] = [by_text[t] for t in texts]
    return ids["dups"], ids["band"], ids["others"]


def test_near_duplicates_merge_with_links_transferred_and_originals_restorable(mind) -> None:
    dups, _, others = _seed(mind)
    # A link from another memory into one of the duplicates, and one out of another duplicate.
    mind.core.store.add_links([Link(others[2], dups[1], "causes", "person", 1.0, mind.now()),
                          Link(dups[2], others[3], "motivated_by", "rule", 0.7, mind.now())])
    for _ in range(3):
        mind.touch(dups[0])

    result = mind.dream(steps=["cluster", "merge"])

    cid = cluster_id(dups)
    new_id = merged_id(cid)
    merges = [op for op in result["ops"] if op["kind"] == "merge"]
    assert [op["key"] for op in merges] == [cid]
    new = mind.get(new_id)
    assert new.status == Status.ACTIVE
    assert new.content.startswith(DUPS[0])  # the most used member is the base
    assert set(new.tags) == {"t0", "t1", "t2"}
    assert new.use_count == 3 and new.meta["consolidated_from"][0] == dups[0]
    # Links moved to the consolidated memory, both directions.
    assert Link(others[2], new_id, "causes", "person", 1.0, mind.now()) in mind.core.store.links_of(new_id)
    assert any(ln.src == new_id and ln.dst == others[3] and ln.rel == "motivated_by" for ln in mind.core.store.links_of(new_id))
    for d in dups:
        old = mind.get(d)
        assert old.status == Status.ARCHIVED and old.meta["consolidated_into"] == new_id
        assert Link(d, new_id, "consolidated_into", "rule", 1.0, mind.now()) in mind.core.store.links_of(d)
    # Recall returns the consolidated memory, not the archived originals.
    hits = mind.recall("which port does the staging PostgreSQL use?", k=3, touch=False)
    assert hits[0].id == new_id and not {h.id for h in hits} & set(dups)
    # An original comes back with its links and its vector.
    back = mind.restore(dups[1])
    assert back.status == Status.ACTIVE and back.content == DUPS[1]
    assert any(ln.rel == "causes" and ln.src == others[2] for ln in mind.core.store.links_of(dups[1]))
    assert dups[1] in mind.core.index.get_vectors("memories", [dups[1]])
    # The report note links what was merged.
    report = (mind.settings.vault / result["report"]).read_text()
    assert "## Merged (1)" in report and new_id[:8] in report and dups[2][:8] in report


def test_cluster_ids_are_the_same_across_runs(mind, clock: Clock, real_embedder) -> None:
    dups, band, _ = _seed(mind)
    first = mind.dream(dry_run=True, steps=["cluster", "merge"])
    second = mind.dream(dry_run=True, steps=["cluster", "merge"])
    keys = sorted(op["key"] for op in first["ops"] if op["kind"] != "report")
    assert keys == sorted(op["key"] for op in second["ops"] if op["kind"] != "report") == sorted([cluster_id(dups), cluster_id(band)])
    applied = mind.dream(steps=["cluster"])
    assert [c["id"] for c in applied["review"]] == [cluster_id(band)]
    home, vault = mind.home, mind.settings.vault
    mind.close()
    with open_engine(home, vault, clock, real_embedder) as again:  # a fresh index client
        third = again.dream(dry_run=True, steps=["cluster", "merge"])
        assert [op["key"] for op in third["ops"] if op["kind"] != "report"] == [cluster_id(dups)]  # the review cluster is known: not re-listed
        assert [c["id"] for c in again.dream_review()] == [cluster_id(band)]


def test_review_band_cluster_waits_until_accepted(mind) -> None:
    _, band, _ = _seed(mind)
    cid = cluster_id(band)
    for dry_run in (False, True):  # listed by a run, and the next run still does not merge it
        result = mind.dream(steps=["cluster", "merge"], dry_run=dry_run)
        assert [c["id"] for c in result["review"]] == [cid]
        assert cid not in {op["key"] for op in result["ops"] if op["kind"] == "merge"}
        assert 0.83 < result["review"][0]["cohesion"] < 0.9
        assert all(mind.get(i).status == Status.ACTIVE for i in band)
        assert mind.core.store.get_memory(merged_id(cid)) is None
    decided = mind.dream_decide(cid[:8], accept=True)
    assert decided["status"] == "merged" and decided["merged_into"] == merged_id(cid)
    assert all(mind.get(i).status == Status.ARCHIVED for i in band)
    assert mind.dream_review() == []
    assert all(text in mind.get(merged_id(cid)).content for text in BAND)  # neither statement lost


def test_rejected_cluster_is_not_proposed_again(mind) -> None:
    _, band, _ = _seed(mind)
    cid = cluster_id(band)
    mind.dream(steps=["cluster"])
    assert mind.dream_decide(cid, accept=False)["status"] == "rejected"
    again = mind.dream(dry_run=True, steps=["cluster", "merge"])
    assert cid not in {op["key"] for op in again["ops"]} and again["review"] == []
    with pytest.raises(NotFound):
        mind.dream_decide("cnothere", accept=True)


def test_contradicting_near_duplicates_go_to_review_not_merge(mind) -> None:
    by_text = {x.content: x.id for x in mind.list(limit=None)}
    a, b = (by_text[t] for t in CONTRADICTING)
    result = mind.dream(dry_run=True, steps=["cluster", "merge"])
    assert cluster_id([a, b]) not in {op["key"] for op in result["ops"] if op["kind"] == "merge"}  # never merged automatically
