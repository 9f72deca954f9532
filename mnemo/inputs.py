"""Checks of values that arrive from outside (CLI arguments, JSONL lines, API and MCP requests)
and that the save path would otherwise take on trust.

- A memory id given by the caller (an import that keeps its ids) is a short token of letters,
  digits and ``. _ : -``: ids end up in note frontmatter (``mnemo_id``), in Chroma, in log lines
  and on command lines, so a newline, a path separator or a ``%`` must never be part of one.
- Flags are JSON booleans: ``"pinned": "no"`` is a mistake to report, not ``True``.
- Two items of one write may not share an id, nor reuse one the store already has: the write is
  refused before anything is stored (an import is all or nothing).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .errors import InvalidInput

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
    unique = list(seen)
    for start in range(0, len(unique), 500):
        part = unique[start : start + 500]
        marks = ",".join("?" * len(part))
        taken = store.query(f"SELECT id FROM memories WHERE id IN ({marks}) LIMIT 1", part)
        if taken:
            i = taken[0][0]
            raise InvalidInput(f"item {seen[i]}: a memory with id {i!r} already exists",
                               hint="omit the id to save it as a new memory")
