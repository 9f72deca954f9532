"""Links a person (or a client) makes and removes by hand: ``mnemo link`` / ``mnemo unlink``.

A link is stored in both directions (``Store.add_links``). Conventions (see ``graph.rules``):
causal relations run from cause to effect, ``supersedes`` from the newer memory to the older
one, which is then marked ``superseded_by`` the newer (and unmarked when that link goes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import InvalidInput, NotFound
from ..models import LINK_TYPES, Link, valid_link_type

if TYPE_CHECKING:
    from ..core import Core

ORIGINS = ("auto", "rule", "model", "person")


def _resolve(core: Core, memory_id: str, allow_missing: bool = False) -> str:
    try:
        return core.resolve_id(memory_id)
    except NotFound:
        # Links of a memory that no longer exists may still be removed by its full id.
        if allow_missing and core.store.links_of(memory_id.strip()):
            return memory_id.strip()
        raise


def link(core: Core, a: str, b: str, rel: str, origin: str = "person", weight: float = 1.0) -> Link:
    rel = (rel or "").strip()
    if not valid_link_type(rel):
        known = ", ".join(sorted(LINK_TYPES))
        raise InvalidInput(f"unknown link type {rel!r}", hint=f"choose one of: {known}, or shares_entity:<Name>")
    if origin not in ORIGINS:
        raise InvalidInput(f"unknown link origin {origin!r}", hint=f"choose one of: {', '.join(ORIGINS)}")
    if isinstance(weight, bool) or not isinstance(weight, int | float) or not 0.0 <= float(weight) <= 1.0:
        raise InvalidInput("the link weight must be a number from 0 to 1")
    src, dst = _resolve(core, a), _resolve(core, b)
    if src == dst:
        raise InvalidInput("a memory cannot be linked to itself")
    new = Link(src, dst, rel, origin, float(weight), core.now())
    with core.write_lock:
        # A person's link replaces an automatic one of the same type between the same pair.
        core.store.replace_link(new)
    return new


def unlink(core: Core, a: str, b: str, rel: str | None = None) -> int:
    """Remove the links between ``a`` and ``b`` (either direction; only type ``rel`` if given).
    Returns how many links were removed."""
    if rel is not None and not valid_link_type(rel):
        raise InvalidInput(f"unknown link type {rel!r}", hint="`mnemo graph ID` shows the links a memory has")
    x, y = _resolve(core, a, allow_missing=True), _resolve(core, b, allow_missing=True)
    with core.write_lock:
        return core.store.unlink_pair(x, y, rel)
