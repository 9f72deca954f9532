"""What the steps share while planning (a read-only view of the store, the index and the vault)
and while applying (the run, the note history, and the vector writes waiting to be flushed)."""

from __future__ import annotations

import logging
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ...clock import DAY
from ...errors import ConfigError
from ...models import Memory, Status

if TYPE_CHECKING:
    from ...config import DreamSettings
    from ...core import Core

log = logging.getLogger(__name__)

LIVE = ("active", "promoted")


@dataclass
class PlanContext:
    """Planning reads and never writes. Steps plan in order over the same starting state;
    ``claimed`` holds the memories an earlier step already takes away (archives, freezes,
    merges), so a later step does not plan changes to them."""

    core: Core
    now: float
    cfg: DreamSettings
    vault: Path | None
    claimed: set[str] = field(default_factory=set)
    shared: dict[str, Any] = field(default_factory=dict)  # results one step computes for another (clusters)
    planned: list[Any] = field(default_factory=list)  # the operations earlier steps planned (journal.Op)
    _live: dict[str, Memory] | None = None
    _live_view: dict[str, Memory] | None = None
    _live_claimed: int = -1
    _vectors: dict[str, np.ndarray] = field(default_factory=dict)

    def all_live(self) -> dict[str, Memory]:
        if self._live is None:
            self._live = {}
            for batch in self.core.store.iter_memories(batch=2000, status=LIVE):
                for m in batch:
                    self._live[m.id] = m
        return self._live

    def live(self) -> dict[str, Memory]:
        """Active and promoted memories no earlier step has claimed, by id (sorted by id).
        Cached until ``claimed`` grows (it only ever grows)."""
        if self._live_view is None or self._live_claimed != len(self.claimed):
            self._live_view = {i: m for i, m in self.all_live().items() if i not in self.claimed}
            self._live_claimed = len(self.claimed)
        return self._live_view

    def planned_ids(self, kinds: set[str] | frozenset[str] | None = None) -> set[str]:
        """Live memories that an operation planned so far (of ``kinds``, or any) names in its
        key or payload: a later step that only mirrors memories (a peer card) must not skip
        them as unchanged."""
        live = self.all_live()
        found: set[str] = set()

        def walk(value: Any) -> None:
            if isinstance(value, str):
                found.update(part for part in value.split(">") if part in live)
            elif isinstance(value, dict):
                for v in value.values():
                    walk(v)
            elif isinstance(value, list | tuple):
                for v in value:
                    walk(v)

        for op in self.planned:
            if kinds is not None and op.kind not in kinds:
                continue
            walk(op.key)
            walk(op.payload)
        return found

    def vectors(self, ids: list[str]) -> dict[str, np.ndarray]:
        want = [i for i in ids if i not in self._vectors]
        if want:
            self._vectors.update(self.core.index.get_vectors("memories", want))
        return {i: self._vectors[i] for i in ids if i in self._vectors}

    def age_days(self, m: Memory) -> float:
        return max(0.0, self.now - m.created_at) / DAY


class ApplyContext:
    """Applying one run. Vector-index writes are collected and flushed once per group of
    operations (Chroma costs tens of milliseconds per write call); an operation is marked
    applied only after its group was flushed, so a kill before the flush redoes it."""

    def __init__(self, core: Core, run_id: str, now: float, started_at: float) -> None:
        self.core = core
        self.run_id = run_id
        self.now = now
        self.started_at = started_at
        self.cfg = core.settings.dream
        self.vault: Path | None = core.settings.vault if core.settings.vault and core.settings.vault.is_dir() else None
        self.upserts: dict[str, np.ndarray | None] = {}  # id → vector (None: embed its content at the flush)
        self.meta: set[str] = set()
        self.freeze: dict[str, Memory] = {}

    # -- the vector index -------------------------------------------------------------------
    def upsert(self, memory_id: str, vector: np.ndarray | None = None) -> None:
        self.upserts[memory_id] = vector

    def touch_meta(self, *ids: str) -> None:
        self.meta.update(ids)

    def freeze_later(self, m: Memory) -> None:
        self.freeze[m.id] = m

    def flush(self) -> None:
        """Bring the vector index in line with the store for everything the pending operations
        changed. Every write is to the final state (upsert, metadata of the current row), so
        flushing again after a crash is harmless."""
        from ..cold import freeze

        core = self.core
        if not (self.upserts or self.meta or self.freeze):
            return
        ids = list(dict.fromkeys([*self.upserts, *self.meta]))
        current = core.store.get_memories(ids)
        hot = {i: m for i, m in current.items() if m.status != Status.COLD}
        up_ids = [i for i in self.upserts if i in hot]
        vectors = {i: v for i in up_ids if (v := self.upserts[i]) is not None}
        missing = [i for i in up_ids if i not in vectors]
        if missing:
            vecs = core.embedder.embed([hot[i].content for i in missing])
            for i, v in zip(missing, vecs, strict=True):
                self.upserts[i] = vectors[i] = v
        meta_ids = [i for i in dict.fromkeys(self.meta) if i in hot and i not in self.upserts]
        with core.writes(transaction=False) as w:  # the store is written already: only the index
            if up_ids:
                w.upsert([hot[i] for i in up_ids], np.stack([vectors[i] for i in up_ids]))
            w.update_meta([hot[i] for i in meta_ids])
        if self.freeze:
            rows = core.store.get_memories(list(self.freeze))
            todo = [m for m in rows.values() if m.status != Status.COLD]
            done = [i for i, m in rows.items() if m.status == Status.COLD]
            if todo:
                freeze(core, todo)
            if done:  # frozen by an earlier attempt that died before the index delete
                with core.writes(transaction=False) as w:
                    w.delete(done)
        self.upserts.clear()
        self.meta.clear()
        self.freeze.clear()

    # -- note history -------------------------------------------------------------------------
    def history_root(self) -> Path:
        return history_root(self.core)

    def keep_copy(self, rel: str) -> str | None:
        """Copy a note into the history folder before it is rewritten or moved. An earlier
        attempt's copy is kept as it is: it holds the note as it was before this run."""
        if self.vault is None:
            return None
        src = self.vault / rel
        if not src.is_file():
            return None
        dst = self.history_root() / history_dir_name(self.started_at, self.run_id) / rel
        if not dst.resolve().is_relative_to(self.history_root().resolve()):
            raise ConfigError(f"refusing to keep a copy of {rel} outside the history folder")
        if not dst.exists():
            from ...security import FILE_MODE, private_dir

            # The history is in MNEMO_HOME, so it is private like the rest (folders 0700, copies
            # 0600); mkdir(parents=True) would give the folders between the process umask.
            root = self.history_root()
            parts = dst.parent.relative_to(root).parts
            for depth in range(len(parts) + 1):
                private_dir(root.joinpath(*parts[:depth]))
            tmp = dst.with_name(f".{dst.name}.part")
            shutil.copy2(src, tmp)
            tmp.chmod(FILE_MODE)
            tmp.replace(dst)
        return str(dst.relative_to(self.core.home))


def history_root(core: Core) -> Path:
    """The history folder: always inside MNEMO_HOME (mnemo writes nowhere else but the vault)."""
    folder = Path(core.settings.dream.history_folder or "dream-history").expanduser()
    home = core.home.resolve()
    root = (folder if folder.is_absolute() else home / folder).resolve()
    if root == home or not root.is_relative_to(home):
        raise ConfigError(f"dream.history_folder {folder} is not a folder inside MNEMO_HOME ({home})",
                          hint="use a relative name such as dream-history")
    return root


def history_dir_name(started_at: float, run_id: str) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(started_at, tz=UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + run_id


def set_fields(core: Core, memory_id: str, **fields: Any) -> None:
    """Change a few columns of a memory in place (``Store.set_memory_fields``). Only fields
    outside the keyword index, so no FTS rewrite is needed: with thousands of memories a full
    ``update_memory`` costs an FTS scan per call."""
    core.store.set_memory_fields(memory_id, fields)
