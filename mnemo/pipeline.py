"""The write path for new memories: classify, count tokens, embed in batches, commit to the
store, then index. Work is done in chunks, each committed before the next starts, so a crash
in a long import keeps every chunk that was acknowledged."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING

from .models import Fingerprint, Memory, SaveResult

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from .engine import Mnemo, Progress
    from .graph.enrich import LinkReport

CHUNK = 256


def write_memories(
    engine: Mnemo,
    drafts: list[tuple[Memory, bool]],
    progress: Progress | None = None,
    enrich: str = "defer",
    skip_duplicates: bool = False,
    report: LinkReport | None = None,
) -> list[SaveResult]:
    """``enrich`` says when the fingerprint and links are made (``graph.enrich``): "inline"
    computes the fingerprint (spaCy) before the write and the links right after (single saves);
    "given" takes the drafts' fingerprints (ingest) and links right after; "defer" queues the
    memories for ``enrich_pending`` (bulk writes, which must not pay for spaCy). With
    ``skip_duplicates`` a near-duplicate flagged by the surprise rule is reported
    (``created=False``) and not stored."""
    from .engine import vector_meta
    from .graph import db as graph_db
    from .graph.enrich import fingerprint_memories, link_memories
    from .nlp.classify import classify
    from .nlp.tokens import count_many

    results: list[SaveResult] = []
    model = engine.store.kv_get("index.model_hash")
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
                memories = fingerprint_memories(engine, memories)
            except (ImportError, OSError) as exc:  # the spaCy model is missing: save now, enrich later
                log.warning("fingerprints deferred, the spaCy model did not load: %s", exc)
                mode = "defer"
        index = engine.index  # opens Chroma and checks the model before we write
        vectors = engine.embedder.embed([m.content for m in memories])
        memories = [replace(m, embed_model=engine.embedder.model_hash) for m in memories]
        annotated = _annotate(engine, memories, vectors)
        keep = [i for i, (_, dup) in enumerate(annotated) if not (skip_duplicates and dup)]
        stored = [annotated[i][0] for i in keep]
        if stored:
            with engine.write_lock, engine.index_write():
                with engine.store.tx():
                    engine.store.insert_memories(stored)
                    # Queued in the same transaction: a memory is never stored without either
                    # its links or its place in the enrichment queue.
                    graph_db.queue(engine.store, [m.id for m in stored], engine.now())
                engine.store.mark_activity(engine.now())
                index.upsert("memories", [m.id for m in stored], vectors[keep], [vector_meta(m) for m in stored])
            if mode != "defer":
                link_memories(engine, stored, report)
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


def _annotate(engine: Mnemo, memories: list[Memory], vectors) -> list[tuple[Memory, str | None]]:  # noqa: ANN001
    """Surprise at write (scoring), where the scoring module is present."""
    from .scoring.surprise import annotate

    return annotate(engine, memories, vectors)
