"""One exported conversation becomes one session of memories (core side).

The conversation goes through the ordinary ``ingest`` (turns → typed, fingerprinted, linked
memories) with the export's id as the ``session_id``; the memories of the session then get the
conversation's title, the export's name and the names of its attached files in ``meta``. When all of that is stored, a journal
entry in the store's ``kv`` table (``history.<format>.<id>`` → the conversation's update time)
says the conversation is done, so a second run skips it.

Why this survives a kill at any point: the journal entry is written last. A run killed before
it leaves the conversation unmarked, and the next run ingests it again; the memories a killed
run had already stored come back as exact duplicates of themselves, which the write path's
surprise rule reports and does not store twice (``pipeline.write_memories`` with
``skip_duplicates``). A conversation that went on after it was ingested (a newer update time in
a later export) is ingested again the same way: only its new memories are stored.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..errors import InvalidInput
from . import USER, Conversation

if TYPE_CHECKING:
    from ..core import Core

JOURNAL = "history."
ASSISTANT_NAME = "assistant"


def check_me(me: str | None) -> None:
    if me is not None and (not isinstance(me, str) or not me.strip() or len(me) > 60 or "\n" in me):
        raise InvalidInput("--me must be a name of at most 60 characters", hint="e.g. --me Alice")


def journal_key(fmt: str, conversation_id: str) -> str:
    return f"{JOURNAL}{fmt}.{conversation_id}"


def done(core: Core, fmt: str, conv: Conversation) -> bool:
    """Whether a run already ingested this conversation as it is now."""
    raw = core.store.kv_get(journal_key(fmt, conv.id))
    if raw is None:
        return False
    try:
        seen = json.loads(raw).get("updated_at")
    except (ValueError, AttributeError):
        return False
    return conv.updated_at is None or (seen is not None and conv.updated_at <= seen)


def ingest_conversation(
    core: Core,
    conversation: dict[str, Any],
    fmt: str,
    me: str | None = None,
    wing: str | None = None,
    room: str | None = None,
    dry_run: bool = False,
) -> dict[str, Any]:
    """Ingest one conversation (``Conversation.to_dict()``) unless a run already did."""
    from ..ingest import ingest

    conv = Conversation.from_dict(conversation)
    if not isinstance(fmt, str) or not fmt.strip():
        raise InvalidInput("the export's format name is missing")
    check_me(me)
    out: dict[str, Any] = {"session_id": conv.id, "title": conv.title, "turns": len(conv.messages), "kept": 0, "duplicates": 0}
    if done(core, fmt, conv):
        return {**out, "status": "done"}
    if not conv.messages:
        if not dry_run:
            _mark(core, fmt, conv, 0)
        return {**out, "status": "empty"}
    me_name = me.strip() if me else USER
    turns = [
        {"speaker": me_name if m.role == USER else ASSISTANT_NAME, "text": m.text, "timestamp": m.timestamp}
        for m in conv.messages
    ]
    result = ingest(core, json.dumps(turns, ensure_ascii=False), wing=wing, room=room, session_id=conv.id,
                    dry_run=dry_run, format="json")
    out.update(kept=result["kept"], duplicates=result["duplicates"], status="dry-run" if dry_run else "ingested")
    if dry_run:
        out["memories"] = [m["content"] for m in result["memories"] if m["created"]]
        return out
    meta = {"conversation_title": conv.title, "export": fmt, "attachments": conv.meta.get("attachments") or None}
    with core.write_lock:
        # Every memory of the session, also those a killed run stored, gets the title, in the
        # same transaction as the journal entry: titled and done, or neither.
        core.store.title_session(conv.id, {k: v for k, v in meta.items() if v is not None},
                                 journal_key(fmt, conv.id), _entry(core, conv, result["kept"]))
    return out


def _entry(core: Core, conv: Conversation, kept: int) -> str:
    """The journal's record of an imported conversation."""
    return json.dumps({"updated_at": conv.updated_at, "at": core.now(), "kept": kept})


def _mark(core: Core, fmt: str, conv: Conversation, kept: int) -> None:
    with core.write_lock, core.store.tx():
        core.store.kv_set(journal_key(fmt, conv.id), _entry(core, conv, kept))
