"""Reader for the hand-labelled conversations in tests/labelled/ (format in its README)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).parent / "labelled"
TYPES = ("decision", "preference", "debug_log", "session_note", "fact", "chatter")
_LINE = re.compile(r"^(?:(?P<speaker>[^:+][^:]*):|\+)\s*(?P<text>.*?)\s*\[(?P<type>\w+)\](?P<tags>.*)$")


@dataclass
class Unit:
    turn: int
    text: str
    type: str
    uid: str | None = None
    causes: list[str] = field(default_factory=list)
    not_linked: list[str] = field(default_factory=list)


@dataclass
class Conversation:
    cid: str
    register: str
    turns: list[tuple[str, str]] = field(default_factory=list)  # (speaker, full turn text)
    units: list[Unit] = field(default_factory=list)

    def by_id(self) -> dict[str, Unit]:
        return {u.uid: u for u in self.units if u.uid}

    def links(self) -> list[tuple[Unit, Unit]]:
        """Gold causal links, cause -> effect."""
        ids = self.by_id()
        return [(ids[c], u) for u in self.units for c in u.causes]

    def near_misses(self) -> list[tuple[Unit, Unit]]:
        ids = self.by_id()
        return [(ids[c], u) for u in self.units for c in u.not_linked]

    def as_json_turns(self) -> list[dict[str, str]]:
        return [{"speaker": s, "text": t} for s, t in self.turns]


def parse(text: str) -> list[Conversation]:
    convs: list[Conversation] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("==="):
            cid, _, register = line[3:].strip().partition(" ")
            convs.append(Conversation(cid, register.strip()))
            continue
        m = _LINE.match(line)
        if not m or not convs:
            raise ValueError(f"bad labelled line: {raw!r}")
        conv = convs[-1]
        if m["type"] not in TYPES:
            raise ValueError(f"unknown type in {raw!r}")
        if m["speaker"] is not None:
            conv.turns.append((m["speaker"].strip(), m["text"]))
        else:
            speaker, prev = conv.turns[-1]
            conv.turns[-1] = (speaker, f"{prev} {m['text']}")
        tags = m["tags"].split()
        unit = Unit(
            turn=len(conv.turns) - 1,
            text=m["text"],
            type=m["type"],
            uid=next((t[1:] for t in tags if t.startswith("#")), None),
            causes=[t[1:] for t in tags if t.startswith("<")],
            not_linked=[t[1:] for t in tags if t.startswith("!")],
        )
        conv.units.append(unit)
    for conv in convs:
        ids = conv.by_id()
        for u in conv.units:
            for ref in u.causes + u.not_linked:
                if ref not in ids:
                    raise ValueError(f"{conv.cid}: unknown unit id {ref!r}")
    return convs


SPLITS = ("train", "train2", "train3", "train4", "test", "test2", "test3", "test4", "test5", "test6",
          "test7", "test8", "test9", "test10", "test11", "test12", "test13", "test14", "test15", "test16", "test17", "test18", "test19",
          "test20", "test21", "test22", "test23", "test24", "test25", "test26")
HELD_OUT = ("test", "test2", "test3", "test4", "test5", "test6", "test7", "test8", "test9", "test10",
            "test11", "test12", "test13", "test14", "test15", "test16", "test17", "test18", "test19", "test20",
            "test21", "test22", "test23", "test24", "test25", "test26")


def load(split: str) -> list[Conversation]:
    """``split`` is ``train``, ``train2``, ``train3`` or ``train4`` (rules are developed on these),
    ``test``, ``test2``, ``test3``, ``test4``, ``test5``, ``test6``, ``test7``, ``test8``, ``test9``, ``test10``, ``test11``, ``test12``, ``test13``, ``test14``, ``test15``, ``test16``, ``test17``, ``test18``, ``test19``, ``test20``, ``test21``, ``test22``, ``test23``, ``test24``, ``test25`` or ``test26`` (held out), or several joined by commas."""
    out: list[Conversation] = []
    for name in split.split(","):
        if name not in SPLITS:
            raise ValueError(f"unknown split {name!r}")
        out += parse((HERE / f"{name}.txt").read_text(encoding="utf-8"))
    return out


CAUSAL_RELS = frozenset({"because", "triggered", "resolves", "causes"})
_TOK = re.compile(r"[a-z0-9]+")


def _tokens(text: str) -> set[str]:
    return set(_TOK.findall(text.lower()))


def unit_of(conv: Conversation, turn: int, content: str) -> Unit | None:
    """The labelled unit a memory from ``turn`` states: the turn's unit sharing most words."""
    units = [u for u in conv.units if u.turn == turn]
    if len(units) <= 1:
        return units[0] if units else None
    words = _tokens(content)
    return max(units, key=lambda u: (len(words & _tokens(u.text)) / max(1, len(_tokens(u.text))), -units.index(u)))


@dataclass
class Score:
    units: int = 0
    statements: int = 0
    statements_kept: int = 0
    chatter: int = 0
    chatter_kept: int = 0
    typed: int = 0
    typed_right: int = 0
    memories: int = 0
    named: int = 0
    gold_links: int = 0
    links_found: int = 0
    links_made: int = 0
    links_right: int = 0
    near_misses: int = 0
    near_misses_linked: int = 0
    confusion: dict[tuple[str, str], int] = field(default_factory=dict)
    wrong_links: list[str] = field(default_factory=list)
    missed_links: list[str] = field(default_factory=list)
    mistyped: list[str] = field(default_factory=list)

    def add(self, other: Score) -> None:
        for name in ("units", "statements", "statements_kept", "chatter", "chatter_kept", "typed", "typed_right", "memories",
                     "named", "gold_links", "links_found", "links_made", "links_right", "near_misses", "near_misses_linked"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for k, v in other.confusion.items():
            self.confusion[k] = self.confusion.get(k, 0) + v
        self.wrong_links += other.wrong_links
        self.missed_links += other.missed_links
        self.mistyped += other.mistyped

    def summary(self) -> dict[str, float]:
        def ratio(a: int, b: int) -> float:
            return round(a / b, 3) if b else 0.0

        return {
            "statements_kept": ratio(self.statements_kept, self.statements),
            "chatter_kept": ratio(self.chatter_kept, self.chatter),
            "type_accuracy": ratio(self.typed_right, self.typed),
            "named_share": ratio(self.named, self.memories),
            "link_precision": ratio(self.links_right, self.links_made),
            "link_recall": ratio(self.links_found, self.gold_links),
            "near_misses_linked": ratio(self.near_misses_linked, self.near_misses),
            "links_made": self.links_made,
            "gold_links": self.gold_links,
        }


def score(conv: Conversation, memories: list[dict], links: list[tuple[str, str, str]]) -> Score:
    """``memories``: stored memories as ingest reports them (id, turn, content, type);
    ``links``: (src, dst, rel) among them."""
    s = Score(units=len(conv.units))
    unit_for: dict[str, Unit] = {}
    kept: dict[int, list[dict]] = {}
    speakers = {sp for sp, _ in conv.turns}
    for m in memories:
        u = unit_of(conv, m["turn"], m["content"])
        if u is None:
            continue
        unit_for[m["id"]] = u
        kept.setdefault(id(u), []).append(m)
        s.memories += 1
        # Not \b: a speaker label may start or end with a non-word character ("@sana",
        # "Chair (Rosa)"), where \b never matches; the label must stand apart from other words.
        s.named += any(re.search(rf"(?<!\w){re.escape(sp)}(?!\w)", m["content"]) for sp in speakers)
    for u in conv.units:
        mine = kept.get(id(u), [])
        if u.type == "chatter":
            s.chatter += 1
            s.chatter_kept += bool(mine)
            continue
        s.statements += 1
        s.statements_kept += bool(mine)
        if mine:
            s.typed += 1
            got = mine[0]["type"]
            s.typed_right += got == u.type
            s.confusion[(u.type, got)] = s.confusion.get((u.type, got), 0) + 1
            if got != u.type:
                s.mistyped.append(f"{conv.cid}: {u.type} -> {got}: {u.text}")
    gold = {frozenset((id(a), id(b))) for a, b in conv.links()}
    near = {frozenset((id(a), id(b))) for a, b in conv.near_misses()}
    made: set[frozenset[int]] = set()
    for src, dst, rel in links:
        if rel not in CAUSAL_RELS or src not in unit_for or dst not in unit_for:
            continue
        pair = frozenset((id(unit_for[src]), id(unit_for[dst])))
        if len(pair) < 2 or pair in made:
            continue
        made.add(pair)
        s.links_made += 1
        if pair in gold:
            s.links_right += 1
        else:
            s.wrong_links.append(f"{conv.cid}: {unit_for[src].text} -[{rel}]-> {unit_for[dst].text}")
    s.gold_links = len(gold)
    s.links_found = len(gold & made)
    for a, b in conv.links():
        if frozenset((id(a), id(b))) not in made:
            s.missed_links.append(f"{conv.cid}: {a.text} -> {b.text}")
    s.near_misses = len(near)
    s.near_misses_linked = len(near & made)
    return s


@contextmanager
def examples_without(engine: object, conv: Conversation) -> Iterator[None]:
    """While ``conv`` is ingested, the labelled examples (``mnemo.nlp.statement``: the train
    split's units) lack its own units, so the example vote on a train conversation is held out
    (leave one conversation out) instead of finding the very sentence it is asked about."""
    from unittest import mock

    from mnemo.nlp import statement

    embedder = engine.core.embedder  # type: ignore[attr-defined]
    full = statement.prototypes(embedder)
    mine = {u.text for u in conv.units}
    examples = statement.load_examples()
    if full is None or not mine & {t for _, t in examples}:
        yield
        return
    held = full.without(mine)
    with mock.patch.object(statement, "prototypes", lambda _embedder: held):
        yield


def evaluate(engine: object, convs: list[Conversation], start: float = 1_770_000_000.0) -> tuple[Score, list[dict]]:
    """Ingest each conversation (its own wing, turns a minute apart) into ``engine`` and score
    what was stored, the example vote held out from the conversation's own units (see
    ``examples_without``). Returns the pooled score and the stored memories per conversation."""
    import json

    total = Score()
    stored: list[dict] = []
    for n, conv in enumerate(convs):
        t0 = start + n * 86400
        turns = [{"speaker": sp, "text": tx, "timestamp": t0 + 60 * i} for i, (sp, tx) in enumerate(conv.turns)]
        with examples_without(engine, conv):
            res = engine.ingest(json.dumps(turns), format="json", wing=conv.cid, session_id=conv.cid)  # type: ignore[attr-defined]
        mems = [m for m in res["memories"] if m["created"]]
        ids = {m["id"] for m in mems}
        links = []
        for m in mems:
            for ln in engine.core.store.links_of(m["id"], direction="out"):  # type: ignore[attr-defined]
                if ln.dst in ids:
                    links.append((ln.src, ln.dst, ln.rel))
        total.add(score(conv, mems, links))
        stored.append({"conversation": conv.cid, "memories": mems, "links": links})
    return total, stored


def write_examples(path: Path | None = None) -> int:
    """Write the train split as the examples ``mnemo.nlp.statement`` learns from."""
    target = path or Path(__file__).parent.parent / "mnemo" / "nlp" / "statement_examples.txt"
    lines = ["# The train split of tests/labelled/ (hand-written, not LoCoMo), one unit a line: label<TAB>text.",
             "# Regenerate after editing tests/labelled/train.txt: python -m tests.labelled_set --examples"]
    lines += [f"{u.type}\t{u.text}" for c in load("train") for u in c.units]
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(lines) - 2


if __name__ == "__main__":
    import sys

    if "--examples" in sys.argv:
        print(write_examples(), "examples written")


def ingest_turns(engine, turns: list[tuple[str, str]], fmt: str = "json", session: str = "s") -> tuple[dict, list[dict]]:
    """Ingest hand-written ``(speaker, text)`` turns, a minute apart, as ``fmt``; the result and
    the memories it created."""
    import json

    if fmt == "json":
        text = json.dumps([{"speaker": s, "text": t, "timestamp": 1_770_000_000 + 60 * i} for i, (s, t) in enumerate(turns)])
    elif fmt == "markdown":
        text = "\n\n".join(f"**{s}:** {t}" for s, t in turns)
    else:
        text = "\n".join(f"{s}: {t}" for s, t in turns)
    res = engine.ingest(text, format=fmt, session_id=session, wing=session)
    return res, [m for m in res["memories"] if m["created"]]


def causal_pairs(engine, kept: list[dict], field: str = "turn") -> set[tuple]:
    """(cause, effect) of every causal link among ``kept``, each side by its ``field`` (its turn,
    or its content)."""
    key = {m["id"]: m[field] for m in kept}
    pairs = set()
    for m in kept:
        for ln in engine.core.store.links_of(m["id"], direction="out"):
            if ln.rel in CAUSAL_RELS and ln.dst in key:
                pairs.add((key[ln.src], key[ln.dst]))
    return pairs


def turn_links(engine, turns: list[tuple[str, str]], session: str, field: str = "type") -> tuple[dict[int, str], set[tuple[int, int]]]:
    """Ingest ``turns``; each kept turn's ``field`` (its type, or its content) and the (cause turn,
    effect turn) of each causal link."""
    _, kept = ingest_turns(engine, turns, session=session)
    return {m["turn"]: m[field] for m in kept}, causal_pairs(engine, kept)


def content_links(engine, turns: list[tuple[str, str]], session: str) -> tuple[list[dict], set[tuple[str, str]]]:
    """Ingest ``turns``; the memories kept and each causal link as (cause text, effect text)."""
    _, kept = ingest_turns(engine, turns, session=session)
    return kept, causal_pairs(engine, kept, "content")


def linked(pairs: set[tuple[str, str]], cause: str, effect: str) -> bool:
    """Whether some link's cause holds ``cause`` and its effect ``effect``."""
    return any(cause in a and effect in b for a, b in pairs)
