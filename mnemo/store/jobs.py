"""What the daemon asks the store between requests (was mnemo used, did anything change,
which notes the index knows) and the key/value chores of the hooks."""

from __future__ import annotations

from .rows import Rows


class JobRows(Rows):
    """Mixin of ``Store``: the daemon's jobs and watcher, and deleting a key."""

    def uses_and_new_since(self, since: float) -> int:
        """Uses recorded plus memories created after ``since``."""
        return int(self.query(
            "SELECT (SELECT count(*) FROM uses WHERE at > ?) + (SELECT count(*) FROM memories WHERE created_at > ?)",
            (since, since),
        )[0][0])

    def changed_since(self, since: float) -> bool:
        """A memory saved, used or changed, or a note promoted or demoted, after ``since``."""
        return bool(self.query(
            "SELECT EXISTS(SELECT 1 FROM memories WHERE updated_at > ? OR created_at > ?) "
            "OR EXISTS(SELECT 1 FROM vault_log WHERE at > ?)", (since, since, since))[0][0])

    def indexed_note_hash(self, path: str) -> str | None:
        """The content hash the vault index recorded for the note at ``path``."""
        rows = self.query("SELECT content_hash FROM notes WHERE path = ?", (path,))
        return rows[0][0] if rows else None

    def indexed_notes_under(self, prefix: str) -> list[str]:
        """Paths of indexed notes that start with ``prefix`` (taken literally)."""
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self.query("SELECT path FROM notes WHERE path LIKE ? ESCAPE '\\'", (escaped + "%",))
        return [r[0] for r in rows]

    def kv_delete(self, key: str) -> None:
        """Drop one key of the key/value table."""
        self.execute("DELETE FROM kv WHERE key = ?", (key,))
