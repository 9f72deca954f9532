"""Issue #16, fourteenth round: causes and effects told in one turn stored apart.

The speaker's act told without its "I", as people log what they did ("The float valve was
stuck open. Freed it and replaced the washer."), after a finding about a thing, is a memory of
its own: the finding is the cause, the act the effect, and one memory holding both leaves
nothing to link. A sentence that opens with a participle that is not an act ("Given that ...",
"Based on ..."), a verb with its own subject, or an act after a sentence about the speaker stays
as the parse and the older rules left it."""

from __future__ import annotations

import pytest

from mnemo.nlp.extract import _another_act, _speaker_act

from .labelled_set import causal_pairs, ingest_turns
from .statement_filter import first_sentence
from .test_extract_segments import _parts


@pytest.mark.parametrize(("first", "second"), [
    ("Yes, the intake had a plastic bag wrapped round it.", "Cleared it and fitted a mesh guard over the intake."),
    ("The heater's thermostat had a loose wire.", "Tightened the terminal and tested it, it holds 20 degrees now."),
])
def test_the_speakers_act_without_its_subject_after_a_thing_is_its_own_memory(first: str, second: str) -> None:
    assert _parts(f"{first} {second}") == [[first], [second]]


@pytest.mark.parametrize("text", [
    "Drained the tank and fitted a new filter.",
    "Yes, replaced the connector, SWR is back to 1.3.",
])
def test_a_subjectless_past_verb_with_an_object_is_a_speaker_act(text: str) -> None:
    assert _speaker_act(first_sentence(text))


@pytest.mark.parametrize("text", [
    "Given that it's partial, surgery isn't needed.",
    "Based on the scan, the tear is small.",
    "I replaced the connector.",
    "Replaced by the landlord last year.",
])
def test_a_participle_that_is_no_act_is_not_a_speaker_act(text: str) -> None:
    assert not _speaker_act(first_sentence(text))


@pytest.mark.parametrize("text", [
    # The act after the speaker's own sentence: one story.
    "I got home late on Friday. Cleaned the kitchen and went to bed.",
])
def test_an_act_after_the_speaker_or_a_non_act_stays_whole(text: str) -> None:
    assert len(_parts(text)) == 1


@pytest.mark.slow
def test_a_finding_and_the_act_it_led_to_are_stored_and_linked_apart(real_engine) -> None:
    turns = [
        ("Rui", "the bilge pump keeps running every ten minutes"),
        ("Sam", "check the float switch, it sticks when there's debris"),
        ("Rui", "Yes, the intake had a plastic bag wrapped round it. Cleared it and fitted a mesh guard over the intake."),
    ]
    _, kept = ingest_turns(real_engine, turns, session="pump")
    contents = [m["content"] for m in kept]
    cause, act = "Rui: Yes, the intake had a plastic bag wrapped round it.", "Rui: Cleared it and fitted a mesh guard over the intake."
    assert cause in contents and act in contents
    assert (cause, act) in causal_pairs(real_engine, kept, field="content")


def test_and_with_another_act_after_a_decision_is_its_own_memory() -> None:
    assert _parts("I'm cancelling the gym membership this month. And I've signed up for the climbing wall instead.") == [
        ["I'm cancelling the gym membership this month."], ["I've signed up for the climbing wall instead."]]


@pytest.mark.parametrize("text", ["And the lake was cold.", "And I might go again."])
def test_and_before_a_story_a_state_or_a_plan_is_not_another_act(text: str) -> None:
    assert not _another_act(first_sentence(text))


def test_and_after_the_speakers_story_stays_one_memory() -> None:
    assert len(_parts("I went to the lake on Saturday. And we had a picnic by the water.")) == 1
