"""Where the wrong causal links come from, out of sample: each spent split ingested with a type
head fitted only on the splits written before it (forward chaining, as ``train_types`` chooses
its setting), every causal link recorded with the path that made it and put in a class.

    .venv/bin/python scripts/diagnose_links.py [--splits test14,test15] [--cache DIR] [--out links.json] [--json]

``--splits``: spent splits joined by commas (default ``train_types.FORWARD``, test14 ... test19);
any split not in ``diagnose_targets.SPENT`` (test26 and later, the fresh held-out splits) is
refused with exit code 2 before anything is read. ``--cache``: ``train_types``' feature cache
(collected and written there where missing, as ``train_types --cache`` does; without it the
features are collected anew, minutes per split). ``--out``: every link's record as JSON.
``--json``: the summary as JSON on stdout (progress goes to stderr).

Per split:

1. A type head with the shipped setting (``SETTING``) is fitted with ``train_types.fit`` on the
   splits of ``train_types.SPENT`` written before it (test20 / test21 are in it since the
   twenty-third round: test21's fold fits on train ... test20), written
   with ``train_types.save`` to a temporary file, and ``type_head.HEAD_PATH`` patched to it
   (ingest has no parameter for the head's path).
2. The split is ingested as ``eval_labelled`` does (``diagnose_targets.ingest_each``, with
   ``rules.TRACE`` on). Around ``type_head.retype`` the fold head's scores of each kept candidate
   are read and made the effect's decision probability here (softmax of ``TypeHead.scores``
   over ``type_head.CLASSES``; nothing of it is stored by ingest).
3. Each causal link is counted once per pair of labelled units (``labelled_set.unit_of``, as
   ``labelled_set.score`` counts it): right when the pair is a gold link; a wrong one gets the
   first class that holds (``category``):
   - ``mistyped effect``: the effect's unit is not labelled a decision;
   - ``merged cause``: the cause memory holds (``diagnose_targets.MERGED_SHARE`` of the words)
     two or more labelled units of its turn, one of them chatter (the tie of the twenty-second
     round's notes: ``unit_of`` may then map the memory to the wrong one of them);
   - ``wrong cause``: the rest (a true decision, a cause that is not its gold cause).

Printed per split and pooled: links made, right, gold, found, precision, recall, F0.5 and the
wrong links per class (and per class and path).

Example: mnemo/ at 3e7a7e4 (this script added on top of it, nothing else changed), the feature
cache /tmp/types22/cache of the twenty-second round, 37 s on 2 shared cores; the same 121 / 89 /
301 as the round's throwaway run of test14 with its fold head. The records' order between runs
may differ (links come back from the store in no fixed order); their set does not.

    $ python scripts/diagnose_links.py --splits test14 --cache /tmp/types22/cache
    test14   made  121 right   89 gold  301 found   89  P 0.736 R 0.296 F0.5 0.5669  wrong 32: mistyped effect 10, merged cause 0, wrong cause 22
    pooled   (the same)
      mistyped effect [ans-mishap] 1, [ans-named] 2, [ans-pronoun] 1, [ans-related] 2, [cue-anaphor] 3, [cue-span] 1
      wrong cause [ans-mishap] 3, [ans-named] 3, [ans-pronoun] 2, [ans-related] 2, [ans-report] 2, [cue-anaphor] 6,
                  [cue-span] 3, [why] 1

Of the 32 wrong links, 3 have a cause unit labelled chatter, none a merged memory: the chatter
unit is the cause memory's whole text.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import diagnose_targets  # noqa: E402
import train_types  # noqa: E402

# The shipped head's setting (C 0.03, vector x4, thread x4: mnemo/nlp/heads/types.npz).
SETTING: train_types.Setting = train_types.CANDIDATE
CATEGORIES = ("mistyped effect", "merged cause", "wrong cause")


def f_beta(precision: float, recall: float, beta: float = 0.5) -> float:
    """F-beta of a precision and a recall (0 when both are 0)."""
    b2 = beta * beta
    den = b2 * precision + recall
    return (1 + b2) * precision * recall / den if den else 0.0


def merged(conv: Any, turn: int, content: str) -> bool:
    """Whether a memory of ``turn`` holds two or more labelled units of that turn, one of them chatter."""
    from tests.labelled_set import _tokens

    words = _tokens(content)
    held = [u for u in conv.units if u.turn == turn
            and (toks := _tokens(u.text)) and len(toks & words) / len(toks) >= diagnose_targets.MERGED_SHARE]
    return len(held) >= 2 and any(u.type == "chatter" for u in held)


def category(effect_label: str, cause_merged: bool) -> str:
    """The class of a wrong link (the first that holds, ``CATEGORIES``' order)."""
    if effect_label != "decision":
        return "mistyped effect"
    if cause_merged:
        return "merged cause"
    return "wrong cause"


def link_records(conv: Any, mems: list[dict], links: list[tuple[str, str, str]], paths: dict[tuple[str, str], str],
                 decision_p: dict[str, float | None]) -> list[dict]:
    """One record per causal link of a conversation, counted as ``labelled_set.score`` counts:
    each pair of labelled units once, links with an end no unit maps to left out."""
    from tests.labelled_set import CAUSAL_RELS, unit_of

    by_id = {m["id"]: m for m in mems}
    unit_for = {m["id"]: unit_of(conv, m["turn"], m["content"]) for m in mems}
    gold = {frozenset((id(a), id(b))) for a, b in conv.links()}
    seen: set[frozenset[int]] = set()
    out: list[dict] = []
    for src, dst, rel in links:
        cu, eu = unit_for.get(src), unit_for.get(dst)
        if rel not in CAUSAL_RELS or cu is None or eu is None:
            continue
        pair = frozenset((id(cu), id(eu)))
        if len(pair) < 2 or pair in seen:
            continue
        seen.add(pair)
        right = pair in gold
        cm, em = by_id[src], by_id[dst]
        out.append({
            "conversation": conv.cid, "rel": rel, "path": paths.get((src, dst), paths.get((dst, src), "?")),
            "cause": cm["content"], "effect": em["content"], "cause_unit": cu.text, "effect_unit": eu.text,
            "cause_label": cu.type, "effect_label": eu.type, "cause_type": cm["type"], "effect_type": em["type"],
            "effect_decision_p": decision_p.get(dst), "right": right,
            "category": None if right else category(eu.type, merged(conv, cm["turn"], cm["content"])),
        })
    return out


def summary(records: Iterable[dict], gold: int, found: int) -> dict[str, Any]:
    """Links made / right, gold / found, precision, recall, F0.5 and the wrong links per class."""
    rows = list(records)
    made = len(rows)
    right = sum(r["right"] for r in rows)
    p = right / made if made else 0.0
    r_ = found / gold if gold else 0.0
    wrong = [r for r in rows if not r["right"]]
    cats = Counter(r["category"] for r in wrong)
    paths = Counter(f"{r['category']} [{r['path']}]" for r in wrong)
    return {"made": made, "right": right, "gold": gold, "found": found, "precision": round(p, 3), "recall": round(r_, 3),
            "f05": round(f_beta(p, r_), 4), "wrong": len(wrong), "categories": {c: cats.get(c, 0) for c in CATEGORIES},
            "by_path": dict(sorted(paths.items()))}


def refuse_fresh(ap: argparse.ArgumentParser, splits: list[str]) -> None:
    """Exit 2 (argparse's usage error) when any split is not spent, before anything is read."""
    fresh = [s for s in splits if s not in diagnose_targets.SPENT]
    if fresh or not splits:
        ap.error(f"reads only the spent splits ({', '.join(diagnose_targets.SPENT)}); refused: {', '.join(fresh) or '(none given)'}")


def log(*a: Any) -> None:
    print(*a, file=sys.stderr, flush=True)


def features(cache: str | None, splits: list[str]) -> dict[str, list[Any]]:
    """``train_types``' labelled examples of ``splits`` (of ``train_types.SPENT`` only), from the
    cache, collected (and cached) where missing."""
    assert all(s in train_types.SPENT for s in splits)
    data: dict[str, Any] = {s: train_types.load_cached(cache, s) if cache else None for s in splits}
    missing = [s for s in splits if data[s] is None]
    if missing:
        from mnemo.clock import Clock
        from mnemo.config import load_settings
        from mnemo.engine import Mnemo

        log(f"collecting features of {', '.join(missing)}" + (f" into {cache}" if cache else ""))
        settings = load_settings(home=tempfile.mkdtemp(prefix="mnemo-diagnose-links-"),
                                 overrides={"embedding.model": "all-MiniLM-L6-v2", "embedding.model_cache": str(train_types.MODELS)})
        with Mnemo(settings, clock=Clock(1_800_000_000.0)) as m:
            for s in missing:
                data[s] = train_types.collect(m, s)
                if cache:
                    train_types.store_cached(cache, s, data[s])
    return {s: [e for e in data[s] if e.label] for s in splits}


def fit_on(split: str) -> list[str]:
    """The splits a fold head for ``split`` is fitted on: those of ``train_types.SPENT`` written before it."""
    before = diagnose_targets.SPENT[:diagnose_targets.SPENT.index(split)]
    return [s for s in before if s in train_types.SPENT]


@contextmanager
def decision_probabilities() -> Iterator[list[tuple[Any, float]]]:
    """While on, each call of ``type_head.retype`` appends (candidate, the head's decision
    probability) for each candidate it types; the candidate's ``turn`` and ``part`` (set by
    ``extract.judge`` right after) identify its memory."""
    import numpy as np

    from mnemo.nlp import type_head

    seen: list[tuple[Any, float]] = []
    original = type_head.retype

    def retype(cands: Any, vectors: Any, embedder: Any, path: Path | None = None) -> None:
        h = type_head.head(path)
        rows: list[Any] = []
        if h is not None:
            predict = h.predict

            def keep(r: Any) -> list[Any]:
                rows.append(r)
                return predict(r)

            h.predict = keep  # type: ignore[method-assign,assignment]
        try:
            original(cands, vectors, embedder, path)
        finally:
            if h is not None:
                del h.predict
        if h is None or not rows:
            return
        s = h.scores(rows[0]).astype(np.float64)
        e = np.exp(s - s.max(axis=1, keepdims=True))
        p = e[:, h.classes.index("decision")] / e.sum(axis=1)
        seen.extend(zip(cands, p.tolist(), strict=True))

    with mock.patch.object(type_head, "retype", retype):
        yield seen


def run_split(split: str, data: dict[str, list[Any]], workdir: Path) -> tuple[list[dict], int, int]:
    """The records of ``split``'s causal links, its gold links and those found."""
    from mnemo.graph import rules
    from mnemo.nlp import type_head

    on = fit_on(split)
    head = train_types.fit([e for s in on for e in data[s]], *SETTING)
    path = workdir / f"fold_{split}.npz"
    train_types.save(head, path, splits=tuple(on))
    log(f"{split}: fold head fitted on {on[0]} ... {on[-1]} ({len(on)} splits)")
    records: list[dict] = []
    gold = found = right = 0
    with mock.patch.object(type_head, "HEAD_PATH", path), decision_probabilities() as seen:
        for conv, total, stored, trace in diagnose_targets.ingest_each(split, rules, "TRACE"):
            at = {(c.turn.index, c.part): p for c, p in seen}
            seen.clear()
            paths = {(c.id, e.id): p for c, e, p in trace}
            meta = {mm.id: mm.meta for c, e, _ in trace for mm in (c, e)}
            dp = {i: at.get((md.get("turn"), md.get("part"))) for i, md in meta.items()}
            recs = link_records(conv, stored["memories"], stored["links"], paths, dp)
            assert len(recs) == total.links_made and sum(r["right"] for r in recs) == total.links_right, conv.cid
            for r in recs:
                r["split"] = split
            records += recs
            gold += total.gold_links
            found += total.links_found
            right += total.links_right
    return records, gold, found


def render(name: str, s: dict[str, Any]) -> str:
    cats = ", ".join(f"{c} {s['categories'][c]}" for c in CATEGORIES)
    return (f"{name:8} made {s['made']:4} right {s['right']:4} gold {s['gold']:4} found {s['found']:4}  "
            f"P {s['precision']:.3f} R {s['recall']:.3f} F0.5 {s['f05']:.4f}  wrong {s['wrong']}: {cats}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="diagnose_links", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--splits", default=",".join(train_types.FORWARD), help="spent splits joined by commas")
    ap.add_argument("--cache", default=None, help="train_types' feature cache (collected there where missing)")
    ap.add_argument("--out", default=None, help="write every link's record here (JSON)")
    ap.add_argument("--json", action="store_true", help="the summary as JSON on stdout")
    args = ap.parse_args(argv)
    splits = [s for s in args.splits.split(",") if s]
    refuse_fresh(ap, splits)

    need = sorted({s for sp in splits for s in fit_on(sp)}, key=train_types.SPENT.index)
    data = features(args.cache, need)
    per: dict[str, dict[str, Any]] = {}
    records: list[dict] = []
    gold = found = 0
    with tempfile.TemporaryDirectory(prefix="mnemo-diagnose-links-") as tmp:
        for split in splits:
            recs, g, f = run_split(split, data, Path(tmp))
            per[split] = summary(recs, g, f)
            log(render(split, per[split]))
            records += recs
            gold += g
            found += f
    pooled = summary(records, gold, found)
    if args.out:
        Path(args.out).write_text(json.dumps(records, indent=1), encoding="utf-8")
    if args.json:
        print(json.dumps({"splits": per, "pooled": pooled, "setting": list(SETTING)}))
        return 0
    for split in splits:
        print(render(split, per[split]))
    print(render("pooled", pooled))
    for k, n in pooled["by_path"].items():
        print(f"  {k:40} {n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
