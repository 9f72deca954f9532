"""Conversation context: a memory said in a conversation is read with the turns around it.

A turn's meaning often lives in its neighbour: "Yes, last Tuesday!" answers the question
before it, and a question is answered by the turn after it. Neither turn alone shares words or
meaning with a later query about the event; the pair does. So after fusion each memory that
has a ``session_id`` also receives a share of its neighbours' relevance:

    fused'(d) = fused(d) + max(γ · fused(n), γ_p · fused(p))     p, n: the turns just before / after d
    γ_p = max(γ, γ_a) if p asks a question (its text holds a "?"), else γ

γ = ``recall.neighbour_weight`` (0.25: a neighbour's evidence counts a quarter of one's own;
0 switches the step off). γ_a = ``recall.answer_weight`` (0.5): a question and its answer are
an adjacency pair; the question holds the words a later query repeats ("What got you into
running?"), the answer the fact ("Started after my dad passed"), so the turn after a question
borrows more of it than other neighbours do. Neighbours are the adjacent memories of the same session in save order
(``created_at``, then insertion order), looked up in a small window of rows around each
candidate, so the lookup stays a few primary-key range reads however big the store is.

Memories saved without a session (an assistant saving what it hears, one memory at a time) have
neighbours too when ``recall.neighbour_gap`` > 0: the session-less memories saved just before
and after, if said at most that many seconds apart (1800: half an hour, the pace of one
conversation; two memories saved hours apart belong to different talks). This is not tuned on
LoCoMo, where every turn of a session carries the session's one date: any gap joins them.
Held-out evidence for lending across session-less turns: see ``recall.neighbour_gap`` in
``config.py``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..index.filters import Filters
from .candidates import Pool, from_row, is_folded, rank_key

if TYPE_CHECKING:
    from ..core import Core

WINDOW = 16  # rows either side searched for the same session's previous and next turn
NEAR = 3  # rows either side searched for a session-less memory's neighbours


Adjacent = tuple[str | None, str | None]  # the turn just before, the turn just after (None: none)


def adjacent(core: Core, ids: list[str], gap: float = 0.0, rows: dict[str, dict[str, Any] | None] | None = None,
             asks: set[str] | None = None) -> dict[str, Adjacent]:
    """Memory id → the ids of the turns just before and after it: of the same session, or, for
    a memory without a session when ``gap`` > 0, the session-less memories saved just before and
    after it at most ``gap`` seconds apart. ``rows``: light rows already read (the pool's);
    ``asks`` receives the ids among ``ids`` whose text holds a question mark."""
    if not ids:
        return {}
    known = core.store.light_rows(ids, rows)
    mine = [known[i] for i in ids if i in known and (known[i]["session_id"] or gap > 0)]
    if not mine:
        return {}
    # A session's turns may interleave with other saves (a wide window); session-less neighbours
    # are the saves just before and after (a narrow one: a quarter of the rows to read).
    spans = sorted((int(r["seq"]) - (WINDOW if r["session_id"] else NEAR), int(r["seq"]) + (WINDOW if r["session_id"] else NEAR))
                   for r in mine)
    merged: list[tuple[int, int]] = []
    for lo, hi in spans:
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    by_session: dict[str, dict[str, tuple[float, int]]] = {}
    asking = [int(r["seq"]) for r in mine] if asks is not None else []
    for t in core.store.turns_within(merged, asking):  # one read for every window
        if t[2] or gap > 0:
            by_session.setdefault(t[2] or "", {})[t[1]] = (float(t[3]), int(t[0]))
            if t[4] and asks is not None:
                asks.add(t[1])
    orders: dict[str, tuple[list[str], dict[str, int]]] = {}  # per session: ids in save order, id → position
    for key, turns in by_session.items():
        order = sorted(turns, key=lambda i: turns[i])
        orders[key] = (order, {i: n for n, i in enumerate(order)})
    out: dict[str, Adjacent] = {}
    for r in mine:
        sid = r["session_id"] or ""
        turns = by_session.get(sid, {})
        order, where = orders.get(sid, ([], {}))
        pos = where.get(r["id"], -1)
        if pos < 0:
            continue
        # Only turns inside the window around *this* memory count as its neighbours (and,
        # without a session, only those said close enough in time).
        here, at = int(r["seq"]), float(r["created_at"])
        near = [order[j] if 0 <= j < len(order) and abs(turns[order[j]][1] - here) <= (WINDOW if sid else NEAR)
                and (sid or abs(turns[order[j]][0] - at) <= gap) else None for j in (pos - 1, pos + 1)]
        out[r["id"]] = (near[0], near[1])
    return out


def spread(core: Core, pool: Pool, filters: Filters, weight: float, sources: int | None = None,
           gap: float = 0.0, reach: float = 0.0, answer_weight: float = 0.0) -> None:
    """Apply the formula of the module docstring to the pool (in place), lending from the
    ``sources`` most relevant candidates (all if None). A turn that asks a question (its text
    holds a "?") lends max(γ, ``answer_weight``) to the turn after it. Neighbours
    that were not candidates join the pool (when they pass the filters) with only the shared
    relevance, if that is at least ``reach``; ``context_from`` remembers which candidate lent it."""
    if weight <= 0:
        return
    stm = [c for c in pool.candidates.values() if c.tier == "stm" and (c.session_id or gap > 0)]
    if sources is not None:
        stm = sorted(stm, key=lambda c: rank_key(c, c.fused))[: max(0, sources)]
    if not stm:
        return
    asks: set[str] = set()
    near = adjacent(core, [c.id for c in stm], gap, pool.rows, asks)
    answer = max(weight, answer_weight)
    lent: dict[str, tuple[float, str]] = {}  # turn → (the share it borrows, from whom)
    for c in stm:
        before, after = near.get(c.id, (None, None))
        for other, w in ((before, weight), (after, answer if c.id in asks else weight)):
            if other is None or w <= 0:
                continue
            share = w * c.fused
            if other not in lent or lent[other][0] < share:
                lent[other] = (share, c.id)
    # A turn that was no candidate gets only its share: below ``reach`` it cannot enter the head
    # (pipeline), so its row is not even read.
    new_ids = [i for i in lent if i not in pool.candidates and lent[i][0] >= reach]
    rows = core.store.light_rows(new_ids, pool.rows) if new_ids else {}
    for i in new_ids:
        r = rows.get(i)
        if r is not None and filters.matches_row(r) and not is_folded(r):
            pool.candidates[i] = from_row(i, r)
    for i, (share, source) in lent.items():
        lender = pool.candidates.get(i)
        if lender is None:
            continue
        lender.fused += share
        lender.context_from = source
