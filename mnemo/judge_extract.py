"""Extraction asked of a language model, with the rules as the fallback.

When ``judge.url`` names an OpenAI-compatible endpoint (and ``judge.extract`` is on), ingest
sends the conversation in batches of consecutive turns, numbered, one request per batch, and
asks which turns state something worth remembering: each as a self-contained statement that
names who said or did it, with one of mnemo's types and the turn numbers it comes from. The
answer must be a JSON object of exactly that shape; anything else (not JSON, a turn number the
batch does not have, an unknown type, an empty statement) and that batch's turns go through the
rules (``nlp.extract``) instead, logged, nothing of the answer kept. When the endpoint fails,
``HttpJudge`` rests it for a minute, so the batches in that minute go to the rules unasked.

Statements from the model skip the statement filter (the model chose them) but not what follows
(fingerprints, the write path's duplicates, the links). A statement still in the first or second
person gets the speaker's name in front, as the rules' memories do.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .models import MemoryType
from .nlp.extract import FIRST_PERSON, Candidate, ExtractStats

if TYPE_CHECKING:
    from .core import Core
    from .judge import HttpJudge
    from .nlp.conversation import Turn

log = logging.getLogger(__name__)

# A request's size, besides the ``judge.extract_batch`` turns: about 2,000 tokens of turns, so
# prompt and answer fit a 4k context window. Not a quality constant: nothing was tuned on it.
BATCH_CHARS = 8000
MAX_TOKENS = 2048
MAX_STATEMENT_CHARS = 600  # as long as the rules let a sentence be (extract.MAX_SENTENCE_CHARS)
TYPES = tuple(t.value for t in MemoryType)

SYSTEM = (
    "You pick the long-term memories in a conversation. The turns are numbered, each with its speaker. "
    "Keep what is worth finding again months later: facts about the people (their lives, work, plans, "
    "events, possessions, relations), decisions, preferences, problems and their fixes. Leave out greetings, "
    "thanks, compliments, reactions, small talk, questions, and suggestions nobody took up.\n"
    "Write each memory as one self-contained statement in the third person that names who said or did it: "
    "the speaker's name instead of I, me or my, and the name of the person spoken to instead of you. "
    "Keep a cause with what it caused in one statement. One memory per thing stated; join a turn's "
    "fragments that state one thing.\n"
    "Types: decision (a choice made: chose, decided, moved, switched, will use), preference (a lasting "
    "like, dislike or habit: always, usually, prefers, can't stand), debug_log (a software or system "
    "error, its cause or its fix), session_note (what was done or planned in a working session), fact "
    "(anything else).\n"
    'Answer with JSON only: {"memories": [{"turns": [turn numbers it comes from], "type": "...", '
    '"text": "..."}]}. If nothing is worth keeping: {"memories": []}.'
)

_FENCED = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.S)
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|yourself|you're|you've|you'd|you'll)\b", re.I)


class Unusable(ValueError):
    """The model's answer does not have the shape asked for."""


@dataclass
class Stated(Candidate):
    """A memory the model wrote. ``turns``: the 0-based turns it cites (``turn`` is the first);
    ``said``: its text as stored and the people it is about, as ``ingest.attributed`` gives."""

    turns: tuple[int, ...] = ()
    said: tuple[str, list[str]] = ("", [])


def batches(turns: Sequence[Turn], size: int) -> Iterator[list[Turn]]:
    """Consecutive turns, at most ``size`` and about ``BATCH_CHARS`` of text per batch."""
    batch: list[Turn] = []
    chars = 0
    for t in turns:
        n = len(t.text) + len(t.speaker or "") + 8
        if batch and (len(batch) >= max(1, size) or chars + n > BATCH_CHARS):
            yield batch
            batch, chars = [], 0
        batch.append(t)
        chars += n
    if batch:
        yield batch


def prompt(batch: Sequence[Turn]) -> str:
    """The turns as the model reads them: ``[n] Speaker: text``, n the 1-based turn number."""
    names = sorted({t.speaker for t in batch if t.speaker})
    lines = [f"Speakers: {', '.join(names)}." if names else "The speakers are not named.", "Turns:"]
    for t in batch:
        text = " ".join(t.text.split())
        lines.append(f"[{t.index + 1}] {t.speaker or 'Someone'}: {text}")
    return "\n".join(lines)


def parse(answer: str, numbers: set[int]) -> list[tuple[tuple[int, ...], MemoryType, str]]:
    """The statements in the model's answer as (1-based turn numbers, type, text); raises
    ``Unusable`` unless every part of the answer has the shape asked for. A single fenced
    block around the JSON is allowed: local models add one even when asked not to."""
    body = answer.strip()
    fenced = _FENCED.match(body)
    if fenced:
        body = fenced.group(1)
    try:
        data = json.loads(body)
    except ValueError as exc:
        raise Unusable(f"not JSON ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("memories"), list):
        raise Unusable('not an object with a "memories" list')
    out: list[tuple[tuple[int, ...], MemoryType, str]] = []
    for k, item in enumerate(data["memories"]):
        if not isinstance(item, dict):
            raise Unusable(f"memory {k} is not an object")
        cites, kind, text = item.get("turns"), item.get("type"), item.get("text")
        if not isinstance(cites, list) or not cites or not all(type(n) is int for n in cites):
            raise Unusable(f"memory {k}: turns must be a non-empty list of turn numbers")
        unknown = sorted(set(cites) - numbers)
        if unknown:
            raise Unusable(f"memory {k} cites turns not in the batch: {unknown}")
        if kind not in TYPES:
            raise Unusable(f"memory {k}: type {kind!r} is not one of {', '.join(TYPES)}")
        if not isinstance(text, str) or len(re.findall(r"[A-Za-z]\w*", text)) < 2 or len(text) > MAX_STATEMENT_CHARS:
            raise Unusable(f"memory {k}: text must be a statement of at most {MAX_STATEMENT_CHARS} characters")
        out.append((tuple(sorted(set(cites))), MemoryType(kind), " ".join(text.split())))
    return out


def ask(judge: HttpJudge, batch: Sequence[Turn], timeout: float) -> list[tuple[tuple[int, ...], MemoryType, str]] | None:
    """The model's statements for one batch, or None when the rules must extract it."""
    span = f"turns {batch[0].index + 1}-{batch[-1].index + 1}"
    answer = judge.ask(SYSTEM, prompt(batch), max_tokens=MAX_TOKENS, timeout=timeout, json_answer=True)
    if answer is None:
        log.warning("model extraction of %s: no answer from %s; the rules extract them", span, judge.url)
        return None
    try:
        return parse(answer, {t.index + 1 for t in batch})
    except Unusable as exc:
        log.warning("model extraction of %s unusable (%s); the rules extract them", span, exc)
        return None


def stated(batch: Sequence[Turn], found: Sequence[tuple[tuple[int, ...], MemoryType, str]],
           speakers: set[str], addressee: dict[int, str]) -> list[Candidate]:
    """The model's statements as candidates, parsed by spaCy for their fingerprints, in the
    order of the turns they cite first."""
    from .ingest import attributed
    from .nlp.entities import nlp

    by_index = {t.index: t for t in batch}
    ordered = sorted(found, key=lambda f: f[0][0])
    docs = list(nlp().pipe(text for _, _, text in ordered))
    out: list[Candidate] = []
    part: dict[int, int] = {}
    for (cites, kind, text), doc in zip(ordered, docs, strict=True):
        turn = by_index[cites[0] - 1]
        speaker = turn.speaker if turn.speaker in speakers else None
        if FIRST_PERSON.search(text) or _SECOND_PERSON.search(text):
            said = attributed(text, speaker, addressee.get(turn.index))
        else:
            said = (text, [s for s in sorted(speakers) if re.search(rf"\b{re.escape(s)}\b", text)])
        n = part[turn.index] = part.get(turn.index, -1) + 1
        out.append(Stated(turn, n, text, kind, list(doc.sents), [text], turns=tuple(c - 1 for c in cites), said=said))
    return out


def candidates(core: Core, turns: Sequence[Turn], progress: Callable[[int], None] | None = None
               ) -> tuple[list[Candidate], ExtractStats]:
    """Ingest's candidates: the model's for each batch it answers usably, the rules' for the
    rest; only the rules' when no endpoint is configured."""
    from .ingest import addressees
    from .judge import HttpJudge, make_judge
    from .nlp import extract

    cfg = core.settings.judge
    judge = make_judge(core.settings) if cfg.url and cfg.extract else None
    if not isinstance(judge, HttpJudge):
        return extract.candidates(turns, progress=progress)
    speakers = extract.people(t.speaker for t in turns)
    addressee = addressees(list(turns), speakers)
    out: list[Candidate] = []
    stats = ExtractStats(turns=len(turns))
    for batch in batches(turns, cfg.extract_batch):
        # A turn longer than a whole batch (a pasted log, a long answer) is the rules' to split.
        found = ask(judge, batch, cfg.extract_timeout) if len(batch) > 1 or len(batch[0].text) <= BATCH_CHARS else None
        if found is None:
            cands, ruled = extract.candidates(batch, progress=progress)
            stats.chatter_turns += ruled.chatter_turns
            stats.sentences += ruled.sentences
            stats.dropped += ruled.dropped
        else:
            cands = stated(batch, found, speakers, addressee)
            cited = {n for c in cands if isinstance(c, Stated) for n in c.turns}
            stats.dropped += sum(1 for t in batch if t.index not in cited)  # a turn the model kept nothing from
            if progress:
                progress(len(batch))
        out.extend(cands)
    return out, stats


def judge(cands: Sequence[Candidate], vectors: Any, named: Sequence[bool], embedder: Any,
          stats: ExtractStats | None = None) -> list[int]:
    """``extract.judge`` (the statement filter) on the rules' candidates; the model's are kept."""
    import numpy as np

    from .nlp import extract

    ruled = [i for i, c in enumerate(cands) if not isinstance(c, Stated)]
    if len(ruled) == len(cands):
        return extract.judge(cands, vectors, named, embedder, stats)
    rows = np.asarray(vectors)[ruled] if ruled else np.asarray(vectors)[:0]
    kept = extract.judge([cands[i] for i in ruled], rows, [named[i] for i in ruled], embedder, stats) if ruled else []
    return sorted({ruled[j] for j in kept} | {i for i, c in enumerate(cands) if isinstance(c, Stated)})


def meta(c: Candidate) -> dict[str, Any]:
    """What a model's memory adds to ``meta``: every turn it cites, and that the model wrote it."""
    if isinstance(c, Stated):
        return {"turns": list(c.turns), "extractor": "model"}
    return {}
