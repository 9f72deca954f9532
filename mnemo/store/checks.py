"""What the doctor checks and repairs in the store, and what the index's recovery asks of it:
row sets to compare against the vector index, the keyword index and the vault."""

from __future__ import annotations

from collections.abc import Sequence

from .rows import Rows

# Links whose twin (the same link seen from the other end) is missing.
_HALF = """SELECT a.src, a.dst, a.rel FROM links a WHERE a.dir = ? AND NOT EXISTS (
    SELECT 1 FROM links b WHERE b.dir = ? AND b.src = a.dst AND b.dst = a.src AND b.rel = a.rel)"""


class CheckRows(Rows):
    """Mixin of ``Store``: the doctor's checks and the index's recovery."""

    # -- vectors ----------------------------------------------------------------------------
    def status_and_model(self, statuses: Sequence[str]) -> list[tuple[str, str, str | None]]:
        """(id, status, embed_model) of the memories with one of ``statuses``."""
        marks = ",".join("?" * len(statuses))
        rows = self.query(f"SELECT id, status, embed_model FROM memories WHERE status IN ({marks})", statuses)
        return [(r[0], r[1], r[2]) for r in rows]

    # -- keyword index ----------------------------------------------------------------------
    def memory_ids(self) -> set[str]:
        """Every memory id."""
        return {r[0] for r in self.query("SELECT id FROM memories")}

    def fts_row_counts(self) -> dict[str, int]:
        """Memory id → its rows in the keyword index."""
        return {r[0]: int(r[1]) for r in self.query("SELECT id, count(*) FROM memories_fts GROUP BY id")}

    def fts_stale_ids(self) -> list[str]:
        """Ids whose keyword-index text is not the memory's: its content, or the context it is
        indexed with (``meta.context``, the turn before an ingested memory)."""
        return [r[0] for r in self.query(
            "SELECT m.id FROM memories m JOIN memories_fts f ON f.id = m.id WHERE f.content != m.content "
            "OR f.context != coalesce(json_extract(m.meta, '$.context'), '')")]

    # -- notes and their chunks -------------------------------------------------------------
    def promoted_note_states(self) -> list[tuple[str, str, str | None, float | None, int | None]]:
        """(memory id, note path, the note's mnemo_id, mtime, size) of every promoted memory with
        a note; the last three are None when the note is not indexed."""
        rows = self.query(
            "SELECT m.id, m.note_path, n.mnemo_id, n.mtime, n.size FROM memories m "
            "LEFT JOIN notes n ON n.path = m.note_path WHERE m.status = 'promoted' AND m.note_path IS NOT NULL")
        return [(r[0], r[1], r[2], r[3], r[4]) for r in rows]

    def chunk_ids(self) -> set[str]:
        """Every note chunk id."""
        return {r[0] for r in self.query("SELECT id FROM chunks")}

    def chunk_notes(self) -> dict[str, str]:
        """Chunk id → the uid of its note."""
        return {r[0]: r[1] for r in self.query("SELECT id, note_uid FROM chunks")}

    def notes_of_chunks(self, ids: Sequence[str]) -> list[str]:
        """Uids of the notes these chunks belong to, each once."""
        rows = self.query_in("SELECT DISTINCT note_uid FROM chunks WHERE id IN ({marks})", ids)
        return list(dict.fromkeys(r[0] for r in rows))

    def forget_chunk_vectors(self, uids: Sequence[str] | None = None) -> int:
        """Clear the recorded hashes of these notes (all with ``None``) and their chunks, so the
        next reconcile embeds every chunk again; how many notes."""
        with self.tx() as conn:
            if uids is None:
                conn.execute("UPDATE chunks SET hash = ''")
                return conn.execute("UPDATE notes SET content_hash = '', mtime = -1").rowcount
            conn.executemany("UPDATE chunks SET hash = '' WHERE note_uid = ?", [(u,) for u in uids])
            conn.executemany("UPDATE notes SET content_hash = '', mtime = -1 WHERE uid = ?", [(u,) for u in uids])
        return len(uids)

    # -- links both ways --------------------------------------------------------------------
    def half_links(self, have: str, missing: str) -> list[tuple[str, str, str]]:
        """(src, dst, rel) of the ``have``-direction rows whose ``missing``-direction twin is absent."""
        return [(r[0], r[1], r[2]) for r in self.query(_HALF, (have, missing))]

    def add_link_twins(self) -> int:
        """Add the missing twin of every half link (same origin, weight and time); how many."""
        with self.tx() as conn:
            before = conn.total_changes
            for have, want in (("out", "in"), ("in", "out")):
                conn.execute(
                    "INSERT OR IGNORE INTO links (src, dst, rel, dir, origin, weight, created_at) "
                    f"SELECT a.dst, a.src, a.rel, ?, a.origin, a.weight, a.created_at FROM ({_HALF}) h "
                    "JOIN links a ON a.src = h.src AND a.dst = h.dst AND a.rel = h.rel AND a.dir = ?",
                    (want, have, want, have),
                )
            return conn.total_changes - before

    # -- no note claimed twice --------------------------------------------------------------
    def notes_shared_by_memories(self) -> list[str]:
        """Note paths that more than one memory names as its note."""
        return [r[0] for r in self.query(
            "SELECT note_path FROM memories WHERE note_path IS NOT NULL GROUP BY note_path HAVING count(*) > 1")]

    def ids_in_several_notes(self) -> list[tuple[str, str]]:
        """(mnemo_id, the paths joined by `` | ``) of memory ids that several notes carry."""
        rows = self.query("SELECT mnemo_id, group_concat(path, ' | ') FROM notes WHERE mnemo_id IS NOT NULL "
                          "GROUP BY mnemo_id HAVING count(*) > 1")
        return [(r[0], r[1]) for r in rows]

    def note_owner(self, path: str) -> str | None:
        """The memory id the note at ``path`` carries, if it is indexed and carries one."""
        rows = self.query("SELECT mnemo_id FROM notes WHERE path = ?", (path,))
        return rows[0][0] if rows else None

    def note_claimants(self, path: str) -> list[str]:
        """Ids of the memories that name ``path`` as their note."""
        return [r[0] for r in self.query("SELECT id FROM memories WHERE note_path = ?", (path,))]
