"""``mnemo context``: the block of text an assistant puts into its prompt, within a token budget.

Sections, in order, each packed by the CBA (``budget.py``) from what the previous ones left:

1. **Pinned memories** (at most ``recall.pinned_share`` of the budget): pinned memories (with a
   ``wing`` filter, that wing's and those of no wing), the ones closest to the query first.
2. **Recent session notes** (at most ``recall.session_share``): ``session_note`` memories of the
   last ``recall.recent_days`` days (of the ``wing`` filter's wing, when given), newest first
   (the given session's first), chosen by a complexity budget as MIRA loads segment summaries:
   each note scores 1–3 by its size and facts, and notes are taken until their complexity would
   pass ``recall.session_complexity``. A rich note takes the room of three simple ones.
3. **Relevant memories and notes** and 4. **Review**: the recall results (review candidates are
   blended in by recall) packed together so the blend survives, then shown in two sections.

Every item shows the id it is reinforced by (8 characters of a memory id; a person's note is
named by its path). Section headers count against the budget; the assembled block is counted
again at the end, so the budget is never exceeded. Unless ``touch=False`` what is shown is
reinforced, with the session id when given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..clock import DAY
from ..errors import InvalidInput
from ..models import Memory
from ..nlp.tokens import count_tokens
from .budget import Allocation, CBAParams, Chosen, allocate
from .candidates import Candidate
from .pipeline import search
from .render import items_for, memory_item

if TYPE_CHECKING:
    from ..core import Core

TITLES = {
    "pinned": "## Pinned memories",
    "session": "## Recent session notes",
    "relevant": "## Relevant memories and notes",
    "review": "## Worth reviewing (fading memories related to this)",
}
MAX_PINNED = 100


def complexity(m: Memory) -> int:
    """1–3, the cognitive load of a session note (MIRA scores segment summaries 1–3): one point,
    plus one for a long or fact-rich note, plus one for a very long or very rich one."""
    facts = m.fingerprint.facts() if m.fingerprint is not None else 0
    tokens = m.tokens or count_tokens(m.content)
    return 1 + int(tokens >= 100 or facts >= 4) + int(tokens >= 300 or facts >= 8)


def pick_session_notes(notes: list[Memory], limit: int) -> list[Memory]:
    """Newest first until the next note's complexity would pass ``limit``."""
    out: list[Memory] = []
    total = 0
    for m in notes:
        c = complexity(m)
        if total + c > limit:
            break
        out.append(m)
        total += c
    return out


@dataclass
class Section:
    name: str
    alloc: Allocation

    @property
    def lines(self) -> list[str]:
        return [TITLES[self.name], *(c.text for c in self.alloc.chosen)] if self.alloc.chosen else []


def _pinned(core: Core, wing: str | None) -> list[Memory]:
    # A pinned memory of no wing is a standing rule for every project; one of another wing is
    # that project's own and stays out of this one's context.
    return core.store.pinned_memories(MAX_PINNED, wing=wing)


def _session_notes(core: Core, now: float, days: float, session_id: str | None, wing: str | None) -> list[Memory]:
    # With a wing (a project's session start, ``context --wing``) the notes are that wing's
    # only, like the results: another project's last session is not this one's.
    notes = core.store.session_notes_between(now - days * DAY, now, wing=wing)
    if session_id:
        notes.sort(key=lambda m: m.session_id != session_id)  # stable: newest first within each
    return notes


def _pack(items: list[Any], budget: int, params: CBAParams, name: str, headroom: int = 0) -> Section:
    header = count_tokens(TITLES[name]) + 1
    if budget <= header or not items:
        return Section(name, Allocation(budget=0, chosen=[], used=0))
    alloc = allocate(items, budget - header, params, headroom=headroom)
    if alloc.chosen:
        alloc.used += header
    return Section(name, alloc)


def compose(
    core: Core,
    query: str,
    budget: int,
    k: int | None = None,
    touch: bool = True,
    intent: str | None = None,
    tier: str = "all",
    session_id: str | None = None,
    **filters: Any,
) -> dict[str, Any]:
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise InvalidInput("budget must be a whole number of tokens, at least 1")
    if session_id is not None and (not isinstance(session_id, str) or not session_id.strip()):
        raise InvalidInput("session_id must be a non-empty string")
    s = core.settings.recall
    # More results than a plain recall: the budget, not k, decides how many fit.
    found = search(core, query, k=k or max(s.k, 20), intent=intent, tier=tier, heal=touch, **filters)
    params = CBAParams(causal_alpha=s.causal_alpha, session_window=s.session_window, session_boost=s.session_boost)
    qvec = np.asarray(core.embedder.embed_query(found.query.semantic), dtype=np.float32)
    now = core.now()
    remaining = budget
    shown: set[str] = set()
    sections: list[Section] = []

    def memory_items(mems: list[Memory], scores: list[float]) -> list[Any]:
        vecs = core.index.get_vectors("memories", [m.id for m in mems]) if mems else {}
        return [memory_item(m, sc, vecs.get(m.id)) for m, sc in zip(mems, scores, strict=True)]

    pinned = _pinned(core, filters.get("wing"))
    if pinned:
        vecs = core.index.get_vectors("memories", [m.id for m in pinned])
        rel = [0.5 + 0.5 * max(0.0, float(np.dot(vecs[m.id], qvec))) if m.id in vecs else 0.5 for m in pinned]
        cap = min(remaining, int(budget * s.pinned_share))
        sec = _pack(memory_items(pinned, rel), cap, params, "pinned", headroom=remaining - cap)
        sections.append(sec)
        remaining -= sec.alloc.used
        shown |= {c.item.key for c in sec.alloc.chosen}

    notes = [m for m in _session_notes(core, now, s.recent_days, session_id, filters.get("wing")) if m.id not in shown]
    notes = pick_session_notes(notes, s.session_complexity)
    if notes:
        scores = [1.0 / (1 + i) for i in range(len(notes))]  # newest first
        cap = min(remaining, int(budget * s.session_share))
        sec = _pack(memory_items(notes, scores), cap, params, "session", headroom=remaining - cap)
        sections.append(sec)
        remaining -= sec.alloc.used
        shown |= {c.item.key for c in sec.alloc.chosen}

    results = [c for c in found.hits if (c.memory.id if c.memory is not None else c.id) not in shown]
    review_header = count_tokens(TITLES["review"]) + 1 if any(c.reason == "review" for c in results) else 0
    both = _pack(items_for(core, results, found.vectors), remaining - review_header, params, "relevant")
    relevant = [ch for ch in both.alloc.chosen if ch.item.payload.reason != "review"]
    review = [ch for ch in both.alloc.chosen if ch.item.payload.reason == "review"]
    for name, chosen in (("relevant", relevant), ("review", review)):
        if chosen:
            header = count_tokens(TITLES[name]) + 1
            sections.append(Section(name, Allocation(budget=0, chosen=chosen, used=header + sum(c.tokens for c in chosen))))

    text = _assemble(sections, budget)
    if touch:
        _touch(core, _shown_ids(sections), session_id)
    return {
        "query": query,
        "budget": budget,
        "used": count_tokens(text) if text else 0,
        "context": text,
        "sections": [
            {"name": sec.name, "title": TITLES[sec.name].lstrip("# "), "items": [_item_view(c) for c in sec.alloc.chosen]}
            for sec in sections if sec.alloc.chosen
        ],
        "ids": _shown_ids(sections),
    }


def _shown_ids(sections: list[Section]) -> list[str]:
    """Memory ids of everything in the block (what a later observe/touch would name)."""
    return list(dict.fromkeys(i for sec in sections for c in sec.alloc.chosen if (i := _memory_id(c))))


def _memory_id(c: Chosen) -> str | None:
    p = c.item.payload
    if isinstance(p, Memory):
        return p.id
    if isinstance(p, Candidate):
        return p.memory_id
    return None


def _touch(core: Core, ids: list[str], session_id: str | None) -> None:
    from ..lifecycle.reinforce import reinforce

    if ids:
        reinforce(core, ids, kind="recall", session_id=session_id)


def _assemble(sections: list[Section], budget: int) -> str:
    """Join the sections; should the whole count more than the budget (tokenisation across line
    breaks), drop the lowest-scored items until it fits."""
    while True:
        lines = [line for sec in sections for line in sec.lines]
        text = "\n".join(lines)
        if not lines or count_tokens(text) <= budget:
            return text
        worst = min(
            ((si, ci) for si, sec in enumerate(sections) for ci in range(len(sec.alloc.chosen))),
            key=lambda p: sections[p[0]].alloc.chosen[p[1]].adjusted,
        )
        sections[worst[0]].alloc.chosen.pop(worst[1])


def _item_view(c: Chosen) -> dict[str, Any]:
    p = c.item.payload
    view: dict[str, Any] = {"mode": c.mode, "tokens": c.tokens, "score": round(c.adjusted, 6)}
    if isinstance(p, Memory):
        view.update(id=p.id, memory_id=p.id, tier="stm", reason="pinned" if p.pinned else "session", path=p.note_path)
    else:
        assert isinstance(p, Candidate)
        view.update(id=p.id, memory_id=p.memory_id, tier=p.tier, reason=p.reason, path=p.note)
    return view
