"""Time expressions in a query: "in May 2023", "on 7 July, 2023", "last year", "the week before
August 3, 2023" → the span of time the question is about.

Why: a question that names a time asks about what happened then, and every memory carries the
time it was said (``created_at``) or the time it is about (``event_at``). Neither BM25 nor the
embedding can use that: to them "August" and "2023" are rare words that match the few memories
that happen to spell a month out, not the ones said in August. So the expression is taken out
of the keyword query, and memories dated inside the span get a boost (``recall.time_boost``):

    fused'(d) = fused(d) · (1 + β · closeness(d)) / (1 + β)          β = recall.time_boost
    closeness(d) = 1 inside [start, end + LAG], falling as exp(−days outside / SPREAD)

(the division keeps relevance in [0, 1]: a memory inside the span keeps its score, the others
lose up to β / (1 + β) of theirs; it changes no order).

``LAG``: people tell of an event after it happened (a week's catch-up is the usual rhythm of a
conversation), so a memory dated up to a week after the span still counts fully. ``SPREAD`` is
the width of the fall-off outside: a week.

Relative expressions ("yesterday", "last month", "two weeks ago") are read against the clock
(``now``, the core's clock), so they are tested with a fixed one. Only the first expression
counts; a query without one is left as it is.

**The dated ranking** (``scope_time``, ``recall.time_scope`` = φ). The boost can only reorder
what BM25 and the embedding found, and the memory that answers "What news did Maria share on 16
June, 2023?" ("Maria joined a gym") shares neither words nor much meaning with the question:
what it shares is the date. So when the query names an *absolute* span (a date, a calendar
month, a year: ``TimeSpan.absolute``), the memories said in [start, end + LAG] are read from the
store (at most ``SCOPE_LIMIT``: a span holding more singles out no moment, and nothing is
added), ranked by the cosine of their stored vectors to the query's among themselves, and fused
in as one more ranking, weighing φ × the intent's vector weight (φ = 2: chosen on the
leave-one-out grid among 1 / 2 / 3; a memory said on the day a question names is worth more than
its words' or meaning's match with it, which is weak for news told that day)::

    fused'(d) = [fused(d) + φ · w_vector · minmax_span(cos(q, d))] / (1 + φ · w_vector)

(the division keeps relevance in [0, 1], as the keyword feedback does). A memory of the span
passes the relevance floor by its date. Relative expressions ("last year") are left to the
boost and otherwise stay words of the query: in a question about a conversation they usually
repeat what was said then ("the camping trip last year"), and the clock's reading of them is the
question's, not the memory's.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    from ..core import Core
    from ..index.filters import Filters
    from .candidates import Pool
    from .query import Query

DAY = 86400.0
LAG = 7 * DAY
SPREAD = 7 * DAY

_MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4, "may": 5,
    "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9, "sep": 9, "sept": 9,
    "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}
_MONTH = r"(?P<month>january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
_DAYN = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "couple of": 2, "few": 3}
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}

# Absolute forms, most specific first. "May" alone is only a month after "in/last/this/of"
# (it is also a verb).
_ABSOLUTE = [
    ("day", re.compile(rf"\b{_DAYN}(?:\s+of)?\s+{_MONTH},?\s+{_YEAR}\b", re.I)),
    ("day", re.compile(rf"\b{_MONTH}\s+{_DAYN},?\s+{_YEAR}\b", re.I)),
    ("day", re.compile(r"\b(?P<year>(?:19|20)\d\d)-(?P<monthn>[01]\d)-(?P<day>[0-3]\d)\b")),
    ("month", re.compile(rf"\b{_MONTH},?\s+(?:of\s+)?{_YEAR}\b", re.I)),
    ("year", re.compile(rf"\b(?:in|of|during|since|around|by)\s+(?:the\s+year\s+)?{_YEAR}\b", re.I)),
    ("bare_month", re.compile(rf"\b(?P<rel>in|last|this|next|of|during|early|late|mid)\s+(?:-\s*)?{_MONTH}\b(?!\s*\d)", re.I)),
    ("bare_year", re.compile(rf"\b{_YEAR}\b")),
]
_BEFORE = re.compile(r"\b(?:(?:the|last)\s+)?(?:(?P<n>a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+|a couple of|a few)\s+)?"
                     r"(?P<unit>day|week|weekend|month|year)s?\s+(?P<dir>before|after)\s*$", re.I)
_RELATIVE = [
    ("yesterday", re.compile(r"\byesterday\b", re.I)),
    ("today", re.compile(r"\b(?:today|tonight|this morning|this evening)\b", re.I)),
    ("ago", re.compile(r"\b(?P<n>a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+|a couple of|a few)\s+"
                       r"(?P<unit>day|week|month|year)s?\s+ago\b", re.I)),
    ("last", re.compile(r"\b(?P<rel>last|past|previous|this)\s+(?P<unit>weekend|week|month|year)\b", re.I)),
]


@dataclass(frozen=True)
class TimeSpan:
    start: float  # UNIX seconds, inclusive
    end: float  # UNIX seconds, exclusive
    text: str  # the expression as written in the query
    absolute: bool = True  # names a calendar date, month or year (not counted back from now)

    def closeness(self, at: float | None) -> float:
        """1 inside [start, end + LAG]; exp(−distance / SPREAD) outside; 0 without a time."""
        if at is None:
            return 0.0
        if at < self.start:
            gap = self.start - at
        elif at > self.end + LAG:
            gap = at - (self.end + LAG)
        else:
            return 1.0
        return math.exp(-gap / SPREAD)


def _utc(ts: float) -> datetime:
    return datetime.fromtimestamp(ts, tz=UTC)


def _span(a: datetime, b: datetime, text: str) -> TimeSpan:
    return TimeSpan(a.timestamp(), b.timestamp(), text)


def _relative_span(a: datetime, b: datetime, text: str) -> TimeSpan:
    return TimeSpan(a.timestamp(), b.timestamp(), text, absolute=False)


def _month_span(year: int, month: int, text: str) -> TimeSpan:
    a = datetime(year, month, 1, tzinfo=UTC)
    b = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
    return _span(a, b, text)


def _count(word: str | None) -> int:
    if not word:
        return 1
    w = word.lower()
    if w.isdigit():
        return max(1, min(int(w), 1000))
    return _NUMBERS.get(w.replace("a ", "", 1) if w.startswith("a ") and w != "a" else w, 1)


def _absolute(text: str, now: datetime) -> tuple[TimeSpan, re.Match[str]] | None:
    for kind, pattern in _ABSOLUTE:
        m = pattern.search(text)
        if m is None:
            continue
        g = m.groupdict()
        try:
            if kind == "day":
                month = int(g["monthn"]) if g.get("monthn") else _MONTHS[g["month"].lower().rstrip(".")]
                a = datetime(int(g["year"]), month, int(g["day"]), tzinfo=UTC)
                return _span(a, a + timedelta(days=1), m.group(0)), m
            if kind == "month":
                return _month_span(int(g["year"]), _MONTHS[g["month"].lower().rstrip(".")], m.group(0)), m
            if kind in ("year", "bare_year"):
                y = int(g["year"])
                return _span(datetime(y, 1, 1, tzinfo=UTC), datetime(y + 1, 1, 1, tzinfo=UTC), m.group(0)), m
            if kind == "bare_month":
                month = _MONTHS[g["month"].lower().rstrip(".")]
                rel = g["rel"].lower()
                year = now.year
                if rel == "next":
                    year += month <= now.month
                elif rel == "last":
                    year -= month >= now.month  # "last May" in May is a year ago
                elif rel != "this":
                    year -= month > now.month  # the latest such month so far
                return _month_span(year, month, m.group(0)), m
        except (ValueError, KeyError):  # "31 February": not a date
            continue
    return None


def _relative(text: str, now: datetime) -> TimeSpan | None:
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    for kind, pattern in _RELATIVE:
        m = pattern.search(text)
        if m is None:
            continue
        said = m.group(0)
        if kind == "yesterday":
            return _relative_span(today - timedelta(days=1), today, said)
        if kind == "today":
            return _relative_span(today, today + timedelta(days=1), said)
        if kind == "ago":
            days = _count(m.group("n")) * _UNIT_DAYS[m.group("unit").lower()]
            at = today - timedelta(days=days)
            half = timedelta(days=max(1, days // 4))  # "two weeks ago" is not to the day
            return _relative_span(at - half, at + half + timedelta(days=1), said)
        rel, unit = m.group("rel").lower(), m.group("unit").lower()
        if unit in ("week", "weekend"):
            monday = today - timedelta(days=today.weekday())
            start = monday if rel == "this" else monday - timedelta(days=7)
            if unit == "weekend":
                start += timedelta(days=5)
                return _relative_span(start, start + timedelta(days=2), said)
            return _relative_span(start, start + timedelta(days=7), said)
        if unit == "month":
            if rel == "this":
                return replace(_month_span(now.year, now.month, said), absolute=False)
            y, mo = (now.year, now.month - 1) if now.month > 1 else (now.year - 1, 12)
            return replace(_month_span(y, mo, said), absolute=False)
        y = now.year if rel == "this" else now.year - 1
        return _relative_span(datetime(y, 1, 1, tzinfo=UTC), datetime(y + 1, 1, 1, tzinfo=UTC), said)
    return None


def parse_when(text: str, now: float) -> TimeSpan | None:
    """The span the first time expression of ``text`` names, read against ``now``; None if it
    names none. A date preceded by "the week before" (or "two days after", …) is the span that
    far before (or after) it."""
    when = _utc(now)
    found = _absolute(text, when)
    if found is not None:
        span, m = found
        lead = _BEFORE.search(text[: m.start()])
        if lead is not None:
            unit = lead.group("unit").lower()
            days = _count(lead.group("n")) * (7 if unit == "weekend" else _UNIT_DAYS[unit])
            if lead.group("dir").lower() == "before":
                return TimeSpan(span.start - days * DAY, span.start, lead.group(0) + m.group(0))
            return TimeSpan(span.end, span.end + days * DAY, lead.group(0) + m.group(0))
        m2 = re.search(r"\bbefore\s*$", text[: m.start()], re.I)
        if m2 is not None:  # "before August 3": the fortnight before it
            return TimeSpan(span.start - 14 * DAY, span.start, m2.group(0) + m.group(0))
        return span
    return _relative(text, when)


def strip_expression(text: str, span: TimeSpan | None) -> str:
    """``text`` without the time expression (the rest is what the keywords should match)."""
    if span is None or not span.text:
        return text
    i = text.find(span.text)
    if i < 0:
        return text
    return (text[:i] + " " + text[i + len(span.text):]).strip()


class _Timed(Protocol):
    fused: float
    at: float | None


def boost_time(cands: Iterable[_Timed], span: TimeSpan, weight: float) -> None:
    """``fused · (1 + β · closeness) / (1 + β)`` for each candidate (the module docstring), in place."""
    if weight <= 0:
        return
    for c in cands:
        c.fused *= (1.0 + weight * span.closeness(c.at)) / (1.0 + weight)


SCOPE_LIMIT = 100  # memories read from a span at most; a span holding more singles out no moment


def scope_time(core: Core, pool: Pool, q: Query, filters: Filters, qvec: Any, weight: float) -> int:
    """The dated ranking of the module docstring, fused into the pool in place: the memories
    said in [start, end + LAG] of the absolute span the query names, ranked by the cosine of
    their stored vectors to the query's, join as candidates; returns how many were ranked."""
    span = q.span
    if weight <= 0 or span is None or not span.absolute or q.phrase or not filters.wants_stm or qvec is None:
        return 0
    mems = core.store.recent_live_memories(span.end + LAG, span.start, SCOPE_LIMIT + 1)
    if not mems or len(mems) > SCOPE_LIMIT:
        return 0
    from .candidates import fuse_in  # here: candidates imports query, which imports this module

    mems = [m for m in mems if filters.matches(m)]
    vecs = core.index.get_vectors("memories", [m.id for m in mems])
    v = np.asarray(qvec, dtype=np.float32)
    # In a fixed order (ties by id would follow the random ids): the cosine, then the save.
    ranking = sorted(((m.id, float(vecs[m.id] @ v)) for m in mems if m.id in vecs), key=lambda kv: -kv[1])
    if not ranking:
        return 0
    rows = core.store.light_rows([i for i, _ in ranking], pool.rows)
    for c, sim in fuse_in(pool, ranking, rows, weight * q.w_vector):
        c.dated = True
        if c.sim is None:
            c.sim = sim
    return len(ranking)
