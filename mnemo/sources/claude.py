"""Claude's data export (Settings → Privacy → Export data): ``conversations.json``, a list of
conversations with their messages in order.

A conversation has ``uuid``, ``name`` (its title), ``created_at`` / ``updated_at`` (ISO-8601)
and ``chat_messages``. A message has ``uuid``, ``sender`` (``human`` or ``assistant``),
``created_at``, ``text`` and, in newer exports, ``content``: a list of blocks, of which ``text``
blocks carry the words (``thinking``, ``tool_use`` and ``tool_result`` blocks are the model's
working, not the conversation). ``attachments`` (pasted or uploaded files, with their
``extracted_content``) and ``files`` are recorded by name only: a document someone attached is
not something they said. Where messages carry ``parent_message_uuid`` and the conversation a
``current_leaf_message_uuid``, edits made branches, and the branch ending at that leaf is the
one read.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..clock import parse_time
from ..errors import InvalidInput
from . import ASSISTANT, USER, Conversation, Message, Seen, Skipped
from .stream import identify, read_conversations

SENDERS = {"human": USER, "user": USER, "assistant": ASSISTANT}


def read(path: Path, seen: Seen | None = None) -> Iterator[Conversation | Skipped]:
    return read_conversations(path, parse, seen)


def parse(raw: Any, n: int = 0) -> Conversation | Skipped:
    """One element of ``conversations.json``."""
    got = identify(raw, n, ("uuid", "id"))
    if isinstance(got, Skipped):
        return got
    cid, where = got
    chat = raw.get("chat_messages")
    if not isinstance(chat, list):
        return Skipped(where, "no chat_messages list")
    chat = _kept_branch([m for m in chat if isinstance(m, dict)], raw.get("current_leaf_message_uuid"))
    messages: list[Message] = []
    attachments: list[str] = []
    for m in chat:
        for key in ("attachments", "files"):
            for a in m.get(key) or []:
                if isinstance(a, dict) and isinstance(a.get("file_name"), str) and a["file_name"] not in attachments:
                    attachments.append(a["file_name"])
        role = SENDERS.get(str(m.get("sender", "")).lower())
        if role is None:
            continue
        text = _text(m)
        if text:
            messages.append(Message(role, text, _time(m.get("created_at"))))
    title = raw.get("name") if isinstance(raw.get("name"), str) else raw.get("title")
    meta: dict[str, Any] = {"attachments": attachments} if attachments else {}
    if isinstance(raw.get("summary"), str) and raw["summary"].strip():
        meta["summary"] = raw["summary"].strip()
    return Conversation(
        id=cid,
        title=title.strip() if isinstance(title, str) and title.strip() else None,
        messages=tuple(messages),
        created_at=_time(raw.get("created_at")),
        updated_at=_time(raw.get("updated_at")),
        meta=meta,
    )


def _text(m: dict[str, Any]) -> str:
    blocks = m.get("content")
    if isinstance(blocks, list) and blocks:
        words = [b["text"] for b in blocks if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)]
        return "\n\n".join(w.strip() for w in words if w.strip())
    text = m.get("text")
    return text.strip() if isinstance(text, str) else ""


def _kept_branch(chat: list[dict[str, Any]], leaf: Any) -> list[dict[str, Any]]:
    """The messages on the branch ending at ``leaf``, in order; all of them when the export
    has no branch information (it is then one linear conversation)."""
    by_id = {m["uuid"]: m for m in chat if isinstance(m.get("uuid"), str)}
    if not isinstance(leaf, str) or leaf not in by_id:
        return chat
    path: list[dict[str, Any]] = []
    node: Any = leaf
    while isinstance(node, str) and node in by_id and len(path) <= len(by_id):
        path.append(by_id[node])
        node = by_id[node].get("parent_message_uuid")
    path.reverse()
    return path


def _time(value: Any) -> float | None:
    if value is None or value == "":
        return None
    try:
        return parse_time(value)
    except (InvalidInput, ValueError, TypeError):
        return None
