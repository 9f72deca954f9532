"""``scripts/diagnose_misses.py`` puts each missed gold causal link in one class, and reads spent splits only."""

from __future__ import annotations

import pytest

from scripts import diagnose_misses
from tests.labelled_set import parse

CONV = parse("""\
=== c1 ops
Ana: The nightly backup failed again. [debug_log] #a
Ben: The disk on db-1 was full. [debug_log] #b
Ana: So we added disk usage alerts on db-1. [decision] #c <a <b
Ben: The printer jammed twice. [fact] #d
Ana: We moved the printer upstairs. [decision] #e <d
""")[0]


def _mems(types: dict[int, str] | None = None, drop: tuple[int, ...] = ()) -> list[dict]:
    types = types or {}
    return [{"id": f"m{i}", "turn": u.turn, "content": u.text, "type": types.get(i, u.type)}
            for i, u in enumerate(CONV.units) if i not in drop]


def _classes(rows: list[dict]) -> list[tuple[str, str, str]]:
    return [(r["cause"].split()[1], r["effect"].split()[1], r["class"]) for r in rows]


def test_a_made_link_is_not_listed_and_a_second_gold_cause_is_named() -> None:
    rows = diagnose_misses.classify(CONV, _mems(), [("m0", "m2", "because"), ("m4", "m3", "because")], {})
    # b -> c is missed while c has its other gold cause; d -> e was made (read either way round).
    assert _classes(rows) == [("disk", "we", "other-gold-cause")]


def test_an_end_not_stored_and_an_effect_typed_otherwise() -> None:
    rows = diagnose_misses.classify(CONV, _mems(types={4: "fact"}, drop=(1,)), [], {})
    assert _classes(rows) == [("nightly", "we", "nothing-proposed"), ("disk", "we", "not-stored/cause"),
                              ("printer", "moved", "effect-not-decision")]
    assert rows[2]["detail"] == "fact"


def test_a_proposal_the_head_dropped_and_a_wrong_cause() -> None:
    rows = diagnose_misses.classify(CONV, _mems(), [("m3", "m2", "because")], {("m1", "m2"): 0.41, ("m3", "m2"): 0.9})
    assert _classes(rows)[:2] == [("nightly", "we", "other-cause"), ("disk", "we", "head-dropped")]
    assert rows[1]["detail"] == "0.41"
    # A non-causal relation is not a causal link made.
    rows = diagnose_misses.classify(CONV, _mems(), [("m3", "m4", "related")], {})
    assert ("printer", "moved", "nothing-proposed") in _classes(rows)


MERGED = parse("""\
=== c2 ops
Ana: The nightly backup failed on db-1. [debug_log] #a
+ So we added disk usage alerts. [decision] #b <a
Ben: Fine by me. [chatter]
""")[0]


def test_an_end_not_stored_is_told_merged_or_dropped() -> None:
    # The decision said in one memory with its cause: merged; with nothing stored: both dropped.
    joined = [{"id": "m0", "turn": 0, "content": "The nightly backup failed on db-1. So we added disk usage alerts.",
               "type": "debug_log"}]
    rows = diagnose_misses.classify(MERGED, joined, [], {})
    assert [(r["class"], r["detail"]) for r in rows] == [("not-stored/effect", "merged")]
    rows = diagnose_misses.classify(MERGED, [], [], {})
    assert [(r["class"], r["detail"]) for r in rows] == [("not-stored/both", "dropped + dropped")]


def test_one_cause_per_decision_ceiling() -> None:
    assert diagnose_misses.one_cause_ceiling(CONV) == 2  # three gold links into two decisions


@pytest.mark.parametrize("split", ["test26", "test18,test26", "train,test26", "test24,test26", "test25,test26"])
def test_a_fresh_split_is_refused(split: str) -> None:
    with pytest.raises(SystemExit) as exc:
        diagnose_misses.main([split])
    assert "spent" in str(exc.value)
