"""Specificity (``recall/specific.py``): the arithmetic of the factor, and on a real store (real
model, SQLite, Chroma) a particular memory outranking a general one that the retrievers put first."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest

from mnemo.clock import Clock
from mnemo.engine import Mnemo
from mnemo.recall.specific import MIN_SIZE, content_words, factor, specificity, weigh_specific


def test_content_words_are_distinct_lower_case_and_no_stopwords() -> None:
    assert content_words("Melanie signed up for a pottery class, and the class was 2 hours!") == (
        "melanie", "signed", "pottery", "class", "hours")
    assert content_words("What is it?") == ()


def test_specificity_is_the_mean_share_of_the_most_information_a_word_can_carry() -> None:
    size = 100
    df = {"melanie": 50, "pottery": 1, "values": 10}
    # ln(100/50)/ln 100 = 0.1505, ln(100/1)/ln 100 = 1
    assert specificity(["melanie", "pottery"], df, size) == pytest.approx((math.log(2) / math.log(100) + 1.0) / 2)
    assert specificity(["melanie", "values"], df, size) == pytest.approx(
        (math.log(2) + math.log(10)) / 2 / math.log(100))
    # A word no memory holds counts as held by this text alone; no content word, or a store of one: left alone.
    assert specificity(["zebulon"], df, size) == 1.0
    assert specificity([], df, size) == 1.0
    assert specificity(["melanie"], df, 1) == 1.0
    # A word in every memory carries nothing.
    assert specificity(["the"], {"the": 100}, size) == 0.0


def test_factor_lowers_by_at_most_one_minus_gamma() -> None:
    assert factor(1.0, 0.7) == pytest.approx(1.0)
    assert factor(0.0, 0.7) == pytest.approx(0.3)
    assert factor(0.5, 0.7) == pytest.approx(0.65)
    assert factor(0.2, 0.0) == 1.0
    assert factor(2.0, 1.5) == 1.0 and factor(-1.0, 0.5) == 0.5  # clamped


# Memories about something else: a store needs ``MIN_SIZE`` memories before its document
# frequencies say anything.
_OTHER = [{"content": f"Inventory line {i}: one box of {w}."} for i, w in
          enumerate(["nails", "screws", "bolts", "washers", "hinges"] * 20)]


def test_a_small_store_is_left_alone(engine: Mnemo) -> None:
    engine.save_many([{"content": f"Melanie values family time {i}."} for i in range(8)]
                     + [{"content": "Melanie signed up for a pottery class."}])
    assert engine.core.store.fts_size_bound("memories") < MIN_SIZE
    general, particular = C("Melanie values family time.", 0.8), C("Melanie signed up for a pottery class.", 0.6)
    weigh_specific(engine.core, [general, particular], lambda c: c.text, 0.7)
    assert (general.fused, particular.fused) == (0.8, 0.6)


@dataclass
class C:
    text: str
    fused: float
    tier: str = "stm"


def test_weigh_specific_uses_the_stores_document_frequencies(engine: Mnemo) -> None:
    engine.save_many(_OTHER + [{"content": f"Melanie values family time {i}."} for i in range(8)]
                     + [{"content": "Melanie signed up for a pottery class."}])
    general, particular = C("Melanie values family time.", 0.8), C("Melanie signed up for a pottery class.", 0.8)
    weigh_specific(engine.core, [general, particular], lambda c: c.text, 0.7)
    assert particular.fused > general.fused
    size = engine.core.store.fts_size_bound("memories")
    words = {"g": ["melanie", "values", "family", "time"], "p": ["melanie", "signed", "pottery", "class"]}
    df = engine.core.store.document_frequencies(words["g"] + words["p"], size)
    f = {k: factor(specificity(ws, df, size), 0.7) for k, ws in words.items()}
    assert particular.fused == pytest.approx(0.8 * f["p"]) and general.fused == pytest.approx(0.8 * f["g"])
    before = [general.fused, particular.fused]
    weigh_specific(engine.core, [general, particular], lambda c: c.text, 0.0)  # off: nothing moves
    assert [general.fused, particular.fused] == before


# Ten general memories make their words common in the store; the query's one content word
# ("weekend") is held by a general memory and a particular one.
FILLERS = [f"Caroline enjoys {x} and loves it." for x in
           ("reading", "music", "friends", "cooking", "walks", "art", "coffee", "films", "talks", "family")]
GENERAL = "Caroline enjoys the weekend and loves it."
PARTICULAR = "Caroline spent the weekend repairing a vintage Gibson guitar in Nashville."


def _ranked(m: Mnemo, query: str, gamma: float) -> list[str]:
    m.settings.recall.specificity = gamma
    return [h.content for h in m.recall(query, k=4, touch=False)]


def test_a_note_passage_beside_a_small_vault_is_weighed_against_the_memories(engine: Mnemo) -> None:
    """A vault of a few passages would make every word of one look rare: its passages are
    weighed against the memories instead, as a memory with the same words is."""
    engine.save_many(_OTHER + [{"content": f"Melanie values family time {i}."} for i in range(8)])
    memory, passage = C("Melanie values family time.", 0.8), C("Melanie values family time.", 0.8, tier="ltm")
    weigh_specific(engine.core, [memory, passage], lambda c: c.text, 0.7)
    assert memory.fused < 0.8 and passage.fused == pytest.approx(memory.fused)


@pytest.mark.parametrize("query", ["What did Caroline do at the weekend?", "How did Caroline spend the weekend?"])
def test_a_particular_memory_outranks_a_general_one(real_engine: Mnemo, clock: Clock, query: str) -> None:
    real_engine.save_many(_OTHER)
    for text in [*FILLERS, GENERAL, PARTICULAR]:
        clock.advance(7200)  # saved apart: no conversation neighbours
        real_engine.save_many([{"content": text}])
    # Both retrievers put the short general memory first (it shares the word and little else).
    assert _ranked(real_engine, query, 0.0)[:2] == [GENERAL, PARTICULAR]
    assert _ranked(real_engine, query, 0.7)[:2] == [PARTICULAR, GENERAL]
