"""Why each wrong causal link on a spent labelled split is wrong (#16, seventeenth round).

    .venv/bin/python scripts/diagnose_targets.py test15,test16 [--show] [--json]

Every causal link ``ingest`` makes that ``tests/labelled_set.score`` counts wrong is put in one
class, the first that holds:

- ``wrong-target``: the effect end is a gold effect (its unit has gold causes) but the cause
  chosen is none of them. Sub-classes by what became of the gold cause: ``stored`` (a memory
  states it: the rule chose another), ``merged`` (no memory maps to it, but a stored memory of
  its turn holds most of its words: extraction merged it into a neighbouring memory), ``lost``
  (not stored at all).
- ``chatter-end``: either end is labelled chatter.
- ``no-gold-decision``: neither end is a labelled decision (two facts, a fact and a report ...).
- ``no-gold-cause``: the rest: a decision end with no gold cause on the other side (the decision
  had no stated reason, or its reason is the other way round).

Per class, the path of ``rules.propose`` that made each link (``rules.TRACE``). Only the spent
splits may be read (train ... test25): it refuses test26 and later, the fresh held-out splits.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SPENT = ("train", "train2", "train3", "train4", "test", "test2", "test3", "test4", "test5", "test6", "test7", "test8",
         "test9", "test10", "test11", "test12", "test13", "test14", "test15", "test16", "test17", "test18", "test19",
         "test20", "test21", "test22", "test23", "test24", "test25")
MERGED_SHARE = 0.6  # a stored memory of the turn that holds this share of a unit's words holds the unit


def classify(conv, mems: list[dict], links: list[tuple[str, str, str]], paths: dict[tuple[str, str], str]) -> list[dict]:
    """The wrong causal links of one conversation, each with its class and path."""
    from tests.labelled_set import CAUSAL_RELS, _tokens, unit_of

    unit_for = {m["id"]: unit_of(conv, m["turn"], m["content"]) for m in mems}
    stored_units = {id(u) for u in unit_for.values() if u is not None}
    gold = {frozenset((id(a), id(b))) for a, b in conv.links()}
    causes_of: dict[int, list] = {}
    for a, b in conv.links():
        causes_of.setdefault(id(b), []).append(a)
    out: list[dict] = []
    seen: set[frozenset[int]] = set()
    for src, dst, rel in links:
        if rel not in CAUSAL_RELS or unit_for.get(src) is None or unit_for.get(dst) is None:
            continue
        cu, eu = unit_for[src], unit_for[dst]
        pair = frozenset((id(cu), id(eu)))
        if len(pair) < 2 or pair in seen:
            continue
        seen.add(pair)
        if pair in gold:
            continue
        row = {"conversation": conv.cid, "cause": cu.text, "effect": eu.text, "cause_type": cu.type, "effect_type": eu.type,
               "rel": rel, "path": paths.get((src, dst), "?"), "gold_cause": ""}
        # Which end is the gold effect: the link's effect end, else (a link the scorer reads both
        # ways) its cause end.
        end, other = (eu, cu) if id(eu) in causes_of else (cu, eu) if id(cu) in causes_of else (None, None)
        if end is not None:
            want = causes_of[id(end)]
            row["gold_cause"] = " | ".join(w.text for w in want)
            if any(id(w) in stored_units for w in want):
                kind = "stored"
            else:
                merged = False
                for w in want:
                    words = _tokens(w.text)
                    for m in mems:
                        if m["turn"] == w.turn and words and len(words & _tokens(m["content"])) / len(words) >= MERGED_SHARE:
                            merged = True
                kind = "merged" if merged else "lost"
            row["class"] = f"wrong-target/{kind}"
        elif cu.type == "chatter" or eu.type == "chatter":
            row["class"] = "chatter-end"
        elif "decision" not in (cu.type, eu.type):
            row["class"] = "no-gold-decision"
        else:
            row["class"] = "no-gold-cause"
        out.append(row)
    return out


def spent_args(prog: str, argv: list[str] | None, what: str, doc: str | None) -> argparse.Namespace:
    """The diagnosis scripts' arguments; a split that is not spent is refused before anything is read."""
    ap = argparse.ArgumentParser(prog=prog, description=doc,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("split", help="one or more spent splits joined by commas")
    ap.add_argument("--show", action="store_true", help=f"print every {what} under its class")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if any(n not in SPENT for n in args.split.split(",")):
        raise SystemExit(f"{prog} reads only the spent splits ({', '.join(SPENT)}), not {args.split}")
    return args


def ingest_each(split: str, module: Any, record: str) -> Iterator[tuple]:
    """Ingest each conversation of ``split`` into one fresh store as ``eval_labelled`` does, with
    ``module``'s debug record (the list attribute ``record``: ``rules.TRACE``,
    ``link_head.RECORD``) on around it; yields (conversation, score, stored memories and links,
    the record)."""
    from mnemo.clock import Clock
    from mnemo.config import load_settings
    from mnemo.engine import Mnemo
    from tests.labelled_set import evaluate, load

    with tempfile.TemporaryDirectory(prefix="mnemo-diagnose-") as home:
        settings = load_settings(home=home, overrides={"embedding.model": "all-MiniLM-L6-v2"})
        with Mnemo(settings, clock=Clock(1_800_000_000.0)) as m:
            for n, conv in enumerate(load(split)):
                setattr(module, record, [])
                try:
                    total, stored = evaluate(m, [conv], start=1_770_000_000.0 + n * 86400)
                finally:
                    kept = getattr(module, record) or []
                    setattr(module, record, None)
                yield conv, total, stored[0], kept


def main(argv: list[str] | None = None) -> int:
    args = spent_args("diagnose_targets", argv, "wrong link", __doc__)
    from mnemo.graph import rules

    rows: list[dict] = []
    made = right = 0
    for conv, total, stored, trace in ingest_each(args.split, rules, "TRACE"):
        paths = {(c.id, e.id): p for c, e, p in trace}
        made += total.links_made
        right += total.links_right
        rows += classify(conv, stored["memories"], stored["links"], paths)
    classes = Counter(r["class"] for r in rows)
    by_path = Counter((r["class"], r["path"]) for r in rows)
    if args.json:
        print(json.dumps({"links_made": made, "links_right": right, "wrong": len(rows), "classes": dict(classes),
                          "by_path": {f"{c} {p}": n for (c, p), n in sorted(by_path.items())}}))
        return 0
    print(f"{args.split}: {made} causal links made, {right} right, {len(rows)} wrong")
    for cls, n in classes.most_common():
        paths_ = ", ".join(f"{p} {k}" for (c, p), k in by_path.most_common() if c == cls)
        print(f"  {cls:26} {n:3}   ({paths_})")
    if args.show:
        for cls, _ in classes.most_common():
            print(f"\n== {cls}")
            for r in rows:
                if r["class"] == cls:
                    print(f"  [{r['path']}] {r['conversation']}: {r['cause']}  -[{r['rel']}]->  {r['effect']}")
                    if r["gold_cause"]:
                        print(f"      gold cause: {r['gold_cause']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
