"""The dream cycle's tables (``dream_runs``, ``dream_ops``, ``dream_clusters``) and the reads its
steps plan from: the journal of runs and operations, the clusters waiting for a person, the links
that keep memories apart, and what ``prune`` counts and deletes."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from .rows import Rows

# Links that say two memories are deliberately distinct: never near-duplicates of each other.
KEPT_APART = ("split_from", "supersedes", "conflicts", "consolidated_into")
_APART_SQL = ("SELECT src, dst FROM links WHERE dir = 'out' AND rel IN ("
              + ", ".join(f"'{rel}'" for rel in KEPT_APART) + ") AND src IN ({marks})")

# What ``prune`` removes once older than its cutoff, by the name its report gives it.
_PRUNE_COUNTS = {
    "uses": "SELECT count(*) FROM uses WHERE at < ?",
    "jobs": "SELECT count(*) FROM jobs WHERE finished_at IS NOT NULL AND finished_at < ?",
    "dream_runs": "SELECT count(*) FROM dream_runs WHERE status = 'done' AND started_at < ?",
    "clusters": "SELECT count(*) FROM dream_clusters WHERE status IN ('stale', 'merged') AND updated_at < ?",
    "vault_log": "SELECT count(*) FROM vault_log WHERE at < ?",
}


def _cluster(row: sqlite3.Row) -> dict[str, Any]:
    return {**dict(row), "members": json.loads(row["members"])}


class DreamRows(Rows):
    """Mixin of ``Store``: the dream journal, its clusters and the queries of its steps."""

    # -- the journal: runs ------------------------------------------------------------------
    def unfinished_dream_run(self) -> dict[str, Any] | None:
        """The oldest run a crash or a kill left applying."""
        rows = self.query("SELECT * FROM dream_runs WHERE status = 'applying' ORDER BY started_at, id LIMIT 1")
        return dict(rows[0]) if rows else None

    def dream_run(self, run_id: str) -> dict[str, Any] | None:
        """One run's row."""
        rows = self.query("SELECT * FROM dream_runs WHERE id = ?", (run_id,))
        return dict(rows[0]) if rows else None

    def dream_runs(self, limit: int = 20) -> list[dict[str, Any]]:
        """The latest runs, newest first."""
        rows = self.query("SELECT * FROM dream_runs ORDER BY started_at DESC, id DESC LIMIT ?", (limit,))
        return [dict(r) for r in rows]

    def count_dream_runs(self) -> int:
        """Runs in the journal."""
        return int(self.query("SELECT count(*) FROM dream_runs")[0][0])

    def begin_dream_run(self, run_id: str, started_at: float, steps: str,
                        ops: Sequence[tuple[int, str, str, str, str, str]]) -> None:
        """The run and its operations (seq, step, kind, key, summary, payload) in one transaction."""
        with self.tx() as conn:
            conn.execute(
                "INSERT INTO dream_runs (id, started_at, status, steps) VALUES (?, ?, 'applying', ?)",
                (run_id, started_at, steps),
            )
            conn.executemany(
                "INSERT INTO dream_ops (run_id, seq, step, kind, key, summary, payload) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(run_id, *op) for op in ops],
            )

    def finish_dream_run(self, run_id: str, at: float, summary: str, report_path: str | None) -> None:
        """Mark a run done, with its summary and its report note."""
        self.execute(
            "UPDATE dream_runs SET status = 'done', finished_at = ?, summary = ?, report_path = ? WHERE id = ?",
            (at, summary, report_path, run_id),
        )

    # -- the journal: operations --------------------------------------------------------------
    def dream_ops(self, run_id: str) -> list[dict[str, Any]]:
        """A run's operations in order."""
        return [dict(r) for r in self.query("SELECT * FROM dream_ops WHERE run_id = ? ORDER BY seq", (run_id,))]

    def count_dream_attempts(self, run_id: str, seqs: Sequence[int]) -> None:
        """One more attempt at these operations (one transaction)."""
        with self.tx() as conn:
            conn.executemany("UPDATE dream_ops SET attempts = attempts + 1 WHERE run_id = ? AND seq = ?",
                             [(run_id, s) for s in seqs])

    def settle_dream_ops(self, run_id: str, outcomes: Sequence[tuple[int, str, str]], at: float) -> None:
        """Operations (seq, status, result) applied, skipped or failed, in one transaction."""
        with self.tx() as conn:
            conn.executemany(
                "UPDATE dream_ops SET status = ?, result = ?, applied_at = ? WHERE run_id = ? AND seq = ?",
                [(status, result, at, run_id, seq) for seq, status, result in outcomes],
            )

    # -- clusters ---------------------------------------------------------------------------
    def dream_clusters(self) -> dict[str, dict[str, Any]]:
        """Every cluster a run recorded, by id (members decoded)."""
        return {r["id"]: _cluster(r) for r in self.query("SELECT * FROM dream_clusters")}

    def clusters_in_review(self) -> list[dict[str, Any]]:
        """Clusters waiting for a person, most cohesive first (members decoded)."""
        rows = self.query("SELECT * FROM dream_clusters WHERE status = 'review' ORDER BY cohesion DESC, id")
        return [_cluster(r) for r in rows]

    def clusters_named(self, cluster_id: str) -> list[dict[str, Any]]:
        """Clusters whose id is ``cluster_id`` or starts with it (members decoded)."""
        rows = self.query("SELECT * FROM dream_clusters WHERE id = ? OR id LIKE ? || '%'", (cluster_id, cluster_id))
        return [_cluster(r) for r in rows]

    def put_cluster_in_review(self, cluster_id: str, members: list[str], cohesion: float, at: float) -> None:
        """A cluster for a person to judge (a stale one returns to review; a decided one stays)."""
        self.execute(
            "INSERT INTO dream_clusters (id, members, cohesion, status, first_seen, updated_at) "
            "VALUES (?, ?, ?, 'review', ?, ?) ON CONFLICT(id) DO UPDATE SET status = 'review', "
            "updated_at = excluded.updated_at WHERE dream_clusters.status = 'stale'",
            (cluster_id, json.dumps(members), cohesion, at, at),
        )

    def retire_cluster(self, cluster_id: str, at: float) -> None:
        """A review cluster whose memories changed goes stale."""
        self.execute("UPDATE dream_clusters SET status = 'stale', updated_at = ? WHERE id = ? AND status = 'review'",
                     (at, cluster_id))

    def decide_cluster(self, cluster_id: str, status: str, at: float) -> None:
        """A person's decision (accepted or rejected) on a cluster."""
        self.execute("UPDATE dream_clusters SET status = ?, decided_at = ?, updated_at = ? WHERE id = ?",
                     (status, at, at, cluster_id))

    def record_merged_cluster(self, cluster_id: str, members: list[str], cohesion: float, at: float,
                              merged_into: str) -> None:
        """A cluster merged into one memory (joins the caller's transaction)."""
        self.execute(
            "INSERT INTO dream_clusters (id, members, cohesion, status, first_seen, updated_at, merged_into) "
            "VALUES (?, ?, ?, 'merged', ?, ?, ?) ON CONFLICT(id) DO UPDATE SET status = 'merged', "
            "updated_at = excluded.updated_at, merged_into = excluded.merged_into",
            (cluster_id, json.dumps(members), cohesion, at, at, merged_into),
        )

    # -- what the steps plan from -------------------------------------------------------------
    def pairs_kept_apart(self, ids: Iterable[str]) -> set[tuple[str, str]]:
        """(smaller id, larger id) of the pairs among links from ``ids`` that keep two memories apart."""
        return {(min(r[0], r[1]), max(r[0], r[1])) for r in self.query_in(_APART_SQL, sorted(ids))}

    def conflict_links(self) -> list[tuple[str, str]]:
        """(src, dst) of every ``conflicts`` link."""
        return [(r[0], r[1]) for r in self.query("SELECT src, dst FROM links WHERE dir = 'out' AND rel = 'conflicts'")]

    def split_originals(self) -> set[str]:
        """Memories that pieces were split from."""
        return {r[0] for r in self.query("SELECT DISTINCT src FROM links WHERE rel = 'split_from' AND dir = 'in'")}

    def live_ids_naming(self, names: Sequence[str]) -> list[str]:
        """Active and promoted memories whose entities include one of ``names`` (lower case)."""
        marks = ",".join("?" * len(names))
        rows = self.query(
            "SELECT id FROM memories m WHERE m.status IN ('active', 'promoted') AND EXISTS (SELECT 1 FROM "
            f"json_each(json_extract(m.fingerprint, '$.entities')) e WHERE lower(e.value) IN ({marks}))",
            list(names),
        )
        return [r[0] for r in rows]

    def has_entity_table(self) -> bool:
        """Whether the graph's ``memory_entities`` table exists yet."""
        return bool(self.query("SELECT 1 FROM sqlite_master WHERE name = 'memory_entities'"))

    # -- prune --------------------------------------------------------------------------------
    def prune_counts(self, cutoff: float) -> dict[str, int]:
        """Rows older than ``cutoff`` that ``prune_before`` would delete, by what they are."""
        return {name: int(self.query(sql, (cutoff,))[0][0]) for name, sql in _PRUNE_COUNTS.items()}

    def prune_before(self, cutoff: float) -> None:
        """Delete the logs and journals older than ``cutoff`` (one transaction)."""
        with self.tx() as conn:
            conn.execute("DELETE FROM uses WHERE at < ?", (cutoff,))
            conn.execute("DELETE FROM jobs WHERE finished_at IS NOT NULL AND finished_at < ?", (cutoff,))
            conn.execute("DELETE FROM dream_ops WHERE run_id IN (SELECT id FROM dream_runs WHERE status = 'done' AND started_at < ?)", (cutoff,))
            conn.execute("DELETE FROM dream_runs WHERE status = 'done' AND started_at < ?", (cutoff,))
            conn.execute("DELETE FROM dream_clusters WHERE status IN ('stale', 'merged') AND updated_at < ?", (cutoff,))
            conn.execute("DELETE FROM vault_log WHERE at < ?", (cutoff,))
