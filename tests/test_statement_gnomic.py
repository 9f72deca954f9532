"""A platitude is a reaction, not a statement (issue #16): "Gardening is a great way to unwind",
"Grandparents are so wise" evaluate things in general, a generic subject (a bare noun, "a" noun
or a gerund) with "is / are / can be" and an evaluation, and say nothing that happened to anyone
or that anyone has. The parse read them as statements (no "that / this / your" to mark them) and
the head kept most of them. A sentence about one's own or a named thing, at a time, negated or
closing a report stays a statement. Hand-written sentences, the real spaCy parse (and the real
MiniLM model and head for the filter): behaviour, not quality (quality is
scripts/eval_extract.py held out and scripts/eval_labelled.py)."""

from __future__ import annotations

import pytest

from mnemo.nlp.entities import nlp
from mnemo.nlp.statement import reaction

from .statement_filter import kept


def _reaction(text: str) -> bool:
    return reaction(next(iter(nlp()(text).sents)))


@pytest.mark.parametrize("text", [
    "Gardening is a great way to unwind after work.",
    "Grandparents are so wise about these things.",
    "Cooking for friends can be stressful but rewarding.",
    "A warm bath is key.",
    "Learning an instrument is such a rewarding experience.",
])
def test_a_platitude_is_a_reaction(text: str) -> None:
    assert _reaction(text)


@pytest.mark.parametrize("text", [
    "My sister is a nurse in Leeds.",  # the speaker's own
    "Heating oil is expensive this winter.",  # at a time
    "The fix is solid now.",  # a state now
    "Backups aren't encrypted.",  # a finding
    "Renewed the certificate manually, propagation is underway.",  # an evaluation closing a report
    "db-03 is the oldest box in the rack.",  # a thing of one's own, named
    "Cats make me sneeze.",  # not an evaluation
])
def test_a_statement_in_the_same_frame_is_not(text: str) -> None:
    assert not _reaction(text)


@pytest.mark.slow
@pytest.mark.parametrize("platitude", ["Gardening is a great way to unwind after work.", "Grandparents are so wise about these things."])
def test_the_filter_drops_the_platitude_and_keeps_the_news(real_embedder, platitude: str) -> None:
    news = "I started pottery classes at the community centre last month."
    got = kept(real_embedder, [("Ida", news), ("Tom", platitude)])
    assert got == [news], got  # the twelfth round's filter kept both
