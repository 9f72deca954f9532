"""Time expressions in queries (recall/when.py), read against a fixed clock, and the boost they
give to memories dated inside the span they name."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from mnemo.clock import Clock
from mnemo.config import load_settings
from mnemo.engine import Mnemo
from mnemo.nlp.embedder import HashEmbedder
from mnemo.recall.query import parse_query
from mnemo.recall.when import LAG, SPREAD, TimeSpan, boost_time, parse_when, strip_expression

# Sunday 20 August 2023, 15:00 UTC
NOW = datetime(2023, 8, 20, 15, 0, tzinfo=UTC).timestamp()


def ts(y: int, mo: int, d: int) -> float:
    return datetime(y, mo, d, tzinfo=UTC).timestamp()


def span_of(text: str) -> tuple[float, float, str] | None:
    s = parse_when(text, NOW)
    return None if s is None else (s.start, s.end, s.text)


@pytest.mark.parametrize(("query", "start", "end", "said"), [
    ("Who did Maria have dinner with on May 3, 2023?", ts(2023, 5, 3), ts(2023, 5, 4), "May 3, 2023"),
    ("What happened on 7 July, 2023?", ts(2023, 7, 7), ts(2023, 7, 8), "7 July, 2023"),
    ("the 2023-05-04 meeting", ts(2023, 5, 4), ts(2023, 5, 5), "2023-05-04"),
    ("What did John attend in March 2023?", ts(2023, 3, 1), ts(2023, 4, 1), "March 2023"),
    ("What class did she start in December 2022?", ts(2022, 12, 1), ts(2023, 1, 1), "December 2022"),
    ("What did Caroline paint in 2022?", ts(2022, 1, 1), ts(2023, 1, 1), "in 2022"),
    ("the week before August 3, 2023", ts(2023, 7, 27), ts(2023, 8, 3), "the week before August 3, 2023"),
    ("the puppy she got two weeks before August 11, 2023", ts(2023, 7, 28), ts(2023, 8, 11),
     "two weeks before August 11, 2023"),
    ("what she did last weekend before April 10, 2023", ts(2023, 4, 3), ts(2023, 4, 10),
     "last weekend before April 10, 2023"),
])
def test_absolute_dates(query: str, start: float, end: float, said: str) -> None:
    assert span_of(query) == (start, end, said)


@pytest.mark.parametrize(("query", "start", "end"), [
    ("what did I eat yesterday", ts(2023, 8, 19), ts(2023, 8, 20)),
    ("the talk today", ts(2023, 8, 20), ts(2023, 8, 21)),
    ("what we decided last week", ts(2023, 8, 7), ts(2023, 8, 14)),  # Monday to Monday
    ("this week", ts(2023, 8, 14), ts(2023, 8, 21)),
    ("the party last weekend", ts(2023, 8, 12), ts(2023, 8, 14)),
    ("the bill last month", ts(2023, 7, 1), ts(2023, 8, 1)),
    ("a trip last year", ts(2022, 1, 1), ts(2023, 1, 1)),
    ("three days ago", ts(2023, 8, 16), ts(2023, 8, 19)),  # ± a quarter of the distance
    ("in May", ts(2023, 5, 1), ts(2023, 6, 1)),  # the latest May so far
    ("in November", ts(2022, 11, 1), ts(2022, 12, 1)),  # November 2023 has not come yet
    ("last August", ts(2022, 8, 1), ts(2022, 9, 1)),  # in August, "last August" is a year ago
    ("next March", ts(2024, 3, 1), ts(2024, 4, 1)),
])
def test_relative_expressions_read_against_the_clock(query: str, start: float, end: float) -> None:
    got = span_of(query)
    assert got is not None and got[:2] == (start, end)


@pytest.mark.parametrize("query", ["He may come to the party", "what is my favourite colour", "room 2023b", "May I ask"])
def test_no_time_expression(query: str) -> None:
    assert parse_when(query, NOW) is None


def test_an_impossible_day_falls_back_to_its_month() -> None:
    assert span_of("31 February, 2023 was not a day") == (ts(2023, 2, 1), ts(2023, 3, 1), "February, 2023")


def test_the_expression_leaves_the_keywords_but_not_the_embedded_text() -> None:
    q = parse_query("What did John attend with his colleagues in March 2023?", None, "general", now=NOW)
    assert q.span is not None and q.span.text == "March 2023"
    assert q.keywords == "john attend colleagues"
    assert q.semantic == "What did John attend with his colleagues in March 2023?"
    assert parse_query("What did John attend in March 2023?", None, "general").span is None  # no clock: off
    only = parse_query("March 2023", None, "general", now=NOW)
    assert only.span is not None and only.keywords == "march 2023"  # nothing else to match
    assert strip_expression("a in May b", TimeSpan(0, 1, "in May")) == "a   b"


def test_closeness_is_one_inside_with_a_lag_and_falls_outside() -> None:
    s = TimeSpan(ts(2023, 3, 1), ts(2023, 4, 1), "March 2023")
    assert s.closeness(ts(2023, 3, 15)) == 1.0
    assert s.closeness(ts(2023, 4, 1) + LAG) == 1.0  # told within a week of the span
    assert s.closeness(ts(2023, 3, 1) - SPREAD) == pytest.approx(1 / 2.718281828, rel=1e-6)
    assert s.closeness(ts(2023, 4, 1) + LAG + 2 * SPREAD) == pytest.approx(2.718281828 ** -2, rel=1e-6)
    assert s.closeness(None) == 0.0


@dataclass
class _C:
    fused: float
    at: float | None


def test_boost_multiplies_relevance_by_closeness() -> None:
    s = TimeSpan(ts(2023, 3, 1), ts(2023, 4, 1), "March 2023")
    inside, outside, undated = _C(0.5, ts(2023, 3, 10)), _C(0.6, ts(2022, 1, 1)), _C(0.6, None)
    boost_time([inside, outside, undated], s, 0.3)
    assert inside.fused == pytest.approx(0.5)  # inside keeps its relevance (so it stays in [0, 1]) ...
    assert outside.fused == pytest.approx(0.6 / 1.3, rel=1e-6) and undated.fused == pytest.approx(0.6 / 1.3)
    assert inside.fused > outside.fused  # ... and the others lose up to β / (1 + β): the order flips
    boost_time([inside], s, 0.0)
    assert inside.fused == pytest.approx(0.5)


def test_recall_prefers_the_memory_said_in_the_named_month(home: Path) -> None:
    clock = Clock(NOW)
    settings = load_settings(home=home, overrides={"embedding.model": "hash-64"})
    with Mnemo(settings, clock=clock, embedder=HashEmbedder(64)) as m:
        m.settings.recall.rerank_weight = 0.0  # relevance only: the two differ by date alone
        m.settings.recall.name_boost = 0.0  # the time step alone (both name John; names.py has its own tests)
        m.settings.recall.time_scope = 0.0  # the boost alone (the dated ranking has its own tests)
        march = m.save("John went to a team dinner with colleagues downtown", created_at=ts(2023, 3, 12)).id
        june = m.save("John went to a team dinner with his colleagues", created_at=ts(2023, 6, 2)).id
        q = "Where did John go with colleagues in March 2023?"
        before = {h.id: h.score for h in m.recall(q, k=2, touch=False)}
        m.settings.recall.time_boost = 0.3
        after = {h.id: h.score for h in m.recall(q, k=2, touch=False)}
        assert next(iter(after)) == march
        assert after[march] / after[june] > before[march] / before[june] * 1.25


# -- pseudo-relevance feedback (recall/feedback.py) ---------------------------------------------------
def test_expansion_terms_weigh_frequency_by_rarity_and_skip_what_the_query_has() -> None:
    from mnemo.recall.feedback import expansion_terms

    texts = ["Running keeps my head clear, running is my therapy", "I went running by the river"]
    df = {"running": 10, "keeps": 40, "head": 30, "clear": 20, "therapy": 5, "went": 60, "river": 8}
    got = expansion_terms(texts, {"destress", "melanie"}, df, size=100, terms=3)
    # running: (2/9 + 1/6)·ln 10 ≈ 0.896; therapy: 1/9·ln 20 ≈ 0.333; river: 1/6·ln 12.5 ≈ 0.421
    assert got == ["running", "river", "therapy"]
    assert "running" not in expansion_terms(texts, {"running"}, df, size=100)
    assert "went" not in expansion_terms(texts, set(), df, size=100)  # in more than half the store
    assert expansion_terms(["the and of"], set(), {}, size=100) == []


def test_feedback_finds_the_memory_that_shares_no_word_with_the_query(home: Path) -> None:
    settings = load_settings(home=home, overrides={"embedding.model": "hash-64"})
    with Mnemo(settings, clock=Clock(NOW), embedder=HashEmbedder(64)) as m:
        m.settings.recall.neighbour_gap = 0.0
        m.settings.recall.feedback_weight = 0.0
        m.save_many([{"content": "Melanie destresses by running along the river"},
                     {"content": "Running by the river keeps my head clear"}]
                    + [{"content": f"Note {i} about the weather and the garden"} for i in range(20)])
        q = "How does Melanie destress?"
        assert "Running by the river keeps my head clear" not in [h.content for h in m.recall(q, k=2, touch=False)]
        m.settings.recall.feedback_weight = 1.0
        assert "Running by the river keeps my head clear" in [h.content for h in m.recall(q, k=2, touch=False)]


# -- the dated ranking (when.scope_time) -----------------------------------------------------------
@pytest.mark.parametrize(("query", "absolute"), [
    ("What did Maria share on 16 June, 2023?", True),
    ("What did John attend in March 2023?", True),
    ("What did Caroline paint in 2022?", True),
    ("When did Melanie go camping in June?", True),  # a calendar month (its year read from the clock)
    ("the week before August 3, 2023", True),
    ("a trip last year", False),
    ("what we decided last week", False),
    ("three days ago", False),
    ("what did I eat yesterday", False),
])
def test_a_span_says_whether_it_names_the_calendar_or_counts_back_from_now(query: str, absolute: bool) -> None:
    span = parse_when(query, NOW)
    assert span is not None and span.absolute is absolute


def test_without_the_boost_a_relative_expression_stays_words_of_the_query() -> None:
    q = parse_query("What did Melanie see on the camping trip last year?", None, "recall", now=NOW, relative=False)
    assert q.span is None and "last" in q.keywords.split() and "year" in q.keywords.split()
    q = parse_query("What did Maria share on 16 June, 2023?", None, "recall", now=NOW, relative=False)
    assert q.span is not None and q.span.text == "16 June, 2023" and q.keywords == "maria share"


def _dated_store(m: Mnemo) -> str:
    """Four memories on other days that share the question's words, twenty-six that share one of
    them among many others, and one on 16 June 2023 that shares none; returns that one's id."""
    m.settings.recall.neighbour_gap = 0.0  # no conversation context: the dated ranking alone
    strong = [{"content": f"Exciting news {i}: the garden club shared its plans", "created_at": ts(2023, 3, 1 + i)}
              for i in range(4)]
    weak = [{"content": f"Item {i} of the long weekly newsletter about roses, soil, compost and the news of the town hall",
             "created_at": ts(2023, 4, 1 + i)} for i in range(26)]
    m.save_many(strong + weak)
    return m.save("Joined a gym and sticking to the workout routine", created_at=ts(2023, 6, 16)).id


def test_the_memory_said_on_the_named_day_joins_the_results(home: Path) -> None:
    settings = load_settings(home=home, overrides={"embedding.model": "hash-64"})
    with Mnemo(settings, clock=Clock(NOW), embedder=HashEmbedder(64)) as m:
        gym = _dated_store(m)
        q = "What exciting news was shared on 16 June, 2023?"
        m.settings.recall.time_scope = 0.0
        assert gym not in [h.id for h in m.recall(q, k=5, touch=False)]  # no shared word, cosine under the floor
        m.settings.recall.time_scope = 1.0
        hits = m.recall(q, k=5, touch=False)
        assert gym in [h.id for h in hits]
        assert all(0.0 <= h.score <= 1.0 for h in hits)  # relevance stays in [0, 1]
        # A relative expression, or no expression, adds nothing: the store is read by date only for a date.
        assert gym not in [h.id for h in m.recall("What exciting news was shared last year?", k=5, touch=False)]
        assert gym not in [h.id for h in m.recall("What exciting news was shared?", k=5, touch=False)]


def test_a_span_that_holds_more_than_the_limit_adds_nothing(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mnemo.index.filters import make_filters
    from mnemo.recall import when
    from mnemo.recall.candidates import Pool

    settings = load_settings(home=home, overrides={"embedding.model": "hash-64"})
    with Mnemo(settings, clock=Clock(NOW), embedder=HashEmbedder(64)) as m:
        m.save_many([{"content": f"Errand {i} done in town", "created_at": ts(2023, 6, 16)} for i in range(4)])
        q = parse_query("What was done on 16 June, 2023?", None, "recall", now=NOW, relative=False)
        vec = m.core.embedder.embed_query(q.semantic)
        monkeypatch.setattr(when, "SCOPE_LIMIT", 4)  # the day holds four memories: still a moment
        pool = Pool()
        assert when.scope_time(m.core, pool, q, make_filters(), vec, 1.0) == 4 and len(pool.candidates) == 4
        monkeypatch.setattr(when, "SCOPE_LIMIT", 3)  # more than the limit: no dated ranking
        pool = Pool()
        assert when.scope_time(m.core, pool, q, make_filters(), vec, 1.0) == 0 and not pool.candidates


def test_the_dated_ranking_arithmetic(home: Path) -> None:
    """fused' = (fused + φ·w_vector·minmax(cos)) / (1 + φ·w_vector), on a real store's vectors."""
    from mnemo.index.filters import make_filters
    from mnemo.recall.candidates import Candidate, Pool
    from mnemo.recall.when import scope_time

    settings = load_settings(home=home, overrides={"embedding.model": "hash-64"})
    with Mnemo(settings, clock=Clock(NOW), embedder=HashEmbedder(64)) as m:
        a = m.save("the gym opened", created_at=ts(2023, 6, 16)).id
        b = m.save("a parcel arrived", created_at=ts(2023, 6, 18)).id
        m.save("the gym closed", created_at=ts(2023, 1, 2))  # outside the span
        q = parse_query("the gym on 16 June, 2023", None, "recall", now=NOW, relative=False)
        vec = m.core.embedder.embed_query(q.semantic)
        pool = Pool(candidates={a: Candidate(id=a, tier="stm", fused=0.4)})
        assert scope_time(m.core, pool, q, make_filters(), vec, 1.0) == 2
        share = 1.0 * q.w_vector
        cos = {i: float(v @ vec) for i, v in m.core.index.get_vectors("memories", [a, b]).items()}
        top, low = (a, b) if cos[a] > cos[b] else (b, a)
        fused0 = {a: 0.4, b: 0.0}
        assert pool.candidates[top].fused == pytest.approx((fused0[top] + share) / (1 + share), rel=1e-5)
        assert pool.candidates[low].fused == pytest.approx(fused0[low] / (1 + share), rel=1e-5)
        assert pool.candidates[b].dated and pool.candidates[b].sim == pytest.approx(cos[b], rel=1e-5)
        assert scope_time(m.core, Pool(), q, make_filters(), vec, 0.0) == 0  # φ = 0: off
