"""Search filters: tier, wing/room, type, layer, tags, status and a time range.

One validated ``Filters`` value for both sides of the search: the store renders it as SQL for
the BM25 side (``store.fts.filter_clauses``), ``index.vectors.where`` as Chroma's ``where``
clause, and its predicates check what neither can (several tags in Chroma, note chunks).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from ..clock import parse_time
from ..errors import InvalidInput
from ..models import Hit, Layer, Memory, MemoryType, Status

TIERS = ("all", "stm", "ltm")
# Recall searches live memories unless a status is asked for.
DEFAULT_STATUSES = (Status.ACTIVE.value, Status.PROMOTED.value)
KNOWN = frozenset({"type", "layer", "wing", "room", "tag", "tags", "status", "since", "until"})


@dataclass(frozen=True)
class Filters:
    tier: str = "all"
    statuses: tuple[str, ...] = DEFAULT_STATUSES
    status_given: bool = False
    type: str | None = None
    layer: str | None = None
    wing: str | None = None
    room: str | None = None
    tags: tuple[str, ...] = ()
    since: float | None = None  # created at or after (UNIX seconds)
    until: float | None = None  # created at or before

    @property
    def is_default(self) -> bool:
        """Only the default statuses (and perhaps tags, which Chroma cannot test anyway)."""
        return not (self.status_given or self.type or self.layer or self.wing or self.room
                    or self.since is not None or self.until is not None)

    @property
    def memory_only(self) -> bool:
        """Filters only a memory can satisfy (a person's note has no type, layer or wing)."""
        return bool(self.type or self.layer or self.wing or self.room or self.status_given)

    # -- predicates -------------------------------------------------------------------------
    def matches(self, m: Memory) -> bool:
        return self.matches_row(
            {"status": m.status.value, "type": m.type.value, "layer": m.layer.value, "wing": m.wing, "room": m.room,
             "tags": m.tags, "created_at": m.created_at}
        )

    def matches_row(self, row: Any) -> bool:
        """The same test on a light row (a mapping with status, type, layer, wing, room, tags as
        a sequence, created_at): recall checks candidates before it pays for whole memories."""
        if row["status"] not in self.statuses:
            return False
        for key in ("type", "layer", "wing", "room"):
            want = getattr(self, key)
            if want and row[key] != want:
                return False
        if self.tags and not set(self.tags) <= set(row["tags"]):
            return False
        return self._in_range(row["created_at"])

    def matches_chunk(self, hit: Hit, owner: Memory | None) -> bool:
        """A note chunk passes tag and time filters on its own; filters only a memory has pass
        only for a note mnemo owns whose memory passes them."""
        if self.memory_only:
            return owner is not None and self.matches(owner)
        if self.tags and not set(self.tags) <= set(hit.tags):
            return False
        return self._in_range(hit.created_at)

    def _in_range(self, ts: float | None) -> bool:
        if self.since is None and self.until is None:
            return True
        if ts is None:
            return False
        return (self.since is None or ts >= self.since) and (self.until is None or ts <= self.until)

    @property
    def wants_stm(self) -> bool:
        return self.tier in ("all", "stm")

    @property
    def wants_ltm(self) -> bool:
        return self.tier in ("all", "ltm")


def _enum_value(cls: type[Enum], value: Any, field: str) -> str:
    try:
        return str(cls(value).value)
    except ValueError:
        choices = ", ".join(v.value for v in cls)
        raise InvalidInput(f"unknown {field} {value!r}", hint=f"choose one of: {choices}") from None


def _time(value: Any, field: str) -> float | None:
    if value is None or value == "":
        return None
    try:
        return parse_time(value)
    except InvalidInput as exc:
        raise InvalidInput(f"{field}: {exc.message}", hint=exc.hint) from None


def _tag_list(tag: Any, tags: Any) -> tuple[str, ...]:
    out: list[str] = []
    for value in (tag, tags):
        if value is None:
            continue
        items: Iterable[Any] = [value] if isinstance(value, str) else value
        if not isinstance(items, list | tuple):
            raise InvalidInput("tags must be a list of strings")
        for t in items:
            if not isinstance(t, str):
                raise InvalidInput("tags must be a list of strings")
            t = t.strip().lstrip("#").strip()
            if t:
                out.append(t)
    return tuple(dict.fromkeys(out))


def make_filters(tier: str = "all", **given: Any) -> Filters:
    """Validate the filter keywords recall accepts (unknown ones are refused, not ignored)."""
    unknown = set(given) - KNOWN
    if unknown:
        raise InvalidInput(f"unknown recall filter(s): {', '.join(sorted(unknown))}", hint=f"known: {', '.join(sorted(KNOWN))}")
    if tier not in TIERS:
        raise InvalidInput(f"unknown tier {tier!r}", hint="choose stm, ltm or all")
    status = given.get("status")
    statuses = (_enum_value(Status, status, "status"),) if status else DEFAULT_STATUSES
    for key in ("wing", "room"):
        if given.get(key) is not None and not isinstance(given[key], str):
            raise InvalidInput(f"{key} must be a string")
    f = Filters(
        tier=tier,
        statuses=statuses,
        status_given=bool(status),
        type=_enum_value(MemoryType, given["type"], "type") if given.get("type") else None,
        layer=_enum_value(Layer, given["layer"], "layer") if given.get("layer") else None,
        wing=given.get("wing") or None,
        room=given.get("room") or None,
        tags=_tag_list(given.get("tag"), given.get("tags")),
        since=_time(given.get("since"), "since"),
        until=_time(given.get("until"), "until"),
    )
    if f.since is not None and f.until is not None and f.since > f.until:
        raise InvalidInput("since is after until", hint="swap the two times")
    return f
