"""Conversation histories from other tools: one reader per format, found by name.

A reader turns an export (a file or a folder) into a stream of ``Conversation`` objects, one
at a time, so an export of hundreds of megabytes is never held in memory. An entry it cannot
read becomes a ``Skipped`` with the reason, never an exception: one broken conversation does
not stop the rest. ``ingest_export`` (``sources.run``) feeds each conversation to the core as
a session of its own and skips those a previous run finished.

Readers are registered by name as ``"module:function"`` and imported only when asked for, so
``mnemo --help`` does not pay for them. A new format is a module in this package with a
``read(path, seen=None) -> Iterator[Conversation | Skipped]`` (calling ``seen(bytes read, total
bytes)`` as it goes, for the progress bar) and one line in ``READERS`` (or a call to
``register``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InvalidInput

USER, ASSISTANT = "user", "assistant"


@dataclass(frozen=True)
class Message:
    """One turn kept from an export: who spoke (``user`` or ``assistant``), the words, when."""

    role: str
    text: str
    timestamp: float | None = None


@dataclass(frozen=True)
class Conversation:
    """One conversation of an export. ``id`` is the export's own id (it becomes the session
    id); ``updated_at`` lets a later export of a conversation that went on be ingested again."""

    id: str
    title: str | None
    messages: tuple[Message, ...]
    created_at: float | None = None
    updated_at: float | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def last_at(self) -> float | None:
        """When the conversation was last active (its update time, else its latest message)."""
        times = [t for t in (self.updated_at, self.created_at, *(m.timestamp for m in self.messages)) if t is not None]
        return max(times) if times else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "meta": self.meta,
            "messages": [{"role": m.role, "text": m.text, "timestamp": m.timestamp} for m in self.messages],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Conversation:
        """The inverse of ``to_dict`` (what the daemon receives), checked: bad input is refused."""
        if not isinstance(data, dict) or not isinstance(data.get("id"), str) or not data["id"].strip():
            raise InvalidInput("a conversation needs a non-empty string id")
        raw = data.get("messages")
        if not isinstance(raw, list):
            raise InvalidInput(f"conversation {data['id']}: messages must be a list")
        messages = []
        for n, m in enumerate(raw, start=1):
            if not isinstance(m, dict) or m.get("role") not in (USER, ASSISTANT) or not isinstance(m.get("text"), str):
                raise InvalidInput(f"conversation {data['id']}: message {n} needs a role (user or assistant) and a text")
            ts = m.get("timestamp")
            messages.append(Message(m["role"], m["text"], float(ts) if isinstance(ts, int | float) else None))
        title = data.get("title")
        meta = data.get("meta")
        return cls(
            id=data["id"],
            title=title if isinstance(title, str) else None,
            messages=tuple(messages),
            created_at=_num(data.get("created_at")),
            updated_at=_num(data.get("updated_at")),
            meta=meta if isinstance(meta, dict) else {},
        )


@dataclass(frozen=True)
class Skipped:
    """An entry of the export that could not be read: where it is and why."""

    where: str
    reason: str


# seen(bytes of the export read so far, its size in bytes): how a reader reports progress.
Seen = Callable[[int, int], None]
Reader = Callable[[Path, Seen | None], Iterator[Conversation | Skipped]]

# format name -> "module:function" (relative to this package), imported on first use.
READERS: dict[str, str | Reader] = {
    "chatgpt": ".chatgpt:read",
    "claude": ".claude:read",
    # A Claude Code session transcript as one conversation. `mnemo ingest --from claude-code` and
    # the client hooks read it incrementally instead (``claude_code.read`` through ``capture``).
    "claude-code": ".claude_code:conversations",
}


def register(name: str, reader: str | Reader) -> None:
    """Add (or replace) the reader for a format: a callable, or ``"module:function"``."""
    READERS[name] = reader


def names() -> list[str]:
    return sorted(READERS)


def reader(name: str) -> Reader:
    """The reader registered for ``name``; an unknown name is refused with the choices."""
    target = READERS.get(name)
    if target is None:
        raise InvalidInput(f"unknown export format {name!r}", hint=f"choose one of: {', '.join(names())}")
    if callable(target):
        return target
    module, _, func = target.partition(":")
    found: Reader = getattr(importlib.import_module(module, __name__), func)
    return found


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
