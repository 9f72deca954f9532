"""Recall's pure parts: fusion arithmetic, intent weights and query handling, the budget
allocator (a property test: the budget is never exceeded) and its render-mode downgrades."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mnemo.errors import InvalidInput
from mnemo.index.filters import make_filters
from mnemo.nlp.tokens import count_tokens
from mnemo.recall.budget import (
    FINGERPRINT,
    HEADER,
    VERBATIM,
    CBAParams,
    Chosen,
    Item,
    adjusted_score,
    allocate,
    fit,
    mode_for,
    renderings,
)
from mnemo.recall.fusion import INTENT_WEIGHTS, fuse, minmax, weighted_rrf
from mnemo.recall.query import keyword_text, parse_query


# -- fusion ----------------------------------------------------------------------------------------
def test_weighted_rrf_arithmetic() -> None:
    s = weighted_rrf([(["a", "b", "c"], 0.4), (["c", "a"], 0.6)], k=60)
    assert s["a"] == pytest.approx(0.4 / 61 + 0.6 / 62)
    assert s["b"] == pytest.approx(0.4 / 62)
    assert s["c"] == pytest.approx(0.4 / 63 + 0.6 / 61)
    assert sorted(s, key=lambda d: -s[d]) == ["a", "c", "b"]


def test_minmax_edges() -> None:
    assert minmax([]) == []
    assert minmax([3.0]) == [1.0]
    assert minmax([2.0, 2.0]) == [1.0, 1.0]
    assert minmax([4.0, 2.0, 0.0]) == [1.0, 0.5, 0.0]


def test_fuse_with_rank_mix_1_is_weighted_rrf_scaled() -> None:
    rankings = [([("a", 9.0), ("b", 5.0), ("c", 1.0)], 0.4), ([("c", 0.9), ("a", 0.2)], 0.6)]
    f = fuse(rankings, k=60, rank_mix=1.0)
    r = weighted_rrf([(["a", "b", "c"], 0.4), (["c", "a"], 0.6)], k=60)
    for d in r:
        assert f[d] == pytest.approx(61 * r[d])  # rank 1 weighs exactly w_i
    assert sorted(f, key=lambda d: -f[d]) == sorted(r, key=lambda d: -r[d])


def test_fuse_with_rank_mix_0_combines_normalised_scores() -> None:
    rankings = [([("a", 9.0), ("b", 5.0), ("c", 1.0)], 0.4), ([("c", 0.9), ("a", 0.2), ("d", 0.1)], 0.6)]
    f = fuse(rankings, rank_mix=0.0)
    assert f["a"] == pytest.approx(0.4 * 1.0 + 0.6 * (0.2 - 0.1) / 0.8)
    assert f["b"] == pytest.approx(0.4 * 0.5)
    assert f["c"] == pytest.approx(0.4 * 0.0 + 0.6 * 1.0)
    assert f["d"] == pytest.approx(0.0)
    # Half and half: the mean of the two fusions.
    half = fuse(rankings, rank_mix=0.5)
    full = fuse(rankings, rank_mix=1.0)
    for d in f:
        assert half[d] == pytest.approx((f[d] + full[d]) / 2)


def test_score_fusion_keeps_the_size_of_a_lead() -> None:
    """A document far ahead in BM25 but absent from the vector list beats one that is merely
    second in both under score fusion; RRF cannot tell the lead from a hair."""
    bm = [("rare", 30.0), ("both", 3.0), ("x", 2.9)]
    vec = [("v1", 0.62), ("both", 0.61), ("y", 0.2)]
    w = INTENT_WEIGHTS["recall"]
    score = fuse([(bm, w[0]), (vec, w[1])], rank_mix=0.0)
    rrf = fuse([(bm, w[0]), (vec, w[1])], rank_mix=1.0)
    assert score["rare"] > score["both"]
    assert rrf["both"] > rrf["rare"]


# -- intents and queries ---------------------------------------------------------------------------
def test_intent_weights_match_the_seed() -> None:
    assert INTENT_WEIGHTS == {"recall": (0.6, 0.4), "explore": (0.3, 0.7), "exact": (0.8, 0.2), "general": (0.4, 0.6)}
    for name, (b, v) in INTENT_WEIGHTS.items():
        q = parse_query("what did we decide", name, "general")
        assert (q.intent, q.w_bm25, q.w_vector) == (name, b, v)
    assert parse_query("what did we decide", None, "general").intent == "general"
    assert parse_query("what did we decide", None, "explore").intent == "explore"


def test_a_quoted_phrase_is_exact() -> None:
    q = parse_query('  "connection pool size"  ', None, "general")
    assert q.intent == "exact" and q.phrase and (q.w_bm25, q.w_vector) == (0.8, 0.2)
    assert q.keywords == "connection pool size" and q.semantic == "connection pool size"
    # An explicit intent still wins, and the phrase stays a phrase.
    q2 = parse_query('"connection pool size"', "explore", "general")
    assert q2.intent == "explore" and q2.phrase


def test_bad_queries_and_intents_are_refused() -> None:
    for bad in ("", "   ", None):
        with pytest.raises(InvalidInput):
            parse_query(bad, None, "general")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="unknown intent"):
        parse_query("x", "fuzzy", "general")


def test_keyword_text_drops_function_words_only() -> None:
    assert keyword_text("When did Caroline go to the LGBTQ support group?") == "caroline go lgbtq support group"
    assert keyword_text("what is it") == "what is it"  # nothing but stopwords: keep them
    assert keyword_text("the The THE cat") == "cat"
    assert keyword_text("what is it", stopwords=False) == "what is it"


def test_filters_are_validated() -> None:
    f = make_filters("stm", type="decision", layer="semantic", tags=["a", "#b"], tag="c", since="2026-01-01", until="2026-02-01")
    assert f.tags == ("c", "a", "b") and f.type == "decision" and f.since < f.until
    for bad in ({"type": "nope"}, {"layer": "x"}, {"status": "gone"}, {"since": "yesterday-ish"}, {"colour": "red"},
                {"since": "2026-02-01", "until": "2026-01-01"}, {"tags": [1]}):
        with pytest.raises(InvalidInput):
            make_filters("all", **bad)
    with pytest.raises(InvalidInput, match="tier"):
        make_filters("mid")


# -- the budget allocator ------------------------------------------------------------------------
def _item(key: str, text: str, score: float, vector=None, created_at=None, causal=frozenset()) -> Item:  # noqa: ANN001
    return Item(key=key, score=score, texts=renderings(key[:8], "fact, 2026-03-01", text), vector=vector,
                created_at=created_at, causal=causal)


def test_render_mode_follows_the_remaining_budget() -> None:
    assert mode_for(5000) == VERBATIM and mode_for(1000) == VERBATIM
    assert mode_for(999) == FINGERPRINT and mode_for(100) == FINGERPRINT
    assert mode_for(99) == HEADER and mode_for(0) == HEADER


def test_render_modes_downgrade_when_they_do_not_fit() -> None:
    long = " ".join(f"word{i} sentence part {i}." for i in range(300))  # ~1,500 tokens
    it = _item("aaaaaaaa-1", long, 1.0)
    v, f, h = it.cost(VERBATIM), it.cost(FINGERPRINT), it.cost(HEADER)
    assert v > 1000 and f < v / 3 and h < f
    assert fit(it, v + 10) == (VERBATIM, v)
    assert fit(it, 1200) == (FINGERPRINT, f)  # verbatim asked for, does not fit: fingerprint
    assert fit(it, 500) == (FINGERPRINT, f)
    assert fit(it, f - 1) == (HEADER, h)  # fingerprint asked for, does not fit: header
    assert fit(it, h - 1) is None  # not even the header: skipped
    # A short memory is never "compressed" into something barely smaller.
    short = _item("bbbbbbbb-2", "Alice prefers tabs.", 1.0)
    assert fit(short, 50)[0] == VERBATIM


def test_allocation_is_greedy_by_score_and_skips_what_does_not_fit() -> None:
    big = _item("big", " ".join(["lorem ipsum"] * 600), 0.9)
    small = [_item(f"s{i}", f"Small memory number {i} about cats.", 0.5 - i / 100) for i in range(5)]
    a = allocate([big, *small], 300)
    keys = [c.item.key for c in a.chosen]
    assert keys[0] == "big" and a.chosen[0].mode == FINGERPRINT  # ~15 % of 1,200 tokens
    assert keys[1:] == [s.key for s in small][: len(keys) - 1] and len(keys) > 1
    # With ~100 tokens left a short memory is still shown whole (its fingerprint would be as
    # long); below 100 the seed asks for headers.
    assert a.chosen[1].mode == VERBATIM and all(c.mode == HEADER for c in a.chosen[2:])
    assert a.used <= 300 and count_tokens(a.text) <= 300
    b = allocate([big, *small], 120)  # even the fingerprint is too big now: header, then the rest
    assert b.chosen[0].item.key == "big" and b.chosen[0].mode == HEADER and b.used <= 120


def test_overlap_causal_and_session_terms() -> None:
    e1 = np.array([1.0, 0.0], dtype=np.float32)
    e2 = np.array([0.6, 0.8], dtype=np.float32)
    chosen = [Chosen(_item("s", "x", 1.0, vector=e1, created_at=1000.0), VERBATIM, 5, 1.0)]
    p = CBAParams()
    base = _item("c", "y", 0.5, vector=e2)
    assert adjusted_score(base, chosen, p) == pytest.approx(0.5 * (1 - 0.6))
    linked = _item("c", "y", 0.5, vector=e2, causal=frozenset({"s"}))
    assert adjusted_score(linked, chosen, p) == pytest.approx(0.5 * 0.4 * math.exp(-0.15))
    near = _item("c", "y", 0.5, vector=e2, created_at=1000.0 + 3600)
    assert adjusted_score(near, chosen, p) == pytest.approx(0.5 * 0.4 * 1.2)
    far = _item("c", "y", 0.5, vector=e2, created_at=1000.0 + 7300)
    assert adjusted_score(far, chosen, p) == pytest.approx(0.5 * 0.4)
    assert adjusted_score(base, [], p) == 0.5


def test_overlap_penalty_prefers_a_different_item() -> None:
    same = np.array([1.0, 0.0], dtype=np.float32)
    other = np.array([0.0, 1.0], dtype=np.float32)
    a = _item("a", "PostgreSQL is our database.", 1.0, vector=same)
    b = _item("b", "We use PostgreSQL as the database.", 0.9, vector=same)
    c = _item("c", "Redis caches sessions.", 0.6, vector=other)
    chosen = allocate([a, b, c], 10_000).chosen
    assert [x.item.key for x in chosen] == ["a", "c"]  # b repeats a: it adds nothing


_words = st.lists(st.sampled_from(["cat", "PostgreSQL", "décision", "🙂", "x", "the", "a\nb", "  ", "naïve", "12:30"]),
                  min_size=1, max_size=400)


@settings(max_examples=150, deadline=None)
@given(texts=st.lists(_words.map(" ".join), min_size=0, max_size=25), budget=st.integers(0, 3000),
       scores=st.lists(st.floats(0.0, 1.0), min_size=25, max_size=25), seed=st.integers(0, 2**16))
def test_the_budget_is_never_exceeded(texts: list[str], budget: int, scores: list[float], seed: int) -> None:
    rng = np.random.default_rng(seed)
    items = []
    for i, t in enumerate(texts):
        v = rng.normal(size=8).astype(np.float32)
        items.append(_item(f"id{i:06d}", t, scores[i], vector=v / np.linalg.norm(v), created_at=float(rng.integers(0, 20000)),
                           causal=frozenset({f"id{int(rng.integers(0, 25)):06d}"})))
    a = allocate(items, budget)
    assert a.used <= budget
    assert count_tokens(a.text) <= budget
    assert sum(c.tokens for c in a.chosen) <= budget
    assert len({c.item.key for c in a.chosen}) == len(a.chosen)


# -- the LoCoMo evaluation's own arithmetic ----------------------------------------------------------
def _eval_module():  # noqa: ANN202
    from tests.script_module import load_script

    return load_script("eval_locomo", reuse=True)


def test_eval_normalises_evidence_ids_and_counts_what_it_skips() -> None:
    ev = _eval_module()
    known = {"D1:3", "D8:6", "D9:17", "D11:26", "D30:5"}
    ids, skipped, fixed = ev.normalise_evidence(["D1:3", "D8:6; D9:17", "D:11:26", "D30:05", "D99:1", "junk"], known)
    assert ids == ["D1:3", "D8:6", "D9:17", "D11:26", "D30:5"] and skipped == 2 and fixed == 4


def test_eval_metrics() -> None:
    ev = _eval_module()

    def one(*ids: str) -> list[frozenset[str]]:
        return [frozenset([i]) for i in ids]

    m = ev.metrics(one("a", "x", "b", "y", "z", "c"), {"a", "b", "c", "d"}, [2, 5])
    assert m["recall@2"] == 0.25 and m["recall@5"] == 0.5
    dcg = 1 + 1 / math.log2(4) + 1 / math.log2(7)
    idcg = sum(1 / math.log2(i + 2) for i in range(4))
    assert m["ndcg@10"] == pytest.approx(dcg / idcg)
    assert m["mrr"] == 1.0
    assert ev.metrics(one("x", "y", "b"), {"b"}, [5])["mrr"] == pytest.approx(1 / 3)
    assert ev.metrics(one("x"), {"b"}, [5])["mrr"] == 0.0
    # A distilled fact covers every turn it cites; a second memory covering the same turn adds nothing.
    facts = [frozenset({"a", "b"}), frozenset({"a"}), frozenset({"c"})]
    m = ev.metrics(facts, {"a", "b", "c"}, [1, 2])
    assert m["recall@1"] == pytest.approx(2 / 3) and m["recall@2"] == pytest.approx(2 / 3)
    assert m["ndcg@10"] == pytest.approx((1 + 1 / math.log2(4)) / sum(1 / math.log2(i + 2) for i in range(3)))


def test_eval_leave_one_out_chooses_on_the_other_conversations() -> None:
    ev = _eval_module()

    def rows(*values: float) -> list[tuple[int, dict[str, float]]]:
        return [(4, {"recall@10": v}) for v in values]

    # Setting "b" wins on c1 alone, "a" on c2 and c3: held out, c1 is scored with "a".
    per_conv = {"c1": {"a": rows(0.0), "b": rows(1.0)}, "c2": {"a": rows(1.0), "b": rows(0.0)},
                "c3": {"a": rows(1.0, 1.0), "b": rows(0.5, 0.5)}}
    fold = ev.loo(per_conv, ["a", "b"], "recall@10")
    assert fold["chosen"] == {"c1": "a", "c2": "a", "c3": "a"}
    assert fold["held_out"]["c1"] == rows(0.0)
    assert fold["in_sample_setting"] == "a"
    # Ties go to the first setting (the defaults).
    assert ev.choose({"c": {"a": rows(0.5), "b": rows(0.5)}}, ["a", "b"], ["c"], "recall@10") == "a"


def test_eval_one_setting_for_every_path_is_chosen_on_all_paths_of_the_other_conversations() -> None:
    ev = _eval_module()

    def rows(*values: float) -> list[tuple[int, dict[str, float]]]:
        return [(4, {"recall@10": v}) for v in values]

    # On c2 and c3, "a" wins path p by a little and loses path q by a lot: "b" is chosen for c1,
    # though "a" is better on c1 itself and on path p alone.
    per_store = {
        "p": {"c1": {"a": rows(1.0), "b": rows(0.0)}, "c2": {"a": rows(0.6), "b": rows(0.5)},
              "c3": {"a": rows(0.6), "b": rows(0.5)}},
        "q": {"c1": {"a": rows(1.0), "b": rows(0.0)}, "c2": {"a": rows(0.0), "b": rows(1.0)},
              "c3": {"a": rows(0.0), "b": rows(1.0)}},
    }
    fold = ev.joint_loo(per_store, ["a", "b"], "recall@10")
    assert fold["chosen"]["c1"] == "b"
    assert fold["held_out"]["p"]["c1"] == rows(0.0) and fold["held_out"]["q"]["c1"] == rows(0.0)
    assert ev.loo(per_store["p"], ["a", "b"], "recall@10")["chosen"]["c1"] == "a"


def test_eval_baselines_break_ties_by_time_and_save_order_not_by_id(tmp_path) -> None:
    """The same line said in four sessions ties in BM25, cosine and RRF; each baseline ranks the
    newest copy first (as mnemo does), so two runs give the same figures whatever the ids."""
    from mnemo.nlp.embedder import HashEmbedder

    ev = _eval_module()
    line = {"speaker": "Melanie", "text": "I went kayaking on the lake."}
    conv: dict[str, object] = {"speaker_a": "Caroline", "speaker_b": "Melanie"}
    for n in range(1, 5):
        conv[f"session_{n}"] = [{**line, "dia_id": f"D{n}:1"},
                                {"speaker": "Caroline", "text": f"Session {n} chatter about nothing.", "dia_id": f"D{n}:2"}]
        conv[f"session_{n}_date_time"] = f"1:00 pm on {n} May, 2023"
    sample = {"sample_id": "t", "conversation": conv,
              "qa": [{"question": "Who went kayaking on the lake?", "evidence": ["D4:1"], "category": 4}]}
    got = []
    for run in range(2):
        b = ev.build(sample, "turns-sessions", HashEmbedder(64), {}, str(tmp_path / f"h{run}"))
        try:
            qs, _ = ev.questions(sample, b.known, {4})
            rows, _ = ev.score(b, qs, {}, [1])
        finally:
            b.m.close()
        got.append({name: [r[1]["recall@1"] for r in rows[name]] for name in ("bm25", "dense", "rrf")})
    assert got[0] == got[1] == {"bm25": [1.0], "dense": [1.0], "rrf": [1.0]}


def test_eval_misses_finds_where_the_evidence_missed_by_the_first_ten_lies() -> None:
    ev = _eval_module()
    covers = {f"m{i}": frozenset() for i in range(30)}
    covers.update({"m0": frozenset({"a"}), "m12": frozenset({"b"}), "m25": frozenset({"b", "c"}), "x": frozenset({"d"})})
    lead = [f"m{i}" for i in range(30)]
    other = ["m25", "m12", "m0"]
    got = ev.missed_ranks({"mnemo": lead, "bm25": other}, covers, {"a", "b", "c", "d", "e"})
    # "a" is in the first ten; "e" no memory covers; "d" only a memory neither ranking holds.
    assert got == [{"mnemo": 13.0, "bm25": 1.0}, {"mnemo": 26.0, "bm25": 1.0}, {"mnemo": math.inf, "bm25": math.inf}]
    lines, out = ev.misses_report({"c1": {"misses:lead": [(1, {"recall@10": 0.25, "recall@20": 0.5, "recall@30": 0.75})],
                                          "misses:ranks": [(1, r) for r in got]}}, 30)
    assert out["1"]["missed"] == 3 and out["1"]["recall"] == {"10": 0.25, "20": 0.5, "30": 0.75}
    assert out["1"]["mnemo"] == {"within_20": 1, "within_30": 2, "median": 19.5}
    assert out["all"]["bm25"] == {"within_20": 2, "within_30": 2, "median": 1.0}
    assert any("| 1 multi-hop | 1 | 0.250 / 0.500 / 0.750 | 3 | 1 / 2 (20) | 2 / 2 (1) |" in line for line in lines)
    # The same rows grouped by question form instead of category.
    lines, out = ev.misses_report({"c1": {"misses:lead:form": [(5, {"recall@10": 0.25, "recall@20": 0.5, "recall@30": 0.75})],
                                          "misses:ranks:form": [(5, r) for r in got]}}, 30, by="form")
    assert out["5"]["missed"] == 3 and out["5"]["n"] == 1 and out["5"]["mnemo"]["within_30"] == 2
    assert any("| 5 list (what Xs) | 1 | 0.250 / 0.500 / 0.750 | 3 |" in line for line in lines)


def test_eval_question_form_reads_what_a_question_asks_for() -> None:
    ev = _eval_module()
    form = {v: k for k, v in ev.FORM_NAMES.items()}
    assert ev.question_form("When did Caroline go to the LGBTQ support group?") == form["when / how long"]
    assert ev.question_form("How long has Mel been practicing art?") == form["when / how long"]
    assert ev.question_form("Would Caroline be considered religious?") == form["yes-no / would"]
    assert ev.question_form("Did Melanie make the black and white bowl?") == form["yes-no / would"]
    assert ev.question_form("How many children does Melanie have?") == form["how many"]
    assert ev.question_form("What do Jon and Gina both have in common?") == form["two people"]
    assert ev.question_form("What activities does Melanie partake in?") == form["list (what Xs)"]
    assert ev.question_form("What kinds of books has Caroline read?") == form["list (what Xs)"]
    # "does", "is", "his" end in s and are no plural noun.
    assert ev.question_form("What does Jon's dance studio offer?") == form["what / which (other)"]
    assert ev.question_form("What is Caroline's identity?") == form["what / which (other)"]
    assert ev.question_form("Where did Jon go on a trip?") == form["who / where / why / how (other)"]


# -- diversity ---------------------------------------------------------------------------------------
def test_diversify_prefers_a_different_result_over_a_near_copy() -> None:
    from mnemo.recall.candidates import Candidate
    from mnemo.recall.rerank import diversify

    def cand(i: str, score: float) -> Candidate:
        c = Candidate(id=i, tier="stm")
        c.score = score
        return c

    e = np.eye(4, dtype=np.float32)
    near = (e[0] + 0.2 * e[1]) / np.linalg.norm(e[0] + 0.2 * e[1])
    vectors = {"a": e[0], "a2": near, "b": e[2], "c": e[3]}
    ordered = [cand("a", 1.0), cand("a2", 0.9), cand("b", 0.8), cand("c", 0.1)]
    assert [c.id for c in diversify(ordered, vectors, 0.0, 4)] == ["a", "a2", "b", "c"]
    out = diversify([cand("a", 1.0), cand("a2", 0.9), cand("b", 0.8), cand("c", 0.1)], vectors, 0.5, 4)
    assert [c.id for c in out] == ["a", "b", "a2", "c"]
    assert out[2].score == pytest.approx(0.9 * (1 - 0.5 * float(near @ e[0])))
    assert all(x.score >= y.score for x, y in zip(out, out[1:], strict=False))  # scores keep the new order
    # Only k are chosen: the rest keep their order and their scores.
    out = diversify([cand("a", 1.0), cand("a2", 0.9), cand("b", 0.8), cand("c", 0.1)], vectors, 0.5, 2)
    assert [(c.id, c.score) for c in out] == [("a", 1.0), ("b", 0.8), ("a2", 0.9), ("c", 0.1)]


def test_eval_embedder_option_runs_the_named_model_and_rejects_what_is_no_model(tmp_path, capsys) -> None:
    """``--embedder`` swaps the model the stores are built with (here the hashing embedder, so
    nothing loads); a folder that holds no model is an error, not a traceback."""
    import json

    ev = _eval_module()
    conv: dict[str, object] = {"speaker_a": "Caroline", "speaker_b": "Melanie",
                               "session_1": [{"speaker": "Melanie", "text": "I went kayaking on the lake.", "dia_id": "D1:1"},
                                             {"speaker": "Caroline", "text": "I painted a sunset.", "dia_id": "D1:2"}],
                               "session_1_date_time": "1:00 pm on 1 May, 2023"}
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps([{"sample_id": "t", "conversation": conv,
                                 "qa": [{"question": "Who went kayaking?", "evidence": ["D1:1"], "category": 4}]}]))
    assert ev.main([str(data), "--store", "turns", "--embedder", "hash-64", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["embedder"] == "hash-64" and out["stores"]["turns"]["memories"] == 2
    (tmp_path / "empty").mkdir()
    assert ev.main([str(data), "--store", "turns", "--embedder", str(tmp_path / "empty")]) == 1
    assert "--embedder" in capsys.readouterr().err
