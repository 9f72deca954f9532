"""Twentieth round (issue #16): test18 spent and a fifth forward fold; the type head's "habit" and
"faults" blocks (``type_head.habit_features``, ``fault_context``); sample weights and the
bootstrap report of ``scripts/train_types.py``."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from mnemo.models import MemoryType
from mnemo.nlp import type_head
from mnemo.nlp.entities import nlp

ROOT = Path(__file__).resolve().parent.parent


def _train_types():
    sys.path.insert(0, str(ROOT / "scripts"))
    import train_types

    return train_types


def _spans(text: str) -> list:
    return list(nlp()(text).sents)


# Written for this test (none from the labelled splits): a habit said with a frequency phrase the
# rules' list lacks is a habit only with a first-person subject.
HABITS = [
    ("I only ever take the stairs at work.", 1.0),
    ("We sometimes order pizza on Fridays.", 1.0),
    ("I tend to book trains a month ahead.", 1.0),
    ("The fridge beeps every time we open it.", 0.0),  # a thing's behaviour: no habit of the speaker's
    ("I always book the window seat.", 0.0),  # in classify.HABIT: the parse's "frequency" has it already
    ("I booked the trains for March.", 0.0),
]


def test_habit_features_read_a_first_person_habit() -> None:
    for text, want in HABITS:
        assert type_head.habit_features(text, _spans(text)) == [want], text


def test_a_fault_is_stated_by_its_words_or_a_failing_thing() -> None:
    def states(text: str) -> bool:
        spans = _spans(text)
        return type_head.states_fault(type_head.parse_features(text, spans), type_head.cue_features(text, spans),
                                      type_head.agency_features(text, spans))

    assert states("The printer shows error E13 on every job.")
    assert states("The gate sensor keeps dropping out.")
    assert not states("We moved into the new flat in April.")
    assert not states("My brother lives near the station.")


def test_fault_context_reads_the_memories_either_side() -> None:
    faults = [True, False, False, False, False, True]
    got = type_head.fault_context(faults)
    assert got.shape == (6, len(type_head.FAULT_NAMES))
    assert got[1].tolist() == [1.0, pytest.approx(1 / 3), 0.0, 0.0]  # memories 0, 2, 3: one fault
    assert got[2].tolist() == [1.0, 0.25, 0.0, 0.0]  # 0, 1, 3, 4
    assert got[3].tolist() == [1.0, 0.25, 0.0, 0.0]  # 1, 2, 4, 5
    assert got[0].tolist() == [0.0, 0.0, 0.0, 0.0]  # 1, 2: none (itself left out)
    assert type_head.fault_context([True]).tolist() == [[0.0, 0.0, 0.0, 0.0]]  # a memory alone
    # Said of a thing: with a fault near, or with none.
    things = type_head.fault_context(faults, [False, True, False, False, False, False])
    assert things[1].tolist()[2:] == [1.0, 0.0] and things[0].tolist()[2:] == [0.0, 0.0]
    assert type_head.fault_context([False, False], [True, False])[0].tolist() == [0.0, 0.0, 0.0, 1.0]


def test_heads_without_the_new_blocks_read_rows_as_before() -> None:
    """Backward compatible: the habit and faults blocks are in a row only where a head's parts name
    them, each in ``BLOCKS`` order (habit after agency, faults after the neighbours)."""
    text = "I only ever drink tea after dinner."
    spans = _spans(text)
    vector = np.ones(4, np.float32)
    context = (np.zeros(2 * len(type_head.TYPES), np.float32), np.zeros(4, np.float32))
    faults = np.array([1.0, 0.5, 0.0, 0.0], np.float32)
    old = type_head.features(MemoryType.FACT, text, spans, vector, "rules,parse,cues,agency,neighbours,vector,thread", context)
    new = type_head.features(MemoryType.FACT, text, spans, vector, "rules,parse,cues,agency,habit,neighbours,faults,vector,thread",
                             context, faults)
    n = len(type_head.TYPES) + len(type_head.PARSE_NAMES) + len(type_head.CUE_NAMES) + len(type_head.AGENCY_NAMES)
    k = len(type_head.HABIT_NAMES)
    m = 2 * len(type_head.TYPES)
    assert len(new) == len(old) + k + len(type_head.FAULT_NAMES)
    assert np.array_equal(new[:n], old[:n]) and new[n:n + k].tolist() == [1.0]
    assert np.array_equal(new[n + k:n + k + m], old[n:n + m]) and new[n + k + m:n + k + m + 4].tolist() == [1.0, 0.5, 0.0, 0.0]
    assert np.array_equal(new[n + k + m + 4:], old[n + m:])


def test_the_training_script_reads_the_faults_the_runtime_reads() -> None:
    """``with_context`` gives each example the "faults" block ``fault_context`` computes from the
    same columns ``retype`` reads, within its own conversation."""
    train_types = _train_types()
    rng = np.random.default_rng(2)
    eye = np.eye(len(type_head.TYPES), dtype=np.float32)

    def example(conv: str, fault: bool) -> object:
        cues = np.zeros(len(type_head.CUE_NAMES), np.float32)
        cues[type_head.CUE_NAMES.index("fault_word")] = float(fault)
        blocks = {"rules": eye[4], "parse": np.zeros(len(type_head.PARSE_NAMES), np.float32), "cues": cues,
                  "agency": np.zeros(len(type_head.AGENCY_NAMES), np.float32), "habit": np.zeros(1, np.float32),
                  "vector": rng.normal(size=6).astype(np.float32)}
        return train_types.Example("x", conv, "t", "fact", "fact", blocks)

    examples = train_types.with_context([example("a", True), example("a", False), example("b", False), example("a", False)])
    assert examples[1].blocks["faults"].tolist() == [1.0, 0.5, 0.0, 0.0]  # a: the fault before, the plain one after
    assert examples[3].blocks["faults"].tolist() == [1.0, 0.5, 0.0, 0.0]  # a: two before
    assert examples[2].blocks["faults"].tolist() == [0.0, 0.0, 0.0, 0.0]  # b alone: nothing from a
    assert examples[0].blocks["faults"].tolist() == [0.0, 0.0, 0.0, 0.0]


def test_sample_weights_weigh_the_hand_written_splits_and_the_newest_writers() -> None:
    train_types = _train_types()
    blocks = {"rules": np.zeros(5, np.float32)}
    examples = [train_types.Example(s, "c", "t", "fact", "fact", blocks) for s in ("train", "train", "test5", "test17", "test18")]
    assert np.allclose(train_types.sample_weights(examples), 1.0)
    w = train_types.sample_weights(examples, hand=3.0)
    assert np.isclose(w.mean(), 1.0) and np.isclose(w[0], 3 * w[2]) and np.isclose(w[2], w[4])
    w = train_types.sample_weights(examples, decay=0.5)  # four splits: train 3, test5 2, test17 1, test18 0 newer than it
    assert np.isclose(w.mean(), 1.0) and np.allclose(w / w[4], [0.125, 0.125, 0.25, 0.5, 1.0])


def test_the_bootstrap_pools_folds_and_pairs_differences() -> None:
    train_types = _train_types()
    a = {"test17": [("c1", True), ("c1", True), ("c2", False)], "test18": [("c3", True)]}
    b = {"test17": [("c1", True), ("c1", False), ("c2", False)], "test18": [("c3", True)]}
    got = train_types.bootstrap(a)
    assert got["test17"][0] == pytest.approx(2 / 3) and got["test18"][0] == 1.0 and got["pooled"][0] == 0.75
    assert 0.0 <= got["pooled"][1] <= 0.75 <= got["pooled"][2] <= 1.0
    diff = train_types.bootstrap(a, b)
    assert diff["pooled"][0] == 0.25 and diff["test18"] == (0.0, 0.0, 0.0)


def test_test18_is_spent_and_the_fresh_splits_are_refused() -> None:
    """test18 was scored once by the seventeenth round (4a306f3): spent, its rules those of that
    commit, a forward fold; test19 followed (the eighteenth round, d78095e: ``tests/test_types21.py``);
    test20 and test21 followed (spent, in ``SPENT`` since the twenty-third round, not in the
    shipped head's fit); test22 and test23 followed (spent, in ``SPENT`` since the twenty-eighth
    round, in no shipped fit); test24 (this round's validation split) and later are refused."""
    train_types = _train_types()
    assert "test18" in train_types.SPENT and train_types.FRESH_RULES["test18"] == "4a306f3"
    assert train_types.FORWARD[:5] == ("test14", "test15", "test16", "test17", "test18")
    for names in (train_types.SPENT, train_types.FOLDS, train_types.FORWARD, tuple(train_types.FRESH_RULES)):
        assert "test24" not in names and "test25" not in names and "test26" not in names
    for fresh in ("test24", "test23,test24", "train,test24", "test25", "test22,test25", "test26", "test24,test26"):
        with pytest.raises(SystemExit, match="spent"):
            train_types.main(["--splits", fresh])
