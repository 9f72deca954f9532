"""How far two careful readers of the same conversations agree, scored exactly as `ingest` is.

A labelled split is one writer's reading. The goals of #16 (types 0.85, causal precision 0.9)
are measured against such a reading, so the first question about any shortfall is how a second
careful reader, labelling the same text blind, would score against the first. This script takes
the second reading as if it were the extractor's output: every unit the second reader did not
call chatter is a kept memory of that type, every link the second reader drew is a made link, and
``tests.labelled_set.score`` scores it against the first reading with the very arithmetic
``scripts/eval_labelled.py`` applies to `ingest` (statements kept, chatter kept, types, link
precision and recall, near-misses linked). It prints the same in the other direction (the first
reading scored against the second) and a 95% bootstrap interval over conversations.

    .venv/bin/python scripts/agreement.py tests/labelled/test17.txt tests/labelled/second/test17.txt
    .venv/bin/python scripts/agreement.py FIRST SECOND --json
    .venv/bin/python scripts/agreement.py FIRST SECOND --decision-effects   # only links into decisions
    .venv/bin/python scripts/agreement.py FIRST SECOND --ingest   # and `ingest` on the same conversations

The two files must hold the same units in the same order for every conversation they share
(the second reading is made from the first's text with the labels removed); a conversation
only one of them has is skipped, a unit whose text differs is an error.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.labelled_set import Conversation, Score, parse, score  # noqa: E402

BOOTSTRAP = 2000
SEED = 0


def as_output(reading: Conversation, decision_effects: bool = False) -> tuple[list[dict], list[tuple[str, str, str]]]:
    """A reading put in the shape ``score`` takes from `ingest`: one memory per unit that is not
    chatter (its id the unit's position), one ``because`` link per cause the reading marks.
    With ``decision_effects`` only links into a unit the reading types ``decision`` are kept:
    the splits' convention is that every effect is a decision or fix (a diagnosis explaining a
    symptom is not labelled a link), and `ingest` too links only into decisions, so a reader who
    also links causes of facts is scored on the links the convention asks for."""
    ids = {id(u): f"u{i}" for i, u in enumerate(reading.units)}
    memories = [{"id": ids[id(u)], "turn": u.turn, "content": u.text, "type": u.type}
                for u in reading.units if u.type != "chatter"]
    links = [(ids[id(cause)], ids[id(effect)], "because") for cause, effect in reading.links()
             if not decision_effects or effect.type == "decision"]
    return memories, links


def aligned(first: list[Conversation], second: list[Conversation]) -> list[tuple[Conversation, Conversation]]:
    """The conversations both readings hold, checked unit by unit."""
    theirs = {c.cid: c for c in second}
    pairs = []
    for conv in first:
        other = theirs.get(conv.cid)
        if other is None:
            continue
        a, b = [u.text for u in conv.units], [u.text for u in other.units]
        if a != b:
            bad = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
            raise ValueError(f"{conv.cid}: the readings differ at unit {bad + 1} ({len(a)} vs {len(b)} units)")
        pairs.append((conv, other))
    return pairs


def scores(pairs: list[tuple[Conversation, Conversation]], decision_effects: bool = False) -> list[Score]:
    """Per conversation: the second reading scored against the first."""
    return [score(gold, *as_output(other, decision_effects)) for gold, other in pairs]


def pooled(rows: list[Score]) -> Score:
    total = Score()
    for row in rows:
        total.add(row)
    return total


def interval(rows: list[Score], key: str, rng: np.random.Generator) -> tuple[float, float]:
    """95% percentile interval of a pooled figure, resampling conversations."""
    vals = []
    for _ in range(BOOTSTRAP):
        pick = rng.integers(0, len(rows), len(rows))
        vals.append(pooled([rows[i] for i in pick]).summary()[key])
    lo, hi = np.percentile(vals, [2.5, 97.5])
    return round(float(lo), 3), round(float(hi), 3)


KEYS = ("statements_kept", "chatter_kept", "type_accuracy", "link_precision", "link_recall", "near_misses_linked")


def report(pairs: list[tuple[Conversation, Conversation]], decision_effects: bool = False) -> dict:
    return summarise(scores(pairs, decision_effects))


def summarise(rows: list[Score]) -> dict:
    total = pooled(rows)
    rng = np.random.default_rng(SEED)
    summary = total.summary()
    return {
        "conversations": len(rows),
        "units": total.units,
        "gold_links": total.gold_links,
        "links_made": total.links_made,
        **{k: summary[k] for k in KEYS},
        "interval95": {k: interval(rows, k, rng) for k in KEYS},
        "type_confusions": {f"{a} -> {b}": n for (a, b), n in sorted(total.confusion.items(), key=lambda kv: -kv[1]) if a != b},
    }


def ingested(convs: list[Conversation]) -> dict:
    """`ingest` (this checkout's code) scored on the same conversations against the first
    reading, as ``scripts/eval_labelled.py`` scores it, with the same bootstrap interval."""
    import tempfile

    from mnemo.clock import Clock
    from mnemo.config import load_settings
    from mnemo.engine import Mnemo
    from tests.labelled_set import evaluate

    with tempfile.TemporaryDirectory(prefix="mnemo-agreement-") as home:
        settings = load_settings(home=home, overrides={"embedding.model": "all-MiniLM-L6-v2"})
        with Mnemo(settings, clock=Clock(1_800_000_000.0)) as m:
            _, stored = evaluate(m, convs)
    return summarise([score(conv, row["memories"], row["links"]) for conv, row in zip(convs, stored, strict=True)])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("first", type=Path, help="the reading scored against (a labelled split)")
    ap.add_argument("second", type=Path, nargs="+", help="the second reading (one or more files)")
    ap.add_argument("--decision-effects", action="store_true",
                    help="count only the links a reading draws into a unit it types decision (the splits' convention)")
    ap.add_argument("--ingest", action="store_true",
                    help="also score `ingest` (this checkout's code) on the same conversations against the first reading")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    try:
        first = parse(args.first.read_text(encoding="utf-8"))
        second = [c for path in args.second for c in parse(path.read_text(encoding="utf-8"))]
        pairs = aligned(first, second)
    except (OSError, ValueError) as exc:
        print(f"agreement: {exc}", file=sys.stderr)
        return 2
    if not pairs:
        print("agreement: the two readings share no conversation", file=sys.stderr)
        return 2
    de = args.decision_effects
    out = {"second_against_first": report(pairs, de), "first_against_second": report([(b, a) for a, b in pairs], de)}
    if args.ingest:
        out["ingest_against_first"] = ingested([a for a, _ in pairs])
    if args.json:
        print(json.dumps(out))
        return 0
    for name, rep in out.items():
        print(f"{name.replace('_', ' ')}: {rep['conversations']} conversations, {rep['units']} units, "
              f"{rep['gold_links']} links scored against, {rep['links_made']} made")
        for k in KEYS:
            lo, hi = rep["interval95"][k]
            print(f"  {k:20} {rep[k]:.3f}  (95% {lo:.3f} .. {hi:.3f})")
        print("  type confusions:", ", ".join(f"{k} {v}" for k, v in list(rep["type_confusions"].items())[:8]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
