"""Editing a memory in place by id (the MCP bridge's ``update_memory``, and any surface that
wants to change a few fields without sending the whole memory back).

Only the fields given change; the rest are kept. A content change is re-embedded by
``Mnemo.update``. A promoted memory's truth is its note in the vault (design.md §1), so it is
edited there, not here: editing it through this path would make the two disagree.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .errors import InvalidInput
from .models import MAX_CONTENT_BYTES, Layer, Memory, MemoryType, Status

if TYPE_CHECKING:
    from .engine import Mnemo


def _choice(cls: type, value: str, field: str) -> Any:
    try:
        return cls(value)
    except ValueError:
        choices = ", ".join(v.value for v in cls)  # type: ignore[attr-defined]
        raise InvalidInput(f"unknown {field} {value!r}", hint=f"choose one of: {choices}") from None


def _text(value: Any, field: str) -> str | None:
    """A namespace string; an empty string clears it."""
    if not isinstance(value, str):
        raise InvalidInput(f"{field} must be a string")
    return value.strip() or None


def edit_memory(
    engine: Mnemo,
    memory_id: str,
    content: str | None = None,
    tags: Sequence[str] | None = None,
    type: str | None = None,  # noqa: A002 - the field's name everywhere else
    layer: str | None = None,
    wing: str | None = None,
    room: str | None = None,
    meta: dict[str, Any] | None = None,
) -> Memory:
    """Change the given fields of one memory. ``tags`` replaces the tag list; ``meta`` is merged
    into the existing meta (a key set to null is removed); an empty ``wing``/``room`` clears it."""
    from .engine import _tags

    m = engine.get(memory_id)
    if m.status == Status.PROMOTED:
        raise InvalidInput(
            f"memory {m.id} is promoted: its note {m.note_path or ''} in the vault is what to edit",
            hint="edit the note (mnemo follows the person's edits), or demote the memory first",
        )
    changes: dict[str, Any] = {}
    if content is not None:
        if not isinstance(content, str) or not content.strip():
            raise InvalidInput("content is empty", hint="give the new text of the memory, or leave content out")
        size = len(content.encode("utf-8", errors="surrogatepass"))
        if size > MAX_CONTENT_BYTES:
            raise InvalidInput(f"content is {size} bytes; the limit is {MAX_CONTENT_BYTES} (64 KiB)", hint="split it into several memories")
        changes["content"] = content
    if tags is not None:
        changes["tags"] = _tags(list(tags) if not isinstance(tags, str) else tags, "")
    if type is not None:
        mtype = _choice(MemoryType, type, "type")
        changes["type"] = mtype
        changes["fingerprint"] = replace(m.fingerprint, type=mtype.value)
    if layer is not None:
        changes["layer"] = _choice(Layer, layer, "layer")
    if wing is not None:
        changes["wing"] = _text(wing, "wing")
    if room is not None:
        changes["room"] = _text(room, "room")
    if meta is not None:
        if not isinstance(meta, dict):
            raise InvalidInput("meta must be a JSON object")
        merged = {**m.meta, **meta}
        merged = {k: v for k, v in merged.items() if v is not None}
        try:
            json.dumps(merged)
        except (TypeError, ValueError) as exc:
            raise InvalidInput(f"meta is not JSON-serialisable: {exc}") from None
        changes["meta"] = merged
    if not changes:
        raise InvalidInput("nothing to change", hint="give at least one of content, tags, type, layer, wing, room, meta")
    if all(getattr(m, k) == v for k, v in changes.items()):
        return m
    return engine.update(replace(m, **changes))
