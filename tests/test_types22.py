"""The "knn" block of the type head (twenty-second round, ``type_head.knn_features``): measured by
forward chaining, not in the shipped head's parts (see ``type_head.KNN_K``). Hand-written vectors:
these prove what the block computes, not its quality."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mnemo.nlp import type_head

from .script_module import load_script


def _train_types():
    return load_script("train_types", "train_types22")


def _unit(*xs: float) -> np.ndarray:
    v = np.array(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_the_block_is_the_share_of_each_type_among_the_nearest_labelled_examples() -> None:
    pool = np.stack([_unit(1, 0, 0), _unit(0.9, 0.1, 0), _unit(0, 1, 0), _unit(0, 0, 1)])
    labels = np.array([type_head.CLASSES.index(t) for t in ("decision", "decision", "fact", "debug_log")])
    got = type_head.knn_features(np.stack([_unit(1, 0.05, 0), _unit(0, 0.2, 1)]), pool, labels, k=2)
    assert got.shape == (2, len(type_head.CLASSES))
    assert np.allclose(got.sum(axis=1), 1.0)
    assert got[0, type_head.CLASSES.index("decision")] == 1.0  # both nearest are decisions
    assert got[1, type_head.CLASSES.index("debug_log")] == 0.5 and got[1, type_head.CLASSES.index("fact")] == 0.5
    # A pair left out (a training row's own split) is never a neighbour.
    same = np.array([[True, True, False, False], [False, False, False, False]])
    left = type_head.knn_features(np.stack([_unit(1, 0.05, 0), _unit(0, 0.2, 1)]), pool, labels, k=2, same=same)
    assert left[0, type_head.CLASSES.index("decision")] == 0.0


def test_the_stored_pool_keeps_the_cosine_geometry() -> None:
    rng = np.random.default_rng(0)
    v = rng.normal(size=(50, 384)).astype(np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    q, scale = type_head.quantise(v)
    assert q.dtype == np.int8
    back = type_head.dequantise(q, scale)
    assert np.min(np.sum(back * v, axis=1)) > 0.999


def test_a_fit_reads_each_training_row_without_its_own_split(tmp_path: Path) -> None:
    tt = _train_types()
    blocks = {"vector": _unit(1, 0, 0), "thread": np.zeros(3, np.float32)}
    examples = [tt.Example("a", "c1", "x", "decision", "fact", dict(blocks)),
                tt.Example("a", "c2", "y", "decision", "fact", dict(blocks)),
                tt.Example("b", "c3", "z", "fact", "fact", {"vector": _unit(0.9, 0.1, 0), "thread": np.zeros(3, np.float32)})]
    pool = tt.knn_pool(examples)
    tt.set_knn(examples, pool, splits=np.array([e.split for e in examples]))
    fact, decision = type_head.CLASSES.index("fact"), type_head.CLASSES.index("decision")
    assert examples[0].blocks["knn"][fact] == 1.0  # split "a"'s rows see only split "b"
    assert examples[2].blocks["knn"][decision] == 1.0
