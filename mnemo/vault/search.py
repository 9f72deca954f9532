"""Recall over the long-term tier: candidate note chunks from FTS5 (BM25) and Chroma (cosine).

The recall pipeline fuses these rankings with the memory rankings. The searching itself is the
search layer's (``index.keywords.chunk_bm25``, ``index.vectors.chunk_vectors``); this module
turns chunk ids into hits of the vault's notes.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..index.keywords import chunk_bm25
from ..index.vectors import CHUNKS, chunk_vectors
from ..models import Hit

if TYPE_CHECKING:
    from ..core import Core

COLLECTION = CHUNKS


def keyword_chunks(core: Core, query: str, n: int, mode: str = "or") -> list[tuple[str, float]]:
    """(chunk id, bm25 score) best first; bm25() is smaller-is-better so it is negated."""
    return chunk_bm25(core, query, n, mode)


def vector_chunks(core: Core, query_vec: Any, n: int) -> list[tuple[str, float]]:
    """(chunk id, cosine similarity) best first."""
    return chunk_vectors(core, query_vec, n)


def has_chunks(core: Core) -> bool:
    return core.store.has_chunks()


def note_candidates(
    core: Core, query: str, query_vec: Any, n: int
) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    """(BM25 ranking of chunk ids best first, vector ranking of chunk ids best first with cosine
    similarity), ``n`` candidates each. Either list is empty when the vault has no chunks."""
    if not has_chunks(core):
        return [], []
    return keyword_chunks(core, query, n), vector_chunks(core, query_vec, n)


def chunk_hits(core: Core, chunk_ids: list[str]) -> dict[str, Hit]:
    """Hits for chunk ids (unknown ids are left out): ``tier="ltm"``, the note's vault-relative
    path, the chunk's heading and text, and ``meta`` with the note's ``title`` (and its
    ``mnemo_id`` when mnemo owns the note, so recall can fold the memory into its note).
    Scores are left at 0: the caller fuses and sets them."""
    out: dict[str, Hit] = {}
    for r in core.store.chunk_rows(chunk_ids):
        meta: dict[str, Any] = {"title": r["title"], "chunk": int(r["ord"])}
        if r["mnemo_id"]:
            meta["mnemo_id"] = r["mnemo_id"]
        out[r["id"]] = Hit(
            id=r["id"],
            score=0.0,
            content=r["content"],
            tier="ltm",
            meta=meta,
            tags=tuple(json.loads(r["tags"] or "[]")),
            path=r["path"],
            heading=r["heading"],
            created_at=float(r["mtime"]),
        )
    return out
