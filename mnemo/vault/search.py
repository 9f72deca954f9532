"""Recall over the long-term tier: candidate note chunks from FTS5 (BM25) and Chroma (cosine).

The recall pipeline fuses these rankings with the memory rankings; this module only knows the
vault's tables (``chunks``, ``chunks_fts``, ``notes``) and the ``chunks`` vector collection.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..models import Hit
from ..store.sqlite import fts_query

if TYPE_CHECKING:
    from ..core import Core

COLLECTION = "chunks"
# bm25() column weights for chunks_fts (id, title, heading, content, tags): a word in the note's
# title or a heading says more about the chunk than one in its body.
BM25_WEIGHTS = (0.0, 2.0, 1.5, 1.0, 1.0)


def keyword_chunks(core: Core, query: str, n: int, mode: str = "or") -> list[tuple[str, float]]:
    """(chunk id, bm25 score) best first; bm25() is smaller-is-better so it is negated."""
    if mode == "or":
        from ..recall.keywords import prune_common

        # On a big vault a word in most chunks costs the most and ranks the least (see there).
        query = " ".join(prune_common(core, query.split(), table="chunks"))
    match = fts_query(query, mode)
    if match is None or n <= 0:
        return []
    weights = ", ".join(str(w) for w in BM25_WEIGHTS)
    rows = core.store.query(
        f"SELECT id, bm25(chunks_fts, {weights}) AS s FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY s LIMIT ?",
        (match, n),
    )
    return [(r[0], -float(r[1])) for r in rows]


def vector_chunks(core: Core, query_vec: Any, n: int) -> list[tuple[str, float]]:
    """(chunk id, cosine similarity) best first."""
    if n <= 0 or query_vec is None:
        return []
    if not has_chunks(core):
        return []  # do not create an empty collection just to ask it
    if core.store.kv_get("vault.model_hash") != core.embedder.model_hash:
        return []  # vectors of another model (re-embedded at the next index): keyword ranking only
    return core.index.query(COLLECTION, query_vec, n)


def has_chunks(core: Core) -> bool:
    return bool(core.store.query("SELECT 1 FROM chunks LIMIT 1"))


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
    ids = list(dict.fromkeys(chunk_ids))
    for i in range(0, len(ids), 500):
        part = ids[i : i + 500]
        marks = ",".join("?" * len(part))
        rows = core.store.query(
            "SELECT c.id, c.ord, c.heading, c.content, n.path, n.title, n.mnemo_id, n.tags, n.mtime "
            f"FROM chunks c JOIN notes n ON n.uid = c.note_uid WHERE c.id IN ({marks})",
            part,
        )
        for r in rows:
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
