"""Statements the parse once took for reactions or the filter for names-nothing, and the
greeting that hid a statement: a cause said with a trailing "that's why", an answer that is an
adjective and then a clause of its own, a statement with two kinds of evidence whose thing is a
pronoun, a "Good afternoon," in front. Hand-written sentences, the real spaCy model (and the real
engine for what ingest keeps): behaviour, not quality (the labelled splits and
scripts/eval_extract.py measure that)."""

from __future__ import annotations

import json

import pytest

from mnemo.nlp.extract import keep_sentence, trim
from mnemo.nlp.statement import reaction, reports

from .statement_filter import first_sentence


@pytest.mark.parametrize("text", [
    "We store local times without an offset, that's why.",
    "Very loud, and the base gets hot.",
    "Heap exhaustion on node 3 both times.",
    "Water only on the bike now.",
])
def test_explanations_and_answers_are_not_reactions(text: str) -> None:
    assert not reaction(first_sentence(text))


@pytest.mark.parametrize("text", ["That's so cool!", "Wow, nice spot!", "It was an awesome feeling.", "Great job on the presentation.",
                                  "Such a lovely photo."])
def test_reactions_stay_reactions(text: str) -> None:
    assert reaction(first_sentence(text))


def test_that_is_why_reports() -> None:
    assert reports(first_sentence("The pipes are old, that's why."))
    assert not reports(first_sentence("Lunch was nice today."))


def test_a_greeting_in_front_does_not_hide_the_statement() -> None:
    text = "Good afternoon, I received a letter that my tax return for last year was filed late."
    assert trim(text) == "I received a letter that my tax return for last year was filed late."
    assert keep_sentence(trim(text))
    assert not keep_sentence(trim("Good afternoon."))


def test_a_statement_with_two_kinds_of_evidence_is_kept_though_its_thing_is_a_pronoun(real_engine) -> None:
    turns = [
        {"speaker": "Maren", "text": "The back bedroom gets mould on the walls every winter.", "timestamp": 1_770_000_000},
        {"speaker": "Maren", "text": "We're having it extracted and replaced in March.", "timestamp": 1_770_000_060},
        {"speaker": "Nils", "text": "It is what it is.", "timestamp": 1_770_000_120},
    ]
    res = real_engine.ingest(json.dumps(turns), format="json", wing="mould", session_id="mould")
    kept = {m["content"]: m["type"] for m in res["memories"] if m["created"]}
    assert kept.get("Maren: We're having it extracted and replaced in March.") == "decision", kept
    assert not any(c.startswith("Nils:") for c in kept)
