"""Memory rows decoded into ``Memory`` objects, fast: recall decodes some forty rows a query.

By name through ``sqlite3.Row`` (a scan of the column names each), ``Memory.from_dict``'s
walk of every field's type and the frozen dataclass's ``__init__`` (one ``object.__setattr__``
a field) a row took 36-72 µs, a tenth of a recall on 10k memories; one dict of the row, enum
members by value, a shared decoded fingerprint per stored text and a filled ``__dict__`` give
the same Memory (tests/test_store_decode.py compares both on every kind of row) in 17-22 µs.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from typing import Any

from ..models import Fingerprint, Layer, Memory, MemoryType, Source, Status

# Columns of ``memories`` that map one-to-one onto Memory fields.
SCALAR = ["id", "content", "tokens", "type", "layer", "status", "wing", "room", "source", "trust", "importance", "strength", "use_count", "created_at", "updated_at", "last_used", "pinned", "note_path", "session_id", "duplicate_of", "surprise", "review_count", "cross_domain_count", "last_review_at", "event_at", "expires_at", "archived_at", "superseded_by", "embed_model"]
_JSON_COLS = ("fingerprint", "tags", "meta")


class _Members(dict[str, Any]):
    """An enum's members by value (a dict lookup instead of the enum's call); ``kind`` decodes
    (or refuses) anything else as the enum itself does."""

    def __init__(self, kind: Any) -> None:
        super().__init__((m.value, m) for m in kind)
        self.kind = kind


_ENUMS = (("type", _Members(MemoryType)), ("layer", _Members(Layer)), ("status", _Members(Status)), ("source", _Members(Source)))
_FINGERPRINT_TUPLES = frozenset(f.name for f in dataclasses.fields(Fingerprint) if str(f.type).startswith("tuple"))
_FINGERPRINT_FIELDS = frozenset(f.name for f in dataclasses.fields(Fingerprint))
_NO_FINGERPRINT = Fingerprint()


_FINGERPRINTS: dict[str, Fingerprint] = {}  # stored text → its Fingerprint (frozen: safe to share)
FINGERPRINT_CACHE = 4096
_MEMORY_FIELDS = tuple(f.name for f in dataclasses.fields(Memory))


def _fingerprint(text: str | None) -> Fingerprint:
    """``Fingerprint.from_dict(json.loads(text or "{}"))``, without its per-field type walk:
    the tuple fields made tuples, the others taken as they are. Many memories share one text
    (a type and no entities), and the same memories recur from one recall to the next."""
    if not text or text == "{}":
        return _NO_FINGERPRINT
    fp = _FINGERPRINTS.get(text)
    if fp is None:
        data = json.loads(text)
        fields: dict[str, Any] = {k: (tuple(v) if v is not None and k in _FINGERPRINT_TUPLES else v)
                                  for k, v in data.items() if k in _FINGERPRINT_FIELDS}
        fp = Fingerprint(**fields)
        if len(_FINGERPRINTS) >= FINGERPRINT_CACHE:
            _FINGERPRINTS.clear()
        _FINGERPRINTS[text] = fp
    return fp


# The row gives every field of Memory (checked here, so a field added to Memory alone takes the
# slow path and its default, as ``Memory(**data)`` would give it).
_FILLS_MEMORY = set(SCALAR) | set(_JSON_COLS) == set(_MEMORY_FIELDS)


def _memory(data: dict[str, Any]) -> Memory:
    """``Memory(**data)`` for a row's fields: the frozen dataclass's ``__init__`` sets its 32
    fields one ``object.__setattr__`` at a time (8 µs); Memory has no ``__post_init__`` and no
    slots, so filling its ``__dict__`` makes the same object."""
    if not _FILLS_MEMORY:
        return Memory(**data)
    m = object.__new__(Memory)
    m.__dict__.update((k, data[k]) for k in _MEMORY_FIELDS)
    return m


def row_to_memory(row: sqlite3.Row) -> Memory:
    """The Memory a ``SELECT *`` row of ``memories`` holds."""
    d = dict(zip(row.keys(), row, strict=True))
    data: dict[str, Any] = {k: d[k] for k in SCALAR}
    data["fingerprint"] = _fingerprint(d["fingerprint"])
    tags = d["tags"]
    data["tags"] = tuple(json.loads(tags)) if tags and tags != "[]" else ()
    meta = d["meta"]
    data["meta"] = json.loads(meta) if meta and meta != "{}" else {}
    data["pinned"] = bool(d["pinned"])
    for name, members in _ENUMS:
        value = data[name]
        member = members.get(value)
        data[name] = member if member is not None else members.kind(value)
    return _memory(data)
