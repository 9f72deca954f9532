"""The write path for new memories: classify, count tokens, embed in batches, commit to the
store, then index. Work is done in chunks, each committed before the next starts, so a crash
in a long import keeps every chunk that was acknowledged."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .errors import InvalidInput
from .models import Fingerprint, Memory, SaveResult

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    import numpy as np

    from .core import Core, Progress
    from .graph.enrich import LinkReport

CHUNK = 256


def save_many(core: Core, items: Iterable[dict[str, Any]], progress: Progress | None = None,
              enrich: str = "defer") -> list[SaveResult]:
    """Validate every item first (nothing is written if one is bad), then embed in batches
    and write. Returns one SaveResult per item, in order. Fingerprints and links of a bulk
    write are left to ``enrich_pending`` (``enrich="inline"`` makes them now)."""
    from . import inputs

    drafts: list[tuple[Memory, bool]] = [core.draft(item, f"item {i + 1}: ") for i, item in enumerate(items)]
    if not drafts:
        return []
    if enrich not in ("defer", "inline"):
        raise InvalidInput(f"unknown enrich mode {enrich!r}", hint="defer or inline")
    inputs.new_ids(core.store, [m.id for m, _ in drafts])
    return write_memories(core, drafts, progress, enrich=enrich)


def write_memories(
    core: Core,
    drafts: list[tuple[Memory, bool]],
    progress: Progress | None = None,
    enrich: str = "defer",
    skip_duplicates: bool = False,
    report: LinkReport | None = None,
    vectors: np.ndarray | None = None,
) -> list[SaveResult]:
    """``enrich`` says when the fingerprint and links are made (``graph.enrich``): "inline"
    computes the fingerprint (spaCy) before the write and the links right after (single saves);
    "given" takes the drafts' fingerprints (ingest) and links right after; "defer" queues the
    memories for ``enrich_pending`` (bulk writes, which must not pay for spaCy). With
    ``skip_duplicates`` a near-duplicate flagged by the surprise rule is reported
    (``created=False``) and not stored. ``vectors`` (one row per draft, from ``core.embedder``
    on the drafts' contents) saves embedding them again: ingest has them from its statement
    filter."""
    from .graph import db as graph_db
    from .graph.enrich import fingerprint_memories, link_memories
    from .nlp.classify import classify
    from .nlp.tokens import count_many

    if vectors is not None and len(vectors) != len(drafts):
        raise ValueError(f"{len(vectors)} vectors for {len(drafts)} memories")
    results: list[SaveResult] = []
    model = core.store.kv_get("index.model_hash")
    for start in range(0, len(drafts), CHUNK):
        part = drafts[start : start + CHUNK]
        tokens = count_many([m.content for m, _ in part])
        memories: list[Memory] = []
        for (m, typed), n in zip(part, tokens, strict=True):
            mtype = m.type if typed else classify(m.content)
            fp = replace(m.fingerprint, type=mtype.value) if isinstance(m.fingerprint, Fingerprint) else Fingerprint(type=mtype.value)
            memories.append(replace(m, type=mtype, tokens=n, fingerprint=fp, embed_model=model))
        mode = enrich
        if mode == "inline":
            try:
                memories = fingerprint_memories(core, memories)
            except (ImportError, OSError) as exc:  # the spaCy model is missing: save now, enrich later
                log.warning("fingerprints deferred, the spaCy model did not load: %s", exc)
                mode = "defer"
        _ = core.index  # opens Chroma and checks the model before we write
        if vectors is None:
            chunk = core.embedder.embed([m.content for m in memories])
        else:
            chunk = vectors[start : start + CHUNK]
        memories = [replace(m, embed_model=core.embedder.model_hash) for m in memories]
        annotated = _annotate(core, memories, chunk)
        keep = [i for i, (_, dup) in enumerate(annotated) if not (skip_duplicates and dup)]
        stored = [annotated[i][0] for i in keep]
        if stored:
            # The activity day commits on its own after the memories (transaction=False).
            with core.writes(transaction=False) as w:
                with w.store.tx():
                    w.store.insert_memories(stored)
                    # Queued in the same transaction: a memory is never stored without either
                    # its links or its place in the enrichment queue.
                    graph_db.queue(w.store, [m.id for m in stored], core.now())
                w.store.mark_activity(core.now())
                w.upsert(stored, chunk[keep])
            if mode != "defer":
                link_memories(core, stored, report)
        results.extend(_results(annotated, set(keep)))
        if progress:
            progress(len(part))
    return results


def _results(annotated: list[tuple[Memory, str | None]], kept: set[int]) -> list[SaveResult]:
    """A skipped duplicate of a memory that was itself skipped points at what was stored."""
    skipped = {annotated[i][0].id: annotated[i][1] for i in range(len(annotated)) if i not in kept}
    out = []
    for i, (m, dup) in enumerate(annotated):
        seen = 0
        while dup in skipped and seen < len(skipped):
            dup, seen = skipped[dup], seen + 1
        out.append(SaveResult(memory=replace(m, duplicate_of=dup) if dup != m.duplicate_of else m, duplicate_of=dup, created=i in kept))
    return out


def _annotate(core: Core, memories: list[Memory], vectors: np.ndarray) -> list[tuple[Memory, str | None]]:
    """Surprise at write (scoring), where the scoring module is present."""
    from .index.vectors import live_neighbours
    from .scoring.surprise import K, annotate

    return annotate(memories, vectors, live_neighbours(core, vectors, K))
