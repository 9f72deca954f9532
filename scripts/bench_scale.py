"""mnemo at scale: 100,000 memories and a 5,000-note vault behind one daemon.

    .venv/bin/python scripts/bench_scale.py [--n 100000] [--notes 5000] [--model all-MiniLM-L6-v2] [--json]
    .venv/bin/python scripts/bench_scale.py --reuse DIR   # time recall, save and memory again on a kept run

On a throwaway home and vault: writes N generated notes, starts a real daemon (the real model
unless --model says otherwise; scheduled jobs and the watcher off, so nothing runs beside what
is measured), then through the daemon's API

- indexes the vault (notes/s, chunks/s),
- imports N memories (memories/s: classification, embedding, surprise check, SQLite, Chroma),
- times recall (k = 10, memories and notes, reinforcing; target p50/p95 under 60 ms) and save,

(``--keep`` keeps the built home and vault; ``--reuse DIR`` starts a daemon on them and times
only recall and save, which is how a change to the read path is measured without an hour of
building), and prints the daemon's resident memory (now and its peak, from /proc; target under 1.5 GB)
and the disk used by the store, the index and the vault. Embedding 100k texts with MiniLM
takes about 8-10 minutes on 2 cores: run it in the background, or with a smaller --n. It is a
benchmark, not a test: it runs outside the suite.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

from mnemo.client import RemoteMnemo
from mnemo.daemon.process import start_daemon, stop_daemon

SUBJECTS = ["the billing service", "our API", "Alice", "the deploy pipeline", "the database", "Bob", "the mobile app",
            "the search index", "the design team", "the staging cluster", "Carol", "the auth service", "Dmitri",
            "the data warehouse", "the support team", "the CDN", "Erin", "the payments gateway"]
VERBS = ["depends on", "was migrated to", "prefers", "failed because of", "is owned by", "talks to", "replaced",
         "is blocked by", "was benchmarked against", "needs", "decided to drop", "caches", "monitors", "retries"]
OBJECTS = ["PostgreSQL", "a Redis cache", "dark mode", "a TimeoutError", "the platform team", "Kafka", "JWT tokens",
           "the new CDN", "weekly releases", "a feature flag", "gRPC", "the EU region", "S3 backups", "OAuth scopes",
           "a circuit breaker", "the nightly batch"]
WHEN = ["since March", "as of the last sprint", "per the retro", "after the outage", "for the Q3 launch",
        "until further notice", "in staging only", "for enterprise customers"]
QUERIES = ["which database do we use", "why did the deploy fail", "who owns the billing service", "what does Alice prefer",
           "what replaced Kafka", "cache for the API", "what is blocked", "feature flags in the mobile app",
           "the staging cluster timeout", "JWT tokens in the auth service", "nightly batch in the data warehouse",
           "circuit breaker for the payments gateway", "OAuth scopes for the support team", "S3 backups of the CDN"]
FOLDERS = ["Projects", "Areas", "People", "Meetings", "Reference", "Journal"]


def memory_text(rnd: random.Random, i: int) -> str:
    return (f"{rnd.choice(SUBJECTS).capitalize()} {rnd.choice(VERBS)} {rnd.choice(OBJECTS)} "
            f"({rnd.choice(WHEN)}; item {i}).")


def write_vault(vault: Path, n: int, seed: int = 5) -> int:
    """N notes in a few folders: frontmatter, 2-4 sections of sentences, links between notes."""
    rnd = random.Random(seed)
    words = 0
    for i in range(n):
        folder = vault / FOLDERS[i % len(FOLDERS)]
        folder.mkdir(parents=True, exist_ok=True)
        sections = []
        for s in range(rnd.randint(2, 4)):
            body = " ".join(memory_text(rnd, i * 10 + k) for k in range(rnd.randint(3, 8)))
            sections.append(f"## Section {s + 1}\n\n{body} See [[Note {rnd.randrange(n)}]].")
        text = f"---\ntags: [{FOLDERS[i % len(FOLDERS)].lower()}, bench]\n---\n# Note {i}\n\n" + "\n\n".join(sections) + "\n"
        words += len(text.split())
        (folder / f"Note {i}.md").write_text(text)
    return words


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def rss_mb(pid: int) -> dict[str, float]:
    """Resident memory of a process now (VmRSS) and at its peak (VmHWM), in MB."""
    out: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = round(int(value.split()[0]) / 1024, 1)
    return out


def reset_peak(pid: int) -> None:
    """Start VmHWM afresh (Linux: ``5`` in clear_refs), so each phase reports its own peak."""
    with contextlib.suppress(OSError):
        Path(f"/proc/{pid}/clear_refs").write_text("5")


def du_mb(path: Path) -> float:
    if path.is_file():
        return round(path.lstat().st_blocks * 512 / 2**20, 1)
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
    return round(total / 2**20, 1)


def prepare(args: argparse.Namespace, prefix: str) -> tuple[Path, dict[str, str]]:
    """The run's folder (``home/`` and ``vault/``: new, or the kept one ``--reuse`` names) and
    the daemon's environment (the model; scheduled jobs and the watcher off), set here too."""
    reuse = args.reuse is not None
    if reuse and not (args.reuse / "home" / "mnemo.db").is_file():
        sys.exit(f"Error: {args.reuse} is not a folder kept by --keep (no home/mnemo.db)")
    tmp = args.reuse if reuse else Path(tempfile.mkdtemp(prefix=prefix))
    (tmp / "vault").mkdir(exist_ok=reuse)
    quiet = {f"MNEMO_DAEMON_{job.upper()}_INTERVAL": "0" for job in ("activity", "promote", "gc", "enrich", "dashboard", "dream")}
    env = {"MNEMO_EMBEDDING_MODEL": args.model, "HF_HUB_OFFLINE": "1", "MNEMO_DAEMON_WATCH": "0", **quiet}
    os.environ.update(env)
    return tmp, env


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000, help="memories")
    ap.add_argument("--notes", type=int, default=5_000, help="vault notes")
    ap.add_argument("--model", default="all-MiniLM-L6-v2")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the throwaway home and vault")
    ap.add_argument("--reuse", type=Path, metavar="DIR", help="a kept run's folder: time recall and save only")
    args = ap.parse_args()

    tmp, env = prepare(args, "mnemo-bench-scale-")
    reuse = args.reuse is not None
    home, vault = tmp / "home", tmp / "vault"
    out: dict[str, object] = {"memories": args.n, "notes": args.notes, "model": args.model, "cores": os.cpu_count()}

    t0 = time.perf_counter()
    if not reuse:
        out["vault_words"] = write_vault(vault, args.notes)
        out["vault_written_s"] = round(time.perf_counter() - t0, 1)
    t0 = time.perf_counter()
    info = start_daemon(home, vault=vault, timeout=600, extra_env=env)
    out["daemon_start_s"] = round(time.perf_counter() - t0, 2)
    pid = int(info["pid"])
    client = RemoteMnemo.connect(home)
    assert client is not None
    while not client.daemon_status().get("warm") and time.perf_counter() - t0 < 120:
        time.sleep(0.1)  # timings are of a warmed daemon; the warm-up's length is printed
    out["daemon_warm_s"] = round(time.perf_counter() - t0, 2)
    try:
        out["rss_started_mb"] = rss_mb(pid)["VmRSS"]
        rnd = random.Random(11)
        if not reuse:
            build(client, args, tmp, rnd, out, pid)
        reset_peak(pid)
        recalls: list[float] = []
        for i in range(args.queries):
            q = QUERIES[i % len(QUERIES)] + ("" if i < len(QUERIES) else f" {rnd.choice(OBJECTS)}")
            t0 = time.perf_counter()
            client.recall(q, k=10)
            recalls.append((time.perf_counter() - t0) * 1000)
        saves: list[float] = []
        for i in range(max(20, args.queries // 4)):
            t0 = time.perf_counter()
            client.save(memory_text(rnd, args.n + i))
            saves.append((time.perf_counter() - t0) * 1000)
        out["recall_ms"] = {"p50": round(pct(recalls, 50), 1), "p95": round(pct(recalls, 95), 1)}
        out["save_ms"] = {"p50": round(pct(saves, 50), 1), "p95": round(pct(saves, 95), 1)}
        mem = rss_mb(pid)
        out["rss_mb"], out["rss_peak_mb"] = mem["VmRSS"], mem["VmHWM"]
        stats = client.stats()
        out["stored"] = {"memories": stats.memories, "notes": stats.notes, "chunks": stats.chunks}
    finally:
        stop_daemon(home)
    out["disk_mb"] = {"store": round(sum(du_mb(p) for p in home.glob("mnemo.db*")), 1), "index": du_mb(home / "chroma"),
                      "home": du_mb(home), "vault": du_mb(vault)}
    out["load_average"] = round(os.getloadavg()[0], 1)
    if not args.keep and not reuse:
        shutil.rmtree(tmp, ignore_errors=True)

    if args.json:
        print(json.dumps(out))
        return
    rec, sv, disk, st = out["recall_ms"], out["save_ms"], out["disk_mb"], out["stored"]
    print(f"mnemo at scale: {st['memories']:,} memories, {st['notes']:,} notes ({st['chunks']:,} chunks), "
          f"{args.model}, {out['cores']} cores")
    print(f"  daemon start                  {out['daemon_start_s']:.1f} s, warm at {out['daemon_warm_s']:.1f} s "
          f"(RSS {out['rss_started_mb']:.0f} MB when warm)")
    if not reuse:
        v, imp = out["vault_index"], out["import"]
        print(f"  vault index                   {v['s']:.0f} s: {v['notes_per_s']:.1f} notes/s, {v['chunks']:,} chunks, "
              f"{v['chunks_per_s']:.1f} chunks/s ({out['vault_words']:,} words); peak RSS {v['peak_mb']:.0f} MB")
        print(f"  import (ingest)               {imp['s']:.0f} s: {imp['per_s']:.0f} memories/s; peak RSS {imp['peak_mb']:.0f} MB")
    print(f"  recall through the API        p50 {rec['p50']:.1f} ms   p95 {rec['p95']:.1f} ms   (target < 60 ms)")
    print(f"  save through the API          p50 {sv['p50']:.1f} ms   p95 {sv['p95']:.1f} ms")
    print(f"  daemon RSS                    {out['rss_mb']:.0f} MB now, {out['rss_peak_mb']:.0f} MB peak while serving   "
          "(target < 1.5 GB)")
    print(f"  disk                          store {disk['store']:.0f} MB, vector index {disk['index']:.0f} MB, "
          f"home {disk['home']:.0f} MB; vault {disk['vault']:.0f} MB")
    print(f"  load average at the end: {out['load_average']} (other processes inflate every number)")
    if args.keep or reuse:
        print(f"  home: {home}  vault: {vault}")


def build(client: RemoteMnemo, args: argparse.Namespace, tmp: Path, rnd: random.Random, out: dict[str, object],
          pid: int) -> None:
    """Index the written vault and import N memories through the daemon, timing both (and the
    daemon's peak resident memory in each)."""
    reset_peak(pid)
    t0 = time.perf_counter()
    counts = client.index_vault()
    took = time.perf_counter() - t0
    out["vault_index"] = {"s": round(took, 1), "notes_per_s": round(args.notes / took, 1),
                          "chunks": counts.get("embedded"), "chunks_per_s": round((counts.get("embedded") or 0) / took, 1),
                          "peak_mb": rss_mb(pid)["VmHWM"]}
    _say(f"vault indexed in {took:.0f} s", args.json)

    path = tmp / "memories.jsonl"
    path.write_text("\n".join(json.dumps({"content": memory_text(rnd, i)}) for i in range(args.n)) + "\n")
    done = [0]

    def progress(k: int) -> None:
        done[0] += k
        if done[0] % 10_240 < k:
            _say(f"  imported {done[0]:,} of {args.n:,}", args.json)

    reset_peak(pid)
    t0 = time.perf_counter()
    saved = client.import_jsonl(str(path), progress=progress).saved
    took = time.perf_counter() - t0
    out["import"] = {"s": round(took, 1), "per_s": round(saved / took, 1), "peak_mb": rss_mb(pid)["VmHWM"]}
    _say(f"imported {saved:,} in {took:.0f} s", args.json)


def _say(text: str, quiet: bool) -> None:
    print(text, file=sys.stderr if quiet else sys.stdout, flush=True)


if __name__ == "__main__":
    main()
