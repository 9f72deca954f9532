"""The vault's rows (migration ``0003_vault``): one ``notes`` row per indexed Markdown note,
its heading ``chunks`` and their ``chunks_fts`` rows. A note's rows are rewritten together, in one
transaction per batch of notes, so the catalog never holds half a note."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from .rows import Rows

if TYPE_CHECKING:

    from ..models import Link


@dataclass(frozen=True)
class NoteRow:
    """One indexed note as the catalog records it."""

    path: str
    uid: str
    mnemo_id: str | None
    title: str
    aliases: tuple[str, ...]
    tags: tuple[str, ...]
    links: tuple[str, ...]
    content_hash: str
    mtime: float
    size: int

    def to_dict(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in self.__dict__.items()}


class ChunkRow(NamedTuple):
    """One heading chunk of a note, as written (``hash`` says which text its vector embeds)."""

    id: str
    ord: int
    heading: str | None
    content: str
    hash: str
    words: int


@dataclass(frozen=True)
class NoteWrite:
    """What indexing writes for one note: its row, its chunks, and the path it leaves (a move)."""

    path: str
    uid: str
    mnemo_id: str | None
    title: str
    aliases: Sequence[str]
    tags: Sequence[str]
    links: Sequence[str]
    content_hash: str
    mtime: float
    size: int
    indexed_at: float
    chunks: Sequence[ChunkRow]
    moved_from: str | None = None


def _note_row(r: sqlite3.Row) -> NoteRow:
    return NoteRow(
        path=r["path"], uid=r["uid"], mnemo_id=r["mnemo_id"], title=r["title"],
        aliases=tuple(json.loads(r["aliases"])), tags=tuple(json.loads(r["tags"])),
        links=tuple(json.loads(r["links"])), content_hash=r["content_hash"], mtime=float(r["mtime"]),
        size=int(r["size"]),
    )


def _delete_chunks(conn: sqlite3.Connection, uid: str) -> None:
    conn.execute("DELETE FROM chunks_fts WHERE rowid IN (SELECT n FROM chunks WHERE note_uid = ?)", (uid,))
    conn.execute("DELETE FROM chunks WHERE note_uid = ?", (uid,))


class NoteRows(Rows):
    """Mixin of ``Store``: the vault's notes, their chunks and the chunks' keyword rows."""

    if TYPE_CHECKING:
        def add_links(self, links: Iterable[Link]) -> int: ...
        def remove_links(self, src: str, dst: str, rel: str | None = None) -> int: ...

    # -- the catalog ------------------------------------------------------------------------
    def all_notes(self) -> dict[str, NoteRow]:
        """Every indexed note by path."""
        return {r["path"]: _note_row(r) for r in self.query("SELECT * FROM notes")}

    def note_at(self, path: str) -> NoteRow | None:
        """The note indexed at ``path``."""
        rows = self.query("SELECT * FROM notes WHERE path = ?", (path,))
        return _note_row(rows[0]) if rows else None

    def notes_of_memory(self, mnemo_id: str) -> list[NoteRow]:
        """Notes that carry this memory's id, by path."""
        return [_note_row(r) for r in self.query("SELECT * FROM notes WHERE mnemo_id = ? ORDER BY path", (mnemo_id,))]

    def notes_named(self, name: str) -> list[NoteRow]:
        """Notes whose title or one of whose aliases is ``name`` (case-insensitive), shortest path first."""
        rows = self.query(
            "SELECT * FROM notes WHERE title = ? COLLATE NOCASE OR EXISTS "
            "(SELECT 1 FROM json_each(notes.aliases) WHERE lower(value) = lower(?)) ORDER BY length(path), path",
            (name, name),
        )
        return [_note_row(r) for r in rows]

    def note_paths_with_hash(self, digest: str) -> list[str]:
        """Paths of the notes whose bytes hash to ``digest``."""
        return [r[0] for r in self.query("SELECT path FROM notes WHERE content_hash = ?", (digest,))]

    def note_path_of_chunk(self, chunk_id: str) -> str | None:
        """The path of the note a chunk (a recall hit's passage) belongs to."""
        rows = self.query("SELECT n.path FROM chunks c JOIN notes n ON n.uid = c.note_uid WHERE c.id = ?", (chunk_id,))
        return str(rows[0][0]) if rows else None

    def person_note_chunks(self, chunk_ids: Sequence[str]) -> list[tuple[str, str, str]]:
        """(chunk id, path, title) of these chunks that belong to a note mnemo does not own."""
        rows = self.query_in(
            "SELECT c.id, n.path, n.title FROM chunks c JOIN notes n ON n.uid = c.note_uid "
            "WHERE c.id IN ({marks}) AND n.mnemo_id IS NULL",
            chunk_ids,
        )
        return [(r["id"], r["path"], r["title"]) for r in rows]

    def count_notes_except(self, path: str) -> int:
        """Indexed notes other than the one at ``path``."""
        return int(self.query("SELECT count(*) FROM notes WHERE path != ?", (path,))[0][0])

    # -- chunks -----------------------------------------------------------------------------
    def chunk_hashes(self, uid: str) -> dict[str, tuple[str, str | None]]:
        """Chunk id → (hash, heading) of one note's chunks."""
        return {r[0]: (r[1], r[2]) for r in self.query("SELECT id, hash, heading FROM chunks WHERE note_uid = ?", (uid,))}

    def note_chunk_ids(self, uid: str) -> list[str]:
        """Ids of one note's chunks."""
        return [r[0] for r in self.query("SELECT id FROM chunks WHERE note_uid = ?", (uid,))]

    def clear_chunk_hashes(self) -> None:
        """Forget which text every chunk's vector embeds (the vectors were dropped)."""
        self.execute("UPDATE chunks SET hash = ''")

    # -- writes -----------------------------------------------------------------------------
    def set_note_stat(self, path: str, mtime: float, size: int) -> None:
        """Record a note's new mtime and size (its bytes did not change)."""
        self.execute("UPDATE notes SET mtime = ?, size = ? WHERE path = ?", (mtime, size, path))

    def write_notes(self, notes: Sequence[NoteWrite]) -> None:
        """Write indexed notes, each replacing its row (and the row of a note that used to live at
        its path, or that it moved from) and all of its chunks, in one transaction."""
        with self.tx():
            for note in notes:
                self._write_note(note)

    def _write_note(self, note: NoteWrite) -> None:
        tags = " ".join(note.tags)
        with self.tx() as conn:
            if note.moved_from is not None:
                conn.execute("DELETE FROM notes WHERE path = ?", (note.moved_from,))
            conn.execute("DELETE FROM notes WHERE path = ? AND uid != ?", (note.path, note.uid))
            conn.execute(
                "INSERT INTO notes (path, uid, mnemo_id, title, aliases, tags, links, content_hash, mtime, size, indexed_at) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT(path) DO UPDATE SET uid=excluded.uid, mnemo_id=excluded.mnemo_id, "
                "title=excluded.title, aliases=excluded.aliases, tags=excluded.tags, links=excluded.links, "
                "content_hash=excluded.content_hash, mtime=excluded.mtime, size=excluded.size, indexed_at=excluded.indexed_at",
                (note.path, note.uid, note.mnemo_id, note.title, json.dumps(list(note.aliases), ensure_ascii=False),
                 json.dumps(list(note.tags), ensure_ascii=False), json.dumps(list(note.links), ensure_ascii=False),
                 note.content_hash, note.mtime, note.size, note.indexed_at),
            )
            _delete_chunks(conn, note.uid)
            for c in note.chunks:
                cur = conn.execute(
                    "INSERT INTO chunks (id, note_uid, ord, heading, content, hash, words) VALUES (?,?,?,?,?,?,?)",
                    (c.id, note.uid, c.ord, c.heading, c.content, c.hash, c.words),
                )
                conn.execute(
                    "INSERT INTO chunks_fts (rowid, id, title, heading, content, tags) VALUES (?,?,?,?,?,?)",
                    (cur.lastrowid, c.id, note.title, c.heading or "", c.content, tags),
                )

    def relink(self, src: str, rel: str, drop: Iterable[str], add: Iterable[Link]) -> None:
        """Remove the ``rel`` links from ``src`` to ``drop`` and add ``add``, in one transaction
        (the links a note's wikilinks make between memories)."""
        with self.tx():
            for dst in drop:
                self.remove_links(src, dst, rel)
            self.add_links(add)

    def forget_note(self, uid: str, path: str) -> None:
        """Drop one note's row, chunks and keyword rows."""
        with self.tx() as conn:
            _delete_chunks(conn, uid)
            conn.execute("DELETE FROM notes WHERE path = ?", (path,))

    def clear_notes(self) -> None:
        """Drop every note, chunk and chunk keyword row (a rebuild of the vault index)."""
        with self.tx() as conn:
            conn.execute("DELETE FROM chunks_fts")
            conn.execute("DELETE FROM chunks")
            conn.execute("DELETE FROM notes")
