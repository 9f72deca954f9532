"""ChatGPT's data export (Settings → Data controls → Export): ``conversations.json``, a list of
conversations, each a tree of messages.

A conversation has ``id`` (or ``conversation_id``), ``title``, ``create_time`` and
``update_time`` (UNIX seconds), ``mapping`` (node id → ``{message, parent, children}``) and
``current_node``, the leaf the person last saw. Editing a message or regenerating an answer adds
a sibling branch to the tree; the branch the person kept is the path from ``current_node`` back
to the root, so that path is what is read, in order. A tree without a usable ``current_node``
is read along its newest children.

A message has ``author.role`` (``user``, ``assistant``, ``system``, ``tool``), ``create_time``,
``recipient`` (``all``, or the tool an assistant message calls) and ``content``: ``text`` and
``multimodal_text`` carry ``parts`` (strings; images and files appear as objects and are
counted as attachments, an audio part contributes its transcript). Kept: user and assistant
messages addressed to everyone, with words in them. Dropped: system and tool messages, tool
calls, the model's reasoning (``thoughts``, ``reasoning_recap``), the custom-instructions
context and messages hidden from the conversation, and empty parts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from . import ASSISTANT, USER, Conversation, Message, Seen, Skipped, _num
from .stream import identify, read_conversations

KEPT_CONTENT = frozenset({"text", "multimodal_text"})
CITATION = re.compile("\u3010[^\u3011]{0,80}\u3011|\ue200[^\ue201]{0,200}\ue201")  # 【12†source】 and cite markers


def read(path: Path, seen: Seen | None = None) -> Iterator[Conversation | Skipped]:
    return read_conversations(path, parse, seen)


def parse(raw: Any, n: int = 0) -> Conversation | Skipped:
    """One element of ``conversations.json``."""
    got = identify(raw, n, ("conversation_id", "id"))
    if isinstance(got, Skipped):
        return got
    cid, where = got
    mapping = raw.get("mapping")
    if not isinstance(mapping, dict) or not all(isinstance(v, dict) for v in mapping.values()):
        return Skipped(where, "no message tree (mapping)")
    path = _kept_branch(mapping, raw.get("current_node"))
    if path is None:
        return Skipped(where, "the message tree has a cycle")
    messages: list[Message] = []
    attachments: list[str] = []
    for node in path:
        msg = node.get("message")
        if not isinstance(msg, dict):
            continue  # the root holds no message
        message = _message(msg, attachments)
        if message is not None:
            messages.append(message)
    title = raw.get("title")
    meta: dict[str, Any] = {}
    if attachments:
        meta["attachments"] = attachments
    if isinstance(raw.get("default_model_slug"), str):
        meta["model"] = raw["default_model_slug"]
    return Conversation(
        id=cid,
        title=title.strip() if isinstance(title, str) and title.strip() else None,
        messages=tuple(messages),
        created_at=_num(raw.get("create_time")),
        updated_at=_num(raw.get("update_time")),
        meta=meta,
    )


def _kept_branch(mapping: dict[str, dict[str, Any]], current: Any) -> list[dict[str, Any]] | None:
    """Root-first list of the nodes on the kept branch; None when the parents loop."""
    if not (isinstance(current, str) and current in mapping):
        current = _newest_leaf(mapping)
        if current is None:
            return []
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    node_id: Any = current
    while isinstance(node_id, str) and node_id in mapping:
        if node_id in seen:
            return None
        seen.add(node_id)
        node = mapping[node_id]
        path.append(node)
        node_id = node.get("parent")
    path.reverse()
    return path


def _newest_leaf(mapping: dict[str, dict[str, Any]]) -> str | None:
    """From the root, always the newest child: the latest edit or regeneration."""
    roots = [k for k, v in mapping.items() if v.get("parent") not in mapping]
    if not roots:
        return None
    node_id, seen = roots[0], set()
    while node_id not in seen:
        seen.add(node_id)
        kids = [c for c in mapping[node_id].get("children") or [] if isinstance(c, str) and c in mapping]
        if not kids:
            return node_id
        node_id = max(kids, key=lambda c: _num((mapping[c].get("message") or {}).get("create_time")) or 0.0)
    return node_id


def _message(msg: dict[str, Any], attachments: list[str]) -> Message | None:
    author = msg.get("author")
    role = author.get("role") if isinstance(author, dict) else None
    if role not in (USER, ASSISTANT):
        return None  # system, tool, and anything unknown
    meta: dict[str, Any] = msg["metadata"] if isinstance(msg.get("metadata"), dict) else {}
    if meta.get("is_visually_hidden_from_conversation") or meta.get("is_user_system_message"):
        return None
    if msg.get("recipient", "all") not in ("all", None):
        return None  # an assistant message calling a tool
    content = msg.get("content")
    if not isinstance(content, dict) or content.get("content_type") not in KEPT_CONTENT:
        return None
    ids = set()
    for a in meta.get("attachments") or []:
        if isinstance(a, dict) and isinstance(a.get("name"), str):
            attachments.append(a["name"])
            ids.add(a.get("id"))
    words: list[str] = []
    for part in content.get("parts") or []:
        if isinstance(part, str):
            words.append(part)
        elif isinstance(part, dict) and part.get("content_type") == "audio_transcription" and isinstance(part.get("text"), str):
            words.append(part["text"])
        elif isinstance(part, dict) and isinstance(part.get("asset_pointer"), str):
            asset = part["asset_pointer"].rsplit("/", 1)[-1]  # an image or a file, named above or not
            if asset not in ids:
                attachments.append(asset)
    text = CITATION.sub("", "\n\n".join(w.strip() for w in words if w.strip())).strip()
    if not text:
        return None
    return Message(role, text, _num(msg.get("create_time")))
