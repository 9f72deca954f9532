"""Chunking a note by heading with a word budget (``vault.chunk_words``, default 300).

Each heading starts a section (the text before the first heading is a section without one).
A section over the budget is split at paragraphs, a paragraph over it at lines, a line over it
at words; pieces are packed greedily up to the budget. Each chunk knows its note and heading,
so a recall hit can say ``Note.md#Heading``. Obsidian comments (``%% … %%``) are left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .parse import ParsedNote, strip_comments

_BLANK = re.compile(r"\n[ \t]*\n")


@dataclass(frozen=True)
class Chunk:
    ord: int
    heading: str | None
    text: str
    words: int


def _words(text: str) -> int:
    return len(text.split())


def _units(text: str, budget: int) -> list[str]:
    """Paragraphs, with anything over the budget broken at lines, then at words."""
    out: list[str] = []
    for para in _BLANK.split(text):
        para = para.strip("\n")
        if not para.strip():
            continue
        if _words(para) <= budget:
            out.append(para)
            continue
        for line in para.split("\n"):
            if not line.strip():
                continue
            words = line.split()
            if len(words) <= budget:
                out.append(line)
            else:
                out += [" ".join(words[i : i + budget]) for i in range(0, len(words), budget)]
    return out


def _pack(units: list[str], budget: int) -> list[str]:
    out: list[str] = []
    cur: list[str] = []
    n = 0
    for u in units:
        w = _words(u)
        if cur and n + w > budget:
            out.append("\n\n".join(cur))
            cur, n = [], 0
        cur.append(u)
        n += w
    if cur:
        out.append("\n\n".join(cur))
    return out


def sections(note: ParsedNote) -> list[tuple[str | None, str]]:
    """(heading text or None, the section's text without its heading line)."""
    lines = note.body.split("\n")
    marks = sorted(note.headings, key=lambda h: h.line)
    out: list[tuple[str | None, str]] = []
    start = 0
    heading: str | None = None
    for h in marks:
        out.append((heading, "\n".join(lines[start : h.line])))
        heading = h.text or None
        start = h.line + 1
        # A setext heading's underline is the line after its text.
        if start < len(lines) and re.fullmatch(r"[ \t]*(=+|-+)[ \t]*", lines[start]) and not lines[h.line].lstrip().startswith("#"):
            start += 1
    out.append((heading, "\n".join(lines[start:])))
    return out


def chunk_note(note: ParsedNote, budget: int = 300) -> list[Chunk]:
    budget = max(20, int(budget))
    chunks: list[Chunk] = []
    from .render import split_managed

    managed = split_managed(note.body)[1]
    for heading, text in sections(note):
        if managed and text.strip() and text.strip() in managed and heading == "Related":
            continue  # mnemo's Related section is navigation, not content
        text = strip_comments(text)
        for piece in _pack(_units(text, budget), budget):
            chunks.append(Chunk(ord=len(chunks), heading=heading, text=piece, words=_words(piece)))
    if not chunks and note.headings:
        # A note of headings only is still findable by them.
        text = "\n".join(h.text for h in note.headings if h.text)
        if text:
            chunks.append(Chunk(ord=0, heading=note.headings[0].text or None, text=text, words=_words(text)))
    return chunks


def embed_text(title: str, chunk: Chunk) -> str:
    """What is embedded for a chunk: the note title and heading give a short chunk its topic."""
    head = f"{title} — {chunk.heading}" if chunk.heading else title
    return f"{head}\n{chunk.text}"
