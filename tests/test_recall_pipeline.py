"""The recall pipeline on real parts (SQLite, embedded Chroma, a tmp vault); the hash embedder
stands in for the model where only logic is tested."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mnemo.cli import cli
from mnemo.clock import DAY, Clock
from mnemo.config import load_settings
from mnemo.engine import Mnemo
from mnemo.errors import InvalidInput
from mnemo.index.filters import make_filters
from mnemo.lifecycle.assess import retentions
from mnemo.models import Link
from mnemo.nlp.embedder import HashEmbedder
from mnemo.nlp.tokens import count_tokens
from mnemo.scoring.review_priority import review_priority
from mnemo.setup import init_home

from .conftest import T0

TABLES = ("memories", "uses", "links", "activity_days", "kv", "memories_fts", "jobs")


def table_hashes(m: Mnemo) -> dict[str, str]:
    out = {}
    for t in TABLES:
        rows = m.core.store.query(f"SELECT * FROM {t} ORDER BY 1")
        out[t] = hashlib.sha256(json.dumps([list(r) for r in rows], default=repr).encode()).hexdigest()
    return out


def make_engine(home: Path, clock: Clock, vault: Path | None = None, **recall: object) -> Mnemo:
    overrides = {"embedding.model": "hash-64", **{f"recall.{k}": v for k, v in recall.items()}}
    settings = load_settings(home=home, vault=vault, overrides=overrides)
    if vault is not None:
        init_home(settings)
    return Mnemo(settings, clock=clock, embedder=HashEmbedder(64))


# -- filters ---------------------------------------------------------------------------------------
def test_every_filter_holds_end_to_end(engine: Mnemo) -> None:
    m = engine
    word = "kestrel"
    rows = [
        {"content": f"{word} decision about the build", "type": "decision", "layer": "semantic", "wing": "work", "room": "ci",
         "tags": ["build", "ci"], "created_at": T0 - 10 * DAY},
        {"content": f"{word} fact about the garden", "type": "fact", "layer": "episodic", "wing": "home", "tags": ["garden"],
         "created_at": T0 - 5 * DAY},
        {"content": f"{word} preference for tea", "type": "preference", "layer": "working", "wing": "home", "room": "kitchen",
         "tags": ["garden", "tea"], "created_at": T0 - 1 * DAY},
        {"content": f"{word} log line from the build", "type": "debug_log", "layer": "working", "wing": "work",
         "tags": ["build"], "created_at": T0},
    ]
    ids = [r.id for r in m.save_many(rows)]
    archived = m.save(f"{word} archived note").memory
    m.forget(archived.id)

    def got(**f: object) -> set[str]:
        return {h.id for h in m.recall(word, k=10, touch=False, **f)}

    assert got() == set(ids)  # archived memories are not searched by default
    assert got(type="decision") == {ids[0]}
    assert got(layer="episodic") == {ids[1]}
    assert got(wing="home") == {ids[1], ids[2]}
    assert got(wing="home", room="kitchen") == {ids[2]}
    assert got(tag="build") == {ids[0], ids[3]}
    assert got(tags=["garden", "tea"]) == {ids[2]}
    assert got(since=T0 - 6 * DAY) == {ids[1], ids[2], ids[3]}
    assert got(until=T0 - 2 * DAY) == {ids[0], ids[1]}
    assert got(since=T0 - 6 * DAY, until=T0 - 2 * DAY) == {ids[1]}
    assert got(status="archived") == {archived.id}
    assert got(tier="ltm") == set()  # no vault: no notes
    assert got(tier="stm") == set(ids)
    with pytest.raises(InvalidInput):
        m.recall(word, colour="red")


def test_a_tag_filter_is_applied_to_vector_candidates_too(engine: Mnemo) -> None:
    m = engine
    tagged = m.save("harbour crane maintenance schedule", tags=["ops"]).memory
    m.save_many([{"content": f"harbour crane maintenance schedule variant {i}"} for i in range(30)])
    hits = m.recall("harbour crane maintenance", k=10, touch=False, tag="ops")
    assert [h.id for h in hits] == [tagged.id]


# -- intents -----------------------------------------------------------------------------------------
def test_intent_changes_the_balance_between_keywords_and_meaning(engine: Mnemo) -> None:
    """A memory that only BM25 finds and one that only the vectors find (the hash embedder
    reads every word; the keyword query drops function words): ``exact`` puts the keyword
    match first, ``explore`` the vector match."""
    m = engine
    kw = m.save("zephyrine appears once here among many other plain words in a long sentence of text").memory
    near = m.save("what were they doing over there").memory
    m.save_many([{"content": t} for t in ("tidal charts for sailing", "river wave photos", "surfing lessons")])
    query = "zephyrine: what were they doing over there"
    exact = [h.id for h in m.recall(query, intent="exact", touch=False)]
    explore = [h.id for h in m.recall(query, intent="explore", touch=False)]
    assert exact.index(kw.id) < exact.index(near.id)
    assert explore.index(near.id) < explore.index(kw.id)
    quoted = m.recall('"plain words in a long sentence"', touch=False)
    assert quoted[0].id == kw.id  # a quoted phrase: the exact-phrase match first


# -- reinforcement and the no-touch promise --------------------------------------------------------
def test_no_touch_changes_nothing_in_the_store(home: Path, clock: Clock, vault: Path) -> None:
    with make_engine(home, clock, vault) as m:
        (vault / "Ops.md").write_text("# Pager\n\nThe pager rota for the database team.\n")
        a = m.save("The database team owns the pager rota").memory
        b = m.save("Database backups run nightly", type="session_note").memory
        m.save("Pinned: the database is PostgreSQL", pinned=True)
        m.core.store.add_links([Link(a.id, b.id, "causes", created_at=T0), Link(a.id, "gone-memory", "causes", created_at=T0)])
        m.promote(b.id)
        m.index_vault()
        clock.advance(3 * DAY)
        before = table_hashes(m)
        hits = m.recall("database pager rota", touch=False)
        assert hits
        m.recall("database pager rota", touch=False, budget=60, session_id="s1")
        ctx = m.context("database pager rota", budget=300, touch=False, session_id="s1")
        assert ctx["ids"]
        assert table_hashes(m) == before
        # The CLI's --no-touch is the same promise.
    runner = CliRunner()
    env = {"MNEMO_HOME": str(home), "MNEMO_VAULT": str(vault), "MNEMO_EMBEDDING_MODEL": "hash-64", "MNEMO_NOW": "2026-03-05T10:00:00Z"}
    for args in (["recall", "database pager", "--no-touch", "--json"], ["context", "database pager", "--no-touch", "--json"],
                 ["recall", "database", "--no-touch", "--budget", "40", "--json"]):
        r = runner.invoke(cli, args, env=env, catch_exceptions=False)
        assert r.exit_code == 0, r.output
    with make_engine(home, clock, vault) as m:
        assert table_hashes(m) == before
        # And a touching recall does write: uses with the session, the day marked.
        hits = m.recall("database pager rota", session_id="conv-7")
        mids = {h.id for h in hits if h.tier == "stm"} | {h.meta["mnemo_id"] for h in hits if h.meta.get("mnemo_id")}
        rows = m.core.store.query("SELECT memory_id, kind, context FROM uses WHERE kind = 'recall'")
        assert {r[0] for r in rows} == mids
        assert all(json.loads(r[2]) == {"session_id": "conv-7"} for r in rows)
        assert m.core.store.query("SELECT count(*) FROM links WHERE dst = 'gone-memory' OR src = 'gone-memory'")[0][0] == 0  # healed


# -- link expansion ---------------------------------------------------------------------------------
def _chain(m: Mnemo) -> list[str]:
    texts = ["alpha bravo charlie", "delta echo foxtrot", "golf hotel india", "juliet kilo lima"]
    ids = [r.id for r in m.save_many([{"content": t} for t in texts])]
    m.core.store.add_links([Link(ids[i], ids[i + 1], "causes", created_at=T0) for i in range(3)])
    return ids


@pytest.mark.parametrize("depth", [0, 1, 2, 3])
def test_link_expansion_is_depth_limited_and_damped(home: Path, clock: Clock, depth: int) -> None:
    with make_engine(home, clock, floor=0.9, expand_depth=depth, review_ratio=0.0, neighbour_gap=0.0, feedback_weight=0.0) as m:
        a, b, c, d = _chain(m)
        hits = m.recall("alpha bravo charlie", k=10, touch=False)
        got = {h.id: h for h in hits}
        assert hits[0].id == a and hits[0].reason == "match"
        reached = [x for x in (b, c, d) if x in got]
        assert reached == [b, c, d][:depth]
        for i, x in enumerate(reached, start=1):
            assert got[x].reason == "link"
            assert got[x].score == pytest.approx(hits[0].score * 0.5**i, rel=1e-4)


def test_expansion_follows_links_either_way_and_respects_filters(home: Path, clock: Clock) -> None:
    with make_engine(home, clock, floor=0.9, expand_depth=1, neighbour_gap=0.0, feedback_weight=0.0) as m:
        a, b, c, _ = _chain(m)
        hits = m.recall("golf hotel india", k=10, touch=False)  # c: linked from b and to d
        assert {h.id for h in hits if h.reason == "link"} >= {b}
        m.forget(b)
        assert b not in {h.id for h in m.recall("golf hotel india", k=10, touch=False)}


# -- review blending ----------------------------------------------------------------------------------
def test_relevant_review_candidates_are_blended_in(home: Path, clock: Clock) -> None:
    with make_engine(home, clock) as m:
        old = [m.save(f"garden tomato watering note {i}", type="fact").memory for i in range(3)]
        off_topic = m.save("stock market prices tomorrow", type="fact").memory
        for d in range(1, 30):  # the store is used daily: the old memories fade
            clock.set(T0 + d * DAY)
            m.core.store.mark_activity(clock.now())
            r = retentions(m.core, [*old, off_topic])
            if all(0.2 <= r[x.id] <= 0.3 for x in old):
                break
        r = retentions(m.core, [*old, off_topic])
        assert all(review_priority(r[x.id]) > 0 for x in [*old, off_topic])  # all four in the danger zone
        fresh = [m.save(f"garden tomato watering schedule fresh {i}").memory for i in range(6)]
        m.save_many([{"content": f"garden chair number {i}"} for i in range(15)])  # weaker matches
        hits = m.recall("garden tomato watering schedule", k=5, touch=False)
        review = [h for h in hits if h.reason == "review"]
        assert len(hits) == 5 and 1 <= len(review) <= 2  # round(0.3 * 5) = 2 slots at most
        assert {h.id for h in review} <= {x.id for x in old}  # only relevant fading memories
        assert hits[0].reason == "match" and off_topic.id not in {h.id for h in hits}
        assert {h.id for h in hits if h.reason == "match"} <= {x.id for x in fresh}
        m.settings.recall.review_ratio = 0.0
        assert all(h.reason == "match" for h in m.recall("garden tomato watering schedule", k=5, touch=False))


# -- re-ranking, duplicates, floor, notes ---------------------------------------------------------------
def test_near_duplicates_collapse_and_the_floor_prunes(engine: Mnemo) -> None:
    m = engine
    a = m.save("The release train leaves every second Tuesday").memory
    dup = m.save("The release train leaves every second Tuesday!").memory
    assert dup.duplicate_of == a.id
    hits = m.recall("release train Tuesday", touch=False)
    assert sum(h.id in (a.id, dup.id) for h in hits) == 1
    m.save_many([{"content": f"unrelated filler number {i}"} for i in range(20)])
    assert len(m.recall("qwxyzzy", k=10, touch=False)) <= 5  # nothing relevant: the seed's top-5 fallback


def test_rerank_weight_orders_ties_by_retention_and_importance(home: Path, clock: Clock) -> None:
    from dataclasses import replace

    with make_engine(home, clock, review_ratio=0.0, duplicate_cosine=1.0) as m:
        a = m.save("quarterly budget review meeting").memory
        b = m.save("quarterly budget review meeting").memory
        assert b.duplicate_of == a.id
        m.core.update(replace(m.get(a.id), importance=0.0))
        m.core.update(replace(m.get(b.id), importance=1.0, duplicate_of=None))  # equal text, unequal worth
        on = m.recall("quarterly budget review meeting", touch=False)
        assert [h.id for h in on[:2]] == [b.id, a.id] and on[0].score > on[1].score
        m.settings.recall.rerank_weight = 0.0
        off = {h.id: h.score for h in m.recall("quarterly budget review meeting", touch=False)}
        assert off[a.id] == pytest.approx(off[b.id])  # pure relevance: a tie
        r = retentions(m.core, [m.get(a.id), m.get(b.id)])
        for h in on[:2]:
            v = (r[h.id] + m.get(h.id).importance) / 2
            assert h.score == pytest.approx(off[h.id] * (0.9 + 0.1 * v), rel=1e-4)  # (1 - w) + w * v


def test_a_promoted_memory_comes_back_as_its_note_and_chunks_are_capped(home: Path, clock: Clock, vault: Path) -> None:
    with make_engine(home, clock, vault) as m:
        a = m.save("Our espresso machine needs descaling monthly").memory
        m.promote(a.id)
        body = "\n\n".join(f"# Part {i}\n\nespresso grinder burr setting number {i}" for i in range(5))
        (vault / "Coffee.md").write_text(body + "\n")
        m.index_vault()
        hits = m.recall("espresso descaling", k=10)
        mine = [h for h in hits if h.id == a.id or h.meta.get("mnemo_id") == a.id]
        assert len(mine) == 1 and mine[0].tier == "ltm" and mine[0].path
        assert m.get(a.id).use_count == 1  # the note's memory was reinforced
        grinder = m.recall("espresso grinder burr setting", k=10, tier="ltm", touch=False)
        assert sum(h.path == "Coffee.md" for h in grinder) == 2  # recall.max_chunks_per_note


# -- conversation context ------------------------------------------------------------------------------
def test_a_reply_is_found_through_the_turn_it_answers(home: Path, clock: Clock) -> None:
    with make_engine(home, clock) as m:
        turns = ["Caroline: Did you finally adopt the beagle puppy?", "Melanie: Yes, last Saturday, we picked him up!",
                 "Caroline: That is wonderful news.", "Melanie: The kids are thrilled."]
        other = ["Caroline: My painting class starts Monday.", "Melanie: Yes, last year I tried painting too!"]
        m.save_many([{"content": t, "session_id": "s1"} for t in turns])
        m.save_many([{"content": t, "session_id": "s2"} for t in other])
        hits = m.recall("when was the beagle puppy adopted", k=3, touch=False)
        assert [h.content for h in hits[:2]] == turns[:2]
        m.settings.recall.neighbour_weight = 0.0
        m.settings.recall.feedback_weight = 0.0  # the words "yes, last" alone would bring it back
        assert turns[1] not in [h.content for h in m.recall("when was the beagle puppy adopted", k=3, touch=False)]


def test_turns_saved_without_a_session_are_read_with_the_turns_said_just_before_and_after(home: Path, clock: Clock) -> None:
    with make_engine(home, clock, neighbour_gap=1800.0) as m:
        turns = ["Caroline: Did you finally adopt the beagle puppy?", "Melanie: Yes, last Saturday, we picked him up!",
                 "Caroline: That is wonderful news.", "Melanie: The kids are thrilled."]
        m.save_many([{"content": t} for t in turns])
        clock.advance(3 * 3600)  # later, another conversation: too far in time to lend
        m.save_many([{"content": "Caroline: My painting class starts Monday."},
                     {"content": "Melanie: Yes, last year I tried painting too!"}])
        hits = m.recall("when was the beagle puppy adopted", k=3, touch=False)
        assert [h.content for h in hits[:2]] == turns[:2]
        m.settings.recall.neighbour_gap = 0.0  # off: memories without a session stand alone
        m.settings.recall.feedback_weight = 0.0
        assert turns[1] not in [h.content for h in m.recall("when was the beagle puppy adopted", k=3, touch=False)]
        m.settings.recall.neighbour_gap = 1800.0
        from mnemo.recall.neighbours import adjacent

        ids = {h.content: h.id for h in m.list(limit=10)}
        near = adjacent(m.core, [ids[turns[3]]], gap=1800.0)[ids[turns[3]]]
        assert near == (ids[turns[2]], None)  # the next save is three hours later: not a neighbour


# -- ties ------------------------------------------------------------------------------------------------
TALK = ["Caroline: Nothing new here, work was quiet.", "Melanie: I went kayaking on the lake.",
        "Caroline: Sounds lovely, I hope the weather held."]


def test_ties_rank_the_same_whatever_the_random_ids(tmp_path: Path) -> None:
    """The same talk held on six days (every turn ties with its five copies: same words, same
    vector), saved in the same order into two stores with ids given in opposite orders: both
    rank alike (by save position), the newest copy first; ordering ties by id would put the
    lowest id first, which is the oldest copy in one store and the newest in the other."""
    sessions = 6

    def ranking(name: str, ids: list[str]) -> list[list[int]]:
        clock = Clock(T0)
        # Relevance only: copies saved later are flagged as duplicates, which lowers their
        # importance and so their re-ranked score.
        with make_engine(tmp_path / name, clock, rerank_weight=0.0, review_ratio=0.0) as m:
            for d in range(sessions):
                # Two sessions a day: the second of a day ties with the first on time too.
                m.save_many([{"id": ids[3 * d + i], "content": t, "session_id": f"s{d}", "created_at": T0 + (d // 2) * DAY}
                             for i, t in enumerate(TALK)])
            return [[ids.index(h.id) for h in m.recall(q, k=10, touch=False)]
                    for q in ("kayaking on the lake", "quiet work", "weather")]

    total = 3 * sessions
    up = ranking("up", [f"{i:08d}-0000-4000-8000-000000000000" for i in range(total)])
    down = ranking("down", [f"{total - i:08d}-0000-4000-8000-000000000000" for i in range(total)])
    assert up == down
    # Copies collapse into one: the newest (day 2's second session, saved last) of its turn.
    assert up[0][0] == 3 * (sessions - 1) + 1


def test_rank_key_orders_ties_by_time_then_save_order() -> None:
    from mnemo.recall.candidates import Candidate, rank_key

    old = Candidate(id="z", tier="stm", at=100.0, seq=1)
    new_early = Candidate(id="y", tier="stm", at=200.0, seq=2)
    new_late = Candidate(id="a", tier="stm", at=200.0, seq=3)
    best = Candidate(id="q", tier="stm", at=0.0, seq=0)
    got = sorted([old, new_early, new_late, best], key=lambda c: rank_key(c, 1.0 if c is best else 0.5))
    assert [c.id for c in got] == ["q", "a", "y", "z"]


# -- budgets -------------------------------------------------------------------------------------------
def test_recall_with_a_budget_renders_and_fits(engine: Mnemo) -> None:
    m = engine
    long = " ".join(f"The migration step {i} moves table t{i} to the new cluster." for i in range(150))
    m.save(long)
    m.save_many([{"content": f"cluster migration note {i}"} for i in range(10)])
    for budget in (15, 60, 300, 1500, 5000):
        hits = m.recall("cluster migration step table", k=10, budget=budget, touch=False)
        assert sum(h.tokens for h in hits) <= budget
        assert count_tokens("\n".join(h.rendered for h in hits)) <= budget
        assert all(h.mode in ("verbatim", "fingerprint", "header") for h in hits)
    big = m.recall("cluster migration step table", k=10, budget=5000, touch=False)
    assert big[0].content == long and big[0].mode == "verbatim" and big[0].tokens > 1000
    small = m.recall("cluster migration step table", k=10, budget=600, touch=False)
    assert small[0].content == long and small[0].mode == "fingerprint" and small[0].tokens < 300
    with pytest.raises(InvalidInput):
        m.recall("x", budget=0)


@pytest.fixture
def corpus_engine(home: Path, clock: Clock):  # noqa: ANN201
    with make_engine(home, clock) as m:
        words = ["deploy", "database", "garden", "budget", "pager", "coffee", "release", "cluster"]
        items = []
        for i in range(60):
            w = [words[(i * 7 + j) % len(words)] for j in range(3)]
            text = f"Note {i}: " + " ".join(w) + (" details" * (i % 9) * 20)
            items.append({"content": text, "session_id": f"s{i % 4}", "type": "session_note" if i % 10 == 0 else None,
                          "pinned": i % 25 == 0})
        m.save_many([{k: v for k, v in it.items() if v is not None} for it in items])
        yield m


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(budget=st.integers(1, 2500), query=st.sampled_from(["deploy database", "garden pager coffee", "release", "zzz"]))
def test_context_never_exceeds_its_budget(corpus_engine: Mnemo, budget: int, query: str) -> None:
    ctx = corpus_engine.context(query, budget=budget, touch=False)
    assert ctx["used"] <= budget and count_tokens(ctx["context"]) <= budget
    shown = [i["id"] for s in ctx["sections"] for i in s["items"]]
    assert len(shown) == len(set(shown))


def test_context_sections_ids_and_touch(corpus_engine: Mnemo) -> None:
    m = corpus_engine
    ctx = m.context("deploy database", budget=2000, session_id="conv-9")
    names = [s["name"] for s in ctx["sections"]]
    assert names[:3] == ["pinned", "session", "relevant"]
    text = ctx["context"]
    assert text.index("## Pinned memories") < text.index("## Recent session notes") < text.index("## Relevant memories")
    for s in ctx["sections"]:
        for item in s["items"]:
            assert item["id"][:8] in text and item["mode"] in ("verbatim", "fingerprint", "header")
    rows = m.core.store.query("SELECT DISTINCT memory_id FROM uses WHERE json_extract(context, '$.session_id') = 'conv-9'")
    assert {r[0] for r in rows} == set(ctx["ids"])
    # The session-note section respects its complexity budget (1-3 points each, 6 in all).
    from mnemo.recall.context import complexity

    notes = [m.get(i["id"]) for s in ctx["sections"] if s["name"] == "session" for i in s["items"]]
    assert notes and sum(complexity(n) for n in notes) <= m.settings.recall.session_complexity


def test_context_cli_prints_the_block(home: Path, clock: Clock) -> None:
    with make_engine(home, clock) as m:
        a = m.save("The on-call phone is in the top drawer", pinned=True).memory
    env = {"MNEMO_HOME": str(home), "MNEMO_EMBEDDING_MODEL": "hash-64"}
    r = CliRunner().invoke(cli, ["context", "where is the on-call phone", "--budget", "200", "--json"], env=env)
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["sections"][0]["name"] == "pinned" and a.id[:8] in data["context"] and data["used"] <= 200
    text = CliRunner().invoke(cli, ["context", "on-call phone", "--budget", "200"], env=env)
    assert "## Pinned memories" in text.output and "/200 tokens" in text.output
    bad = CliRunner().invoke(cli, ["context", "x", "--budget", "0"], env=env)
    assert bad.exit_code == 2


def test_very_common_words_are_left_to_vectors_on_big_stores(engine: Mnemo, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pruning of index/keywords.py, at a small scale (thresholds lowered): document
    frequencies come from FTS5's own stems, and a word in most memories no longer drives BM25."""
    from mnemo.index import keywords
    from mnemo.recall.query import parse_query

    m = engine
    m.save_many([{"content": f"the team was running sprint number {i}"} for i in range(40)])
    rare = m.save("the team adopted a zebrafish mascot").memory
    df = keywords.document_frequencies(m.core, ["runs", "team", "zebrafish", "unicorn"])
    assert df == {"runs": 40, "team": 41, "zebrafish": 1, "unicorn": 0}  # "runs" and "running" share a stem
    before = table_hashes(m)
    assert keywords.prune_common(m.core, ["team", "zebrafish"]) == ["team", "zebrafish"]  # a small store: no pruning
    monkeypatch.setattr(keywords, "COMMON_MIN_DF", 10)
    assert keywords.prune_common(m.core, ["team", "zebrafish"]) == ["zebrafish"]
    assert keywords.prune_common(m.core, ["team", "running"]) == ["running"]  # all common: the rarest stays
    ranked = keywords.memory_bm25(m.core, parse_query("team zebrafish", None, "general"), make_filters(), 10)
    assert [i for i, _ in ranked] == [rare.id]
    assert m.recall("team zebrafish", k=3, touch=False)[0].id == rare.id
    assert table_hashes(m) == before  # stemming and counting write nothing to the store


@pytest.mark.slow
def test_hybrid_recall_with_the_real_model(real_engine: Mnemo) -> None:
    """Meaning without shared words (the vector side) and a code no model knows (the BM25
    side) both come first, in one pipeline."""
    m = real_engine
    m.save_many([{"content": t} for t in (
        "We decided to run PostgreSQL for the main database",
        "Bob carries the pager for incidents this month",
        "The build failed with error ERR_4711 after the upgrade",
        "Lunch with the design team is on Fridays",
        "Alice prefers dark mode in every editor",
        "The office plants need water twice a week",
    )])
    assert m.recall("who is on call when something breaks?", k=3, touch=False)[0].content.startswith("Bob carries")
    assert m.recall("ERR_4711", k=3, touch=False)[0].content.startswith("The build failed")
    assert m.recall("which SQL engine stores our data", k=3, touch=False)[0].content.startswith("We decided")


def test_bm25_of_an_expanded_query_is_the_sum_of_its_parts(engine: Mnemo) -> None:
    """Keyword feedback looks up only the added words and adds their BM25 to the query's own:
    FTS5's BM25 is a sum over the query's words, so on a store where every match fits in the
    lists, the sum ranks and scores exactly as the expanded query does."""
    from dataclasses import replace

    from mnemo.index.keywords import memory_bm25
    from mnemo.recall.query import parse_query

    m = engine
    m.save_many([{"content": t} for t in [
        "the garden tomatoes need watering every morning", "tomatoes and basil grow well together in the garden",
        "watering the basil twice a week is enough", "the garden shed roof leaks", "we bought a new hose for watering",
        "basil pesto recipe with pine nuts", "the tomatoes split after heavy rain", "nothing about plants at all here"]])
    q = parse_query("garden tomatoes", None, "recall")
    f = make_filters("all")
    whole = dict(memory_bm25(m.core, replace(q, keywords="garden tomatoes watering basil"), f, 50))
    summed: dict[str, float] = {}
    for part in ("garden tomatoes", "watering basil"):
        for i, s in memory_bm25(m.core, replace(q, keywords=part), f, 50):
            summed[i] = summed.get(i, 0.0) + s
    assert set(whole) == set(summed) and len(whole) == 7
    assert all(abs(whole[i] - summed[i]) < 1e-9 for i in whole)
