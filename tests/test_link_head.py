"""The learned filter over the rules' causal links (mnemo/graph/link_head.py, #16): the training
script refuses the fresh splits; the shipped head loads, drops a link of a kind it learned is
mostly wrong (a step that has nothing to do with the mishap told just before it) and keeps a
clear one (a consequence that points back at its cause); with the hash embedder it keeps every
rule's link. Real spaCy, real MiniLM, real SQLite. Hand-written cases: they prove behaviour;
the leave-one-split-out figures (scripts/train_links.py) measure quality."""

from __future__ import annotations

from pathlib import Path
from unittest import mock

import numpy as np
import pytest

from mnemo.graph import link_head, rules

from .labelled_set import content_links, linked
from .script_module import load_script

ROOT = Path(__file__).resolve().parent.parent

# The rules link the step to the mishap told just before it (the answered path's mishap branch,
# the path the head learned is wrong most often: 119 right of 178 on test5 ... test13); the head
# scores it 0.53 against its threshold 0.56 (a thin margin: a refit may move it; the same kind
# from one speaker scores 0.57, kept).
UNRELATED = [
    ("Ana", "The lift at work broke down again this morning."),
    ("Bo", "I've signed up for a Spanish evening class."),
]
CLEAR = [
    ("Ben", "The train strike is on for Friday."),
    ("Ben", "Because of that, I'm driving to the conference."),
]


def _script():
    return load_script("train_links")


# test17 ... test23 are spent and in ``SPENT`` since the twenty-eighth round (measured by forward
# chaining; the shipped weights stay the 17-split fit); test24 and test25 (scored once, in no fit
# yet) and test26 (fresh) stay refused.
@pytest.mark.parametrize("split", ["test24", "test16,test24", "test23,test24", "test25", "test16,test25", "test24,test25",
                                   "test26", "train,test26", "test16,test26", "test25,test26"])
def test_the_training_script_refuses_the_fresh_splits(split: str) -> None:
    with pytest.raises(SystemExit) as exc:
        _script().main(["--splits", split, "--no-write"])
    assert "only the spent splits" in str(exc.value)


def test_the_shipped_head_loads_with_the_inputs_it_was_fitted_on() -> None:
    head = link_head.load()
    assert head is not None
    assert list(head["names"]) == link_head.feature_names()
    assert "test14" not in set(head["splits"].tolist())
    # The script's default fit is the shipped one, so running it without --splits reproduces it.
    assert tuple(head["splits"].tolist()) == _script().HEAD_SPLITS
    assert 0.0 < float(head["threshold"]) < 1.0


def test_the_head_drops_an_unrelated_step_after_a_mishap_and_keeps_a_pointed_consequence(real_engine) -> None:
    _, unrelated = content_links(real_engine, UNRELATED, session="lift")
    _, clear = content_links(real_engine, CLEAR, session="strike")
    assert linked(clear, "train strike", "driving to the conference")
    assert not linked(unrelated, "lift at work broke down", "Spanish evening class")


def test_without_the_head_the_rules_link_the_unrelated_step(real_engine) -> None:
    # The same conversation with no weights: the rules' own link is there, so the test above
    # shows the head at work, not a rule.
    with mock.patch.object(link_head, "HEAD_PATH", ROOT / "no-such-head.npz"):
        link_head._loaded.pop(ROOT / "no-such-head.npz", None)
        _, pairs = content_links(real_engine, UNRELATED, session="lift")
    assert linked(pairs, "lift at work broke down", "Spanish evening class")


def test_with_the_hash_embedder_every_rule_link_is_kept(engine) -> None:
    # No semantic embedder, no cosines to read: the rules' links stand as they are.
    _, pairs = content_links(engine, UNRELATED, session="lift")
    assert linked(pairs, "lift at work broke down", "Spanish evening class")


def test_the_head_reads_the_path_rules_hand_out() -> None:
    # ``rules.propose`` names the path of each causal link in ``paths`` (what ``plan_links``
    # passes to the head), the same paths ``rules.TRACE`` records.
    from mnemo.models import MemoryType

    from .test_causal_paths import FACT, _conversation

    mems = _conversation([("Ben", 0, CLEAR[0][1], FACT), ("Ben", 1, CLEAR[1][1], MemoryType.DECISION)])
    paths: dict[tuple[str, str], str] = {}
    links = rules.propose(mems[1], mems[:1], 0.0, None, paths)
    assert [(ln.src, ln.dst) for ln in links if ln.rel in rules.CAUSAL_RELS] == list(paths)
    assert paths == {(mems[0].id, mems[1].id): "cue-anaphor"}
    x = link_head.features(mems[0], mems[1], "cue-anaphor", mems[1], mems[:1], lambda a, b: 0.5)
    assert x.shape == (len(link_head.feature_names()),) and np.isfinite(x).all()


def test_the_score_is_a_probability_however_far_off_the_inputs_lie() -> None:
    """An input far outside the training range (a huge gap, a huge length) gives 0 or 1, not an
    overflow in the middle of an ingest."""
    head = link_head.load()
    assert head is not None
    for sign in (1.0, -1.0):
        x = np.asarray(head["mean"], dtype=np.float64) + sign * 1e6 * np.sign(np.asarray(head["w"], dtype=np.float64))
        p = link_head.score(head, x)
        assert 0.0 <= p <= 1.0 and (p > 0.99 if sign > 0 else p < 0.01)
