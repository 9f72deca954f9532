"""Issue #16, sixteenth round: a heading in front of the statement it announces ("Announcement
for the novice squad. Two of the Saturday crew have mono, ...") is not joined to it: joined, the
memory opened with a line that states nothing, and a link to it was a link to the heading. An
exclamation ("Great news, John!") or a clause ("The sense of it matters.") is no heading. Real
spaCy, MiniLM and SQLite through ``Mnemo``."""

from __future__ import annotations

import pytest

from mnemo.nlp import extract

from .labelled_set import ingest_turns
from .statement_filter import first_sentence


@pytest.mark.parametrize("text", [
    "Announcement for the novice squad.",
    "Notice to plot holders.",
    "Handover for bay 3.",
    "Couple of things on #812.",
])
def test_a_verbless_noun_phrase_said_flatly_is_a_heading(text: str) -> None:
    assert extract._heading(first_sentence(text))


@pytest.mark.parametrize("text", [
    "Great news, John!",  # an exclamation reacts, it announces nothing
    "Pottery's so relaxing and creative.",  # the copula the parser takes for a possessive
    "The council has put the water rates up 40%.",
    "Her name's Coco",
])
def test_a_clause_or_an_exclamation_is_not_a_heading(text: str) -> None:
    assert not extract._heading(first_sentence(text))


@pytest.mark.parametrize(("heading", "statement"), [
    ("Announcement for the novice squad.", "Two of the Saturday crew have mono, so the 8 can't go out this weekend."),
    ("Notice to plot holders.", "The council has put the water rates up 40% and our trough meter shows we used double last August."),
])
def test_the_statement_after_a_heading_is_a_memory_of_its_own(engine, heading: str, statement: str) -> None:
    _, kept = ingest_turns(engine, [("Coach Ilse", f"{heading} {statement}")], session="heading")
    texts = [m["content"] for m in kept]
    mine = [t for t in texts if statement.split(",")[0][:30] in t]
    assert mine, texts
    assert all(heading.rstrip(".") not in t for t in mine), texts


def test_statements_of_one_turn_without_a_heading_still_join(engine) -> None:
    """The speaker's own story stays one memory, as before (``_another_statement``). (Until the
    twentieth round the turn here was two decisions, "I'm booking the car into the dealer ... Until
    then I'll use the Ionity ...", which the labelled splits hold as two units, each with a cause
    of its own: a second decision now stands apart, tests/test_segment21.py.)"""
    turn = "I drove the car down to Brighton on Thursday. I stayed with my sister in Hove for the weekend."
    _, kept = ingest_turns(engine, [("Jo", turn)], session="story")
    texts = [m["content"] for m in kept]
    assert any("Thursday" in t and "Hove" in t for t in texts), texts
