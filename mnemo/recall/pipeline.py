"""The recall pipeline (design.md §6).

1. Candidates: BM25 over FTS5 and cosine over Chroma, each with the same filters.
2. Weighted reciprocal rank fusion with the intent's BM25/vector weights.
3. Top k as hits; reinforce what is returned unless ``touch=False``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import InvalidInput
from ..models import Hit
from .fusion import INTENT_WEIGHTS, weighted_rrf

if TYPE_CHECKING:
    from ..engine import Mnemo

DEFAULT_STATUSES = ("active", "promoted")


def resolve_intent(query: str, intent: str | None, default: str) -> str:
    """An explicit intent wins; a query wrapped in quotes is an exact-phrase search."""
    if intent:
        if intent not in INTENT_WEIGHTS:
            raise InvalidInput(f"unknown intent {intent!r}", hint=f"choose one of: {', '.join(INTENT_WEIGHTS)}")
        return intent
    q = query.strip()
    if len(q) > 2 and q[0] == q[-1] == '"':
        return "exact"
    return default


def recall(
    engine: Mnemo,
    query: str,
    k: int = 10,
    touch: bool = True,
    intent: str | None = None,
    tier: str = "all",
    status: str | None = None,
    **filters: Any,
) -> list[Hit]:
    if not isinstance(query, str) or not query.strip():
        raise InvalidInput("the query is empty", hint="say what to recall")
    if k < 1:
        raise InvalidInput("k must be at least 1")
    if tier not in ("all", "stm", "ltm"):
        raise InvalidInput(f"unknown tier {tier!r}", hint="choose stm, ltm or all")
    intent = resolve_intent(query, intent, engine.settings.recall.intent)
    w_bm25, w_vec = INTENT_WEIGHTS[intent]
    n = max(engine.settings.recall.candidates, k * 3)
    statuses = (status,) if status else DEFAULT_STATUSES
    sql_filters = {"status": statuses, **{k_: v for k_, v in filters.items() if v}}
    bm = engine.store.fts_search(query, limit=n, filters=sql_filters)
    where: dict[str, Any] = {"status": {"$in": list(statuses)}}
    clauses = [{key: val} for key, val in filters.items() if val and key in ("type", "layer", "wing", "room")]
    if clauses:
        where = {"$and": [where, *clauses]}
    vec = engine.index.query("memories", engine.embedder.embed_query(query.strip().strip('"')), n, where=where)
    if filters.get("tag"):
        allowed = {m.id for m in engine.store.get_memories([i for i, _ in vec]).values() if filters["tag"] in m.tags}
        vec = [(i, s) for i, s in vec if i in allowed]
    fused = weighted_rrf([([i for i, _ in bm], w_bm25), ([i for i, _ in vec], w_vec)], k=engine.settings.recall.rrf_k)
    ranked = sorted(fused.items(), key=lambda kv: -kv[1])[:k]
    memories = engine.store.get_memories([i for i, _ in ranked])
    bm_rank = {i: r for r, (i, _) in enumerate(bm, start=1)}
    vec_rank = {i: r for r, (i, _) in enumerate(vec, start=1)}
    sims = dict(vec)
    hits = []
    for mid, score in ranked:
        m = memories.get(mid)
        if m is None:
            continue
        hits.append(
            Hit(
                id=m.id,
                score=round(score, 6),
                content=m.content,
                tier="stm",
                meta=m.meta,
                type=m.type.value,
                status=m.status.value,
                tags=m.tags,
                created_at=m.created_at,
                bm25_rank=bm_rank.get(mid),
                vector_rank=vec_rank.get(mid),
                similarity=round(sims[mid], 6) if mid in sims else None,
            )
        )
    if touch and hits:
        from ..lifecycle.reinforce import reinforce

        reinforce(engine, [h.id for h in hits], kind="recall")
    return hits
