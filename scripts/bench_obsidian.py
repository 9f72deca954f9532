"""The Obsidian pane's request at scale: 10,000 memories and a 5,000-note vault behind one daemon.

    nice .venv/bin/python scripts/bench_obsidian.py [--n 10000] [--notes 5000] [--queries 200] [--json]
    .venv/bin/python scripts/bench_obsidian.py --reuse DIR   # a run kept with --keep (here or by bench_scale)
    .venv/bin/python scripts/bench_obsidian.py --data DIR    # build into DIR once and keep it; reuse it after

Builds the data the way scripts/bench_scale.py does (its vault writer, memory texts and build
step: the vault indexed and the memories imported through the API, the real model, jobs and the
watcher off), then times what the plugin sends when a note is opened, through the daemon's API:
``related`` with the note's path and text (target p95 < 150 ms), and with a selection. It is a
benchmark, not a test: it runs outside the suite.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import tempfile
import time
from pathlib import Path

from bench_scale import build, pct, prepare, write_vault

from mnemo.client import RemoteMnemo
from mnemo.daemon.process import start_daemon, stop_daemon

TARGET_P95_MS = 150.0


def cpu_s(pid: int) -> float:
    """CPU seconds (user + system, all threads) a process has used, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000, help="memories")
    ap.add_argument("--notes", type=int, default=5_000, help="vault notes")
    ap.add_argument("--model", default="all-MiniLM-L6-v2")
    ap.add_argument("--queries", type=int, default=200, help="notes opened")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the throwaway home and vault")
    ap.add_argument("--reuse", type=Path, metavar="DIR", help="a kept run's folder: time the requests only")
    ap.add_argument("--data", type=Path, metavar="DIR",
                    help="build the data into DIR and keep it, or reuse it when DIR already holds a kept run")
    args = ap.parse_args()
    if args.data is not None:
        if (args.data / "home" / "mnemo.db").is_file():
            args.reuse = args.data
        else:
            args.data.mkdir(parents=True, exist_ok=True)
            tempfile.tempdir = str(args.data)  # prepare's fresh folder goes inside DIR
            args.keep = True

    tmp, env = prepare(args, "mnemo-bench-obsidian-")
    if args.data is not None and args.reuse is None:
        # the run's folder is DIR itself, so that --data DIR finds it next time
        for sub in ("vault",):
            (tmp / sub).rename(args.data / sub)
        tmp.rmdir()
        tmp = args.data
    reuse = args.reuse is not None
    home, vault = tmp / "home", tmp / "vault"
    out: dict[str, object] = {"memories": args.n, "notes": args.notes, "model": args.model, "cores": os.cpu_count()}
    if not reuse:
        write_vault(vault, args.notes)
    t0 = time.perf_counter()
    info = start_daemon(home, vault=vault, timeout=600, extra_env=env)
    client = RemoteMnemo.connect(home)
    assert client is not None
    while not client.daemon_status().get("warm") and time.perf_counter() - t0 < 120:
        time.sleep(0.1)  # timings are of a warmed daemon, as the plugin meets it
    try:
        rnd = random.Random(18)
        if not reuse or client.stats().memories < args.n:
            # (a kept vault already indexed re-indexes in a moment: only the import runs again)
            build(client, args, tmp, rnd, out, int(info["pid"]))
        notes = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md") if not p.name.startswith("."))
        opened = rnd.sample(notes, min(args.queries, len(notes)))
        pane: list[float] = []
        hits: list[int] = []
        cpu0 = cpu_s(int(info["pid"]))
        for rel in opened:
            content = (vault / rel).read_text(encoding="utf-8")
            t0 = time.perf_counter()
            r = client.call("related", {"path": rel, "content": content, "k": 10})
            pane.append((time.perf_counter() - t0) * 1000)
            hits.append(len(r["hits"]))
            assert all(h.get("path") != rel for h in r["hits"]), f"{rel} was listed as related to itself"
        out["pane_daemon_cpu_ms"] = round((cpu_s(int(info["pid"])) - cpu0) * 1000 / len(opened), 1)
        selection: list[float] = []
        for rel in opened[: max(20, len(opened) // 4)]:
            words = (vault / rel).read_text(encoding="utf-8").split()
            start = rnd.randrange(max(1, len(words) - 12))
            t0 = time.perf_counter()
            client.call("related", {"path": rel, "text": " ".join(words[start : start + 12]), "k": 10})
            selection.append((time.perf_counter() - t0) * 1000)
        stats = client.stats()
        out["stored"] = {"memories": stats.memories, "notes": stats.notes, "chunks": stats.chunks}
        out["pane_ms"] = {"p50": round(pct(pane, 50), 1), "p95": round(pct(pane, 95), 1), "max": round(max(pane), 1)}
        out["selection_ms"] = {"p50": round(pct(selection, 50), 1), "p95": round(pct(selection, 95), 1)}
        out["hits_per_note"] = round(sum(hits) / len(hits), 1)
    finally:
        stop_daemon(home)
    out["load_average"] = round(os.getloadavg()[0], 1)
    if not args.keep and not reuse:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        print(json.dumps(out))
        return
    st, p, s = out["stored"], out["pane_ms"], out["selection_ms"]
    print(f"the Obsidian pane at scale: {st['memories']:,} memories, {st['notes']:,} notes ({st['chunks']:,} chunks), "
          f"{args.model}, {out['cores']} cores")
    print(f"  related (a note opened)   p50 {p['p50']:.1f} ms   p95 {p['p95']:.1f} ms   max {p['max']:.1f} ms   "
          f"(target p95 < {TARGET_P95_MS:.0f} ms; {out['hits_per_note']} hits per note)")
    print(f"  ... the daemon's CPU time per request: {out['pane_daemon_cpu_ms']:.1f} ms (what load does not inflate)")
    print(f"  related (a selection)     p50 {s['p50']:.1f} ms   p95 {s['p95']:.1f} ms")
    print(f"  load average at the end: {out['load_average']} (other processes inflate every number)")
    if args.keep or reuse:
        print(f"  home: {home}  vault: {vault}")


if __name__ == "__main__":
    main()
