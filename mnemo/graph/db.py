"""The graph's tables (migration ``0005_graph``) as the graph's code asks for them: the
enrichment queue, the entity index and the lookups the link rules need. The SQL is the
store's (``store/links.py``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..models import Memory
    from ..store import Store

LIVE = ("active", "promoted")


# -- enrichment queue ----------------------------------------------------------------------
def queue(store: Store, ids: Sequence[str], at: float) -> None:
    store.queue_enrich(ids, at)


def dequeue(store: Store, ids: Sequence[str]) -> None:
    store.dequeue_enrich(ids)


def pending_ids(store: Store, limit: int) -> list[str]:
    """Oldest memories first (in write order for equal times), so each is enriched after the
    ones it may link back to."""
    return store.pending_enrich_ids(limit)


def pending_count(store: Store) -> int:
    return store.pending_enrich_count()


def is_pending(store: Store, memory_id: str) -> bool:
    return store.is_enrich_pending(memory_id)


# -- entity index --------------------------------------------------------------------------
def index_entities(store: Store, rows: Iterable[tuple[str, str, str, float]]) -> None:
    """(memory id, entity key, display name, created_at) rows (``clear_entities`` first when a
    memory is enriched again)."""
    store.index_entities(rows)


def clear_entities(store: Store, ids: Sequence[str]) -> None:
    store.clear_entities(ids)


def entity_holders(store: Store, key: str, before: float, exclude: Sequence[str], limit: int) -> list[tuple[str, float]]:
    """The most recent live memories (created no later than ``before``) naming entity ``key``."""
    return store.entity_holders(key, before, exclude, limit)


def canonical_names(store: Store, keys: Sequence[str]) -> dict[str, str]:
    """The first spelling each entity was seen with, so ``shares_entity:{Name}`` is stable."""
    return store.canonical_entity_names(keys)


def known_names(store: Store, limit: int = 20000) -> list[str]:
    """Entity names seen in the store, most frequent first (the gazetteer for new text)."""
    return store.known_entity_names(limit)


def names_version(store: Store) -> tuple[int, int]:
    return store.entity_names_version()


# -- recent memories and sessions ----------------------------------------------------------
def recent_memories(
    store: Store, before: float, since: float, limit: int, exclude: Sequence[str] = ()
) -> list[Memory]:
    """Live memories created in [since, before], newest first, at most ``limit``."""
    return store.recent_live_memories(before, since, limit, exclude)


def recalled_in_session(store: Store, session_id: str, until: float, limit: int) -> list[str]:
    """Memories recalled in ``session_id`` (the recall path records ``{"session_id": ...}`` in
    the context of each use), most recently recalled first."""
    return store.recalled_in_session(session_id, until, limit)
