"""Enrichment: a memory's fingerprint (spaCy), its row in the entity index, and its links.

Two paths, because spaCy costs about as much per text as the embedder:

- single ``save`` calls and ``ingest`` enrich inline: the fingerprint before the write, the
  links right after it (``link_memories``);
- bulk ``save_many`` / ``import`` only queue the new ids (``enrich_queue``) and
  ``enrich_pending`` works through the queue later (the daemon's scheduler, or ``mnemo
  enrich``), oldest first so each memory finds the ones before it already enriched.

The write path queues every memory in the same transaction that stores it, and a memory leaves
the queue only when its links are committed, so a crash in between leaves it pending, never
half-linked. Fingerprints and ``superseded_by`` are written with targeted UPDATEs, so a
concurrent touch of the same memory is never overwritten.
"""

from __future__ import annotations

import time
import weakref
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..clock import DAY
from ..models import Link, Memory
from ..nlp.fingerprint import Gazetteer, entity_key
from . import db, link_head, rules

if TYPE_CHECKING:
    from ..core import Core

ENTITY_WEIGHT = 0.5
CONTEXT_WEIGHT = 0.5
_gazetteers: weakref.WeakKeyDictionary[Any, tuple[tuple[int, int], Gazetteer]] = weakref.WeakKeyDictionary()


@dataclass
class LinkReport:
    links: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    superseded: list[str] = field(default_factory=list)

    def add(self, link: Link) -> None:
        rel = "shares_entity" if link.rel.startswith("shares_entity:") else link.rel
        self.links[rel] += 1

    def to_dict(self) -> dict[str, Any]:
        return {"links": dict(sorted(self.links.items())), "total": sum(self.links.values()), "superseded": list(self.superseded)}


def gazetteer(core: Core, extra: Sequence[str] = ()) -> Gazetteer:
    """Entity names already in the store (cached until the entity index changes) + ``extra``."""
    store = core.store
    version = db.names_version(store)
    cached = _gazetteers.get(store)
    if cached is None or cached[0] != version:
        cached = (version, Gazetteer(db.known_names(store)))
        _gazetteers[store] = cached
    if not extra:
        return cached[1]
    g = Gazetteer(cached[1].names)
    for name in extra:
        g.add(name)
    return g


def fingerprint_memories(core: Core, memories: Sequence[Memory]) -> list[Memory]:
    """Each memory with its fingerprint computed from its content (its type kept)."""
    from ..nlp.fingerprint import fingerprint_texts

    if not memories:
        return []
    fps = fingerprint_texts([m.content for m in memories], [m.type for m in memories], gazetteer(core))
    return [replace(m, fingerprint=fp) for m, fp in zip(memories, fps, strict=True)]


def _order(m: Memory) -> tuple[float, int, int]:
    turn = m.meta.get("turn") if isinstance(m.meta, dict) else None
    part = m.meta.get("part") if isinstance(m.meta, dict) else None
    return (m.created_at, turn if isinstance(turn, int) else 0, part if isinstance(part, int) else 0)


def plan_links(core: Core, memories: Sequence[Memory], report: LinkReport | None = None) -> list[Link]:
    """The links the rules (confirmed by the judge) and the structural passes propose for
    ``memories``, each against the memories before it: the stored ones and those earlier in
    the same batch. Reads only; ``link_memories`` writes them."""
    from ..judge import make_judge

    if not memories:
        return []
    cfg = core.settings.graph
    store = core.store
    judge = make_judge(core.settings)
    now = core.now()
    ordered = sorted(memories, key=_order)
    batch_ids = [m.id for m in ordered]
    max_age = cfg.lookback_days * DAY
    first = ordered[0].created_at
    prior = list(reversed(db.recent_memories(store, before=first, since=first - max_age, limit=cfg.lookback, exclude=batch_ids)))
    window: list[Memory] = prior
    batch_holders: dict[str, list[tuple[str, float]]] = defaultdict(list)
    keys = {entity_key(e) for m in ordered for e in m.fingerprint.entities}
    canon = db.canonical_names(store, sorted(keys))
    by_id = {m.id: m for m in ordered}
    out: list[Link] = []
    related = relatedness(core.embedder)
    for m in ordered:
        cands = [
            c for c in window[-cfg.lookback :]
            if c.created_at <= m.created_at and m.created_at - c.created_at <= max_age
            and not (m.wing and c.wing and m.wing != c.wing)
        ]
        paths: dict[tuple[str, str], str] = {}
        for link in rules.propose(m, cands, now, related, paths):
            other = by_id.get(link.dst if link.src == m.id else link.src) or next(
                (c for c in cands if c.id in (link.src, link.dst) and c.id != m.id), None
            )
            if other is None:
                continue
            path = paths.get((link.src, link.dst))
            if path is not None and link.rel in rules.CAUSAL_RELS:
                # The learned filter over the rules' causal links (``link_head``; it keeps them
                # all with no semantic embedder).
                cause, effect = (m, other) if link.src == m.id else (other, m)
                if not link_head.keep(cause, effect, path, m, cands[::-1], related):
                    continue
            verdict = judge.relation(m, other, link)
            if verdict is not None:
                out.append(verdict)
        out.extend(_entity_links(store, m, batch_ids, batch_holders, canon, cfg.entity_links, now))
        out.extend(_context_links(store, m, cfg.context_links, now))
        window.append(m)
    if report is not None:
        for link in out:
            report.add(link)
        report.superseded.extend(link.dst for link in out if link.rel == "supersedes")
    return out


def relatedness(embedder: Any) -> rules.Related | None:
    """The cosine of two memories' statements (speakers' names off: a name both carry is no
    kinship), each embedded once; None when the embedder has no semantics (the hash one)."""
    from ..nlp.embedder import semantic

    if not semantic(embedder):
        return None
    vectors: dict[str, Any] = {}

    def vector(m: Memory) -> Any:
        v = vectors.get(m.id)
        if v is None:
            v = vectors[m.id] = embedder.embed([rules.said(m)])[0]
        return v

    def related(a: Memory, b: Memory) -> float:
        return float(vector(a) @ vector(b))

    return related


def _entity_links(
    store: Any, m: Memory, batch_ids: list[str], batch_holders: dict[str, list[tuple[str, float]]],
    canon: dict[str, str], cap: int, now: float,
) -> list[Link]:
    """``shares_entity:{Name}`` to the ``cap`` most recent earlier memories naming the same
    entity: capped per entity so a name everyone mentions does not become a dense hub."""
    out: list[Link] = []
    for name in m.fingerprint.entities:
        key = entity_key(name)
        shown = canon.setdefault(key, name)
        holders = [h for h in batch_holders[key] if h[0] != m.id]
        holders += db.entity_holders(store, key, before=m.created_at, exclude=[*batch_ids, m.id], limit=cap)
        holders.sort(key=lambda h: -h[1])
        seen: set[str] = set()
        for hid, _ in holders:
            if hid in seen:
                continue
            seen.add(hid)
            out.append(Link(m.id, hid, f"shares_entity:{shown}", "auto", ENTITY_WEIGHT, now))
            if len(seen) >= cap:
                break
        batch_holders[key].append((m.id, m.created_at))
    return out


def _context_links(store: Any, m: Memory, cap: int, now: float) -> list[Link]:
    """``was_context_for`` from memories recalled in ``m``'s session to ``m``, when they share
    at least something (an entity or a subject): being recalled next to it is the evidence,
    the overlap keeps unrelated hits of a broad query out."""
    if not m.session_id or cap <= 0:
        return []
    ids = [i for i in db.recalled_in_session(store, m.session_id, until=now, limit=cap * 4) if i != m.id]
    if not ids:
        return []
    found = store.get_memories(ids)
    mine = rules.terms(m)
    out = []
    for i in ids:
        r = found.get(i)
        if r is None or r.status.value not in db.LIVE:
            continue
        if rules.overlap(mine, rules.terms(r)) >= 1.0:
            out.append(Link(r.id, m.id, "was_context_for", "auto", CONTEXT_WEIGHT, now))
            if len(out) >= cap:
                break
    return out


def link_memories(core: Core, memories: Sequence[Memory], report: LinkReport | None = None) -> list[Link]:
    """Plan and commit the links of freshly stored ``memories``, index their entities, mark
    what they supersede, and take them off the enrichment queue, in one transaction."""
    if not memories:
        return []
    links = plan_links(core, memories, report)
    store = core.store
    rows = [(m.id, entity_key(e), e, m.created_at) for m in memories for e in m.fingerprint.entities]
    with core.write_lock:
        store.commit_enrichment(links, [m.id for m in memories], rows)
    return links


def enrich_pending(core: Core, limit: int = 500) -> dict[str, Any]:
    """Fingerprint and link up to ``limit`` queued memories (oldest first)."""
    t0 = time.perf_counter()
    store = core.store
    ids = db.pending_ids(store, max(0, int(limit)))
    found = store.get_memories(ids)
    missing = [i for i in ids if i not in found]
    if missing:
        db.dequeue(store, missing)
    memories = fingerprint_memories(core, [found[i] for i in ids if i in found])
    report = LinkReport()
    if memories:
        with core.write_lock:
            store.set_fingerprints(memories)
        link_memories(core, memories, report)
    return {
        "enriched": len(memories),
        "missing": len(missing),
        "pending": db.pending_count(store),
        **report.to_dict(),
        "seconds": round(time.perf_counter() - t0, 3),
    }
