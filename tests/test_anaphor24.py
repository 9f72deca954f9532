"""What a pointer back ("as a result ...", "that's why ...") may link (#16, twenty-fourth round):
nothing into a consequence told as a fact (the last test fails on main at 9a51f91), while a step
or a fact said just before stays the cause of a step (guards, as on main). Hand-written cases on
the real spaCy fingerprints; the labelled splits (scripts/diagnose_links.py) measure quality."""

from __future__ import annotations

from mnemo.models import MemoryType

from .test_causal_paths import _conversation, _pairs

FACT, DEBUG, DECISION = MemoryType.FACT, MemoryType.DEBUG_LOG, MemoryType.DECISION


def test_a_step_told_just_before_in_the_same_turn_is_still_pointed_at() -> None:
    rows = [
        ("Lena", 0, "I've booked the minibus for the choir trip on Saturday.", DECISION),
        ("Lena", 0, "So the trip leaves from the school gates at nine.", DECISION),
    ]
    assert _pairs(_conversation(rows)) == {(rows[0][2], rows[1][2])}


def test_a_fact_from_an_earlier_turn_is_still_pointed_at() -> None:
    rows = [
        ("Lena", 0, "The minibus only seats twelve and the choir has sixteen singers.", FACT),
        ("Tom", 1, "So I'm driving four of the altos in my car.", DECISION),
    ]
    assert _pairs(_conversation(rows)) == {(rows[0][2], rows[1][2])}


def test_a_consequence_told_as_a_fact_is_no_effect_of_a_pointer() -> None:
    # What follows from a report ("as a result the beer is too cold") tells what happened, not a
    # step taken; a step said the same way is linked.
    report = ("Ravi", 0, "The glycol jacket on the fermenter is set to 16 degrees.", DEBUG)
    for told in ("As a result, the beer is too cold and the yeast has dropped out.",
                 "That's why the beer is too cold and the yeast has dropped out."):
        assert not _pairs(_conversation([report, ("Ravi", 0, told, FACT)])), told
    step = ("Ravi", 0, "As a result, I've turned the jacket up to 19 degrees.", DECISION)
    assert _pairs(_conversation([report, step])) == {(report[2], step[2])}
