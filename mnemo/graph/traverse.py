"""Traversal: causal chains (``mnemo chain``), typed neighbourhoods (``mnemo graph``) and link
expansion for other surfaces (``neighbours``), all breadth-first and depth-limited.

Heal on read (MIRA seed): links are not removed when a memory goes; a traversal that meets a
link whose other end no longer exists removes that link (both stored directions) and goes on.
So no traversal ever returns a missing memory, and the graph cleans itself where it is used.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..models import Link, Memory
from .rules import CAUSAL_BACKWARD, CAUSAL_FORWARD

if TYPE_CHECKING:
    from ..core import Core

MAX_NODES = 500
MAX_DEPTH = 10

Step = Callable[[Link, str], bool]  # (link, the node we stand on) → may we follow it?


class Healer:
    """Reads links node by node, drops the dead ones, caches the memories it has seen."""

    def __init__(self, core: Core) -> None:
        self.core = core
        self.memories: dict[str, Memory] = {}
        self.healed = 0

    def load(self, ids: Iterable[str]) -> None:
        want = [i for i in ids if i not in self.memories]
        if want:
            self.memories.update(self.core.store.get_memories(want))

    def links(self, node: str) -> list[tuple[Link, str]]:
        store = self.core.store
        links = store.links_of(node)
        self.load(ln.dst if ln.src == node else ln.src for ln in links)
        live: list[tuple[Link, str]] = []
        dead: list[Link] = []
        for ln in links:
            other = ln.dst if ln.src == node else ln.src
            if other in self.memories:
                live.append((ln, other))
            else:
                dead.append(ln)
        if dead:
            with self.core.write_lock:
                self.healed += store.remove_each_link(dead)
        return live


def _upstream(link: Link, node: str) -> bool:
    """Follow a causal link from an effect to its cause."""
    if link.rel in CAUSAL_FORWARD:
        return link.dst == node
    if link.rel in CAUSAL_BACKWARD:
        return link.src == node
    return False


def _downstream(link: Link, node: str) -> bool:
    if link.rel in CAUSAL_FORWARD:
        return link.src == node
    if link.rel in CAUSAL_BACKWARD:
        return link.dst == node
    return False


def walk(
    healer: Healer, start: Sequence[str], depth: int, step: Step | None = None, limit: int = MAX_NODES
) -> tuple[list[tuple[str, int, Link]], bool]:
    """Breadth-first from ``start``: (node, depth, the link it was reached by) for each new
    node, and whether ``limit`` cut the walk short."""
    seen = set(start)
    frontier = list(start)
    out: list[tuple[str, int, Link]] = []
    for d in range(1, max(0, depth) + 1):
        nxt: list[str] = []
        for node in frontier:
            for ln, other in healer.links(node):
                if other in seen or (step is not None and not step(ln, node)):
                    continue
                if len(out) >= limit:
                    return out, True
                seen.add(other)
                nxt.append(other)
                out.append((other, d, ln))
        frontier = nxt
        if not frontier:
            break
    return out, False


def node(m: Memory, **extra: Any) -> dict[str, Any]:
    return {
        "id": m.id,
        "type": m.type.value,
        "status": m.status.value,
        "created_at": m.created_at,
        "content": m.content,
        "superseded_by": m.superseded_by,
        **extra,
    }


def _check_depth(depth: int) -> int:
    from ..errors import InvalidInput

    if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH:
        raise InvalidInput(f"depth must be a whole number from 1 to {MAX_DEPTH}")
    return depth


def chain(core: Core, memory_id: str, depth: int = 5, consequences: bool = False) -> dict[str, Any]:
    """The causes of a memory (upstream along causal links) and, if asked, its consequences
    (downstream). Causes are listed root cause first, consequences nearest first, so read top
    to bottom the list tells the story in order."""
    depth = _check_depth(depth)
    root = core.get(memory_id)
    healer = Healer(core)
    healer.memories[root.id] = root

    def rows(found: list[tuple[str, int, Link]]) -> list[dict[str, Any]]:
        return [
            node(healer.memories[nid], depth=d, rel=ln.rel, via=ln.dst if ln.src == nid else ln.src, origin=ln.origin, weight=ln.weight)
            for nid, d, ln in found
        ]

    up, cut_up = walk(healer, [root.id], depth, _upstream)
    causes = sorted(rows(up), key=lambda r: (-r["depth"], r["created_at"]))
    effects: list[dict[str, Any]] = []
    cut_down = False
    if consequences:
        down, cut_down = walk(healer, [root.id], depth, _downstream)
        effects = sorted(rows(down), key=lambda r: (r["depth"], r["created_at"]))
    return {
        "memory": node(root),
        "causes": causes,
        "consequences": effects,
        "depth": depth,
        "healed": healer.healed,
        "truncated": cut_up or cut_down,
    }


def graph(core: Core, memory_id: str, depth: int = 1) -> dict[str, Any]:
    """The typed neighbourhood of a memory: every node within ``depth`` links (any type, either
    direction) and every link among them."""
    depth = _check_depth(depth)
    root = core.get(memory_id)
    healer = Healer(core)
    healer.memories[root.id] = root
    found, truncated = walk(healer, [root.id], depth)
    nodes = [node(root, depth=0)] + [node(healer.memories[nid], depth=d) for nid, d, _ in found]
    inside = {n["id"] for n in nodes}
    edges: dict[tuple[str, str, str], dict[str, Any]] = {}
    for nid in inside:
        for ln, other in healer.links(nid):
            if other in inside:
                edges.setdefault((ln.src, ln.dst, ln.rel), ln.to_dict())
    return {
        "root": root.id,
        "depth": depth,
        "nodes": nodes,
        "edges": sorted(edges.values(), key=lambda e: (e["rel"], e["src"], e["dst"])),
        "healed": healer.healed,
        "truncated": truncated,
    }


def neighbours(
    core: Core, ids: Sequence[str], depth: int = 1, rels: Iterable[str] | None = None, limit: int = 50
) -> list[tuple[Memory, int, Link]]:
    """Memories linked to ``ids`` (within ``depth``; only the link types ``rels`` if given;
    ``shares_entity`` matches every ``shares_entity:{Name}``), nearest first, healing as it
    goes: the expansion step recall uses."""
    wanted = set(rels) if rels is not None else None

    def step(ln: Link, _node: str) -> bool:
        if wanted is None:
            return True
        return ln.rel in wanted or (ln.rel.startswith("shares_entity:") and "shares_entity" in wanted)

    healer = Healer(core)
    found, _ = walk(healer, list(ids), depth, step, limit=limit)
    return [(healer.memories[nid], d, ln) for nid, d, ln in found]
