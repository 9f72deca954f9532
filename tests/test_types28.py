"""Twenty-eighth round (issue #16): test22 and test23 spent in ``train_types`` (their rules those of
the commits that scored them once), and the learning curve behind forward chaining
(``train_types.curve``): each later writer scored by heads fitted on ever more of the earlier ones."""

from __future__ import annotations

import numpy as np
import pytest

from .test_types16 import _examples, _spy_fits, _train_types


def test_the_curve_fits_each_cutoff_on_the_splits_up_to_it_and_scores_only_later_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each cutoff's head is fitted on the splits written up to and including it (``SPENT``'s
    order), never on a target; a target written at or before the cutoff is not scored by it; and
    a later writer's opposite convention, added at a later cutoff, moves the figure on the
    targets after it (what the curve is for)."""
    train_types = _train_types()
    rng = np.random.default_rng(0)
    # test20's writer has one convention, the three after it the other (and outnumber it).
    writers = (("test20", 60, False), ("test21", 400, True), ("test22", 200, True), ("test23", 200, True))
    data = {split: _examples(train_types, split, n, flip, rng) for split, n, flip in writers}
    seen = _spy_fits(monkeypatch, train_types)
    setting = ("rules,parse,cues,neighbours,vector,thread", 1.0, 7.0)
    table = train_types.curve(data, ["test21", "test22", "test23"], ["test20", "test21", "test22"], setting)
    assert seen == [{"test20"}, {"test20", "test21"}, {"test20", "test21", "test22"}]
    assert list(table) == ["test20", "test21", "test22"]
    assert list(table["test20"]) == ["test21", "test22", "test23"]
    assert list(table["test21"]) == ["test22", "test23"] and list(table["test22"]) == ["test23"]

    def acc(cut: str, target: str) -> float:
        return float(np.mean([ok for _, ok in table[cut][target]]))

    # Only test20's convention at the first cutoff: the flipped writers after it are all wrong;
    # with test21 in the fit, its convention outweighs test20's and test22 / test23 come right.
    assert acc("test20", "test22") < 0.2 and acc("test20", "test23") < 0.2
    assert acc("test21", "test22") > 0.8 and acc("test21", "test23") > 0.8
    # Outcomes name each example's conversation, for the paired bootstrap over conversations.
    assert {c for c, _ in table["test22"]["test23"]} == {f"test23/test23-{i}" for i in range(50)}


def test_the_curve_is_printed_per_cutoff_and_pooled_over_the_targets_every_cutoff_scores(capsys: pytest.CaptureFixture[str]) -> None:
    """``print_curve``: a line per cutoff with its training examples and each target's accuracy,
    then the targets every cutoff scores pooled, the last cutoff against the first (paired)."""
    train_types = _train_types()
    data = {s: [train_types.Example(s, "c", "t", "fact", "fact", {})] * n for s, n in (("test20", 3), ("test21", 5), ("test22", 4))}
    right, wrong = ("test22/a", True), ("test22/b", False)
    table = {"test20": {"test21": [("test21/a", True)], "test22": [right, wrong, wrong, wrong]},
             "test21": {"test22": [right, right, right, wrong]}}
    train_types.print_curve(table, data)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["train", "...", "test20", "(3", "examples):", "test21", "1.0000;", "test22", "0.2500"]
    assert lines[1].split() == ["train", "...", "test21", "(8", "examples):", "test22", "0.7500"]
    assert lines[2].startswith("  test22 pooled: test20 0.2500; test21 0.7500; test21 against test20 +0.5000")


def test_test22_and_test23_are_spent_with_the_rules_that_scored_them() -> None:
    """test22 was scored once at the freeze of 59269a6 and test23 at 2035c26: spent, each with
    those rules as its rules' input, in ``SPENT``'s written order, but not in the shipped head's fit
    (``HEAD_SPLITS``); test24 (this round's validation split) and later are refused."""
    train_types = _train_types()
    assert train_types.SPENT.index("test22") == train_types.SPENT.index("test21") + 1
    assert train_types.SPENT.index("test23") == train_types.SPENT.index("test22") + 1
    assert train_types.FRESH_RULES["test22"] == "59269a6" and train_types.FRESH_RULES["test23"] == "2035c26"
    assert not {"test20", "test21", "test22", "test23"} & set(train_types.HEAD_SPLITS)
    for refused in ("test24", "test22,test24", "test25", "test26"):
        with pytest.raises(SystemExit, match="spent"):
            train_types.main(["--splits", refused])
