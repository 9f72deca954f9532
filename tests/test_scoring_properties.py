"""Must show 1: property tests of the scoring functions (hypothesis)."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from mnemo.scoring import decay as dk
from mnemo.scoring.importance import importance_factors
from mnemo.scoring.retention import RetentionParams, retention
from mnemo.scoring.review_priority import review_priority

days = st.floats(min_value=0.0, max_value=2000.0, allow_nan=False)
uses = st.integers(min_value=0, max_value=500)
strength = st.floats(min_value=1.0, max_value=2.0)
half_life = st.floats(min_value=0.05, max_value=400.0)
layer = st.sampled_from(["working", "episodic", "semantic", "procedural"])
mtype = st.sampled_from(["decision", "fact", "preference", "session_note", "debug_log"])
source = st.sampled_from(["human", "ai", "ingest"])
model = st.sampled_from(dk.MODELS)
mode = st.sampled_from(dk.MODES)


@st.composite
def memories(draw: st.DrawFn) -> dict:
    return dict(
        use_count=draw(uses), strength=draw(strength), age_days=draw(days), age_calendar_days=draw(days),
        layer=draw(layer), memory_type=draw(mtype), source=draw(source), auto_extracted=draw(st.booleans()),
        params=RetentionParams(half_life_days=draw(half_life), beta=draw(st.floats(0.0, 1.5)),
                               decay_model=draw(model), retention_mode=draw(mode)),
    )


@settings(max_examples=300, deadline=None)
@given(memories(), days)
def test_retention_is_bounded(m: dict, idle: float) -> None:
    r = retention(idle_days=idle, **m)
    assert 0.0 <= r <= 1.0 and not math.isnan(r)


@settings(max_examples=300, deadline=None)
@given(memories(), days, days)
def test_retention_never_increases_with_idle_time(m: dict, a: float, b: float) -> None:
    lo, hi = sorted((a, b))
    assert retention(idle_days=hi, **m) <= retention(idle_days=lo, **m) + 1e-12


@settings(max_examples=300, deadline=None)
@given(memories(), days, uses, uses)
def test_retention_never_decreases_with_uses(m: dict, idle: float, a: int, b: int) -> None:
    lo, hi = sorted((a, b))
    m.pop("use_count")
    assert retention(use_count=hi, idle_days=idle, **m) >= retention(use_count=lo, idle_days=idle, **m) - 1e-12


@settings(max_examples=200, deadline=None)
@given(memories(), days, strength, strength)
def test_retention_never_decreases_with_strength(m: dict, idle: float, a: float, b: float) -> None:
    lo, hi = sorted((a, b))
    m.pop("strength")
    assert retention(strength=hi, idle_days=idle, **m) >= retention(strength=lo, idle_days=idle, **m) - 1e-12


@settings(max_examples=300, deadline=None)
@given(half_life, st.floats(min_value=0.01, max_value=0.99))
def test_models_order_where_the_math_says(h: float, frac: float) -> None:
    """log D is linear for the exponential and convex for the other two, all through 0.5 at H:
    before H both lie strictly below the exponential, after H strictly above."""
    before, after = h * frac, h / frac
    e_b, e_a = dk.decay_model(before, h, "exponential"), dk.decay_model(after, h, "exponential")
    for m in ("power_law", "two_component"):
        assert dk.decay_model(before, h, m) < e_b
        assert dk.decay_model(after, h, m) > e_a
        assert math.isclose(dk.decay_model(h, h, m), 0.5, rel_tol=1e-9)


@settings(max_examples=200, deadline=None)
@given(half_life, st.floats(min_value=40.0, max_value=1000.0))
def test_far_out_power_law_beats_two_component_beats_exponential(h: float, k: float) -> None:
    t = h * k
    pl, two, ex = (dk.decay_model(t, h, m) for m in ("power_law", "two_component", "exponential"))
    assert pl > two >= ex


@settings(max_examples=300, deadline=None)
@given(half_life, days, model)
def test_modes_relate_as_documented(h: float, t: float, m: str) -> None:
    l2, hub, el = (dk.decay(t, h, m, mode) for mode in ("l2", "huber", "elastic"))
    assert 0.0 <= el <= l2 <= hub <= 1.0
    if dk.model_penalty(t, h, m) <= dk.HUBER_DELTA:
        assert math.isclose(hub, l2, rel_tol=1e-12)


@settings(max_examples=300, deadline=None)
@given(memories(), days)
def test_retention_follows_each_models_curve(m: dict, idle: float) -> None:
    """Under l2, retention is its idle-free value times the chosen model's curve, so models that
    differ (tests above) give different retentions."""
    p = m["params"]
    if m["layer"] in ("semantic", "procedural"):
        return
    h = p.half_life_days * dk.trust_factor(m["source"], m["auto_extracted"])
    values = {}
    for name in dk.MODELS:
        mm = {**m, "params": RetentionParams(p.half_life_days, p.beta, name, "l2")}
        values[name] = retention(idle_days=idle, **mm)
    curves = {name: dk.decay_model(idle, h, name) for name in dk.MODELS}
    base = retention(idle_days=0.0, **{**m, "params": RetentionParams(p.half_life_days, p.beta, "exponential", "l2")})
    for name in dk.MODELS:
        assert math.isclose(values[name], base * curves[name], rel_tol=1e-9, abs_tol=1e-300)


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=-1.0, max_value=2.0, allow_nan=False))
def test_review_priority_is_a_bounded_parabola(r: float) -> None:
    p = review_priority(r)
    assert 0.0 <= p <= 1.0
    if r < 0.15 or r > 0.35:
        assert p == 0.0
    else:  # symmetric about the peak at 0.25
        assert math.isclose(p, review_priority(0.5 - r), abs_tol=1e-9)
        assert p <= review_priority(0.25)


@settings(max_examples=300, deadline=None)
@given(uses, days, days, st.integers(0, 200), st.floats(0.0, 1.0), days)
def test_importance_bounded_and_monotone(n: int, idle: float, age: float, links: int, base: float, more: float) -> None:
    f = importance_factors(access_count=n, idle_days=idle, age_days=age, inbound_links=links, base_importance=base)
    assert 0.0 <= f.importance <= 1.0
    more_uses = importance_factors(access_count=n + 1, idle_days=idle, age_days=age, inbound_links=links, base_importance=base)
    assert more_uses.importance >= f.importance
    idler = importance_factors(access_count=n, idle_days=idle + more, age_days=age, inbound_links=links, base_importance=base)
    assert idler.importance <= f.importance + 1e-12
    more_links = importance_factors(access_count=n, idle_days=idle, age_days=age, inbound_links=links + 1, base_importance=base)
    assert more_links.importance >= f.importance
