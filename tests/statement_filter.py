"""What the statement filter keeps of a hand-written conversation, judged as ingest judges it
(shared by the tests of its signals: the self count, the novelty count), and the first
sentence of a text as the parse reads it."""

from __future__ import annotations

import json
from typing import Any

from mnemo.ingest import attributed
from mnemo.nlp import conversation
from mnemo.nlp.entities import nlp
from mnemo.nlp.extract import candidates, judge


def kept(real_embedder: Any, lines: list[tuple[str, str]]) -> list[str]:
    """The texts of the candidates kept from ``lines`` (speaker, text), in order."""
    turns = conversation.parse(json.dumps([{"speaker": s, "text": t} for s, t in lines]), "json")
    cands, _ = candidates(turns)
    said = [attributed(c.text, c.speaker, None)[0] for c in cands]
    vectors = real_embedder.embed(said)
    return [cands[i].text for i in judge(cands, vectors, [s != c.text for s, c in zip(said, cands, strict=True)], real_embedder)]


def first_sentence(text: str) -> Any:
    """The parse's first sentence of ``text`` (spaCy), as the statement signals read it."""
    return next(iter(nlp()(text).sents))
