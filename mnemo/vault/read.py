"""Reading one note by path or title, confined to the vault (the MCP bridge exposes this)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import InvalidInput, NotFound, UnsafePath
from .chunk import chunk_note
from .indexer import indexable, require_vault, rows_by_name
from .names import resolve_in_vault
from .parse import parse_note

if TYPE_CHECKING:
    from ..core import Core

MAX_READ_BYTES = 2 * 1024 * 1024


def resolve_note(core: Core, path_or_title: str) -> str:
    """A vault-relative note path from a path (``Memories/X.md``, ``Memories/X``) or a title or
    alias. Paths leaving the vault, dot paths and non-notes are refused; a title or alias that
    several notes share is refused as ambiguous, with the candidates' paths."""
    vault = require_vault(core)
    ref = (path_or_title or "").strip()
    if not ref:
        raise InvalidInput("no note given", hint="give a note path (Memories/Note.md) or a title")
    if ".md#" in ref.lower():  # `Note.md#Heading`, as `context` names a passage: the note
        ref = ref[: ref.lower().index(".md#") + 3]
    looks_like_path = "/" in ref or "\\" in ref or ref.lower().endswith(".md")
    if looks_like_path and any(p.startswith(".") for p in ref.replace("\\", "/").split("/") if p not in ("", ".", "..")):
        # Checked before any ".md" is tried on: the refusal names the file that was asked for.
        raise UnsafePath(f"{ref} is not a note: mnemo does not read dot folders such as .obsidian",
                         hint="dot folders hold app settings and trash, not notes; give a note's path or title")
    if looks_like_path:
        candidates = [ref] if ref.lower().endswith(".md") else [ref + ".md", ref]
        for cand in candidates:
            abs_path, rel = resolve_in_vault(vault, cand)
            if any(p.startswith(".") for p in rel.split("/")):
                raise UnsafePath(f"{rel} is not a note mnemo reads", hint="dot folders are off limits")
            if abs_path.is_file() and rel.lower().endswith(".md"):
                return rel
    passage = core.store.note_path_of_chunk(ref)
    if passage is not None:  # a recall hit's id: the passage's note
        return passage
    rows = rows_by_name(core, ref)
    # A note with that title beats notes that only carry it as an alias; two of a kind is a
    # question for the person, never a silent pick.
    titled = [r for r in rows if r.title.lower() == ref.lower()]
    rows = titled or rows
    if len(rows) == 1:
        return rows[0].path
    if rows:
        listed = ", ".join(r.path for r in rows[:10]) + (f" and {len(rows) - 10} more" if len(rows) > 10 else "")
        raise InvalidInput(f"{ref!r} is ambiguous: {len(rows)} notes are called that: {listed}",
                           hint="give the note's path, e.g. " + rows[0].path)
    raise NotFound(f"no note {ref!r} in the vault", hint="give a vault-relative path, or run `mnemo vault index` first")


def read_note(core: Core, path_or_title: str) -> dict[str, Any]:
    vault = require_vault(core)
    rel = resolve_note(core, path_or_title)
    abs_path, rel = resolve_in_vault(vault, rel)
    data = abs_path.read_bytes()
    if len(data) > MAX_READ_BYTES:
        raise InvalidInput(f"{rel} is {len(data)} bytes; too large to read as a note")
    note = parse_note(rel, data.decode("utf-8", errors="replace"))
    mid = note.mnemo_id
    memory = core.store.get_memory(mid) if mid else None
    return {
        "path": rel,
        "title": note.title,
        "mnemo_id": mid,
        "owned": mid is not None,
        "memory_status": memory.status.value if memory else None,
        "indexed": indexable(vault, rel, list(core.settings.vault_cfg.exclude)),
        "frontmatter": note.frontmatter,
        "frontmatter_error": note.fm_error,
        "tags": list(note.tags),
        "aliases": list(note.aliases),
        "headings": [{"level": h.level, "text": h.text} for h in note.headings],
        "links": [
            {"target": ln.name, "heading": ln.heading, "block": ln.block, "alias": ln.alias, "embed": ln.embed}
            for ln in note.links
        ],
        "block_ids": list(note.block_ids),
        "chunks": len(chunk_note(note, core.settings.vault_cfg.chunk_words)),
        "body": note.body,
    }
