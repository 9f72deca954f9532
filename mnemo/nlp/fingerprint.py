"""T1, the fingerprint (Go MIRA seed): what a memory says, in structured form.

- **entities**: named things. spaCy's small English model misses or mislabels many of the
  names people type in technical chat ("MySQL to PostgreSQL" comes back as a DATE), so its NER
  (the labels of ``entities.ENTITY_LABELS``) is joined by three cheap rules: runs of capitalised
  proper nouns, tokens that can only be names (``PostgreSQL``, ``RabbitMQ``, ``EC2``,
  ``Node.js``, ``test_utils.py``) and a gazetteer of names already known (speakers, names seen
  elsewhere in the same batch or in the store), matched case-sensitively. Generic acronyms
  (API, CI, UI ...) and calendar words are never entities: sharing them says nothing.
- **subjects**: the noun phrases the memory is about ("connection pool", "dark mode"), without
  determiners, pronouns or generic nouns ("issue", "thing", "time" ...), lower-cased and
  singular. A single generic word is never a subject: graph rules must not link two memories
  because both say "the problem".
- **decision**, **rejected**, **reasons**: from the decision patterns of the seed and the
  causal cues ("because", "due to", "instead of", "rather than", "ruled out" ...), where the
  text states them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..models import Fingerprint, MemoryType
from .entities import ENTITY_LABELS

MAX_SUBJECTS = 6
MAX_ENTITIES = 12

# Words that look like names but say nothing when two memories share them.
GENERIC_ENTITIES = frozenset(
    ["api", "apis", "ui", "ux", "ci", "cd", "db", "dbs", "url", "urls", "id", "ids", "ok", "okay", "pr", "prs", "ai", "os", "io", "it", "am", "pm", "tbh", "imo", "fyi", "asap", "eta", "faq", "todo", "wip", "tl;dr", "cpu", "gpu", "ram", "ssd", "http", "https", "rest", "sdk", "cli", "gui", "ide", "qa", "dev", "devs", "ops", "prod", "staging", "i", "me", "you", "we", "he", "she", "they", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december", "today", "tomorrow", "yesterday", "thanks", "thank", "hi", "hello", "hey", "yes", "no", "sure", "please", "cheers", "great", "cool", "nice", "user", "assistant", "human", "bot"]
)
# Nouns too common to say what a memory is about.
GENERIC_NOUNS = frozenset(
    ["thing", "things", "stuff", "time", "times", "way", "ways", "issue", "issues", "problem", "problems", "question", "questions", "idea", "ideas", "lot", "lots", "bit", "part", "point", "case", "kind", "sort", "type", "place", "day", "days", "week", "weeks", "month", "months", "year", "years", "today", "tomorrow", "yesterday", "morning", "afternoon", "evening", "night", "minute", "minutes", "hour", "hours", "second", "seconds", "moment", "people", "person", "team", "guy", "guys", "everyone", "someone", "something", "anything", "nothing", "everything", "one", "ones", "work", "job", "task", "tasks", "fact", "reason", "result", "results", "example", "option", "options", "choice", "decision", "plan", "note", "notes", "meeting", "call", "chat", "conversation", "discussion", "update", "change", "changes", "version", "end", "start", "number", "name", "word", "words", "line", "lines", "help", "sense", "step", "steps", "front", "back", "top", "bottom", "middle", "mind", "look", "use", "need", "side", "area", "level", "project", "code", "bit", "answer", "rest", "while"]
)
GENERIC_ADJECTIVES = frozenset(
    ["new", "old", "good", "bad", "better", "best", "worse", "worst", "big", "small", "first", "last", "next", "other", "same", "different", "current", "main", "whole", "great", "nice", "little", "few", "many", "several", "more", "most", "own", "real", "actual", "certain", "whole", "quick"]
)
_SKIP_IN_NAMES = frozenset({"thanks", "thank", "hi", "hello", "hey", "dear", "ok", "okay", "yes", "no", "sure", "please", "cheers"})
_NAMEISH = re.compile(
    r"^(?:[A-Za-z][a-z0-9]*[A-Z][A-Za-z0-9]*"  # internal capital: MySQL, PostgreSQL, iOS, FastAPI
    r"|[A-Z][A-Z0-9]{2,}[a-z]?"  # acronym of 3+: AWS, JSONB, GCP
    r"|[A-Za-z]+\d+[A-Za-z0-9]*|[A-Z]\d+"  # with digits: EC2, S3, Python3
    r"|[A-Z][a-z]+\.(?:io|ai|dev|app|com|net|org)"  # Fly.io
    r"|[A-Za-z][\w-]*\.(?:js|ts|py|go|rs|rb|java|toml|ya?ml|json|sql|sh|md|cfg|ini|lock|txt)"  # Node.js, files
    r")$"
)


def entity_key(name: str) -> str:
    """The identity of an entity: case-folded, single-spaced, without a leading article."""
    key = " ".join(name.casefold().split())
    return key[4:] if key.startswith("the ") else key


def clean_entity(text: str) -> str | None:
    name = text.strip().strip(".,;:!?\"'()[]{}`*")
    name = re.sub(r"^(?:the|a|an|our|my|their|his|her)\s+", "", name, flags=re.I)
    name = re.sub(r"(?:'s|’s)$", "", name).strip()
    if len(name) < 2 or name.isdigit() or not re.search(r"[A-Za-z]", name):
        return None
    if entity_key(name) in GENERIC_ENTITIES or all(w in GENERIC_ENTITIES for w in entity_key(name).split()):
        return None
    if len(name) > 60 or len(name.split()) > 5:
        return None
    return name


def singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is", "os")):
        return word[:-1]
    return word


class Gazetteer:
    """Known names, matched case-sensitively as runs of one to four tokens."""

    def __init__(self, names: Iterable[str] = ()) -> None:
        self.names: dict[str, str] = {}
        for n in names:
            self.add(n)

    def add(self, name: str) -> None:
        name = name.strip()
        if name and clean_entity(name) == name:
            self.names.setdefault(name, name)

    def __len__(self) -> int:
        return len(self.names)

    def find(self, tokens: Sequence[str]) -> list[str]:
        if not self.names:
            return []
        out = []
        for i in range(len(tokens)):
            for n in (4, 3, 2, 1):
                if i + n > len(tokens):
                    continue
                cand = " ".join(tokens[i : i + n])
                if cand in self.names:
                    out.append(self.names[cand])
                    break
        return out


def entities_of(spans: Sequence[Any], gazetteer: Gazetteer | None) -> list[str]:
    out: dict[str, str] = {}

    def add(text: str) -> None:
        name = clean_entity(text)
        if name:
            out.setdefault(entity_key(name), name)

    for span in spans:
        covered: set[int] = set()
        for ent in span.ents:
            if ent.label_ in ENTITY_LABELS:
                # The small model sometimes swallows a greeting into a name ("Thanks Alice").
                words = [t for t in ent if t.lower_ not in _SKIP_IN_NAMES]
                if words:
                    add(" ".join(t.text for t in words))
                    covered.update(t.i for t in ent)
        run: list[str] = []
        for tok in span:
            nameish = bool(_NAMEISH.match(tok.text))
            propn = tok.pos_ == "PROPN" and tok.text[:1].isupper() and tok.lower_ not in _SKIP_IN_NAMES
            if tok.i in covered:
                nameish = propn = False
            if nameish and not (propn and run):
                if run:
                    add(" ".join(run))
                    run = []
                add(tok.text)
            elif propn:
                run.append(tok.text)
            else:
                if run:
                    add(" ".join(run))
                run = []
        if run:
            add(" ".join(run))
        if gazetteer:
            for name in gazetteer.find([t.text for t in span]):
                add(name)
    return list(out.values())[:MAX_ENTITIES]


def _subjects(spans: Sequence[Any], entity_keys: set[str]) -> list[str]:
    out: dict[str, None] = {}
    for span in spans:
        try:
            chunks = list(span.noun_chunks)
        except (ValueError, AttributeError):  # no parser in the pipeline
            chunks = []
        for chunk in chunks:
            root = chunk.root
            if root.pos_ == "PRON":
                continue
            words = []
            for tok in chunk:
                if tok.pos_ in ("NOUN", "PROPN") or (tok.pos_ == "ADJ" and tok.i < root.i and tok.lower_ not in GENERIC_ADJECTIVES):
                    words.append(singular(tok.lower_) if tok.pos_ == "NOUN" else tok.lower_)
            words = [w for w in words if re.search(r"[a-z]", w) and w not in _SKIP_IN_NAMES and w not in ("am", "pm")]
            if not words:
                continue
            phrase = " ".join(words)
            if entity_key(phrase) in entity_keys or phrase in GENERIC_ENTITIES:
                continue  # an entity on its own is already in ``entities``
            if len(words) == 1 and (words[0] in GENERIC_NOUNS or len(words[0]) < 3):
                continue
            if all(w in GENERIC_NOUNS or w in GENERIC_ENTITIES for w in words):
                continue
            out.setdefault(phrase, None)
    return list(out)[:MAX_SUBJECTS]


# -- decision, rejected alternatives, reasons ------------------------------------------------
_STOP = r"(?=[.;!?](?:\s|$)|\n|,\s*(?:but|because|since|as|so|which|and we)\b|\s+(?:because|since|due to|as it|as they|instead of|rather than|so that|over\s+(?=[A-Z]))\b|$)"
DECISION_OBJECT = [
    re.compile(rf"\b(?:decision|choice|verdict|resolution)\s*:\s*(?P<obj>.+?){_STOP}", re.I),
    re.compile(rf"\b(?:decided|agreed)\s+(?P<neg>not\s+to\s+|against\s+)?(?:to\s+|on\s+)?(?P<obj>.+?){_STOP}", re.I),
    re.compile(rf"\b(?:chose|chosen|selected|opted for|picked(?!\s+up)|went with|settled on|going with|go with|sticking with|stick with)\s+(?P<obj>.+?){_STOP}", re.I),
    re.compile(rf"\b(?:will|shall|'ll|’ll|are going to|let'?s|let’s|should|opted to)\s+(?P<obj>(?:use|adopt|migrate to|switch to|move to|keep|drop|add|build|deploy|run|write|stick with|go with|take)\b.+?){_STOP}", re.I),
    re.compile(rf"\b(?P<obj>(?:switched|migrated|moved)\s+.+?){_STOP}", re.I),
]
_ALT_STOP = r"(?=[.;!?](?:\s|$)|\n|,\s|\s+(?:to|with|for|because|since|in favou?r of|and then|but|on|at|in)\b|$)"
REJECTED = [
    re.compile(rf"\b(?:instead of|rather than|ruled out|rejected|decided against|moving away from|moved away from|abandoned|dropped|dropping)\s+(?:using\s+|the\s+)?(?P<alt>.+?){_ALT_STOP}", re.I),
    re.compile(rf"\b(?:migrat(?:e|ed|ing)|switch(?:ed|ing)?|mov(?:e|ed|ing))\s+(?:\w+\s+){{0,3}}?(?:away\s+)?from\s+(?P<alt>.+?){_ALT_STOP}", re.I),
    re.compile(r"\breplac(?:e|ed|ing)\s+(?P<alt>.+?)\s+(?:with|by)\b", re.I),
    re.compile(rf"\b(?:chose|choose|prefer|prefers|preferred|picked|went with|use|using)\s+[A-Z][\w.+#-]*(?:\s+[A-Z][\w.+#-]*)?\s+over\s+(?P<alt>[A-Z].*?){_ALT_STOP}"),
    re.compile(r"(?P<alt>\b[A-Z][\w.+#-]*)\s+(?:was|were|is|got|has been)\s+(?:rejected|ruled out|dropped)\b"),
    re.compile(r"\bdecided\s+not\s+to\s+(?:use|adopt|go with|keep)\s+(?P<alt>[A-Za-z][\w.+#-]*(?:\s+[A-Z][\w.+#-]*)?)"),
    re.compile(r",\s*not\s+(?P<alt>[A-Z][\w.+#-]*)\b"),
]
REASON = re.compile(
    r"\b(?:because(?:\s+of)?|since|due to|as a result of|given that|thanks to|owing to|so that|the reason (?:is|was)(?: that)?)\s+(?P<why>.+?)(?=[.;!?](?:\s|$)|\n|$)",
    re.I,
)
_TEMPORAL_SINCE = re.compile(r"^(?:then|last|the (?:last|first|previous|latest)|yesterday|today|monday|tuesday|wednesday|thursday|friday|saturday|sunday|\d|the (?:start|beginning|morning)|early|this|january|february|march|april|may|june|july|august|september|october|november|december)\b", re.I)


def _tidy(text: str, limit: int = 160) -> str:
    text = " ".join(text.split()).strip(" ,;:-\"'“”")
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text[:1].upper() + text[1:] if text else text


def decision_of(text: str) -> tuple[str | None, list[str]]:
    """(decision, alternatives the decision itself rules out: "decided against X")."""
    for p in DECISION_OBJECT:
        m = p.search(text)
        if m:
            obj = _tidy(m.group("obj"))
            if not obj:
                continue
            neg = m.groupdict().get("neg")
            if neg:
                return _tidy(f"{neg.strip()} {m.group('obj')}"), []
            return obj, []
    return None, []


def rejected_of(text: str) -> list[str]:
    out: dict[str, str] = {}
    for p in REJECTED:
        for m in p.finditer(text):
            for alt in re.split(r",|\s+(?:and|or|nor)\s+|/", m.group("alt")):
                alt = re.sub(r"^(?:the|a|an|using|our|old)\s+", "", alt.strip(), flags=re.I).strip(" .,'\"")
                if alt and len(alt.split()) <= 4 and len(alt) <= 60 and alt.lower() not in GENERIC_NOUNS:
                    out.setdefault(alt.lower(), alt)
    return list(out.values())[:5]


def reasons_of(text: str) -> list[str]:
    out: dict[str, str] = {}
    for m in REASON.finditer(text):
        cue = m.group(0)[: m.start("why") - m.start()].strip().lower()
        why = re.split(r",\s*(?:but|so|and then|we|i|they|he|she|it|you|the team|our)\b", m.group("why"), flags=re.I)[0]
        if not text[: m.start()].strip(" \t\n\"'*-:"):
            why = why.split(",")[0]  # "Because of X, we did Y": the reason ends at the comma
        if cue == "since" and _TEMPORAL_SINCE.match(why.strip()):
            continue
        if len(why.split()) >= 2 or (why.strip()[:1].isupper() and len(why.strip()) > 2):
            why = _tidy(why, 200)
            out.setdefault(why.lower(), why)
    return list(out.values())[:4]


def fingerprint_spans(
    spans: Sequence[Any], text: str, mtype: MemoryType, gazetteer: Gazetteer | None = None
) -> Fingerprint:
    """The fingerprint of ``text``, parsed by spaCy into ``spans`` (sentences or a whole doc)."""
    entities = entities_of(spans, gazetteer)
    keys = {entity_key(e) for e in entities}
    subjects = _subjects(spans, keys)
    decision, rejected = (decision_of(text) if mtype == MemoryType.DECISION else (None, []))
    rejected = list(dict.fromkeys([*rejected, *(rejected_of(text) if mtype in (MemoryType.DECISION, MemoryType.PREFERENCE) else [])]))
    return Fingerprint(
        type=mtype.value,
        entities=tuple(entities),
        subjects=tuple(subjects),
        decision=decision,
        rejected=tuple(rejected),
        reasons=tuple(reasons_of(text)),
    )


def fingerprint_texts(
    texts: Sequence[str], types: Sequence[MemoryType], gazetteer: Gazetteer | None = None, batch_size: int = 64
) -> list[Fingerprint]:
    """Fingerprints for many texts, parsed with ``nlp.pipe`` in batches."""
    from .entities import nlp

    model = nlp()
    docs = model.pipe((t[:20000] for t in texts), batch_size=batch_size)
    return [fingerprint_spans([doc[:]], text, mtype, gazetteer) for doc, text, mtype in zip(docs, texts, types, strict=True)]


def known_names(entities_by_memory: Mapping[str, Iterable[str]] | Iterable[Iterable[str]]) -> Gazetteer:
    values = entities_by_memory.values() if isinstance(entities_by_memory, Mapping) else entities_by_memory
    return Gazetteer(n for names in values for n in names)
