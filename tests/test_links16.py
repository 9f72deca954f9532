"""The sixteenth round's pair-scorer measurement (scripts/train_pairs.py) refuses the fresh
splits as the link filter's training script does, and both now take test15, spent this round (test16 since the sixteenth round scored test17).
Its quality is in the script's docstring (forward chaining, measured, not shipped)."""

from __future__ import annotations

import pytest

from .script_module import load_script


def _script(name: str):
    return load_script(name)


@pytest.mark.parametrize("split", ["test17", "test18", "train,test17", "test16,test17"])
def test_the_pair_script_refuses_the_fresh_splits(split: str) -> None:
    with pytest.raises(SystemExit) as exc:
        _script("train_pairs").main(["--splits", split])
    assert "only the spent splits" in str(exc.value)


@pytest.mark.parametrize("name", ["train_pairs", "train_links"])
def test_test15_is_spent(name: str) -> None:
    # Since the sixteenth round test16 is spent too (tests/test_links17.py); train_links has
    # test17 ... test23 since the twenty-eighth round, never the validation or fresh splits.
    module = _script(name)
    assert "test15" in module.SPENT and "test15" in module.FOLDS
    assert not ({"test17", "test18"} if name == "train_pairs" else {"test24", "test25", "test26"}) & set(module.SPENT)


def test_the_connectives_are_read_as_words_not_substrings() -> None:
    pairs = _script("train_pairs")
    assert pairs._has("So we move the main stage to the barns.", pairs.RESULT, start=True)
    assert not pairs._has("Also the sofa arrived torn.", pairs.RESULT, start=True)  # "so" inside "also"
    assert pairs._has("The ferry is cancelled owing to the storm.", pairs.REASON)
    assert not pairs._has("The reasonable choice.", pairs.REASON)
