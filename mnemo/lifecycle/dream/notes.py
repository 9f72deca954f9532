"""Small helpers for the notes the dream writes: how a memory is referred to (a wikilink to its
note when it has one, else its short id and first words), and the managed block mnemo keeps in a
note it owns (a marked section it rebuilds, leaving everything else in the note as it is)."""

from __future__ import annotations

import hashlib
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...core import Core
    from ...models import Memory

CARD_HEADING = "## What the memories say"
CARD_BEGIN = "%% mnemo: peer card, rebuilt by the dream cycle; write outside this section %%"
CARD_END = "%% mnemo: end of peer card %%"
_BLOCK = re.compile(re.escape(CARD_HEADING) + r"[ \t]*\n" + re.escape(CARD_BEGIN) + r".*?" + re.escape(CARD_END) + r"[ \t]*\n?", re.S)


def short(text: str, n: int = 80) -> str:
    one = " ".join(text.split())
    return one if len(one) <= n else one[: n - 1] + "…"


def first_sentence(text: str, n: int = 160) -> str:
    one = " ".join(text.split())
    m = re.match(r"(.+?[.!?])(\s|$)", one)
    return short(m.group(1) if m and len(m.group(1)) >= 20 else one, n)


def ref(core: Core, m: Memory | None, memory_id: str = "") -> str:
    """``[[Note]]`` for a memory with a note in the vault, else `` `id8` first words``."""
    if m is None:
        return f"`{memory_id[:8]}` (gone)"
    vault = core.settings.vault
    if m.note_path and vault is not None and (vault / m.note_path).is_file():
        from ...vault.entities import link_for
        from ...vault.names import title_of

        return link_for(core, m.note_path, title_of(m.note_path))
    return f"`{m.id[:8]}` {short(m.content, 70)}"


def find_block(text: str) -> str | None:
    m = _BLOCK.search(text.replace("\r\n", "\n"))
    return m.group(0) if m else None


def block_hash(text: str | None) -> str | None:
    block = find_block(text) if text is not None else None
    return hashlib.sha256(block.encode()).hexdigest() if block is not None else None


def render_block(lines: list[str]) -> str:
    return f"{CARD_HEADING}\n{CARD_BEGIN}\n" + "".join(f"{ln}\n" for ln in lines) + f"{CARD_END}\n"


def put_block(text: str, block: str) -> str:
    """The note with its managed block replaced in place, or appended at the end."""
    crlf = "\r\n" in text
    norm = text.replace("\r\n", "\n")
    m = _BLOCK.search(norm)
    if m:
        out = norm[: m.start()] + block + norm[m.end():]
    else:
        out = norm.rstrip("\n") + "\n\n" + block
    return out.replace("\n", "\r\n") if crlf else out
