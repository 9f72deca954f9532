"""Claude Code session transcripts (``~/.claude/projects/<project>/<session-id>.jsonl``).

One JSON object per line, appended while the session runs. What becomes conversation:

- ``type: "user"`` / ``"assistant"`` lines: the ``text`` blocks of ``message.content`` (or the
  string content of a user message), with the line's ``timestamp`` and ``sessionId``.
  Consecutive lines of the same role are one turn (the client writes an assistant reply as one
  line per content block).
- **Tool calls and tool results are skipped** (counted in the report): a tool result is file
  contents or command output, a copy of what the repository and the shell already hold, often
  long and sometimes secret; the extractor would turn it into "facts" that are noise. A tool
  call's input is the same kind of data. What the assistant concluded from them is in its text
  blocks, and those are kept. ``thinking`` blocks (the model's private reasoning, often
  speculative) and images are skipped too.
- **Sidechains** (``isSidechain: true``: a sub-agent's own conversation) are skipped: the
  sub-agent's prompt is machine-written and its answer returns to the main thread, where the
  assistant's text reports it.
- ``type: "summary"`` lines (the session's title, ``summary`` + ``leafUuid``) are not turns:
  the latest is reported as the session's ``title``. A compaction summary (a user line with
  ``isCompactSummary``) repeats turns the transcript already holds above it and is skipped.
- Meta lines (``isMeta``: caveats the client adds), slash-command echoes
  (``<command-name>``/``<local-command-stdout>`` wrappers), ``<system-reminder>`` blocks,
  interruption markers and every other line type (``system``, ``file-history-snapshot``, ...)
  are skipped.

Reading is incremental: ``read(path, offset)`` starts at a byte offset and stops after the last
complete line, returning the offset to continue from, so a transcript that is still being
written is read once, line by line, and a line cut short is read next time. A complete line that
is not JSON is counted (``bad_lines``) and passed over rather than blocking every later capture.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InvalidInput

NAME = "claude-code"
MAX_READ = 64 * 1024 * 1024  # bytes read in one call; the rest waits for the next call

_WRAPPED = re.compile(r"<(system-reminder|command-name|command-message|command-args|local-command-stdout|local-command-stderr|"
                      r"bash-input|bash-stdout|bash-stderr|user-memory-input)>.*?</\1>", re.S)
_INTERRUPTED = re.compile(r"^\[Request interrupted by user[^\]]*\]$")
SKIPPED_BLOCKS = ("tool_use", "tool_result", "thinking", "redacted_thinking", "image", "document")


@dataclass
class Transcript:
    """The conversation found between ``start`` and ``end`` (byte offsets) of one file."""

    path: str
    start: int
    end: int
    turns: list[dict[str, Any]] = field(default_factory=list)  # {role, content, timestamp}
    session_id: str | None = None
    cwd: str | None = None
    title: str | None = None
    lines: int = 0
    bad_lines: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    # Text of the tool calls and results, not ingested: what "was this memory used?" reads.
    tool_text: list[str] = field(default_factory=list)

    def assistant_text(self) -> str:
        return "\n".join(t["content"] for t in self.turns if t["role"] == "assistant")

    def report(self) -> dict[str, Any]:
        return {
            "path": self.path, "from_offset": self.start, "to_offset": self.end, "lines": self.lines,
            "turns": len(self.turns), "session_id": self.session_id, "cwd": self.cwd, "title": self.title,
            "bad_lines": self.bad_lines, "skipped": dict(sorted(self.skipped.items())),
        }


def _clean(text: str) -> str:
    text = _WRAPPED.sub("", text).strip()
    return "" if _INTERRUPTED.match(text) else text


def _blocks(content: Any, skipped: Counter[str], tool_text: list[str]) -> list[str]:
    """The text blocks of a message's content (a string, or a list of typed blocks)."""
    if isinstance(content, str):
        return [content]
    out: list[str] = []
    if not isinstance(content, list):
        return out
    for block in content:
        if isinstance(block, str):
            out.append(block)
            continue
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            out.append(block["text"])
        else:
            skipped[str(kind or "unknown")] += 1
            if kind == "tool_use":
                tool_text.append(json.dumps(block.get("input"), ensure_ascii=False, default=str)[:20000])
            elif kind == "tool_result":
                inner = block.get("content")
                tool_text.append(inner[:20000] if isinstance(inner, str) else
                                 json.dumps(inner, ensure_ascii=False, default=str)[:20000])
    return out


def _line(obj: dict[str, Any], t: Transcript) -> dict[str, Any] | None:
    """The turn one line contributes, or None (counted in ``t.skipped``)."""
    kind = obj.get("type")
    if isinstance(obj.get("sessionId"), str):
        t.session_id = t.session_id or obj["sessionId"]
    if kind == "summary":
        if isinstance(obj.get("summary"), str):
            t.title = obj["summary"]
        t.skipped["summary"] += 1
        return None
    if kind not in ("user", "assistant"):
        t.skipped[str(kind or "untyped")] += 1
        return None
    if isinstance(obj.get("cwd"), str):
        t.cwd = obj["cwd"]
    if obj.get("isSidechain"):
        t.skipped["sidechain"] += 1
        return None
    if obj.get("isMeta"):
        t.skipped["meta"] += 1
        return None
    if obj.get("isCompactSummary"):
        t.skipped["compact_summary"] += 1
        return None
    msg = obj.get("message")
    if not isinstance(msg, dict):
        t.skipped["no_message"] += 1
        return None
    text = _clean("\n\n".join(p for p in _blocks(msg.get("content"), t.skipped, t.tool_text) if p.strip()))
    if not text:
        return None
    role = msg.get("role") if msg.get("role") in ("user", "assistant") else kind
    return {"role": role, "content": text, "timestamp": obj.get("timestamp") if isinstance(obj.get("timestamp"), str) else None}


def read(path: str | Path, offset: int = 0) -> Transcript:
    """The conversation in ``path`` from byte ``offset`` to its last complete line."""
    p = Path(path).expanduser()
    try:
        with p.open("rb") as fh:
            size = fh.seek(0, 2)
            if offset < 0 or offset > size:
                offset = 0  # the file was replaced or truncated: read it again from the start
            fh.seek(offset)
            raw = fh.read(min(MAX_READ, size - offset))
    except FileNotFoundError:
        raise InvalidInput(f"no such transcript: {p}", hint="give the path of a Claude Code session file (.jsonl)") from None
    except IsADirectoryError:
        raise InvalidInput(f"{p} is a folder, not a transcript") from None
    except OSError as exc:
        raise InvalidInput(f"cannot read {p}: {exc.strerror}") from exc
    cut = raw.rfind(b"\n") + 1  # a last line without its newline is still being written
    t = Transcript(path=str(p.resolve()), start=offset, end=offset + cut)
    for line in raw[:cut].splitlines():
        if not line.strip():
            continue
        t.lines += 1
        try:
            obj = json.loads(line)
        except (ValueError, UnicodeDecodeError):
            t.bad_lines += 1
            continue
        if not isinstance(obj, dict):
            t.bad_lines += 1
            continue
        turn = _line(obj, t)
        if turn is None:
            continue
        if t.turns and t.turns[-1]["role"] == turn["role"]:
            t.turns[-1]["content"] += "\n\n" + turn["content"]
        else:
            t.turns.append(turn)
    if offset == 0 and t.lines and t.bad_lines == t.lines:
        raise InvalidInput(f"{p} is not a Claude Code transcript (no line is a JSON object)",
                           hint="Claude Code keeps sessions in ~/.claude/projects/<project>/<session-id>.jsonl")
    return t


def conversations(path: str | Path, seen: Callable[[int, int], None] | None = None) -> Iterator[Any]:
    """The registry's reader shape (``sources.READERS``): the whole transcript as one
    ``Conversation`` (the session id is its id). Incremental capture uses ``read`` instead."""
    from ..clock import parse_time
    from . import Conversation, Message

    t = read(path)
    if seen is not None:
        seen(t.end, t.end)
    stamps = [parse_time(x["timestamp"]) if x["timestamp"] else None for x in t.turns]
    known = [s for s in stamps if s is not None]
    yield Conversation(
        id=t.session_id or Path(path).stem, title=t.title,
        messages=tuple(Message(x["role"], x["content"], ts) for x, ts in zip(t.turns, stamps, strict=True)),
        created_at=min(known) if known else None, updated_at=max(known) if known else None,
        meta={"cwd": t.cwd} if t.cwd else {},
    )
