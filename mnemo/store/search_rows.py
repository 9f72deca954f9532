"""The reads search needs around its rankings: light rows of memory candidates, the turns saved
next to them, the rows of note chunks, pinned memories and recent session notes, and the
counts scoring works on. Each is one or a few fixed queries, whatever the store's size."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .rows import Rows

if TYPE_CHECKING:
    from ..models import Memory

# ``seq`` (the rowid: save order) orders recall's ties without the random ids (recall/candidates.rank_key).
LIGHT_COLUMNS = "id, status, type, layer, wing, room, tags, created_at, event_at, session_id, note_path, rowid AS seq"


class SearchRows(Rows):
    """Mixin of ``Store``: read-only queries of recall, the vault's search and scoring."""

    if TYPE_CHECKING:
        @staticmethod
        def _row_to_memory(row: sqlite3.Row) -> Memory: ...

    def light_rows(self, ids: list[str], cache: dict[str, dict[str, Any] | None] | None = None) -> dict[str, dict[str, Any]]:
        """The columns filters and folding need, without decoding whole memories (recall looks at
        about a hundred candidates and keeps ten). ``cache`` holds the rows (None: no such memory)
        read earlier in the same recall: the BM25 and vector candidates overlap."""
        out: dict[str, dict[str, Any]] = {}
        ids = list(dict.fromkeys(ids))
        if cache is not None:
            known = [i for i in ids if i in cache]
            out.update((i, r) for i in known if (r := cache[i]) is not None)
            ids = [i for i in ids if i not in cache]
        for row in self._light(self.query_in(f"SELECT {LIGHT_COLUMNS} FROM memories WHERE id IN ({{marks}})", ids)):
            out[row["id"]] = row
        if cache is not None:
            cache.update((i, out.get(i)) for i in ids)
        return out

    def light_texts(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """``light_rows`` (uncached) with each memory's ``content``: what recall's names step reads
        to test who a candidate names, without decoding whole memories it may not keep."""
        found = self.query_in(f"SELECT {LIGHT_COLUMNS}, content FROM memories WHERE id IN ({{marks}})", ids)
        return {row["id"]: row for row in self._light(found)}

    def light_rows_at(self, seqs: Sequence[int], cache: dict[str, dict[str, Any] | None] | None = None) -> dict[int, dict[str, Any]]:
        """``light_rows`` by rowid (``seq``): what an FTS5 row names without reading its id (the
        FTS row shares the memory's rowid). Rows already in ``cache`` are not read again; the
        rows read are added to it."""
        out: dict[int, dict[str, Any]] = {}
        if cache:
            by_seq = {r["seq"]: r for r in cache.values() if r is not None}
            out.update((q, by_seq[q]) for q in seqs if q in by_seq)
        missing = [q for q in seqs if q not in out]
        for row in self._light(self.query_in(f"SELECT {LIGHT_COLUMNS} FROM memories WHERE rowid IN ({{marks}})", missing)):
            out[row["seq"]] = row
            if cache is not None:
                cache[row["id"]] = row
        return out

    @staticmethod
    def _light(found: list[sqlite3.Row]) -> list[dict[str, Any]]:
        out = []
        keys = found[0].keys() if found else []
        for r in found:
            row = dict(zip(keys, r, strict=True))  # dict(r) looks each column up by name
            tags = row["tags"]
            row["tags"] = tuple(json.loads(tags)) if tags and tags != "[]" else ()
            out.append(row)
        return out

    def turns_within(self, spans: Sequence[tuple[int, int]], asking: Sequence[int] | None = None) -> list[sqlite3.Row]:
        """(rowid, id, session_id, created_at, asks) of the memories saved at rowids within any of
        these inclusive spans: the turns around some candidates, in one query (a few for many
        spans). ``asks``: 1 if the text holds a question mark; with ``asking`` (rowids) tested
        only for those (0 for the others): searching every text read was a third of the query."""
        out: list[sqlite3.Row] = []
        test, given = "instr(content, '?') > 0", list(asking or ())
        if asking is not None:
            test = f"CASE WHEN rowid IN ({','.join('?' * len(given))}) THEN {test} ELSE 0 END" if given else "0"
        for i in range(0, len(spans), 400):  # SQLite caps the parameters of one statement
            part = spans[i : i + 400]
            where = " OR ".join(["rowid BETWEEN ? AND ?"] * len(part))
            out += self.query(f"SELECT rowid, id, session_id, created_at, {test} FROM memories WHERE {where}",
                              [*given, *(x for span in part for x in span)])
        return out

    def memory_contents(self, ids: Sequence[str]) -> list[str]:
        """The contents of these memories (in no particular order)."""
        return [r[0] for r in self.query_in("SELECT content FROM memories WHERE id IN ({marks})", ids)]

    def memory_statuses(self, ids: Sequence[str]) -> dict[str, str]:
        """id → status of the memories the store holds among ``ids``."""
        return {r[0]: r[1] for r in self.query_in("SELECT id, status FROM memories WHERE id IN ({marks})", ids)}

    def pinned_memories(self, limit: int, wing: str | None = None) -> list[Memory]:
        """Live pinned memories, the most important (then newest) first; with ``wing``, that
        wing's and those of no wing."""
        rows = self.query(
            "SELECT * FROM memories WHERE pinned = 1 AND status IN ('active', 'promoted') "
            "AND (? IS NULL OR wing IS NULL OR wing = '' OR wing = ?) ORDER BY importance DESC, created_at DESC LIMIT ?",
            (wing, wing, limit),
        )
        return [self._row_to_memory(r) for r in rows]

    def session_notes_between(self, start: float, end: float, wing: str | None = None) -> list[Memory]:
        """Live ``session_note`` memories created in [start, end] (of one wing, when given),
        newest first (at most 200)."""
        rows = self.query(
            "SELECT * FROM memories WHERE type = 'session_note' AND status IN ('active', 'promoted') "
            "AND created_at >= ? AND created_at <= ? AND (? IS NULL OR wing = ?) ORDER BY created_at DESC, rowid DESC LIMIT 200",
            (start, end, wing, wing),
        )
        return [self._row_to_memory(r) for r in rows]

    def entity_counts(self) -> dict[str, int]:
        """How many searchable memories name each entity (one query)."""
        rows = self.query(
            "SELECT e.value, count(*) FROM memories m, json_each(json_extract(m.fingerprint, '$.entities')) e "
            "WHERE m.status IN ('active', 'promoted') GROUP BY e.value"
        )
        return {str(r[0]): int(r[1]) for r in rows}

    # -- note chunks ------------------------------------------------------------------------
    def has_chunks(self) -> bool:
        """Whether the vault has any note chunk indexed."""
        return bool(self.query("SELECT 1 FROM chunks LIMIT 1"))

    def first_chunks(self, memory_ids: Sequence[str]) -> dict[str, str]:
        """The first chunk of the note each memory owns (memory id → chunk id)."""
        out: dict[str, str] = {}
        for r in self.query_in("SELECT n.mnemo_id, c.id FROM notes n JOIN chunks c ON c.note_uid = n.uid "
                               "WHERE n.mnemo_id IN ({marks}) ORDER BY n.mnemo_id, c.ord", memory_ids):
            out.setdefault(r[0], r[1])
        return out

    def chunk_rows(self, chunk_ids: Sequence[str]) -> list[sqlite3.Row]:
        """Chunks with their note: id, ord, heading, content, path, title, mnemo_id, tags, mtime."""
        return self.query_in(
            "SELECT c.id, c.ord, c.heading, c.content, n.path, n.title, n.mnemo_id, n.tags, n.mtime "
            "FROM chunks c JOIN notes n ON n.uid = c.note_uid WHERE c.id IN ({marks})",
            chunk_ids,
        )
