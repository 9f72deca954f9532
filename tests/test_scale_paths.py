"""The paths `scripts/bench_scale.py` found slow at 100,000 memories, checked for what they
return and what they keep safe (their speed is the benchmark's business):

- the surprise check asks Chroma for neighbours without a metadata filter (a filter tests every
  vector: half a second per query at 100k) and keeps the live ones;
- the graph's recent memories walk the created_at index instead of sorting every live memory;
- long texts are embedded in smaller batches (a batch's activations grow with its longest text),
  and the vectors come back in the input order;
- a layer change from reinforcement reaches the vector index in one deferred write, with the
  dirty mark committed beside the change, flushed before any filtered query, and repaired at
  the next open when the process died first.
"""

from __future__ import annotations

import subprocess
import sys
import time

from mnemo.clock import DAY
from mnemo.graph.db import recent_memories
from mnemo.index.vectors import OVERFETCH, live_neighbours
from mnemo.scoring.surprise import K


def test_archived_neighbours_are_skipped_for_the_nearest_live_one(engine) -> None:
    text = "The billing service stores invoices in PostgreSQL with daily backups."
    twins = [r.memory.id for r in engine.save_many([{"content": text} for _ in range(3)])]
    live = engine.save_many([{"content": text + " Checked again in March."}])[0].memory.id
    other = engine.save_many([{"content": "Lunch on Fridays is at the Thai place."}])[0].memory.id
    for mid in twins:
        engine.forget(mid)
    vec = engine.core.embedder.embed([text])
    [row] = live_neighbours(engine.core, vec, K)
    assert [i for i, _ in row] == [live, other]  # archived twins are closer, and left out
    r = engine.save_many([{"content": text}])[0]
    assert r.duplicate_of is None or r.duplicate_of == live


def test_when_every_neighbour_fetched_is_archived_the_filtered_query_finds_the_live_one(engine) -> None:
    text = "Deploys go out on Tuesdays after the change review."
    many = [r.memory.id for r in engine.save_many([{"content": f"{text} ({i})"} for i in range(K * OVERFETCH + 5)])]
    far = engine.save_many([{"content": "The office plants are watered on Mondays."}])[0].memory.id
    for mid in many:
        engine.forget(mid)
    [row] = live_neighbours(engine.core, engine.core.embedder.embed([text]), K)
    assert [i for i, _ in row] == [far]


def test_recent_memories_walk_the_created_index(engine) -> None:
    now = engine.now()
    ids = [engine.save_many([{"content": f"memory {i}", "created_at": now - i * DAY}])[0].memory.id for i in range(6)]
    engine.forget(ids[1])
    got = recent_memories(engine.core.store, before=now, since=now - 30 * DAY, limit=3)
    assert [m.id for m in got] == [ids[0], ids[2], ids[3]]
    plan = engine.core.store.query(
        "EXPLAIN QUERY PLAN SELECT * FROM memories WHERE +status IN ('active', 'promoted') AND created_at <= ? "
        "AND created_at >= ? AND id NOT IN ('') ORDER BY created_at DESC, rowid DESC LIMIT ?", (now, now - 30 * DAY, 3))
    assert any("memories_created" in r[3] for r in plan) and not any("TEMP B-TREE" in r[3] for r in plan)


def test_long_texts_go_in_smaller_batches_within_the_character_budget() -> None:
    from mnemo.nlp.embedder import LONGEST_CHARS, SHORT_CHARS, batches

    lengths = [40] * 100 + [1000] * 30 + [5000] * 3 + [300] * 10
    groups = batches(lengths, 64)
    assert sorted(i for g in groups for i in g) == list(range(len(lengths)))  # each text once
    for g in groups:
        longest = min(LONGEST_CHARS, max(lengths[i] for i in g))
        assert len(g) <= 64 and (len(g) == 1 or len(g) * longest <= 64 * SHORT_CHARS)
    assert max(len(g) for g in groups if all(lengths[i] == 40 for i in g)) == 64  # short texts keep whole batches
    assert max(len(g) for g in groups if any(lengths[i] >= 1000 for i in g)) == 64 * SHORT_CHARS // 1000


def test_batched_vectors_match_one_by_one_in_input_order(real_embedder) -> None:
    import numpy as np

    texts = [f"Short fact number {i}." for i in range(5)] + [
        "The deploy pipeline was migrated to the new CDN after the outage. " * (4 + i) for i in range(3)]
    texts = texts[::2] + texts[1::2]  # long and short interleaved
    together = real_embedder.embed(texts)
    alone = np.stack([real_embedder.embed([t])[0] for t in texts])
    assert together.shape == (len(texts), real_embedder.dim)
    assert np.allclose(together, alone, atol=1e-4)


def _vector_layer(engine, mid: str) -> str:
    res = engine.core.index._run("memories", "reading", lambda col: col.get(ids=[mid], include=["metadatas"]))
    return res["metadatas"][0]["layer"]


def test_a_layer_change_reaches_the_vector_index_in_one_deferred_write(engine) -> None:
    engine.core.deferred_meta.delay = 60.0  # the timer stays out of this test's way
    mid = engine.save("The staging cluster is blocked by a TimeoutError.").memory.id
    engine.touch(mid)
    engine.touch(mid)  # the second use moves it from working to episodic
    assert engine.get(mid).layer.value == "episodic"
    assert _vector_layer(engine, mid) == "working"  # not written yet ...
    assert engine.core.store.kv_get("index.dirty") == "1"  # ... and a crash now would be repaired
    assert engine.core.deferred_meta.ids == {mid}
    # A filtered query never sees the stale copy: it writes what is pending first.
    assert [h.id for h in engine.recall("staging cluster TimeoutError", layer="episodic", touch=False)] == [mid]
    assert _vector_layer(engine, mid) == "episodic" and not engine.core.deferred_meta
    assert engine.core.store.kv_get("index.dirty") == "0"


def test_the_timer_writes_pending_layers(engine) -> None:
    engine.core.deferred_meta.delay = 0.05
    mid = engine.save("Carol prefers weekly releases.").memory.id
    engine.touch(mid)
    engine.touch(mid)
    deadline = time.monotonic() + 10
    while engine.core.deferred_meta and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not engine.core.deferred_meta and _vector_layer(engine, mid) == "episodic"
    assert engine.core.store.kv_get("index.dirty") == "0"


def test_a_process_that_dies_with_a_pending_write_is_repaired_at_the_next_open(home) -> None:
    code = (
        "import os\n"
        "from mnemo.config import load_settings\n"
        "from mnemo.engine import Mnemo\n"
        "m = Mnemo(load_settings(home=os.environ['MNEMO_HOME'], overrides={'embedding.model': 'hash-64'}))\n"
        "m.core.deferred_meta.delay = 3600\n"
        "mid = m.save('The CDN caches S3 backups.').memory.id\n"
        "m.touch(mid); m.touch(mid)\n"
        "print(mid, flush=True)\n"
        "os._exit(0)  # no close: the layer never reached the index\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    mid = out.stdout.strip()
    from mnemo.config import load_settings
    from mnemo.engine import Mnemo

    with Mnemo(load_settings(home=home, overrides={"embedding.model": "hash-64"})) as m:
        assert m.get(mid).layer.value == "episodic"
        assert _vector_layer(m, mid) == "episodic"  # the open re-synced the metadata
        assert m.core.store.kv_get("index.dirty") == "0"
