"""Conversations from other tools: one reader per input format, found by name.

``READERS`` maps a format name (what ``mnemo ingest --from NAME`` accepts) to its reader, as
``"module:function"`` relative to this package, imported only when asked for so ``mnemo --help``
does not pay for it. ``claude-code`` reads a Claude Code session transcript incrementally:
``read(path, offset) -> Transcript`` (``claude_code``); ``mnemo ingest --from claude-code`` goes
through the engine's ``capture``, which keeps the offset per file.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from ..errors import InvalidInput

READERS: dict[str, str | Callable[..., Any]] = {
    "claude-code": ".claude_code:read",
}


def register(name: str, reader: str | Callable[..., Any]) -> None:
    """Add (or replace) the reader for a format: a callable, or ``"module:function"``."""
    READERS[name] = reader


def names() -> list[str]:
    return sorted(READERS)


def reader(name: str) -> Callable[..., Any]:
    """The reader registered for ``name``; an unknown name is refused with the choices."""
    target = READERS.get(name)
    if target is None:
        raise InvalidInput(f"unknown input format {name!r}", hint=f"choose one of: {', '.join(names())}")
    if callable(target):
        return target
    module, _, func = target.partition(":")
    found: Callable[..., Any] = getattr(importlib.import_module(module, __name__), func)
    return found
