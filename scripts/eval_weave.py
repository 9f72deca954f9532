"""Precision (and recall) of woven links on the labelled set of scripts/weave_labelled.py.

    .venv/bin/python scripts/eval_weave.py [--json]

On a throwaway home and vault with the real model: writes every note of the set, indexes the
vault, saves every memory, and for each memory ranks the person's notes by the cosine of their
best chunk (``vault.weave.candidates``). The threshold is chosen on the train topics only: the
lowest cosine whose train precision reaches ``weave.PRECISION_TARGET`` (precision first; among
those, the most recall). Then precision and recall at that threshold on the test topics, with
the in-sample (train) figures beside, and at the threshold in ``vault/weave.py`` (``THRESHOLD``).
A link counts as correct when the note is one of the memory's positives; near-misses (a shared
common word only) and every other note are wrong.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from weave_labelled import TOPICS, UNRELATED

from mnemo.config import load_settings
from mnemo.engine import Mnemo
from mnemo.vault import weave
from mnemo.vault.names import note_filename

GRID = [round(0.20 + 0.01 * i, 2) for i in range(71)]


def score(ranked: dict[str, list[weave.Neighbour]], split: str, t: float) -> dict[str, float]:
    tp = fp = pos = 0
    for topic in TOPICS:
        if topic["split"] != split:
            continue
        want = {f"{title}.md" for title in topic["positives"]}
        got = [nb.path for nb in ranked[topic["id"]] if nb.similarity >= t][: weave.MAX_WOVEN]
        tp += sum(p in want for p in got)
        fp += sum(p not in want for p in got)
        pos += len(want)
    return {"precision": round(tp / (tp + fp), 3) if tp + fp else 1.0, "recall": round(tp / pos, 3) if pos else 0.0,
            "links": tp + fp, "correct": tp, "positives": pos}


def choose(ranked: dict[str, list[weave.Neighbour]]) -> float:
    """The lowest threshold whose train precision reaches the target (and links something)."""
    for t in GRID:
        s = score(ranked, "train", t)
        if s["links"] and s["precision"] >= weave.PRECISION_TARGET:
            return t
    return GRID[-1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--curve", action="store_true", help="also print the train precision/recall at each threshold")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="mnemo-weave-") as tmp:
        vault = Path(tmp) / "vault"
        vault.mkdir()
        notes = dict(UNRELATED)
        for topic in TOPICS:
            notes.update(topic["positives"])
            notes.update(topic["near_miss"])
        for title, body in notes.items():
            (vault / note_filename(title)).write_text(body + "\n", encoding="utf-8")
        settings = load_settings(home=Path(tmp) / "home", vault=vault)
        with Mnemo(settings) as m:
            m.index_vault()
            ranked = {}
            for topic in TOPICS:
                mem = m.save(topic["memory"]).memory
                ranked[topic["id"]] = weave.candidates(m.core, mem)
    chosen = choose(ranked)
    if args.curve:
        for t in GRID:
            s = score(ranked, "train", t)
            print(f"train t={t:.2f} precision {s['precision']:.3f} recall {s['recall']:.3f} links {s['links']}", file=sys.stderr)
    out = {
        "notes": len(notes), "memories": len(TOPICS),
        "train_topics": sum(t["split"] == "train" for t in TOPICS), "test_topics": sum(t["split"] == "test" for t in TOPICS),
        "precision_target": weave.PRECISION_TARGET, "chosen_on_train": chosen,
        "test": score(ranked, "test", chosen), "train_in_sample": score(ranked, "train", chosen),
        "shipped_threshold": weave.THRESHOLD,
        "shipped": {"test": score(ranked, "test", weave.THRESHOLD), "train": score(ranked, "train", weave.THRESHOLD)},
    }
    if args.json:
        json.dump(out, sys.stdout, indent=1)
        print()
        return
    print(f"{out['notes']} notes, {out['memories']} memories ({out['train_topics']} train topics, {out['test_topics']} test)")
    print(f"threshold chosen on train (lowest with precision >= {weave.PRECISION_TARGET}): {chosen}")
    for name in ("test", "train_in_sample"):
        s = out[name]
        print(f"  {name:<16} precision {s['precision']:.3f}  recall {s['recall']:.3f}  "
              f"({s['correct']} of {s['links']} links right, {s['positives']} positives)")
    print(f"shipped threshold {weave.THRESHOLD}: test precision {out['shipped']['test']['precision']:.3f} "
          f"recall {out['shipped']['test']['recall']:.3f}; train precision {out['shipped']['train']['precision']:.3f} "
          f"recall {out['shipped']['train']['recall']:.3f}")


if __name__ == "__main__":
    main()
