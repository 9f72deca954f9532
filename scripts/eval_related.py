"""The pane's dense query: the note's stored vectors against its embedded opening words.

    .venv/bin/python scripts/eval_related.py [--data DIR] [--sample 200] [--among COPY] [--json]

``related`` (mnemo/vault/related.py) searches the vector side with the note's stored chunk
vectors when the index holds the note as it is, instead of embedding the note's first words.
Two ways to make one vector of a note were candidates: the mean of its chunk vectors, or its
first chunk's. They are compared with the embedded query (what ``related`` did before) in two
ways, each split in two up front (the choice is made on the first half, reported on the second):

1. The labelled set of scripts/weave_labelled.py (real model, a throwaway home and vault): each
   positive note opened in the pane should show its topic's memory and the topic's other
   positive notes. Reported: mean reciprocal rank of those and hit@10, train topics (the
   choice) and test topics; with ``--among COPY`` also among a kept run's 10,000 memories and
   5,000 notes (written into that copy, which keeps them).
2. A kept scripts/bench_obsidian.py run (``--data DIR``; its daemon must be stopped): overlap@10
   of the pane's hits with the stored vector against the embedded query, on a sample of notes
   split in two halves by a fixed seed.

It is an evaluation, not a test: it runs outside the suite.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from weave_labelled import TOPICS, UNRELATED

from mnemo.config import load_settings
from mnemo.core import Core
from mnemo.engine import Mnemo
from mnemo.models import Hit
from mnemo.recall.pipeline import recall
from mnemo.vault.names import note_filename
from mnemo.vault.related import is_own, note_query, stored_vector
from mnemo.vault.search import COLLECTION

K = 10


def mean_of_chunks(core: Core, rel: str, data: bytes) -> np.ndarray | None:
    """The alternative to the shipped first chunk: the mean of the note's chunk vectors."""
    if stored_vector(core, rel, data) is None:  # same conditions (indexed, unchanged, same model)
        return None
    row = core.store.note_at(rel)
    assert row is not None
    vecs = core.index.get_vectors(COLLECTION, core.store.note_chunk_ids(row.uid))
    mean = np.mean(np.stack(list(vecs.values())), axis=0)
    return mean / np.linalg.norm(mean)


MODES: dict[str, Callable[[Core, str, bytes], np.ndarray | None]] = {
    "embedded": lambda core, rel, data: None, "mean": mean_of_chunks, "first": stored_vector,
}


def pane(core: Core, rel: str, mode: str) -> list[Hit]:
    """The pane's hits for a note, with the dense query made the ``mode`` way."""
    data = (core.settings.vault / rel).read_bytes()  # type: ignore[operator]
    content = data.decode("utf-8")
    nq = note_query(core, rel, content=content)
    vec = MODES[mode](core, rel, data)
    if mode != "embedded" and vec is None:
        raise SystemExit(f"{rel} has no stored vector: is the vault indexed?")
    extra = core.settings.recall.max_chunks_per_note + 1
    hits = recall(core, nq.query, k=K + extra, touch=False, query_vector=vec)
    return [h for h in hits if not is_own(h, nq)][:K]


def key(h: Hit) -> str:
    return f"note:{h.path}" if h.tier == "ltm" and h.path else f"memory:{h.id}"


def labelled(among: Path | None = None) -> dict[str, Any]:
    """MRR and hit@10 of each positive note's topic (its memory, its topic's other positives):
    alone on a throwaway home and vault, or ``among`` a kept bench run's memories and notes
    (written into its vault's ``Labelled/`` folder and saved once; a copy of the run, since
    they stay)."""
    out: dict[str, Any] = {}
    with contextlib.ExitStack() as stack:
        if among is None:
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="mnemo-related-")))
            home, vault, folder = tmp / "home", tmp / "vault", ""
        else:
            home, vault, folder = among / "home", among / "vault", "Labelled/"
        (vault / folder).mkdir(parents=True, exist_ok=True)
        notes = dict(UNRELATED)
        for topic in TOPICS:
            notes.update(topic["positives"])
            notes.update(topic["near_miss"])
        for title, body in notes.items():
            (vault / folder / note_filename(title)).write_text(body + "\n", encoding="utf-8")
        saved = home / "labelled_memories.json"
        with Mnemo(load_settings(home=home, vault=vault)) as m:
            m.index_vault()
            if saved.is_file():
                memory_of = json.loads(saved.read_text())
            else:
                memory_of = {t["id"]: m.save(t["memory"]).memory.id for t in TOPICS}
                if among is not None:
                    saved.write_text(json.dumps(memory_of))
            for mode in MODES:
                rr: dict[str, list[float]] = {"train": [], "test": []}
                for topic in TOPICS:
                    for title in topic["positives"]:
                        rel = folder + note_filename(title)
                        want = {f"memory:{memory_of[topic['id']]}"} | {
                            f"note:{folder}{note_filename(t)}" for t in topic["positives"] if t != title}
                        got = [key(h) for h in pane(m.core, rel, mode)]
                        for w in want:
                            rr[topic["split"]].append(1 / (got.index(w) + 1) if w in got else 0.0)
                out[mode] = {split: {"mrr": round(float(np.mean(v)), 3), "hit@10": round(float(np.mean([x > 0 for x in v])), 3),
                                     "pairs": len(v)} for split, v in rr.items()}
    return out


def overlap(data_dir: Path, sample: int) -> dict[str, Any]:
    """overlap@10 of the stored-vector hits with the embedded-query hits, on two halves of a sample."""
    home, vault = data_dir / "home", data_dir / "vault"
    os.environ.setdefault("MNEMO_EMBEDDING_MODEL", "all-MiniLM-L6-v2")
    notes = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md") if not p.name.startswith("."))
    picked = random.Random(1818).sample(notes, min(sample, len(notes)))
    halves = {"choose": picked[: len(picked) // 2], "report": picked[len(picked) // 2:]}
    out: dict[str, Any] = {}
    with Mnemo(load_settings(home=home, vault=vault)) as m:
        for half, rels in halves.items():
            scores: dict[str, list[float]] = {"mean": [], "first": []}
            memories: dict[str, list[int]] = {"embedded": [], "mean": [], "first": []}
            for rel in rels:
                base = {key(h) for h in pane(m.core, rel, "embedded")}
                memories["embedded"].append(sum(k.startswith("memory:") for k in base))
                for mode in scores:
                    got = {key(h) for h in pane(m.core, rel, mode)}
                    scores[mode].append(len(base & got) / max(1, len(base)))
                    memories[mode].append(sum(k.startswith("memory:") for k in got))
            out[half] = {mode: round(float(np.mean(v)), 3) for mode, v in scores.items()} | {"notes": len(rels)} | {
                "memories_in_10": {mode: round(float(np.mean(v)), 2) for mode, v in memories.items()}}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, metavar="DIR", help="a kept scripts/bench_obsidian.py run (daemon stopped)")
    ap.add_argument("--sample", type=int, default=200, help="notes of the kept run to compare")
    ap.add_argument("--among", type=Path, metavar="DIR",
                    help="a copy of a kept run: the labelled set again, among its memories and notes (written into it)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    out: dict[str, Any] = {"labelled": labelled()}
    if args.among is not None:
        out["labelled_among"] = labelled(args.among)
    if args.data is not None:
        out["overlap@10"] = overlap(args.data, args.sample)
    if args.json:
        json.dump(out, sys.stdout, indent=1)
        print()
        return
    for name, what in (("labelled", "alone"), ("labelled_among", "among the kept run's memories and notes")):
        if name not in out:
            continue
        print(f"labelled set {what}: MRR / hit@10 of a positive note's topic in its pane (test topics first, train beside)")
        for mode, s in out[name].items():
            print(f"  {mode:<9} test {s['test']['mrr']:.3f} / {s['test']['hit@10']:.3f} ({s['test']['pairs']} pairs)   "
                  f"train {s['train']['mrr']:.3f} / {s['train']['hit@10']:.3f} ({s['train']['pairs']} pairs)")
    if "overlap@10" in out:
        o = out["overlap@10"]
        print("bench vault: overlap@10 with the embedded query (report half first, choose half beside)")
        for mode in ("mean", "first"):
            print(f"  {mode:<9} report {o['report'][mode]:.3f} ({o['report']['notes']} notes)   "
                  f"choose {o['choose'][mode]:.3f} ({o['choose']['notes']} notes)")
        print("  memories among the 10 hits (report half): " + ", ".join(
            f"{mode} {v:.2f}" for mode, v in o["report"]["memories_in_10"].items()))


if __name__ == "__main__":
    main()
