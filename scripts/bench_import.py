"""Import throughput against the bare embedder, in one run, on the same texts.

    .venv/bin/python scripts/bench_import.py [--n 1000] [--json]

Prints the bare embedder's texts/s (MiniLM, batched, model already loaded), `import`'s
memories/s through the engine (validation, token counts, classification, surprise, SQLite,
FTS5, Chroma), and their ratio. Target: ratio ≥ 0.80.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

from mnemo.config import load_settings
from mnemo.engine import Mnemo
from mnemo.nlp.embedder import make_embedder

SUBJECTS = ["the billing service", "our API", "Alice", "the deploy pipeline", "the database", "Bob", "the mobile app",
            "the search index", "the design team", "the staging cluster"]
VERBS = ["depends on", "was migrated to", "prefers", "failed because of", "is owned by", "talks to", "replaced",
         "is blocked by", "was benchmarked against", "needs"]
OBJECTS = ["PostgreSQL", "a Redis cache", "dark mode", "a TimeoutError", "the platform team", "Kafka", "JWT tokens",
           "the new CDN", "weekly releases", "a feature flag"]


def corpus(n: int, seed: int = 7) -> list[str]:
    rnd = random.Random(seed)
    return [
        f"{rnd.choice(SUBJECTS).capitalize()} {rnd.choice(VERBS)} {rnd.choice(OBJECTS)} "
        f"(note {i}, {rnd.choice(['since March', 'as of the last sprint', 'per the retro', 'after the outage'])})."
        for i in range(n)
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    texts = corpus(args.n)
    embedder = make_embedder("all-MiniLM-L6-v2")
    embedder.embed(texts[:64])  # load and warm the model outside both timings

    def bare_rate() -> float:
        t = time.perf_counter()
        embedder.embed(texts)
        return args.n / (time.perf_counter() - t)

    # The bare embedder is timed before and after the import and averaged, so load on the
    # machine that drifts during the run does not favour either side.
    before = bare_rate()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "import.jsonl"
        path.write_text("\n".join(json.dumps({"content": x, "tags": ["bench"]}) for x in texts) + "\n")
        settings = load_settings(home=Path(tmp) / "home")
        with Mnemo(settings, embedder=embedder) as m:
            _ = m.core.index  # open Chroma outside the timing, as a running daemon would have
            t = time.perf_counter()
            result = m.import_jsonl(path)
            seconds = time.perf_counter() - t
            stored = m.stats().memories
    bare = (before + bare_rate()) / 2
    rate = result.saved / seconds
    out = {"n": args.n, "stored": stored, "bare_embedder_per_s": round(bare, 1), "import_per_s": round(rate, 1),
           "ratio": round(rate / bare, 3), "target_ratio": 0.8}
    if args.json:
        print(json.dumps(out))
    else:
        print(f"texts: {args.n}   stored: {stored}")
        print(f"bare embedder : {bare:8.1f} texts/s")
        print(f"mnemo import  : {rate:8.1f} memories/s")
        print(f"ratio         : {rate / bare:8.3f}   (target ≥ 0.80)")
    sys.exit(0 if stored == args.n else 1)


if __name__ == "__main__":
    main()
