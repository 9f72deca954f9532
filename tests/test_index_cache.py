"""Stored vectors read by id are kept between reads (``index.chroma.VECTOR_CACHE``), and a read
always gives what Chroma holds: after a vector is rewritten, deleted, or its collection dropped,
on real Chroma."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mnemo.index import chroma
from mnemo.index.chroma import VectorIndex


def _unit(rng: np.random.Generator, n: int) -> np.ndarray:
    v = rng.standard_normal((n, 384)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _chroma_holds(index: VectorIndex, ids: list[str]) -> dict[str, np.ndarray]:
    """What Chroma itself answers, past the cache."""
    res = index.collection("memories").get(ids=ids, include=["embeddings"])
    return {i: np.asarray(v, dtype=np.float32) for i, v in zip(res["ids"], res["embeddings"], strict=True)}


def _same(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[i], b[i]) for i in a)


def test_a_read_gives_what_chroma_holds_after_every_kind_of_write(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    index = VectorIndex(path=tmp_path / "chroma")
    try:
        ids = [f"m{i}" for i in range(6)]
        index.upsert("memories", ids, _unit(rng, 6))
        first = index.get_vectors("memories", ids)
        assert _same(first, _chroma_holds(index, ids))
        assert set(index._vectors["memories"]) == set(ids)  # kept for the next read

        index.upsert("memories", ["m1", "m2"], _unit(rng, 2))  # rewritten (an edit, a re-embedding)
        index.delete("memories", ["m3"])
        again = index.get_vectors("memories", [*ids, "nobody"])
        assert _same(again, _chroma_holds(index, [*ids, "nobody"]))
        assert "m3" not in again and "nobody" not in again
        assert not np.array_equal(again["m1"], first["m1"]) and np.array_equal(again["m0"], first["m0"])

        again["m0"] *= 0.0  # a caller's copy is its own
        assert np.array_equal(index.get_vectors("memories", ["m0"])["m0"], first["m0"])

        index.drop("memories")
        index.upsert("memories", ["m0"], _unit(rng, 1))
        assert _same(index.get_vectors("memories", ids), _chroma_holds(index, ids))
    finally:
        index.close()


def test_the_cache_keeps_the_most_recently_read_and_big_reads_pass_it_by(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(chroma, "VECTOR_CACHE", 4)
    monkeypatch.setattr(chroma, "CACHED_READ", 5)
    rng = np.random.default_rng(4)
    index = VectorIndex(path=tmp_path / "chroma")
    try:
        ids = [f"m{i}" for i in range(8)]
        index.upsert("memories", ids, _unit(rng, 8))
        index.get_vectors("memories", ids[:3])
        index.get_vectors("memories", ["m0", "m3", "m4"])  # m0 read again: m1 and m2 are the oldest
        assert list(index._vectors["memories"]) == ["m2", "m0", "m3", "m4"]
        assert _same(index.get_vectors("memories", ids), _chroma_holds(index, ids))  # 8 > 5: not cached
        assert list(index._vectors["memories"]) == ["m2", "m0", "m3", "m4"]
    finally:
        index.close()


def test_recall_ranks_alike_with_the_cache_warm_or_cold_across_edits_and_forgetting(engine) -> None:
    """Recall reads the vectors of its head for near-duplicates and diversity: with the cache
    warm from earlier queries it ranks exactly as with the cache emptied before every query,
    also after memories were edited (new vectors) or forgotten."""
    import random

    rng = random.Random(5)
    words = ["amber", "basalt", "cedar", "delta", "ember", "fjord", "garnet", "harbor", "indigo", "juniper", "kelp", "lagoon"]
    saved = engine.save_many([{"content": f"{' '.join(rng.sample(words, 3))} item {i}"} for i in range(150)]
                             + [{"content": "amber basalt cedar item 1000"}, {"content": "amber basalt cedar item 1000."}])
    queries = [" ".join(rng.sample(words, 2)) for _ in range(25)]

    def ranked(cold: bool) -> list[list[tuple[str, float]]]:
        out = []
        for q in queries:
            if cold:
                engine.core.index._vectors.clear()
            out.append([(h.id, h.score) for h in engine.recall(q, k=10, touch=False)])
        return out

    assert ranked(cold=False) == ranked(cold=True)
    assert len(engine.core.index._vectors["memories"]) > 10
    for r in saved[:40:3]:
        engine.edit(r.id, content=f"{' '.join(rng.sample(words, 3))} edited {r.id[:6]}")
    for r in saved[1:40:7]:
        engine.forget(r.id)
    warm = ranked(cold=False)
    assert warm == ranked(cold=True)
    assert all(len(r) == 10 for r in warm)
