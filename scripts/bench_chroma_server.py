#!/usr/bin/env python3
"""Chroma server mode: what moving an index costs, and recall against a server vs embedded.

Starts ``chroma run`` on a free loopback port with a temporary folder, fills a temporary home
with N memories (the real MiniLM model), then times:

- ``reindex --to URL`` (``Mnemo.move_index``): the vectors are copied, nothing is re-embedded;
- ``reindex`` on the server: everything re-embedded from the store (what a move without copying
  would cost);
- recall latency (p50/p95, ``touch=False``) with the embedded index and with the server.

Usage: scripts/bench_chroma_server.py [--n 5000] [--queries 100]. Prints numbers; not a test.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

WORDS = ["database", "cache", "deploy", "invoice", "billing", "alert", "metric", "tenant", "rollout", "backup", "schema", "index", "queue", "worker", "latency", "budget", "release", "design", "review", "incident", "customer", "payment", "refund", "report", "dashboard", "login", "token", "migration", "cluster", "replica", "storage", "network", "timeout", "retry", "feature", "flag", "experiment"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(path: Path) -> tuple[subprocess.Popen[bytes], str]:
    from mnemo.index.chroma_server import probe

    port = free_port()
    chroma = Path(sys.executable).with_name("chroma")
    proc = subprocess.Popen([str(chroma), "run", "--host", "127.0.0.1", "--port", str(port), "--path", str(path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        if proc.poll() is not None:
            raise SystemExit(f"chroma run exited with {proc.returncode}")
        try:
            probe(url, timeout=1.0)
            return proc, url
        except Exception:  # noqa: BLE001 - not up yet
            time.sleep(0.05)
    raise SystemExit("chroma run did not start")


def sentence(rng: random.Random, i: int) -> str:
    return f"Note {i}: the {' '.join(rng.choice(WORDS) for _ in range(12))}."


def recall_times(m, queries: list[str]) -> tuple[float, float]:  # noqa: ANN001
    times = []
    for q in queries:
        t = time.perf_counter()
        m.recall(q, k=10, touch=False)
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95) - 1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--queries", type=int, default=100)
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from mnemo.config import load_settings
    from mnemo.engine import Mnemo

    tmp = Path(tempfile.mkdtemp(prefix="mnemo-bench-chroma-"))
    proc, url = start_server(tmp / "server")
    try:
        rng = random.Random(7)
        m = Mnemo(load_settings(home=tmp / "home", env={}))
        t = time.perf_counter()
        m.save_many([{"content": sentence(rng, i)} for i in range(args.n)])
        ingest = time.perf_counter() - t
        queries = [" ".join(rng.choice(WORDS) for _ in range(4)) for _ in range(args.queries)]
        recall_times(m, queries[:5])  # warm up
        emb_p50, emb_p95 = recall_times(m, queries)
        t = time.perf_counter()
        moved = m.move_index(url)
        copy_s = time.perf_counter() - t
        recall_times(m, queries[:5])
        srv_p50, srv_p95 = recall_times(m, queries)
        t = time.perf_counter()
        m.reindex()
        reembed_s = time.perf_counter() - t
        m.close()
        print(f"memories: {args.n} (MiniLM, saved in {ingest:.1f} s)")
        print(f"reindex --to server (copy):        {copy_s:6.2f} s  ({moved['memories']} vectors, {moved['memories'] / copy_s:,.0f}/s)")
        print(f"reindex on the server (re-embed):  {reembed_s:6.2f} s  ({args.n / reembed_s:,.0f}/s)")
        print(f"recall p50/p95, embedded index:    {emb_p50:6.1f} / {emb_p95:.1f} ms")
        print(f"recall p50/p95, Chroma server:     {srv_p50:6.1f} / {srv_p95:.1f} ms")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
