"""``scripts/diagnose_links.py``: refuses fresh splits before reading anything; classes and
figures of hand-built links (no model is fitted, nothing ingested)."""

from __future__ import annotations

from unittest import mock

import pytest

from scripts import diagnose_links
from tests.labelled_set import parse

CONV = parse("""\
=== c1 ops
Ana: The nightly backup failed again. [debug_log] #a
Ben: The disk on db-1 was full. [debug_log] #b
Ana: So we added disk usage alerts on db-1. [decision] #c <b
Ben: Great, thanks! [chatter] #d
+ The restore test is scheduled for Friday. [fact] #e
Ana: We moved the backup window to 3am. [decision] #f <e
""")[0]


def _mem(i: int, unit, content: str | None = None) -> dict:
    return {"id": f"m{i}", "turn": unit.turn, "content": content or unit.text, "type": unit.type}


def _mems() -> list[dict]:
    return [_mem(i, u) for i, u in enumerate(CONV.units)]


@pytest.mark.parametrize("splits", ["test26", "test19,test26", "test21,test24,test26", "test25,test26", "test24,test26", ""])
def test_a_fresh_split_is_refused_before_anything_is_read(splits: str, capsys: pytest.CaptureFixture[str]) -> None:
    boom = mock.Mock(side_effect=AssertionError("read"))
    with (mock.patch.object(diagnose_links, "features", boom), mock.patch.object(diagnose_links, "run_split", boom),
          mock.patch("tests.labelled_set.load", boom), mock.patch.object(diagnose_links.train_types, "load_cached", boom),
          pytest.raises(SystemExit) as exc):
        diagnose_links.main(["--splits", splits, "--json"])
    assert exc.value.code == 2
    assert "spent" in capsys.readouterr().err
    boom.assert_not_called()


def test_spent_splits_pass_and_folds_fit_on_the_earlier_spent_splits() -> None:
    assert diagnose_links.fit_on("test14")[-1] == "test13"
    assert "test14" not in diagnose_links.fit_on("test14")
    # test20 / test21 are in train_types.SPENT since the twenty-third round: test21's fold fits on
    # train ... test20.
    assert diagnose_links.fit_on("test21")[-1] == "test20"
    assert all(s in diagnose_links.train_types.SPENT for s in diagnose_links.fit_on("test21"))
    assert list(diagnose_links.train_types.FORWARD) == ["test14", "test15", "test16", "test17", "test18", "test19"]


def test_links_are_classed() -> None:
    links = [("m1", "m2", "because"),     # b -> c: gold
             ("m0", "m2", "because"),     # a -> c: a true decision, not its cause
             ("m2", "m4", "triggered"),   # c -> e: e is a fact
             ("m2", "m1", "because")]     # b, c again (either way round): counted once
    recs = diagnose_links.link_records(CONV, _mems(), links, {("m0", "m2"): "reason-before"}, {"m2": 0.9})
    assert [(r["right"], r["category"]) for r in recs] == [(True, None), (False, "wrong cause"), (False, "mistyped effect")]
    assert recs[1]["path"] == "reason-before" and recs[1]["effect_decision_p"] == 0.9
    assert recs[2]["effect_decision_p"] is None


def test_a_cause_memory_holding_a_chatter_unit_is_a_merged_cause() -> None:
    # One memory holds the whole of turn 3 (chatter d and fact e); unit_of maps it to d, the first of the tie.
    mems = _mems()
    mems[3] = _mem(3, CONV.units[3], "Great, thanks! The restore test is scheduled for Friday.")
    del mems[4]
    recs = diagnose_links.link_records(CONV, mems, [("m3", "m5", "because")], {}, {})
    assert recs[0]["cause_unit"] == "Great, thanks!"
    assert (recs[0]["right"], recs[0]["category"]) == (False, "merged cause")
    assert diagnose_links.merged(CONV, 3, mems[3]["content"])
    assert not diagnose_links.merged(CONV, 3, "The restore test is scheduled for Friday.")


def test_category_order() -> None:
    assert diagnose_links.category("fact", True) == "mistyped effect"
    assert diagnose_links.category("decision", True) == "merged cause"
    assert diagnose_links.category("decision", False) == "wrong cause"


def test_f05_and_summary_arithmetic() -> None:
    assert diagnose_links.f_beta(0.0, 0.0) == 0.0
    assert diagnose_links.f_beta(0.5, 0.5) == pytest.approx(0.5)
    assert diagnose_links.f_beta(0.8, 0.2) == pytest.approx(1.25 * 0.8 * 0.2 / (0.25 * 0.8 + 0.2))  # 0.5
    recs = [{"right": True, "category": None, "path": "p"}] * 3 + [
        {"right": False, "category": "wrong cause", "path": "p"},
        {"right": False, "category": "mistyped effect", "path": "q"}]
    s = diagnose_links.summary(recs, gold=10, found=3)
    assert (s["made"], s["right"], s["wrong"], s["precision"], s["recall"]) == (5, 3, 2, 0.6, 0.3)
    assert s["f05"] == round(1.25 * 0.6 * 0.3 / (0.25 * 0.6 + 0.3), 4)
    assert s["categories"] == {"mistyped effect": 1, "merged cause": 0, "wrong cause": 1}
    assert s["by_path"] == {"mistyped effect [q]": 1, "wrong cause [p]": 1}
    assert diagnose_links.summary([], gold=0, found=0)["f05"] == 0.0
