"""Stacking for the causal-link filter (#16): collect ``train_links``' examples with each split's
memories typed by a type head that did not see that split, as the link head meets them in use,
and score the link head by forward chaining.

Two collections of every spent split's proposed causal links (``train_links.collect``, the
filter off), in ``--cache``:

- ``shipped/``: typed by the shipped type head (mnemo/nlp/heads/types.npz, fitted on train ...
  test19, so in sample on every split here): what ``train_links`` has always fitted on;
- ``stacked/``: typed by a fold type head (``diagnose_links.SETTING``, ``train_types.fit``)
  that did not see the split: train ... test13 leave one split out among train ... test13 only
  (so no fold head of theirs saw test14 or later), test14 ... test19 forward (fitted on
  ``train_types.SPENT`` before the split, as ``diagnose_links`` does).

Forward chaining over test14 ... test19: each fold scored on its ``stacked`` examples (the types
it gets in use) by a head fitted on the splits written before it, ridge and threshold chosen
nested on the earlier folds (``train_links.choose``), with the training examples from either
collection. Criterion fixed before any figure was seen: F0.5 of the pooled links of
test14 ... test19 (``train_links.fbeta``). Also scored: the shipped links.npz (fitted on train
... test13) and no filter.

    python scripts/stack_links.py --cache /tmp/stack23 [--collect-only | --no-collect]

Twenty-third round (stack23; the README's twenty-first), code at 8eaae71, type features from the twenty-second round's
``train_types`` cache (collected before the round's segment rules; it only feeds the fold type
heads), 44 min to collect both on 2 shared cores, 4 min to score. Forward chaining, each fold's
types out of sample, precision / recall (made/right), F0.5:

The "shipped links.npz" column is exactly ``scripts/diagnose_links.py``'s run at 8eaae71 (fold
type heads, the head on: 731 made, 523 right, 208 wrong of which 83 end on a mistyped effect,
8 on a merged cause, 117 on a wrong cause), so the examples here score as the runtime does.

    fold     no filter            shipped links.npz     refit, in-sample types   refit, stacked types
    test14   0.669/0.336 .5580    0.736/0.296 .5669     0.720/0.299 .5618        0.710/0.292 .5521
    test15   0.664/0.345 .5608    0.672/0.291 .5326     0.664/0.309 .5400        0.669/0.309 .5428
    test16   0.676/0.280 .5269    0.676/0.210 .4681     0.700/0.234 .5007        0.688/0.234 .4955
    test17   0.647/0.354 .5549    0.675/0.296 .5371     0.690/0.325 .5633        0.677/0.328 .5583
    test18   0.656/0.239 .4864    0.709/0.203 .4728     0.723/0.225 .5012        0.718/0.219 .4937
    test19   0.717/0.423 .6294    0.789/0.390 .6550     0.760/0.414 .6507        0.746/0.402 .6368
    pooled   0.674/0.327 .5562    0.715/0.279 .5449     0.713/0.299 .5584        0.704/0.295 .5515
             (613/909)            (523/731)             (561/787)                (554/787)

Paired bootstrap over the 6 folds' conversations (2000 draws), F0.5 difference, 95% interval:
stacked - in-sample refit -0.0070 (-0.0139 .. -0.0003): stacking is a NEGATIVE (5 of 6 folds
lower); in-sample refit - shipped +0.0134 (+0.0046 .. +0.0227); stacked - shipped +0.0064
(-0.0034 .. +0.0166); stacked - no filter -0.0047 (-0.0152 .. +0.0053); adding test17 ...
test19 to the stacked fit (against stopping at test16; test18 / test19 only differ) +0.0023
(-0.0004 .. +0.0054). The stacked fits choose a ridge of 30-100 (the type inputs are noisier,
so the head leans on the prior); their effect=decision weight falls from +0.82 to +0.15.

Neither all-split fit (train ... test19; in-sample types: ridge 10, threshold 0.505; stacked:
ridge 100, threshold 0.543) can ship: both keep the unrelated step after a mishap
(tests/test_link_head.py), as every refit since the fifteenth round has. test20 / test21
summaries (eval_labelled --json, link precision / recall / made): current 0.719 / 0.298 / 135,
0.788 / 0.417 / 184; in-sample refit 0.713 / 0.328 / 150, 0.769 / 0.431 / 195; stacked 0.697 /
0.331 / 155, 0.769 / 0.431 / 195.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from unittest import mock

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import diagnose_links  # noqa: E402
import train_links  # noqa: E402
import train_types  # noqa: E402

OLD = train_types.SPENT[: train_types.SPENT.index("test14")]
ALL = train_types.SPENT[: train_types.SPENT.index("test19") + 1]  # train ... test19; never test20 or later
SCORED = train_types.FORWARD  # test14 ... test19
TYPE_CACHE = "/tmp/stack23/tcache"
KEEPS: dict[str, dict[str, np.ndarray]] = {}  # per variant, per scored split: the links kept


def per_conversation(test: dict[str, train_links.Split], keeps: dict[str, np.ndarray]) -> dict[str, tuple[int, int, int]]:
    """(made, right, gold) per conversation of SCORED, a unit pair counted once."""
    from tests.labelled_set import load

    out: dict[str, list[int]] = {}
    for h in SCORED:
        for conv in load(h):
            g = len({frozenset((id(a), id(b))) for a, b in conv.links()})
            out[f"{h}/{conv.cid}"] = [0, 0, g]
        made: dict[str, bool] = {}
        for i in np.flatnonzero(keeps[h]):
            made[f"{test[h].conv[i]}|{test[h].pair[i]}"] = bool(test[h].right[i])
        for k, r in made.items():
            c = out[f"{h}/{k.split('|')[0]}"]
            c[0] += 1
            c[1] += int(r)
    return {k: (v[0], v[1], v[2]) for k, v in out.items()}


def bootstrap(a: dict[str, tuple[int, int, int]], b: dict[str, tuple[int, int, int]], n: int = 2000) -> tuple[float, float, float]:
    """Paired bootstrap over conversations of F0.5(b) - F0.5(a): (mean, 2.5%, 97.5%)."""
    keys = sorted(a)
    av, bv = np.array([a[k] for k in keys]), np.array([b[k] for k in keys])
    rng = np.random.default_rng(0)
    d = []
    for _ in range(n):
        i = rng.integers(0, len(keys), len(keys))
        d.append(train_links.fbeta(*bv[i].sum(0)) - train_links.fbeta(*av[i].sum(0)))
    return float(np.mean(d)), float(np.percentile(d, 2.5)), float(np.percentile(d, 97.5))


def type_fit_on(split: str) -> list[str]:
    if split in OLD:
        return [s for s in OLD if s != split]
    return list(ALL[: ALL.index(split)])


def collect_all(cache: Path, splits: list[str]) -> None:
    from mnemo.nlp import type_head

    need = sorted({t for s in splits for t in type_fit_on(s)}, key=ALL.index)
    data = diagnose_links.features(TYPE_CACHE, need)
    with tempfile.TemporaryDirectory(prefix="stack23-") as tmp:
        for s in splits:
            if (cache / "stacked" / f"{s}.npz").exists():
                continue
            on = type_fit_on(s)
            head = train_types.fit([e for t in on for e in data[t]], *diagnose_links.SETTING)
            path = Path(tmp) / f"types_{s}.npz"
            train_types.save(head, path, splits=tuple(on))
            with mock.patch.object(type_head, "HEAD_PATH", path):
                train_links.cached(str(cache / "stacked"), s)
            print(f"{s}: stacked collected (type head on {len(on)} splits)", flush=True)
    for s in splits:
        if not (cache / "shipped" / f"{s}.npz").exists():
            train_links.cached(str(cache / "shipped"), s)
            print(f"{s}: shipped collected", flush=True)


def load(cache: Path, kind: str, splits: list[str]) -> dict[str, train_links.Split]:
    out = {}
    for s in splits:
        f = cache / kind / f"{s}.npz"
        assert f.exists(), f
        out[s] = train_links.cached(str(cache / kind), s)
    return out


def row(name: str, n: int, r: int, g: int) -> str:
    return f"{name:9} P {r / max(1, n):.3f} R {r / g:.3f} ({r}/{n}, gold {g}) F0.5 {train_links.fbeta(n, r, g):.4f}"


def forward(train: dict[str, train_links.Split], test: dict[str, train_links.Split], label: str,
            folds_from: str = "test5", cap: str | None = None) -> dict[str, tuple[int, int, int]]:
    """Each of SCORED scored (on ``test``'s examples) by a head fitted on ``train``'s splits before it."""
    res = {}
    for h in SCORED:
        before = [s for s in ALL[: ALL.index(h)] if s in train]
        if cap is not None:
            before = [s for s in before if ALL.index(s) <= ALL.index(cap)]
        folds = [f for f in before if f in ALL[ALL.index(folds_from):]]
        l2, t, _ = train_links.choose(train, before, folds)
        head = train_links.fit(np.vstack([train[s].x for s in before]),
                               np.concatenate([train[s].right for s in before]).astype(float), l2)
        keep = train_links.predict(head, test[h].x) >= t
        KEEPS.setdefault(label, {})[h] = keep
        res[h] = train_links.tally([test[h]], [keep])
        print(f"  {label} {row(h, *res[h])}  ridge {l2} threshold {t:.3f}", flush=True)
    return res


def pooled(res: dict[str, tuple[int, int, int]]) -> tuple[int, int, int]:
    return tuple(sum(v[i] for v in res.values()) for i in range(3))  # type: ignore[return-value]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", default="/tmp/stack23")
    ap.add_argument("--collect-only", action="store_true")
    ap.add_argument("--no-collect", action="store_true", help="score from the cache only (in-sample rows: the stacked ones when missing)")
    ap.add_argument("--splits", default=",".join(ALL))
    args = ap.parse_args(argv)
    splits = [s for s in args.splits.split(",") if s]
    assert all(s in ALL for s in splits), "spent splits only (train ... test19)"
    cache = Path(args.cache)
    if not args.no_collect:
        collect_all(cache, splits)
    if args.collect_only:
        return 0
    stacked = load(cache, "stacked", splits)
    have = all((cache / "shipped" / f"{s}.npz").exists() for s in splits)
    shipped = load(cache, "shipped", splits) if have else stacked
    from mnemo.graph import link_head

    head = link_head.load()
    assert head is not None
    results = {}
    print("no filter / the shipped links.npz, each fold's stacked examples (its types out of sample):")
    for name, keepf in (("rules", lambda s: np.ones(len(s.path), bool)),
                        ("shipped", lambda s: train_links.predict(head, s.x) >= float(head["threshold"]))):
        KEEPS[name] = {h: keepf(stacked[h]) for h in SCORED}
        res = {h: train_links.tally([stacked[h]], [KEEPS[name][h]]) for h in SCORED}
        for h in SCORED:
            print(f"  {name} {row(h, *res[h])}")
        results[name] = res
    print("forward refits:")
    results["refit-shipped-types"] = forward(shipped, stacked, "in-sample types")
    results["refit-stacked-types"] = forward(stacked, stacked, "stacked types  ")
    results["refit-stacked-types-to-test16"] = forward(stacked, stacked, "stacked types, fit <= test16  ", cap="test16")
    print("\npooled test14 ... test19 (criterion F0.5):")
    for k, v in results.items():
        print("  " + row(k[:9], *pooled(v)) + f"   {k}")
    pc = {k: per_conversation(stacked, v) for k, v in KEEPS.items()}
    print("paired bootstrap over conversations, F0.5 difference (mean, 95% interval):")
    for a, b in (("shipped", "stacked types  "), ("in-sample types", "stacked types  "), ("rules", "stacked types  "),
                 ("shipped", "in-sample types"), ("stacked types, fit <= test16  ", "stacked types  ")):
        m, lo, hi = bootstrap(pc[a], pc[b])
        print(f"  [{b.strip()}] - [{a.strip()}]: {m:+.4f} ({lo:+.4f} .. {hi:+.4f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
