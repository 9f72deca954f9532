"""Indexing the vault: every Markdown note into the ``notes``/``chunks`` tables, FTS5 and Chroma.

- What is indexed: ``*.md`` files, minus dot paths (``.obsidian``, ``.trash``, temp files),
  conflict copies (``Note 2.md`` / ``Note (1).md`` next to ``Note.md``, ``(conflicted copy)``,
  ``.sync-conflict-*``) and the globs in ``vault.exclude``.
- Reconcile by content hash: a note whose mtime and size are unchanged is not even read; one
  whose bytes hash the same is not re-parsed; a changed note re-embeds only the chunks whose
  text changed; a file that appears with the hash of one that vanished is a move (no
  re-embedding). A changed embedding model re-embeds every chunk.
- Write order: Chroma (derived) first, then the SQLite rows with the new hash, so a crash in
  between makes the next reconcile redo that note, never skip it.
- A note mnemo owns (``mnemo_id`` of a memory) is synced back into its memory after indexing.
"""

from __future__ import annotations

import fnmatch
import json
import logging
import os
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ..errors import UnsafePath, VaultError
from ..progress import announced, embed_in_slices, prepare_embedder
from ..store.notes import ChunkRow, NoteRow, NoteWrite
from .chunk import Chunk, chunk_note, embed_text
from .names import resolve_in_vault, vault_rel
from .parse import ParsedNote, parse_note
from .search import COLLECTION
from .wikilinks import link_targets
from .writer import bytes_hash, text_hash

if TYPE_CHECKING:
    from ..core import Core

log = logging.getLogger(__name__)

Progress = Callable[..., None]  # progress(n), or progress(0, step): see mnemo.progress
_monotonic = time.monotonic  # the clock that sizes embedding slices (tests inject a fake one)
BATCH_NOTES = 64
MAX_NOTE_BYTES = 8 * 1024 * 1024  # bigger "notes" are data, not notes
_NUMBERED = re.compile(r"^(?P<base>.+?)(?: (?P<n>\d{1,3})| \((?P<p>\d{1,3})\))$")
_CONFLICT = re.compile(r"conflicted copy|\.sync-conflict-|conflict[- ]\d{4}|\(conflict\)", re.IGNORECASE)


def require_vault(core: Core) -> Path:
    vault = core.settings.vault
    if vault is None:
        raise VaultError("no vault is configured", hint="pass --vault PATH, set MNEMO_VAULT, or run `mnemo init --vault PATH`")
    if not vault.is_dir():
        raise VaultError(f"the vault {vault} does not exist", hint="run `mnemo init --vault PATH` to create it")
    return vault


# -- what counts as a note --------------------------------------------------------------------
def is_conflict_copy(rel: str, exists: Callable[[str], bool]) -> bool:
    """Sync-tool duplicates: ``(conflicted copy)``, ``.sync-conflict-``, and ``Note 2.md`` or
    ``Note (1).md`` when ``Note.md`` sits beside it (so a real ``Chapter 2.md`` alone is a note)."""
    name = rel.rsplit("/", 1)[-1]
    if _CONFLICT.search(name):
        return True
    stem = name[:-3] if name.lower().endswith(".md") else name
    m = _NUMBERED.match(stem)
    if not m:
        return False
    folder = rel[: -len(name)]
    return exists(f"{folder}{m.group('base')}.md")


def excluded(rel: str, patterns: list[str]) -> bool:
    for pat in patterns:
        pat = pat.strip().replace("\\", "/")
        if not pat:
            continue
        if fnmatch.fnmatch(rel, pat) or fnmatch.fnmatch(rel, pat.rstrip("/") + "/*") or rel.startswith(pat.rstrip("/") + "/"):
            return True
    return False


def indexable(vault: Path, rel: str, patterns: list[str]) -> bool:
    if not rel.lower().endswith(".md") or any(p.startswith(".") for p in rel.split("/")):
        return False
    if excluded(rel, patterns):
        return False
    return not is_conflict_copy(rel, lambda r: (vault / r).is_file())


def _sibling_of(prefix: str, names: set[str]) -> Callable[[str], bool]:
    """Whether a vault-relative path names one of the files ``names`` of the folder ``prefix``."""
    return lambda r: r.startswith(prefix) and r[len(prefix):] in names


def scan(vault: Path, patterns: list[str]) -> list[str]:
    """Vault-relative paths of every indexable note, sorted. Symlinked folders are not followed
    (they may lead out of the vault, or loop)."""
    out: list[str] = []
    root = str(vault)
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        rel_folder = os.path.relpath(folder, root).replace(os.sep, "/")
        prefix = "" if rel_folder == "." else rel_folder + "/"
        names = set(files)
        for name in sorted(files):
            if name.startswith(".") or not name.lower().endswith(".md"):
                continue
            rel = prefix + name
            if excluded(rel, patterns):
                continue
            if is_conflict_copy(rel, _sibling_of(prefix, names)):
                continue
            full = os.path.join(folder, name)
            if os.path.islink(full):
                try:
                    resolve_in_vault(vault, rel)
                except UnsafePath:
                    continue
            out.append(rel)
    return out


# -- the catalog (the store's ``notes`` rows) ---------------------------------------------------
def all_rows(core: Core) -> dict[str, NoteRow]:
    return core.store.all_notes()


def get_row(core: Core, rel: str) -> NoteRow | None:
    return core.store.note_at(rel)


def rows_by_mnemo_id(core: Core, mnemo_id: str) -> list[NoteRow]:
    return core.store.notes_of_memory(mnemo_id)


def rows_by_name(core: Core, name: str) -> list[NoteRow]:
    """Notes whose title or one of whose aliases is ``name`` (case-insensitive)."""
    return core.store.notes_named(name)


# -- indexing -----------------------------------------------------------------------------------
@dataclass
class _Pending:
    rel: str
    parsed: ParsedNote
    chunks: list[Chunk]
    digest: str
    mtime: float
    size: int
    old: NoteRow | None


def _read(path: Path) -> tuple[bytes, float, int] | None:
    try:
        st = path.stat()
        if st.st_size > MAX_NOTE_BYTES:
            log.warning("skipping %s: %d bytes is too large for a note", path, st.st_size)
            return None
        return path.read_bytes(), st.st_mtime, st.st_size
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        return None


def _prepare(core: Core, rel: str, data: bytes, mtime: float, size: int, old: NoteRow | None) -> _Pending:
    text = data.decode("utf-8", errors="replace")
    parsed = parse_note(rel, text)
    if parsed.fm_error:
        log.warning("%s: %s (indexed as text; mnemo will not rewrite it)", rel, parsed.fm_error)
    chunks = chunk_note(parsed, core.settings.vault_cfg.chunk_words)
    return _Pending(rel, parsed, chunks, bytes_hash(data), mtime, size, old)


class _Step(NamedTuple):
    """What one chunk of a changed note needs: ``keep`` its vector, ``copy`` the vector stored
    under ``source`` (the same text elsewhere in the note), or ``embed`` (new vector ``slot``)."""

    id: str
    chunk: Chunk
    hash: str
    action: str
    source: str = ""
    slot: int = -1


def _chunk_key(c: Chunk) -> str:
    """What decides whether a chunk needs a new vector: its heading and text. The note's title is
    embedded too, but renaming or moving a note (same bytes) must not re-embed it."""
    return text_hash(f"{c.heading or ''}\n{c.text}")


def _chunk_meta(p: _Pending, c: Chunk) -> dict[str, Any]:
    return {"path": p.rel, "title": p.parsed.title, "heading": c.heading, "ord": c.ord, "mnemo_id": p.parsed.mnemo_id}


def _commit(core: Core, pending: list[_Pending], progress: Progress | None = None) -> int:
    """Embed what changed for a batch of notes, write Chroma, then the SQLite rows. A chunk whose
    text is unchanged keeps its vector, even when it moved to another position in the note."""
    if not pending:
        return 0
    plans: list[tuple[_Pending, str, list[_Step], list[str]]] = []
    to_embed: list[str] = []
    for p in pending:
        uid = p.old.uid if p.old else uuid.uuid4().hex[:16]
        old = core.store.chunk_hashes(uid) if p.old else {}
        by_hash = {h: cid for cid, (h, _) in old.items()}
        rows: list[_Step] = []
        for c in p.chunks:
            cid = f"{uid}:{c.ord}"
            h = _chunk_key(c)
            if old.get(cid, (None, None))[0] == h:
                rows.append(_Step(cid, c, h, "keep"))
            elif h in by_hash:
                rows.append(_Step(cid, c, h, "copy", source=by_hash[h]))
            else:
                rows.append(_Step(cid, c, h, "embed", slot=len(to_embed)))
                to_embed.append(embed_text(p.parsed.title, c))
        gone = sorted(set(old) - {r.id for r in rows})
        plans.append((p, uid, rows, gone))
    reported = 0  # notes of this batch already reported, while their text is embedded

    def on_slice(done: int, total: int) -> None:
        nonlocal reported
        share = len(pending) * done // total
        if progress:
            progress(share - reported, "embedding note text")
        reported = share

    vectors: np.ndarray | None = None
    if to_embed:
        prepare_embedder(core.embedder, progress)
        vectors = embed_in_slices(core.embedder.embed, to_embed, on_slice, _monotonic)
    index = core.index
    # One Chroma call of each kind for the whole batch: each call commits, and per-note calls
    # would cost more than the embedding itself. The write unit marks the index dirty around
    # them: a kill between the Chroma calls and the rows leaves the mark, and the next open
    # re-syncs the chunk vectors. Its SQL commits as it goes (``transaction=False``): Chroma is
    # written first, then the rows (see the module docstring).
    with core.writes(transaction=False):
        for p, uid, _, _ in plans:
            other = get_row(core, p.rel)
            if other is not None and other.uid != uid:
                _forget(core, other)  # a different note used to live at this path
        copies = [(p, r) for p, _, rows, _ in plans for r in rows if r.action == "copy"]
        # Fetch reused vectors before the upsert below overwrites the ids they live under.
        found = index.get_vectors(COLLECTION, [r.source for _, r in copies]) if copies else {}
        lost = [(p, r) for p, r in copies if r.source not in found]
        if lost:  # the index lost them (a crash): embed after all
            again = core.embedder.embed([embed_text(p.parsed.title, r.chunk) for p, r in lost])
            found.update({r.source: again[i] for i, (_, r) in enumerate(lost)})
        ids: list[str] = []
        vecs: list[Any] = []
        metas: list[dict[str, Any]] = []
        keep_ids: list[str] = []
        keep_metas: list[dict[str, Any]] = []
        gone_all: list[str] = []
        for p, _, rows, gone in plans:
            moved = p.old is not None and (p.old.path != p.rel or p.old.mnemo_id != p.parsed.mnemo_id)
            for r in rows:
                if r.action == "embed":
                    assert vectors is not None  # an "embed" step has its text in ``to_embed``
                    ids.append(r.id)
                    vecs.append(vectors[r.slot])
                    metas.append(_chunk_meta(p, r.chunk))
                elif r.action == "copy":
                    ids.append(r.id)
                    vecs.append(found[r.source])
                    metas.append(_chunk_meta(p, r.chunk))
                elif moved:
                    keep_ids.append(r.id)
                    keep_metas.append(_chunk_meta(p, r.chunk))
            reused = {r.id for r in rows}
            gone_all += [g for g in gone if g not in reused]
        if ids:
            index.upsert(COLLECTION, ids, np.stack(vecs), metas)
        if keep_ids:
            index.update_metadata(COLLECTION, keep_ids, keep_metas)
        if gone_all:
            index.delete(COLLECTION, gone_all)
        core.store.write_notes([_note_write(core, p, uid, rows) for p, uid, rows, _ in plans])
    if progress:
        progress(len(pending) - reported)
    return len(to_embed)


def _note_write(core: Core, p: _Pending, uid: str, rows: list[_Step]) -> NoteWrite:
    parsed = p.parsed
    return NoteWrite(
        path=p.rel, uid=uid, mnemo_id=parsed.mnemo_id, title=parsed.title, aliases=parsed.aliases,
        tags=parsed.tags, links=link_targets(parsed.links), content_hash=p.digest, mtime=p.mtime, size=p.size,
        indexed_at=core.now(), chunks=[ChunkRow(r.id, r.chunk.ord, r.chunk.heading, r.chunk.text, r.hash, r.chunk.words)
                                       for r in rows],
        moved_from=p.old.path if p.old and p.old.path != p.rel else None,
    )


def _forget(core: Core, row: NoteRow) -> None:
    ids = core.store.note_chunk_ids(row.uid)
    with core.writes(transaction=False):  # Chroma first, then the rows (see ``_commit``)
        if ids:
            core.index.delete(COLLECTION, ids)
        core.store.forget_note(row.uid, row.path)


# -- owned notes indexed but not yet synced back ------------------------------------------------
# A note's row records its hash once it is indexed, and an unchanged hash is never read again;
# the sync back into its memory comes after. Owned notes are listed here before their rows are
# written and taken off after the sync, so a kill in between leaves them listed and the next
# reconcile syncs them (syncing twice is harmless: an unchanged note changes nothing).
_SYNC_KEY = "vault.sync_pending"


def sync_pending(core: Core) -> set[str]:
    return set(json.loads(core.store.kv_get(_SYNC_KEY) or "[]"))


def mark_sync_pending(core: Core, paths: list[str]) -> None:
    if paths:
        core.store.kv_set(_SYNC_KEY, json.dumps(sorted(sync_pending(core) | set(paths))))


def sync_done(core: Core, paths: list[str]) -> None:
    pending = sync_pending(core)
    if pending & set(paths):
        core.store.kv_set(_SYNC_KEY, json.dumps(sorted(pending - set(paths))))


def _check_model(core: Core) -> bool:
    """True when the chunk vectors were made by another model: drop them all."""
    current = core.embedder.model_hash
    recorded = core.store.kv_get("vault.model_hash")
    if recorded == current:
        return False
    if recorded is not None:
        log.info("embedding model changed: re-embedding every note chunk")
        core.index.drop(COLLECTION)
        core.store.clear_chunk_hashes()
    core.store.kv_set("vault.model_hash", current)
    return recorded is not None


def index_vault(core: Core, progress: Progress | None = None) -> dict[str, Any]:
    """Full reconcile of the vault against the index. Returns counts of added, changed,
    moved, removed and unchanged notes, chunks embedded, and owned notes synced back."""
    vault = require_vault(core)
    from .recover import sweep

    sweep(vault, core.home)  # temp files and half-done moves of a process that was killed
    with announced(progress, "checking the embedding model", _monotonic):
        rebuilt = _check_model(core)
    patterns = list(core.settings.vault_cfg.exclude)
    paths = scan(vault, patterns)
    known = all_rows(core)
    counts = {"added": 0, "changed": 0, "moved": 0, "removed": 0, "unchanged": 0, "embedded": 0, "synced": 0,
              "notes": len(paths)}
    new_candidates: list[tuple[str, bytes, float, int]] = []
    batch: list[_Pending] = []
    owned: list[_Pending] = []

    left_unsynced = sync_pending(core)  # owned notes a reconcile cut short did not sync back

    def flush() -> None:
        mine = [p for p in batch if p.parsed.mnemo_id]
        mark_sync_pending(core, [p.rel for p in mine])  # before the rows say "indexed"
        counts["embedded"] += _commit(core, batch, progress)
        owned.extend(mine)
        batch.clear()

    for rel in paths:
        row = known.get(rel)
        st = None
        try:
            st = (vault / rel).stat()
        except OSError:
            continue
        if row and not rebuilt and row.mtime == st.st_mtime and row.size == st.st_size:
            counts["unchanged"] += 1
            if progress:
                progress(1)
            continue
        got = _read(vault / rel)
        if got is None:
            continue
        data, mtime, size = got
        digest = bytes_hash(data)
        if row and not rebuilt and row.content_hash == digest:
            core.store.set_note_stat(rel, mtime, size)
            counts["unchanged"] += 1
            if progress:
                progress(1)
            continue
        if row is None:
            new_candidates.append((rel, data, mtime, size))
            continue
        counts["changed"] += 1
        batch.append(_prepare(core, rel, data, mtime, size, row))
        if len(batch) >= BATCH_NOTES:
            flush()
    # New paths: a vanished note with the same bytes is a move (its chunks keep their vectors).
    present = set(paths)
    vanished: dict[str, list[NoteRow]] = {}
    for known_rel, r in known.items():
        if known_rel not in present:
            vanished.setdefault(r.content_hash, []).append(r)
    for rel, data, mtime, size in new_candidates:
        digest = bytes_hash(data)
        same = vanished.get(digest)
        old = same.pop(0) if same else None
        if old is not None:
            counts["moved"] += 1
            known.pop(old.path, None)
        else:
            counts["added"] += 1
        batch.append(_prepare(core, rel, data, mtime, size, old))
        if len(batch) >= BATCH_NOTES:
            flush()
    flush()
    gone = [r for rows in vanished.values() for r in rows]
    for r in gone:
        _forget(core, r)
        counts["removed"] += 1
    from .sync import note_gone, sync_owned

    for rel in sorted(left_unsynced - {p.rel for p in owned} - {r.path for r in gone}):
        got = _read(vault / rel)
        if got is not None:
            owned.append(_prepare(core, rel, *got, get_row(core, rel)))
    # Owned notes first (one moved and edited while nobody watched is adopted by its memory),
    # then the deleted ones: a memory whose note is really gone is archived.
    for p in owned:
        if sync_owned(core, p.rel, p.parsed, moved_from=p.old.path if p.old and p.old.path != p.rel else None):
            counts["synced"] += 1
    sync_done(core, [p.rel for p in owned] + list(left_unsynced))
    for r in gone:
        if r.mnemo_id:
            note_gone(core, r.mnemo_id, r.path)
    return counts


def index_note(core: Core, path: str | Path) -> dict[str, Any]:
    """Index (or re-index) one note; an owned note's edits flow back into its memory.
    A path that is not (or no longer) an indexable note is removed from the index."""
    vault = require_vault(core)
    abs_path, rel = resolve_in_vault(vault, path)
    if not indexable(vault, rel, list(core.settings.vault_cfg.exclude)):
        return {"path": rel, "status": "ignored"}
    got = _read(abs_path)
    if got is None:
        removed = remove_note(core, rel)
        return {"path": rel, "status": "removed" if removed["removed"] else "missing"}
    _check_model(core)
    data, mtime, size = got
    row = get_row(core, rel)
    digest = bytes_hash(data)
    if row and row.content_hash == digest:
        core.store.set_note_stat(rel, mtime, size)
        return {"path": rel, "status": "unchanged", "embedded": 0, "synced": False}
    if row is None:
        # Created with the bytes of a note the index still holds under a vanished path: a move.
        for other in core.store.note_paths_with_hash(digest):
            if not (vault / other).exists():
                row = get_row(core, other)
                break
    p = _prepare(core, rel, data, mtime, size, row)
    if p.parsed.mnemo_id:
        mark_sync_pending(core, [rel])
    embedded = _commit(core, [p])
    synced = False
    if p.parsed.mnemo_id:
        from .sync import sync_owned

        synced = sync_owned(core, rel, p.parsed, moved_from=row.path if row and row.path != rel else None)
        sync_done(core, [rel])
    status = "added" if row is None else ("moved" if row.path != rel else "changed")
    return {"path": rel, "status": status, "embedded": embedded, "chunks": len(p.chunks), "synced": synced}


def remove_note(core: Core, path: str | Path) -> dict[str, Any]:
    """Drop a deleted note from the index. Its memory (if mnemo owned it) is kept and falls back
    to active, with the note pointer cleared: deleting a note never deletes a memory."""
    vault = require_vault(core)
    rel = vault_rel(vault, path)
    row = get_row(core, rel)
    if row is None:
        return {"path": rel, "removed": False}
    if (vault / rel).is_file():
        return {"path": rel, "removed": False, "reason": "the note still exists"}
    _forget(core, row)
    if row.mnemo_id:
        from .sync import note_gone

        note_gone(core, row.mnemo_id, rel)
    return {"path": rel, "removed": True}


def move_note(core: Core, old: str | Path, new: str | Path) -> dict[str, Any]:
    """A note moved or renamed (by the person, or Obsidian): re-point its row, chunks and memory
    without re-embedding; if its bytes changed too, the changed chunks are re-embedded."""
    vault = require_vault(core)
    old_rel = vault_rel(vault, old)
    new_rel = vault_rel(vault, new)
    row = get_row(core, old_rel)
    if row is None or not (vault / new_rel).is_file():
        return index_note(core, new_rel) | {"from": old_rel}
    if not indexable(vault, new_rel, list(core.settings.vault_cfg.exclude)):
        return remove_note(core, old_rel) | {"to": new_rel, "status": "removed"}
    got = _read(vault / new_rel)
    if got is None:
        return {"path": new_rel, "status": "missing", "from": old_rel}
    data, mtime, size = got
    p = _prepare(core, new_rel, data, mtime, size, row)
    if p.parsed.mnemo_id:
        mark_sync_pending(core, [new_rel])
    embedded = _commit(core, [p])
    synced = False
    if p.parsed.mnemo_id:
        from .sync import sync_owned

        synced = sync_owned(core, new_rel, p.parsed, moved_from=old_rel)
        sync_done(core, [new_rel])
    return {"path": new_rel, "from": old_rel, "status": "moved", "embedded": embedded, "synced": synced}


def counts(core: Core) -> tuple[int, int]:
    return core.store.count_rows("notes"), core.store.count_rows("chunks")


def count_notes(settings: Any) -> int:
    """How many notes ``index_vault`` will visit (for a progress bar); 0 without a vault."""
    vault = settings.vault
    if vault is None or not vault.is_dir():
        return 0
    return len(scan(vault, list(settings.vault_cfg.exclude)))


def rebuild(core: Core, progress: Progress | None = None) -> dict[str, Any]:
    """Drop the notes index (rows, FTS, vectors) and index the whole vault again."""
    require_vault(core)
    with core.write_lock:
        core.index.drop(COLLECTION)
        core.store.clear_notes()
        core.store.kv_set("vault.model_hash", core.embedder.model_hash)
    return index_vault(core, progress)
