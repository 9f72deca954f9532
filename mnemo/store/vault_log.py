"""The vault's journal (``vault_log``: promotions, demotions, renames, deleted notes) and the
other reads of the dashboard's weekly charts."""

from __future__ import annotations

from .rows import Rows


class VaultLogRows(Rows):
    """Mixin of ``Store``: what happened between the memories and the vault, and when."""

    def log_vault_event(self, at: float, kind: str, memory_id: str | None, path: str | None) -> None:
        """Journal one event of the vault (``promote``, ``deleted``, ...)."""
        self.execute("INSERT INTO vault_log (at, kind, memory_id, path) VALUES (?, ?, ?, ?)", (at, kind, memory_id, path))

    def promotion_times(self, since: float) -> list[float]:
        """When memories were promoted into notes, after ``since``."""
        return [float(r[0]) for r in self.query("SELECT at FROM vault_log WHERE kind = 'promote' AND at > ?", (since,))]

    def archival_times(self, since: float) -> list[float]:
        """When memories archived after ``since`` were archived."""
        return [float(r[0]) for r in self.query("SELECT archived_at FROM memories WHERE archived_at > ?", (since,))]

    def latest_promoted_notes(self, limit: int) -> list[tuple[str, float]]:
        """(note path, last update) of the most recently updated promoted memories' notes."""
        rows = self.query(
            "SELECT note_path, max(updated_at) FROM memories WHERE status = 'promoted' AND note_path IS NOT NULL "
            "GROUP BY note_path ORDER BY max(updated_at) DESC LIMIT ?", (limit,),
        )
        return [(r[0], float(r[1])) for r in rows]
