"""Reader for the hand-labelled conversations in tests/labelled/ (format in its README)."""

from __future__ import annotations

import re
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


def load(split: str) -> list[Conversation]:
    """``split`` is ``train`` or ``test``."""
    return parse((HERE / f"{split}.txt").read_text(encoding="utf-8"))
