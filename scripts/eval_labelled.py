"""Score `ingest` on the hand-labelled conversations of tests/labelled/ (types, what is kept,
causal links). The `train`, `train2`, `train3` and `train4` splits are for developing rules;
`test` ... `test25` were held out and are spent (rules have been chosen on what they showed, or
they were scored more than once); `test15` and `test16` were each scored once on the fifteenth
round's frozen code, `test17` once on the sixteenth's (8ab4f65), `test18` once on the
seventeenth's (4a306f3), `test19` once on the eighteenth's (d78095e), `test20` once on the nineteenth's (9fcb7f4), `test21` once on the twentieth's (9c1f362), `test22` once on the twenty-first's (59269a6), `test23` once on the twenty-second's (2035c26), `test24` once on the twenty-third's (9dc64b1), `test25` once on the twenty-fourth's (91e4ecd);
`test26` is the fresh held-out split, written for the next round. A new round starts by writing a fresh split before any rule changes, and scores it once, after the rules are final,
without `--show`.

    .venv/bin/python scripts/eval_labelled.py --split train,train2,train3,train4 [--show]
    .venv/bin/python scripts/eval_labelled.py --split test7 --json

On a train conversation the example vote (``mnemo.nlp.statement``) is held out from that
conversation's own units, so train figures are not the vote finding the sentence itself.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", default="train", help="train, train2, train3, train4, test ... test25 (spent: test15 and test16 scored once on the fifteenth round's code, test17 on the sixteenth's, test18 on the seventeenth's, test19 on the eighteenth's, test20 on the nineteenth's, test21 on the twentieth's, test22 on the twenty-first's, test23 on the twenty-second's, test24 on the twenty-third's, test25 on the twenty-fourth's), test26 (fresh, for the next round), or several joined by commas")
    ap.add_argument("--show", action="store_true", help="print each stored memory, wrong and missed links, type confusions")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    from mnemo.clock import Clock
    from mnemo.config import load_settings
    from mnemo.engine import Mnemo
    from tests.labelled_set import evaluate, load

    convs = load(args.split)
    with tempfile.TemporaryDirectory(prefix="mnemo-labelled-") as home:
        settings = load_settings(home=home, overrides={"embedding.model": "all-MiniLM-L6-v2"})
        with Mnemo(settings, clock=Clock(1_800_000_000.0)) as m:
            total, stored = evaluate(m, convs)
    summary = total.summary()
    if args.json:
        print(json.dumps(summary))
        return 0
    if args.show:
        for row in stored:
            print(f"== {row['conversation']}")
            for mem in row["memories"]:
                print(f"  [{mem['type']}] t{mem['turn']} {mem['content']}")
        print("\nwrong links:", *total.wrong_links, sep="\n  ")
        print("\nmissed links:", *total.missed_links, sep="\n  ")
        print("\nmistyped:", *total.mistyped, sep="\n  ")
        print("\ntype confusions (label -> got):")
        for (want, got), n in sorted(total.confusion.items(), key=lambda kv: -kv[1]):
            if want != got:
                print(f"  {want} -> {got}: {n}")
    print(f"{args.split}: {len(convs)} conversations, {total.units} units, {total.gold_links} causal links, {total.near_misses} near-misses")
    for k, v in summary.items():
        print(f"  {k:20} {v}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
