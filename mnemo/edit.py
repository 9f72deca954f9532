"""Editing a memory in place by id (the MCP bridge's ``update_memory``, and any surface that
wants to change a few fields without sending the whole memory back).

Only the fields given change; the rest are kept. A content change is re-embedded by
``Core.update``. A promoted memory's truth is its note in the vault (design.md §1), so it is
edited there, not here: editing it through this path would make the two disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from . import inputs
from .errors import InvalidInput
from .models import Layer, Memory, MemoryType, Status

if TYPE_CHECKING:
    from .core import Core


def _text(value: Any, field: str) -> str | None:
    """A namespace string; an empty string clears it."""
    if not isinstance(value, str):
        raise InvalidInput(f"{field} must be a string")
    return value.strip() or None


def edit_memory(
    core: Core,
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
    m = core.get(memory_id)
    if m.status == Status.PROMOTED:
        raise InvalidInput(
            f"memory {m.id} is promoted: its note {m.note_path or ''} in the vault is what to edit",
            hint="edit the note (mnemo follows the person's edits), or demote the memory first",
        )
    changes: dict[str, Any] = {}
    if content is not None:
        if not isinstance(content, str) or not content.strip():
            raise InvalidInput("content is empty", hint="give the new text of the memory, or leave content out")
        changes["content"] = inputs.content(content)
    if tags is not None:
        changes["tags"] = inputs.tags(list(tags) if not isinstance(tags, str) else tags)
    if type is not None:
        mtype = inputs.choice(MemoryType, type, "", "type")
        changes["type"] = mtype
        changes["fingerprint"] = replace(m.fingerprint, type=mtype.value)
    if layer is not None:
        changes["layer"] = inputs.choice(Layer, layer, "", "layer")
    if wing is not None:
        changes["wing"] = _text(wing, "wing")
    if room is not None:
        changes["room"] = _text(room, "room")
    if meta is not None:
        merged = {**m.meta, **inputs.meta(meta)}
        changes["meta"] = inputs.meta({k: v for k, v in merged.items() if v is not None})
    if not changes:
        raise InvalidInput("nothing to change", hint="give at least one of content, tags, type, layer, wing, room, meta")
    if all(getattr(m, k) == v for k, v in changes.items()):
        return m
    return core.update(replace(m, **changes))
