"""Reference values from the seeds, as exact tests, and the shape of each formula."""

from __future__ import annotations

import math

import pytest

from mnemo.clock import DAY
from mnemo.scoring import decay as dk
from mnemo.scoring.actr import base_level_activation, recall_probability
from mnemo.scoring.importance import (
    effective_access,
    expiration_trailoff,
    hub_score,
    importance_factors,
    newness_boost,
    recency_boost,
    temporal_multiplier,
    value_score,
)
from mnemo.scoring.layers import next_layer, promoted_layer
from mnemo.scoring.retention import (
    RetentionParams,
    access_reinforcement,
    amplitude,
    retention,
    retention_factors,
)
from mnemo.scoring.review_priority import review_priority

# -- Must show 2: the seeds' reference values --------------------------------------------------

def test_effective_access_ten_uses_idle_twenty_activity_days_is_3_58() -> None:
    assert round(effective_access(10, 20), 2) == 3.58


def test_lambda_for_a_three_day_half_life() -> None:
    lam = dk.decay_constant(3 * DAY)
    # Mnemex prints λ ≈ 2.673e-6 (it truncates ln2/259200 = 2.6742e-6).
    assert lam == pytest.approx(2.673e-6, rel=1e-3)
    assert lam == pytest.approx(math.log(2) / 259200, rel=1e-12)
    assert math.exp(-lam * 3 * DAY) == pytest.approx(0.5, abs=1e-12)


@pytest.mark.parametrize("mode", ["l2", "huber"])
@pytest.mark.parametrize("model", dk.MODELS)
def test_retention_halves_over_one_half_life(mode: str, model: str) -> None:
    params = RetentionParams(half_life_days=3.0, decay_model=model, retention_mode=mode)
    common = dict(use_count=3, strength=1.2, age_days=10, age_calendar_days=10, layer="episodic", params=params)
    fresh = retention(idle_days=0, **common)
    assert retention(idle_days=3, **common) == pytest.approx(fresh / 2, rel=1e-12)
    # …and under the configured half-life, whatever it is.
    params6 = RetentionParams(half_life_days=6.0, decay_model=model, retention_mode=mode)
    common6 = {**common, "params": params6}
    assert retention(idle_days=6, **common6) == pytest.approx(retention(idle_days=0, **common6) / 2, rel=1e-12)


def test_danger_zone_priority_reference_points() -> None:
    assert review_priority(0.25) == 1.0
    assert review_priority(0.10) == 0.0
    assert review_priority(0.40) == 0.0
    assert review_priority(0.15) == 0.0 and review_priority(0.35) == pytest.approx(0.0, abs=1e-12)
    assert review_priority(0.20) == pytest.approx(0.75)


# -- decay models: three different curves ---------------------------------------------------------

def test_the_three_models_differ_and_meet_at_the_half_life() -> None:
    h = 3.0
    at = {m: [dk.decay_model(t, h, m) for t in (0.5, 1.5, 3.0, 6.0, 30.0, 300.0)] for m in dk.MODELS}
    for m in dk.MODELS:
        assert at[m][2] == pytest.approx(0.5, abs=1e-12)
    exp_, pl, two = at["exponential"], at["power_law"], at["two_component"]
    # Before the half-life both convex curves lie below the exponential, after it above.
    assert pl[0] < exp_[0] and two[0] < exp_[0]
    assert pl[3] > exp_[3] and two[3] > exp_[3]
    # Far out, power law > two-component > exponential (a power beats an exponential).
    assert pl[5] > two[5] > exp_[5]
    assert exp_[5] == pytest.approx(2.0 ** -100)
    # The anchor's bug (every model exponential) would make these equal.
    assert len({round(x, 6) for x in (exp_[4], pl[4], two[4])}) == 3


def test_power_law_and_two_component_closed_forms() -> None:
    h = 3.0
    tau = h / (2 ** (1 / 1.1) - 1)
    assert dk.decay_model(12.0, h, "power_law") == pytest.approx((1 + 12.0 / tau) ** -1.1)
    slow = dk._two_component_slow(h)
    want = 0.4 * 2 ** (-12.0 / (h / 4)) + 0.6 * 2 ** (-12.0 / slow)
    assert dk.decay_model(12.0, h, "two_component") == pytest.approx(want)


def test_mnemex_score_is_the_seed_formula() -> None:
    lam = dk.decay_constant(3 * DAY)
    got = dk.mnemex_score(4, 2 * DAY, strength=1.5, beta=0.6, half_life_seconds=3 * DAY)
    assert got == pytest.approx(5 ** 0.6 * math.exp(-lam * 2 * DAY) * 1.5)
    assert dk.mnemex_score(0, 0) == 1.0  # unbounded: why retention bounds it


def test_retention_modes() -> None:
    h = 3.0
    for t in (0.0, 1.0, 3.0, 6.0):  # Huber equals l2 up to its knee (2 half-lives)
        assert dk.decay(t, h, mode="huber") == pytest.approx(dk.decay(t, h, mode="l2"))
    for t in (9.0, 30.0, 90.0):  # then it is gentler: a burst then quiet is not wiped out
        assert dk.decay(t, h, mode="huber") > dk.decay(t, h, mode="l2")
    assert dk.decay(30.0, h, mode="huber") == pytest.approx(2 ** -(2 * math.sqrt(2 * 10) - 2))
    # Elastic: soft threshold on l2: strong stays close, weak goes to exactly zero.
    assert dk.decay(0.0, h, mode="elastic") == 1.0
    assert dk.decay(0.5, h, mode="elastic") > 0.85
    assert dk.decay(15.0, h, mode="elastic") == 0.0 < dk.decay(15.0, h, mode="l2")
    with pytest.raises(ValueError):
        dk.decay(1.0, h, mode="nope")
    with pytest.raises(ValueError):
        dk.decay(1.0, h, model="nope")


def test_per_type_decay_rates_and_trust() -> None:
    assert dk.type_decay("decision", 100) == pytest.approx(math.exp(-0.1))
    assert dk.type_decay("debug_log", 2) == pytest.approx(math.exp(-1.0))
    assert dk.type_decay("session_note", 7) == pytest.approx(math.exp(-0.7))
    assert dk.type_decay("fact", 10) > dk.type_decay("preference", 10) > dk.type_decay("session_note", 10)
    assert dk.trust_factor("human") == 1.0 and dk.trust_factor("ai") == 0.7 and dk.trust_factor("ingest") == 0.5
    assert dk.trust_factor("human", auto_extracted=True) == pytest.approx(1 / 3)


def test_trust_weighted_half_life() -> None:
    common = dict(use_count=2, idle_days=3, age_days=3, age_calendar_days=3, layer="working")
    human = retention_factors(source="human", **common)
    ai = retention_factors(source="ai", **common)
    auto = retention_factors(source="human", auto_extracted=True, **common)
    assert human.half_life_days == 3.0 and ai.half_life_days == pytest.approx(2.1)
    assert auto.half_life_days == pytest.approx(1.0)
    # Auto-extracted decays 3x faster: after one human half-life it has done three.
    assert auto.decay == pytest.approx(2 ** -(2 * math.sqrt(2 * 3) - 2))
    assert human.retention > ai.retention > auto.retention


def test_layers() -> None:
    assert next_layer("working", 29 * 60, 0) == "working"
    assert next_layer("working", 30 * 60, 0) == "episodic"
    assert next_layer("working", 60, 2) == "episodic"
    assert next_layer("episodic", 1e9, 100) == "episodic"
    assert promoted_layer("decision") == "procedural" and promoted_layer("fact") == "semantic"
    ep = retention_factors(use_count=1, idle_days=30, age_days=30, age_calendar_days=30, layer="episodic")
    assert ep.layer_age == pytest.approx(0.5)  # episodic: 30-day half-life of age
    for layer in ("semantic", "procedural"):  # no decay at all
        f = retention_factors(use_count=1, idle_days=300, age_days=300, age_calendar_days=300, layer=layer,
                              memory_type="debug_log")
        assert f.retention == f.amplitude and f.decay == 1.0 and f.to_dict()["half_life_days"] is None


def test_amplitude_and_access_reinforcement() -> None:
    assert amplitude(0) == 0.5  # a fresh memory starts at 0.5, not Mnemex's 1.0
    assert amplitude(4, 1.0) == pytest.approx(5 ** 0.6 / (1 + 5 ** 0.6))
    assert access_reinforcement(0) == 0.0
    assert access_reinforcement(5) == pytest.approx(0.1 * math.log(6))
    assert access_reinforcement(10_000) == 0.3  # capped at +0.3


# -- importance (MIRA) ---------------------------------------------------------------------------

def test_mira_terms() -> None:
    assert value_score(3.58, 20) == pytest.approx(math.log(1 + (3.58 / 20) / 0.02) * 0.8)
    assert value_score(1.0, 2) == pytest.approx(math.log(1 + (1 / 7) / 0.02) * 0.8)  # age floor of 7
    assert recency_boost(0) == 1.0 and recency_boost(100) == pytest.approx(0.4)
    assert newness_boost(0) == 2.0 and newness_boost(15) == pytest.approx(1.505) and newness_boost(100) == 0.0
    assert hub_score(5) == pytest.approx(0.2) and hub_score(10) == pytest.approx(0.4)
    assert hub_score(20) == pytest.approx(0.4 + 0.4 * math.log(2))
    assert hub_score(20) - hub_score(10) < 0.4  # diminishing after ten links
    now = 1_000_000.0
    assert temporal_multiplier(now + 0.5 * DAY, now) == 2.0
    assert temporal_multiplier(now + 3 * DAY, now) == 1.5
    assert temporal_multiplier(now + 10 * DAY, now) == 1.2
    assert temporal_multiplier(now + 20 * DAY, now) == 1.0
    assert temporal_multiplier(None, now) == 1.0
    assert expiration_trailoff(now + 1, now) == 1.0 and expiration_trailoff(now, now) == 1.0
    assert expiration_trailoff(now - 2.5 * DAY, now) == pytest.approx(0.5)
    assert expiration_trailoff(now - 6 * DAY, now) == 0.0


def test_importance_formula() -> None:
    fresh = importance_factors(access_count=0, idle_days=0, age_days=0)
    assert fresh.importance == pytest.approx(0.5)  # sigmoid(2.0 newness - 2)
    f = importance_factors(access_count=10, idle_days=20, age_days=40, inbound_links=3, base_importance=0.5)
    raw = (math.log(1 + (10 * 0.95 ** 20 / 40) / 0.02) * 0.8 + 0.12 + 2.0 - 40 * 0.033) / (1 + 20 * 0.015)
    assert f.raw == pytest.approx(raw)
    assert f.importance == pytest.approx(1 / (1 + math.exp(-(raw - 2))))
    soon = importance_factors(access_count=0, idle_days=0, age_days=0, now=0.0, event_at=3600.0)
    assert soon.temporal == 2.0 and soon.importance > fresh.importance
    expired = importance_factors(access_count=0, idle_days=0, age_days=0, now=10 * DAY, expires_at=0.0)
    assert expired.expiration == 0.0 and expired.importance == pytest.approx(1 / (1 + math.e ** 2))


def test_actr_base_level() -> None:
    assert base_level_activation([]) is None and recall_probability(None) == 0.0
    assert base_level_activation([1.0]) == 0.0
    assert base_level_activation([4.0, 9.0]) == pytest.approx(math.log(0.5 + 1 / 3))
    assert base_level_activation([0.0]) == 0.0  # ages floor at one
    assert recall_probability(0.0) == 0.5
    # Spaced uses keep more activation than the same number of old ones.
    assert base_level_activation([1, 5, 10]) > base_level_activation([10, 10, 10])
