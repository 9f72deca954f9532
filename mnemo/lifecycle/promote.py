"""Promotion into the vault, and demotion out of it.

Promotion turns a memory into a note in ``Memories/`` (``vault.memories_folder``): readable
title as the file name, frontmatter properties, the content, and a Related section linking
entity notes (``vault.entities``), related promoted notes and the person's own notes about the
same subject (``vault.weave``). The memory becomes ``promoted`` with ``note_path`` pointing at
its note; the note is indexed at once, its chunks carrying the ``mnemo_id`` so recall can return
the note instead of a duplicate.

Idempotent: the note of a memory is found by its ``note_path``, else by its ``mnemo_id`` in the
notes index, else by its file name holding the same ``mnemo_id``; it is then updated in place
(no ``Note 1.md``). A name taken by a note mnemo does not own gets the memory's short id
appended instead. A note demoted to ``Archive/`` comes back out when promoted again.

Demotion moves the note to ``Archive/`` (``vault.archive_folder``), marked ``mnemo_status:
demoted`` with the time, and returns the memory to ``active``. Nothing is ever deleted. The
demotion is remembered (``lifecycle.demotion``): automatic promotion leaves the memory alone
until new uses earn it back or a person promotes it.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING

from ..errors import ConflictError, InvalidInput, MnemoError, VaultError
from ..models import Memory, PromotionResult, Status
from ..vault import indexer
from ..vault.entities import link_entities, link_for, memory_entities
from ..vault.names import join_rel, note_filename, safe_title, title_of
from ..vault.parse import parse_note
from ..vault.render import mark_demoted, render_new, render_update, title_for, unmark_demoted
from ..vault.sync import log_event
from ..vault.weave import woven_links
from ..vault.writer import move_note_file, read_note_file, text_hash, update_note, write_note
from . import demotion

if TYPE_CHECKING:
    from pathlib import Path

    from ..core import Core

log = logging.getLogger(__name__)
MAX_RELATED = 8


def promote(core: Core, memory_id: str | None = None, auto: bool = False, dry_run: bool = False) -> list[PromotionResult]:
    """Promote one memory (by id) or, with ``auto``, every eligible one
    (``lifecycle.eligibility.promotion_candidates``). With ``dry_run`` nothing is written: the
    results say which notes would be created or updated."""
    indexer.require_vault(core)
    if memory_id is None and not auto:
        raise InvalidInput("say which memory to promote", hint="give a memory id, or --auto for every eligible one")
    if memory_id is not None:
        return [promote_one(core, core.get(memory_id), dry_run)]
    from .eligibility import promotion_candidates

    out: list[PromotionResult] = []
    for m in promotion_candidates(core):
        try:
            out.append(promote_one(core, m, dry_run))
        except MnemoError as exc:  # one bad note must not stop the batch: skip and report
            log.warning("promotion of %s skipped: %s", m.id, exc.message)
            out.append(PromotionResult(memory_id=m.id, path="", created=False, dry_run=dry_run,
                                       status="skipped", reason=exc.message))
    return out


def _owned_by(vault: Path, rel: str, mid: str) -> bool | None:
    """True if the note at ``rel`` carries ``mnemo_id: mid``, False if it is another note,
    None if there is no file."""
    path = vault / rel
    if not path.is_file():
        return None
    text, _ = read_note_file(vault, rel)
    return parse_note(rel, text).mnemo_id == mid


def find_note(core: Core, m: Memory) -> str | None:
    """The vault-relative path of the memory's existing note, if it has one."""
    vault = indexer.require_vault(core)
    candidates = [m.note_path] if m.note_path else []
    rows = indexer.rows_by_mnemo_id(core, m.id)
    archive = core.settings.vault_cfg.archive_folder.strip("/") + "/"
    rows.sort(key=lambda r: (r.path.startswith(archive), r.path))  # prefer a live note to an archived one
    candidates += [r.path for r in rows]
    for rel in dict.fromkeys(candidates):
        if _owned_by(vault, rel, m.id):
            return rel
        if rel == m.note_path and (vault / rel).is_file():
            text, _ = read_note_file(vault, rel)
            err = parse_note(rel, text).fm_error
            if err:
                # Its properties are broken: creating another note would duplicate it.
                raise VaultError(f"the note {rel} of memory {m.id} has unreadable properties ({err})",
                                 hint="fix its YAML in Obsidian; mnemo never rewrites a note it cannot read")
    return None


def _new_path(core: Core, m: Memory, title: str) -> str:
    vault = indexer.require_vault(core)
    folder = core.settings.vault_cfg.memories_folder
    rel = join_rel(folder, note_filename(title))
    owner = _owned_by(vault, rel, m.id)
    if owner is None or owner:
        return rel
    # The name is taken by a note that is not this memory's: disambiguate with the short id,
    # never with a counter ("Note 1.md" looks like a sync conflict copy).
    rel = join_rel(folder, note_filename(f"{safe_title(title)} ({m.id[:8]})"))
    if _owned_by(vault, rel, m.id) is False:
        raise ConflictError(f"{rel} exists and belongs to another note", hint="rename that note, then promote again")
    return rel


def _related(core: Core, m: Memory, entity_names: list[str]) -> list[str]:
    """Links to the notes of promoted memories this one is linked to or shares an entity with."""
    ids: list[str] = [ln.dst if ln.src == m.id else ln.src for ln in core.store.links_of(m.id)]
    for name in entity_names:
        ids += [i for i, _ in core.store.fts_search(name, limit=MAX_RELATED, mode="phrase", filters={"status": ("promoted",)})]
    found = core.store.get_memories([i for i in dict.fromkeys(ids) if i != m.id])
    out: list[str] = []
    for mid in dict.fromkeys(ids):
        other = found.get(mid)
        if other is None or other.status != Status.PROMOTED or not other.note_path:
            continue
        out.append(link_for(core, other.note_path, title_of(other.note_path)))
        if len(out) >= MAX_RELATED:
            break
    return out


def promote_one(core: Core, m: Memory, dry_run: bool = False) -> PromotionResult:
    vault = indexer.require_vault(core)
    if m.status in (Status.ARCHIVED, Status.COLD):
        raise InvalidInput(f"memory {m.id} is {m.status.value}", hint=f"`mnemo restore {m.id[:8]}` first")
    existing = find_note(core, m)
    if existing and not dry_run:
        indexer.index_note(core, existing)  # pull in the person's edits before rewriting
        m = core.get(m.id)
    archive = core.settings.vault_cfg.archive_folder.strip("/") + "/"
    title = title_of(existing) if existing else title_for(m)
    # A new note, or one coming back from the archive, gets a fresh name among the memories.
    target = existing if existing is not None and not existing.startswith(archive) else _new_path(core, m, title)
    created = existing is None
    names = memory_entities(m)
    if dry_run:
        return PromotionResult(memory_id=m.id, path=target, created=created, dry_run=True, title=title,
                               status="planned", entities=tuple(names))
    entities = link_entities(core, names)
    related = [e.link for e in entities if e.link] + _related(core, m, names)
    related += woven_links(core, m, exclude={p for p in (existing, target) if p})
    related = list(dict.fromkeys(related))
    now = core.now()
    if existing is None:
        write_note(vault, target, render_new(m, title, names, related, now), expected_hash=None)
        status = "created"
    else:
        if existing != target:  # out of the archive, back among the memories
            text, digest = read_note_file(vault, existing)
            move_note_file(vault, existing, target, unmark_demoted(text), digest)

        def transform(text: str) -> str:
            # Bytes other than those mnemo last indexed mean the person edited the note after
            # mnemo read it (a race, or an edit the index has not seen): their content wins.
            row = indexer.get_row(core, target)
            edited = row is not None and row.content_hash != text_hash(text)
            return render_update(text, m, title, names, related, now, keep_content=edited)

        result = update_note(vault, target, transform)
        status = "updated" if (result and result.written) or existing != target else "unchanged"
    if m.status != Status.PROMOTED or m.note_path != target:
        core.set_status(replace(m, note_path=target), Status.PROMOTED)
    demotion.clear(core.store, m.id)  # promoted again (by a person, or on new uses): the demotion is over
    if existing and existing != target:
        indexer.move_note(core, existing, target)
    else:
        indexer.index_note(core, target)
    if status != "unchanged":
        log_event(core, "promote" if created or existing != target else "update", m.id, target)
    return PromotionResult(memory_id=m.id, path=target, created=created, dry_run=False, title=title, status=status,
                           entities=tuple(names), entity_notes=tuple(e.created for e in entities if e.created))


def demote(core: Core, memory_id: str) -> Memory:
    """Move a promoted memory's note to the archive (marked, never deleted) and make the memory
    active again."""
    vault = indexer.require_vault(core)
    m = core.get(memory_id)
    if m.status != Status.PROMOTED:
        raise InvalidInput(f"memory {m.id} is not promoted (it is {m.status.value})")
    rel = find_note(core, m)
    target: str | None = None
    if rel is not None:
        folder = core.settings.vault_cfg.archive_folder
        name = rel.rsplit("/", 1)[-1]
        target = join_rel(folder, name)
        if (vault / target).exists():
            target = join_rel(folder, note_filename(f"{title_of(rel)} ({m.id[:8]})"))
        for attempt in range(3):
            text, digest = read_note_file(vault, rel)
            try:
                move_note_file(vault, rel, target, mark_demoted(text, core.now()), digest)
                break
            except ConflictError:
                if attempt == 2:
                    raise
            except VaultError as exc:
                raise VaultError(f"cannot mark {rel} as demoted: {exc.message}", hint=exc.hint) from exc
    # Recorded first: a demotion cut short must not leave an active memory the next automatic
    # promotion would take straight back (a record on a still-promoted memory is harmless).
    demotion.record(core.store, m.id, core.now())
    new = core.set_status(replace(m, note_path=None), Status.ACTIVE)
    if rel is not None and target is not None:
        indexer.move_note(core, rel, target)
    log_event(core, "demote", m.id, target)
    return new
