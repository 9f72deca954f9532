"""Entity notes: small notes in ``Entities/`` for people, projects and things that several
memories mention, so promoted notes can link to them.

- A memory's entities are its fingerprint's, or spaCy's (``nlp.entities``, loaded lazily).
- An entity gets a note only when it appears in 2+ memories (active or promoted): one mention
  is not yet a topic.
- A note that already has the entity's name as title or alias (anywhere in the vault, the
  person's included) is linked, never duplicated.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..clock import note_time
from ..errors import ConflictError
from ..models import Memory
from .names import join_rel, note_filename, safe_title
from .props import render_frontmatter

if TYPE_CHECKING:
    from ..core import Core

ENTITY_PREFIX = "entity:"
MIN_MENTIONS = 2


@dataclass(frozen=True)
class EntityLink:
    name: str
    link: str | None  # the wikilink, when the entity has a note
    created: str | None = None  # the vault-relative path of a note created for it now


def entity_id(name: str) -> str:
    return ENTITY_PREFIX + re.sub(r"\s+", "-", name.strip().lower())


def memory_entities(m: Memory) -> list[str]:
    if m.fingerprint.entities:
        return list(dict.fromkeys(m.fingerprint.entities))
    from ..nlp.entities import extract_entities

    return extract_entities(m.content)


def mention_count(core: Core, name: str) -> int:
    """How many active or promoted memories mention ``name`` (an FTS5 phrase match)."""
    hits = core.store.fts_search(name, limit=MIN_MENTIONS * 5, mode="phrase", filters={"status": ("active", "promoted")})
    return len(hits)


def link_for(core: Core, rel: str, title: str) -> str:
    """``[[Title]]`` when the title is unique in the vault, else ``[[path/Title|Title]]``."""
    from .indexer import rows_by_name

    same = [r for r in rows_by_name(core, title) if r.title.lower() == title.lower()]
    if len(same) <= 1:
        return f"[[{title}]]"
    return f"[[{rel[:-3]}|{title}]]"


def render_entity_note(name: str, now: float) -> str:
    props = {
        "mnemo_id": entity_id(name),
        "type": "entity",
        "tags": ["entity"],
        # The file name had to drop characters: the real name stays findable as an alias.
        "aliases": [name] if safe_title(name) != name else [],
        "created": note_time(now),
        "updated": note_time(now),
    }
    return render_frontmatter(props) + (
        f"{name} is mentioned in several memories. The notes that mention it are listed under "
        "*Backlinks*; write what you know about it here.\n"
    )


def link_entities(core: Core, names: Sequence[str], dry_run: bool = False) -> list[EntityLink]:
    from .indexer import index_note, require_vault, rows_by_name
    from .writer import write_note

    vault = require_vault(core)
    folder = core.settings.vault_cfg.entities_folder
    out: list[EntityLink] = []
    for name in dict.fromkeys(n.strip() for n in names if n and n.strip()):
        rows = rows_by_name(core, name)
        if rows:
            out.append(EntityLink(name, link_for(core, rows[0].path, rows[0].title)))
            continue
        if mention_count(core, name) < MIN_MENTIONS:
            out.append(EntityLink(name, None))
            continue
        rel = join_rel(folder, note_filename(name))
        title = safe_title(name)
        if dry_run:
            out.append(EntityLink(name, f"[[{title}]]", rel))
            continue
        created: str | None = rel
        try:
            write_note(vault, rel, render_entity_note(name, core.now()), expected_hash=None)
        except ConflictError:
            created = None  # a note of that name appeared meanwhile: link to it
        index_note(core, rel)
        out.append(EntityLink(name, link_for(core, rel, title), created))
    return out
