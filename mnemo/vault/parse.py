"""Parsing a note: frontmatter (safe YAML only), headings, wikilinks, tags, aliases, block ids.

- Frontmatter is the block between a first line ``---`` and the next ``---`` line (Obsidian's
  rule; a second ``---`` block further down is body text). It is loaded with python-frontmatter's
  YAML handler and ``yaml.SafeLoader``: a ``!!python/object`` tag is an error, never code. A note
  whose YAML does not parse keeps its raw text, reports ``fm_error`` and is treated as a note
  mnemo does not own (so it is never rewritten, never "fixed").
- Headings come from markdown-it-py (so a ``#`` line inside a code fence is not a heading).
- Tags: ``tags``/``tag`` properties (list or comma/space separated, ``#`` stripped) and inline
  ``#tag`` outside code, links and headings. Callouts (``> [!note]``) are plain text.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from .names import title_of
from .wikilinks import WikiLink, block_tokens, code_ranges, find_links, in_code

_TAG = re.compile(r"(?<![^\s(\[{,;>])#([\w/\-]+)")
_BLOCK_ID = re.compile(r"(?:^|\s)\^([A-Za-z0-9-]+)[ \t]*$", re.MULTILINE)
_COMMENT = re.compile(r"%%.*?%%", re.DOTALL)
_ALIAS = re.compile(r"(?:^|[\s\[{,:-])\*[^\s,\]}]+")
MAX_FRONTMATTER = 256 * 1024
MAX_ALIASES = 32


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """The safe loader (libyaml's when available: same rules, much faster) that keeps dates as
    the ISO text the person wrote (JSON-friendly)."""


def _timestamp_as_text(loader: yaml.SafeLoader, node: yaml.Node) -> str:
    return str(loader.construct_scalar(node))


_Loader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp_as_text)


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    line: int  # 0-based line in the body


@dataclass(frozen=True)
class ParsedNote:
    path: str
    title: str
    frontmatter: dict[str, Any] = field(default_factory=dict)
    fm_raw: str | None = None  # the YAML text between the fences, exactly as written
    fm_error: str | None = None
    body: str = ""
    headings: tuple[Heading, ...] = ()
    links: tuple[WikiLink, ...] = ()
    tags: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    block_ids: tuple[str, ...] = ()

    @property
    def mnemo_id(self) -> str | None:
        """The owner mark. Only a note whose frontmatter parsed and names a ``mnemo_id`` is
        mnemo's."""
        if self.fm_error:
            return None
        value = self.frontmatter.get("mnemo_id")
        if value is None or isinstance(value, dict | list):
            return None
        text = str(value).strip()
        return text or None


def split_frontmatter(text: str) -> tuple[str | None, str, str]:
    """(raw YAML or None, body, the exact text before the body). ``prefix + body == text``."""
    start = 1 if text.startswith("\ufeff") else 0
    if not text.startswith("---", start):
        return None, text, ""
    lines = text[start:].splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n").rstrip() != "---":
        return None, text, ""
    offset = start + len(lines[0])
    for line in lines[1:]:
        if line.rstrip("\r\n").rstrip() == "---":
            raw = text[start + len(lines[0]) : offset]
            end = offset + len(line)
            return raw, text[end:], text[:end]
        offset += len(line)
    return None, text, ""  # no closing fence: Obsidian shows it as text, so do we


def load_yaml(raw: str) -> tuple[dict[str, Any], str | None]:
    """Safe YAML → (mapping, error). Never executes tags; errors are reported, not raised."""
    if not raw.strip():
        return {}, None
    if len(raw) > MAX_FRONTMATTER or len(_ALIAS.findall(raw)) > MAX_ALIASES:
        # A "billion laughs" of anchors and aliases would expand without bound.
        return {}, "the frontmatter is too large or uses too many YAML aliases"
    from frontmatter.default_handlers import YAMLHandler

    try:
        data = YAMLHandler().load(raw, Loader=_Loader)
    except yaml.YAMLError as exc:
        return {}, f"invalid YAML: {str(exc).splitlines()[0]}"
    except (ValueError, TypeError, RecursionError) as exc:  # e.g. unhashable keys
        return {}, f"invalid YAML: {exc}"
    if data is None:
        return {}, None
    if not isinstance(data, dict):
        return {}, "the frontmatter is not a mapping of properties"
    try:
        return {str(k): _plain(v) for k, v in data.items()}, None
    except RecursionError:  # libyaml parses what Python cannot walk (thousands of nested lists)
        return {}, "invalid YAML: the frontmatter is nested too deeply"


def _plain(value: Any) -> Any:
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return value


def norm_tag(tag: Any) -> str:
    return str(tag).strip().lstrip("#").strip()


def _list_prop(value: Any, split: bool) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        items = re.split(r"[,\s]+", value) if split else [value]
    elif isinstance(value, list | tuple):
        items = [str(v) for v in value if v is not None and not isinstance(v, dict | list)]
    else:
        items = [str(value)]
    return [i for i in (x.strip() for x in items) if i]


def property_tags(fm: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for key in ("tags", "tag"):
        out += [norm_tag(t) for t in _list_prop(fm.get(key), split=True)]
    return [t for t in out if t]


def property_aliases(fm: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for key in ("aliases", "alias"):
        out += _list_prop(fm.get(key), split=False)
    return out


def headings(body: str, tokens: list | None = None) -> list[Heading]:
    if "#" not in body and "\n=" not in body and "\n-" not in body:
        return []
    tokens = block_tokens(body) if tokens is None else tokens
    out: list[Heading] = []
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.map:
            inline = tokens[i + 1] if i + 1 < len(tokens) else None
            text = inline.content.strip() if inline is not None else ""
            out.append(Heading(level=int(tok.tag[1]), text=text, line=tok.map[0]))
    return out


def inline_tags(body: str, code: list[tuple[int, int]], links: list[WikiLink]) -> list[str]:
    if "#" not in body:
        return []
    starts = [a for a, _ in code]
    spans = [(ln.start, ln.end) for ln in links]
    out: list[str] = []
    for m in _TAG.finditer(body):
        pos = m.start()
        if in_code(code, starts, pos) or any(a <= pos < b for a, b in spans):
            continue
        tag = m.group(1).rstrip("/-")
        if tag and re.search(r"[^\d/\-]", tag):  # Obsidian: not purely numeric
            out.append(tag)
    return out


def parse_note(rel_path: str, text: str) -> ParsedNote:
    text = text.replace("\r\n", "\n")
    raw, body, _ = split_frontmatter(text)
    fm, err = load_yaml(raw) if raw is not None else ({}, None)
    tokens = block_tokens(body)  # parsed once for code ranges and headings
    code = code_ranges(body, tokens)
    links = find_links(body, code)
    fm_links: list[WikiLink] = []
    for value in fm.values():  # "[[links]]" in properties count as links too
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and "[[" in item:
                fm_links += find_links(item, [])
    tags = dict.fromkeys(property_tags(fm) + inline_tags(body, code, links))
    return ParsedNote(
        path=rel_path,
        title=title_of(rel_path),
        frontmatter=fm,
        fm_raw=raw,
        fm_error=err,
        body=body,
        headings=tuple(headings(body, tokens)),
        links=tuple(links + fm_links),
        tags=tuple(tags),
        aliases=tuple(dict.fromkeys(property_aliases(fm))),
        block_ids=tuple(dict.fromkeys(_BLOCK_ID.findall(body))),
    )


def strip_comments(text: str) -> str:
    """Obsidian ``%% comments %%`` are hidden when reading; they are not indexed either."""
    return _COMMENT.sub("", text) if "%%" in text else text
