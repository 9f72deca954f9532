"""The statement filter and the single embedding per memory, with the real MiniLM model and spaCy."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from mnemo.clock import Clock
from mnemo.config import load_settings
from mnemo.engine import Mnemo
from mnemo.nlp import conversation
from mnemo.nlp.entities import nlp
from mnemo.nlp.extract import candidates
from mnemo.nlp.statement import PROTOTYPES, evidence, load_examples, prototypes

pytestmark = pytest.mark.slow


class Counting:
    """The real embedder, counting the texts it is asked to embed."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name, self.dim = inner.name, inner.dim
        self.texts: list[str] = []

    @property
    def model_hash(self) -> str:
        return str(self.inner.model_hash)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.texts.extend(texts)
        return np.asarray(self.inner.embed(texts))

    def embed_query(self, text: str) -> np.ndarray:
        return np.asarray(self.inner.embed_query(text))


TURNS = [
    ("Ana", "Hey Ben! I started a pottery class at the community center last week. The teacher is a retired architect."),
    ("Ben", "That's awesome, I'm so happy for you! You deserve it."),
    ("Ana", "We moved the team offsite to Lisbon because the Berlin venue cancelled. Thanks for asking!"),
    ("Ben", "Your support really means a lot. Keep it up!"),
    ("Ana", "My brother broke his arm skiing in January, so he is off work until March."),
]


def test_each_memory_is_embedded_once_and_stored_with_that_vector(home, real_embedder) -> None:
    counting = Counting(real_embedder)
    protos = prototypes(counting)
    assert protos is not None
    for named in (False, True):  # the examples, embedded once per embedder and form, before the count starts
        protos.margin(np.zeros((1, counting.dim), dtype=np.float32), named=named)
    counting.texts.clear()
    text = json.dumps([{"speaker": s, "text": t, "timestamp": 1_770_000_000 + 60 * i} for i, (s, t) in enumerate(TURNS)])
    with Mnemo(load_settings(home=home), clock=Clock(1_770_001_000.0), embedder=counting) as m:
        res = m.ingest(text, format="json", session_id="s")
        kept = [r for r in res["memories"] if r["created"]]
        assert kept
        # One text per candidate (the memory as stored), not its sentences and then the memory again.
        assert len(counting.texts) == res["candidates"] == len(set(counting.texts))
        assert {r["content"] for r in kept} <= set(counting.texts)
        stored = m.core.index.get_vectors("memories", [r["id"] for r in kept])
        for r in kept:
            expected = np.asarray(real_embedder.embed([r["content"]]))[0]
            assert float(stored[r["id"]] @ expected) > 0.9999


def test_reactions_and_praise_are_dropped_and_reports_of_life_kept(real_engine) -> None:
    text = json.dumps([{"speaker": s, "text": t, "timestamp": 1_770_000_000 + 60 * i} for i, (s, t) in enumerate(TURNS)])
    res = real_engine.ingest(text, format="json", session_id="s")
    kept: dict[int, list[str]] = {}
    for r in res["memories"]:
        if r["created"]:
            kept.setdefault(r["turn"], []).append(r["content"])
    assert sorted(kept) == [0, 2, 4], kept
    assert kept[0][0].startswith("Ana: I started a pottery class")
    assert not any("Thanks for asking" in c for c in kept[2])


def test_evidence_counts_what_a_report_carries() -> None:
    def ev(text: str) -> int:
        return evidence(next(iter(nlp()(text).sents)))

    assert ev("I joined a choir in Leeds last month.") == 4  # speaker as subject, time, place, past
    assert ev("My sister lives in Oslo.") == 2  # the speaker's own, a place
    assert ev("Wow, John, that is so cool!") == 0  # a name of a person is not evidence
    assert ev("Hard work always pays off.") == 0
    assert ev("Haha, what a week.") == 0  # no verb: nothing is reported
    assert ev("Lunch was nice today.") == 0  # an evaluation of something not the speaker's
    assert ev("My knee was sore yesterday.") == 2  # the speaker's own, a time


def test_prototypes_are_hand_written_and_balanced() -> None:
    written = load_examples(PROTOTYPES)
    labels = [label for label, _ in written]
    assert set(labels) == {"statement", "chatter"}
    assert abs(labels.count("statement") - labels.count("chatter")) <= 10
    assert len({t for _, t in written}) == len(written)


def test_candidates_carry_their_evidence() -> None:
    turns = conversation.parse("Ana: I adopted a dog in May. It is a beagle.\nBen: Cool, enjoy!", "text")
    cands, _ = candidates(turns)
    assert [c.text for c in cands] == ["I adopted a dog in May. It is a beagle."]
    assert cands[0].evidence == 3


@pytest.mark.parametrize("text", ["Haha, what a week.", "Wow, what a weekend!", "Ugh, Monday again."])
def test_a_fragment_with_a_time_is_a_reaction(text: str) -> None:
    from mnemo.nlp.statement import reaction

    assert reaction(next(iter(nlp()(text).sents)))
