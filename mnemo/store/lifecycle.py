"""What the lifecycle writes besides whole memories: a person's demotions, the int8 vectors of
cold storage, the few columns the dream changes in place, and the uses a merge hands on."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .rows import Rows

# Columns a dream step may change in place: none of them is in the keyword index (content and
# tags are), so no FTS row needs rewriting.
SETTABLE = frozenset({"status", "layer", "archived_at", "updated_at", "meta", "note_path", "importance", "superseded_by"})


class LifecycleRows(Rows):
    """Mixin of ``Store``: demotions, cold vectors and in-place changes of memories."""

    # -- demotions (lifecycle/demotion.py) ----------------------------------------------------
    def record_demotion(self, memory_id: str, at: float) -> None:
        """A person demoted the memory at ``at`` (a later demotion replaces the time)."""
        self.execute("INSERT INTO demotions (memory_id, at) VALUES (?, ?) "
                     "ON CONFLICT(memory_id) DO UPDATE SET at = excluded.at", (memory_id, at))

    def clear_demotion(self, memory_id: str) -> None:
        """The memory was promoted again: its demotion no longer counts."""
        self.execute("DELETE FROM demotions WHERE memory_id = ?", (memory_id,))

    def demotions_of(self, ids: Sequence[str]) -> dict[str, tuple[float, int]]:
        """Demoted memories among ``ids``: id → (when, how many uses since)."""
        rows = self.query_in(
            "SELECT d.memory_id, d.at, count(u.at) FROM demotions d "
            "LEFT JOIN uses u ON u.memory_id = d.memory_id AND u.at > d.at "
            "WHERE d.memory_id IN ({marks}) GROUP BY d.memory_id", ids)
        return {r[0]: (float(r[1]), int(r[2])) for r in rows}

    # -- cold storage (lifecycle/cold.py) -------------------------------------------------------
    def set_cold_vector(self, memory_id: str, blob: bytes, scale: float) -> None:
        """Keep a frozen memory's quantized vector."""
        self.execute("UPDATE memories SET cold_vector = ?, cold_scale = ? WHERE id = ?", (blob, scale, memory_id))

    def cold_vector(self, memory_id: str) -> tuple[bytes, float] | None:
        """A memory's quantized vector and its scale, if it has one."""
        rows = self.query("SELECT cold_vector, cold_scale FROM memories WHERE id = ?", (memory_id,))
        if not rows or rows[0][0] is None:
            return None
        return rows[0][0], float(rows[0][1])

    def clear_cold_vector(self, memory_id: str) -> None:
        """The memory's vector is back in the hot index."""
        self.execute("UPDATE memories SET cold_vector = NULL, cold_scale = NULL WHERE id = ?", (memory_id,))

    # -- in-place changes of the dream ----------------------------------------------------------
    def set_memory_fields(self, memory_id: str, fields: dict[str, Any]) -> None:
        """Change a few ``SETTABLE`` columns of a memory without rewriting its FTS row."""
        unknown = set(fields) - SETTABLE
        if unknown:
            raise ValueError(f"set_fields cannot set {sorted(unknown)}")
        cols = {k: (json.dumps(v, ensure_ascii=False) if k == "meta" else (v.value if hasattr(v, "value") else v))
                for k, v in fields.items()}
        sets = ", ".join(f"{k} = :{k}" for k in cols)
        self.execute(f"UPDATE memories SET {sets} WHERE id = :id", {**cols, "id": memory_id})

    def set_superseded_by(self, memory_id: str, newer_id: str) -> None:
        """Mark a memory as superseded by a newer one."""
        self.execute("UPDATE memories SET superseded_by = ? WHERE id = ?", (newer_id, memory_id))

    def copy_uses(self, to_id: str, from_ids: Sequence[str]) -> None:
        """Give ``to_id`` a copy of every use of ``from_ids`` (a merge keeps its members' history)."""
        marks = ",".join("?" * len(from_ids))
        self.execute(f"INSERT INTO uses (memory_id, at, kind, context) SELECT ?, at, kind, context FROM uses "
                     f"WHERE memory_id IN ({marks})", [to_id, *from_ids])
