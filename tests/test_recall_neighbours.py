"""Conversation context (recall/neighbours.py) on a real store: a question lends its answer
``answer_weight`` of its relevance, any other turn ``neighbour_weight``; whether a turn asks is
read only for the turns that lend (``store.turns_within(..., asking)``), which changes nothing."""

from __future__ import annotations

from mnemo.index.filters import make_filters
from mnemo.recall.candidates import Pool, from_row
from mnemo.recall.neighbours import adjacent, spread

TALK = ["Caroline: Did you finally adopt the beagle puppy?", "Melanie: Yes, last Saturday, we picked him up!",
        "Caroline: That is wonderful news.", "Melanie: Is he house-trained yet?", "Caroline: Not yet.",
        "Melanie: The kids are thrilled."]


def _saved(engine) -> dict[str, str]:
    engine.save_many([{"content": t, "session_id": "s1"} for t in TALK])
    return {m.content: m.id for m in engine.list(limit=20)}


def test_whether_a_turn_asks_is_read_for_the_lenders_alone_and_alike(engine) -> None:
    ids = _saved(engine)
    store = engine.core.store
    rows = store.light_rows(list(ids.values()))
    seqs = sorted(int(r["seq"]) for r in rows.values())
    span = [(seqs[0] - 2, seqs[-1] + 2)]
    every = {r[1]: tuple(r) for r in store.turns_within(span)}
    lenders = [int(rows[ids[TALK[0]]]["seq"]), int(rows[ids[TALK[4]]]["seq"])]
    some = {r[1]: tuple(r) for r in store.turns_within(span, lenders)}
    assert every.keys() == some.keys() == set(ids.values())
    assert all(every[i][:4] == some[i][:4] for i in every)
    assert {i for i, r in every.items() if r[4]} == {ids[TALK[0]], ids[TALK[3]]}  # the two questions
    assert {i for i, r in some.items() if r[4]} == {ids[TALK[0]]}  # of the lenders, only the first asks
    assert not any(r[4] for r in store.turns_within(span, []))

    asks: set[str] = set()
    near = adjacent(engine.core, [ids[TALK[0]], ids[TALK[3]], ids[TALK[4]]], asks=asks)
    assert asks == {ids[TALK[0]], ids[TALK[3]]}
    assert near[ids[TALK[3]]] == (ids[TALK[2]], ids[TALK[4]])


def test_a_question_lends_its_answer_more_than_its_other_neighbour(engine) -> None:
    ids = _saved(engine)
    s = engine.settings.recall
    assert s.answer_weight > s.neighbour_weight > 0
    f = make_filters("all")
    pool = Pool()
    rows = engine.core.store.light_rows(list(ids.values()), pool.rows)
    for text, fused in ((TALK[3], 0.8), (TALK[5], 0.1)):  # a question and a turn that asks nothing
        c = pool.candidates[ids[text]] = from_row(ids[text], rows[ids[text]])
        c.fused = fused
    spread(engine.core, pool, f, s.neighbour_weight, answer_weight=s.answer_weight)
    fused = {text: pool.candidates[ids[text]].fused for text in TALK if ids[text] in pool.candidates}
    assert fused[TALK[4]] == 0.8 * s.answer_weight  # the answer to the question
    assert fused[TALK[2]] == 0.8 * s.neighbour_weight  # the turn before it
    assert fused[TALK[5]] == 0.1  # lent to by nobody: the question's answer is the turn between them
    assert pool.candidates[ids[TALK[4]]].context_from == ids[TALK[3]]
