"""Bringing the derived vector index back in line with the truth after a crash or a loss.

The store and the vault are the truth; Chroma is derived (design.md §1), so whatever happened
to it, it can be rebuilt from them:

- ``sync`` (every open of the index): cheap when the last write finished (the ``index.dirty``
  mark that the write unit (``core.writes``) sets around Chroma writes is clear) and the counts agree.
  Otherwise ``sync_memories`` embeds the memories the index lacks, deletes vectors of memories
  that are gone or cold and, after an interrupted write, rewrites stale metadata; and
  ``sync_chunks`` deletes vectors of note chunks the store does not know and marks the notes
  whose chunks lack a vector, so that the next vault reconcile re-embeds them (the daemon
  reconciles when it starts).
- ``open_embedded``: an embedded Chroma folder that cannot be read (``check_segments`` finds
  damaged HNSW files, Chroma refuses its database, or a probe read fails) is moved aside to
  ``chroma.broken`` and a new, empty one is made; the open then re-embeds every memory from
  the store, and every note is marked for re-embedding.
"""

from __future__ import annotations

import logging
import shutil
import struct
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import StorageError

if TYPE_CHECKING:
    from ..index.chroma import VectorIndex
    from ..models import Memory
    from ..store import Store
    from . import Core

log = logging.getLogger(__name__)

CHUNKS = "chunks"
HOT = ("active", "promoted", "archived")  # statuses whose memories have a vector (cold ones do not)
BROKEN_SUFFIX = ".broken"


def _open_index(core: Core) -> VectorIndex:
    """The index being opened: recovery runs from its open, so it never opens one itself."""
    index = core.loaded_index
    assert index is not None, "the vector index is recovered while it is open"
    return index


def sync(core: Core) -> dict[str, int]:
    """Run at every open of the index. When the last write finished (``index.dirty`` is 0) and
    the counts agree there is nothing to do; otherwise memories and note chunks are compared
    id by id (and, after an interrupted write, memory metadata too) and repaired."""
    index = _open_index(core)
    dirty = core.store.kv_get("index.dirty", "0") != "0"
    hot = core.store.count(status=HOT)
    chunk_rows = core.store.count_rows("chunks")
    if not dirty and index.count("memories") == hot and index.count(CHUNKS) == chunk_rows:
        return {}
    done = sync_memories(core, metadata=dirty)
    done.update(sync_chunks(core))
    core.store.kv_set("index.dirty", "0")
    return done


def sync_memories(core: Core, metadata: bool = False) -> dict[str, int]:
    """Embed hot memories the index lacks, delete vectors of memories that are gone or cold,
    and with ``metadata`` rewrite vector metadata that no longer says what the store says (a
    kill between a status change's commit and its index write)."""
    from ..index.chroma import _clean_meta
    from . import vector_meta

    index = _open_index(core)
    have: dict[str, dict[str, Any]] = {}
    for page in index.entries("memories", include=("metadatas",) if metadata else ()):
        metas = page.get("metadatas") or [{}] * len(page["ids"])
        have.update(zip(page["ids"], metas, strict=False))
    want: set[str] = set()
    missing: list[Memory] = []
    stale: list[Memory] = []
    for batch in core.store.iter_memories(batch=1000, status=HOT):
        for m in batch:
            want.add(m.id)
            if m.id not in have:
                missing.append(m)
            elif metadata and _differs(_clean_meta(vector_meta(m)), have[m.id] or {}):
                stale.append(m)
    orphans = sorted(set(have) - want)
    if orphans:
        index.delete("memories", orphans)
    if missing:
        log.info("indexing %d memories missing from the vector index", len(missing))
        core.embed_into_index([missing[i : i + 512] for i in range(0, len(missing), 512)])
    if stale:
        index.update_metadata("memories", [m.id for m in stale], [vector_meta(m) for m in stale])
    return {"embedded": len(missing), "orphans_removed": len(orphans), "metadata_fixed": len(stale)}


def _differs(want: dict[str, Any], got: dict[str, Any]) -> bool:
    # created_at is left out: it never changes, and float metadata need not round-trip exactly.
    return any(got.get(k) != v for k, v in want.items() if k != "created_at")


def sync_chunks(core: Core) -> dict[str, int]:
    """Delete chunk vectors with no chunk row; mark notes whose chunks lack a vector for
    re-embedding. Returns the counts."""
    index = _open_index(core)
    have = set(index.all_ids(CHUNKS))
    rows = core.store.chunk_notes()
    orphans = sorted(have - set(rows))
    if orphans:
        index.delete(CHUNKS, orphans)
    uids = sorted({rows[i] for i in set(rows) - have})
    if uids:
        core.store.forget_chunk_vectors(uids)
        log.info("%d notes lost chunk vectors: the next vault reconcile re-embeds them", len(uids))
    return {"orphans_removed": len(orphans), "notes_marked": len(uids)}


def open_embedded(path: Path, open_index: Any, store: Store) -> Any:
    """``open_index()`` (a VectorIndex on ``path``), or, when the folder cannot be opened, a new
    index in its place with the broken folder kept aside as ``<path>.broken`` (the previous
    broken copy is replaced). The store is told to rebuild: every memory is re-embedded by the
    sync that follows, every note by the next vault reconcile."""
    index = None
    try:
        damaged = check_segments(path) if path.is_dir() else []
        if damaged:
            raise StorageError(f"damaged graph files: {'; '.join(damaged[:3])}")
        index = open_index()
        probe(index)
        return index
    except StorageError as exc:
        if not path.exists():
            raise
        _close_quietly(index)
        log.warning("the vector index at %s cannot be read (%s): rebuilding it from the store", path, exc.message)
    aside = path.with_name(path.name + BROKEN_SUFFIX)
    if aside.exists():
        shutil.rmtree(aside, ignore_errors=True)
    path.rename(aside)
    store.kv_set("index.rebuilt_at", str(time.time()))
    store.kv_set("index.dirty", "1")
    store.forget_chunk_vectors()
    return open_index()


# -- the HNSW segment files ----------------------------------------------------------------------
# Chroma (1.x) keeps each collection's graph in a folder of hnswlib files and loads them without
# checking them: a damaged data file crashes the process (SIGSEGV) at its first read, which no
# error handling can catch. So the files are checked before Chroma opens them. header.bin (100
# bytes): a uint32 format version (1), then size_t offsetLevel0, max_elements,
# cur_element_count, size_data_per_element, label_offset, offsetData, int maxlevel, uint32
# enterpoint, size_t maxM, maxM0, M, double mult, size_t ef_construction. data_level0.bin holds
# cur_element_count records of size_data_per_element bytes: a uint32 link count (low 16 bits),
# maxM0 uint32 neighbour numbers, the vector, an 8-byte label. link_lists.bin holds, per
# element, a uint32 byte size and its upper-level lists: per level a count and maxM neighbour
# numbers. (length.bin holds the vectors' norms.)
_HEADER = struct.Struct("<I6QiI3QdQ")


def check_segments(path: Path) -> list[str]:
    """What is wrong with the HNSW files under the Chroma folder ``path`` (empty when nothing)."""
    problems: list[str] = []
    for header in sorted(path.glob("*/header.bin")):
        try:
            problems += [f"{header.parent.name}: {p}" for p in _check_segment(header.parent)]
        except (OSError, ValueError) as exc:
            problems.append(f"{header.parent.name}: {exc}")
    return problems


def _check_segment(seg: Path) -> list[str]:
    import numpy as np

    raw = (seg / "header.bin").read_bytes()
    if len(raw) < _HEADER.size:
        return [f"header.bin is {len(raw)} bytes"]
    (version, _off0, max_el, count, size_el, label_off, data_off, max_level, entry, max_m, max_m0, _m, _mult,
     _ef) = _HEADER.unpack_from(raw)
    if version != 1:
        return []  # a format this check does not know: Chroma's own loader judges it
    if not (0 <= count <= max_el and data_off == 4 + 4 * max_m0 and label_off + 8 == size_el and data_off <= label_off
            and 0 < max_m <= max_m0 < 4096 and (count == 0 or (0 <= max_level < 64 and entry < count))):
        return ["header.bin does not describe a graph"]
    level0 = seg / "data_level0.bin"
    if level0.stat().st_size < count * size_el:
        return [f"data_level0.bin is {level0.stat().st_size} bytes, {count * size_el} expected"]
    if count == 0:
        return []
    out: list[str] = []
    # Level 0: the link count and the neighbour numbers of each record (the vectors are not read).
    links = np.memmap(level0, dtype=np.uint32, mode="r", shape=(count, size_el // 4))[:, : 1 + max_m0]
    if not _lists_ok(np.asarray(links), max_m0, count):
        out.append("data_level0.bin has links out of range")
    upper = seg / "link_lists.bin"
    if upper.exists():
        lists = _upper_lists(upper.read_bytes(), count, 4 * (1 + max_m), max_level)
        if lists is None:
            out.append("link_lists.bin is not a list per element")
        elif len(lists) and not _lists_ok(lists.reshape(-1, 1 + max_m), max_m, count):
            out.append("link_lists.bin has links out of range")
    return out


def _upper_lists(data: bytes, count: int, record: int, max_level: int) -> Any:
    """The upper-level lists of link_lists.bin (per element: a uint32 byte size, then that many
    bytes, a whole number of levels), as one uint32 array; None when the sizes do not add up."""
    import numpy as np

    parts: list[bytes] = []
    pos = 0
    for _ in range(count):
        if pos + 4 > len(data):
            return None
        size = int.from_bytes(data[pos : pos + 4], "little")
        pos += 4
        if size:
            if size % record or size // record > max_level or pos + size > len(data):
                return None
            parts.append(data[pos : pos + size])
            pos += size
    if pos != len(data):
        return None
    return np.frombuffer(b"".join(parts), dtype=np.uint32)


def _lists_ok(lists: Any, width: int, count: int) -> bool:
    import numpy as np

    n = lists[:, 0] & 0xFFFF
    if np.any(n > width):
        return False
    used = np.arange(width)[None, :] < n[:, None]
    return not np.any(lists[:, 1:][used] >= count)


def probe(index: Any) -> None:
    """Read one vector of each collection there is: Chroma opens a folder whose segment files
    are damaged without complaint, and fails (a StorageError) only when it reads them."""
    for name in ("memories", CHUNKS):
        index._run(name, "reading", lambda col: col.get(limit=1, include=["embeddings"]))


def _close_quietly(index: Any) -> None:
    """Let go of a broken index, including Chroma's process-wide cache of its system (a later
    client on the same path would otherwise get the broken one back)."""
    try:
        if index is not None:
            index.close()
        else:
            from chromadb.api.client import SharedSystemClient

            SharedSystemClient.clear_system_cache()
    except Exception:  # noqa: BLE001 - it is being thrown away
        log.debug("closing the broken index failed")
