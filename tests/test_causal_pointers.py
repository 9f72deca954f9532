"""Causal links read on test12's wrong links after the twelfth round (issue #16), one test per
mechanism fixed in the rules: a pointer ("given that", "for that reason") said right after its
speaker's own sentence points at that sentence, not at an earlier statement that shares the
step's words; "because of her knees" names its reason (a possessive, not a pronoun pointing
back); "since last year" is a time; "So, about the naming" announces a new topic. Each fails on
the twelfth round's rules."""

from __future__ import annotations

import pytest

from mnemo.graph.rules import cue_spans

from .labelled_set import content_links, linked


@pytest.mark.slow
def test_a_pointer_after_the_speakers_own_sentence_points_at_it(real_engine) -> None:
    kept, pairs = content_links(real_engine, [
        ("Harris & Co", "Following the check-out inspection we propose to deduct 320 pounds from your deposit for carpet cleaning."),
        ("Aliya", "I had the carpets professionally cleaned on 28 June, receipt attached. For that reason I am disputing the deduction through the deposit scheme."),
    ], "pointer-own-sentence")
    shown = [(m["type"], m["content"]) for m in kept]
    assert not linked(pairs, "propose to deduct", "disputing the deduction"), (pairs, shown)
    assert linked(pairs, "carpets professionally cleaned", "disputing the deduction"), (pairs, shown)


def test_her_before_a_noun_is_a_possessive_not_a_pointer() -> None:
    spans = cue_spans("She cannot travel anymore because of her knees, the doctor said no long trips.", decision=False)
    assert ("because", " her knees") in [(rel, span) for rel, span, back, _ in spans if not back], spans
    # ... while "her" as an object still points back ("with her gone").
    assert any(back for rel, span, back, _ in cue_spans("With her gone, I'm taking over the rota.") if rel == "because")


@pytest.mark.slow
def test_a_possessive_reason_does_not_link_the_statement_said_before(real_engine) -> None:
    _, pairs = content_links(real_engine, [
        ("Ana", "Hello family, grandfather is 85 on 3 May!!"),
        ("Ana", "He cannot fly anymore because of his heart, so he will stay home."),
        ("Ana", "She cannot travel anymore because of her knees, the doctor said no long trips."),
    ], "possessive-reason")
    assert not linked(pairs, "85 on 3 May", "her knees"), pairs
    assert not linked(pairs, "his heart", "her knees"), pairs


def test_since_a_time_said_as_such_is_no_reason() -> None:
    assert cue_spans("Since last year the embassy also takes fingerprints, it takes longer.", decision=False) == []
    assert not [c for c in cue_spans("Since 2023 the trains have wifi but it often fails.", decision=False) if c[0] == "because"]
    # A reason stays one.
    assert [c for c in cue_spans("Since the price nearly doubled, I'm switching to the bus.") if c[0] == "because"]


def test_so_about_announces_a_new_topic() -> None:
    assert not [c for c in cue_spans("So, about the naming, I'm not fussed either way.") if c[0] == "because"]
    assert [c for c in cue_spans("So we moved the standup to 10.") if c[0] == "because"]



def test_a_statement_opening_with_also_adds_to_a_step_it_does_not_explain_it() -> None:
    # Typed as ingest may type it (a report): "also" adds one more step, it is no reason for the
    # one before. Memories fingerprinted with the real spaCy model, as in test_causal_targets.
    from mnemo.graph import rules
    from mnemo.models import MemoryType

    from .test_causal_targets import T0, _conversation

    mems = _conversation([
        ("Marek", 0, "Anyone can read other files through the name parameter, I tried it on staging and got them back.", MemoryType.FACT),
        ("Ola", 2, "Switched it to look the file up by id through the storage layer.", MemoryType.DECISION),
        ("Ola", 2, "Also added a regression test with the path you used.", MemoryType.DEBUG_LOG),
    ])
    new, earlier = mems[-1], mems[:-1]
    out = [ln for ln in rules.propose(new, earlier, T0 + 3600) if ln.rel in rules.CAUSAL_RELS and ln.src == new.id]
    assert out == [], out


def test_a_speakers_own_account_keeps_the_report_the_step_names() -> None:
    # A guard on the first test (passes on main; failed on its first form, 2f9a272, which cost a
    # right link of test9): told in order by one speaker, a report,
    # what was found, then "So ...": the step answers the report it names again.
    from mnemo.graph.rules import propose, said
    from mnemo.models import MemoryType

    from .test_causal_targets import T0, _conversation

    mems = _conversation([
        ("Mr Hale", 1, "Several of you told me the coursework portal rejected your essays last night with an error.", MemoryType.DEBUG_LOG),
        ("Mr Hale", 1, "The limit turned out to be 2 MB, and most scanned pages are bigger than that.", MemoryType.FACT),
        ("Mr Hale", 1, "So from this week you can hand essays in on paper or through the coursework portal by email instead.", MemoryType.DECISION),
    ])
    new, earlier = mems[-1], mems[:-1]
    by_id = {m.id: m for m in earlier}
    causes = [said(by_id[ln.src]) for ln in propose(new, earlier, T0 + 3600) if ln.dst == new.id and ln.src in by_id and ln.rel in ("because", "resolves", "triggered")]
    assert causes and "rejected your essays" in causes[0], causes
