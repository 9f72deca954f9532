"""The turn's own account of its speaker in the statement filter (``extract.self_refs``,
``SELF_WEIGHT``), and feelings about the addressee as reactions (``statement.reaction``).
Hand-written turns, the real spaCy parse and the real MiniLM model: behaviour, not quality
(quality is scripts/eval_extract.py, held out)."""

from __future__ import annotations

import json

import pytest

from mnemo.nlp import conversation, extract, statement_head
from mnemo.nlp.entities import nlp
from mnemo.nlp.extract import candidates, self_refs
from mnemo.nlp.statement import reaction

from .statement_filter import kept


def test_self_refs_counts_the_speaker_speaking_of_themselves() -> None:
    assert self_refs("Thanks! I finally signed the lease on my studio, and we move in May.") == 3
    assert self_refs("I'm sure our kids will love it, it's ours now.") == 3  # "I'm" counts once
    assert self_refs("You did great, that's so cool!") == 0
    assert self_refs("The US office opened, i.e. the one in Austin.") == 0  # the country, an abbreviation


def test_every_candidate_of_a_turn_carries_the_turn_count() -> None:
    turns = conversation.parse(json.dumps([
        {"speaker": "Ana", "text": "Thanks, I really appreciate it! The band played until midnight. My sister sang two songs."},
        {"speaker": "Ben", "text": "The venue is next to the station. It opened in 1990."},
    ]), "json")
    cands, _ = candidates(turns)
    by_turn = {c.turn.index: c.self_refs for c in cands}
    # Ana's count includes the thanks the parse rules drop: it is the whole turn's.
    assert by_turn == {0: 2, 1: 0}


# The weights and threshold the LoCoMo folds chose with the self count in the sweep (shipped off:
# see extract.SELF_WEIGHT), before the novelty count.
# They are the margin's (the fallback without the learned head): the margin scores here.
SWEPT = {"MARGIN_SELF_WEIGHT": 0.25, "MARGIN_THRESHOLD": 0.03, "MARGIN_EVIDENCE_WEIGHT": 0.06, "MARGIN_NOVELTY_WEIGHT": 0.0}


@pytest.mark.slow
def test_a_borderline_statement_is_kept_when_its_speaker_speaks_of_themselves(real_embedder,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(statement_head, "head", lambda *_a, **_k: None)
    for name, value in SWEPT.items():
        monkeypatch.setattr(extract, name, value)
    # The same sentence; the margin alone leaves it below the threshold, and a turn in which the
    # speaker speaks of themselves ("I know!", too short to be a memory of its own) lifts it.
    assert kept(real_embedder, [("Ana", "We went to the fair on Sunday."), ("Ben", "The market was busy.")]) == [
        "We went to the fair on Sunday."]
    assert "The market was busy." in kept(real_embedder, [("Ana", "We went to the fair on Sunday."),
                                                           ("Ben", "I know! The market was busy.")])
    monkeypatch.setattr(extract, "MARGIN_SELF_WEIGHT", 0.0)
    assert "The market was busy." not in kept(real_embedder, [("Ana", "We went to the fair on Sunday."),
                                                               ("Ben", "I know! The market was busy.")])


def test_shipped_off() -> None:
    assert extract.SELF_WEIGHT == extract.MARGIN_SELF_WEIGHT == 0.0  # see the comment at extract.SELF_WEIGHT: the held-out sets disagree


@pytest.mark.parametrize("text", ["That's awesome, I'm so happy for you!", "I'm so proud of you!",
                                  "I'm really grateful for your help.", "We were so worried about you.",
                                  "That's amazing, I'm so excited for it!"])
def test_a_feeling_about_the_addressee_is_a_reaction(text: str) -> None:
    assert reaction(next(iter(nlp()(text).sents)))


@pytest.mark.parametrize("text", ["I'm allergic to cats.", "I'm nervous about the surgery.",
                                  "I was scared of the dark as a kid.", "I'm excited about the trip to Japan."])
def test_a_feeling_about_a_thing_states(text: str) -> None:
    assert not reaction(next(iter(nlp()(text).sents)))
