"""SQLite access for the store. See the package docstring for the design."""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .. import faults
from ..clock import day_of
from ..errors import InvalidInput, StorageError
from ..models import Link, Memory
from .checks import CheckRows
from .decode import SCALAR, row_to_memory
from .dream import DreamRows
from .exports import ExportRows
from .fts import FTS_INSERT, KeywordSearch, context_of
from .jobs import JobRows
from .lifecycle import LifecycleRows
from .links import LinkRows
from .notes import NoteRows
from .schema import MIGRATIONS
from .search_rows import SearchRows
from .vault_log import VaultLogRows

DISK_HINT = "free some disk space (or raise the file size limit) and try again; what failed was not stored"


def _disk_trouble(exc: sqlite3.Error) -> bool:
    """A full disk, a file-size limit (EFBIG) or an I/O error: SQLite says "disk" or "full"."""
    text = str(exc).lower()
    return "disk" in text or "full" in text


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Store(DreamRows, LifecycleRows, LinkRows, ExportRows, JobRows, CheckRows, NoteRows, VaultLogRows, KeywordSearch, SearchRows):
    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            from ..security import private_file

            private_file(path)  # 0600 before SQLite opens it: its -wal/-shm files take the same mode
            self.conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=30)
        except (sqlite3.Error, OSError) as exc:
            raise StorageError(f"cannot open the store at {path}: {exc}") from exc
        self.conn.row_factory = sqlite3.Row
        self.lock = threading.RLock()
        self._depth = 0
        try:
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.execute("PRAGMA foreign_keys=ON")
            self._migrate()
        except sqlite3.DatabaseError as exc:
            self.conn.close()
            raise StorageError(
                f"the store at {path} is not a valid mnemo database: {exc}",
                hint="restore it from a backup, or point --home at a new folder",
            ) from exc

    # -- plumbing ---------------------------------------------------------------------------
    def close(self) -> None:
        with self.lock:
            self.conn.close()

    @contextmanager
    def tx(self) -> Iterator[sqlite3.Connection]:
        """A transaction (nested calls join the outer one). Commits on success, rolls back on
        any exception, so nothing is half-written."""
        with self.lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self.conn
                finally:
                    self._depth -= 1
                return
            self._depth = 1
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException as exc:
                self._rollback()
                if isinstance(exc, sqlite3.OperationalError) and _disk_trouble(exc):
                    raise StorageError(f"the store could not be written: {exc}", hint=DISK_HINT) from exc
                raise
            else:
                try:
                    faults.point()
                    self.conn.execute("COMMIT")
                except sqlite3.Error as exc:
                    self._rollback()
                    raise StorageError(f"could not commit to the store: {exc}",
                                       hint=DISK_HINT if _disk_trouble(exc) else None) from exc
            finally:
                self._depth = 0

    def _rollback(self) -> None:
        """Roll back if a transaction is still open: SQLite ends it by itself after some errors
        (a full disk, an I/O error), and a second ROLLBACK would hide the real error."""
        if self.conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute("ROLLBACK")

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[sqlite3.Row]:
        with self.lock:
            return self.conn.execute(sql, params).fetchall()

    def query_in(self, sql: str, ids: Sequence[Any], size: int = 500) -> list[sqlite3.Row]:
        """``sql`` with its one ``{marks}`` filled by placeholders, run over ``ids`` (duplicates
        dropped) a slice at a time: SQLite caps the parameters of one statement."""
        unique = list(dict.fromkeys(ids))
        out: list[sqlite3.Row] = []
        for i in range(0, len(unique), size):
            part = unique[i : i + size]
            out += self.query(sql.format(marks=",".join("?" * len(part))), part)
        return out

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> sqlite3.Cursor:
        with self.lock:
            if not self._depth:
                faults.point()  # an autocommitted statement is a durable write of its own
            try:
                return self.conn.execute(sql, params)
            except sqlite3.OperationalError as exc:
                if _disk_trouble(exc):
                    raise StorageError(f"the store could not be written: {exc}", hint=DISK_HINT) from exc
                raise

    def _migrate(self) -> None:
        self.conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at REAL)")
        done = {r[0] for r in self.conn.execute("SELECT name FROM schema_migrations")}
        for name, sql in MIGRATIONS:
            if name in done:
                continue
            # executescript commits implicitly, so the migration and its record go in one script.
            self.conn.executescript(
                f"BEGIN;\n{sql}\nINSERT INTO schema_migrations VALUES ('{name}', strftime('%s','now'));\nCOMMIT;"
            )

    def migrations(self) -> list[str]:
        return [r[0] for r in self.query("SELECT name FROM schema_migrations ORDER BY name")]

    # -- memories ---------------------------------------------------------------------------
    @staticmethod
    def _row_to_memory(row: sqlite3.Row) -> Memory:
        return row_to_memory(row)

    @staticmethod
    def _memory_to_row(m: Memory) -> dict[str, Any]:
        row = {k: getattr(m, k) for k in SCALAR}
        for k in ("type", "layer", "status", "source"):
            row[k] = str(row[k])
        row["pinned"] = int(m.pinned)
        row["fingerprint"] = json.dumps(m.fingerprint.to_dict(), ensure_ascii=False)
        row["tags"] = json.dumps(list(m.tags), ensure_ascii=False)
        row["meta"] = json.dumps(m.meta, ensure_ascii=False)
        row["content_hash"] = content_hash(m.content)
        return row

    def insert_memories(self, memories: Iterable[Memory]) -> None:
        memories = list(memories)
        rows = [self._memory_to_row(m) for m in memories]
        if not rows:
            return
        cols = list(rows[0])
        sql = f"INSERT INTO memories ({', '.join(cols)}) VALUES ({', '.join(':' + c for c in cols)})"
        with self.tx() as conn:
            conn.executemany(sql, rows)
            # The FTS row shares the memory's rowid, so it can be found without a scan (the
            # id column of an FTS5 table is not indexed).
            conn.executemany(
                "INSERT INTO memories_fts (rowid, id, content, tags, context) "
                "VALUES ((SELECT rowid FROM memories WHERE id = ?), ?, ?, ?, ?)",
                [(r["id"], r["id"], r["content"], " ".join(json.loads(r["tags"])), context_of(m.meta))
                 for r, m in zip(rows, memories, strict=True)],
            )

    def update_memory(self, memory: Memory) -> None:
        """Write every field of ``memory`` back (the row must exist); the FTS row is rewritten
        only when the content or the tags changed."""
        row = self._memory_to_row(memory)
        sets = ", ".join(f"{c} = :{c}" for c in row if c != "id")
        with self.tx() as conn:
            old = conn.execute("SELECT rowid, content_hash, tags, json_extract(meta, '$.context') AS context "
                               "FROM memories WHERE id = ?", (memory.id,)).fetchone()
            if old is None:
                raise StorageError(f"memory {memory.id} vanished during an update")
            conn.execute(f"UPDATE memories SET {sets} WHERE id = :id", row)
            context = context_of(memory.meta)
            if old["content_hash"] != row["content_hash"] or old["tags"] != row["tags"] or (old["context"] or "") != context:
                conn.execute("DELETE FROM memories_fts WHERE rowid = ?", (old["rowid"],))
                conn.execute(FTS_INSERT, (old["rowid"], memory.id, memory.content, " ".join(memory.tags), context))

    def get_memory(self, memory_id: str) -> Memory | None:
        rows = self.query("SELECT * FROM memories WHERE id = ?", (memory_id,))
        return self._row_to_memory(rows[0]) if rows else None

    def get_memories(self, ids: Sequence[str]) -> dict[str, Memory]:
        return {row["id"]: self._row_to_memory(row) for row in self.query_in("SELECT * FROM memories WHERE id IN ({marks})", ids)}

    def queue_enrich(self, ids: Sequence[str], at: float) -> None:
        """Queue memories for their fingerprint and links (``graph.enrich``)."""
        with self.tx() as conn:
            conn.executemany("INSERT OR IGNORE INTO enrich_queue (memory_id, queued_at) VALUES (?, ?)", [(i, at) for i in ids])

    def count_rows(self, table: str) -> int:
        """Rows of one of the store's own tables (``stats``)."""
        if table not in ("uses", "activity_days", "notes", "chunks", "links", "memories"):
            raise ValueError(f"not a counted table: {table}")
        return int(self.query(f"SELECT count(*) FROM {table}")[0][0])

    def session_use_ids(self, session_id: str, limit: int) -> list[str]:
        """Ids of the memories used in one session, last used first."""
        rows = self.query(
            "SELECT memory_id, max(at) AS last FROM uses WHERE json_valid(context) "
            "AND json_extract(context, '$.session_id') = ? GROUP BY memory_id ORDER BY last DESC LIMIT ?",
            (session_id, limit),
        )
        return [r[0] for r in rows]

    def set_embed_model(self, ids: Sequence[str], model_hash: str) -> None:
        """Record which model made these memories' vectors."""
        with self.tx() as conn:
            conn.executemany("UPDATE memories SET embed_model = ? WHERE id = ?", [(model_hash, i) for i in ids])

    def note_of_handle(self, handle: str) -> tuple[str, str | None] | None:
        """(path, mnemo_id) of the note a recall hit named: a passage id (``<note uid>:<n>``, or
        the first 8+ characters of it as the CLI prints them) or the note's path (with the
        ``#heading`` that ``context`` adds)."""
        rows = self.query("SELECT n.path, n.mnemo_id FROM chunks c JOIN notes n ON n.uid = c.note_uid WHERE c.id = ?",
                          (handle,))
        if not rows and len(handle) >= 8 and all(ch in "0123456789abcdef" for ch in handle):
            rows = self.query("SELECT path, mnemo_id FROM notes WHERE uid LIKE ? || '%' LIMIT 2", (handle,))
            if len(rows) > 1:
                raise InvalidInput(f"id prefix {handle!r} is ambiguous", hint="give more characters of the id")
        if not rows:
            path = handle.split("#", 1)[0]  # `context` names a passage as path#heading
            rows = self.query("SELECT path, mnemo_id FROM notes WHERE path = ? OR path = ? || '.md'", (path, path))
        return (rows[0][0], rows[0][1]) if rows else None

    def existing_ids(self, ids: Sequence[str], limit: int | None = None) -> list[str]:
        """Which of ``ids`` the store holds (at most ``limit`` of them)."""
        out = [r[0] for r in self.query_in("SELECT id FROM memories WHERE id IN ({marks})", ids)]
        return out if limit is None else out[:limit]

    def find_prefix(self, prefix: str) -> list[str]:
        """Ids that start with ``prefix`` (users type short ids)."""
        # ``%`` and ``_`` in what the user typed are characters, not LIKE wildcards.
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        return [r[0] for r in self.query("SELECT id FROM memories WHERE id LIKE ? || '%' ESCAPE '\\' LIMIT 3", (escaped,))]

    def list_memories(
        self,
        status: str | Sequence[str] | None = None,
        type: str | None = None,
        tag: str | None = None,
        layer: str | None = None,
        wing: str | None = None,
        room: str | None = None,
        limit: int | None = None,
        order: str = "created_at DESC",
    ) -> list[Memory]:
        where, params = self.filter_sql(status=status, type=type, tag=tag, layer=layer, wing=wing, room=room)
        sql = f"SELECT * FROM memories {where} ORDER BY {order}"
        if limit:
            sql += f" LIMIT {int(limit)}"
        return [self._row_to_memory(r) for r in self.query(sql, params)]

    @staticmethod
    def filter_sql(
        status: str | Sequence[str] | None = None,
        type: str | None = None,
        tag: str | None = None,
        layer: str | None = None,
        wing: str | None = None,
        room: str | None = None,
        alias: str = "",
    ) -> tuple[str, list[Any]]:
        p = f"{alias}." if alias else ""
        clauses: list[str] = []
        params: list[Any] = []
        if status:
            statuses = [status] if isinstance(status, str) else list(status)
            clauses.append(f"{p}status IN ({','.join('?' * len(statuses))})")
            params += statuses
        for col, value in (("type", type), ("layer", layer), ("wing", wing), ("room", room)):
            if value:
                clauses.append(f"{p}{col} = ?")
                params.append(value)
        if tag:
            clauses.append(f"EXISTS (SELECT 1 FROM json_each({p}tags) WHERE value = ?)")
            params.append(tag)
        return ("WHERE " + " AND ".join(clauses) if clauses else ""), params

    def iter_memories(self, batch: int = 1000, status: Sequence[str] | None = None) -> Iterator[list[Memory]]:
        last = ""
        where_status, params = self.filter_sql(status=status)
        extra = where_status.replace("WHERE", "AND") if where_status else ""
        while True:
            rows = self.query(
                f"SELECT * FROM memories WHERE id > ? {extra} ORDER BY id LIMIT ?", [last, *params, batch]
            )
            if not rows:
                return
            yield [self._row_to_memory(r) for r in rows]
            last = rows[-1]["id"]

    def count(self, status: str | Sequence[str] | None = None) -> int:
        where, params = self.filter_sql(status=status)
        return int(self.query(f"SELECT count(*) FROM memories {where}", params)[0][0])

    def counts_by(self, column: str) -> dict[str, int]:
        assert column in ("status", "type", "layer", "wing")
        return {str(r[0]): int(r[1]) for r in self.query(f"SELECT {column}, count(*) FROM memories GROUP BY {column}")}

    def ids_by_hash(self, digest: str) -> list[str]:
        return [r[0] for r in self.query("SELECT id FROM memories WHERE content_hash = ?", (digest,))]

    # -- uses and activity days -------------------------------------------------------------
    def add_uses(self, rows: Iterable[tuple[str, float, str, str | None]]) -> None:
        with self.tx() as conn:
            conn.executemany("INSERT INTO uses (memory_id, at, kind, context) VALUES (?, ?, ?, ?)", list(rows))

    def use_times(self, memory_id: str, since: float | None = None) -> list[float]:
        rows = self.query(
            "SELECT at FROM uses WHERE memory_id = ? AND at >= ? ORDER BY at", (memory_id, since or 0.0)
        )
        return [float(r[0]) for r in rows]

    def use_times_many(self, ids: Sequence[str], since: float | None = None) -> dict[str, list[float]]:
        """Use timestamps of many memories (id → sorted times), one query per 500 ids."""
        out: dict[str, list[float]] = {}
        ids = list(dict.fromkeys(ids))
        for i in range(0, len(ids), 500):
            part = ids[i : i + 500]
            marks = ",".join("?" * len(part))
            for r in self.query(
                f"SELECT memory_id, at FROM uses WHERE memory_id IN ({marks}) AND at >= ? ORDER BY at",
                [*part, since or 0.0],
            ):
                out.setdefault(r[0], []).append(float(r[1]))
        return out

    def mark_activity(self, at: float) -> None:
        self.execute("INSERT OR IGNORE INTO activity_days (day, first_at) VALUES (?, ?)", (day_of(at), at))

    def activity_days_between(self, start: float, end: float) -> int:
        """Activity days strictly after ``start``'s day, up to and including ``end``'s day."""
        if end <= start:
            return 0
        rows = self.query(
            "SELECT count(*) FROM activity_days WHERE day > ? AND day <= ?", (day_of(start), day_of(end))
        )
        return int(rows[0][0])

    def activity_day_list(self) -> list[str]:
        return [r[0] for r in self.query("SELECT day FROM activity_days ORDER BY day")]

    # -- links ------------------------------------------------------------------------------
    def add_links(self, links: Iterable[Link]) -> int:
        rows = []
        for ln in links:
            rows.append((ln.src, ln.dst, ln.rel, "out", ln.origin, ln.weight, ln.created_at))
            rows.append((ln.dst, ln.src, ln.rel, "in", ln.origin, ln.weight, ln.created_at))
        with self.tx() as conn:
            before = conn.total_changes
            conn.executemany(
                "INSERT OR IGNORE INTO links (src, dst, rel, dir, origin, weight, created_at) VALUES (?,?,?,?,?,?,?)",
                rows,
            )
            return (conn.total_changes - before) // 2

    def remove_links(self, src: str, dst: str, rel: str | None = None) -> int:
        with self.tx() as conn:
            if rel is None:
                cur = conn.execute(
                    "DELETE FROM links WHERE (src = ? AND dst = ? AND dir = 'out') OR (src = ? AND dst = ? AND dir = 'in')",
                    (src, dst, dst, src),
                )
            else:
                cur = conn.execute(
                    "DELETE FROM links WHERE rel = ? AND ((src = ? AND dst = ? AND dir = 'out') "
                    "OR (src = ? AND dst = ? AND dir = 'in'))",
                    (rel, src, dst, dst, src),
                )
            return cur.rowcount // 2

    def remove_all_links(self, memory_id: str) -> int:
        with self.tx() as conn:
            cur = conn.execute("DELETE FROM links WHERE src = ? OR dst = ?", (memory_id, memory_id))
            return cur.rowcount // 2

    def links_of(self, memory_id: str, direction: str | None = None, rel: str | None = None) -> list[Link]:
        """Links touching ``memory_id``, each in its true direction (src → dst)."""
        sql = "SELECT * FROM links WHERE src = ?"
        params: list[Any] = [memory_id]
        if direction:
            sql += " AND dir = ?"
            params.append(direction)
        if rel:
            sql += " AND rel = ?"
            params.append(rel)
        out = []
        for r in self.query(sql, params):
            src, dst = (r["src"], r["dst"]) if r["dir"] == "out" else (r["dst"], r["src"])
            out.append(Link(src, dst, r["rel"], r["origin"], float(r["weight"]), float(r["created_at"])))
        return out

    def inbound_counts(self, ids: Sequence[str]) -> dict[str, int]:
        """Inbound links per memory, for the hub score. ``shares_entity:*`` links are left out:
        they are dense structural links (MIRA counts entities in its own entity-hub term), and
        counting them would make every memory that names a popular entity a hub."""
        out: dict[str, int] = {}
        for i in range(0, len(ids), 500):
            part = list(ids[i : i + 500])
            marks = ",".join("?" * len(part))
            for r in self.query(
                f"SELECT src, count(*) FROM links WHERE dir = 'in' AND rel NOT LIKE 'shares_entity:%' "
                f"AND src IN ({marks}) GROUP BY src",
                part,
            ):
                out[r[0]] = int(r[1])
        return out

    def count_links(self) -> int:
        return int(self.query("SELECT count(*) FROM links WHERE dir = 'out'")[0][0])

    # -- key/value and jobs -----------------------------------------------------------------
    def kv_get(self, key: str, default: str | None = None) -> str | None:
        rows = self.query("SELECT value FROM kv WHERE key = ?", (key,))
        return rows[0][0] if rows else default

    def kv_set(self, key: str, value: str) -> None:
        self.execute("INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))

    def job_start(self, name: str, at: float) -> int:
        cur = self.execute("INSERT INTO jobs (name, started_at, status) VALUES (?, ?, 'running')", (name, at))
        return int(cur.lastrowid or 0)

    def job_finish(self, job_id: int, at: float, status: str, detail: dict[str, Any] | None = None) -> None:
        self.execute(
            "UPDATE jobs SET finished_at = ?, status = ?, detail = ? WHERE id = ?",
            (at, status, json.dumps(detail or {}, default=str), job_id),
        )

    def jobs(self, name: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
        sql = "SELECT * FROM jobs" + (" WHERE name = ?" if name else "") + " ORDER BY id DESC LIMIT ?"
        params: list[Any] = [name, limit] if name else [limit]
        return [
            {**dict(r), "detail": json.loads(r["detail"]) if r["detail"] else None} for r in self.query(sql, params)
        ]
