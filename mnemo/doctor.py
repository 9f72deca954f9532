"""``doctor``: do the derived indexes, the vault index and the home agree with the sources of
truth (the store for memories and links, the vault's files for notes)?

Each check looks at one structure and can repair it from the truth:

- ``vectors``: every hot memory (status active, promoted or archived) is in Chroma's
  ``memories`` collection exactly once, with its current status in the vector's metadata and
  made by the configured model (the index's recorded model, and each memory's ``embed_model``);
  no vector belongs to a memory that is gone or cold (orphans).
- ``fts``: the keyword index has exactly one row per memory, with the memory's current text.
- ``notes``: every Markdown note of the vault is indexed as it is on disk now (none unindexed,
  none changed since, none indexed whose file is gone), every chunk row has its vector in the
  ``chunks`` collection, no vector there lacks a chunk row, and the chunks were embedded with
  the current model. Repair re-indexes the notes concerned (the vault is the truth).
- ``leftovers``: no temp file and no record of a half-done move that a killed writer left in the
  vault (older than the current owner; ``vault.recover``). Repair removes the temp files and
  finishes the moves whose files are exactly as the record says. Every vault reconcile does
  the same first.
- ``links``: links are stored both ways; every ``out`` row has its ``in`` twin and back.
  Repair adds the missing half.
- ``claims``: no note is claimed twice: two memories pointing at one note (repair: the memory
  the note's ``mnemo_id`` names keeps it; the others go back to active with no note), or one
  ``mnemo_id`` in two notes (a copied note; reported only: which copy is "the" note is the
  person's call, and mnemo never rewrites a note to decide it).
- ``permissions``: nothing mnemo keeps in ``MNEMO_HOME`` is open to other accounts (``security``);
  other files a person keeps there are left alone.
- ``properties``: every promoted memory's note has frontmatter that parses. A person who broke
  the YAML of a promoted note gets the file, the parser's message and the fix; there is no
  repair (mnemo never rewrites a note it cannot read: the fix is the person's).

Opening the vector index already repairs what a crash left (``core.recover``: missing and
orphan vectors, stale metadata, notes that lost chunk vectors, an unreadable Chroma folder), so
on a fresh process this reports the state after that self-repair. Checks are plain objects
in ``CHECKS``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .core import Core

HOT = ("active", "promoted", "archived")
SAMPLE = 10
CHUNKS = "chunks"


def broken_properties(core: Core) -> list[dict[str, str]]:
    """Promoted memories whose note's frontmatter does not parse: ``{path, memory_id, error}``.
    Cheap enough for ``daemon status``: only notes whose index row no longer names their memory,
    or whose file changed since it was indexed, are read."""
    vault = _vault(core)
    if vault is None:
        return []
    from .vault.parse import parse_note

    out: list[dict[str, str]] = []
    for mid, rel, owner, mtime, size in core.store.promoted_note_states():
        path = vault / rel
        try:
            st = path.stat()
            if owner == mid and st.st_mtime == mtime and st.st_size == size:
                continue
            text = path.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            continue  # a missing note is the watcher's and the reconcile's business
        error = parse_note(rel, text).fm_error
        if error:
            out.append({"path": rel, "memory_id": mid, "error": error})
    return sorted(out, key=lambda d: d["path"])


def find_property_problems(core: Core) -> dict[str, list[str]]:
    return {"broken_yaml": [f"{b['path']}: {b['error']}" for b in broken_properties(core)]}


def repair_properties(core: Core, found: dict[str, list[str]]) -> dict[str, int]:
    return {}  # the person's YAML, the person's fix: mnemo never rewrites a note it cannot read


@dataclass
class Check:
    name: str
    about: str
    find: Callable[[Core], dict[str, list[str]]]  # problem kind → ids (empty lists when fine)
    repair: Callable[[Core, dict[str, list[str]]], dict[str, int]]


# -- vectors -----------------------------------------------------------------------------------
def _vector_entries(core: Core) -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    for page in core.index.entries("memories", include=("metadatas",)):
        out.extend(zip(page["ids"], page.get("metadatas") or [{}] * len(page["ids"]), strict=False))
    return out


def find_vector_problems(core: Core) -> dict[str, list[str]]:
    store = core.store
    rows = store.status_and_model(HOT)
    status = {r[0]: r[1] for r in rows}
    entries = _vector_entries(core)
    seen = Counter(i for i, _ in entries)
    meta = dict(entries)
    recorded = store.kv_get("index.model_hash")
    current = core.embedder.model_hash
    return {
        "missing": sorted(set(status) - set(seen)),
        "duplicate": sorted(i for i, n in seen.items() if n > 1),
        "orphan": sorted(set(seen) - set(status)),
        "stale_status": sorted(i for i, m in meta.items() if i in status and (m or {}).get("status") != status[i]),
        "model": [] if recorded == current else [f"index built with {recorded}, model is {current}"],
        # A memory embedded by another model than the one the index now uses.
        "stale_model": sorted(r[0] for r in rows if r[2] is not None and r[2] != current and r[0] in seen),
    }


def repair_vectors(core: Core, found: dict[str, list[str]]) -> dict[str, int]:
    from .core import vector_meta

    done: dict[str, int] = {}
    with core.write_lock:
        if found["model"] or found["duplicate"]:
            from .reindex import reindex

            done["reembedded"] = reindex(core)["vectors"]
            return done
        if found["orphan"]:
            core.index.delete("memories", found["orphan"])
            done["orphans_removed"] = len(found["orphan"])
        if found["missing"]:
            mems = list(core.store.get_memories(found["missing"]).values())
            done["embedded"] = core.embed_into_index([mems[i : i + 512] for i in range(0, len(mems), 512)])
        if found["stale_status"]:
            mems = list(core.store.get_memories(found["stale_status"]).values())
            core.index.update_metadata("memories", [m.id for m in mems], [vector_meta(m) for m in mems])
            done["metadata_fixed"] = len(mems)
        if found.get("stale_model"):
            mems = list(core.store.get_memories(found["stale_model"]).values())
            done["reembedded"] = core.embed_into_index([mems[i : i + 512] for i in range(0, len(mems), 512)])
    return done


# -- keyword index -----------------------------------------------------------------------------
def find_fts_problems(core: Core) -> dict[str, list[str]]:
    store = core.store
    ids = store.memory_ids()
    rows = Counter(store.fts_row_counts())
    stale = store.fts_stale_ids()
    return {
        "missing": sorted(ids - set(rows)),
        "duplicate": sorted(i for i, n in rows.items() if n > 1),
        "orphan": sorted(set(rows) - ids),
        "stale_text": sorted(set(stale)),
    }


def repair_fts(core: Core, found: dict[str, list[str]]) -> dict[str, int]:
    with core.write_lock:
        return {"fts_rebuilt": core.store.fts_rebuild()}


# -- the vault's notes and their chunks ----------------------------------------------------------
def _vault(core: Core) -> Any:
    vault = core.settings.vault
    return vault if vault is not None and vault.is_dir() else None


def find_note_problems(core: Core) -> dict[str, list[str]]:
    vault = _vault(core)
    if vault is None:
        return {}
    from .vault.indexer import MAX_NOTE_BYTES, all_rows, scan
    from .vault.writer import bytes_hash

    rows = all_rows(core)
    paths = scan(vault, list(core.settings.vault_cfg.exclude))
    stale: list[str] = []
    for rel in paths:
        row = rows.get(rel)
        if row is None:
            continue
        try:
            st = (vault / rel).stat()
            if row.mtime == st.st_mtime and row.size == st.st_size:
                continue
            if st.st_size > MAX_NOTE_BYTES or bytes_hash((vault / rel).read_bytes()) != row.content_hash:
                stale.append(rel)
        except OSError:
            continue
    chunk_ids = core.store.chunk_ids()
    have = set(core.index.all_ids(CHUNKS))
    recorded = core.store.kv_get("vault.model_hash")
    # Files the indexer skips (too large, unreadable) are not "unindexed": they are never indexed.
    unindexed = [rel for rel in paths if rel not in rows and _indexable_size(vault / rel, MAX_NOTE_BYTES)]
    return {
        "unindexed": sorted(unindexed),
        "stale": sorted(stale),
        "gone": sorted(set(rows) - set(paths)),
        "missing_vector": sorted(chunk_ids - have),
        "orphan_vector": sorted(have - chunk_ids),
        "model": [] if not rows or recorded in (None, core.embedder.model_hash)
        else [f"chunks embedded with {recorded}, model is {core.embedder.model_hash}"],
    }


def _indexable_size(path: Any, limit: int) -> bool:
    try:
        return path.stat().st_size <= limit
    except OSError:
        return False


def repair_notes(core: Core, found: dict[str, list[str]]) -> dict[str, int]:
    done: dict[str, int] = {}
    with core.write_lock:
        if found.get("orphan_vector"):
            core.index.delete(CHUNKS, found["orphan_vector"])
            done["orphan_vectors_removed"] = len(found["orphan_vector"])
        if found.get("missing_vector"):
            # Forget what the index knew of those notes' chunks so the reconcile below re-embeds
            # them (a chunk whose recorded hash matches would be kept as it is).
            store = core.store
            done["notes_reembedded"] = store.forget_chunk_vectors(store.notes_of_chunks(found["missing_vector"]))
        if any(found.get(k) for k in ("unindexed", "stale", "gone", "missing_vector", "model")):
            from .vault import indexer, vault_lock

            with vault_lock(core):
                counts = indexer.index_vault(core)
            done.update({f"notes_{k}": v for k, v in counts.items() if k in ("added", "changed", "moved", "removed") and v})
    return done


# -- what a killed writer left in the vault ------------------------------------------------------
def find_vault_leftovers(core: Core) -> dict[str, list[str]]:
    vault = _vault(core)
    if vault is None:
        return {}
    from .vault.recover import leftovers, owner_started_ns

    return leftovers(vault, owner_started_ns(core.home))


def repair_vault_leftovers(core: Core, found: dict[str, list[str]]) -> dict[str, int]:
    from .vault import vault_lock
    from .vault.recover import sweep

    vault = core.settings.vault
    if vault is None:
        return {}
    with vault_lock(core):
        return sweep(vault, core.home)


# -- links both ways ---------------------------------------------------------------------------
def find_link_problems(core: Core) -> dict[str, list[str]]:
    store = core.store
    return {
        "out_without_in": [f"{r[0]} -{r[2]}-> {r[1]}" for r in store.half_links("out", "in")],
        "in_without_out": [f"{r[1]} -{r[2]}-> {r[0]}" for r in store.half_links("in", "out")],
    }


def repair_links(core: Core, found: dict[str, list[str]]) -> dict[str, int]:
    """Add the missing twin of every half link (same origin, weight and time)."""
    with core.write_lock:
        return {"twins_added": core.store.add_link_twins()}


# -- no note claimed twice ---------------------------------------------------------------------
def find_claim_problems(core: Core) -> dict[str, list[str]]:
    store = core.store
    return {
        "note_shared_by_memories": sorted(store.notes_shared_by_memories()),
        "mnemo_id_in_several_notes": sorted(f"{mid}: {paths}" for mid, paths in store.ids_in_several_notes()),
    }


def repair_claims(core: Core, found: dict[str, list[str]]) -> dict[str, int]:
    from .models import Status

    released = 0
    with core.write_lock:
        for path in found.get("note_shared_by_memories", []):
            owner_id = core.store.note_owner(path)
            claimants = core.store.note_claimants(path)
            if owner_id not in claimants:
                continue  # the note names none of them: a person has to say which (reported again)
            for mid in claimants:
                if mid == owner_id:
                    continue
                m = core.store.get_memory(mid)
                if m is None:
                    continue
                status = Status.ACTIVE if m.status == Status.PROMOTED else m.status
                core.set_status(replace(m, note_path=None), status)
                released += 1
    return {"claims_released": released} if released else {}


# -- file modes in the home --------------------------------------------------------------------
def find_permission_problems(core: Core) -> dict[str, list[str]]:
    from .security import loose_in_home

    return {"open_to_others": loose_in_home(core.home)}


def repair_permissions(core: Core, found: dict[str, list[str]]) -> dict[str, int]:
    from .security import tighten_home

    return {"tightened": tighten_home(core.home)}


CHECKS: list[Check] = [
    Check("vectors", "every hot memory in the vector index once, with current metadata and model", find_vector_problems, repair_vectors),
    Check("fts", "one keyword-index row per memory, with its current text", find_fts_problems, repair_fts),
    Check("notes", "every vault note indexed as it is now, each chunk with one vector of the current model", find_note_problems, repair_notes),
    Check("leftovers", "no temp file or half-done move of a killed writer in the vault", find_vault_leftovers,
          repair_vault_leftovers),
    Check("links", "every link stored both ways", find_link_problems, repair_links),
    Check("claims", "no note claimed by two memories, no mnemo_id in two notes", find_claim_problems, repair_claims),
    Check("permissions", "nothing in MNEMO_HOME open to other accounts", find_permission_problems, repair_permissions),
    Check("properties", "every promoted note's frontmatter parses", find_property_problems, repair_properties),
]

HINTS = {
    "mnemo_id_in_several_notes": "a copied note keeps its mnemo_id: delete the copy, or remove mnemo_id from its "
    "frontmatter (mnemo never rewrites a note to decide which one is the real one)",
    "note_shared_by_memories": "the note's mnemo_id names none of the memories: set it to the one that owns the note",
    "broken_yaml": "fix the properties (the YAML between the two --- lines) of each note listed, in Obsidian or a "
    "text editor, where the message points; mnemo never rewrites a note it cannot read, and takes it up again "
    "once it parses (or run `mnemo vault index`)",
}
# Problems whose sample is worth printing in full: the person has to act on each one.
SHOWN = {"broken_yaml", "mnemo_id_in_several_notes"}


def run_checks(core: Core, repair: bool = False) -> dict[str, Any]:
    """Run every check; with ``repair``, fix what was found from the sources of truth and check
    again. Returns ``{"ok", "checks": {name: {"ok", "problems": {kind: count}, "sample": {kind:
    [ids]}, "hints"?}}, "repaired": {name: {...}}}``; ``ok`` describes the final state."""
    report: dict[str, Any] = {"ok": True, "checks": {}, "repaired": {}}
    core.deferred_meta.flush(core)  # a write on its way is not a disagreement
    for check in CHECKS:
        found = check.find(core)
        if repair and any(found.values()):
            from .vault import vault_lock

            # Vault lock first, then the write lock, as every vault operation takes them (a
            # repair may re-index notes while the daemon's watcher indexes one).
            with vault_lock(core):
                report["repaired"][check.name] = check.repair(core, found)
            found = check.find(core)
        bad = {k: v for k, v in found.items() if v}
        entry: dict[str, Any] = {
            "about": check.about,
            "ok": not bad,
            "problems": {k: len(v) for k, v in bad.items()},
            "sample": {k: v[:SAMPLE] for k, v in bad.items()},
        }
        hints = {k: HINTS[k] for k in bad if k in HINTS}
        if hints:
            entry["hints"] = hints
        report["checks"][check.name] = entry
        report["ok"] = report["ok"] and not bad
    return report
