"""Step ``split``: a bloated memory is broken into focused pieces (MIRA's refinement).

A memory qualifies when it is longer than ``dream.split_min_tokens`` (300), at least
``dream.split_min_age_days`` (7 calendar days) old and used at least ``dream.split_min_uses``
(5) times, and has not been split before. The deterministic default cuts at its own structure:
headings and blank-line paragraphs first, sentences when a paragraph alone is too long, packed
greedily into pieces of about ``dream.split_target_tokens`` (120). The original stays as it is
(active, or promoted with its note untouched); each piece is a new memory linked ``split_from``
→ the original, with a deterministic id (from the original's id and content hash).
"""

from __future__ import annotations

import re
import uuid
from typing import TYPE_CHECKING, Any

from ...models import Fingerprint, Link, Memory, Status
from ...store.sqlite import content_hash
from .journal import Op
from .merge import NAMESPACE, _queue_enrichment

if TYPE_CHECKING:
    from ...core import Core
    from .workspace import ApplyContext, PlanContext

NAME = "split"
MIN_PIECE_TOKENS = 12  # a shorter tail joins the piece before it
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def piece_id(original: Memory, index: int) -> str:
    return str(uuid.uuid5(NAMESPACE, f"split:{original.id}:{content_hash(original.content)}:{index}"))


def _units(text: str) -> list[tuple[str, bool]]:
    """(block, starts a section) for each heading-led or blank-line-separated block."""
    blocks: list[tuple[str, bool]] = []
    current: list[str] = []
    heading = False
    for line in text.strip().splitlines():
        if not line.strip():
            if current:
                blocks.append(("\n".join(current).strip(), heading))
                current, heading = [], False
            continue
        if _HEADING.match(line) and current:
            blocks.append(("\n".join(current).strip(), heading))
            current, heading = [], False
        if not current:
            heading = bool(_HEADING.match(line))
        current.append(line)
    if current:
        blocks.append(("\n".join(current).strip(), heading))
    return blocks


def split_text(text: str, target: int, count: Any = None) -> list[str]:
    """Focused pieces of ``text`` of about ``target`` tokens each, cut at headings, paragraphs
    and then sentences; never inside a sentence. Pure and deterministic."""
    if count is None:
        from ...nlp.tokens import count_tokens as count
    units: list[tuple[str, bool]] = []
    for block, starts in _units(text):
        if count(block) <= target:
            units.append((block, starts))
            continue
        sentences = [s for s in _SENTENCE.split(block) if s.strip()]
        units += [(s.strip(), starts and i == 0) for i, s in enumerate(sentences)]
    pieces: list[list[str]] = []
    size = 0
    for unit, starts in units:
        n = count(unit)
        if pieces and not starts and size + n <= target:
            pieces[-1].append(unit)
            size += n
        else:
            pieces.append([unit])
            size = n
    out = ["\n\n".join(p) if any("\n" in u or _HEADING.match(u) for u in p) else " ".join(p) for p in pieces]
    while len(out) > 1 and count(out[-1]) < MIN_PIECE_TOKENS:
        tail = out.pop()
        out[-1] = out[-1] + " " + tail
    return out


def _already_split(core: Core) -> set[str]:
    return core.store.split_originals()


def plan(ctx: PlanContext) -> list[Op]:
    cfg = ctx.cfg
    done = _already_split(ctx.core)
    ops: list[Op] = []
    for m in ctx.live().values():
        if (m.tokens <= cfg.split_min_tokens or m.use_count < cfg.split_min_uses
                or ctx.age_days(m) < cfg.split_min_age_days or m.id in done):
            continue
        pieces = split_text(m.content, cfg.split_target_tokens)
        if len(pieces) < 2:
            continue
        ids = [piece_id(m, i) for i in range(len(pieces))]
        ops.append(Op(NAME, "split", m.id, f"split {m.id[:8]} ({m.tokens} tokens, {m.use_count} uses) into {len(pieces)} pieces",
                      {"id": m.id, "hash": content_hash(m.content), "pieces": [{"id": i, "content": c} for i, c in zip(ids, pieces, strict=True)]}))
    return ops


def apply_split(core: Core, op: Op, actx: ApplyContext) -> dict[str, Any]:
    from ...nlp.tokens import count_many

    p = op.payload
    m = core.store.get_memory(p["id"])
    if m is None or m.status not in (Status.ACTIVE, Status.PROMOTED):
        return {"status": "skipped", "id": p["id"], "reason": "the memory is gone or no longer live"}
    if content_hash(m.content) != p["hash"]:
        return {"status": "skipped", "id": p["id"], "reason": "changed since the plan"}
    pieces = p["pieces"]
    have = core.store.get_memories([x["id"] for x in pieces])
    todo = [x for x in pieces if x["id"] not in have]
    tokens = count_many([x["content"] for x in todo])
    now = actx.now
    new = [
        Memory(
            id=x["id"], content=x["content"], type=m.type, layer=m.layer, status=Status.ACTIVE,
            fingerprint=Fingerprint(type=m.type.value), tokens=n, wing=m.wing, room=m.room, tags=m.tags,
            source=m.source, trust=m.trust, importance=m.importance, created_at=now, updated_at=now,
            meta={"split_from": m.id, "part": pieces.index(x) + 1, "parts": len(pieces)},
            session_id=m.session_id, embed_model=core.embedder.model_hash,
        )
        for x, n in zip(todo, tokens, strict=True)
    ]
    with core.write_lock, core.store.tx():
        core.store.insert_memories(new)
        core.store.add_links(Link(x["id"], m.id, "split_from", "rule", 1.0, now) for x in pieces)
        _queue_enrichment(core, [x.id for x in new], now)
    for x in pieces:
        actx.upsert(x["id"])
    return {"id": m.id, "pieces": [x["id"] for x in pieces]}


APPLY = {"split": apply_split}
