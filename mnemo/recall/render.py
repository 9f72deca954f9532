"""Candidates and memories as allocator items: their three renderings, vectors, times and
causal links (what the CBA's penalties need)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..models import Memory
from .budget import Item, renderings
from .candidates import Candidate

if TYPE_CHECKING:
    from ..core import Core

# Link types that make a causal chain (the seed's χ penalty counts these).
CAUSAL_RELS = frozenset({"because", "triggered", "contradicts", "updates", "resolves", "causes", "motivated_by", "invalidated_by"})


def day(ts: float | None) -> str:
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%d") if ts else "undated"


def short_id(memory_id: str) -> str:
    """8 characters: enough to be unique in any real store (ids resolve by prefix)."""
    return memory_id[:8]


def memory_item(m: Memory, score: float, vector: Any = None, causal: frozenset[str] = frozenset(), payload: Any = None) -> Item:
    label = f"{m.type.value}, {day(m.created_at)}"
    where = m.wing or m.note_path
    head = f"{m.type.value} | {day(m.created_at)}" + (f" | {where}" if where else "")
    texts = renderings(short_id(m.id), label, m.content, m.fingerprint, header=f"[{head}] → {short_id(m.id)}",
                       tokens=m.tokens or None)
    return Item(key=m.id, score=score, texts=texts, vector=vector, created_at=m.created_at, causal=causal,
                payload=payload if payload is not None else m)


def candidate_item(c: Candidate, vector: Any = None, causal: frozenset[str] = frozenset()) -> Item:
    if c.tier == "ltm" and c.hit is not None:
        h = c.hit
        where = f"{h.path}#{h.heading}" if h.heading else str(h.path)
        # A note mnemo owns is reinforced through its memory id; a person's note is named by its path.
        ref = short_id(c.memory.id) if c.memory is not None else where
        label = f"note {where}, {day(h.created_at)}" if c.memory is not None else f"note, {day(h.created_at)}"
        head = f"note | {day(h.created_at)} | {where}" if c.memory is not None else f"note | {day(h.created_at)}"
        texts = renderings(ref, label, h.content, c.memory.fingerprint if c.memory else None, header=f"[{head}] → {ref}")
        key = c.memory.id if c.memory is not None else c.id
        return Item(key=key, score=c.score, texts=texts, vector=vector, created_at=h.created_at, causal=causal, payload=c)
    assert c.memory is not None
    return memory_item(c.memory, c.score, vector, causal, payload=c)


def causal_neighbours(core: Core, ids: Sequence[str]) -> dict[str, frozenset[str]]:
    """For each memory id, the ids it shares a causal link with (either direction)."""
    out: dict[str, frozenset[str]] = {}
    for mid in ids:
        links = core.store.links_of(mid)
        out[mid] = frozenset(ln.dst if ln.src == mid else ln.src for ln in links if ln.rel in CAUSAL_RELS)
    return out


def items_for(core: Core, cands: Sequence[Candidate], vectors: dict[str, Any]) -> list[Item]:
    causal = causal_neighbours(core, [c.memory.id for c in cands if c.memory is not None])
    return [
        candidate_item(c, vectors.get(c.id), causal.get(c.memory.id, frozenset()) if c.memory is not None else frozenset())
        for c in cands
    ]
