"""Wikilinks in every Obsidian form, and rewriting them when mnemo renames a note.

``[[Note]]``, ``[[Note|alias]]``, ``[[Note#Heading]]``, ``[[Note#^block]]``, ``[[folder/Note]]``,
``[[Note.md]]``, ``![[embed]]``, and ``[[Note\\|alias]]`` inside tables. Links inside code (fenced
blocks, indented blocks, inline spans) are text, not links, as in Obsidian.

A rename rewrites only the target part of each link: the heading, block, alias and ``!`` stay,
every other byte of the note stays (it is the one edit mnemo may make to notes it does not own).
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

WIKILINK = re.compile(
    r"(?P<embed>!?)\[\[(?P<target>[^\[\]|#^\n]*?)(?P<sub>#[^\[\]|\n]*?)?(?P<esc>\\?)(?:\|(?P<alias>[^\[\]\n]*))?\]\]"
)
_INLINE_CODE = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.DOTALL)


@dataclass(frozen=True)
class WikiLink:
    target: str  # as written, without .md stripping (may be empty for [[#Heading]])
    heading: str | None = None
    block: str | None = None
    alias: str | None = None
    embed: bool = False
    start: int = 0
    end: int = 0

    @property
    def name(self) -> str:
        """The target without a ``.md`` suffix, for resolution."""
        t = self.target.strip()
        return t[:-3] if t.lower().endswith(".md") else t

    def render(self) -> str:
        sub = f"#^{self.block}" if self.block else (f"#{self.heading}" if self.heading else "")
        alias = f"|{self.alias}" if self.alias is not None else ""
        return f"{'!' if self.embed else ''}[[{self.target}{sub}{alias}]]"


@functools.cache
def _md() -> MarkdownIt:
    from markdown_it import MarkdownIt

    # Block structure only: headings and code blocks are all we need, and inline parsing would
    # double the cost of indexing a vault.
    return MarkdownIt("commonmark").disable("inline")


def block_tokens(text: str) -> list:
    return _md().parse(text)


def code_ranges(text: str, tokens: list | None = None) -> list[tuple[int, int]]:
    """Character ranges of code (fenced and indented blocks, inline spans), sorted."""
    if "`" not in text and "~~~" not in text and "    " not in text and "\t" not in text:
        return []
    line_starts = [0]
    for m in re.finditer("\n", text):
        line_starts.append(m.end())
    line_starts.append(len(text))
    ranges: list[tuple[int, int]] = []
    for tok in tokens if tokens is not None else block_tokens(text):
        if tok.type in ("fence", "code_block") and tok.map:
            a, b = tok.map
            ranges.append((line_starts[min(a, len(line_starts) - 1)], line_starts[min(b, len(line_starts) - 1)]))
    for m in _INLINE_CODE.finditer(text):
        if not _inside(ranges, m.start()):
            ranges.append((m.start(), m.end()))
    ranges.sort()
    return ranges


def _inside(ranges: list[tuple[int, int]], pos: int) -> bool:
    return any(a <= pos < b for a, b in ranges)


def _starts(ranges: list[tuple[int, int]]) -> list[int]:
    return [a for a, _ in ranges]


def in_code(ranges: list[tuple[int, int]], starts: list[int], pos: int) -> bool:
    i = bisect.bisect_right(starts, pos) - 1
    return i >= 0 and ranges[i][0] <= pos < ranges[i][1]


def find_links(text: str, code: list[tuple[int, int]] | None = None) -> list[WikiLink]:
    if "[[" not in text:
        return []
    code = code_ranges(text) if code is None else code
    starts = _starts(code)
    out: list[WikiLink] = []
    for m in WIKILINK.finditer(text):
        if in_code(code, starts, m.start()):
            continue
        out.append(_link(m))
    return out


def _link(m: re.Match[str]) -> WikiLink:
    sub = m.group("sub")
    heading = block = None
    if sub:
        sub = sub[1:]
        if sub.startswith("^"):
            block = sub[1:]
        else:
            heading = sub
    return WikiLink(
        target=m.group("target"),
        heading=heading,
        block=block,
        alias=m.group("alias"),
        embed=bool(m.group("embed")),
        start=m.start(),
        end=m.end(),
    )


def link_matches(name: str, title: str, rel_path: str) -> bool:
    """Whether a link target (``WikiLink.name``) resolves to the note at ``rel_path``: its title,
    its full path without ``.md``, or a trailing part of that path (Obsidian's resolution)."""
    n = name.strip().replace("\\", "/").strip("/").lower()
    if not n:
        return False
    stem = rel_path[:-3] if rel_path.lower().endswith(".md") else rel_path
    stem = stem.lower()
    return n == title.lower() or n == stem or stem.endswith("/" + n)


def rewrite_links(
    text: str, old_title: str, old_rel: str, new_title: str, new_rel: str, bare_ok: bool = True
) -> tuple[str, int]:
    """Rewrite the target of every link to the note ``old_rel`` so it points at ``new_rel``.

    A bare ``[[Title]]`` becomes ``[[New title]]``; a path form ``[[folder/Title]]`` becomes the
    new path (without ``.md``, or with it when the link had it). ``bare_ok=False`` leaves bare
    links alone (another note has the old title, so a bare link may mean that one).
    Returns (new text, number of links rewritten); all other bytes are unchanged."""
    if "[[" not in text:
        return text, 0
    code = code_ranges(text)
    starts = _starts(code)
    new_stem = new_rel[:-3] if new_rel.lower().endswith(".md") else new_rel
    pieces: list[str] = []
    last = 0
    count = 0
    for m in WIKILINK.finditer(text):
        if in_code(code, starts, m.start()):
            continue
        link = _link(m)
        name = link.name
        if not link_matches(name, old_title, old_rel):
            continue
        is_path = "/" in name.replace("\\", "/")
        if not is_path and not bare_ok:
            continue
        had_md = link.target.strip().lower().endswith(".md")
        target = new_stem if is_path else new_title
        if had_md:
            target += ".md"
        a, b = m.span("target")
        pieces.append(text[last:a])
        pieces.append(target)
        last = b
        count += 1
    if not count:
        return text, 0
    pieces.append(text[last:])
    return "".join(pieces), count


def link_targets(links: Iterable[WikiLink]) -> list[str]:
    """Distinct link target names (for the notes table), in order."""
    out: dict[str, None] = {}
    for ln in links:
        if ln.name:
            out.setdefault(ln.name, None)
    return list(out)


def wikilink(title: str, alias: str | None = None) -> str:
    return f"[[{title}|{alias}]]" if alias and alias != title else f"[[{title}]]"
