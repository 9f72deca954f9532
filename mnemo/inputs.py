"""Checks of values that arrive from outside (CLI arguments, JSONL lines, API and MCP requests)
and that the save path would otherwise take on trust.

- A memory id given by the caller (an import that keeps its ids) is a short token of letters,
  digits and ``. _ : -``: ids end up in note frontmatter (``mnemo_id``), in Chroma, in log lines
  and on command lines, so a newline, a path separator or a ``%`` must never be part of one.
- Flags are JSON booleans: ``"pinned": "no"`` is a mistake to report, not ``True``.
- Two items of one write may not share an id, nor reuse one the store already has: the write is
  refused before anything is stored (an import is all or nothing).
- A save item (``draft``) and an edit (``edit.py``) check content, tags, meta and the enum fields
  with the same functions here, so the two paths cannot drift apart.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .clock import parse_time
from .errors import InvalidInput
from .models import MAX_CONTENT_BYTES, TRUST, Fingerprint, Layer, Memory, MemoryType, Source

if TYPE_CHECKING:
    from .store import Store

ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")


def memory_id(value: Any, where: str = "") -> str | None:
    """A caller-supplied id, checked; None when none was given."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not ID_PATTERN.fullmatch(value):
        shown = value if isinstance(value, str) and len(value) <= 60 else f"{str(value)[:60]}…"
        raise InvalidInput(
            f"{where}id {shown!r} is not a valid memory id",
            hint="ids are 1-128 letters, digits, '.', '_', ':' or '-', starting with a letter or digit; omit id to get one",
        )
    return value


def flag(value: Any, where: str, field: str) -> bool:
    if value is None:
        return False
    if not isinstance(value, bool):
        raise InvalidInput(f"{where}{field} must be true or false, not {value!r}")
    return value


def new_ids(store: Store, ids: Sequence[str]) -> None:
    """Refuse ids repeated within one write, or already in the store."""
    seen: dict[str, int] = {}
    for n, i in enumerate(ids, start=1):
        if i in seen:
            raise InvalidInput(f"item {n}: id {i!r} is also the id of item {seen[i]}", hint="ids must be unique")
        seen[i] = n
    taken = store.existing_ids(list(seen), limit=1)
    if taken:
        i = taken[0]
        raise InvalidInput(f"item {seen[i]}: a memory with id {i!r} already exists",
                           hint="omit the id to save it as a new memory")


def tags(value: Any, where: str = "") -> tuple[str, ...]:
    """A tag list: strings, ``#`` and blanks stripped, repeats dropped, order kept."""
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple) or not all(isinstance(t, str) for t in value):
        raise InvalidInput(f"{where}tags must be a list of strings")
    out: dict[str, None] = {}
    for t in value:
        t = t.strip().lstrip("#").strip()
        if t:
            out.setdefault(t, None)
    return tuple(out)


def time_field(value: Any, where: str, field: str) -> float:
    try:
        return parse_time(value)
    except InvalidInput as exc:
        raise InvalidInput(f"{where}{field}: {exc.message}", hint=exc.hint) from None


def choice(cls: type, value: Any, where: str, field: str) -> Any:
    """``value`` as a member of the enum ``cls``, or a message naming every choice."""
    try:
        return cls(value)
    except ValueError:
        choices = ", ".join(v.value for v in cls)  # type: ignore[attr-defined]
        raise InvalidInput(f"{where}unknown {field} {value!r}", hint=f"choose one of: {choices}") from None


def content(value: Any, where: str = "") -> str:
    """The text of a memory: a non-empty string of valid Unicode within ``MAX_CONTENT_BYTES``."""
    if value is not None and not isinstance(value, str):
        kind = {bool: "true/false", int: "a number", float: "a number", list: "a list", dict: "an object"}.get(
            type(value), type(value).__name__)
        raise InvalidInput(f"{where}content must be text, not {kind} ({json.dumps(value, default=str)[:40]})",
                           hint='give the text of the memory as a string, e.g. "content": "..."')
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{where}content is empty", hint="give the text of the memory")
    size = len(value.encode("utf-8", errors="surrogatepass"))
    if size > MAX_CONTENT_BYTES:
        raise InvalidInput(f"{where}content is {size} bytes; the limit is {MAX_CONTENT_BYTES} (64 KiB)", hint="split it into several memories")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput(f"{where}content is not valid Unicode text") from None
    return value


def meta(value: Any, where: str = "") -> dict[str, Any]:
    """A JSON object that survives ``json.dumps``."""
    if not isinstance(value, dict):
        raise InvalidInput(f"{where}meta must be a JSON object")
    try:
        json.dumps(value)
    except (TypeError, ValueError, RecursionError) as exc:
        raise InvalidInput(f"{where}meta is not JSON-serialisable: {exc}") from None
    return value


SAVE_FIELDS = frozenset(
    {
        "content", "text", "tags", "meta", "type", "layer", "wing", "room", "source", "created_at",
        "session_id", "pinned", "importance", "event_at", "expires_at", "id",
    }
)


def draft(item: Any, now: float, where: str = "") -> tuple[Memory, bool]:
    """Validate one save item → (memory, whether its type was given)."""
    if not isinstance(item, dict):
        raise InvalidInput(f"{where}expected an object with at least 'content'")
    unknown = set(item) - SAVE_FIELDS
    if unknown:
        raise InvalidInput(f"{where}unknown field(s): {', '.join(sorted(unknown))}", hint=f"known: {', '.join(sorted(SAVE_FIELDS))}")
    text = content(item.get("content", item.get("text")), where)
    fields = meta(item.get("meta") or {}, where)
    given_id = memory_id(item.get("id"), where)
    pinned = flag(item.get("pinned"), where, "pinned")
    created = item.get("created_at")
    created_at = time_field(created, where, "created_at") if created is not None else now
    source = choice(Source, item.get("source") or "human", where, "source")
    mtype = choice(MemoryType, item["type"], where, "type") if item.get("type") else None
    layer = choice(Layer, item["layer"], where, "layer") if item.get("layer") else Layer.WORKING
    importance = item.get("importance")
    if importance is not None and (isinstance(importance, bool) or not (isinstance(importance, int | float) and 0 <= importance <= 1)):
        raise InvalidInput(f"{where}importance must be a number from 0 to 1")
    for key in ("wing", "room", "session_id"):
        if item.get(key) is not None and not isinstance(item[key], str):
            raise InvalidInput(f"{where}{key} must be a string")
    return Memory(
        id=given_id or str(uuid.uuid4()),
        content=text,
        type=mtype or MemoryType.FACT,
        layer=layer,
        fingerprint=Fingerprint(type=(mtype or MemoryType.FACT).value),
        wing=item.get("wing"),
        room=item.get("room"),
        tags=tags(item.get("tags"), where),
        source=source,
        trust=TRUST[source],
        importance=float(importance) if importance is not None else 0.5,
        created_at=created_at,
        updated_at=now,
        pinned=pinned,
        meta=fields,
        session_id=item.get("session_id"),
        event_at=time_field(item["event_at"], where, "event_at") if item.get("event_at") else None,
        expires_at=time_field(item["expires_at"], where, "expires_at") if item.get("expires_at") else None,
        embed_model=None,
    ), mtype is not None
