"""The daemon's latency at 10,000 memories, and what it buys the CLI.

    .venv/bin/python scripts/bench_daemon.py [--n 10000] [--model all-MiniLM-L6-v2] [--json]

On a throwaway home: starts a real daemon (`mnemo daemon start`, the real model unless
--model says otherwise), imports N memories through the API, then prints

- save and recall latency through the API (p50, p95; a thin client in this process),
- the wall time of a whole `mnemo recall` CLI process against the running daemon
  (target: under 0.5 s), and, in the same run, of the in-process CLI (no daemon: the command
  loads the model stack itself).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mnemo.client import RemoteMnemo
from mnemo.daemon.process import start_daemon, stop_daemon

SUBJECTS = ["the billing service", "our API", "Alice", "the deploy pipeline", "the database", "Bob", "the mobile app",
            "the search index", "the design team", "the staging cluster", "Carol", "the auth service"]
VERBS = ["depends on", "was migrated to", "prefers", "failed because of", "is owned by", "talks to", "replaced",
         "is blocked by", "was benchmarked against", "needs", "decided to drop", "caches"]
OBJECTS = ["PostgreSQL", "a Redis cache", "dark mode", "a TimeoutError", "the platform team", "Kafka", "JWT tokens",
           "the new CDN", "weekly releases", "a feature flag", "gRPC", "the EU region"]
WHEN = ["since March", "as of the last sprint", "per the retro", "after the outage", "for the Q3 launch", "until further notice"]
QUERIES = ["which database do we use", "why did the deploy fail", "who owns the billing service", "what does Alice prefer",
           "what replaced Kafka", "cache for the API", "what is blocked", "feature flags in the mobile app",
           "the staging cluster timeout", "JWT tokens in the auth service"]


def corpus(n: int, seed: int = 11) -> list[str]:
    rnd = random.Random(seed)
    return [f"{rnd.choice(SUBJECTS).capitalize()} {rnd.choice(VERBS)} {rnd.choice(OBJECTS)} "
            f"({rnd.choice(WHEN)}; item {i})." for i in range(n)]


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def cli_wall(args: list[str], env: dict[str, str], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        r = subprocess.run([sys.executable, "-m", "mnemo", *args], env=env, capture_output=True, text=True)
        out.append(time.perf_counter() - t0)
        if r.returncode != 0:
            raise SystemExit(f"mnemo {' '.join(args)} failed: {r.stderr}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--model", default="all-MiniLM-L6-v2")
    ap.add_argument("--ops", type=int, default=200, help="saves and recalls timed through the API")
    ap.add_argument("--cli-runs", type=int, default=10)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the throwaway home")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="mnemo-bench-daemon-"))
    home = tmp / "home"
    env = {**os.environ, "MNEMO_HOME": str(home), "MNEMO_EMBEDDING_MODEL": args.model, "HF_HUB_OFFLINE": "1"}
    os.environ.update({k: env[k] for k in ("MNEMO_EMBEDDING_MODEL", "HF_HUB_OFFLINE")})
    out: dict[str, object] = {"memories": args.n, "model": args.model}

    t0 = time.perf_counter()
    start_daemon(home, timeout=600)
    out["daemon_start_s"] = round(time.perf_counter() - t0, 2)
    client = RemoteMnemo.connect(home)
    assert client is not None
    try:
        path = tmp / "memories.jsonl"
        path.write_text("\n".join(json.dumps({"content": c}) for c in corpus(args.n)) + "\n")
        t0 = time.perf_counter()
        saved = client.import_jsonl(path).saved
        took = time.perf_counter() - t0
        out["import_per_s"] = round(saved / took, 1)

        rnd = random.Random(3)
        saves, recalls = [], []
        for i in range(args.ops):
            text = f"{rnd.choice(SUBJECTS).capitalize()} {rnd.choice(VERBS)} {rnd.choice(OBJECTS)} (bench save {i})."
            t0 = time.perf_counter()
            client.save(text)
            saves.append((time.perf_counter() - t0) * 1000)
        for i in range(args.ops):
            q = QUERIES[i % len(QUERIES)] + ("" if i < len(QUERIES) else f" {i}")
            t0 = time.perf_counter()
            client.recall(q, k=10)
            recalls.append((time.perf_counter() - t0) * 1000)
        out["save_ms"] = {"p50": round(pct(saves, 50), 1), "p95": round(pct(saves, 95), 1)}
        out["recall_ms"] = {"p50": round(pct(recalls, 50), 1), "p95": round(pct(recalls, 95), 1)}

        walls = cli_wall(["recall", "which database do we use", "--json"], env, args.cli_runs)
        out["cli_recall_via_daemon_s"] = {"p50": round(statistics.median(walls), 3), "max": round(max(walls), 3)}
    finally:
        stop_daemon(home)
    walls = cli_wall(["recall", "which database do we use", "--json"], env, max(2, args.cli_runs // 4))
    out["cli_recall_in_process_s"] = {"p50": round(statistics.median(walls), 3), "max": round(max(walls), 3)}
    out["load_average"] = round(os.getloadavg()[0], 1)
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)

    if args.json:
        print(json.dumps(out))
        return
    d, p = out["cli_recall_via_daemon_s"], out["cli_recall_in_process_s"]
    print(f"mnemo daemon at {args.n:,} memories ({args.model}, {os.cpu_count()} cores)")
    print(f"  daemon start (ready)              {out['daemon_start_s']:.2f} s")
    print(f"  import through the API            {out['import_per_s']:.0f} memories/s")
    print(f"  save through the API              p50 {out['save_ms']['p50']:.1f} ms   p95 {out['save_ms']['p95']:.1f} ms")
    print(f"  recall through the API            p50 {out['recall_ms']['p50']:.1f} ms   p95 {out['recall_ms']['p95']:.1f} ms")
    print(f"  `mnemo recall` CLI, via daemon    p50 {d['p50']:.3f} s   max {d['max']:.3f} s   (target < 0.5 s)")
    print(f"  `mnemo recall` CLI, in-process    p50 {p['p50']:.3f} s   max {p['max']:.3f} s")
    print(f"  load average during the run: {out['load_average']} (other processes inflate every number)")
    if args.keep:
        print(f"  home: {home}")


if __name__ == "__main__":
    main()
