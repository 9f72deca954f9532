"""Names in queries (recall/names.py): which words of a query are names, the penalty for memories
that name no one the query names, and that a name the store has never seen changes nothing."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mnemo.clock import Clock
from mnemo.config import load_settings
from mnemo.engine import Mnemo
from mnemo.nlp.embedder import HashEmbedder
from mnemo.recall.names import boost_names, held_by, known_names, names_in, query_names, strip_names, to_strip


@pytest.mark.parametrize(("query", "names"), [
    ("What did Caroline research?", ["Caroline"]),
    ("What is Caroline's identity?", ["Caroline"]),
    ("When Jon has lost his job as a banker?", ["Jon"]),
    ("How do Jon and Gina both like to destress?", ["Jon", "Gina"]),
    # Calendar words and function words are no names, wherever they stand.
    ("Who did Maria have dinner with on May 3, 2023?", ["Maria"]),
    ("When did I see Maria on Monday? Did Maria call?", ["Maria"]),
    ("what did she research last year?", []),
    ("Caroline’s painting", ["Caroline"]),
])
def test_query_names(query: str, names: list[str]) -> None:
    assert query_names(query) == names


def test_strip_names_leaves_the_question() -> None:
    assert strip_names("What did Caroline research?", ["Caroline"]) == "What did research?"
    assert strip_names("What is Caroline's identity?", ["Caroline"]) == "What is identity?"
    assert strip_names("How do Jon and Gina relax?", ["Jon", "Gina"]) == "How do and relax?"
    # A name inside another word stays; a query that is only the name is kept whole.
    assert strip_names("Jonathan met Jon", ["Jon"]) == "Jonathan met"
    assert strip_names("Caroline?", ["Caroline"]) == "Caroline?"


def test_names_in_is_case_sensitive_and_whole_word() -> None:
    assert names_in("Caroline's necklace", ["Caroline"]) == {"Caroline"}
    assert names_in("a rose garden", ["Rose"]) == set()
    assert names_in("Jonathan's dog", ["Jon"]) == set()
    assert names_in("Jon: I lost my job", ["Jon", "Gina"]) == {"Jon"}


@dataclass
class C:
    text: str
    fused: float


def test_boost_names_arithmetic() -> None:
    cands = [C("Melanie researched adoption agencies.", 0.9), C("Caroline researched adoption.", 0.6),
             C("She read about it.", 0.3)]
    held = boost_names(cands, lambda c: c.text, ["Caroline"], 1.0)
    assert held == ["Caroline"]
    # Divided by 1 + beta when naming none of the held names; unchanged when naming one.
    assert [c.fused for c in cands] == pytest.approx([0.45, 0.6, 0.15])
    cands = [C("Jon danced.", 0.8), C("Gina sold shoes.", 0.5), C("Nobody here.", 0.4)]
    assert boost_names(cands, lambda c: c.text, ["Jon", "Gina"], 0.5) == ["Jon", "Gina"]
    assert [c.fused for c in cands] == pytest.approx([0.8, 0.5, 0.4 / 1.5])


def test_boost_names_changes_nothing_without_a_held_name() -> None:
    cands = [C("Melanie painted.", 0.9), C("a rose garden", 0.5)]
    # No candidate holds the name (or only in lower case): nothing moves.
    assert boost_names(cands, lambda c: c.text, ["Zebulon", "Rose"], 1.0) == []
    assert [c.fused for c in cands] == [0.9, 0.5]
    assert boost_names(cands, lambda c: c.text, ["Melanie"], 0.0) == []
    assert [c.fused for c in cands] == [0.9, 0.5]


def test_known_names_are_the_words_the_store_holds(engine: Mnemo) -> None:
    engine.save_many([{"content": "Caroline went hiking with her friends."}, {"content": "The rose garden bloomed."}])
    assert known_names(engine.core, ["Caroline", "Zebulon", "Rose"]) == ["Caroline", "Rose"]
    assert known_names(engine.core, []) == []


def test_only_a_name_many_memories_hold_is_stripped(engine: Mnemo) -> None:
    engine.save_many([{"content": f"Caroline went out on day {i}."} for i in range(60)]
                     + [{"content": "Caroline hiked in Oregon."}])
    held = held_by(engine.core, ["Caroline", "Oregon", "Zebulon"])
    assert held == {"Caroline": 61, "Oregon": 1}
    assert to_strip(held, 50) == ["Caroline"]
    assert to_strip(held, 0) == ["Caroline", "Oregon"]
    assert to_strip(held, 61) == []


class Recording(HashEmbedder):
    """The hash embedder, keeping the texts it embedded as queries."""

    def __init__(self, dim: int) -> None:
        super().__init__(dim)
        self.asked: list[str] = []

    def embed_query(self, text: str) -> Any:
        self.asked.append(text)
        return super().embed_query(text)


def test_the_dense_query_keeps_a_name_few_memories_hold(home: Path, clock: Clock) -> None:
    """A person most memories name is taken out of the embedded question; a place only one
    memory names is the question's most telling word and stays in it."""
    embedder = Recording(64)
    settings = load_settings(home=home, overrides={"embedding.model": "hash-64"})
    with Mnemo(settings, clock=clock, embedder=embedder) as m:
        m.save_many([{"content": f"Caroline went out on day {i}."} for i in range(60)]
                    + [{"content": "Caroline hiked in Oregon."}])
        m.recall("What did Caroline do in Oregon?", k=5, touch=False)
        assert embedder.asked[-1] == "What did do in Oregon?"
        m.settings.recall.name_strip_min = 0  # every name, as before
        m.recall("What did Caroline see in Oregon?", k=5, touch=False)
        assert embedder.asked[-1] == "What did see in ?"


FACTS = [
    "Melanie read up on how adoption works.",
    "Melanie researched adoption agencies and the adoption process for months.",
    "Caroline researched adoption agencies last week.",
    "Melanie painted a lake sunrise last year.",
    "Caroline went to a pride parade with friends.",
    "Melanie signed up for a pottery class.",
    "Caroline is thinking about a career in counseling.",
]


def _ranked(m: Mnemo, query: str, boost: float) -> list[tuple[str, float]]:
    m.settings.recall.name_boost = boost
    return [(h.content, h.score) for h in m.recall(query, k=5, touch=False)]


def test_a_question_naming_someone_finds_their_memory_first(real_engine: Mnemo) -> None:
    real_engine.save_many([{"content": f} for f in FACTS])
    q = "What did Melanie research about adoption agencies?"
    # Without the step, Caroline's memory shares the most words and wins.
    assert _ranked(real_engine, q, 0.0)[0][0].startswith("Caroline researched")
    top = _ranked(real_engine, q, 1.0)
    assert top[0][0].startswith("Melanie researched")
    assert [c for c, _ in top[:2]] == [FACTS[1], FACTS[0]]


@pytest.mark.parametrize("query", ["What did Zebulon research?", "what did she research?",
                                   '"researched adoption"'])
def test_an_unknown_name_or_no_name_changes_nothing(real_engine: Mnemo, query: str) -> None:
    real_engine.save_many([{"content": f} for f in FACTS])
    assert _ranked(real_engine, query, 1.0) == _ranked(real_engine, query, 0.0)


def test_a_note_searched_with_its_own_vector_is_left_alone(real_engine: Mnemo) -> None:
    """The related pane searches with a note's text and its stored vector: a document, not a
    question about someone, so the names step does not run (it would on the same text alone)."""
    from mnemo.recall.pipeline import recall

    real_engine.save_many([{"content": f} for f in FACTS])
    text = "What did Melanie research about adoption agencies?"
    vec = real_engine.core.embedder.embed_query(text)

    def ranked(boost: float) -> list[tuple[str, float]]:
        real_engine.settings.recall.name_boost = boost
        return [(h.content, h.score) for h in recall(real_engine.core, text, k=5, touch=False, query_vector=vec)]

    assert ranked(1.0) == ranked(0.0)
    assert _ranked(real_engine, text, 1.0) != _ranked(real_engine, text, 0.0)
