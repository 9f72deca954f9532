"""The recall pipeline (design.md §6), step by step:

1. ``candidates``: BM25 (FTS5, stopword-aware query or an exact phrase) and cosine (Chroma)
   over memories and note chunks, filtered; a promoted memory is folded into its note.
2. ``fusion``: the intent's BM25/vector weights over min–max normalised scores (or weighted RRF,
   ``recall.rank_mix = 1``); ``feedback``: the keyword query expanded with the words of the
   best few hits, fused in as one more ranking; ``neighbours``: conversation turns borrow from
   adjacent turns; ``when``: memories dated in the span a query names ("in May 2023") boosted;
   ``names``: when the query names someone the store knows, the dense side embeds it without the
   name and memories naming no one it names lose relevance; ``specific``: a memory whose words
   carry little information (general statements, chatter) loses relevance.
3. ``rerank``: relevance floor, retention/importance re-ranking, near-duplicates collapsed, at
   most ``recall.max_chunks_per_note`` chunks per note, the k results chosen by maximal marginal
   relevance (``recall.diversity``). Equal scores are ordered by ``candidates.rank_key`` (the
   newer memory, then the later save), never by the random ids.
4. ``expand``: typed links from the top hits, depth-limited and damped.
5. Review candidates (memories in the danger zone that are relevant) blended in, about 30 %.
6. ``budget``: with a token budget, the CBA packs and renders what is returned.
7. What is returned is reinforced (a ``recall`` use, with the session id when given) and the day
   marked active, unless ``touch=False``: then recall writes nothing at all.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..errors import InvalidInput
from ..index.filters import Filters, make_filters
from ..index.vectors import memory_neighbours
from ..models import Hit, Status
from .candidates import (
    Candidate,
    gather,
    give_seq,
    load_memories,
    load_texts,
    rank_key,
    text_of,
    within_reach,
)
from .expand import expand
from .feedback import feed_back
from .fusion import fuse
from .names import boost_names, held_by, query_names, strip_names, to_strip
from .neighbours import spread
from .query import Query, parse_query
from .rerank import apply_floor, collapse, diversify, passes_floor, rerank, vectors_of
from .specific import factor, weigh_specific
from .when import boost_time, scope_time

if TYPE_CHECKING:
    from ..core import Core

__all__ = ["Searched", "search", "recall", "to_hit"]


@dataclass
class Searched:
    query: Query
    filters: Filters
    hits: list[Candidate]  # the results, in order
    vectors: dict[str, Any]  # stored vectors of the results (for the budget's overlap penalty)


def _check_k(k: Any) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidInput("k must be a whole number of at least 1")
    return k


def search(core: Core, query: str, k: int = 10, intent: str | None = None, tier: str = "all",
           heal: bool = False, query_vector: Any = None, **filters: Any) -> Searched:
    """Steps 1–5: the ranked results, without reinforcing anything. ``query_vector``: the dense
    side's vector when the caller has one (a note's stored vectors), instead of embedding ``query``."""
    s = core.settings.recall
    k = _check_k(k)
    now = core.now()
    # A time expression is read for the boost (any) and for the dated ranking (an absolute one).
    q = parse_query(query, intent, s.intent, s.stopwords, now=now if s.time_boost > 0 or s.time_scope > 0 else None,
                    relative=s.time_boost > 0)
    f = make_filters(tier, **filters)
    n = max(s.candidates, k * 3)
    # Names the query gives that the store holds: the dense side embeds the query without them,
    # and memories naming none of them lose relevance below (names.py). Not for an exact phrase,
    # nor for a note searched with its own vector (the related pane): a document, not a question
    # about someone, and every capitalised word of it would count as a name.
    asks = s.name_boost > 0 and not q.phrase and query_vector is None
    held = held_by(core, query_names(q.text)) if asks else {}
    names = list(held)
    # Only a name many memories hold is taken out of the embedded query (names.to_strip).
    common = to_strip(held, s.name_strip_min)
    semantic = strip_names(q.semantic, common) if common else q.semantic

    # The query is embedded and the vector index asked on a worker thread while FTS5 runs
    # here: all three leave the GIL, so on two cores the keyword searches cost no extra wall time.

    def dense() -> tuple[Any, Any]:
        vec = core.embedder.embed_query(semantic) if query_vector is None else query_vector
        return vec, memory_neighbours(core, vec, f, n) if f.wants_stm else None

    asked = core.background.submit(dense)
    pool = gather(core, q, f, lambda: asked.result()[0], n, neighbours=lambda: asked.result()[1])
    for cid, value in fuse(pool.rankings(q.w_bm25, q.w_vector), k=s.rrf_k, rank_mix=s.rank_mix).items():
        c = pool.candidates.get(cid)
        if c is not None:
            c.fused = value
    feed_back(core, pool, q, f, n, s.feedback_weight)
    scope_time(core, pool, q, f, asked.result()[0], s.time_scope)
    size = max(3 * k, k + 10)  # the head: what re-ranking, collapsing and review work on
    spread(core, pool, f, s.neighbour_weight, sources=2 * size, gap=s.neighbour_gap, reach=_reach(pool, size, q, s, bool(names)),
           answer_weight=s.answer_weight)
    if q.span is not None:
        boost_time(pool.candidates.values(), q.span, s.time_boost)
    cands = apply_floor(pool.candidates, s.floor)
    # Re-ranking moves a score by at most the rerank weight, so only the head by relevance (with
    # room to spare) can reach the results: only its memories are loaded and scored.
    cands = sorted(cands, key=lambda c: rank_key(c, c.fused))[: 2 * size]
    # (On a 10k store a third of the 2 × size are left unloaded.)
    cands = within_reach(cands, size, s.rerank_weight, slack=_slack(s, bool(names)))
    if names or s.specificity > 0:
        # The names step and the specificity read only the texts (they lower relevance by at
        # most 1 + β and 1 / (1 − γ), hence the slack above); the bound is then drawn again on the
        # relevance they leave, so whole memories are loaded for fewer candidates.
        cands = load_texts(core, cands, f)
        boost_names(cands, text_of, names, s.name_boost)
        weigh_specific(core, cands, text_of, s.specificity)
        cands = within_reach(sorted(cands, key=lambda c: rank_key(c, c.fused)), size, s.rerank_weight)
    # The stored vectors (for collapsing near-duplicates) are read from Chroma on the worker
    # thread while SQLite loads and re-ranks the same candidates here: the head is among them.
    reading = core.background.submit(vectors_of, core, cands)
    cands = load_memories(core, cands, f)
    ret = rerank(core, cands, s.rerank_weight, now)
    ordered = sorted(cands, key=lambda c: rank_key(c, c.score))
    head = ordered[:size]
    read = reading.result()
    vectors = {c.id: read[c.id] for c in head if c.id in read}
    kept = diversify(collapse(head, vectors, s.duplicate_cosine, s.max_chunks_per_note), vectors, s.diversity, k)
    primary = kept[:k]

    taken = {c.id for c in kept} | {c.memory.id for c in kept if c.memory is not None}
    linked = expand(core, primary[: max(0, s.expand_from)], f, s.expand_depth, s.expand_damping, taken, heal=heal)
    if linked:
        give_seq(core, linked)
        vectors.update(vectors_of(core, linked))
        merged = collapse(sorted(primary + linked, key=lambda c: (-c.score, c.reason != "match", rank_key(c, c.score))), vectors,
                          s.duplicate_cosine, s.max_chunks_per_note)
        primary = merged[:k]
    results = blend_reviews(core, primary, kept[k:], k, ret, now)
    return Searched(q, f, results, vectors)


def _reach(pool: Any, size: int, q: Query, s: Any, named: bool = False) -> float:
    """The least relevance a turn that is no candidate yet must borrow to have any chance of the
    head: the head's last score is at least (1 − w) × the size-th relevance among candidates that
    pass the floor now (lending only raises relevance; the time boost lowers it by at most
    1 + β, the names step by at most 1 + its β), so below that a neighbour is not worth reading."""
    direct = sorted((c.fused for c in pool.candidates.values() if passes_floor(c, s.floor)), reverse=True)
    if len(direct) < size:
        return 0.0
    boost = 1.0 + max(0.0, s.time_boost) if q.span is not None else 1.0
    boost *= _slack(s, named)  # the names step and the specificity may lower the head by as much
    return (1.0 - min(1.0, max(0.0, s.rerank_weight))) * direct[size - 1] / boost


def _slack(s: Any, named: bool) -> float:
    """How much the names step (when the query names someone) and the specificity together may
    lower a relevance: a factor of at most 1 + β and 1 / (1 − γ)."""
    slack = 1.0 + max(0.0, s.name_boost) if named else 1.0
    return slack / max(1e-9, factor(0.0, s.specificity))


def blend_reviews(core: Core, primary: list[Candidate], rest: list[Candidate], k: int,
                  retention: dict[str, float], now: float) -> list[Candidate]:
    """Mnemex's natural spaced repetition: up to ``round(k · recall.review_ratio)`` of the k
    slots go to memories in the danger zone that are relevant to this query (they passed the
    floor and score at least ``recall.review_relevance`` of the best hit), interleaved as
    ``[p0, p1, r0, p2, p3, r1, …]`` and marked ``reason="review"``."""
    from ..scoring.review_priority import DANGER_MAX, DANGER_MIN, review_priority

    s = core.settings.recall
    slots = int(k * max(0.0, min(1.0, s.review_ratio)) + 0.5)
    if slots <= 0 or not primary:
        return primary
    top = primary[0].score
    eligible = [c for c in rest if c.tier == "stm" and c.memory is not None and c.memory.status == Status.ACTIVE
                and c.reason == "match" and c.score >= s.review_relevance * top]
    if not eligible:
        return primary
    missing = [c.memory for c in eligible if c.memory is not None and c.memory.id not in retention]
    if missing:
        from ..lifecycle.assess import retentions

        retention = {**retention, **retentions(core, missing, now)}
    sc = core.settings.scoring
    low, high = getattr(sc, "review_min", DANGER_MIN), getattr(sc, "review_max", DANGER_MAX)
    ranked = []
    for c in eligible:
        assert c.memory is not None
        p = review_priority(retention.get(c.memory.id, 0.0), low, high)
        if p > 0:
            ranked.append((p * c.score, c))
    if not ranked:
        return primary
    ranked.sort(key=lambda pc: rank_key(pc[1], pc[0]))
    reviews = [c for _, c in ranked[:slots]]
    for c in reviews:
        c.reason = "review"
    main = primary[: k - len(reviews)]
    out: list[Candidate] = []
    ratio = len(reviews) / k
    # Review j goes to position ⌊(j + 1) / ratio⌋ − 1: spread over the list, never first.
    places = {min(k - 1, int((j + 1) / ratio) - 1): c for j, c in enumerate(reviews)}
    mi = 0
    for pos in range(len(main) + len(reviews)):
        if pos in places:
            out.append(places[pos])
        elif mi < len(main):
            out.append(main[mi])
            mi += 1
    out.extend(c for c in places.values() if c not in out)
    return out


def to_hit(c: Candidate) -> Hit:
    score = round(c.score, 6)
    sim = round(c.sim, 6) if c.sim is not None else None
    if c.tier == "ltm" and c.hit is not None:
        return replace(c.hit, score=score, bm25_rank=c.bm25_rank, vector_rank=c.vector_rank, similarity=sim, reason=c.reason)
    m = c.memory
    assert m is not None
    promoted = m.status == Status.PROMOTED and bool(m.note_path)
    return Hit(
        id=m.id, score=score, content=m.content, tier="ltm" if promoted else "stm", meta=m.meta, type=m.type.value,
        status=m.status.value, tags=m.tags, path=m.note_path, created_at=m.created_at, bm25_rank=c.bm25_rank,
        vector_rank=c.vector_rank, similarity=sim, reason=c.reason,
    )


def reinforce_ids(cands: list[Candidate]) -> list[str]:
    """Memories to reinforce for these results (a person's note has none)."""
    return list(dict.fromkeys(c.memory_id for c in cands if c.memory_id))


def touch_results(core: Core, cands: list[Candidate], session_id: str | None) -> None:
    from ..lifecycle.reinforce import reinforce

    ids = reinforce_ids(cands)
    if ids:
        reinforce(core, ids, kind="recall", session_id=session_id)


def recall(
    core: Core,
    query: str,
    k: int = 10,
    touch: bool = True,
    intent: str | None = None,
    tier: str = "all",
    session_id: str | None = None,
    budget: int | None = None,
    query_vector: Any = None,
    **filters: Any,
) -> list[Hit]:
    if session_id is not None and (not isinstance(session_id, str) or not session_id.strip()):
        raise InvalidInput("session_id must be a non-empty string")
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, int) or budget < 1):
        raise InvalidInput("budget must be a whole number of tokens, at least 1")
    found = search(core, query, k=k, intent=intent, tier=tier, heal=touch, query_vector=query_vector, **filters)
    results = found.hits
    hits: list[Hit]
    if budget is not None:
        from .budget import CBAParams, allocate
        from .render import items_for

        s = core.settings.recall
        params = CBAParams(causal_alpha=s.causal_alpha, session_window=s.session_window, session_boost=s.session_boost)
        alloc = allocate(items_for(core, results, found.vectors), budget, params)
        results = [ch.item.payload for ch in alloc.chosen]
        hits = [replace(to_hit(ch.item.payload), mode=ch.mode, tokens=ch.tokens, rendered=ch.text) for ch in alloc.chosen]
    else:
        hits = [to_hit(c) for c in results]
    if touch:
        touch_results(core, results, session_id)
    return hits
