"""Causal links through the real ingest (MiniLM and spaCy) when the speakers are chat handles in
lower case ("fio", "kat"): the handle ingest writes in front of each memory is taken off before
the link rules read the statement, as a capitalised name is, so a cue opening the statement
("so ...") is read, and a filler or a question opening it ("so anyway ...", "so what did u do
...") is not a consequence. Each of the first two fails with the handle left in front."""

from __future__ import annotations

import pytest

from .labelled_set import ingest_turns, turn_links

pytestmark = pytest.mark.slow




def test_so_opening_a_lower_case_handles_decision_points_back(real_engine) -> None:
    kept, pairs = turn_links(real_engine, [
        ("kat", "the bus company cut the 7:40 route to the high school"),
        ("fio", "so we're doing a car pool with the Ahmeds, mon-thu"),
    ], "handle-so", field="content")
    assert kept[1].startswith("fio: "), kept
    assert pairs == {(0, 1)}


def test_the_handle_is_no_word_two_statements_share(real_engine) -> None:
    from mnemo.graph.rules import said

    _, kept = ingest_turns(real_engine, [
        ("fio", "the nursery app wont show the photos since the update"),
        ("kat", "they moved photos behind a new consent setting"),
        ("fio", "ticked the consent box and the photos are back"),
    ], session="handle-said")
    mems = [real_engine.core.store.get_memory(m["id"]) for m in kept]
    assert [said(m).lower() for m in mems] == [
        "the nursery app wont show the photos since the update",
        "they moved photos behind a new consent setting",
        "ticked the consent box and the photos are back",
    ]


def test_a_filler_or_a_question_opening_a_handles_statement_is_no_consequence(real_engine) -> None:
    _, pairs = turn_links(real_engine, [
        ("bel", "the new café on park st is so good"),
        ("cam", "i can't stand oat flat whites tbh"),
        ("bel", "so anyway i'm at the library now revising for the stats exam"),
        ("cam", "so what did u do at the weekend"),
    ], "handle-filler", field="content")
    assert not any(2 in pair or 3 in pair for pair in pairs), pairs


def test_what_follows_an_opening_so_decides_whether_it_is_a_consequence() -> None:
    from mnemo.graph.rules import cue_spans, moves_on

    def points_back(text: str) -> bool:
        return any(back and not span for _, span, back, _ in cue_spans(text, decision=True))

    assert points_back("so we're doing a car pool with the Ahmeds") and points_back("So now i do the aldi run on saturdays")
    # An interjection after "so", or a question, carries the talk on.
    assert not points_back("So anyway i'm at the café now working on my portfolio")
    assert not points_back("so what did u do at the weekend") and not points_back("So did you book it")
    assert moves_on("Ok so anyway we should book the hotel") and not moves_on("Ok cancelling my thursday shift so i can revise")
