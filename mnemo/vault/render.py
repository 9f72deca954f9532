"""A memory's note: frontmatter properties and body (the format is NOTE-FORMAT.md).

```
---
mnemo_id: 6c1f…
type: decision
layer: semantic
tags:
  - db
aliases:
  - We decided to use PostgreSQL for the database
created: 2026-03-02T09:00:00Z
updated: 2026-03-07T09:00:00Z
source: human
entities:
  - PostgreSQL
related:
  - "[[PostgreSQL]]"
---
We decided to use PostgreSQL for the database because the team knows it well

## Related
%% mnemo: … %%
- [[PostgreSQL]]
```

The text above ``## Related`` is the memory's content: a person's edits to it (and to ``tags``)
flow back into the memory. The Related section below the marker line is mnemo's and is rebuilt on
every update. Updating an existing note edits it in place (``props.edit_frontmatter``): unknown
keys, key order, comments, block ids and the person's headings and formatting stay.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..clock import note_time
from ..models import Memory
from .parse import split_frontmatter
from .props import edit_frontmatter, render_frontmatter

RELATED_HEADING = "## Related"
RELATED_MARK = "%% mnemo: this section is rebuilt on every update; write above it %%"
_MANAGED = re.compile(r"(?:^|\n)## Related[ \t]*\n%% mnemo:[^\n]*%%[ \t]*(?:\n|$)")
TITLE_CHARS = 60
# Words that open a new phrase or clause: a title may end just before one of them.
_OPENERS = frozenset(
    {"because", "so", "and", "but", "or", "which", "that", "who", "when", "while", "where", "whereas", "although",
     "though", "since", "until", "after", "before", "if", "unless", "with", "without", "through", "via", "for",
     "to", "from", "in", "on", "at", "by", "into", "onto", "over", "under", "than", "then", "as", "using"}
)
_DANGLING = frozenset(
    {"a", "an", "the", "and", "or", "but", "because", "so", "to", "of", "for", "in", "on", "at", "by", "with",
     "from", "as", "that", "which", "who", "is", "are", "was", "were", "be", "we", "i", "you", "it", "this",
     "these", "those", "our", "my", "your", "their", "its", "if", "when", "while", "than", "then"}
)


def title_for(memory: Memory) -> str:
    """A readable title: ``meta.title`` if given, else the first sentence or line of the content,
    cut at a word boundary."""
    given = memory.meta.get("title") if isinstance(memory.meta, dict) else None
    if isinstance(given, str) and given.strip():
        return given.strip()
    text = memory.content.strip()
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    first = re.sub(r"^\s*(#+|[-*+>]|\d+[.)])\s+", "", first)  # heading marks, bullets, quotes
    first = re.sub(r"[*_`~]+", "", first).strip()
    m = re.match(r"(.+?[.!?])(\s|$)", first)
    if m and len(m.group(1)) >= 12:
        first = m.group(1).rstrip(".")
    if len(first) > TITLE_CHARS:
        first = shorten_title(first)
    return first.strip() or f"Memory {memory.id[:8]}"


def shorten_title(text: str, limit: int = TITLE_CHARS) -> str:
    """``text`` cut to at most ``limit`` characters at the end of a phrase: before the last
    clause or phrase opener ("because", "through", "with" …) or after the last comma, colon or
    dash that leaves at least 40% of the limit, so a title never stops inside a phrase ("… the
    blue-green"). With no such place, it is cut at a word and ends with "…" to say so."""
    words = text[: limit + 1].split(" ")
    if len(text) > limit:
        # the last piece was cut short, or is the word just past the limit
        words = words[:-1] if len(words) > 1 else [text[: limit - 1]]
    floor = int(limit * 0.4)
    best = None
    length = 0
    for i, w in enumerate(words):
        if i >= 2 and length >= floor and w.lower() in _OPENERS:
            best = i  # cut before this word
        length += len(w) + 1
        ends_clause = w[-1:] in ",;:" or w in ("-", "–", "—")
        if ends_clause and i + 1 < len(words) and length - 1 >= floor:
            best = i + 1  # cut after it
    if best is not None:
        out = " ".join(words[:best])
    else:
        kept = list(words)
        while len(kept) > 3 and kept[-1].lower() in _DANGLING:  # not "… because the"
            kept.pop()
        out = " ".join(kept).rstrip(",;:-–— ") + "…"
    return out.rstrip(",;:-–— ")


def memory_properties(
    memory: Memory, entities: Sequence[str], related: Sequence[str], now: float, title: str | None = None
) -> dict[str, Any]:
    """The properties mnemo writes for a memory, in their canonical order."""
    props: dict[str, Any] = {
        "mnemo_id": memory.id,
        "type": memory.type.value,
        "layer": memory.layer.value,
        "tags": list(memory.tags),
        "aliases": _aliases(memory, title),
        "created": note_time(memory.created_at),
        "updated": note_time(now),
        "source": memory.source.value,
        "entities": list(entities),
        "related": list(related),
    }
    if memory.wing:
        props["wing"] = memory.wing
    if memory.room:
        props["room"] = memory.room
    return props


def _aliases(memory: Memory, title: str | None) -> list[str]:
    """The full first line when the title had to shorten it, so Obsidian's search finds both."""
    first = next((ln.strip() for ln in memory.content.splitlines() if ln.strip()), "")
    first = re.sub(r"^\s*#+\s+", "", first)
    if title and first and first != title and len(first) <= 200:
        return [first]
    return []


def related_section(links: Sequence[str]) -> str:
    if not links:
        return ""
    return f"{RELATED_HEADING}\n{RELATED_MARK}\n" + "".join(f"- {ln}\n" for ln in links)


def split_managed(body: str) -> tuple[str, str]:
    """(the person-editable content, mnemo's Related section or '')."""
    found = list(_MANAGED.finditer(body))
    if not found:
        return body, ""
    m = found[-1]
    start = m.start() + (1 if body[m.start()] == "\n" else 0)
    return body[:start], body[start:]


def note_content(text_or_body: str, is_body: bool = False) -> str:
    """The memory content a note holds: its body above mnemo's Related section, trimmed."""
    body = text_or_body if is_body else split_frontmatter(text_or_body.replace("\r\n", "\n"))[1]
    return split_managed(body.replace("\r\n", "\n"))[0].strip()


def _body(content: str, links: Sequence[str]) -> str:
    content = content.strip("\n")
    section = related_section(links)
    return f"{content}\n\n{section}" if section else f"{content}\n"


def render_new(memory: Memory, title: str, entities: Sequence[str], related: Sequence[str], now: float) -> str:
    return render_frontmatter(memory_properties(memory, entities, related, now, title)) + _body(memory.content, related)


def render_update(
    existing: str, memory: Memory, title: str, entities: Sequence[str], related: Sequence[str], now: float,
    keep_content: bool = False,
) -> str:
    """The existing note brought up to date with ``memory``. Only mnemo's keys and the Related
    section change; ``created`` and ``aliases`` are set only when absent (they are the person's
    once written); ``updated`` moves only when something else changed. The content above the
    Related section becomes the memory's, unless ``keep_content`` (the person edited the note
    since mnemo last read it: their text wins, and flows into the memory when it is indexed)."""
    crlf = "\r\n" in existing
    text = existing.replace("\r\n", "\n")
    raw, body, _ = split_frontmatter(text)
    from .parse import load_yaml

    current = load_yaml(raw)[0] if raw is not None else {}
    props = memory_properties(memory, entities, related, now, title)
    keep_once = {"created", "aliases"}
    updates = {k: v for k, v in props.items() if k not in keep_once or k not in current}
    content, _ = split_managed(body)
    if keep_content or content.strip() == memory.content.strip():
        new_body = content.rstrip("\n") + "\n"
        new_body = new_body + "\n" + related_section(related) if related else new_body
    else:
        new_body = _body(memory.content, related)
    if "updated" in current:
        # First try with the old timestamp: if nothing else changed, the bytes are identical.
        same = edit_frontmatter(_join(text, raw, new_body), {**updates, "updated": current["updated"]})
        if same == text:
            return existing
    out = edit_frontmatter(_join(text, raw, new_body), updates)
    return out.replace("\n", "\r\n") if crlf else out


def _join(text: str, raw: str | None, body: str) -> str:
    if raw is None:
        return body
    _, _, prefix = split_frontmatter(text)
    return prefix + body


def mark_demoted(existing: str, now: float) -> str:
    return edit_frontmatter(existing, {"mnemo_status": "demoted", "demoted": note_time(now)})


def unmark_demoted(existing: str) -> str:
    return edit_frontmatter(existing, {}, remove=("mnemo_status", "demoted"))
