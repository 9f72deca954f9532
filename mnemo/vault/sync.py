"""Two-way sync: a person's edit to a promoted note flows back into its memory.

The note is the truth for a promoted memory: its content (the body above mnemo's Related
section), its ``tags`` property and the wikilinks it makes to other promoted notes become the
memory's content, tags and ``wikilink`` links. Only the note at the memory's ``note_path`` syncs
(a copy of the note made in Obsidian carries the same ``mnemo_id`` but is just a note); a note
moved while mnemo was not watching is adopted when the recorded path no longer exists.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING

from ..models import MAX_CONTENT_BYTES, Link, Status
from .parse import ParsedNote, property_tags
from .render import note_content, split_managed
from .wikilinks import find_links

if TYPE_CHECKING:
    from ..core import Core

log = logging.getLogger(__name__)


def _owner_path_ok(core: Core, note_path: str | None, rel: str, moved_from: str | None) -> bool:
    if note_path in (rel, moved_from):
        return True
    vault = core.settings.vault
    return note_path is None or vault is None or not (vault / note_path).is_file()


def sync_owned(core: Core, rel: str, parsed: ParsedNote, moved_from: str | None = None) -> bool:
    """Bring the memory of an owned note in line with the note. Returns whether it changed."""
    mid = parsed.mnemo_id
    if not mid:
        return False
    m = core.store.get_memory(mid)
    if m is not None:
        from .recover import finish_cut_short

        m = finish_cut_short(core, m, rel, parsed)  # a promotion or demotion a kill cut short
    if m is None or m.status != Status.PROMOTED:
        return False
    if not _owner_path_ok(core, m.note_path, rel, moved_from):
        log.info("%s carries mnemo_id %s but the memory's note is %s: treated as a copy", rel, mid, m.note_path)
        return False
    content = note_content(parsed.body, is_body=True)
    new = m
    if content and content != m.content.strip():
        if len(content.encode("utf-8")) > MAX_CONTENT_BYTES:
            log.warning("%s: the note is over the 64 KiB memory limit; its text is not synced back", rel)
        else:
            new = replace(new, content=content)
    if "tags" in parsed.frontmatter or "tag" in parsed.frontmatter:
        tags = tuple(dict.fromkeys(property_tags(parsed.frontmatter)))
        if tags != m.tags:
            new = replace(new, tags=tags)
    if m.note_path != rel:
        new = replace(new, note_path=rel)
    links_changed = _sync_links(core, m.id, split_managed(parsed.body)[0])
    if new != m:
        core.update(new)
        return True
    return links_changed


def _sync_links(core: Core, mid: str, content: str) -> bool:
    """``wikilink`` links from this memory to the memories whose notes its content links to."""
    from .indexer import rows_by_name

    targets: set[str] = set()
    for ln in find_links(content):
        for row in rows_by_name(core, ln.name.rsplit("/", 1)[-1])[:1]:
            if row.mnemo_id and row.mnemo_id != mid and core.store.get_memory(row.mnemo_id) is not None:
                targets.add(row.mnemo_id)
    current = {ln.dst for ln in core.store.links_of(mid, direction="out", rel="wikilink")}
    if current == targets:
        return False
    now = core.now()
    with core.write_lock:
        core.store.relink(mid, "wikilink", current - targets,
                          (Link(mid, dst, "wikilink", origin="person", created_at=now) for dst in targets - current))
    return True


def note_gone(core: Core, mid: str, rel: str) -> None:
    """The person deleted a promoted note: the memory is archived (never deleted; ``mnemo
    restore`` brings it back), so auto-promotion does not resurrect a note they removed."""
    m = core.store.get_memory(mid)
    if m is None or m.status != Status.PROMOTED or m.note_path != rel:
        return
    core.set_status(replace(m, note_path=None), Status.ARCHIVED)
    log_event(core, "deleted", mid, rel)


def log_event(core: Core, kind: str, memory_id: str | None, path: str | None) -> None:
    core.store.log_vault_event(core.now(), kind, memory_id, path)
