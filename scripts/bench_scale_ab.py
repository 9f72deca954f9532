"""Recall through the daemon at scale, two versions of the code side by side on one kept store.

    .venv/bin/python scripts/bench_scale_ab.py STORE before=/path/to/checkout after=/path/to/checkout
        [--queries 200] [--touch 1|0] [--scratch DIR] [--json]

STORE is a folder kept by ``bench_scale.py --keep`` (``home/`` and ``vault/``); it is never
written: each version gets a fresh copy of it (under --scratch) and its own daemon, started
from that checkout's code (``PYTHONPATH``), as ``bench_scale.py --reuse`` starts one. Both are
warmed, then the bench's recall queries go to both, one query at a time, alternating which
daemon is asked first. Per version: p50 and mean wall time of a recall (k = 10, reinforcing
unless ``--touch 0``), and the daemon's own CPU time per recall (utime + stime of its process
from /proc, 10 ms ticks: the mean is the figure). Run one after the other, two versions of the
same code differed by more than 20 ms on a busy machine; side by side, the load falls on both.
It is a benchmark, not a test: it runs outside the suite.
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
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_scale import OBJECTS, QUERIES  # noqa: E402

from mnemo.client import RemoteMnemo  # noqa: E402
from mnemo.daemon.process import start_daemon, stop_daemon  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
QUIET = {f"MNEMO_DAEMON_{job.upper()}_INTERVAL": "0" for job in ("activity", "promote", "gc", "enrich", "dashboard", "dream")}


def cpu_ms(pid: int) -> float:
    """User + system CPU time of a process so far, in ms."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK * 1000


def queries(n: int) -> list[str]:
    """The queries of ``bench_scale.py``, in its order."""
    rnd = random.Random(11)
    return [QUERIES[i % len(QUERIES)] + ("" if i < len(QUERIES) else f" {rnd.choice(OBJECTS)}") for i in range(n)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("store", type=Path, help="a folder kept by bench_scale.py --keep (copied, never written)")
    ap.add_argument("versions", nargs=2, metavar="NAME=CHECKOUT")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--touch", choices=("0", "1"), default="1")
    ap.add_argument("--scratch", type=Path, default=None, help="where the copies go (default: beside STORE)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if not (args.store / "home" / "mnemo.db").is_file():
        sys.exit(f"Error: {args.store} is not a folder kept by bench_scale.py --keep (no home/mnemo.db)")
    versions = dict(v.split("=", 1) for v in args.versions)
    scratch = args.scratch or args.store.parent / f"{args.store.name}-ab"
    clients: dict[str, RemoteMnemo] = {}
    pids: dict[str, int] = {}
    homes: dict[str, Path] = {}
    try:
        for name, checkout in versions.items():
            copy = scratch / name
            shutil.rmtree(copy, ignore_errors=True)
            copy.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(["cp", "-a", str(args.store), str(copy)], check=True)
            for stale in ("owner.lock", "daemon.json"):
                (copy / "home" / stale).unlink(missing_ok=True)
            env = {"MNEMO_EMBEDDING_MODEL": "all-MiniLM-L6-v2", "HF_HUB_OFFLINE": "1", "MNEMO_DAEMON_WATCH": "0", **QUIET,
                   "PYTHONPATH": str(Path(checkout).resolve())}
            info = start_daemon(copy / "home", vault=copy / "vault", timeout=600, extra_env=env)
            pids[name], homes[name] = int(info["pid"]), copy / "home"
            client = RemoteMnemo.connect(copy / "home")
            assert client is not None
            clients[name] = client
        for client in clients.values():
            t0 = time.perf_counter()
            while not client.daemon_status().get("warm") and time.perf_counter() - t0 < 120:
                time.sleep(0.1)
        load = [round(os.getloadavg()[0], 2)]
        wall: dict[str, list[float]] = {n: [] for n in versions}
        cpu: dict[str, list[float]] = {n: [] for n in versions}
        order = list(versions)
        for i, q in enumerate(queries(args.queries)):
            for name in order if i % 2 == 0 else order[::-1]:
                c0, t0 = cpu_ms(pids[name]), time.perf_counter()
                clients[name].recall(q, k=10, touch=args.touch == "1")
                wall[name].append((time.perf_counter() - t0) * 1000)
                cpu[name].append(cpu_ms(pids[name]) - c0)
        load.append(round(os.getloadavg()[0], 2))
    finally:
        for home in homes.values():
            stop_daemon(home)
        shutil.rmtree(scratch, ignore_errors=True)
    out = {name: {"recall_p50_ms": round(statistics.median(wall[name]), 1), "recall_mean_ms": round(statistics.mean(wall[name]), 1),
                  "daemon_cpu_mean_ms": round(statistics.mean(cpu[name]), 1)} for name in versions}
    if args.json:
        print(json.dumps({**out, "load_average": load, "touch": args.touch == "1", "queries": args.queries}))
        return
    print(f"Recall through the daemon, side by side ({args.queries} queries each, k=10, touch={args.touch}), "
          f"load average {load[0]} -> {load[1]}")
    for name, r in out.items():
        print(f"  {name:10s} p50 {r['recall_p50_ms']:6.1f} ms   mean {r['recall_mean_ms']:6.1f} ms   "
              f"daemon CPU {r['daemon_cpu_mean_ms']:5.1f} ms a recall")


if __name__ == "__main__":
    main()
