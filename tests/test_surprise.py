"""Surprise at write with the real MiniLM model (the 0.92 duplicate line is about real cosines)."""

from __future__ import annotations

import pytest

from mnemo.scoring.surprise import DUPLICATE_COSINE, MAX_BOOST, surprise_boost


def test_boost_shape() -> None:
    assert surprise_boost(DUPLICATE_COSINE) == 0.0
    assert surprise_boost(0.5) == pytest.approx(MAX_BOOST)
    assert surprise_boost(0.0) == MAX_BOOST
    assert 0 < surprise_boost(0.8) < surprise_boost(0.6) < MAX_BOOST


def test_near_duplicates_are_flagged_and_novel_memories_gain(real_engine) -> None:
    first = real_engine.save("We decided to use PostgreSQL for the orders database.", tags=["db"])
    assert first.duplicate_of is None and first.memory.importance == pytest.approx(0.8)  # nothing stored yet: +0.3

    dup = real_engine.save("We decided to use PostgreSQL for the orders database!", tags=["db"])
    assert dup.duplicate_of == first.memory.id  # reported by save, not silently stored twice
    assert dup.memory.duplicate_of == first.memory.id
    assert dup.memory.importance == pytest.approx(0.3) and dup.memory.surprise < 1 - DUPLICATE_COSINE

    related = real_engine.save("The orders database runs on PostgreSQL 16 in eu-west-1.", tags=["db"])
    novel = real_engine.save("My daughter's piano recital is on the 14th at 6pm.", tags=["family"])
    assert related.duplicate_of is None and novel.duplicate_of is None
    assert 0.5 < related.memory.importance < novel.memory.importance <= 0.8
    assert novel.memory.surprise > related.memory.surprise
    ex = real_engine.explain(dup.memory.id)
    assert ex["importance_factors"]["base"] == pytest.approx(2 * (0.3 - 0.5))  # the penalty reaches importance
