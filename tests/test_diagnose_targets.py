"""``scripts/diagnose_targets.py`` puts each wrong causal link in one class, and reads spent splits only."""

from __future__ import annotations

import pytest

from scripts import diagnose_targets
from tests.labelled_set import parse

CONV = parse("""\
=== c1 ops
Ana: The nightly backup failed again. [debug_log] #a
Ben: The disk on db-1 was full. [debug_log] #b
Ana: So we added disk usage alerts on db-1. [decision] #c <b
Ben: Nice weekend everyone. [chatter] #d
Ana: I renamed the wiki page. [decision] #e
+ The office plants were watered. [fact] #f
""")[0]


def _mem(i: int, unit) -> dict:
    return {"id": f"m{i}", "turn": unit.turn, "content": unit.text}


@pytest.mark.parametrize(("cause", "effect", "kind"), [
    (0, 2, "wrong-target/stored"),   # the decision's gold cause (b) is stored; a was chosen
    (3, 4, "chatter-end"),
    (5, 1, "no-gold-decision"),
    (5, 4, "no-gold-cause"),         # a decision with no stated reason
])
def test_each_wrong_link_gets_its_class(cause: int, effect: int, kind: str) -> None:
    mems = [_mem(i, u) for i, u in enumerate(CONV.units)]
    rows = diagnose_targets.classify(CONV, mems, [(f"m{cause}", f"m{effect}", "because")], {})
    assert [r["class"] for r in rows] == [kind]


def test_a_right_link_is_not_listed() -> None:
    mems = [_mem(i, u) for i, u in enumerate(CONV.units)]
    assert diagnose_targets.classify(CONV, mems, [("m1", "m2", "because")], {}) == []
    # The same pair read the other way round is the same link to the scorer.
    assert diagnose_targets.classify(CONV, mems, [("m2", "m1", "because")], {}) == []


@pytest.mark.parametrize("split", ["test26", "test24,test26", "test19,test26", "test25,test26"])
def test_a_fresh_split_is_refused(split: str) -> None:
    with pytest.raises(SystemExit) as exc:
        diagnose_targets.main([split])
    assert "spent" in str(exc.value)
