"""Issue #16, fifteenth round: a decision said as an imperative or "let's" that takes up what
the other speaker just proposed is kept ("So I'd recommend TPLO surgery, and we can book it for
Wednesday." -> "Okay, book it."), though the parse calls imperatives reactions, the head scores
three words of echo low and the memory names nothing; encouragement and wishes after a turn are
not ("Keep it up!", "Can't wait to see it!"). Real spaCy, MiniLM and SQLite through ``Mnemo``."""

from __future__ import annotations

import pytest

from .labelled_set import ingest_turns


def _contents(engine, turns: list[tuple[str, str]]) -> list[str]:
    _, kept = ingest_turns(engine, turns)
    return [m["content"] for m in kept]


@pytest.mark.parametrize(("proposal", "answer"), [
    ("So I'd recommend TPLO surgery, and we can book it for Wednesday.", "Okay, book it."),
    ("We could move the team dinner to Tuesday or keep it on Friday?", "Let's do Tuesday."),
])
def test_an_imperative_taking_up_the_other_speakers_proposal_is_kept(engine, proposal: str, answer: str) -> None:
    texts = _contents(engine, [("Ana", "The vet called about Bruno's x-ray this morning."), ("Ana", proposal), ("Ben", answer)])
    assert any(answer in t for t in texts), texts


@pytest.mark.parametrize(("before", "reply"), [
    ("I finished my first marathon yesterday in 4 hours.", "Keep it up!"),
    ("Could you come and see the new studio on Friday?", "Can't wait to see it!"),
])
def test_encouragement_or_a_wish_after_a_turn_is_not_taken_for_a_decision(engine, before: str, reply: str) -> None:
    texts = _contents(engine, [("Ana", before), ("Ben", reply)])
    assert not any(reply in t for t in texts), texts
