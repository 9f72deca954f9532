"""Benchmark of the vault tier: index a generated 1,000-note vault, re-index it unchanged, and
recall over it.

    .venv/bin/python scripts/bench_vault.py [--notes 1000] [--model all-MiniLM-L6-v2|hash-64] [--queries 30]

Prints the first index (notes/s, chunks/s), a no-change re-index (target: under 5% of the first),
a re-index after editing 1% of the notes, and recall latency (note candidates alone, and the
whole ``recall`` pipeline). Everything happens in a throwaway home and vault.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from mnemo.config import load_settings
from mnemo.engine import Mnemo
from mnemo.vault.search import chunk_hits, note_candidates

TOPICS = ["database", "deploy", "kubernetes", "budget", "hiring", "design", "security", "billing", "search",
          "mobile", "analytics", "backup", "latency", "onboarding", "pricing", "roadmap", "incident", "testing"]
_TEXT = ("the team agreed that we should keep the current approach because it is simpler to operate and "
         "cheaper to run while the new option needs more work before it can replace what we have today "
         "several people raised concerns about the migration plan the timeline and the cost of running "
         "both systems at once so we will revisit this after the next release when the numbers are in")
WORDS = _TEXT.split(" ")


def make_vault(root: Path, n: int, seed: int = 7) -> int:
    rng = random.Random(seed)
    titles = [f"{rng.choice(TOPICS).title()} note {i:04d}" for i in range(n)]
    total_words = 0
    for i, title in enumerate(titles):
        topic = title.split()[0].lower()
        folder = root / ("Projects" if i % 3 == 0 else "Notes" if i % 3 == 1 else "Daily")
        folder.mkdir(parents=True, exist_ok=True)
        sections = []
        for s in range(rng.randint(1, 4)):
            words = [rng.choice(WORDS) for _ in range(rng.randint(60, 220))]
            words.insert(rng.randrange(len(words)), topic)
            sections.append(f"## Part {s + 1}: {topic}\n\n" + " ".join(words) + f" See [[{rng.choice(titles)}]].")
            total_words += len(words)
        front = f"---\ntags: [{topic}, bench]\naliases: []\n---\n" if i % 2 == 0 else ""
        (folder / f"{title}.md").write_text(front + f"# {title}\n\n" + "\n\n".join(sections) + "\n", encoding="utf-8")
    return total_words


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--notes", type=int, default=1000)
    ap.add_argument("--model", default="all-MiniLM-L6-v2")
    ap.add_argument("--queries", type=int, default=30)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="mnemo-bench-vault-"))
    vault = work / "vault"
    words = make_vault(vault, args.notes)
    settings = load_settings(home=work / "home", vault=vault, overrides={"embedding.model": args.model})
    with Mnemo(settings) as m:
        t = time.perf_counter()
        m.core.embedder.embed(["warm up the model"])
        _ = m.core.index
        print(f"model {m.core.embedder.name}: loaded in {time.perf_counter() - t:.1f}s")
        print(f"vault: {args.notes} notes, {words} words in {vault}")

        t = time.perf_counter()
        first = m.index_vault()
        t_first = time.perf_counter() - t
        chunks = m.stats().chunks
        print(f"first index:      {t_first:7.2f}s  {args.notes / t_first:7.1f} notes/s  {chunks / t_first:7.1f} chunks/s"
              f"  ({chunks} chunks, {first['embedded']} embedded)")

        # The floor: the bare embedder on the same chunk texts (the model is most of the cost).
        from mnemo.vault.chunk import Chunk, embed_text

        sample = [embed_text(r[0], Chunk(0, r[1], r[2], 0)) for r in m.core.store.query(
            "SELECT n.title, c.heading, c.content FROM chunks c JOIN notes n ON n.uid = c.note_uid LIMIT 200")]
        t = time.perf_counter()
        m.core.embedder.embed(sample)
        bare = len(sample) / (time.perf_counter() - t)
        print(f"bare embedder:    {bare:7.1f} chunks/s on the same chunks"
              f" (indexing runs at {100 * chunks / t_first / bare:.0f}% of it)")

        t = time.perf_counter()
        again = m.index_vault()
        t_again = time.perf_counter() - t
        print(f"no-change index:  {t_again:7.3f}s  = {100 * t_again / t_first:.2f}% of the first (target < 5%)"
              f"  ({again['unchanged']} unchanged, {again['embedded']} embedded)")

        rng = random.Random(11)
        edited = rng.sample(sorted(vault.rglob("*.md")), max(1, args.notes // 100))
        for p in edited:
            p.write_text(p.read_text(encoding="utf-8") + "\nOne more line about the budget.\n", encoding="utf-8")
        t = time.perf_counter()
        changed = m.index_vault()
        t_changed = time.perf_counter() - t
        print(f"1% edited index:  {t_changed:7.3f}s  ({changed['changed']} changed, {changed['embedded']} chunks embedded)")

        queries = [f"what did we decide about the {rng.choice(TOPICS)} {rng.choice(['plan', 'cost', 'migration'])}"
                   for _ in range(args.queries)]
        cand, full = [], []
        for q in queries:
            t = time.perf_counter()
            bm, vec = note_candidates(m.core, q, m.core.embedder.embed_query(q), 50)
            chunk_hits(m.core, [i for i, _ in bm[:10]] + [i for i, _ in vec[:10]])
            cand.append(time.perf_counter() - t)
            t = time.perf_counter()
            try:
                m.recall(q, k=10, touch=False)
            except Exception as exc:  # noqa: BLE001 - a benchmark reports, it does not stop
                print(f"recall failed: {exc!r}", file=sys.stderr)
                break
            full.append(time.perf_counter() - t)

        def ms(xs: list[float]) -> str:
            xs = sorted(xs)
            return f"p50 {1000 * statistics.median(xs):6.1f} ms  p95 {1000 * xs[int(0.95 * (len(xs) - 1))]:6.1f} ms"

        print(f"note candidates:  {ms(cand)}  (query embedding + BM25 + vector + hits, {len(queries)} queries)")
        if full:
            print(f"recall (all):     {ms(full)}")
    print(f"work folder: {work}", file=sys.stderr)


if __name__ == "__main__":
    main()
