"""Conversations in, turns out: JSON, Markdown chat form and plain text.

Accepted shapes:

- **JSON**: a list of turns, or an object holding one under ``messages`` / ``conversation`` /
  ``turns`` / ``chat``; JSON Lines (one turn per line) too. A turn is an object with the speaker
  in ``role`` | ``speaker`` | ``author`` | ``name`` | ``from``, the words in ``content`` |
  ``text`` | ``message`` | ``body`` (a string, or a list of parts with ``text`` as chat APIs
  send them) and an optional ``timestamp`` | ``time`` | ``created_at`` | ``date`` | ``ts``
  (ISO-8601 or UNIX seconds). ``system`` and ``tool`` turns are not conversation and are skipped.
- **Markdown**: ``**Alice:** text`` (or ``**Alice**: text``), ``Alice: text`` lines, or
  ``## Alice`` headings followed by the turn's paragraphs; an optional ``[timestamp]`` may start
  a speaker line. Lines that follow belong to the current turn.
- **Plain text**: ``Name: text`` lines when most lines look like that; otherwise every
  paragraph (blank-line separated) is one turn without a speaker.

Parsing is all or nothing: a malformed JSON turn stops it with the turn's number and a hint.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..clock import parse_time
from ..errors import InvalidInput

FORMATS = ("json", "markdown", "text")
MAX_BYTES = 64 * 1024 * 1024
SKIP_ROLES = frozenset({"system", "tool", "function", "developer"})
_SPEAKER_KEYS = ("role", "speaker", "author", "name", "from", "sender")
_TEXT_KEYS = ("content", "text", "message", "body", "value")
_TIME_KEYS = ("timestamp", "time", "created_at", "date", "ts", "datetime")
_LIST_KEYS = ("messages", "conversation", "turns", "chat", "items", "dialogue", "dialog")

_TS = r"(?:\[(?P<ts>[^\]\n]{4,40})\]\s*)?"
_NAME = r"[A-Za-z][\w .'\-]{0,39}?"
MD_BOLD = re.compile(rf"^\s*(?:[-*]\s+)?{_TS}\*\*(?P<sp>{_NAME})(?::\*\*|\*\*\s*:)\s*(?P<text>.*)$")
MD_HEADING = re.compile(r"^\s*#{2,6}\s+(?P<sp>[A-Za-z][\w .'\-]{0,39}?)\s*:?\s*$")
NAME_LINE = re.compile(rf"^\s*{_TS}(?P<sp>[A-Z][\w.'\-]{{0,24}}(?: [A-Z][\w.'\-]{{0,24}})?|user|assistant|human|ai|bot|me|you):\s+(?P<text>\S.*)$")


@dataclass(frozen=True)
class Turn:
    index: int  # 0-based position in the conversation, counting only the turns kept
    speaker: str | None
    text: str
    timestamp: float | None = None


def load(source: str | Path, format: str | None = None) -> tuple[list[Turn], str, str | None]:
    """A path or raw text → (turns, format used, the file name or None for raw text)."""
    if format is not None and format not in FORMATS:
        raise InvalidInput(f"unknown conversation format {format!r}", hint=f"choose one of: {', '.join(FORMATS)}")
    path = as_path(source)
    if path is not None:
        text = read_text(path)
        fmt = format or _format_from_suffix(path) or detect(text)
        return parse(text, fmt), fmt, path.name
    text = str(source)
    fmt = format or detect(text)
    return parse(text, fmt), fmt, None


def as_path(source: str | Path) -> Path | None:
    """``source`` as a file path when it names one; raw conversation text otherwise."""
    if isinstance(source, Path):
        return source
    if "\n" in source or len(source) > 4096 or not source.strip():
        return None
    p = Path(source).expanduser()
    try:
        if p.is_file():
            return p
        if p.is_dir():
            raise InvalidInput(f"{p} is a folder, not a conversation file")
    except OSError:
        return None
    if re.search(r"\.(?:json|jsonl|md|markdown|txt|log)$", source, re.I) and " " not in source.strip():
        raise InvalidInput(f"no such file: {source}", hint="give the path of a conversation file, or its text")
    return None


def read_text(path: Path) -> str:
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise InvalidInput(f"{path} is {size} bytes; the limit is {MAX_BYTES}", hint="split the conversation")
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InvalidInput(f"no such file: {path}") from None
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror}") from exc
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{path} is not valid UTF-8 (byte {exc.start + 1})", hint="save it as UTF-8 text") from None


def _format_from_suffix(path: Path) -> str | None:
    suffix = path.suffix.lower()
    if suffix in (".json", ".jsonl"):
        return "json"
    if suffix in (".md", ".markdown"):
        return "markdown"
    return None


def detect(text: str) -> str:
    head = text.lstrip()[:1]
    if head in ("[", "{"):
        try:
            _json_items(text)
            return "json"
        except InvalidInput:
            pass
    lines = text.splitlines()
    if any(MD_BOLD.match(ln) or MD_HEADING.match(ln) for ln in lines[:400]):
        return "markdown"
    return "text"


def parse(text: str, fmt: str) -> list[Turn]:
    if fmt == "json":
        turns = _parse_json(text)
    elif fmt == "markdown":
        turns = _parse_lines(text, markdown=True) or _parse_text(text)
    else:
        turns = _parse_text(text)
    return [Turn(i, t.speaker, t.text, t.timestamp) for i, t in enumerate(turns)]


# -- JSON ------------------------------------------------------------------------------------
def _json_items(text: str) -> list[Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        # JSON Lines: one object per line.
        items = []
        for line in text.splitlines():
            if not line.strip():
                continue
            try:
                items.append(json.loads(line))
            except json.JSONDecodeError:
                # Neither one JSON document nor JSON Lines: report the document's error.
                raise InvalidInput(
                    f"the conversation is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})",
                    hint="give a JSON list of {role, content, timestamp?} objects, Markdown chat or plain text",
                ) from None
        return items
    if isinstance(data, dict):
        for key in _LIST_KEYS:
            if isinstance(data.get(key), list):
                return data[key]
        raise InvalidInput(
            "the JSON conversation is an object without a list of turns",
            hint=f"put the turns in a list, or under one of: {', '.join(_LIST_KEYS)}",
        )
    if not isinstance(data, list):
        raise InvalidInput("the JSON conversation must be a list of turns", hint="e.g. [{\"role\": \"user\", \"content\": \"...\"}]")
    return data


def _text_of(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = [p if isinstance(p, str) else p.get("text") for p in value if isinstance(p, str | dict)]
        return "\n".join(p for p in parts if isinstance(p, str)) or ""
    if isinstance(value, dict) and isinstance(value.get("text"), str):
        return value["text"]
    return None


def _speaker_of(item: dict[str, Any]) -> str | None:
    for key in _SPEAKER_KEYS:
        value = item.get(key)
        if isinstance(value, dict):
            value = value.get("role") or value.get("name")
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _parse_json(text: str) -> list[Turn]:
    out: list[Turn] = []
    for n, item in enumerate(_json_items(text), start=1):
        if not isinstance(item, dict):
            raise InvalidInput(f"turn {n}: expected an object, got {type(item).__name__}", hint="each turn is {role, content, timestamp?}")
        raw = next((item[k] for k in _TEXT_KEYS if k in item), None)
        body = _text_of(raw)
        if body is None:
            raise InvalidInput(f"turn {n}: no text", hint=f"give the words in one of: {', '.join(_TEXT_KEYS)}")
        speaker = _speaker_of(item)
        if speaker and speaker.lower() in SKIP_ROLES:
            continue
        ts_raw = next((item[k] for k in _TIME_KEYS if item.get(k) not in (None, "")), None)
        ts = None
        if ts_raw is not None:
            if isinstance(ts_raw, bool) or not isinstance(ts_raw, str | int | float):
                raise InvalidInput(f"turn {n}: the timestamp must be ISO-8601 text or UNIX seconds")
            try:
                ts = parse_time(ts_raw)
            except InvalidInput as exc:
                raise InvalidInput(f"turn {n}: {exc.message}", hint=exc.hint) from None
        if body.strip():
            out.append(Turn(len(out), speaker, body.strip(), ts))
    return out


# -- Markdown and text -----------------------------------------------------------------------
def _maybe_time(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return parse_time(value.strip())
    except InvalidInput:
        return None  # "[10:02]" and the like: a clock time without a date says nothing usable


def _parse_lines(text: str, markdown: bool) -> list[Turn]:
    turns: list[Turn] = []
    speaker: str | None = None
    ts: float | None = None
    body: list[str] = []
    started = False
    in_code = False

    def flush() -> None:
        content = "\n".join(body).strip()
        if content and started:
            turns.append(Turn(len(turns), speaker, content, ts))
        body.clear()

    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            in_code = not in_code
            body.append(line)
            continue
        if in_code:
            body.append(line)
            continue
        m = (MD_BOLD.match(line) if markdown else None) or NAME_LINE.match(line)
        if m:
            flush()
            speaker, ts, started = m.group("sp").strip(), _maybe_time(m.group("ts")), True
            body.append(m.group("text"))
            continue
        h = MD_HEADING.match(line) if markdown else None
        if h and len(h.group("sp").split()) <= 3:
            flush()
            speaker, ts, started = h.group("sp").strip(), None, True
            continue
        if markdown and re.match(r"^\s*#\s", line):
            continue  # a document title, not a turn
        if markdown and re.match(r"^\s*(?:---|\*\*\*|___)\s*$", line):
            continue
        body.append(line)
    flush()
    return turns


def _parse_text(text: str) -> list[Turn]:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    named = sum(1 for ln in lines if NAME_LINE.match(ln))
    if lines and named >= 2 and named >= 0.6 * len(lines):
        return _parse_lines(text, markdown=False)
    paragraphs = re.split(r"\n\s*\n", text)
    return [Turn(i, None, p.strip()) for i, p in enumerate(p for p in paragraphs if p.strip())]
