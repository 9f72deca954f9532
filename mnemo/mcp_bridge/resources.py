"""MCP resources and prompts: what a client can read and the conversation templates it can offer
the person, next to the tools.

Resources (read-only, forwarded to the daemon like the tools):

| URI | what | type |
| --- | --- | --- |
| ``mnemo://stats`` | counts of memories by status, type and layer, links, uses, notes | JSON |
| ``mnemo://review`` | the review queue: fading memories worth revisiting, most urgent first | JSON |
| ``mnemo://memory/{memory_id}`` (template) | one memory by id (or a unique prefix) | JSON |
| ``mnemo://note/{+path}`` (template) | one vault note by its vault-relative path | Markdown |

Reading a resource never counts as a use of a memory (resources are for looking; recall is for
using). A note path is confined to the vault by the daemon; the SDK also refuses ``..`` and
absolute paths in template parameters before the daemon sees them.

Prompts:

- ``start_session(topic, session_id?)``: the context block for the topic (pinned memories,
  recent session notes, relevant memories and notes, within the token budget) with what to do
  with it: use it, recall for more, and observe what was used.
- ``close_session(session_id?, decisions?)``: closing a session: save its decisions (one memory
  each, with the reason), then call observe_memory_usage with the ids of the memories that
  were used; the memories the session recalled (the uses recorded with its ``session_id``)
  are listed as the candidates.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError

from ..errors import MnemoError, NotFound
from .tools import error_text, memory_view

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from .link import DaemonLink

JSON = "application/json"


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2, default=str)


def _call(link: DaemonLink, op: str, **kwargs: Any) -> Any:
    """One daemon operation for a resource: mnemo errors become resource errors with the
    message and hint (a missing memory or note is "not found")."""
    try:
        return link.call(op, **kwargs)
    except NotFound as exc:
        raise ResourceNotFoundError(error_text(exc)) from exc
    except MnemoError as exc:
        raise ResourceError(error_text(exc)) from exc


def note_markdown(note: dict[str, Any]) -> str:
    """A note as Markdown: its frontmatter (as read) and its body."""
    import yaml

    fm = note.get("frontmatter") or {}
    head = "---\n" + yaml.safe_dump(fm, allow_unicode=True, sort_keys=False, default_flow_style=False) + "---\n" if fm else ""
    return head + (note.get("body") or "")


def register_resources(server: MCPServer, link: DaemonLink) -> None:
    @server.resource("mnemo://stats", name="stats", title="Memory statistics", mime_type=JSON,
                     description="Counts of memories by status, type and layer, links, uses, activity days and vault notes.")
    def stats() -> str:
        return _dumps(_call(link, "stats"))

    @server.resource("mnemo://review", name="review_queue", title="Review queue", mime_type=JSON,
                     description="Memories that are fading and worth revisiting (spaced repetition), most urgent first.")
    def review() -> str:
        return _dumps({"queue": _call(link, "review", limit=20)})

    @server.resource("mnemo://memory/{memory_id}", name="memory", title="A memory", mime_type=JSON,
                     description="One memory by id (or a unique prefix of at least 4 characters): content, type, "
                                 "layer, status, tags, uses, importance, its note if promoted. Reading it is not a use.")
    def memory(memory_id: str) -> str:
        return _dumps(memory_view(_call(link, "get", memory_id=memory_id)))

    @server.resource("mnemo://note/{+path}", name="note", title="A vault note", mime_type="text/markdown",
                     description="One note of the Obsidian vault by its vault-relative path, e.g. "
                                 "mnemo://note/Memories/Postgres for billing.md: frontmatter and body.")
    def note(path: str) -> str:
        return note_markdown(_call(link, "read_note", path_or_title=path))


def register_prompts(server: MCPServer, link: DaemonLink) -> None:
    @server.prompt(name="start_session", title="Start a session with memory",
                   description="Begin a conversation on a topic with what mnemo remembers about it: the context "
                               "block (pinned memories, recent session notes, relevant memories and notes).")
    def start_session(topic: str, session_id: str = "") -> list[dict[str, Any]]:
        # Not a use yet: a client may render a prompt only to show it; observe_memory_usage says what was used.
        ctx = _prompt_call(link, "context", query=topic, session_id=session_id or None, touch=False)
        block = (ctx.get("context") or "").strip() or "(mnemo has nothing on this topic yet.)"
        sid = f" Pass session_id={session_id!r} to recall, save_memory and observe_memory_usage." if session_id else ""
        text = (
            f"We are starting a session about: {topic}\n\n"
            f"Here is what mnemo, my long-term memory, holds that is relevant (each item marked with its id):\n\n"
            f"{block}\n\n"
            "Use it where it helps, and call recall for anything more specific. Save new decisions "
            "(with the reason), preferences and durable facts with save_memory as they come up. "
            f"When we finish, I will ask you to close the session.{sid}"
        )
        return [{"role": "user", "content": text}]

    @server.prompt(name="close_session", title="Close a session",
                   description="End a conversation: save the decisions it made as memories and tell mnemo which "
                               "memories were actually used, so useful ones persist and the rest fade.")
    def close_session(session_id: str = "", decisions: str = "") -> list[dict[str, Any]]:
        recalled: list[dict[str, Any]] = []
        if session_id:
            # The memories this session recalled: the candidates for observe_memory_usage.
            recalled = _prompt_call(link, "session_memories", session_id=session_id, limit=30)
        lines = [
            "We are closing this session. Before we stop:",
            "1. Save each decision we made here with save_memory: one memory per decision, type 'decision', "
            "self-contained, with the reason"
            + (f", session_id={session_id!r}" if session_id else "") + ".",
        ]
        given = [d.strip(" -*\t") for d in decisions.splitlines() if d.strip(" -*\t")]
        if given:
            lines.append("   The decisions I noted:")
            lines += [f"   - {d}" for d in given]
        lines.append("2. Call observe_memory_usage with the ids of the memories you actually used in this session "
                     "(not the ones you only saw).")
        if recalled:
            lines.append("   Memories that came up in this session:")
            lines += [f"   - {h['id']}: {h.get('content', '')[:120]}" for h in recalled]
        lines.append("3. If a memory turned out wrong or outdated, update_memory or forget_memory it.")
        return [{"role": "user", "content": "\n".join(lines)}]


def _prompt_call(link: DaemonLink, op: str, **kwargs: Any) -> Any:
    try:
        return link.call(op, **kwargs)
    except MnemoError as exc:
        raise ValueError(error_text(exc)) from exc
