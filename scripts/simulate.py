#!/usr/bin/env python
"""A seeded 90-day usage trace through the real engine, printed week by week.

About 1,000 memories are saved over the period on working days; each working day a person
recalls things (which reinforces what comes back), touches a few memories directly and now and
then observes one in another context. Popularity is skewed (a few memories are used a lot, most
hardly at all). Weekends are mostly quiet and days 51–59 are a holiday with no activity at all.
Every day ends with ``gc`` as the daemon's scheduler runs it (gc does not count as use).

Each week's row counts active memories by layer, the memories ``promote --auto`` would take into
the vault (eligible), and the archived and cold ones. The simulation writes no notes.

    .venv/bin/python scripts/simulate.py                  # real MiniLM embedder
    .venv/bin/python scripts/simulate.py --embedder hash-64 --json
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import tempfile
import time
from pathlib import Path

from mnemo.clock import DAY, Clock, iso, parse_time
from mnemo.config import load_settings
from mnemo.engine import Mnemo
from mnemo.lifecycle.eligibility import promotion_candidates

SUBJECTS = ["the billing service", "the search index", "the mobile app", "the data pipeline", "the auth gateway",
            "the analytics dashboard", "the payments API", "the onboarding flow", "the CI runners", "the CDN config",
            "the staging cluster", "the email worker", "the recommendation model", "the admin console", "the invoice PDFs",
            "the feature flags", "the GraphQL schema", "the backup job", "the rate limiter", "the audit log"]
TOOLS = ["PostgreSQL", "Redis", "Kafka", "Terraform", "Kubernetes", "SQLite", "Sentry", "Grafana", "Celery", "gRPC",
         "Elasticsearch", "S3", "Nginx", "Prometheus", "Airflow", "Docker", "Vault", "RabbitMQ", "ClickHouse", "Stripe"]
PEOPLE = ["Alice", "Bashir", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ivan", "Joana"]
REASONS = ["it halves our p95 latency", "the team already knows it", "the licence is simpler", "it is cheaper at our scale",
           "it survived the load test", "the old one kept timing out", "security asked for it", "it removes a cron job"]
TEMPLATES = {
    "decision": ["We decided to move {s} to {t} because {r}.", "{p} and I agreed that {s} will use {t}; {r}.",
                 "Decision: {s} keeps {t} for now, since {r}."],
    "fact": ["{s} runs on {t} in production.", "{p} owns {s}; questions about {t} go to them.",
             "{s} depends on {t} version {n}.", "The on-call runbook for {s} lists {t} as the first thing to check."],
    "preference": ["{p} prefers small pull requests for {s}.", "I prefer {t} dashboards over raw logs when debugging {s}.",
                   "{p} likes deploys of {s} before noon."],
    "session_note": ["Pairing session with {p} on {s}: walked through the {t} setup, step {n} of the checklist.",
                     "Meeting notes: {p} raised the {t} migration for {s}; follow up next week (item {n})."],
    "debug_log": ["{s} failed with a {t} timeout at step {n}; retried and it passed.",
                  "Traceback in {s}: connection refused by {t} on port {n}."],
}
TYPE_WEIGHTS = {"decision": 0.15, "fact": 0.4, "preference": 0.1, "session_note": 0.2, "debug_log": 0.15}
TAGS = ["backend", "frontend", "infra", "data", "security", "product", "ops", "billing"]


def make_memory(rng: random.Random, i: int) -> dict:
    mtype = rng.choices(list(TYPE_WEIGHTS), weights=list(TYPE_WEIGHTS.values()))[0]
    s, t = rng.choice(SUBJECTS), rng.choice(TOOLS)
    text = rng.choice(TEMPLATES[mtype]).format(s=s, t=t, p=rng.choice(PEOPLE), r=rng.choice(REASONS), n=rng.randint(2, 99))
    return {"content": f"{text} (#{i})", "type": mtype, "tags": rng.sample(TAGS, 2),
            "source": rng.choices(["human", "ai", "ingest"], weights=[0.6, 0.3, 0.1])[0]}


def is_active_day(rng: random.Random, day: int, start_weekday: int) -> bool:
    if 50 <= day <= 58:  # a holiday: days 51–59 counting from 1
        return False
    weekend = (start_weekday + day) % 7 >= 5
    return rng.random() < (0.15 if weekend else 0.95)


def counts(engine: Mnemo) -> dict[str, int]:
    rows = engine.core.store.query("SELECT status, layer, count(*) FROM memories GROUP BY status, layer")
    out = {"working": 0, "episodic": 0, "semantic": 0, "archived": 0, "cold": 0, "promoted": 0}
    for status, layer, n in rows:
        if status == "active":
            out["semantic" if layer in ("semantic", "procedural") else layer] += n
        else:
            out[status] += n
    return out


def run(args: argparse.Namespace) -> dict:
    rng = random.Random(args.seed)
    home = Path(args.home or tempfile.mkdtemp(prefix="mnemo-sim-"))
    start = parse_time(args.start)
    clock = Clock(start)
    overrides = {"embedding.model": args.embedder} if args.embedder != "real" else {}
    settings = load_settings(home=home, overrides=overrides, env={})
    drafts = [make_memory(rng, i) for i in range(args.memories)]
    popularity: dict[str, float] = {}
    rows: list[dict] = []
    t0 = time.time()
    with Mnemo(settings, clock=clock) as m:
        active_days = [d for d in range(args.days) if is_active_day(rng, d, 0)]
        per_day = math.ceil(len(drafts) / max(1, len(active_days)))
        queue = list(drafts)
        live: list[str] = []
        for day in range(args.days):
            base = start + day * DAY
            if day in active_days:
                clock.set(base + 9 * 3600)
                batch, queue = queue[:per_day], queue[per_day:]
                if batch:
                    for r in m.save_many(batch):
                        live.append(r.memory.id)
                        # Skewed popularity: most memories are hardly used, a few a lot.
                        popularity[r.memory.id] = rng.paretovariate(1.3)
                alive = [i for i in live if i in popularity]
                for hour in range(args.recalls):
                    clock.set(base + (10 + hour * 7 / max(1, args.recalls)) * 3600)
                    target = rng.choices(alive, weights=[popularity[i] for i in alive])[0]
                    words = m.core.store.get_memory(target).content.split()
                    query = " ".join(rng.sample(words, min(6, len(words))))
                    m.recall(query, k=3, tier="stm")
                for mid in rng.choices(alive, weights=[popularity[i] ** 1.5 for i in alive], k=args.touches):
                    if m.core.store.get_memory(mid).status.value in ("active", "promoted"):
                        m.touch(mid)
                if rng.random() < 0.5:
                    mid = rng.choice(alive)
                    if m.core.store.get_memory(mid).status.value == "active":
                        m.observe([mid], context_tags=[rng.choice(TAGS)])
            clock.set(base + 23 * 3600)
            gc = m.gc()
            for item in gc["archived"] + gc["cold"]:
                popularity.pop(item["id"], None)  # forgotten: the person no longer runs into it
            if (day + 1) % 7 == 0 or day == args.days - 1:
                row = {"week": (day // 7) + 1, "day": day + 1, "date": iso(clock.now())[:10],
                       "saved": m.core.store.count(), "activity_days": len(m.core.store.activity_day_list()),
                       **counts(m), "eligible": len(promotion_candidates(m.core))}
                rows.append(row)
                print(f"week {row['week']:>2} done ({time.time() - t0:.0f}s)", file=sys.stderr)
    return {"seed": args.seed, "memories": args.memories, "days": args.days, "embedder": args.embedder,
            "seconds": round(time.time() - t0, 1), "home": str(home), "weeks": rows}


def table(result: dict) -> str:
    cols = ["week", "date", "saved", "activity_days", "working", "episodic", "semantic", "eligible", "archived", "cold"]
    head = ["week", "ends", "saved", "active days", "working", "episodic", "semantic", "eligible", "archived", "cold"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---:" for _ in head) + "|"]
    for r in result["weeks"]:
        lines.append("| " + " | ".join(str(r[c]) for c in cols) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--memories", type=int, default=1000)
    ap.add_argument("--days", type=int, default=90)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--recalls", type=int, default=12, help="recalls per active day (each reinforces its hits)")
    ap.add_argument("--touches", type=int, default=12, help="direct touches per active day")
    ap.add_argument("--embedder", default="real", help="'real' (MiniLM) or hash-64 (no model, faster)")
    ap.add_argument("--start", default="2026-01-05T00:00:00Z", help="day 1 (a Monday)")
    ap.add_argument("--home", help="MNEMO_HOME to use (default: a new temporary folder)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    result = run(args)
    if args.json:
        print(json.dumps(result))
    else:
        print(table(result))
        print(f"\n{args.memories} memories, {args.days} days, seed {args.seed}, embedder {args.embedder}: "
              f"{result['seconds']} s")


if __name__ == "__main__":
    main()
