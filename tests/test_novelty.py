"""What a statement adds to the conversation in the statement filter (``extract.content_words``,
``Candidate.novel``, ``NOVELTY_WEIGHT``): its nouns, names and numbers that the turns just before
did not say. Hand-written turns and the real spaCy parse (and the real MiniLM model for the
filter): behaviour, not quality (quality is scripts/eval_extract.py, held out)."""

from __future__ import annotations

import json

import pytest

from mnemo.ingest import attributed
from mnemo.nlp import conversation, extract
from mnemo.nlp.entities import nlp
from mnemo.nlp.extract import candidates, content_words

from .statement_filter import kept


def _novel(lines: list[tuple[str, str]]) -> dict[str, int]:
    turns = conversation.parse(json.dumps([{"speaker": s, "text": t} for s, t in lines]), "json")
    cands, _ = candidates(turns)
    return {c.text: c.novel for c in cands}


def test_content_words_are_the_nouns_names_and_numbers() -> None:
    words = content_words([nlp()("My two sisters moved to Lisbon in 2019 and they love the glass houses there.")])
    # Plurals folded ("sisters", "houses"), a double "s" kept ("glass"); pronouns, verbs and
    # number words that are stop words ("two") left out.
    assert words == {"sister", "lisbon", "2019", "glass", "house"}


def test_a_statement_counts_only_what_the_turns_before_did_not_say() -> None:
    novel = _novel([
        ("Ana", "We adopted a kitten from the shelter on Saturday."),
        ("Ben", "Kittens from a shelter need patience."),
        ("Ana", "The vet gave her three vaccines."),
    ])
    assert novel == {"We adopted a kitten from the shelter on Saturday.": 3,  # kitten, shelter, saturday
                     "Kittens from a shelter need patience.": 1,  # only patience is new
                     "The vet gave her three vaccines.": 2}


def test_what_was_said_longer_ago_than_the_window_is_new_again() -> None:
    fillers = [("Ben", "The harbour has ferries."), ("Ana", "The bakery opens early."), ("Ben", "The museum closed in June."),
               ("Ana", "The tram line got extended."), ("Ben", "The stadium holds thousands.")]
    assert len(fillers) == extract.NOVELTY_TURNS
    start = [("Ana", "Our kitten came from the shelter.")]
    again = ("Ben", "The shelter kitten sleeps all day.")
    assert _novel([*start, *fillers[1:], again])[again[1]] == 1  # kitten and shelter within the window: only day
    assert _novel([*start, *fillers, again])[again[1]] == 3  # five turns later they are news again


@pytest.mark.slow
def test_a_borderline_statement_is_kept_when_it_adds_something_and_dropped_when_it_echoes(
        real_embedder, monkeypatch: pytest.MonkeyPatch) -> None:
    said = "Green walls are calming."
    news = [("Ana", "We finally repainted the living room last weekend."), ("Ben", said)]
    echo = [("Ana", "We finally painted the walls green last weekend."), ("Ben", said)]
    turns = conversation.parse(json.dumps([{"speaker": s, "text": t} for s, t in news]), "json")
    cands, _ = candidates(turns)
    (c,) = [c for c in cands if c.text == said]
    assert c.novel == 1 and c.evidence == 0  # "wall" is news after the living room, not after the green walls
    vector = real_embedder.embed([attributed(said, "Ben", None)[0]])
    from mnemo.nlp import statement_head
    from mnemo.nlp.statement import prototypes

    margin = float(prototypes(real_embedder).margin(vector, named=True)[0])
    # The margin scores it (the fallback without the learned head, whose own features count the
    # new words). The threshold between the sentence's margin and its margin with one new word:
    # the new word alone decides.
    monkeypatch.setattr(statement_head, "head", lambda *_a, **_k: None)
    monkeypatch.setattr(extract, "MARGIN_THRESHOLD", margin + extract.MARGIN_NOVELTY_WEIGHT * 0.5)
    assert said in kept(real_embedder, news)
    assert said not in kept(real_embedder, echo)
    monkeypatch.setattr(extract, "MARGIN_NOVELTY_WEIGHT", 0.0)
    assert said not in kept(real_embedder, news)


def test_plurals_fold_as_the_fingerprints_fold_them() -> None:
    # fingerprint.singular: "stories" is "story", "campus" keeps its "s" (a one-letter strip
    # made "storie" and "campu", so the same things said again counted as new).
    assert content_words([nlp()("Two stories about the campus.")]) == {"story", "campus"}
    novel = _novel([("Ana", "I wrote a story about our campus."), ("Ben", "Stories about the campus sell well.")])
    assert novel["Stories about the campus sell well."] == 0
