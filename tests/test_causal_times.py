"""Thirteenth-round (links13b) readings of mnemo.graph.rules' cues (#16), on short conversations
fingerprinted with the real spaCy model: "since" before a day, a date or a clock time says when,
not why; "due to" before a verb says what is scheduled, not why. Hand-written cases: they prove
behaviour, the labelled splits (scripts/eval_labelled.py) measure quality."""

from __future__ import annotations

from mnemo.graph import rules
from mnemo.models import MemoryType

from .test_causal_paths import _conversation
from .test_causal_paths import _pairs as _links

FACT, PREF, DECISION = MemoryType.FACT, MemoryType.PREFERENCE, MemoryType.DECISION


def _pairs(rows: list[tuple[str, int, str, MemoryType]]) -> set[tuple[str, str]]:
    """(cause, effect) texts of every causal link ``propose`` makes among ``rows``, stored as
    ingest stores them (``test_causal_paths._conversation``)."""
    return _links(_conversation(rows))


def test_since_a_day_or_a_clock_time_is_when_not_why() -> None:
    rows = [
        ("Ana", 0, "The engineers came in March for the compressor.", FACT),
        ("Ben", 1, "since march the compressor's been quiet at least", FACT),
    ]
    assert not _pairs(rows)
    rows = [
        ("Ana", 0, "I always keep a paper manifest in the cab anyway.", PREF),
        ("Ben", 1, "Since 9 this morning we've had four vans down.", FACT),
    ]
    assert not _pairs(rows)
    for opener in ("Since Monday", "Since 10:40", "Since the 3rd"):
        assert rules.cue_spans(f"{opener} the lift has been stuck on floor two.") == [], opener
    # A day that is the reason's subject, and a reason told as a clause, stay reasons.
    assert rules.cue_spans("Since Thursday is market day, we open the stall early.")[0][0] == "because"
    assert rules.cue_spans("Since the price doubled, we switched to the other supplier.")[0][0] == "because"


def test_due_to_before_a_verb_is_a_schedule_not_a_reason() -> None:
    rows = [
        ("Kim", 0, "We'd prefer to complete the purchase before Christmas if possible.", PREF),
        ("Lee", 1, "The seller's onward purchase is a new build, it's due to complete in January.", FACT),
    ]
    assert not _pairs(rows)
    assert rules.cue_spans("The flight is due to land at 6.") == []
    # "due to" before a noun phrase is a reason.
    for reason in ("The delay is due to the strike.", "The closure is due to flooding.", "We cancelled due to rising costs."):
        assert rules.cue_spans(reason)[0][0] == "because", reason

