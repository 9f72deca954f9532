"""How fast a chat export comes in: a generated ChatGPT export (message trees with an edit branch
each), read alone (the streaming parser) and then ingested for real into a throwaway home.

    .venv/bin/python scripts/bench_history.py [--conversations 200] [--turns 8] [--read-only N] [--hash]

Prints conversations/s and MB/s for the reader on a large export (``--read-only``, default 20,000
conversations), and conversations/s, turns/s and memories kept for the full ingest (the real
MiniLM model and spaCy unless ``--hash``), plus a second run's time (everything skipped).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

PEOPLE = ["Maya", "Tomas", "Ingrid", "Ravi", "Lena", "Omar", "Chen", "Sofia"]
THINGS = ["the billing service", "the mobile app", "the data pipeline", "the search index", "the onboarding flow",
          "the invoices bucket", "the garden irrigation", "the conference talk", "the backup job", "the release train"]
CHOICES = ["PostgreSQL", "Redis", "Kafka", "SQLite", "Rust", "Python", "Terraform", "Grafana", "S3", "Kubernetes"]
USER = [
    "We decided to use {c} for {t} because it is simpler to run.",
    "I prefer small pull requests when we change {t}.",
    "{p} owns {t} since March.",
    "The outage in {t} was caused by a full disk on the {c} host.",
    "Let's move {t} to {c} next quarter.",
    "Thanks, that helps.",
]
ASSISTANT = ["That sounds reasonable.", "Here is how {c} handles that: it keeps a write-ahead log.",
             "You could also consider {c}.", "Noted."]


def conversation(i: int, turns: int, rng: random.Random) -> dict:
    mapping = {"root": {"id": "root", "message": None, "parent": None, "children": []}}
    prev, t0 = "root", 1_760_000_000.0 + i * 3600
    for j in range(turns):
        role = "user" if j % 2 == 0 else "assistant"
        words = rng.choice(USER if role == "user" else ASSISTANT).format(p=rng.choice(PEOPLE), t=rng.choice(THINGS),
                                                                          c=rng.choice(CHOICES))
        nid = f"{i}-{j}"
        mapping[nid] = {"id": nid, "parent": prev, "children": [], "message": {
            "id": nid, "author": {"role": role}, "create_time": t0 + 60 * j, "recipient": "all",
            "content": {"content_type": "text", "parts": [words]}, "metadata": {}}}
        mapping[prev]["children"].append(nid)
        if j == 1:  # an abandoned edit branch beside the kept one
            alt = f"{i}-{j}-old"
            mapping[alt] = {"id": alt, "parent": prev, "children": [], "message": {
                "id": alt, "author": {"role": role}, "create_time": t0 + 30, "recipient": "all",
                "content": {"content_type": "text", "parts": ["An earlier draft that was regenerated."]}, "metadata": {}}}
            mapping[prev]["children"].append(alt)
        prev = nid
    return {"id": f"bench-{i:06d}", "title": f"Chat {i}", "create_time": t0, "update_time": t0 + 60 * turns,
            "mapping": mapping, "current_node": prev}


def write_export(path: Path, n: int, turns: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as fh:
        fh.write("[")
        for i in range(n):
            fh.write(("," if i else "") + json.dumps(conversation(i, turns, rng)))
        fh.write("]")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--conversations", type=int, default=200)
    ap.add_argument("--turns", type=int, default=8)
    ap.add_argument("--read-only", type=int, default=20000, help="conversations in the reader-only export")
    ap.add_argument("--hash", action="store_true", help="the hash embedder instead of MiniLM")
    args = ap.parse_args()

    from mnemo.sources import Conversation, reader

    with tempfile.TemporaryDirectory(prefix="mnemo-bench-history-") as tmp:
        work = Path(tmp)
        big = work / "big.json"
        write_export(big, args.read_only, args.turns)
        size = big.stat().st_size
        t0 = time.perf_counter()
        n = sum(1 for c in reader("chatgpt")(big, None) if isinstance(c, Conversation))
        dt = time.perf_counter() - t0
        print(f"reader: {n:,} conversations, {size / 1e6:.1f} MB in {dt:.2f} s = {n / dt:,.0f} conversations/s, "
              f"{size / 1e6 / dt:.1f} MB/s")

        os.environ["MNEMO_HOME"] = str(work / "home")
        if args.hash:
            os.environ["MNEMO_EMBEDDING_MODEL"] = "hash-64"
        from mnemo.config import load_settings
        from mnemo.connect import open_engine
        from mnemo.sources.run import ingest_export

        export = work / "conversations.json"
        write_export(export, args.conversations, args.turns)
        with open_engine(load_settings(), use_daemon=False) as m:
            m.core.embedder.embed(["warm up"])  # the model load is not the ingest's cost
            first = ingest_export(m, "chatgpt", export)
            again = ingest_export(m, "chatgpt", export)
        turns = first["conversations"] * args.turns
        print(f"ingest ({'hash embedder' if args.hash else 'MiniLM'} + spaCy): {first['conversations']} conversations, "
              f"{turns} turns in {first['seconds']:.1f} s = {first['conversations_per_second']} conversations/s, "
              f"{turns / first['seconds']:.1f} turns/s; {first['kept']} memories kept, {first['duplicates']} duplicates")
        print(f"second run: {again['already_ingested']} already ingested, {again['kept']} kept, {again['seconds']:.2f} s")


if __name__ == "__main__":
    main()
