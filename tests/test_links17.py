"""The sixteenth round's link measurement: test16 is spent (the link filter's and the pair
scorer's training scripts take it, and the cross-fitted measurement reads it as one of its two
fresh splits), test17 and test18 are refused; the weighted fit the measurement refits the filter
with is the filter's own fit when every weight is 1, and a weight of k counts a row k times.
Quality is in scripts/measure_links17.py's docstring (measured, nothing shipped)."""

from __future__ import annotations

import numpy as np
import pytest

from .script_module import load_script


def _script(name: str):
    return load_script(name)


@pytest.mark.parametrize("name", ["train_links", "train_pairs"])
def test_test16_is_spent_and_a_fold_and_test17_is_not(name: str) -> None:
    # train_links has test17 ... test23 since the twenty-eighth round (forward-chained there).
    module = _script(name)
    assert "test16" in module.SPENT and "test16" in module.FOLDS
    assert not ({"test17", "test18"} if name == "train_pairs" else {"test24", "test25", "test26"}) & set(module.SPENT)


@pytest.mark.parametrize("split", ["test24", "test25", "test16,test24", "test16,test25"])
def test_the_link_script_refuses_the_validation_and_fresh_splits_beside_test16(split: str) -> None:
    with pytest.raises(SystemExit) as exc:
        _script("train_links").main(["--splits", split, "--no-write"])
    assert "only the spent splits" in str(exc.value)


def test_the_measurement_reads_only_spent_splits() -> None:
    measure = _script("measure_links17")
    spent = set(_script("train_links").SPENT)
    assert set(measure.FRESH) == {"test15", "test16"} <= spent
    assert set(measure.SHIPPED_ON) <= spent and not set(measure.FRESH) & set(measure.SHIPPED_ON)


def test_the_weighted_fit_is_the_filters_fit_and_a_weight_counts_a_row_that_many_times() -> None:
    measure, links = _script("measure_links17"), _script("train_links")
    rng = np.random.default_rng(0)
    x = np.hstack([rng.normal(size=(80, 3)), (rng.random((80, 2)) < 0.4).astype(float)])
    y = (x[:, 0] + x[:, 3] + rng.normal(scale=0.8, size=80) > 0).astype(float)
    plain, ones = links.fit(x, y, 1.0), measure.fit_weighted(x, y, np.ones(80), 1.0)
    for k in ("mean", "scale", "w", "b"):
        assert np.allclose(plain[k], ones[k], atol=1e-6)
    wt = np.where(np.arange(80) < 10, 3.0, 1.0)
    dup = np.vstack([x, x[:10], x[:10]]), np.concatenate([y, y[:10], y[:10]])
    heavy, twice = measure.fit_weighted(x, y, wt, 1.0), links.fit(*dup, 1.0)
    assert np.allclose(links.predict(heavy, x), links.predict(twice, x), atol=1e-6)
