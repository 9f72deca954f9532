#!/usr/bin/env python
"""How long scoring takes on a store of N memories (hash-64 embedder: this times scoring, not
embedding): ``retentions`` for the 100 memories a recall re-ranks, the review queue, the
promotion candidates, and a ``gc --dry-run`` over everything.

    .venv/bin/python scripts/bench_scoring.py --memories 5000
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time

from mnemo.clock import DAY, Clock, parse_time
from mnemo.config import load_settings
from mnemo.engine import Mnemo
from mnemo.lifecycle.assess import retentions, review_queue
from mnemo.lifecycle.eligibility import promotion_candidates


def best_of(n: int, fn) -> float:  # noqa: ANN001
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--memories", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    clock = Clock(parse_time("2026-01-05T09:00:00Z"))
    settings = load_settings(home=tempfile.mkdtemp(prefix="mnemo-bench-"), overrides={"embedding.model": "hash-64"}, env={})
    with Mnemo(settings, clock=clock) as m:
        ids: list[str] = []
        for day in range(30):  # 30 activity days of saves and uses
            clock.set(parse_time("2026-01-05T09:00:00Z") + day * DAY)
            n = args.memories // 30
            ids += [r.memory.id for r in m.save_many([{"content": f"memory {day}-{i} about {rng.random()}"} for i in range(n)])]
            for mid in rng.sample(ids, min(50, len(ids))):
                m.touch(mid)
        hundred = list(m.core.store.get_memories(rng.sample(ids, 100)).values())
        print(f"memories: {m.core.store.count()}, uses: {m.stats().uses}")
        print(f"retentions(100 memories):  {best_of(20, lambda: retentions(m.core, hundred)) * 1000:.2f} ms")
        print(f"review_queue(limit=20):    {best_of(3, lambda: review_queue(m.core, 20)) * 1000:.0f} ms")
        print(f"promotion_candidates():    {best_of(3, lambda: promotion_candidates(m.core)) * 1000:.0f} ms")
        print(f"gc(dry_run=True):          {best_of(3, lambda: m.gc(dry_run=True)) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
