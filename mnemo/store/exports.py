"""The store as an export reads it (a page of memories at a time, with what hangs off each), as
an import writes it back (``mnemo.export``), and the title a chat-history import gives the
memories of a conversation (``sources.session``)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .rows import Rows

if TYPE_CHECKING:
    from collections.abc import Iterable

    from ..models import Link, Memory


class ExportRows(Rows):
    """Mixin of ``Store``: export paging and the import's writes."""

    if TYPE_CHECKING:
        def insert_memories(self, memories: Iterable[Memory]) -> None: ...
        def add_uses(self, rows: Iterable[tuple[str, float, str, str | None]]) -> None: ...
        def add_links(self, links: Iterable[Link]) -> int: ...
        def index_entities(self, rows: Iterable[tuple[str, str, str, float]]) -> None: ...
        def kv_set(self, key: str, value: str) -> None: ...

    # -- export -----------------------------------------------------------------------------
    def memory_rows_after(self, after: int, limit: int) -> list[sqlite3.Row]:
        """Whole memory rows (their rowid as ``_rowid``) with rowid > ``after``, in store order."""
        return self.query("SELECT rowid AS _rowid, * FROM memories WHERE rowid > ? ORDER BY rowid LIMIT ?", (after, limit))

    def uses_of(self, ids: Sequence[str]) -> dict[str, list[list[Any]]]:
        """Memory id → its uses as [at, kind, context], in the order they were recorded."""
        out: dict[str, list[list[Any]]] = {}
        for r in self.query_in("SELECT memory_id, at, kind, context FROM uses WHERE memory_id IN ({marks}) ORDER BY rowid", ids):
            out.setdefault(r[0], []).append([r[1], r[2], r[3]])
        return out

    def out_links_of(self, ids: Sequence[str]) -> dict[str, list[list[Any]]]:
        """Memory id → its outgoing links as [dst, rel, origin, weight, created_at]."""
        out: dict[str, list[list[Any]]] = {}
        for r in self.query_in(
            "SELECT src, dst, rel, origin, weight, created_at FROM links WHERE dir = 'out' AND src IN ({marks}) "
            "ORDER BY src, dst, rel", ids,
        ):
            out.setdefault(r[0], []).append([r[1], r[2], r[3], r[4], r[5]])
        return out

    def entities_of(self, ids: Sequence[str]) -> dict[str, list[list[Any]]]:
        """Memory id → its entity rows as [key, name, created_at]."""
        out: dict[str, list[list[Any]]] = {}
        for r in self.query_in("SELECT memory_id, key, name, created_at FROM memory_entities WHERE memory_id IN ({marks}) "
                               "ORDER BY memory_id, key", ids):
            out.setdefault(r[0], []).append([r[1], r[2], r[3]])
        return out

    def enrich_pending_among(self, ids: Sequence[str]) -> set[str]:
        """Which of ``ids`` wait on the enrichment queue."""
        return {r[0] for r in self.query_in("SELECT memory_id FROM enrich_queue WHERE memory_id IN ({marks})", ids)}

    def activity_day_rows(self) -> list[list[Any]]:
        """Every activity day as [day, first_at], in order."""
        return [[r[0], r[1]] for r in self.query("SELECT day, first_at FROM activity_days ORDER BY day")]

    def history_journal(self) -> list[list[Any]]:
        """The chat-export journal (``history.*`` keys) as [key, value], in key order."""
        return [[r[0], r[1]] for r in self.query("SELECT key, value FROM kv WHERE key LIKE 'history.%' ORDER BY key")]

    # -- import -----------------------------------------------------------------------------
    def content_hashes(self, ids: Sequence[str]) -> dict[str, str]:
        """Id → content hash of those of ``ids`` the store holds."""
        return {row[0]: row[1] for row in self.query_in("SELECT id, content_hash FROM memories WHERE id IN ({marks})", ids)}

    def restore_memories(self, memories: Sequence[Memory], uses: Sequence[tuple[str, float, str, str | None]],
                         links: Sequence[Link], entities: Sequence[tuple[str, str, str, float]],
                         pending: Sequence[tuple[str, float]], cold: Sequence[tuple[Any, Any, str, str]]) -> None:
        """In one transaction: the memories with their uses, links, entity rows and queue
        entries, and the cold ones' int8 vectors as (vector, scale, model, id)."""
        with self.tx() as conn:
            self.insert_memories(memories)
            self.add_uses(uses)
            self.add_links(links)
            self.index_entities(entities)
            conn.executemany("INSERT OR IGNORE INTO enrich_queue (memory_id, queued_at) VALUES (?, ?)", pending)
            if cold:
                conn.executemany("UPDATE memories SET cold_vector = ?, cold_scale = ?, embed_model = ? WHERE id = ?", cold)

    def restore_days_and_journal(self, days: Sequence[tuple[str, float]], journal: Sequence[tuple[str, str]]) -> None:
        """In one transaction: the activity days and the chat-export journal of an import."""
        with self.tx() as conn:
            conn.executemany("INSERT OR IGNORE INTO activity_days (day, first_at) VALUES (?, ?)", days)
            conn.executemany("INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", journal)

    # -- chat-history import ----------------------------------------------------------------
    def title_session(self, session_id: str, meta: dict[str, Any], key: str, entry: str) -> None:
        """In one transaction: merge ``meta`` into the meta of the session's ingested memories,
        and set the journal ``key`` to ``entry``."""
        with self.tx() as conn:
            conn.execute(
                "UPDATE memories SET meta = json_patch(meta, ?) WHERE session_id = ? AND source = 'ingest' AND json_valid(meta)",
                (json.dumps(meta), session_id),
            )
            self.kv_set(key, entry)
