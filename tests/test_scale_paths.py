"""The write path's two look-ups that `scripts/bench_scale.py` found slow at 100,000 memories,
checked for what they return (their speed is the benchmark's business):

- the surprise check asks Chroma for neighbours without a metadata filter (a filter tests every
  vector: half a second per query at 100k) and keeps the live ones;
- the graph's recent memories walk the created_at index instead of sorting every live memory.
"""

from __future__ import annotations

from mnemo.clock import DAY
from mnemo.graph.db import recent_memories
from mnemo.scoring.surprise import OVERFETCH, K, live_neighbours


def test_archived_neighbours_are_skipped_for_the_nearest_live_one(engine) -> None:
    text = "The billing service stores invoices in PostgreSQL with daily backups."
    twins = [r.memory.id for r in engine.save_many([{"content": text} for _ in range(3)])]
    live = engine.save_many([{"content": text + " Checked again in March."}])[0].memory.id
    other = engine.save_many([{"content": "Lunch on Fridays is at the Thai place."}])[0].memory.id
    for mid in twins:
        engine.forget(mid)
    vec = engine.embedder.embed([text])
    [row] = live_neighbours(engine, vec)
    assert [i for i, _ in row] == [live, other]  # archived twins are closer, and left out
    r = engine.save_many([{"content": text}])[0]
    assert r.duplicate_of is None or r.duplicate_of == live


def test_when_every_neighbour_fetched_is_archived_the_filtered_query_finds_the_live_one(engine) -> None:
    text = "Deploys go out on Tuesdays after the change review."
    many = [r.memory.id for r in engine.save_many([{"content": f"{text} ({i})"} for i in range(K * OVERFETCH + 5)])]
    far = engine.save_many([{"content": "The office plants are watered on Mondays."}])[0].memory.id
    for mid in many:
        engine.forget(mid)
    [row] = live_neighbours(engine, engine.embedder.embed([text]))
    assert [i for i, _ in row] == [far]


def test_recent_memories_walk_the_created_index(engine) -> None:
    now = engine.now()
    ids = [engine.save_many([{"content": f"memory {i}", "created_at": now - i * DAY}])[0].memory.id for i in range(6)]
    engine.forget(ids[1])
    got = recent_memories(engine.store, before=now, since=now - 30 * DAY, limit=3)
    assert [m.id for m in got] == [ids[0], ids[2], ids[3]]
    plan = engine.store.query(
        "EXPLAIN QUERY PLAN SELECT * FROM memories WHERE +status IN ('active', 'promoted') AND created_at <= ? "
        "AND created_at >= ? AND id NOT IN ('') ORDER BY created_at DESC, rowid DESC LIMIT ?", (now, now - 30 * DAY, 3))
    assert any("memories_created" in r[3] for r in plan) and not any("TEMP B-TREE" in r[3] for r in plan)
