"""Writing frontmatter properties without disturbing the rest of it.

mnemo never re-dumps a person's YAML (that is how peer tools rewrite ``tags`` JSON-style, drop
comments, reorder keys or add a second frontmatter block). Instead the raw YAML is cut into
top-level blocks (a key line and its indented continuation); only the blocks of the keys being
set are replaced, in place, and keys not yet present are appended. Unknown keys, their order,
comments and blank lines stay byte for byte. The result is loaded again and every key mnemo did
not set must still have the value it had: if not (unusual YAML layouts), the edit is refused
rather than risk damage.

Values are rendered the way Obsidian writes properties: lists as block lists (``- item``),
strings plain when that is unambiguous and double-quoted otherwise (so ``"[[links]]"`` are
quoted), ISO timestamps as text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ..errors import VaultError
from .parse import load_yaml, split_frontmatter

_KEY_LINE = re.compile(r"""^(?P<key>"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"\-?:][^:]*?|-[^\s:][^:]*?)[ \t]*:(?:[ \t]|$)""")
_PLAIN = re.compile(r"[A-Za-z0-9_\u00c0-\uffff][\w .\-/'()\u00c0-\uffff]*")
# Numbers under YAML 1.1 or 1.2 (Obsidian's reader): left plain they would not read back as text.
_NUMBER = re.compile(r"[-+]?(\.\d+|\d[\d_]*(\.\d*)?)([eE][-+]?\d+)?|0x[0-9a-fA-F_]+|0o[0-7_]+|[-+]?\.(inf|nan)", re.I)
_SPECIAL = frozenset({"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"})


_ISO = re.compile(r"\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?")


def yaml_scalar(value: Any) -> str:
    """One YAML scalar: plain when unambiguous, else double-quoted with escapes. ISO dates and
    times stay unquoted, as Obsidian writes them (mnemo's parser reads them back as text)."""
    if isinstance(value, str) and _ISO.fullmatch(value):
        return value
    if value is None:
        return '""'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    s = str(value)
    plain = (_PLAIN.fullmatch(s) and s == s.strip() and s.lower() not in _SPECIAL and ": " not in s and " #" not in s
             and not _NUMBER.fullmatch(s))
    if plain and _round_trips(s):
        return s
    return _quoted(s)


def _round_trips(s: str) -> bool:
    """A plain scalar must read back as exactly the same string (no special characters)."""
    import yaml

    try:
        return yaml.safe_load(f"k: {s}\n") == {"k": s}
    except yaml.YAMLError:
        return False


def _quoted(s: str) -> str:
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif o < 0x20 or 0x7F <= o <= 0x9F or 0xD800 <= o <= 0xDFFF or o in (0xFEFF, 0xFFFE, 0xFFFF, 0x2028, 0x2029):
            out.append(f"\\u{o:04x}" if o <= 0xFFFF else f"\\U{o:08x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def render_property(key: str, value: Any) -> str:
    """``key: value`` lines (with the final newline)."""
    k = key if re.fullmatch(r"[A-Za-z_][\w\-]*", key) else _quoted(key)
    if isinstance(value, list | tuple):
        if not value:
            return f"{k}: []\n"
        return f"{k}:\n" + "".join(f"  - {yaml_scalar(v)}\n" for v in value)
    if value is None:
        return f"{k}:\n"
    if isinstance(value, dict):
        import yaml

        dumped = yaml.safe_dump({key: value}, allow_unicode=True, default_flow_style=False, sort_keys=False)
        return dumped if dumped.endswith("\n") else dumped + "\n"
    return f"{k}: {yaml_scalar(value)}\n"


def render_frontmatter(props: dict[str, Any]) -> str:
    return "---\n" + "".join(render_property(k, v) for k, v in props.items()) + "---\n"


def _unquote(key: str) -> str:
    if len(key) >= 2 and key[0] == key[-1] == '"':
        import json

        try:
            return str(json.loads(key))
        except ValueError:
            return key[1:-1]
    if len(key) >= 2 and key[0] == key[-1] == "'":
        return key[1:-1].replace("''", "'")
    return key.strip()


def blocks(raw: str) -> list[tuple[str | None, list[str]]]:
    """Top-level blocks of raw YAML: (key or None for comments/blank lines, lines with ends)."""
    out: list[tuple[str | None, list[str]]] = []
    for line in raw.splitlines(keepends=True):
        bare = line.rstrip("\r\n")
        m = _KEY_LINE.match(bare)
        if m and not bare.startswith((" ", "\t")):
            out.append((_unquote(m.group("key")), [line]))
        elif bare.startswith((" ", "\t", "- ")) or bare == "-":
            if out and out[-1][0] is not None:
                out[-1][1].append(line)
            else:
                out.append((None, [line]))
        else:  # a column-0 comment, a blank line, or something we do not understand
            out.append((None, [line]))
    return out


def set_properties(raw: str, updates: dict[str, Any], remove: Iterable[str] = ()) -> str:
    """New raw YAML with ``updates`` set and ``remove`` keys dropped; everything else kept."""
    remove = set(remove)
    segs = blocks(raw)
    done: set[str] = set()
    out: list[str] = []
    for key, lines in segs:
        if key is None:
            out += lines
            continue
        if key in remove:
            continue
        if key in updates:
            if key in done:
                continue  # a duplicate key: keep the first, drop the repeat (YAML would refuse it)
            done.add(key)
            # Keep blank lines that trailed the old block, so the spacing between keys stays.
            trail: list[str] = []
            while len(lines) > 1 and not lines[-1].strip():
                trail.insert(0, lines.pop())
            out.append(render_property(key, updates[key]))
            out += trail
            continue
        out += lines
    missing = [k for k in updates if k not in done]
    if missing:
        if out and not out[-1].endswith("\n"):
            out[-1] += "\n"
        # Append after the last block, before trailing blank lines.
        tail: list[str] = []
        while out and not out[-1].strip():
            tail.insert(0, out.pop())
        out += [render_property(k, updates[k]) for k in missing]
        out += tail
    return "".join(out)


def edit_frontmatter(text: str, updates: dict[str, Any], remove: Iterable[str] = ()) -> str:
    """The whole note with its frontmatter edited (one block, created if there was none).
    Raises VaultError when the existing YAML is invalid or the edit would change other keys."""
    crlf = "\r\n" in text
    norm = text.replace("\r\n", "\n")
    raw, body, prefix = split_frontmatter(norm)
    remove = list(remove)
    if raw is None:
        new = render_frontmatter({k: v for k, v in updates.items() if k not in remove}) + norm
    else:
        before, err = load_yaml(raw)
        if err:
            raise VaultError(f"the frontmatter is not valid YAML ({err}); mnemo leaves it as it is")
        new_raw = set_properties(raw, updates, remove)
        after, err = load_yaml(new_raw)
        expected = {k: v for k, v in before.items() if k not in updates and k not in remove}
        if err or {k: after.get(k) for k in expected} != expected or any(k not in after for k in updates):
            raise VaultError("the frontmatter has a layout mnemo cannot edit safely; it was left as it is",
                             hint="simplify the note's properties (one key per line) and try again")
        first = prefix.split("\n", 1)[0] + "\n"
        new = first + new_raw + ("" if new_raw.endswith("\n") or not new_raw else "\n") + "---\n" + body
    return new.replace("\n", "\r\n") if crlf else new
