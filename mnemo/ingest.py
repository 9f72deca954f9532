"""``mnemo ingest``: a conversation becomes typed, fingerprinted, linked memories.

1. Parse the conversation (``nlp.conversation``: JSON, Markdown chat, plain text).
2. Candidates by turn and sentence, chatter dropped (``nlp.extract``; spaCy ``nlp.pipe`` in
   batches), each classified (``nlp.classify``). With ``judge.url`` set, a model writes them
   per batch of turns instead, the rules taking any batch it answers unusably (``judge_extract``).
3. Each candidate as it will be stored (the speaker named, "you" resolved) is embedded once: the
   statement filter (``extract.judge``) reads its margin to the labelled chatter off that vector,
   and the write path stores the same vector.
4. Fingerprints (``nlp.fingerprint``), with a gazetteer of the speakers' names, the names found
   anywhere in this conversation and the names already in the store, so a name the model
   misses in one sentence is still found when it was recognised in another. A sentence in the
   first person from a named speaker keeps the name ("Alice: I prefer dark mode"), because
   "I" means nothing once the conversation is gone. A candidate that names nothing is dropped.
5. The write path (``pipeline.write_memories``, with the vectors of step 3): the surprise-at-write rule, with
   near-duplicates (of stored memories or of each other) reported and not stored twice; then
   the links (``graph.enrich``), each memory against the ones before it.

Every memory carries ``source = ingest`` (trust 0.5), the conversation's ``session_id`` (given,
or derived from the text so re-ingesting the same conversation lands in the same session), the
turn's timestamp when the conversation has one, and ``meta`` with the speaker, the turn, the
position in the turn and the text of the turn before (``context``: indexed for keyword search
beside the content, never shown; see ``context_before``). ``dry_run`` runs every step but the
writes and returns what would be stored and linked.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import InvalidInput
from .models import Memory
from .results import IngestReport

if TYPE_CHECKING:
    from .core import Core


SECOND_PERSON = re.compile(r"\b(?:you|your|yours|yourself|you're|you've|you'd|you'll)\b", re.I)


def addressees(turns: list[Any], speakers: set[str]) -> dict[int, str]:
    """Whom each turn speaks to: the person who spoke last before it, else the next one."""
    out: dict[int, str] = {}
    for i, t in enumerate(turns):
        if t.speaker not in speakers:
            continue
        before = (u.speaker for u in reversed(turns[:i]) if u.speaker in speakers and u.speaker != t.speaker)
        after = (u.speaker for u in turns[i + 1 :] if u.speaker in speakers and u.speaker != t.speaker)
        who = next(before, None) or next(after, None)
        if who:
            out[t.index] = who
    return out


def attributed(text: str, speaker: str | None, addressee: str | None) -> tuple[str, list[str]]:
    """The memory as it should read out of its conversation: the speaker's name in front
    ("Alice: I prefer dark mode"), and whom "you" means ("Bob (to Alice): your fix works").
    Returns the text and the people it is about (the speaker when it says "I", the addressee
    when it says "you")."""
    from .nlp.extract import FIRST_PERSON

    if not speaker:
        return text, []
    about = [speaker] if FIRST_PERSON.search(text) else []
    you = addressee if addressee and SECOND_PERSON.search(text) else None
    if you:
        about.append(you)
    if text.startswith(speaker) and not you:
        return text, about
    return (f"{speaker} (to {you}): {text}" if you else f"{speaker}: {text}"), about


CONTEXT_CHARS = 1000  # a pasted page before a turn is not its context; its opening is enough


def context_before(turns: list[Any], index: int) -> str | None:
    """The turn before turn ``index``, as the memories of that turn are indexed with it
    (``meta.context``; ``store.fts`` weighs it below the memory's own words). The question a
    turn answers holds the words a later query repeats ("What got you into pottery?" before
    "I started after my dad passed"), and a question is no statement, so it is not stored
    itself. The text only: the memory names its own speaker, and the asker's name in the
    context would lend every reply the name of whoever spoke before it."""
    if index <= 0 or index > len(turns):
        return None
    text = str(turns[index - 1].text).strip()
    return text[:CONTEXT_CHARS] or None


def _session_for(turns: list[Any]) -> str:
    h = hashlib.sha256()
    for t in turns[:200]:
        h.update(f"{t.speaker}\x00{t.text}\x00".encode())
    return "conv-" + h.hexdigest()[:12]


def ingest(
    core: Core,
    source: str | Path,
    wing: str | None = None,
    room: str | None = None,
    session_id: str | None = None,
    dry_run: bool = False,
    format: str | None = None,  # noqa: A002 - the word users know
    progress: Callable[[int], None] | None = None,
) -> IngestReport:
    """Ingest a conversation (a file path, or its text with an optional ``format`` hint:
    json, markdown or text). ``progress`` advances by 2 units per turn in all."""
    from . import judge_extract
    from . import save as pipeline
    from .graph.enrich import LinkReport, gazetteer, plan_links
    from .nlp import conversation, extract
    from .nlp.fingerprint import clean_entity, entities_of, entity_key, fingerprint_spans

    t0 = time.perf_counter()
    if not isinstance(source, str | Path) or (isinstance(source, str) and not source.strip()):
        raise InvalidInput("nothing to ingest", hint="give a conversation file, or its text")
    for key, value in (("wing", wing), ("room", room), ("session_id", session_id)):
        if value is not None and not isinstance(value, str):
            raise InvalidInput(f"{key} must be a string")
    turns, fmt, name = conversation.load(source, format)
    if not turns:
        raise InvalidInput(
            f"no conversation turns found in {name or 'the text'}",
            hint="JSON: a list of {role, content}; Markdown: **Name:** lines or ## Name headings; text: Name: lines or paragraphs",
        )
    sid = session_id or _session_for(turns)
    cands, stats = judge_extract.candidates(core, turns, progress)  # the rules' unless judge.url is set

    speakers = extract.people(t.speaker for t in turns)
    addressee = addressees(turns, speakers)
    said = [c.said if isinstance(c, judge_extract.Stated)
            else attributed(c.text, c.speaker if c.speaker in speakers else None, addressee.get(c.turn.index)) for c in cands]
    _ = core.index  # opens Chroma and checks the model before anything is embedded
    vectors = core.embedder.embed([content for content, _ in said])
    keep = judge_extract.judge(cands, vectors, [content != c.text for c, (content, _) in zip(cands, said, strict=True)],
                         core.embedder, stats)
    first_pass = {n for i in keep for n in entities_of(cands[i].spans, None)}
    gaz = gazetteer(core, extra=sorted(speakers | first_pass))
    now = core.now()
    drafts: list[tuple[Memory, bool]] = []
    stored_rows: list[int] = []
    skipped = 0
    for i in keep:
        c = cands[i]
        content, about = said[i]
        fp = fingerprint_spans(c.spans, c.text, c.type, gaz)
        for who in about:
            name_ok = clean_entity(who)
            if name_ok and entity_key(name_ok) not in {entity_key(e) for e in fp.entities}:
                fp = replace(fp, entities=(name_ok, *fp.entities))
        if not extract.substantive(c, fp.entities, fp.subjects):
            skipped += 1
            continue
        item = {
            "content": content,
            "type": c.type.value,
            "source": "ingest",
            "wing": wing,
            "room": room,
            "session_id": sid,
            "created_at": c.turn.timestamp if c.turn.timestamp is not None else now,
            "meta": {
                "speaker": c.speaker, "turn": c.turn.index, "part": c.part,
                **({"context": ctx} if (ctx := context_before(turns, c.turn.index)) else {}),
                **({"conversation": name} if name else {}), **judge_extract.meta(c),
                **({"statement": round(c.score, 4), "evidence": c.evidence, "self": c.self_refs,
                                      "novel": c.novel, **({"reacts": 1} if c.reacts else {})} if c.score != float("inf") else {}),
            },
        }
        m, _ = core.draft(item, f"turn {c.turn.index + 1}: ")
        drafts.append((replace(m, fingerprint=fp), True))
        stored_rows.append(i)
    kept_vectors = vectors[stored_rows]

    report = LinkReport()
    n_turns = len(turns)

    def write_progress(n: int) -> None:
        if progress and drafts:
            progress(max(0, round(n * n_turns / len(drafts))))

    if dry_run:
        results = _dry_run(core, drafts, kept_vectors)
        planned = plan_links(core, [r.memory for r in results if r.created], report)
        if progress:
            progress(n_turns)
    else:
        results = pipeline.write_memories(core, drafts, write_progress, enrich="given", skip_duplicates=True, report=report,
                                          vectors=kept_vectors)
        planned = []
    seconds = time.perf_counter() - t0
    kept = [r.memory for r in results if r.created]
    links = report.to_dict()
    return {
        "source": name or "text",
        "format": fmt,
        "session_id": sid,
        "dry_run": bool(dry_run),
        "turns": n_turns,
        "chatter_turns": stats.chatter_turns,
        "sentences": stats.sentences,
        "candidates": len(cands),
        "dropped": stats.dropped + skipped,
        "kept": len(kept),
        "duplicates": sum(1 for r in results if not r.created),
        "by_type": dict(Counter(m.type.value for m in kept)),
        "links": links["links"],
        "total_links": links["total"],
        "superseded": links["superseded"],
        "memories": [
            {
                "id": r.memory.id,
                "type": r.memory.type.value,
                "content": r.memory.content,
                "fingerprint": r.memory.fingerprint.to_dict(),
                "speaker": r.memory.meta.get("speaker"),
                "turn": r.memory.meta.get("turn"),
                "created": r.created,
                "duplicate_of": r.duplicate_of,
            }
            for r in results
        ],
        "planned_links": [ln.to_dict() for ln in planned],
        "seconds": round(seconds, 3),
        "turns_per_second": round(n_turns / seconds, 1) if seconds > 0 else None,
    }


def _dry_run(core: Core, drafts: list[tuple[Memory, bool]], vectors: Any) -> list[Any]:
    """What the write path would decide, without writing: the surprise rule's duplicates."""
    from . import save as pipeline
    from .models import SaveResult

    if not drafts:
        return []
    memories = [m for m, _ in drafts]
    annotated = pipeline._annotate(core, memories, vectors)
    keep = {i for i, (_, dup) in enumerate(annotated) if not dup}
    results: list[SaveResult] = pipeline._results(annotated, keep)
    return results
