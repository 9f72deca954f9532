"""The write path for new memories: classify, count tokens, embed in batches, commit to the
store, then index. Work is done in chunks, each committed before the next starts, so a crash
in a long import keeps every chunk that was acknowledged."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from .models import Fingerprint, Memory, SaveResult

if TYPE_CHECKING:
    from .engine import Mnemo, Progress

CHUNK = 256


def write_memories(engine: Mnemo, drafts: list[tuple[Memory, bool]], progress: Progress | None = None) -> list[SaveResult]:
    from .engine import vector_meta
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
        index = engine.index  # opens Chroma and checks the model before we write
        vectors = engine.embedder.embed([m.content for m in memories])
        memories = [replace(m, embed_model=engine.embedder.model_hash) for m in memories]
        annotated = _annotate(engine, memories, vectors)
        with engine.write_lock, engine.index_write():
            engine.store.insert_memories([m for m, _ in annotated])
            engine.store.mark_activity(engine.now())
            index.upsert("memories", [m.id for m, _ in annotated], vectors, [vector_meta(m) for m, _ in annotated])
        results.extend(SaveResult(memory=m, duplicate_of=dup) for m, dup in annotated)
        if progress:
            progress(len(part))
    return results


def _annotate(engine: Mnemo, memories: list[Memory], vectors) -> list[tuple[Memory, str | None]]:  # noqa: ANN001
    """Surprise at write (scoring), where the scoring module is present."""
    from .scoring.surprise import annotate

    return annotate(engine, memories, vectors)
