"""Step 1 of recall: candidates from FTS5 (BM25) and Chroma (cosine), over memories and vault
note chunks, with the filters applied at the source where the source can apply them.

Rankings kept for fusion:
- BM25 over memories and BM25 over note chunks are two rankings: FTS5 scores of two tables
  with different statistics are not comparable, so each is normalised on its own.
- Cosine over memories and over chunks is one ranking: both come from the same model, so
  their similarities are comparable and merge by value.

A promoted memory and its note are one thing: the memory is folded into its note's chunk (the
best-ranked chunk of that note among the candidates, else the note's first chunk).

Candidates are checked on light rows (a few columns); whole memories are loaded only for the
head that can still reach the results (``within_reach``, then ``load_memories``, called by the
pipeline). A step that needs only a candidate's text (the names step) reads just that
(``load_texts``), so the bound can be drawn again on what it leaves before memories are loaded.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..index.filters import Filters
from ..index.keywords import chunk_bm25, memory_bm25
from ..index.vectors import chunk_vectors, memory_vectors
from ..models import Hit, Memory, Status
from .fusion import minmax
from .query import Query

if TYPE_CHECKING:
    from ..core import Core

log = logging.getLogger(__name__)

Ranking = list[tuple[str, float]]


@dataclass
class Candidate:
    """One memory (``tier="stm"``) or note chunk (``tier="ltm"``) in the running."""

    id: str
    tier: str
    memory: Memory | None = None  # the memory (loaded for the head only), or the chunk note's owner
    hit: Hit | None = None  # a chunk's hit (path, heading, text)
    bm25: float | None = None
    bm25_rank: int | None = None
    sim: float | None = None
    vector_rank: int | None = None
    fused: float = 0.0  # relevance from fusion (and conversation context)
    score: float = 0.0  # after re-ranking
    reason: str = "match"  # match | link | review
    via: str | None = None  # link expansion: the hit it was reached from
    context_from: str | None = None  # conversation context: the neighbouring turn that lent relevance
    dated: bool = False  # said in the span the query names (when.scope_time): relevant by its date
    session_id: str | None = None  # from the light row (before the memory is loaded)
    note_path: str | None = None
    at: float | None = None  # when it happened (event_at) or was said (created_at), from the light row
    seq: int | None = None  # save order (the store's rowid), from the light row: the last tie-break
    text: str | None = None  # the memory's content, read without the whole memory (``load_texts``)

    @property
    def memory_id(self) -> str | None:
        """The memory to reinforce for this candidate (a chunk's owning memory, if any)."""
        return self.memory.id if self.memory is not None else None

    @property
    def note(self) -> str | None:
        if self.hit is not None:
            return self.hit.path
        return self.memory.note_path if self.memory is not None else self.note_path

    @property
    def created_at(self) -> float | None:
        if self.memory is not None:
            return self.memory.created_at
        return self.hit.created_at if self.hit is not None else None


def rank_key(c: Candidate, value: float) -> tuple[float, float, int, str, str, str]:
    """Sort key, best ``value`` first. Equal values are common (the turns on either side of one
    hit borrow the same share of it; equal BM25 scores), and ordering them by the random ids
    would give a different ranking each time a store is built. Ties go to the newer memory
    (when it happened or was said: the later statement is the current one), then the later
    save, then, for note passages, the note's path and heading: the same order for the same
    memories saved in the same order, whatever their ids."""
    at = c.at if c.at is not None else c.created_at
    h = c.hit
    return (-value, -(at or 0.0), -(c.seq or 0), h.path or "" if h else "", h.heading or "" if h else "", c.id)


@dataclass
class Pool:
    candidates: dict[str, Candidate] = field(default_factory=dict)
    bm25_memories: Ranking = field(default_factory=list)
    bm25_chunks: Ranking = field(default_factory=list)
    vectors: Ranking = field(default_factory=list)  # memories and chunks merged by cosine
    rows: dict[str, Any] = field(default_factory=dict)  # light rows read so far (None: no such memory)
    memory_scores: Ranking = field(default_factory=list)  # BM25 of memories by id, before folding (feedback)

    def rankings(self, w_bm25: float, w_vector: float) -> list[tuple[Ranking, float]]:
        return [(self.bm25_memories, w_bm25), (self.bm25_chunks, w_bm25), (self.vectors, w_vector)]


def _chunk_keywords(core: Core, q: Query, n: int) -> Ranking | None:
    """BM25 over note chunks; None when there are no chunks (then no vector query either)."""
    if not search_available() or not core.store.has_chunks():  # a build without the vault tier
        return None
    return chunk_bm25(core, q.keywords, n, mode="phrase" if q.phrase else "or")


def _chunk_hits(core: Core, ids: list[str]) -> dict[str, Hit]:
    from ..vault.search import chunk_hits

    return chunk_hits(core, ids)


def gather(core: Core, q: Query, filters: Filters, qvec: Callable[[], Any], n: int,
           neighbours: Callable[[], Ranking | None] | None = None) -> Pool:
    """``qvec`` gives the query's vector: it is asked for only after the keyword searches, so
    the caller can embed the query while FTS5 works. ``neighbours``, when given, gives
    ``index.vectors.memory_neighbours`` for that vector (the caller ran it alongside too)."""
    pool = Pool()
    seen_rows = pool.rows
    mem_bm: Ranking = []
    mem_vec: Ranking = []
    chunk_bm: Ranking = []
    chunk_vec: Ranking = []
    if filters.wants_stm:
        mem_bm = memory_bm25(core, q, filters, n, seen_rows)
    chunk_kw = _chunk_keywords(core, q, n) if filters.wants_ltm else None
    vec = qvec()
    if filters.wants_stm:
        mem_vec = memory_vectors(core, vec, filters, n, rows_cache=seen_rows,
                                 found=neighbours() if neighbours is not None else None)
    if chunk_kw is not None:
        chunk_bm = chunk_kw
        chunk_vec = chunk_vectors(core, vec, n)

    # Check what Chroma could not (tags, stale metadata, vectors of deleted memories).
    rows = core.store.light_rows([i for i, _ in mem_bm] + [i for i, _ in mem_vec], seen_rows)
    mem_bm = [(i, s) for i, s in mem_bm if i in rows and filters.matches_row(rows[i])][:n]
    mem_vec = [(i, s) for i, s in mem_vec if i in rows and filters.matches_row(rows[i])][:n]
    pool.memory_scores = mem_bm
    hits = _chunk_hits(core, [i for i, _ in chunk_bm] + [i for i, _ in chunk_vec]) if (chunk_bm or chunk_vec) else {}
    owner_ids = {h.meta["mnemo_id"] for h in hits.values() if h.meta.get("mnemo_id")}
    owners = core.store.get_memories(sorted(owner_ids)) if owner_ids else {}

    def chunk_ok(cid: str) -> bool:
        h = hits.get(cid)
        if h is None:
            return False
        owner = owners.get(h.meta.get("mnemo_id", ""))
        return filters.matches_chunk(h, owner)

    chunk_bm = [(i, s) for i, s in chunk_bm if chunk_ok(i)]
    chunk_vec = [(i, s) for i, s in chunk_vec if chunk_ok(i)]

    # A promoted memory is its note: fold it into that note's chunk.
    alias: dict[str, str] = {}
    if filters.wants_ltm:
        best_chunk: dict[str, str] = {}
        for cid, _ in sorted(chunk_bm + chunk_vec, key=lambda x: -x[1]):
            owner = hits[cid].meta.get("mnemo_id")
            if owner:
                best_chunk.setdefault(owner, cid)
        promoted = [i for i, r in rows.items() if is_folded(r)]
        missing = [mid for mid in promoted if mid not in best_chunk]
        if missing and search_available():
            firsts = core.store.first_chunks(missing)
            extra = _chunk_hits(core, list(firsts.values())) if firsts else {}
            hits.update(extra)
            for mid, cid in firsts.items():
                if cid in extra:
                    best_chunk[mid] = cid
        folded = [mid for mid in promoted if mid in best_chunk]
        if folded:
            owners.update(core.store.get_memories([m for m in folded if m not in owners]))
        for mid in folded:
            if mid in owners:
                alias[mid] = best_chunk[mid]

    def dedupe(ranking: Ranking) -> Ranking:
        seen: set[str] = set()
        out: Ranking = []
        for i, s in ranking:
            i = alias.get(i, i)
            if i not in seen:
                seen.add(i)
                out.append((i, s))
        return out

    pool.bm25_memories = dedupe(mem_bm)
    pool.bm25_chunks = dedupe(chunk_bm)
    pool.vectors = dedupe(sorted(mem_vec + chunk_vec, key=lambda x: -x[1]))

    # With the memories folded into chunks, a folded memory's BM25 match counts for its note.
    for ranking in (pool.bm25_memories, pool.bm25_chunks):
        for rank, (i, s) in enumerate(ranking, start=1):
            c = _candidate(pool, i, rows, hits, owners)
            if c is not None and c.bm25 is None:
                c.bm25, c.bm25_rank = s, rank
    for rank, (i, s) in enumerate(pool.vectors, start=1):
        c = _candidate(pool, i, rows, hits, owners)
        if c is not None:
            c.sim = s
            c.vector_rank = rank
    return pool


def search_available() -> bool:
    try:
        from ..vault import search  # noqa: F401
    except ImportError:
        return False
    return True


def within_reach(ranked: list[Candidate], size: int, weight: float, slack: float = 1.0) -> list[Candidate]:
    """The candidates of ``ranked`` (best relevance first) that can still be among the ``size``
    best scores. Exactly: a score is relevance × a factor in [1 − w, 1] (``rerank``, w =
    ``weight``), so a candidate whose relevance is below (1 − w) × the size-th best can never pass
    the size candidates above it. ``slack``: how much a step still to come may lower a relevance
    (it may lower the size above by as much, so the bound is divided by it)."""
    if len(ranked) <= size:
        return list(ranked)
    bound = (1.0 - min(1.0, max(0.0, weight))) * ranked[size - 1].fused / max(1.0, slack)
    return [c for c in ranked if c.fused >= bound]


def load_texts(core: Core, cands: list[Candidate], filters: Filters) -> list[Candidate]:
    """Read the text of each memory candidate that has neither its memory nor its text; drop the
    ones that are gone or fail the filters (as ``load_memories`` would)."""
    want = [c.id for c in cands if c.tier == "stm" and c.memory is None and c.text is None]
    found = core.store.light_texts(want) if want else {}
    out: list[Candidate] = []
    for c in cands:
        if c.tier == "stm" and c.memory is None and c.text is None:
            r = found.get(c.id)
            if r is None or not filters.matches_row(r):
                continue
            c.text = r["content"]
        out.append(c)
    return out


def text_of(c: Candidate) -> str:
    """A candidate's text: a chunk's passage, else its memory's content (or the text read for it)."""
    if c.tier == "ltm" and c.hit is not None:
        return c.hit.content
    if c.memory is not None:
        return c.memory.content
    return c.text or ""


def give_seq(core: Core, cands: list[Candidate]) -> None:
    """Give memory candidates made from whole memories (link expansion) the save order of their
    light row: without it ``rank_key`` would order their ties (links from one seed, damped
    alike, score the same) by the random ids."""
    want = [c.id for c in cands if c.tier == "stm" and c.seq is None]
    rows = core.store.light_rows(want) if want else {}
    for c in cands:
        r = rows.get(c.id)
        if r is not None and c.seq is None:
            c.seq = int(r["seq"])


def load_memories(core: Core, cands: list[Candidate], filters: Filters) -> list[Candidate]:
    """Load the whole memory of each memory candidate that lacks it; drop the ones that are
    gone or fail the filters after all (a stale vector)."""
    want = [c.id for c in cands if c.tier == "stm" and c.memory is None]
    found = core.store.get_memories(want) if want else {}
    out: list[Candidate] = []
    for c in cands:
        if c.tier == "stm" and c.memory is None:
            m = found.get(c.id)
            if m is None or not filters.matches(m):
                continue
            c.memory = m
        out.append(c)
    return out


def is_folded(r: dict[str, Any]) -> bool:
    """A promoted memory with a note is that note: it is found through the note's chunks, never
    on its own (``gather`` folds it; later steps adding candidates skip it)."""
    return r["status"] == Status.PROMOTED.value and bool(r["note_path"])


def from_row(cid: str, r: dict[str, Any]) -> Candidate:
    """A memory candidate from its light row."""
    at = r.get("event_at") if r.get("event_at") is not None else r.get("created_at")
    seq = r.get("seq")
    return Candidate(id=cid, tier="stm", session_id=r["session_id"], note_path=r["note_path"],
                     at=float(at) if at is not None else None, seq=int(seq) if seq is not None else None)


def fuse_in(pool: Pool, ranking: list[tuple[str, float]], rows: dict[str, Any], share: float) -> list[tuple[Candidate, float]]:
    """Fuse one more ranking (ids with raw scores, best first) into the pool's relevance:
    ``fused' = (fused + share · minmax(raw)) / (1 + share)`` for every candidate, so relevance
    stays in [0, 1]. A memory not yet a candidate joins from its light row in ``rows`` (a folded
    one is its note, found through chunks, and is skipped). Returns the ranked candidates with
    their raw scores, for the caller to mark why they count."""
    out: list[tuple[Candidate, float]] = []
    for (cid, raw), norm in zip(ranking, minmax([s for _, s in ranking]), strict=True):
        c = pool.candidates.get(cid)
        if c is None:
            row = rows.get(cid)
            if not isinstance(row, dict) or is_folded(row):
                continue
            c = pool.candidates[cid] = from_row(cid, row)
        c.fused += share * norm
        out.append((c, raw))
    for c in pool.candidates.values():
        c.fused /= 1.0 + share
    return out


def _candidate(
    pool: Pool, cid: str, rows: dict[str, dict[str, Any]], hits: dict[str, Hit], owners: dict[str, Memory]
) -> Candidate | None:
    c = pool.candidates.get(cid)
    if c is not None:
        return c
    if cid in hits:
        h = hits[cid]
        c = Candidate(id=cid, tier="ltm", hit=h, memory=owners.get(h.meta.get("mnemo_id", "")), at=h.created_at)
    elif cid in rows:
        c = from_row(cid, rows[cid])
    else:
        return None
    pool.candidates[cid] = c
    return c
