"""The MCP tools mnemo offers an assistant.

Each tool forwards to one daemon operation (``DaemonLink.call``) and shapes the answer for a
model to read: ids first, content verbatim, times as ISO-8601, no internal fields. The
descriptions are what the model reads to decide when to call a tool, so they say when, not
only what. Argument types become the JSON schema the client sees; the annotations say which
tools only read, which may destroy (archive, overwrite) and which are safe to repeat.

Errors: a mnemo error (bad id, pinned memory, no vault, no daemon ...) becomes a tool error
with its message and hint, which the model can act on; anything unexpected becomes a tool
error too, and is logged. The bridge itself never goes down because of one call.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

from ..clock import iso
from ..errors import MnemoError
from ..models import LINK_TYPES

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from .link import DaemonLink

log = logging.getLogger("mnemo.mcp")

F = TypeVar("F", bound=Callable[..., Any])

# -- argument types (their descriptions are part of the schema the model reads) -----------------
MemoryId = Annotated[str, Field(
    min_length=1,
    description="A memory id as returned by save_memory or recall (a unique prefix of at least 4 characters also works).",
)]
MemoryIds = Annotated[list[str], Field(min_length=1, description="Ids of the memories you actually used.")]
Tags = Annotated[list[str], Field(description="Short topic tags, without '#', e.g. ['database', 'project-x'].")]
MemoryTypeName = Literal["decision", "fact", "preference", "session_note", "debug_log"]
LayerName = Literal["working", "episodic", "semantic", "procedural"]
StatusName = Literal["active", "promoted", "archived", "cold"]
SourceName = Literal["human", "ai", "ingest"]
Intent = Literal["general", "recall", "explore", "exact"]
Tier = Literal["all", "stm", "ltm"]
Wing = Annotated[str | None, Field(description="Namespace, top level (e.g. a project or area of life).")]
Room = Annotated[str | None, Field(description="Namespace inside the wing (e.g. a sub-topic).")]
if TYPE_CHECKING:
    LinkType = str  # the checker cannot build a Literal from a set; the tool's schema (below) lists the names
else:
    LinkType = Literal[tuple(sorted(LINK_TYPES))]
DryRun = Annotated[bool, Field(description="true (the default) only reports what would change; false applies it.")]


def _ann(title: str, read_only: bool = False, destructive: bool = False, idempotent: bool = False) -> ToolAnnotations:
    return ToolAnnotations(title=title, read_only_hint=read_only, destructive_hint=destructive,
                           idempotent_hint=idempotent, open_world_hint=False)


# -- shaping answers for a model --------------------------------------------------------------
def memory_view(m: dict[str, Any]) -> dict[str, Any]:
    """The fields of a memory a model needs, in reading order."""
    out = {
        "id": m.get("id"),
        "content": m.get("content"),
        "type": m.get("type"),
        "layer": m.get("layer"),
        "status": m.get("status"),
        "tags": m.get("tags") or [],
        "wing": m.get("wing"),
        "room": m.get("room"),
        "source": m.get("source"),
        "importance": _round(m.get("importance")),
        "strength": _round(m.get("strength")),
        "use_count": m.get("use_count"),
        "pinned": m.get("pinned"),
        "created": iso(m.get("created_at")),
        "last_used": iso(m.get("last_used")),
        "note_path": m.get("note_path"),
        "duplicate_of": m.get("duplicate_of"),
        "superseded_by": m.get("superseded_by"),
    }
    return {k: v for k, v in out.items() if v not in (None, [])} | {"id": m.get("id")}


def hit_view(h: dict[str, Any]) -> dict[str, Any]:
    out = {
        "id": h.get("id"),
        "score": _round(h.get("score")),
        "tier": h.get("tier"),
        "type": h.get("type"),
        "status": h.get("status"),
        "tags": h.get("tags") or [],
        "content": h.get("content"),
        "path": h.get("path"),
        "heading": h.get("heading"),
        "created": iso(h.get("created_at")),
        "reason": h.get("reason"),
    }
    return {k: v for k, v in out.items() if v not in (None, [])}


def _round(x: Any, digits: int = 4) -> Any:
    return round(x, digits) if isinstance(x, float) else x


def error_text(exc: MnemoError) -> str:
    return f"{exc.message}. Hint: {exc.hint}" if exc.hint else exc.message


def as_tool_errors(fn: F) -> F:
    """Turn every failure into a tool error the model can read (never a crash of the bridge)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except ToolError:
            raise
        except MnemoError as exc:
            log.info("%s failed: %s", fn.__name__, exc.message)
            raise ToolError(error_text(exc)) from exc
        except Exception as exc:
            log.exception("%s failed unexpectedly", fn.__name__)
            raise ToolError(f"internal error in the mnemo bridge: {exc} (see mcp.log in MNEMO_HOME)") from exc

    return wrapper  # type: ignore[return-value]


def conversation_text(conversation: str | list[dict[str, Any]]) -> str:
    """The conversation as text for the ingest operation. A list of turns becomes JSON. The text
    always contains a line break, so the daemon never mistakes it for a file name (a model must
    not be able to make the daemon read files)."""
    if isinstance(conversation, list):
        text = json.dumps(conversation, ensure_ascii=False, indent=1)
    else:
        text = conversation
    if not text.strip():
        raise ToolError("the conversation is empty")
    return text if "\n" in text else text + "\n"


# -- the tools -----------------------------------------------------------------------------------
def register_tools(server: MCPServer, link: DaemonLink) -> None:  # noqa: C901, PLR0915 - one place lists every tool
    def tool(name: str, annotations: ToolAnnotations) -> Callable[[F], F]:
        def deco(fn: F) -> F:
            server.add_tool(as_tool_errors(fn), name=name, description=(fn.__doc__ or "").strip(), annotations=annotations)
            return fn

        return deco

    @tool("save_memory", _ann("Save a memory"))
    def save_memory(
        content: Annotated[str, Field(min_length=1, description="The memory, verbatim and self-contained: say who/what/why so it makes sense months later.")],
        tags: Tags | None = None,
        type: Annotated[MemoryTypeName | None, Field(description="What kind of memory; left out, mnemo classifies it.")] = None,  # noqa: A002
        wing: Wing = None,
        room: Room = None,
        source: Annotated[SourceName, Field(description="'human' when the person said it, 'ai' for your own conclusions, 'ingest' for bulk imports.")] = "ai",
        session_id: Annotated[str | None, Field(description="The current conversation's id, to group what was said together.")] = None,
    ) -> dict[str, Any]:
        """Save something worth remembering across conversations: a decision (and why), a
        preference of the person, a fact about them or their projects, a lesson from debugging.
        Save one idea per memory. Returns its id; if a near-duplicate already exists, the answer
        names it in duplicate_of (then prefer update_memory on that one next time)."""
        r = link.call("save", content=content, tags=tags or [], type=type, wing=wing, room=room, source=source,
                      session_id=session_id)
        m = r.get("memory", {})
        return {"id": m.get("id"), "type": m.get("type"), "layer": m.get("layer"), "tags": m.get("tags") or [],
                "importance": _round(m.get("importance")), "created": r.get("created", True),
                "duplicate_of": r.get("duplicate_of")}

    @tool("recall", _ann("Recall memories and notes"))
    def recall(
        query: Annotated[str, Field(min_length=1, description="What to look for, in natural language; put a phrase in double quotes to match it exactly.")],
        k: Annotated[int | None, Field(ge=1, le=100, description="How many results (default from the settings, usually 10).")] = None,
        intent: Annotated[Intent | None, Field(description="'recall' favours keywords, 'explore' favours meaning, 'exact' matches words; default: the configured recall.intent ('recall').")] = None,
        tier: Annotated[Tier, Field(description="'stm' memories only, 'ltm' vault notes only, 'all' both.")] = "all",
        type: Annotated[MemoryTypeName | None, Field(description="Only memories of this type.")] = None,  # noqa: A002
        layer: Annotated[LayerName | None, Field(description="Only memories in this layer.")] = None,
        wing: Wing = None,
        room: Room = None,
        tag: Annotated[str | None, Field(description="Only memories with this tag.")] = None,
        status: Annotated[StatusName | None, Field(description="Only memories with this status (default: active and promoted).")] = None,
        since: Annotated[str | None, Field(description="Only memories created at or after this ISO-8601 time, e.g. 2026-03-01.")] = None,
        until: Annotated[str | None, Field(description="Only memories created before this ISO-8601 time.")] = None,
        session_id: Annotated[str | None, Field(description="The current conversation's id, recorded with the uses.")] = None,
        touch: Annotated[bool, Field(description="Count the results as used (reinforces them). Set false to just look.")] = True,
    ) -> dict[str, Any]:
        """Search long-term memory (saved memories and the notes of the person's Obsidian vault)
        before answering anything that may depend on the person's past decisions, preferences,
        projects or earlier conversations. Returns hits best first, each with its id; afterwards
        call observe_memory_usage with the ids you actually used."""
        hits = link.call("recall", query=query, k=k, intent=intent, tier=tier, type=type, layer=layer, wing=wing,
                         room=room, tag=tag, status=status, since=since, until=until, session_id=session_id, touch=touch)
        return {"query": query, "hits": [hit_view(h) for h in hits]}

    @tool("load_context", _ann("Load context for a conversation"))
    def load_context(
        query: Annotated[str, Field(min_length=1, description="The topic of the conversation or the person's request.")],
        budget: Annotated[int | None, Field(ge=50, le=32000, description="The most tokens the block may take (cl100k tokens); default from the settings (recall.budget, 4000).")] = None,
        session_id: Annotated[str | None, Field(description="The current conversation's id: its session notes come first, and the uses are recorded with it.")] = None,
    ) -> dict[str, Any]:
        """Compose a ready-to-use context block for the start of a conversation or task: pinned
        memories, recent session notes, and the memories and notes most relevant to the query,
        packed to fit the token budget, each marked with its id. Use it once at the start; use
        recall for specific questions later. Returns the block (context), the tokens it used and
        the ids it shows."""
        result = link.call("context", query=query, budget=budget, session_id=session_id)
        return result if isinstance(result, dict) else {"context": result}

    @tool("get_memory", _ann("Get a memory", read_only=True, idempotent=True))
    def get_memory(memory_id: MemoryId) -> dict[str, Any]:
        """Read one memory in full by id (content, type, layer, status, tags, use count,
        importance, note path if it was promoted)."""
        return memory_view(link.call("get", memory_id=memory_id))

    @tool("update_memory", _ann("Update a memory", destructive=True, idempotent=True))
    def update_memory(
        memory_id: MemoryId,
        content: Annotated[str | None, Field(description="The new text (replaces the old one).")] = None,
        tags: Annotated[list[str] | None, Field(description="The new tag list (replaces the old one).")] = None,
        type: Annotated[MemoryTypeName | None, Field(description="The corrected type.")] = None,  # noqa: A002
        layer: Annotated[LayerName | None, Field(description="The corrected layer.")] = None,
        wing: Annotated[str | None, Field(description="New wing ('' clears it).")] = None,
        room: Annotated[str | None, Field(description="New room ('' clears it).")] = None,
    ) -> dict[str, Any]:
        """Correct or refine an existing memory instead of saving a second one: when a fact
        changed, a decision was revised, or save_memory reported a duplicate. Only the fields
        given change. A promoted memory is edited in its vault note instead (the error says so)."""
        m = link.call("edit", memory_id=memory_id, content=content, tags=tags, type=type, layer=layer, wing=wing, room=room)
        return memory_view(m)

    @tool("observe_memory_usage", _ann("Report which memories were used"))
    def observe_memory_usage(
        memory_ids: MemoryIds,
        context_tags: Annotated[list[str] | None, Field(description="Tags describing the current conversation's topic; use in a different domain than a memory's own tags counts extra (cross-domain use).")] = None,
    ) -> dict[str, Any]:
        """Tell mnemo which memories you actually used in your answer. This is how memories earn
        their persistence: used ones are reinforced and may be promoted into the vault, unused
        ones fade. Call it after answering with recalled memories."""
        ms = link.call("observe", memory_ids=memory_ids, context_tags=context_tags)
        return {"observed": [{"id": m.get("id"), "use_count": m.get("use_count"), "strength": _round(m.get("strength")),
                              "cross_domain_count": m.get("cross_domain_count"), "last_used": iso(m.get("last_used"))}
                             for m in ms]}

    @tool("forget_memory", _ann("Forget a memory", destructive=True, idempotent=True))
    def forget_memory(memory_id: MemoryId) -> dict[str, Any]:
        """Archive a memory that is wrong or no longer wanted: it leaves recall but is never
        deleted, and restore_memory brings it back. Pinned memories must be unpinned first."""
        return memory_view(link.call("forget", memory_id=memory_id))

    @tool("restore_memory", _ann("Restore a memory", idempotent=True))
    def restore_memory(memory_id: MemoryId) -> dict[str, Any]:
        """Bring back an archived or cold memory (e.g. one forgotten by mistake or by the
        forgetting pass). It counts as a use."""
        return memory_view(link.call("restore", memory_id=memory_id))

    @tool("pin_memory", _ann("Pin or unpin a memory", idempotent=True))
    def pin_memory(
        memory_id: MemoryId,
        pinned: Annotated[bool, Field(description="true pins, false unpins.")] = True,
    ) -> dict[str, Any]:
        """Pin a memory the person wants kept no matter what (it is never forgotten and always
        part of load_context), or unpin it."""
        return memory_view(link.call("pin" if pinned else "unpin", memory_id=memory_id))

    @tool("promote", _ann("Promote memories into vault notes", idempotent=True))
    def promote(
        memory_id: Annotated[str | None, Field(description="The memory to promote; leave out with auto=true.")] = None,
        auto: Annotated[bool, Field(description="Promote every memory that earned it (enough retention and uses).")] = False,
        dry_run: Annotated[bool, Field(description="Only report what would be written.")] = False,
    ) -> dict[str, Any]:
        """Turn a memory into a long-term note in the person's Obsidian vault (Markdown with
        frontmatter and wikilinks), or with auto=true every memory that earned it. Promoting
        again updates the same note."""
        if not memory_id and not auto:
            raise ToolError("give memory_id, or auto=true to promote every eligible memory")
        return {"results": link.call("promote", memory_id=memory_id or None, auto=auto, dry_run=dry_run)}

    @tool("demote", _ann("Demote a memory from the vault", destructive=True, idempotent=True))
    def demote(memory_id: MemoryId) -> dict[str, Any]:
        """Reverse a promotion: the note moves to the vault's Archive folder (marked, never
        deleted) and the memory becomes an ordinary short-term memory again."""
        return memory_view(link.call("demote", memory_id=memory_id))

    @tool("link_memories", _ann("Link two memories", idempotent=True))
    def link_memories(
        from_id: Annotated[str, Field(min_length=1, description="For causal relations the cause; for supersedes/updates the newer memory.")],
        to_id: Annotated[str, Field(min_length=1, description="For causal relations the effect; for supersedes/updates the older memory.")],
        relation: Annotated[LinkType, Field(description="The link type. Causal: because, causes, triggered, resolves, contradicts, updates; also supersedes, conflicts, motivated_by, instance_of, invalidated_by.")],
    ) -> dict[str, Any]:
        """Record how two memories relate, e.g. decision B was made because of fact A:
        from_id=A, to_id=B, relation='because'. Links are stored both ways and feed
        causal_chain and recall; linking the same pair again replaces the link."""
        return {"link": link.call("link", a=from_id, b=to_id, rel=relation, origin="model")}

    @tool("causal_chain", _ann("Causes and consequences of a memory", read_only=True, idempotent=True))
    def causal_chain(
        memory_id: MemoryId,
        depth: Annotated[int, Field(ge=1, le=10, description="How many links to follow.")] = 5,
        consequences: Annotated[bool, Field(description="Also follow what followed from it (downstream).")] = True,
    ) -> dict[str, Any]:
        """Follow the causal links of a memory: what led to it (causes, root cause first) and
        what followed from it (consequences, nearest first). Use it to explain why something was
        decided and what it changed."""
        return link.call("chain", memory_id=memory_id, depth=depth, consequences=consequences)

    @tool("review_queue", _ann("Memories due for review", read_only=True, idempotent=True))
    def review_queue(limit: Annotated[int, Field(ge=1, le=100, description="How many.")] = 10) -> dict[str, Any]:
        """Memories that are fading and would be worth revisiting (spaced repetition), most
        urgent first. Mention one when it is relevant, or ask the person whether it still holds."""
        return {"queue": link.call("review", limit=limit)}

    @tool("gc", _ann("Forgetting pass", destructive=True, idempotent=True))
    def gc(dry_run: DryRun = True) -> dict[str, Any]:
        """The forgetting pass: memories that faded below the threshold are archived (never
        deleted), nearly-gone ones go to cold storage; pinned memories are never touched.
        Dry-run by default: look at the plan first."""
        return link.call("gc", dry_run=dry_run)

    @tool("dream", _ann("Dream cycle (consolidation)", destructive=True))
    def dream(
        dry_run: DryRun = True,
        steps: Annotated[list[str] | None, Field(description="Only these steps (default: all).")] = None,
    ) -> dict[str, Any]:
        """The dream cycle: merge near-duplicates, split bloated memories, link, mark superseded
        and conflicting memories, forget what faded, and write a report note. Dry-run by
        default: it returns the plan without changing anything."""
        return link.call("dream", dry_run=dry_run, steps=steps)

    @tool("stats", _ann("Memory statistics", read_only=True, idempotent=True))
    def stats() -> dict[str, Any]:
        """Counts of memories by status, type and layer, links, uses, the vault, and which
        daemon serves this bridge."""
        return {**link.call("stats"), "daemon": link.identity()}

    @tool("read_note", _ann("Read a vault note", read_only=True, idempotent=True))
    def read_note(
        path_or_title: Annotated[str, Field(min_length=1, description="A vault-relative path (Memories/Note.md) or a note's title or alias.")],
    ) -> dict[str, Any]:
        """Read one note of the person's Obsidian vault (frontmatter, headings, links, body),
        e.g. a note a recall hit points to. Only notes inside the vault can be read."""
        return link.call("read_note", path_or_title=path_or_title)

    @tool("ingest_conversation", _ann("Ingest a conversation"))
    def ingest_conversation(
        conversation: Annotated[str | list[dict[str, Any]], Field(description="The conversation: a list of {role, content} turns, or its text (Markdown chat or plain).")],
        wing: Wing = None,
        room: Room = None,
        session_id: Annotated[str | None, Field(description="An id for this conversation.")] = None,
        dry_run: Annotated[bool, Field(description="Only report what would be stored.")] = False,
        format: Annotated[Literal["json", "markdown", "text"] | None, Field(description="The text's format; detected when left out.")] = None,  # noqa: A002
    ) -> dict[str, Any]:
        """Extract the memories worth keeping from a whole conversation (decisions, preferences,
        facts, lessons), classify and link them, and store them; duplicates are not stored twice.
        Use it at the end of a long session instead of many save_memory calls."""
        if isinstance(conversation, list):
            format = "json"  # noqa: A001
        return link.call("ingest", path_or_text=conversation_text(conversation), wing=wing, room=room,
                         session_id=session_id, dry_run=dry_run, format=format)
