"""The dream cycle on a large store: time per step and what it did.

    .venv/bin/python scripts/bench_dream.py [--n 10000] [--dups 0.1] [--real] [--json]

Seeds a store and a vault with ``--n`` memories of which a share ``--dups`` are near-duplicates
of others (most one word apart, so they merge; some two words apart, for the review list), plus
bloated memories to split, entities across wings for peer cards and bridges, contradicting
preferences, memories citing deleted notes, faded memories and old use logs. Then runs one
whole dream cycle (every step) and prints the seconds each step took to plan and to apply, the
total, and the operations applied. Target: the whole cycle under 60 s.

By default the memories are embedded with the hash embedder (``hash-384``: seeding 10,000
memories through MiniLM takes minutes on a small machine); ``--real`` uses MiniLM for the
seeding and the cycle. The seeding writes rows and vectors directly (not through ``save``),
so its cost is not part of what is measured.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from mnemo.clock import DAY, Clock, parse_time
from mnemo.config import load_settings
from mnemo.engine import Mnemo, vector_meta
from mnemo.models import Fingerprint, Layer, Memory, MemoryType, Source

NOW = parse_time("2026-03-02T09:00:00Z")
SYLLABLES = ["ka", "lo", "mi", "ren", "to", "sa", "vi", "del", "nor", "pa", "qu", "ix", "ze", "bo", "ul", "tan", "gre", "fo"]
ENTITIES = ["PostgreSQL", "Redis", "Kafka", "Alice", "Bob", "Grafana", "Terraform", "Stripe", "Sentry", "Figma",
            "Kubernetes", "Nginx", "Carol", "Dave", "Vault", "Airflow", "Snowflake", "Datadog", "Jira", "Slack"]
WINGS = ["billing", "search", "mobile", "platform", "growth"]
SERVICES = ["orders", "billing", "search", "checkout", "payments", "profile", "inventory", "shipping", "reports", "auth"]
TECH = ["PostgreSQL", "MySQL", "Redis", "Kafka", "RabbitMQ", "MongoDB", "Cassandra", "SQLite", "DynamoDB", "Elasticsearch"]


def words(rnd: random.Random, n: int) -> list[str]:
    return ["".join(rnd.choice(SYLLABLES) for _ in range(rnd.randint(2, 3))) for _ in range(n)]


def seed(m: Mnemo, n: int, dup_share: float, rnd: random.Random) -> dict[str, int]:
    vault = m.settings.vault
    assert vault is not None
    (vault / "Projects").mkdir()
    for k in range(1, 61):
        m.core.store.mark_activity(NOW - k * DAY)
    n_dups = int(n * dup_share)
    n_base = n - n_dups
    memories: list[Memory] = []

    def make(i: int, content: str, **kw: object) -> Memory:
        base = dict(id=f"m{i:06d}", content=content, type=MemoryType.FACT, layer=Layer.EPISODIC, source=Source.HUMAN,
                    importance=0.5, use_count=rnd.randint(1, 4), created_at=NOW - rnd.uniform(1, 50) * DAY,
                    updated_at=NOW, last_used=NOW - rnd.uniform(0, 1) * DAY, wing=rnd.choice(WINGS), tokens=len(content) // 4)
        base.update(kw)
        return Memory(**base)  # type: ignore[arg-type]

    counts = {"bloated": 0, "drift": 0, "conflict_pairs": 0, "faded": 0}
    for i in range(n_base):
        ents = (rnd.choice(ENTITIES),) if rnd.random() < 0.2 else ()
        text = " ".join(words(rnd, rnd.randint(10, 16))).capitalize() + "."
        if ents:
            text = f"{ents[0]} {text[0].lower()}{text[1:]}"
        kw: dict[str, object] = {"fingerprint": Fingerprint(type="fact", entities=ents)}
        roll = rnd.random()
        if roll < 0.004:  # bloated: long, old and used
            sections = ["## " + " ".join(words(rnd, 2)) + "\n" + " ".join(" ".join(words(rnd, 14)) + "." for _ in range(6)) for _ in range(4)]
            text = "\n\n".join(sections)
            kw.update(created_at=NOW - 10 * DAY, use_count=6, tokens=400)
            counts["bloated"] += 1
        elif roll < 0.009:  # cites a note that was deleted
            text += f" The details are in Projects/{words(rnd, 1)[0]}.md."
            counts["drift"] += 1
        elif roll < 0.06:  # faded: old and never used again
            kw.update(created_at=NOW - rnd.uniform(15, 60) * DAY, last_used=None, use_count=0)
            counts["faded"] += 1
        memories.append(make(i, text, **kw))
    for j in range(min(20, n_base // 100)):  # contradicting preferences, 40 days apart
        topic = " ".join(words(rnd, 3))
        a = make(n + 2 * j, f"I like {topic} in the editor.", type=MemoryType.PREFERENCE, created_at=NOW - 40 * DAY, use_count=5)
        b = make(n + 2 * j + 1, f"I do not like {topic} in the editor.", type=MemoryType.PREFERENCE, wing=a.wing)
        memories += [a, b]
        counts["conflict_pairs"] += 1
    pairs: list[Memory] = []
    for j in range(min(20, n_base // 100)):  # decisions updated 45 days later (fingerprinted for real below)
        subject = f"{SERVICES[j % len(SERVICES)]} {['service', 'worker'][j // len(SERVICES) % 2]}"
        old_e, new_e = rnd.sample(TECH, 2)
        a = make(n + 100 + 2 * j, f"We decided the {subject} uses {old_e}.", type=MemoryType.DECISION,
                 created_at=NOW - 45 * DAY, use_count=5)
        b = make(n + 101 + 2 * j, f"We switched the {subject} from {old_e} to {new_e}.", type=MemoryType.DECISION,
                 wing=a.wing)
        pairs += [a, b]
        counts["supersede_pairs"] = counts.get("supersede_pairs", 0) + 1
    from mnemo.graph.enrich import fingerprint_memories

    memories += fingerprint_memories(m.core, pairs)
    for k in range(n_dups):  # near-duplicates: a word added (merge) or two changed (review)
        src = memories[rnd.randrange(n_base)]
        parts = src.content.split()
        if k % 10 == 9 and len(parts) > 6:
            parts[2] = words(rnd, 1)[0]
            parts[4] = words(rnd, 1)[0]
        else:
            parts.insert(rnd.randrange(1, len(parts)), words(rnd, 1)[0])
        memories.append(replace(src, id=f"m{n_base + k:06d}", content=" ".join(parts), created_at=src.created_at + 3600,
                                use_count=1, fingerprint=src.fingerprint))
    vecs = m.core.embedder.embed([x.content for x in memories])
    m.core.store.insert_memories(memories)
    for i in range(0, len(memories), 5000):
        part = memories[i : i + 5000]
        m.core.index.upsert("memories", [x.id for x in part], vecs[i : i + 5000], [vector_meta(x) for x in part])
    m.core.store.add_uses([(memories[i].id, NOW - 400 * DAY, "touch", None) for i in range(0, len(memories), 10)])
    for x in memories[-10:]:  # a few near-duplicates live in notes: merging them archives their notes
        m.promote(x.id)
    return {"memories": len(memories), "near_duplicates": n_dups, **counts}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--dups", type=float, default=0.1)
    ap.add_argument("--real", action="store_true", help="embed with MiniLM instead of the hash embedder")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rnd = random.Random(11)
    with tempfile.TemporaryDirectory() as tmp:
        home, vault = Path(tmp) / "home", Path(tmp) / "vault"
        vault.mkdir()
        model = "all-MiniLM-L6-v2" if args.real else "hash-384"
        settings = load_settings(home=home, vault=vault, overrides={"embedding.model": model})
        with Mnemo(settings, clock=Clock(NOW)) as m:
            _ = m.core.index  # records the model before anything is stored
            t = time.perf_counter()
            seeded = seed(m, args.n, args.dups, rnd)
            seed_s = time.perf_counter() - t
            result = m.dream()
        out = {
            "embedder": model,
            "seeded": seeded,
            "seed_seconds": round(seed_s, 1),
            "plan_seconds": result["seconds"]["plan"],
            "apply_seconds": result["seconds"]["apply"],
            "total_seconds": result["seconds"]["total"],
            "target_seconds": 60,
            "applied": result["done"],
            "skipped": len(result["skipped"]),
            "failed": len(result["failed"]),
            "review": len(result["review"]),
            "report": result["report"],
        }
    if args.json:
        print(json.dumps(out))
        return
    print(f"dream cycle over {seeded['memories']} memories ({seeded['near_duplicates']} near-duplicates; embedder {model}; "
          f"seeding took {out['seed_seconds']} s, not counted)")
    print(f"{'step':<10} {'plan s':>8} {'apply s':>8}  applied")
    for step in [*out["plan_seconds"], "report"]:
        done = ", ".join(f"{n} {k}" for k, n in out["applied"].get(step, {}).items()) or "-"
        print(f"{step:<10} {out['plan_seconds'].get(step, 0.0):>8.2f} {out['apply_seconds'].get(step, 0.0):>8.2f}  {done}")
    print(f"total {out['total_seconds']:.1f} s (target < 60 s); {out['review']} clusters wait for review; "
          f"skipped {out['skipped']}, failed {out['failed']}")
    sys.exit(0 if out["total_seconds"] < 60 and not out["failed"] else 1)


if __name__ == "__main__":
    main()
