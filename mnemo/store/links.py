"""The graph's rows (migration ``0005_graph``) beside the links themselves: the enrichment
queue, the entity index, a link's mark on the memory it supersedes, and the lookups the link
rules make (recent memories, memories recalled in a session)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from .rows import Rows

if TYPE_CHECKING:

    from ..models import Link, Memory


class LinkRows(Rows):
    """Mixin of ``Store``: the enrichment queue, the entity index and what links change."""

    if TYPE_CHECKING:
        def add_links(self, links: Iterable[Link]) -> int: ...
        def remove_links(self, src: str, dst: str, rel: str | None = None) -> int: ...
        def links_of(self, memory_id: str, direction: str | None = None, rel: str | None = None) -> list[Link]: ...
        @staticmethod
        def _row_to_memory(row: sqlite3.Row) -> Memory: ...

    # -- enrichment queue -------------------------------------------------------------------
    def dequeue_enrich(self, ids: Sequence[str]) -> None:
        """Take memories off the enrichment queue."""
        with self.tx() as conn:
            conn.executemany("DELETE FROM enrich_queue WHERE memory_id = ?", [(i,) for i in ids])

    def pending_enrich_ids(self, limit: int) -> list[str]:
        """Queued ids, oldest memory first (write order for equal times, then queue time)."""
        rows = self.query(
            "SELECT q.memory_id FROM enrich_queue q LEFT JOIN memories m ON m.id = q.memory_id "
            "ORDER BY coalesce(m.created_at, 0), m.rowid, q.queued_at LIMIT ?",
            (int(limit),),
        )
        return [r[0] for r in rows]

    def pending_enrich_count(self) -> int:
        """How many memories wait for enrichment."""
        return int(self.query("SELECT count(*) FROM enrich_queue")[0][0])

    def is_enrich_pending(self, memory_id: str) -> bool:
        """Whether the memory waits for enrichment."""
        return bool(self.query("SELECT 1 FROM enrich_queue WHERE memory_id = ?", (memory_id,)))

    def set_fingerprints(self, memories: Sequence[Memory]) -> None:
        """Write the memories' fingerprints (enrichment computed them)."""
        with self.tx() as conn:
            conn.executemany(
                "UPDATE memories SET fingerprint = ? WHERE id = ?",
                [(json.dumps(m.fingerprint.to_dict(), ensure_ascii=False), m.id) for m in memories],
            )

    def commit_enrichment(self, links: Sequence[Link], ids: Sequence[str],
                          entities: Iterable[tuple[str, str, str, float]]) -> None:
        """In one transaction: add the links, index the memories' entities anew, mark what a
        ``supersedes`` link supersedes (unless already marked), and dequeue the memories."""
        with self.tx() as conn:
            self.add_links(links)
            self.clear_entities(ids)
            self.index_entities(entities)
            for link in links:
                if link.rel == "supersedes":
                    conn.execute(
                        "UPDATE memories SET superseded_by = ? WHERE id = ? AND superseded_by IS NULL", (link.src, link.dst)
                    )
            self.dequeue_enrich(ids)

    # -- links a person makes ---------------------------------------------------------------
    def replace_link(self, new: Link) -> None:
        """Put ``new`` in place of any link of its type between its two memories; a
        ``supersedes`` link marks the older memory ``superseded_by`` the newer."""
        with self.tx() as conn:
            self.remove_links(new.src, new.dst, new.rel)
            self.add_links([new])
            if new.rel == "supersedes":
                conn.execute("UPDATE memories SET superseded_by = ? WHERE id = ?", (new.src, new.dst))

    def unlink_pair(self, x: str, y: str, rel: str | None = None) -> int:
        """Remove the links between ``x`` and ``y`` both ways (only type ``rel`` if given) and
        the ``superseded_by`` marks of removed ``supersedes`` links; how many links went."""
        with self.tx() as conn:
            gone = [ln for ln in self.links_of(x) if ln.dst == y or ln.src == y]
            if rel is not None:
                gone = [ln for ln in gone if ln.rel == rel]
            n = self.remove_links(x, y, rel) + self.remove_links(y, x, rel)
            for ln in gone:
                if ln.rel == "supersedes":
                    conn.execute("UPDATE memories SET superseded_by = NULL WHERE id = ? AND superseded_by = ?",
                                 (ln.dst, ln.src))
        return n

    def remove_each_link(self, links: Iterable[Link]) -> int:
        """Remove each of ``links`` (its type only) in one transaction; how many went."""
        with self.tx():
            return sum(self.remove_links(ln.src, ln.dst, ln.rel) for ln in links)

    # -- entity index -----------------------------------------------------------------------
    def index_entities(self, rows: Iterable[tuple[str, str, str, float]]) -> None:
        """Add (memory id, entity key, display name, created_at) rows."""
        with self.tx() as conn:
            conn.executemany(
                "INSERT OR IGNORE INTO memory_entities (memory_id, key, name, created_at) VALUES (?, ?, ?, ?)", list(rows)
            )

    def clear_entities(self, ids: Sequence[str]) -> None:
        """Drop the entity rows of these memories."""
        with self.tx() as conn:
            conn.executemany("DELETE FROM memory_entities WHERE memory_id = ?", [(i,) for i in ids])

    def entity_holders(self, key: str, before: float, exclude: Sequence[str], limit: int) -> list[tuple[str, float]]:
        """(id, created_at) of the newest live memories created by ``before`` naming ``key``."""
        marks = ",".join("?" * len(exclude)) or "''"
        rows = self.query(
            "SELECT e.memory_id, e.created_at FROM memory_entities e JOIN memories m ON m.id = e.memory_id "
            f"WHERE e.key = ? AND e.created_at <= ? AND e.memory_id NOT IN ({marks}) AND m.status IN ('active', 'promoted') "
            "ORDER BY e.created_at DESC, m.rowid DESC LIMIT ?",
            [key, before, *exclude, int(limit)],
        )
        return [(r[0], float(r[1])) for r in rows]

    def canonical_entity_names(self, keys: Sequence[str]) -> dict[str, str]:
        """Entity key → the first spelling the entity was seen with."""
        # SQLite takes the bare column ``name`` from the row holding min(created_at).
        rows = self.query_in(
            "SELECT key, name, min(created_at) FROM memory_entities WHERE key IN ({marks}) GROUP BY key", keys
        )
        return {r[0]: r[1] for r in rows}

    def known_entity_names(self, limit: int) -> list[str]:
        """Entity names seen in the store, most frequent first."""
        rows = self.query(
            "SELECT name, count(*) AS n FROM memory_entities GROUP BY name ORDER BY n DESC LIMIT ?", (int(limit),)
        )
        return [r[0] for r in rows]

    def entity_names_version(self) -> tuple[int, int]:
        """(rows, highest rowid) of the entity index: changes whenever an entity is added."""
        r = self.query("SELECT count(*), coalesce(max(rowid), 0) FROM memory_entities")[0]
        return int(r[0]), int(r[1])

    # -- what the link rules look back at ---------------------------------------------------
    def recent_live_memories(self, before: float, since: float, limit: int, exclude: Sequence[str] = ()) -> list[Memory]:
        """Live memories created in [since, before], newest first, at most ``limit``."""
        marks = ",".join("?" * len(exclude)) or "''"
        # ``+status``: walk the created_at index newest first and stop at ``limit``; the status index
        # would sort every live memory first (0.35 s at 100k memories against 0.3 ms).
        rows = self.query(
            f"SELECT * FROM memories WHERE +status IN ('active', 'promoted') AND created_at <= ? AND created_at >= ? "
            f"AND id NOT IN ({marks}) ORDER BY created_at DESC, rowid DESC LIMIT ?",
            [before, since, *exclude, int(limit)],
        )
        return [self._row_to_memory(r) for r in rows]

    def recalled_in_session(self, session_id: str, until: float, limit: int) -> list[str]:
        """Ids of memories recalled in a session by ``until``, last recalled first."""
        rows = self.query(
            "SELECT memory_id, max(at) AS last FROM uses WHERE json_valid(context) "
            "AND json_extract(context, '$.session_id') = ? AND at <= ? GROUP BY memory_id ORDER BY last DESC LIMIT ?",
            (session_id, until, int(limit)),
        )
        return [r[0] for r in rows]
