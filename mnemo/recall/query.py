"""What a query asks for: its intent (BM25/vector weights), an exact phrase, and the words
worth matching with BM25.

Why a stopword-aware keyword query: FTS5 ranks an OR of every query word. Function words
("what", "did", "the", "of") match most memories, so a question drags in hundreds of weak
matches whose BM25 scores crowd out the one memory sharing its rare words, and each extra OR
term makes FTS5 score more rows (slower on a big store). Dropping them leaves the content words
that carry the question. A query made only of stopwords keeps its words (nothing else to match).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import InvalidInput
from .fusion import INTENT_WEIGHTS
from .when import TimeSpan, parse_when, strip_expression

_WORD = re.compile(r"\w+", re.UNICODE)

# English function words: pronouns, auxiliaries, articles, prepositions, conjunctions and
# question words. Deliberately short: content words (even common ones) stay.
_STOPWORD_TEXT = """
    a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing done down during each either else
    few for from further had has have having he her here hers herself him himself his how i if
    in into is it its itself just me might more most must my myself neither no nor not of off on
    once only or other ought our ours ourselves out over own same shall she should so some such
    than that the their theirs them themselves then there these they this those through to too
    under until up upon us very was we were what whatever when where whether which while who
    whom whose why will with within without would you your yours yourself yourselves
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


@dataclass(frozen=True)
class Query:
    text: str  # the query as given, trimmed
    semantic: str  # what is embedded (quotes removed)
    keywords: str  # what BM25 matches: content words, or the phrase
    phrase: bool  # an exact phrase in double quotes: BM25 must match it as a phrase
    intent: str
    w_bm25: float
    w_vector: float
    span: TimeSpan | None = None  # the time the query names (when.py), if any and if asked for


def keyword_text(text: str, stopwords: bool = True) -> str:
    """The words of ``text`` minus stopwords, in order, deduplicated (all words if every one
    is a stopword, or if ``stopwords`` is off)."""
    words = [w.lower() for w in _WORD.findall(text)]
    keep = ([w for w in words if w not in STOPWORDS] if stopwords else words) or words
    return " ".join(dict.fromkeys(keep))


def _quoted(text: str) -> str | None:
    if len(text) > 2 and text[0] == text[-1] == '"' and '"' not in text[1:-1]:
        inner = text[1:-1].strip()
        return inner or None
    return None


def parse_query(query: str, intent: str | None, default_intent: str, stopwords: bool = True,
                now: float | None = None, relative: bool = True) -> Query:
    """An explicit intent wins; a query wrapped in double quotes is an exact-phrase search and
    behaves like the ``exact`` intent unless another intent is asked for. With ``now`` the
    query's time expression is read (``when.parse_when``) and left out of the keywords; with
    ``relative`` False only an absolute one (a date, a month, a year): "last year" stays words."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidInput("the query is empty", hint="say what to recall")
    text = query.strip()
    if intent is not None and intent not in INTENT_WEIGHTS:
        raise InvalidInput(f"unknown intent {intent!r}", hint=f"choose one of: {', '.join(INTENT_WEIGHTS)}")
    if default_intent not in INTENT_WEIGHTS:
        raise InvalidInput(f"unknown recall.intent {default_intent!r}", hint=f"choose one of: {', '.join(INTENT_WEIGHTS)}")
    phrase = _quoted(text)
    chosen = intent or ("exact" if phrase else default_intent)
    w_bm25, w_vec = INTENT_WEIGHTS[chosen]
    if phrase:
        return Query(text, phrase, phrase, True, chosen, w_bm25, w_vec)
    span = parse_when(text, now) if now is not None else None
    if span is not None and not span.absolute and not relative:
        span = None
    keywords = keyword_text(strip_expression(text, span), stopwords) if span else ""
    return Query(text, text, keywords or keyword_text(text, stopwords), False, chosen, w_bm25, w_vec, span)
