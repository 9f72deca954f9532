"""Rebuilding every derived index from its truth: FTS5 and Chroma from the store, the notes'
index from the vault (``mnemo reindex``, and the doctor's repair of a changed model)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .results import ReindexResult

if TYPE_CHECKING:
    from .core import Core, Progress


def reindex(core: Core, progress: Progress | None = None) -> ReindexResult:
    with core.write_lock:
        fts = core.store.fts_rebuild()
        _ = core.index  # opening checks the model
        vectors = core.rebuild_vectors(progress)
        core.store.kv_set("index.model_hash", core.embedder.model_hash)
        core.store.kv_set("index.model_name", core.embedder.name)
    result: ReindexResult = {"fts": fts, "vectors": vectors}
    if core.settings.vault is not None and core.settings.vault.is_dir():
        from .vault import indexer, vault_lock

        with vault_lock(core):  # the notes' index is derived too: rebuilt from the vault
            result["notes"] = indexer.rebuild(core)["notes"]
    return result
