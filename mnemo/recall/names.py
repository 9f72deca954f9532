"""Query understanding for names: a question that names someone ("What did Caroline research?")
is about the memories that name them.

**The names of a query** are its capitalised words (a possessive "'s" dropped) that are neither
function words ("What", "When", "Did": ``query.STOPWORDS``) nor calendar words or generic
acronyms ("May", "Monday", "I": ``nlp.fingerprint.GENERIC_ENTITIES``), and that the store holds
(a word no memory contains is no one this store knows). No model runs on the query.

**Why.** Distilled memories and ingested turns name their subject ("Caroline attended ...",
"Caroline: I went ..."), and an assistant's memories name the people they are about. Two things
go wrong without this step. The embedding of a short question is dominated by the name it holds,
so every memory about that person looks alike to the dense side and the rest of the question
("research") weighs little. And a memory about someone else that shares the rest of the question
("Melanie researched ...") ranks beside the right one. So, when the query names someone the
store knows and ``recall.name_boost`` = β > 0:

1. the dense side embeds the query **without the names** ("What did research?"): it matches
   what is asked, not who it is asked about (``strip_names``); BM25 keeps every word. Only a
   name held by more memories than ``recall.name_strip_min`` (50, the number of candidates the
   dense side returns) is taken out (``to_strip``): such a name cannot single out its memories
   among the candidates, it only makes them all look alike. A name fewer memories hold (a
   place, a pet, a title: "What did Jon see in Paris?") is the question's most telling word,
   and the embedding keeps it;
2. each candidate that names none of the held names (the query's names that at least one
   candidate holds, case-sensitively: "Rose" the person, not "rose" the flower) has its
   relevance lowered::

       fused(d) ← fused(d) / (1 + β)        if d names none of the held names
       fused(d) unchanged                    otherwise

A soft penalty, never a filter: a memory that answers without the name ("She researched
adoption agencies") keeps its place when its relevance is clearly ahead. Relevance only falls,
so the pipeline's bound on what can still reach the head stays exact when divided by 1 + β.

Not applied to an exact phrase, nor to a note searched with its own vector (the related pane: a
document, where every capitalised word would count as a name). A name the store has never seen
changes nothing: it is not stripped and no candidate holds it.
(A word the store holds only in lower case, "rose", is stripped from the dense query but
penalises nothing, since no candidate holds it capitalised.)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Protocol, TypeVar

from ..nlp.fingerprint import GENERIC_ENTITIES
from .query import STOPWORDS

if TYPE_CHECKING:
    from ..core import Core

_WORD = re.compile(r"[^\W\d_][\w'’-]*", re.UNICODE)
_POSSESSIVE = re.compile(r"(?:'s|’s|'|’)$")


def query_names(text: str) -> list[str]:
    """The capitalised words of ``text`` that may be names, in order, without repeats."""
    out: dict[str, None] = {}
    for m in _WORD.finditer(text):
        word = _POSSESSIVE.sub("", m.group(0))
        low = word.lower()
        if len(word) < 2 or not word[0].isupper() or low in STOPWORDS or low in GENERIC_ENTITIES:
            continue
        out.setdefault(word, None)
    return list(out)


@lru_cache(maxsize=256)
def _pattern(name: str) -> re.Pattern[str]:
    # Case-sensitive on purpose (the module docstring); a possessive or a hyphen does not hide it.
    return re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w])")


@lru_cache(maxsize=256)
def _spoken(name: str) -> re.Pattern[str]:
    # The name as the query says it (case-sensitive), its possessive included ("Caroline's").
    return re.compile(rf"(?<![\w-]){re.escape(name)}(?:'s|’s|'|’)?(?!\w)")


def names_in(text: str, names: Sequence[str]) -> set[str]:
    """Which of ``names`` ``text`` holds as whole words ("Caroline's" holds "Caroline")."""
    return {n for n in names if _pattern(n).search(text)}


def strip_names(text: str, names: Sequence[str]) -> str:
    """``text`` without ``names`` (and their possessive), single-spaced; ``text`` itself if
    nothing would be left."""
    out = text
    for n in names:
        out = _spoken(n).sub(" ", out)
    out = " ".join(out.split())
    return out if re.search(r"\w", out) else text


def to_strip(held: Mapping[str, int], least: int) -> list[str]:
    """The names of ``held`` (name → how many memories hold it) held by more than ``least``
    memories: the ones the dense side embeds the query without (the module docstring, 1)."""
    return [n for n, count in held.items() if count > least]


def known_names(core: Core, names: Sequence[str]) -> list[str]:
    """The ``names`` that some memory or note passage of the store holds (as a word, in any
    case: FTS5's vocabulary, a cached lookup per word)."""
    return list(held_by(core, names))


def held_by(core: Core, names: Sequence[str]) -> dict[str, int]:
    """The ``names`` that some memory or note passage of the store holds, each with how many
    texts of the first table that holds it (memories, else note passages) hold it."""
    left = list(names)
    held: dict[str, int] = {}
    for table in ("memories", "chunks"):
        if not left or (table == "chunks" and not core.store.has_chunks()):
            break
        size = core.store.fts_size_bound(table)
        if size > 0:
            df = core.store.document_frequencies([n.lower() for n in left], size, table)
            held.update((n, df[n.lower()]) for n in left if df.get(n.lower(), 0) > 0)
            left = [n for n in left if n not in held]
    return {n: held[n] for n in names if n in held}


class _Named(Protocol):
    fused: float


N = TypeVar("N", bound=_Named)


def boost_names(cands: Sequence[N], text_of: Callable[[N], str], names: Sequence[str], weight: float) -> list[str]:
    """Step 2 of the module docstring, in place; returns the held names (empty: nothing
    changed)."""
    if weight <= 0 or not names or not cands:
        return []
    found = [names_in(text_of(c), names) for c in cands]
    held = [n for n in names if any(n in f for f in found)]
    if not held:
        return []
    for c, f in zip(cands, found, strict=True):
        if not f:
            c.fused /= 1.0 + weight
    return held
