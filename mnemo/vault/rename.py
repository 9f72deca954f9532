"""Renaming a note mnemo owns, with every incoming link rewritten.

Only notes carrying ``mnemo_id`` are renamed. Then every note of the vault (the person's too:
this is the one edit mnemo may make to notes it does not own, and only to link text) has its
``[[old]]``, ``[[old|x]]``, ``[[old#h]]``, ``[[old#^b]]``, ``![[old]]`` and ``[[folder/old]]``
links pointed at the new name, through the safe writer. A note that changes while being
rewritten is skipped and reported, never clobbered. If another note shares the old title, bare
``[[old]]`` links are ambiguous and left alone; path links are still rewritten.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from ..errors import ConflictError, InvalidInput, VaultError
from .indexer import index_note, move_note, require_vault, scan
from .names import join_rel, note_filename, resolve_in_vault, title_of
from .parse import parse_note
from .sync import log_event
from .wikilinks import rewrite_links
from .writer import move_note_file, read_note_file, write_note

if TYPE_CHECKING:
    from ..core import Core

log = logging.getLogger(__name__)


def rename_note(core: Core, path: str, new_title: str) -> dict[str, Any]:
    vault = require_vault(core)
    from .read import resolve_note

    old_rel = resolve_note(core, path)
    text, digest = read_note_file(vault, old_rel)
    note = parse_note(old_rel, text)
    if not note.mnemo_id:
        raise VaultError(f"{old_rel} is not a note mnemo owns (no mnemo_id)", hint="rename it in Obsidian instead")
    folder = old_rel.rsplit("/", 1)[0] if "/" in old_rel else ""
    new_rel = join_rel(folder, note_filename(new_title))
    resolve_in_vault(vault, new_rel, write=True)
    if new_rel == old_rel:
        return {"from": old_rel, "to": new_rel, "links_rewritten": 0, "notes_changed": [], "skipped": []}
    if (vault / new_rel).exists() and new_rel.lower() != old_rel.lower():
        raise InvalidInput(f"{new_rel} already exists", hint="choose another title")
    old_title, new_title_safe = title_of(old_rel), title_of(new_rel)
    move_note_file(vault, old_rel, new_rel, text, digest)
    move_note(core, old_rel, new_rel)
    # Bare links are ambiguous if another note still has the old title.
    paths = scan(vault, list(core.settings.vault_cfg.exclude))
    bare_ok = not any(title_of(p).lower() == old_title.lower() for p in paths)
    changed: list[str] = []
    skipped: list[dict[str, str]] = []
    total = 0
    needle = old_title.lower()
    for rel in paths:
        try:
            data = (vault / rel).read_bytes()
        except OSError:
            continue
        body = data.decode("utf-8", errors="replace")
        if "[[" not in body or needle not in body.lower():
            continue
        if body.encode("utf-8") != data:
            skipped.append({"path": rel, "reason": "not valid UTF-8; left as it is"})
            continue
        new_body, n = rewrite_links(body, old_title, old_rel, new_title_safe, new_rel, bare_ok=bare_ok)
        if not n:
            continue
        from .writer import bytes_hash

        try:
            write_note(vault, rel, new_body, expected_hash=bytes_hash(data))
        except ConflictError as exc:
            skipped.append({"path": rel, "reason": exc.message})
            continue
        total += n
        changed.append(rel)
        index_note(core, rel)
    log_event(core, "rename", note.mnemo_id, new_rel)
    return {"from": old_rel, "to": new_rel, "links_rewritten": total, "notes_changed": changed, "skipped": skipped}
