"""Whether a causal link of the twenty-first round is made at all (#16, wrong links of the
answered path's mishap branch read on test11 ... test17), through the real ingest (MiniLM and
spaCy) on hand-written conversations: a step that is only supposed ("I'd ...", "... if it's not
back by noon") answers no mishap said before it, while a step taken after the same mishap still
does, and so does a rule told with its condition. The conversation tests of the supposed step
fail on the twentieth round's rules (main at f59c3af); the others are guards that hold on both."""

from __future__ import annotations

import pytest

from mnemo.graph import rules

from .labelled_set import turn_links

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("text", [
    "I'd have done the same.",
    "Well I'd stop running for a bit till it settles.",
    "we'd pay more than point-to-point tickets bought early",
    "drilling the winter wheat tomorrow if it stays dry",
    "we'll miss the lunch orders if it's not back by noon",
])
def test_a_supposed_step_is_read_as_such(text: str) -> None:
    assert rules._supposes(text)


@pytest.mark.parametrize("text", [
    "I've booked a physio appointment for Thursday.",
    "We fixed the encoding bug and added a check that alerts if the count drops.",
    "From now on, if the river gauge reads over 1 metre, beginner sessions move to the lake.",
    "I'll cut it off and fit a combination lock.",
])
def test_a_step_taken_is_not_read_as_supposed(text: str) -> None:
    assert not rules._supposes(text)


SUPPOSED = [
    [("Nia", "I hurt my knee on the trail on Sunday, it's swollen."),
     ("Owen", "Well I'd stop running for a bit till it settles.")],
    [("Raf", "The delivery van broke down on the ring road this morning."),
     ("Sam", "we'll miss the lunch orders if it's not back by noon")],
]


@pytest.mark.parametrize("turns", SUPPOSED)
def test_a_supposed_step_answers_no_mishap(real_engine, turns: list[tuple[str, str]]) -> None:
    types, pairs = turn_links(real_engine, turns, "supposed")
    assert types.get(0) is not None and types.get(1) is not None, types
    assert (0, 1) not in pairs, (types, pairs)


@pytest.mark.parametrize("turns", [
    [("Nia", "I hurt my knee on the trail on Sunday, it's swollen."),
     ("Owen", "Oh no."),
     ("Nia", "I've booked a physio appointment for Thursday.")],
    [("Raf", "The delivery van broke down on the ring road this morning."),
     ("Sam", "Ugh."),
     ("Raf", "I've hired a replacement van for the lunch orders.")],
])
def test_a_step_taken_after_the_same_mishap_still_answers_it(real_engine, turns: list[tuple[str, str]]) -> None:
    types, pairs = turn_links(real_engine, turns, "taken")
    assert types.get(2) == "decision", types
    assert (0, 2) in pairs, (types, pairs)
