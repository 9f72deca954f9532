"""Reactions weighed by the statement filter instead of dropped by the parse
(``extract.REACTION_PENALTY``): a reaction that carries something (evidence of an event, or a
noun new to the conversation) becomes a candidate of its own, scored like any other less the
penalty; a bare one stays dropped and is never embedded. Infinite (as shipped): the parse drops
every reaction, as before. Hand-written turns, the real spaCy parse (and the real MiniLM model
for the filter): behaviour, not quality (quality is scripts/eval_extract.py, held out)."""

from __future__ import annotations

import json
import math

import pytest

from mnemo.nlp import conversation, extract
from mnemo.nlp.extract import Candidate, candidates

from .statement_filter import kept

THANKS = "Thanks for driving me to the clinic on Friday!"
LINES = [("Ana", "My knee surgery went fine."),
         ("Ben", f"{THANKS} That is so cool! I landed in Oslo at noon.")]


def _cands(lines: list[tuple[str, str]]) -> list[Candidate]:
    turns = conversation.parse(json.dumps([{"speaker": s, "text": t} for s, t in lines]), "json")
    return candidates(turns)[0]


def test_reactions_are_dropped_by_the_parse_while_the_penalty_is_infinite(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extract, "REACTION_PENALTY", float("inf"))
    texts = [c.text for c in _cands(LINES)]
    assert texts == ["My knee surgery went fine.", "I landed in Oslo at noon."]


def test_a_reaction_that_carries_something_is_weighed_and_a_bare_one_is_not(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extract, "REACTION_PENALTY", 0.1)
    got = {c.text: c for c in _cands(LINES)}
    # The statements are the same candidates as without the weighing; the thanks names a time
    # and a place and comes apart from them; "That is so cool!" carries nothing and is dropped.
    assert list(got) == ["My knee surgery went fine.", "I landed in Oslo at noon.", THANKS]
    assert [c.reacts for c in got.values()] == [False, False, True]
    assert got[THANKS].evidence >= 1 and got[THANKS].novel >= 1
    assert [c.part for c in got.values()] == [0, 0, 1]


def test_the_penalty_counts_against_reactions_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extract, "REACTION_PENALTY", 0.1)
    statement, thanks = (c for c in _cands(LINES) if c.turn.index == 1)
    for c in (statement, thanks):
        c.score = 0.0
    unpenalised = extract.NOVELTY_WEIGHT * math.log1p(thanks.novel) + extract.EVIDENCE_WEIGHT * thanks.evidence
    assert thanks.strength == pytest.approx(unpenalised - 0.1)
    assert statement.strength == pytest.approx(extract.NOVELTY_WEIGHT * math.log1p(statement.novel)
                                               + extract.EVIDENCE_WEIGHT * statement.evidence)


@pytest.mark.slow
def test_the_filter_keeps_a_weighed_reaction_by_its_strength_less_the_penalty(real_embedder,
                                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extract, "REACTION_PENALTY", 0.0)
    monkeypatch.setattr(extract, "STATEMENT_THRESHOLD", -10.0)
    assert THANKS in kept(real_embedder, LINES)
    monkeypatch.setattr(extract, "REACTION_PENALTY", 20.0)  # more than any score of the head can make up
    still = kept(real_embedder, LINES)
    assert THANKS not in still and "I landed in Oslo at noon." in still
