"""Scoring wired into the store: activity days, eligibility, gc, pin, observe, review, explain."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemo.clock import DAY, Clock
from mnemo.config import load_settings
from mnemo.engine import Mnemo
from mnemo.errors import InvalidInput, NotFound
from mnemo.lifecycle.assess import retentions, review_queue
from mnemo.lifecycle.eligibility import (
    PromotionRule,
    is_promotion_eligible,
    promotion_candidates,
    promotion_decision,
    uses_in_window,
)
from mnemo.lifecycle.gc import archive_reason
from mnemo.models import Memory, MemoryType, Status
from mnemo.nlp.embedder import HashEmbedder
from tests.conftest import T0


def _engine(home: Path, clock: Clock, **overrides: object) -> Mnemo:
    settings = load_settings(home=home, overrides={"embedding.model": "hash-64", **overrides})
    return Mnemo(settings, clock=clock, embedder=HashEmbedder(64))


def _r(engine: Mnemo, mid: str) -> float:
    return retentions(engine.core, [engine.get(mid)])[mid]


def _busy_day(engine: Mnemo, other: str) -> None:
    """Someone uses the store (not the memory under test): the day becomes an activity day."""
    engine.core.clock.advance(DAY)
    engine.touch(other)


# -- Must show 3: a holiday does not age memories ----------------------------------------------

def test_idle_store_keeps_its_memories_fresher_than_a_busy_one(tmp_path: Path) -> None:
    busy_clock, idle_clock = Clock(T0), Clock(T0)
    with _engine(tmp_path / "busy", busy_clock) as busy, _engine(tmp_path / "idle", idle_clock) as idle:
        text = "The staging database lives on db-staging-2"
        a = busy.save(text, tags=["infra"], type="fact").memory.id
        b = idle.save(text, tags=["infra"], type="fact").memory.id
        other = busy.save("Lunch is at noon on Fridays", type="fact").memory.id
        start_busy, start_idle = _r(busy, a), _r(idle, b)
        assert start_busy == pytest.approx(start_idle)
        for _ in range(14):  # used every day for 14 days, but never this memory
            _busy_day(busy, other)
        idle_clock.advance(14 * DAY)  # nobody touches the idle store for 14 calendar days
        r_busy, r_idle = _r(busy, a), _r(idle, b)
        assert r_idle > r_busy
        ex_busy, ex_idle = busy.explain(a), idle.explain(b)
        assert ex_busy["retention_factors"]["idle_activity_days"] == 14
        assert ex_idle["retention_factors"]["idle_activity_days"] == 0
        assert ex_idle["retention_factors"]["decay"] == 1.0
        # Only the calendar-clocked per-type decay moved in the idle store.
        assert r_idle == pytest.approx(start_idle * ex_idle["retention_factors"]["type_decay"] / 1.0, rel=1e-3)
        assert r_busy < 0.05 < r_idle


# -- eligibility ---------------------------------------------------------------------------------

def test_fresh_memory_is_never_eligible_and_use_makes_it_so(engine: Mnemo) -> None:
    m = engine.save("We chose Rust for the parser", importance=1.0, pinned=True, type="decision").memory
    assert not is_promotion_eligible(engine.core, m)
    assert engine.explain(m.id)["promotion"]["why"] == "never used"
    for _ in range(5):
        engine.core.clock.advance(0.8 * DAY)
        engine.touch(m.id)
    assert is_promotion_eligible(engine.core, engine.get(m.id))
    assert [c.id for c in promotion_candidates(engine.core)] == [m.id]


def test_pure_promotion_rule() -> None:
    rule = PromotionRule()
    assert promotion_decision(status="active", layer="episodic", use_count=0, retention=1.0, window_uses=0,
                              importance=1.0, rule=rule) == (False, "never used")
    ok, why = promotion_decision(status="active", layer="episodic", use_count=9, retention=0.7, window_uses=5,
                                 importance=0.1, rule=rule)
    assert ok and "retention" in why
    assert not promotion_decision(status="active", layer="episodic", use_count=9, retention=0.7, window_uses=4,
                                  importance=0.1, rule=rule)[0]
    assert not promotion_decision(status="active", layer="episodic", use_count=9, retention=0.64, window_uses=9,
                                  importance=0.1, rule=rule)[0]
    ok, why = promotion_decision(status="active", layer="episodic", use_count=5, retention=0.2, window_uses=0,
                                 importance=0.7, rule=rule)
    assert ok and "importance" in why
    assert not promotion_decision(status="active", layer="working", use_count=5, retention=0.2, window_uses=0,
                                  importance=0.9, rule=rule)[0]
    ok, why = promotion_decision(status="active", layer="episodic", use_count=9, retention=0.04, window_uses=0,
                                 importance=0.9, rule=rule)
    assert not ok and "forget threshold" in why
    assert not promotion_decision(status="promoted", layer="episodic", use_count=9, retention=0.9, window_uses=9,
                                  importance=0.9, rule=rule)[0]


def test_window_is_a_true_sliding_window(engine: Mnemo) -> None:
    now = 100 * DAY
    times = [now - 14 * DAY, now - 13.9 * DAY, now - 5 * DAY, now - 1, now, now + 1]
    assert uses_in_window(times, now, 14) == 4  # (now - 14 d, now]: the edge and the future are out
    m = engine.save("Deploys go out on Tuesdays", importance=0.0).memory
    for gap in (0, 4, 4, 4, 4):  # five uses over 16 days: only four in any 14-day window
        engine.core.clock.advance(gap * DAY)
        engine.touch(m.id)
    ex = engine.explain(m.id)
    assert engine.get(m.id).use_count == 5
    assert ex["promotion"]["uses_in_window"] == 4


# -- gc: forget = archive, cold, pinned, restore ---------------------------------------------------

def test_gc_archives_faded_memories_keeps_pinned_and_restore_brings_back(engine: Mnemo) -> None:
    keep = engine.save("The office wifi password rotates monthly", type="fact").memory.id
    pinned = engine.save("My passport number lives in the safe", type="fact").memory.id
    fading = engine.save("The coffee machine on floor 3 is broken", type="fact").memory.id
    engine.pin(pinned)
    for _ in range(12):
        _busy_day(engine, keep)
    assert _r(engine, fading) < 0.05 and _r(engine, pinned) < 0.05
    plan = engine.gc(dry_run=True)
    assert [a["id"] for a in plan["archived"]] == [fading] and plan["pinned_kept"] == 1
    assert engine.get(fading).status == Status.ACTIVE  # a dry run changes nothing
    done = engine.gc()
    assert [a["id"] for a in done["archived"]] == [fading]
    assert "forget threshold" in done["archived"][0]["reason"]
    assert engine.get(fading).status == Status.ARCHIVED and engine.get(pinned).status == Status.ACTIVE
    with pytest.raises(InvalidInput):
        engine.forget(pinned)
    assert engine.core.store.jobs("gc")[0]["status"] == "done"
    back = engine.restore(fading)
    assert back.status == Status.ACTIVE and back.last_used == engine.now()
    assert engine.gc()["archived"] == []  # restoring counted as a use: not archived again at once


def test_cold_storage_below_one_in_a_thousand(engine: Mnemo) -> None:
    other = engine.save("Standup is at 9:30", type="fact").memory.id
    m = engine.save("A stack trace from the flaky CI job", type="fact").memory.id
    for _ in range(12):
        _busy_day(engine, other)
    engine.gc()
    assert engine.get(m).status == Status.ARCHIVED
    for _ in range(40):
        _busy_day(engine, other)
    assert _r(engine, m) < 0.001
    done = engine.gc()
    assert [(c["id"], c["from"]) for c in done["cold"]] == [(m, "archived")]
    assert engine.get(m).status == Status.COLD
    assert engine.core.index.get_vectors("memories", [m]) == {}  # left the hot index
    assert engine.restore(m).status == Status.ACTIVE
    assert m in engine.core.index.get_vectors("memories", [m])


def test_archive_rules_are_pure_and_exempt_the_permanent_layers(engine: Mnemo) -> None:
    s = engine.settings.scoring
    note = Memory(id="n", content="x", type=MemoryType.SESSION_NOTE)
    log = Memory(id="d", content="x", type=MemoryType.DEBUG_LOG)
    fact = Memory(id="f", content="x", use_count=2)
    assert archive_reason(note, "episodic", 0.9, 0.9, 31, s) == "session_note older than 30 days"
    assert archive_reason(log, "episodic", 0.9, 0.9, 8, s) == "debug_log older than 7 days"
    assert archive_reason(log, "episodic", 0.9, 0.9, 6, s) is None
    assert "older than 90 days" in archive_reason(fact, "episodic", 0.1, 0.2, 91, s)
    assert archive_reason(fact, "episodic", 0.1, 0.2, 89, s) is None
    assert archive_reason(fact, "episodic", 0.1, 0.31, 91, s) is None
    assert archive_reason(Memory(id="g", content="x", use_count=3), "episodic", 0.1, 0.2, 91, s) is None
    assert archive_reason(fact, "semantic", 0.1, 0.2, 91, s) is None
    assert archive_reason(log, "procedural", 0.9, 0.9, 8, s) is None


# -- reinforcement ----------------------------------------------------------------------------------

def test_observe_detects_cross_domain_use_and_caps_strength(engine: Mnemo) -> None:
    m = engine.save("Prefer short-lived JWTs", tags=["security", "jwt", "preferences"]).memory.id
    same = engine.observe([m], context_tags=["security", "jwt"])[0]
    assert same.strength == 1.0 and same.cross_domain_count == 0 and same.review_count == 1
    cross = engine.observe([m[:8]], context_tags=["api", "auth", "backend"])[0]
    assert cross.strength == pytest.approx(1.1) and cross.cross_domain_count == 1 and cross.use_count == 2
    for _ in range(15):
        engine.observe([m], context_tags=["cooking"])
    assert engine.get(m).strength == 2.0  # capped
    uses = engine.core.store.query("SELECT kind, count(*) FROM uses WHERE memory_id = ? GROUP BY kind", (m,))
    assert dict((r[0], r[1]) for r in uses) == {"observe": 17}
    with pytest.raises(InvalidInput):
        engine.observe([])
    with pytest.raises(NotFound):
        engine.observe(["does-not-exist"])


def test_touch_strength_boost_setting(home: Path, clock: Clock) -> None:
    with _engine(home, clock, **{"scoring.touch_strength_boost": 0.25}) as e:
        m = e.save("x marks the spot").memory.id
        for _ in range(6):
            e.touch(m)
        assert e.get(m).strength == 2.0


def test_layers_move_on_use_and_in_gc(engine: Mnemo) -> None:
    a = engine.save("Working memory one").memory.id
    b = engine.save("Working memory two").memory.id
    engine.touch(a)
    assert engine.get(a).layer.value == "working"
    engine.touch(a)
    assert engine.get(a).layer.value == "episodic"  # two uses
    engine.core.clock.advance(29 * 60)
    assert engine.gc()["layers"] == []
    engine.core.clock.advance(60)
    assert engine.gc()["layers"] == [{"id": b, "from": "working", "to": "episodic"}]  # 30 minutes old
    assert engine.get(b).layer.value == "episodic"
    assert engine.recall("Working memory two", touch=False, layer="episodic")[0].id in (a, b)


def test_gc_moves_important_used_episodes_to_a_permanent_layer(engine: Mnemo) -> None:
    fact = engine.save("The API uses JWT tokens signed with RS256", type="fact").memory.id
    decision = engine.save("We decided to keep integration tests on a real database", type="decision").memory.id
    other = engine.save("Someone else's note").memory.id
    for _ in range(5):
        engine.core.clock.advance(DAY)
        engine.touch(fact)
        engine.touch(decision)
    assert engine.explain(fact)["importance"] >= 0.7
    moved = {d["id"]: d["to"] for d in engine.gc()["layers"]}
    assert moved[fact] == "semantic" and moved[decision] == "procedural"
    r = _r(engine, fact)
    for _ in range(60):  # permanent knowledge no longer decays, and is never archived
        _busy_day(engine, other)
    assert _r(engine, fact) == pytest.approx(r)
    archived = [a["id"] for a in engine.gc()["archived"]]
    assert other not in archived and fact not in archived and decision not in archived
    assert engine.get(fact).status == Status.ACTIVE and engine.get(decision).layer.value == "procedural"


# -- review and explain ------------------------------------------------------------------------------

def test_review_queue_holds_the_danger_zone_most_urgent_first(engine: Mnemo) -> None:
    other = engine.save("Noise to keep the store busy").memory.id
    mids = [engine.save(f"Memory number {i} about topic {i}").memory.id for i in range(3)]
    for i, mid in enumerate(mids):  # different idle times → different retentions
        for _ in range(i):
            engine.touch(mid)
    for _ in range(3):
        _busy_day(engine, other)
    r = retentions(engine.core, [engine.get(x) for x in [*mids, other]])
    queue = review_queue(engine.core, limit=10)
    got = [m.id for m, _ in queue]
    want = sorted([x for x in [*mids, other] if 0.15 <= r[x] <= 0.35],
                  key=lambda x: -(1 - 4 * (((r[x] - 0.15) / 0.2) - 0.5) ** 2))
    assert got == want and got
    assert all(0 < p <= 1 for _, p in queue)
    api = engine.review(limit=1)
    assert len(api) == 1 and api[0]["memory"]["id"] == got[0]
    with pytest.raises(InvalidInput):
        engine.review(limit=0)


def test_explain_names_every_factor_and_its_clock(engine: Mnemo) -> None:
    m = engine.save("We decided to ship on Fridays", type="decision", source="ai").memory.id
    engine.touch(m)
    ex = engine.explain(m[:6])
    rf, imp = ex["retention_factors"], ex["importance_factors"]
    assert ex["retention"] == pytest.approx(rf["amplitude"] * rf["decay"] * rf["layer_age"] * rf["type_decay"])
    assert rf["trust_factor"] == 0.7 and rf["half_life_days"] == pytest.approx(2.1)
    assert set(rf["clocks"]) == {"decay", "layer_age", "type_decay"}
    assert "activity days" in rf["clocks"]["decay"] and "calendar" in rf["clocks"]["type_decay"]
    for key in ("value", "hub", "entity_hub", "mention", "newness", "base", "actr", "recency", "temporal", "expiration"):
        assert key in imp
    assert imp["clocks"]["temporal"].startswith("calendar")
    with pytest.raises(NotFound):
        engine.explain("nope-nope")


def test_retentions_costs_one_query_per_batch(engine: Mnemo) -> None:
    engine.save_many([{"content": f"memory {i} says something {i * 7}"} for i in range(100)])
    mems = engine.list(limit=None)
    seen: list[str] = []
    engine.core.store.conn.set_trace_callback(seen.append)
    try:
        out = retentions(engine.core, mems)
    finally:
        engine.core.store.conn.set_trace_callback(None)
    assert len(out) == 100 and all(0 <= v <= 1 for v in out.values())
    assert len([s for s in seen if s.lstrip().upper().startswith("SELECT")]) == 1


def test_inbound_links_raise_importance(engine: Mnemo) -> None:
    from mnemo.models import Link

    hub = engine.save("PostgreSQL is our database").memory.id
    others = [engine.save(f"Service {i} talks to the database").memory.id for i in range(4)]
    before = engine.explain(hub)["importance"]
    engine.core.store.add_links(Link(o, hub, "related", created_at=engine.now()) for o in others)
    after = engine.explain(hub)
    assert after["importance_factors"]["inbound_links"] == 4
    assert after["importance_factors"]["hub"] == pytest.approx(0.16)
    assert after["importance"] > before
