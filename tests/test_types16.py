"""Sixteenth round (issue #16): the type head's setting is chosen by forward chaining, each fold's
split scored by a head fitted only on the splits written before it (``train_types.forward``), not
by leaving one split out, whose training folds hold later writers."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from mnemo.nlp import type_head

ROOT = Path(__file__).resolve().parent.parent


def _train_types():
    sys.path.insert(0, str(ROOT / "scripts"))
    import train_types

    return train_types


def _examples(train_types, split: str, n: int, flip: bool, rng: np.random.Generator) -> list:
    """``n`` examples whose label is "fact" where the first vector coordinate is positive and
    "decision" otherwise (the other way round with ``flip``)."""
    eye = np.eye(len(type_head.TYPES), dtype=np.float32)
    out = []
    for i in range(n):
        vector = rng.normal(size=6).astype(np.float32)
        label = ("fact", "decision")[int((vector[0] > 0) == flip)]
        blocks = {"rules": eye[4], "parse": np.zeros(len(type_head.PARSE_NAMES), np.float32),
                  "cues": np.zeros(len(type_head.CUE_NAMES), np.float32), "vector": vector}
        out.append(train_types.Example(split, f"{split}-{i // 4}", "t", label, "fact", blocks))
    return train_types.with_context(out)


def _spy_fits(monkeypatch: pytest.MonkeyPatch, train_types) -> list[set[str]]:
    """Wrap ``train_types.fit`` so each call records which splits it was given (the real fit runs)."""
    seen: list[set[str]] = []
    real_fit = train_types.fit

    def spy(examples, *args, **kwargs):
        seen.append({e.split for e in examples})
        return real_fit(examples, *args, **kwargs)

    monkeypatch.setattr(train_types, "fit", spy)
    return seen


def test_forward_chaining_fits_each_fold_only_on_the_splits_written_before_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each fold's head sees no example of its own split nor of a later one: the folds are read
    in ``SPENT``'s order (the order the splits were written), and a later split labelled the other
    way round (a writer with the opposite convention) does not reach an earlier fold's head."""
    train_types = _train_types()
    assert list(train_types.FORWARD) == sorted(train_types.FORWARD, key=train_types.SPENT.index)
    rng = np.random.default_rng(0)
    data = {"test11": _examples(train_types, "test11", 80, False, rng),
            "test12": _examples(train_types, "test12", 40, False, rng),
            "test13": _examples(train_types, "test13", 40, False, rng),
            "test14": _examples(train_types, "test14", 400, True, rng)}
    seen = _spy_fits(monkeypatch, train_types)
    setting = ("rules,parse,cues,neighbours,vector,thread", 1.0, 7.0)
    table = train_types.forward(data, ["test12", "test13", "test14"], [setting])
    assert seen == [{"test11"}, {"test11", "test12"}, {"test11", "test12", "test13"}]
    row = table[setting]
    assert row["test12"] > 0.9 and row["test13"] > 0.9  # the flipped later writer never reached them
    assert row["test14"] < 0.1  # and its own fold is scored by heads that never saw it
    # Leaving one split out, the same earlier folds are fitted with the later writer in.
    seen.clear()
    loso = train_types.loso(data, ["test12", "test13"], [setting])
    assert all("test14" in s for s in seen) and loso[setting]["test12"] < row["test12"]


def test_the_script_chooses_by_forward_chaining_by_default() -> None:
    train_types = _train_types()
    # Twenty-first round: the newest six spent splits (test19 spent since the eighteenth round scored it).
    assert train_types.FORWARD == ("test14", "test15", "test16", "test17", "test18", "test19")
    assert set(train_types.FORWARD) <= set(train_types.FOLDS) <= set(train_types.SPENT)
    assert all(s in train_types.FRESH_RULES for s in train_types.FORWARD)
