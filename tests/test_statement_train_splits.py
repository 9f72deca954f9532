"""``scripts/train_statement.py --splits`` trains on the spent splits named, and refuses a fresh
held-out one before reading anything (the house rule: a fresh split is scored, never trained on)."""

from __future__ import annotations

import pytest

from scripts import train_statement


@pytest.mark.parametrize("fresh", ["test16", "test17", "test18", "test19", "test20", "test21", "test22", "test23", "test24", "test25", "test26"])
def test_a_fresh_split_is_refused(fresh: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        train_statement.main(["--check", "--splits", f"train,{fresh}"])
    assert exc.value.code == 2
    assert fresh in capsys.readouterr().err
    assert fresh not in train_statement.SPLITS


def test_the_shipped_fit_names_no_fresh_split() -> None:
    """The head shipped in mnemo/nlp/heads/ records the splits it was fitted on: none is fresh."""
    import json

    from mnemo.nlp.statement_head import HEAD

    trained = set(json.loads(HEAD.read_text(encoding="utf-8"))["splits"])
    assert trained and trained.isdisjoint(train_statement.FRESH)
