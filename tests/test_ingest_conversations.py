"""Hand-written conversations in tests/conversations/ (JSON, Markdown chat, plain text; short
and long) ingested for real (spaCy, SQLite, Chroma): the memories, their types and
fingerprints, and the exact set of links, read from each ``*.expected.json``.

Precision first: each expected file lists the links there must be, and nothing else may be
linked; its ``unlinked`` pairs share only a common word ("team", "boat", "risotto", "time")
and must stay apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

HERE = Path(__file__).parent / "conversations"
CONVERSATIONS = sorted(p for p in HERE.iterdir() if not p.name.endswith(".expected.json"))


def _expected(path: Path) -> dict:
    return json.loads((HERE / f"{path.stem}.expected.json").read_text(encoding="utf-8"))


def _ingested(engine, path: Path):
    result = engine.ingest(str(path))
    kept = [m for m in result["memories"] if m["created"]]
    return result, kept


@pytest.mark.parametrize("path", CONVERSATIONS, ids=[p.name for p in CONVERSATIONS])
def test_conversation_memories_types_fingerprints_and_links(engine, path: Path) -> None:
    exp = _expected(path)
    result, kept = _ingested(engine, path)
    assert result["format"] == exp["format"]
    assert result["turns"] == exp["turns"]

    # The memories, in conversation order, with their types and fingerprints.
    assert [m["content"] for m in kept] == [m["content"] for m in exp["memories"]]
    key_of: dict[str, str] = {}
    for got, want in zip(kept, exp["memories"], strict=True):
        key_of[got["id"]] = want["key"]
        assert got["type"] == want["type"], want["key"]
        fp = got["fingerprint"]
        assert fp["type"] == want["type"]
        assert set(fp["entities"]) == set(want["entities"]), want["key"]
        assert fp["subjects"] == want["subjects"], want["key"]
        assert fp["decision"] == want["decision"], want["key"]
        assert fp["rejected"] == want["rejected"], want["key"]
        assert fp["reasons"] == want["reasons"], want["key"]
        stored = engine.get(got["id"])
        assert stored.source.value == "ingest" and stored.session_id == result["session_id"]
        assert stored.fingerprint.to_dict() == fp

    # Chatter, questions, suggestions and boilerplate are not memories.
    for text in exp["dropped"]:
        assert not any(text in m["content"] for m in kept), text

    # Exactly the expected links, each stored in both directions.
    links = set()
    for mid in key_of:
        for ln in engine.core.store.links_of(mid, direction="out"):
            assert ln.dst in key_of, "ingest linked outside the conversation"
            links.add((key_of[ln.src], ln.rel, key_of[ln.dst]))
            assert any(x.src == ln.src and x.rel == ln.rel for x in engine.core.store.links_of(ln.dst, direction="in"))
    assert links == {tuple(x) for x in exp["links"]}
    for a, b in exp["unlinked"]:
        assert not any({x, y} == {a, b} for x, _, y in links), (a, b)

    # The links have the origin and weight of their kind.
    for mid in key_of:
        for ln in engine.core.store.links_of(mid, direction="out"):
            if ln.rel.startswith("shares_entity:"):
                assert (ln.origin, ln.weight) == ("auto", 0.5)
            else:
                assert ln.origin == "rule" and ln.weight >= 0.7


def test_supersedes_marks_the_older_version_and_keeps_it(engine) -> None:
    _, kept = _ingested(engine, HERE / "editor_prefs.md")
    by_text = {m["content"]: m["id"] for m in kept}
    old = engine.get(by_text["Alice: I prefer dark mode in every editor."])
    new_id = next(i for t, i in by_text.items() if "now prefer light mode" in t)
    assert old.superseded_by == new_id
    assert old.status.value == "active"  # non-destructive: the old version stays
    assert engine.get(by_text["Bob: I like light mode in the editor, honestly."]).superseded_by is None


def test_dry_run_stores_nothing_and_shows_the_plan(engine) -> None:
    result = engine.ingest(str(HERE / "checkout_incident.json"), dry_run=True)
    assert result["dry_run"] and result["kept"] == 6
    assert engine.core.store.count() == 0 and engine.core.store.count_links() == 0
    rels = sorted(ln["rel"] for ln in result["planned_links"])
    assert rels == sorted(["because", "because", "triggered", "triggered", "triggered", "shares_entity:Black Friday", "shares_entity:PgBouncer"])
    # The plan is what a real run then stores.
    real = engine.ingest(str(HERE / "checkout_incident.json"))
    assert real["kept"] == 6 and real["total_links"] == 7


def test_duplicates_go_through_surprise_and_are_not_stored_twice(engine) -> None:
    first = engine.ingest(str(HERE / "standup.txt"))
    n = engine.core.store.count()
    again = engine.ingest(str(HERE / "standup.txt"))
    assert again["kept"] == 0 and again["duplicates"] == first["kept"]
    assert engine.core.store.count() == n
    originals = {m["id"] for m in first["memories"]}
    assert {m["duplicate_of"] for m in again["memories"]} <= originals

    # Within one conversation too: the repeated statement is kept once.
    text = "Alice: We decided to deploy the API on Fly.io.\nBob: Ok.\nAlice: We decided to deploy the API on Fly.io.\n"
    r = engine.ingest(text)
    assert r["kept"] == 1 and r["duplicates"] == 1
    dup = next(m for m in r["memories"] if not m["created"])
    assert dup["duplicate_of"] == next(m["id"] for m in r["memories"] if m["created"])


def test_raw_text_with_a_format_hint_and_session(engine) -> None:
    text = json.dumps([{"role": "user", "content": "We decided to use Terraform for the staging infrastructure."}])
    r = engine.ingest(text, format="json", wing="infra", room="staging", session_id="s-42")
    assert r["format"] == "json" and r["source"] == "text" and r["session_id"] == "s-42"
    m = engine.get(r["memories"][0]["id"])
    assert (m.wing, m.room, m.session_id, m.type.value) == ("infra", "staging", "s-42", "decision")
    assert m.fingerprint.decision == "Use Terraform for the staging infrastructure"
    assert "Terraform" in m.fingerprint.entities


def test_bad_input_is_refused_without_writing(engine, tmp_path: Path) -> None:
    from mnemo.errors import InvalidInput

    bad = tmp_path / "bad.json"
    bad.write_text('[{"role": "user", "content": "We decided to use Redis."}, {"role": "user"}]', encoding="utf-8")
    with pytest.raises(InvalidInput, match="turn 2: no text"):
        engine.ingest(str(bad))
    with pytest.raises(InvalidInput, match="no such file"):
        engine.ingest(str(tmp_path / "missing.json"))
    with pytest.raises(InvalidInput, match="no conversation turns"):
        engine.ingest("[]", format="json")
    assert engine.core.store.count() == 0
