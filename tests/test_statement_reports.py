"""A report framed as a reaction ("Guess what - I adopted a kitten last Saturday!") is a
statement: with two kinds of evidence the parse rules leave it to the margin. Hand-written
sentences, the real spaCy model."""

from __future__ import annotations

import pytest

from mnemo.nlp import conversation
from mnemo.nlp.extract import candidates
from mnemo.nlp.statement import REPORTS, evidence, reaction

from .statement_filter import first_sentence

pytestmark = pytest.mark.slow

REPORTS_IN_A_REACTION_FRAME = [
    "Guess what - I adopted a kitten last Saturday!",
    "Guess what, we bought a boat in June!",
    "Glad I finally booked the trip to Peru last night!",
    "Can't wait to start my new job at the bakery on Monday!",
    "I'm organising a bake sale for the school next month, I can't wait to see how it goes.",
]
REACTIONS = [
    "Wow, that sounds great!",
    "I totally agree, Sam.",
    "Your garden looks amazing this year.",
    "Haha, what a week.",
    "Same here, honestly.",
    "Keep it up, you deserve it!",
    "Congrats on the new flat!",
]



@pytest.mark.parametrize("text", REPORTS_IN_A_REACTION_FRAME)
def test_a_report_in_a_reaction_frame_is_not_a_reaction(text: str) -> None:
    sent = first_sentence(text)
    assert evidence(sent) >= REPORTS
    assert not reaction(sent)


@pytest.mark.parametrize("text", REACTIONS)
def test_reactions_stay_reactions(text: str) -> None:
    assert reaction(first_sentence(text))


def test_the_report_becomes_a_candidate_and_the_reactions_do_not() -> None:
    turns = conversation.parse(
        "Ana: Guess what - I adopted a kitten last Saturday!\n"
        "Ben: Wow, that sounds great! Keep it up, you deserve it!\n"
        "Ana: Can't wait to start my new job at the bakery on Monday!\n"
        "Ben: Congrats on the new flat!",
        "text",
    )
    cands, _ = candidates(turns)
    assert [(c.speaker, c.text) for c in cands] == [
        ("Ana", "Guess what - I adopted a kitten last Saturday!"),
        ("Ana", "Can't wait to start my new job at the bakery on Monday!"),
    ]
