"""Sixteenth round: how far can the causal-link filter's precision be pushed on a new writer's
text? Cross-fitted between the two fresh splits test15 and test16 (the rules were never tuned on
either: their proposals under the current code are the fresh distribution). Every setting is
chosen on one of them and scored on the other; a bootstrap over the scored split's conversations
gives the noise.

    .venv/bin/python scripts/measure_links17.py --cache /tmp/links-cache   # collects what it lacks

Variants against the shipped pipeline (rules, then the shipped filter at its threshold):
  (a) the shipped filter's threshold chosen on the other split: the lowest reaching precision
      0.9 there (``a-p90``), or the one maximising F0.5 there (``a-f05``);
  (b) Platt calibration fitted on the other split: a 2-parameter logistic on the filter's logit
      (monotone, so its F0.5 threshold is (a)'s; ``b-platt50`` keeps calibrated p >= 0.5), and
      the logit plus the path (``b-platt+path``, ridge 1, threshold F0.5 on the other split);
  (c) the filter refitted on the 17 splits it was fitted on (``c17``; ``c18`` adds test14) plus
      the other fresh split, its rows weighted w (w, ridge and threshold chosen by 5-group
      cross-fitting over the other split's conversations, by F0.5 or by the precision at recall
      >= 0.20, ``p@r``); ``c17ans`` uses the refit on the answered paths only;
  (d) the rule paths whose precision on the other split is below 0.5 (at least 3 links there)
      switched off, before (``d-rules``) or after (``d-filtered``) the shipped filter.
Never given test17 or later (it reads ``train_links.SPENT`` up to test16, ``READS``: the
twenty-eighth round added later splits to that list, which this measurement never saw).

Result (proposals collected with the code at a0d65af, the filter off, labelled as the scorer
counts them; on this collection the shipped pipeline reads test15 0.620 / 0.273, 75/121, where the
once-only score on the fifteenth round's code read 0.612 / 0.269; test16 0.624 / 0.207 as scored).

The shipped filter hardly ranks a new writer's links: AUC 0.606 on test15, 0.578 on test16
(0.815 on test13, in sample; 0.637 on test14, held out). Right / proposed per shipped-score band:

    band         test15        test16        older 17 (in sample)
    < 0.30       2/5           0/6           9/32
    0.30-0.56    10/18         21/28         35/91
    0.56-0.75    11/27         11/25         96/132
    0.75-0.85    17/26         17/28         130/181
    >= 0.85      47/68 (0.69)  40/56 (0.71)  719/771 (0.93)

so no threshold reaches 0.9 (the best on test15 is 0.69 at recall 0.17, on test16 0.74 at 0.08).
Per path, right / proposed, test15 | test16 | older 17: cue-anaphor 34/49 | 22/32 | 437/490,
ans-mishap 13/31 | 24/44 | 179/258, ans-named 9/13 | 22/28 | 90/114, ans-pronoun 13/18 | 6/9 |
73/87, ans-sameturn 6/12 | 4/10 | 42/54, cue-span 4/6 | 4/5 | 76/87. Of the 57 + 54 wrong links,
about half share an end with a gold link whose other end is the next or previous unit (one off:
often a chatter opening, "Quick update on the Q3 offsite." -> the decision, the cause being the
unit after it), and many join two units each in some gold link: a target error, not a spurious
link, which no filter over a fixed pair can repair.

Cross-fitted (settings chosen on the other fresh split), precision / recall (right/made), F0.5,
the 90% bootstrap interval of the precision gain over shipped:

    variant          scored on test15                 scored on test16                 pooled
    shipped          0.620/0.273 (75/121) .494        0.624/0.207 (68/109) .444        0.622/0.237 .469
    rules, no filter 0.604/0.316 (87/144) .511 -.05+.01  0.622/0.271 (89/143) .494 -.04+.04  0.613/0.291 .502
    a-p90  t .884/.972 0.696/0.142 (39/56) .391 -.01+.16  0.714/0.015 (5/7) .070           0.698/0.073 .257
    a-f05  t .377/.036 0.609/0.305 (84/138) .508      0.622/0.271 (89/143) .494        0.616/0.286 .501
    b-platt50        0.609/0.305 (84/138) .508        0.642/0.234 (77/120) .476 -.00+.04  0.624/0.267 .492
    b-platt+path     0.618/0.305 (84/136) .513        0.670/0.222 (73/109) .477 +.01+.09  0.641/0.260 .496
    c-refit (F0.5)   0.607/0.309 (85/140) .509        0.640/0.271 (89/139) .503        0.624/0.288 .506
    c17-p@r w30 r10  0.710/0.258 (71/100) .526 +.04+.14  0.753/0.185 (61/81) .467 +.07+.19  0.729/0.219 .497
    c18-p@r (+test14) 0.700/0.255 (70/100) .519 +.03+.13  0.756/0.188 (62/82) .472 +.08+.19  0.725/0.219 .495
    c17ans-p@r       0.673/0.247 (68/101) .501 +.01+.10  0.750/0.146 (48/64) .410 +.07+.20  0.703/0.192 .459
    d-rules          0.620/0.291 (80/129) .506 -.04+.04  0.670/0.191 (63/94) .447 -.01+.10  0.641/0.237 .478
    d-filtered       0.636/0.247 (68/107) .484 -.01+.04  0.658/0.158 (52/79) .403 -.01+.08  0.645/0.199 .445

(d) switched off ans-related and ans-sameturn (chosen on test16) and ans-mishap and ans-related
(chosen on test15): within noise. Near-misses linked: 0 on test15 and 1 on test16 for every
variant except a-p90 (0).

Two variants raised precision on both folds beyond noise with pooled recall above 0.15: the
filter refitted with the other fresh split's rows weighted 30 (``c17-p@r``: the same w 30,
ridge 10, threshold ~0.57 chosen on both folds; the recall floor of the ``p@r`` criterion,
0.20, was set after the first table, from the brief's bound, so treat its margin with
care), and that refit applied only to the answered paths (``c17ans-p@r``, cue paths kept on the
shipped filter). Neither is shipped: fitted on both fresh splits (thresholds 0.548 and 0.591;
cross-fitted pooled precision 0.730 and 0.709; ``--write`` fits the second) the whole refit drops five links the
hand-written phrasing tests hold (tests/test_causal_after.py two, test_causal_handles.py,
test_causal_readings.py, test_causal_replies.py: scores 0.48 ... 0.55 where the shipped filter
gives 0.83 ... 0.92), and the answered-path refit two (the step answering the situation set out
before it, 0.46; the fix answering another speaker's diagnosis, 0.55). The fresh writers label
such answered links wrong about half the time; the issue's phrasing tests say they are links.
With the fresh rows' weight chosen from 1 ... 10 or 1 ... 3 instead (``--weights``; ``--scope all``
refits the whole filter), the fits on both fresh splits keep the precision gain (cross-fitted
pooled 0.704 ... 0.727) and still drop 2 to 6 of the 24 filtered links the phrasing tests'
conversations make (the step answering the situation and the fix answering the diagnosis in
every one of them; the step naming a report, a "so" opening, "because of that" in some).
Lowering the threshold until those tests pass would be a choice made on the tests; not done.
Other variants measured and not kept: refits without weighting fresh rows up (w 1: AUC 0.63 /
0.59), a head fitted on the other fresh split alone (AUC 0.673 / 0.675; a small input set
0.650 / 0.633), the 18-split fit with test14 (AUC 0.627 / 0.593).
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import train_links as T  # noqa: E402

# What this measurement reads: the spent splits as they stood in the sixteenth round.
READS = T.SPENT[:T.SPENT.index("test16") + 1]
FRESH = ("test15", "test16")
SHIPPED_ON = ("train", "train2", "train3", "train4", "test", "test2", "test3", "test4", "test5", "test6", "test7",
              "test8", "test9", "test10", "test11", "test12", "test13")  # the shipped head's 17 splits
BOOT = 2000
# The recall the brief lets precision cost: pooled recall must stay above ~0.15, so the
# ``p@r`` settings keep recall >= 0.20 on the split they are chosen on (a margin for the move).
RECALL_FLOOR = 0.20


def logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return np.log(p / (1 - p))


class Fresh:
    """A fresh split's proposals with per-conversation gold and near-misses (for the tallies)."""

    def __init__(self, s: T.Split) -> None:
        from tests.labelled_set import load

        self.s = s
        convs = load(s.name)
        self.convs = [c.cid for c in convs]
        self.gold = {c.cid: len({frozenset((id(a), id(b))) for a, b in c.links()}) for c in convs}
        self.near: set[str] = set()
        for c in convs:
            index = {id(u): k for k, u in enumerate(c.units)}
            for a, b in c.near_misses():
                i, j = sorted((index[id(a)], index[id(b)]))
                self.near.add(f"{c.cid}:{i}-{j}")

    def tally(self, keep: np.ndarray, convs: list[str] | None = None) -> tuple[int, int, int, int]:
        """(made, right, gold, near-misses linked) over ``convs`` (with repeats: a bootstrap)."""
        convs = self.convs if convs is None else convs
        per: dict[str, dict[str, bool]] = defaultdict(dict)
        for i in np.flatnonzero(keep):
            per[self.s.conv[i]][self.s.pair[i]] = bool(self.s.right[i])
        made = right = gold = near = 0
        for c in convs:
            d = per.get(c, {})
            made += len(d)
            right += sum(d.values())
            gold += self.gold[c]
            near += sum(p in self.near for p in d)
        return made, right, gold, near


def thr_f05(fr: Fresh, sc: np.ndarray) -> float:
    return T.choose_threshold([fr.s], [sc])


def thr_p90(fr: Fresh, sc: np.ndarray, min_right: int = 5) -> float:
    """The lowest threshold whose links on ``fr`` are >= 90% right (at least ``min_right`` right);
    failing that, the one with the highest precision at that floor."""
    best_p, best_t = -1.0, 1.0
    for t in sorted({0.0, *np.round(sc, 4).tolist()}):
        m, r, _, _ = fr.tally(sc >= t)
        if r < min_right:
            break
        if r / m >= 0.9:
            return t
        if r / m > best_p:
            best_p, best_t = r / m, t
    return best_t


def fit_weighted(x: np.ndarray, y: np.ndarray, wt: np.ndarray, l2: float) -> dict[str, np.ndarray]:
    """``train_links.fit`` with a weight per row."""
    return T.fit(x, y, l2, weights=wt)


def groups(fr: Fresh, k: int = 5) -> list[list[str]]:
    return [fr.convs[i::k] for i in range(k)]


def refit(old: list[T.Split], fr: Fresh, w: float, l2: float, exclude: set[str] | None = None) -> dict[str, np.ndarray]:
    mask = np.asarray([c not in (exclude or set()) for c in fr.s.conv], dtype=bool)
    x = np.vstack([s.x for s in old] + [fr.s.x[mask]])
    y = np.concatenate([s.right for s in old] + [fr.s.right[mask]]).astype(float)
    wt = np.concatenate([np.ones(sum(len(s.right) for s in old)), np.full(int(mask.sum()), w)])
    return fit_weighted(x, y, wt, l2)


def thr_p_at_r(fr: Fresh, sc: np.ndarray, floor: float = RECALL_FLOOR) -> float:
    """The threshold with the highest precision on ``fr`` whose recall there stays >= ``floor``."""
    best_p, best_t = -1.0, 0.0
    for t in sorted({0.0, *np.round(sc, 4).tolist()}):
        m, r, g, _ = fr.tally(sc >= t)
        if r / g < floor:
            break
        if r / m > best_p + 1e-12:
            best_p, best_t = r / m, t
    return best_t


def cross_fitted(old: list[T.Split], fr: Fresh, w: float, l2: float) -> np.ndarray:
    """``fr``'s scores, each conversation group's from a head fitted without it."""
    sc = np.zeros(len(fr.s.right))
    for g in groups(fr):
        head = refit(old, fr, w, l2, exclude=set(g))
        rows = np.asarray([c in g for c in fr.s.conv], dtype=bool)
        if rows.any():
            sc[rows] = T.predict(head, fr.s.x[rows])
    return sc


def choose_refit(old: list[T.Split], fr: Fresh, weights: tuple[float, ...] = (1.0, 3.0, 10.0),
                 crit: str = "f05") -> tuple[float, float, float]:
    """(weight, ridge, threshold) by 5-group cross-fitting over ``fr``'s conversations: F0.5
    (``f05``) or the precision at recall >= ``RECALL_FLOOR`` (``p@r``)."""
    best = (1.0, 1.0, 0.5, -1.0)
    for w in weights:
        for l2 in (0.3, 1.0, 3.0, 10.0):
            sc = cross_fitted(old, fr, w, l2)
            if crit == "p@r":
                t = thr_p_at_r(fr, sc)
                m, r, gd, _ = fr.tally(sc >= t)
                if r / m > best[3] + 1e-12:
                    best = (w, l2, t, r / m)
                continue
            t = thr_f05(fr, sc)
            m, r, gd, _ = fr.tally(sc >= t)
            f = T.fbeta(m, r, gd)
            if f > best[3] + 1e-12:
                best = (w, l2, t, f)
    return best[:3]


def path_onehot(paths: list[str], names: list[str]) -> np.ndarray:
    return np.asarray([[float(p == n) for n in names] for p in paths]).reshape(len(paths), len(names))


def variants(tune: Fresh, test: Fresh, shipped: dict, old: list[T.Split], old18: list[T.Split]) -> dict[str, tuple[np.ndarray, str]]:
    """Each variant's keep-mask on ``test``, every setting chosen on ``tune``."""
    sc_tune, sc_test = T.predict(shipped, tune.s.x), T.predict(shipped, test.s.x)
    t0 = float(shipped["threshold"])
    out: dict[str, tuple[np.ndarray, str]] = {}
    out["rules"] = (np.ones(len(sc_test), bool), "no filter")
    out["shipped"] = (sc_test >= t0, f"t={t0:.3f}")
    t = thr_p90(tune, sc_tune)
    out["a-p90"] = (sc_test >= t, f"t={t:.3f}")
    t = thr_f05(tune, sc_tune)
    out["a-f05"] = (sc_test >= t, f"t={t:.3f}")
    # (b) Platt on the logit
    xa = logit(sc_tune)[:, None]
    pl = fit_weighted(xa, tune.s.right.astype(float), np.ones(len(xa)), 1e-6)
    cal = T.predict(pl, logit(sc_test)[:, None])
    out["b-platt50"] = (cal >= 0.5, f"a={pl['w'][0] / pl['scale'][0]:.2f}")
    names = sorted({*tune.s.path})
    xb_tune = np.hstack([logit(sc_tune)[:, None], path_onehot(tune.s.path, names)])
    xb_test = np.hstack([logit(sc_test)[:, None], path_onehot(test.s.path, names)])
    pp = fit_weighted(xb_tune, tune.s.right.astype(float), np.ones(len(xb_tune)), 1.0)
    t = thr_f05(tune, T.predict(pp, xb_tune))
    out["b-platt+path"] = (T.predict(pp, xb_test) >= t, f"t={t:.3f}")
    # (c) refit with the tuning split's rows
    w, l2, t = choose_refit(old, tune)
    head = refit(old, tune, w, l2)
    out["c-refit"] = (T.predict(head, test.s.x) >= t, f"w={w:g} ridge={l2:g} t={t:.3f}")
    t = thr_p_at_r(tune, sc_tune)
    out["a-p@r"] = (sc_test >= t, f"t={t:.3f}")
    for tag, base, weights in (("c17", old, (1.0, 3.0, 10.0, 30.0)), ("c18", old18, (1.0, 3.0, 10.0, 30.0))):
        for crit in ("f05", "p@r"):
            w, l2, t = choose_refit(base, tune, weights, crit)
            head = refit(base, tune, w, l2)
            out[f"{tag}-{crit}"] = (T.predict(head, test.s.x) >= t, f"w={w:g} ridge={l2:g} t={t:.3f}")
    w, l2, t = choose_refit(old, tune, (1.0, 3.0, 10.0), "p@r")
    head = refit(old, tune, w, l2)
    out["c17w10-p@r"] = (T.predict(head, test.s.x) >= t, f"w={w:g} ridge={l2:g} t={t:.3f}")
    # the refit judges only the answered paths (no connective read); the cue paths keep the shipped filter
    ans_tune = np.asarray([p.startswith("ans-") for p in tune.s.path])
    ans_test = np.asarray([p.startswith("ans-") for p in test.s.path])
    for wts, tag in (((1.0, 3.0, 10.0, 30.0), "c17ans-p@r"), ((1.0, 3.0, 10.0), "c17w10ans-p@r")):
        best = (1.0, 1.0, 0.5, -1.0)
        for w in wts:
            for l2 in (0.3, 1.0, 3.0, 10.0):
                sc = np.where(ans_tune, cross_fitted(old, tune, w, l2), 1.0)
                sc = np.where(~ans_tune & (sc_tune < t0), 0.0, sc)
                t = thr_p_at_r(tune, sc)
                m, r, _, _ = tune.tally(sc >= t)
                if r / m > best[3] + 1e-12:
                    best = (w, l2, t, r / m)
        w, l2, t, _ = best
        head = refit(old, tune, w, l2)
        keep = np.where(ans_test, T.predict(head, test.s.x) >= t, sc_test >= t0)
        out[tag] = (keep, f"w={w:g} ridge={l2:g} t={t:.3f}")
    # (d) paths off
    for tag, base_tune, base_test in (("d-rules", np.ones(len(sc_tune), bool), np.ones(len(sc_test), bool)),
                                      ("d-filtered", sc_tune >= t0, sc_test >= t0)):
        off = set()
        for p in sorted(set(tune.s.path)):
            rows = np.asarray([q == p for q in tune.s.path]) & base_tune
            n, r = int(rows.sum()), int(tune.s.right[rows].sum())
            if n >= 3 and r / n < 0.5:
                off.add(p)
        out[tag] = (base_test & np.asarray([p not in off for p in test.s.path]), "off: " + (",".join(sorted(off)) or "none"))
    return out


def fmt(m: int, r: int, g: int, n: int) -> str:
    return f"P {r / max(1, m):.3f} R {r / max(1, g):.3f} ({r}/{m}, gold {g}) near {n} F0.5 {T.fbeta(m, r, g):.3f}"


def boot(fr: Fresh, keep: np.ndarray, base: np.ndarray, rng: np.random.Generator) -> tuple[float, float, float, float]:
    """Bootstrap over ``fr``'s conversations: 90% interval of the precision and recall gains over ``base``."""
    dp, dr = [], []
    for _ in range(BOOT):
        convs = [fr.convs[i] for i in rng.integers(0, len(fr.convs), len(fr.convs))]
        m1, r1, g, _ = fr.tally(keep, convs)
        m0, r0, _, _ = fr.tally(base, convs)
        dp.append(r1 / max(1, m1) - r0 / max(1, m0))
        dr.append((r1 - r0) / max(1, g))
    return (float(np.percentile(dp, 5)), float(np.percentile(dp, 95)), float(np.percentile(dr, 5)), float(np.percentile(dr, 95)))


def tables(data: dict[str, T.Split], shipped: dict) -> None:
    old = [s for n, s in data.items() if n not in FRESH]
    t0 = float(shipped["threshold"])
    bands = (0.0, 0.3, 0.45, 0.56, 0.65, 0.75, 0.85, 1.01)
    print("per path: right/proposed (shipped filter kept right/kept)")
    rows = [("test15", [data["test15"]]), ("test16", [data["test16"]]), ("older 17", old)]
    allp = sorted({p for s in data.values() for p in s.path}, key=lambda p: -sum(q == p for s in data.values() for q in s.path))
    print(f"  {'path':22}" + "".join(f"{n:>24}" for n, _ in rows))
    for p in allp:
        cells = []
        for _, ss in rows:
            n = r = kn = kr = 0
            for s in ss:
                sc = T.predict(shipped, s.x)
                for i, q in enumerate(s.path):
                    if q == p:
                        n += 1
                        r += int(s.right[i])
                        if sc[i] >= t0:
                            kn += 1
                            kr += int(s.right[i])
            cells.append(f"{r}/{n} ({kr}/{kn})" if n else "-")
        print(f"  {p:22}" + "".join(f"{c:>24}" for c in cells))
    print("per shipped-score band: right/proposed")
    print(f"  {'band':12}" + "".join(f"{n:>16}" for n, _ in rows))
    for lo, hi in zip(bands, bands[1:], strict=False):
        cells = []
        for _, ss in rows:
            n = r = 0
            for s in ss:
                sc = T.predict(shipped, s.x)
                k = (sc >= lo) & (sc < hi)
                n += int(k.sum())
                r += int(s.right[k].sum())
            cells.append(f"{r}/{n} ({r / n:.2f})" if n else "-")
        print(f"  {lo:.2f}-{min(hi, 1):.2f}   " + "".join(f"{c:>16}" for c in cells))


def pr_curve(fr: Fresh, shipped: dict) -> None:
    sc = T.predict(shipped, fr.s.x)
    print(f"precision-recall of the shipped score on {fr.s.name} (threshold: links kept, P, R)")
    for t in (0.0, 0.3, 0.4, 0.5, 0.56, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9):
        m, r, g, n = fr.tally(sc >= t)
        print(f"  >= {t:.2f}: {m:4d} links  {fmt(m, r, g, n)}")


def ship(data: dict[str, T.Split], shipped: dict, out: Path, weights: tuple[float, ...] = (1.0, 3.0, 10.0, 30.0),
         scope: str = "ans") -> None:
    """The answered-path head (``c17ans-p@r``) fitted on the 17 splits plus both fresh splits
    (their rows weighted w), w, ridge and threshold chosen by the highest pooled precision at
    recall >= ``RECALL_FLOOR`` over the fresh splits' cross-fitted scores (5 conversation groups
    per split, each scored by a head fitted without it; the cue paths keep the shipped filter);
    written beside the shipped filter's weights as ``ans_*`` (``link_head`` reads both)."""
    from mnemo.graph import link_head

    old = [data[n] for n in SHIPPED_ON]
    fresh = [Fresh(data[n]) for n in FRESH]
    t0 = float(shipped["threshold"])

    def fit_all(w: float, l2: float, exclude: set[str]) -> dict[str, np.ndarray]:
        rows = [np.asarray([c not in exclude for c in fr.s.conv], dtype=bool) for fr in fresh]
        x = np.vstack([s.x for s in old] + [fr.s.x[k] for fr, k in zip(fresh, rows, strict=True)])
        y = np.concatenate([s.right for s in old] + [fr.s.right[k] for fr, k in zip(fresh, rows, strict=True)]).astype(float)
        wt = np.concatenate([np.ones(sum(len(s.right) for s in old))] + [np.full(int(k.sum()), w) for k in rows])
        return fit_weighted(x, y, wt, l2)

    best = (0.0, 0.0, 0.0, -1.0)
    for w in weights:
        for l2 in (0.3, 1.0, 3.0, 10.0):
            scs = []
            for fr in fresh:
                ans = np.asarray([p.startswith("ans-") or scope == "all" for p in fr.s.path])
                sc = np.zeros(len(fr.s.right))
                for g in groups(fr):
                    rows = np.asarray([c in g for c in fr.s.conv], dtype=bool)
                    if rows.any():
                        sc[rows] = T.predict(fit_all(w, l2, set(g)), fr.s.x[rows])
                cue_keep = T.predict(shipped, fr.s.x) >= t0
                scs.append(np.where(ans, sc, np.where(cue_keep, 1.0, 0.0)))
            for t in sorted({*np.round(np.concatenate(scs), 4).tolist()}):
                tot = np.sum([fr.tally(sc >= t) for fr, sc in zip(fresh, scs, strict=True)], axis=0)
                m, r, g = int(tot[0]), int(tot[1]), int(tot[2])
                if r / g < RECALL_FLOOR:
                    break
                if r / m > best[3] + 1e-12:
                    best = (w, l2, t, r / m)
                    kept = [fr.tally(sc >= t) for fr, sc in zip(fresh, scs, strict=True)]
    w, l2, t, p = best
    for fr, k in zip(fresh, kept, strict=True):
        print(f"  cross-fitted {fr.s.name}: {fmt(*k)}")
    head = fit_all(w, l2, set())
    names = link_head.feature_names()
    if scope == "all":
        np.savez(out, names=np.asarray(names), mean=head["mean"], scale=head["scale"], w=head["w"], b=head["b"],
                 threshold=np.asarray(t), splits=np.asarray(list(SHIPPED_ON) + list(FRESH)),
                 fresh_weight=np.asarray(w), ridge=np.asarray(l2))
        print(f"wrote {out}: the whole filter refitted, w {w:g} ridge {l2:g} threshold {t:.3f}, cross-fitted pooled precision {p:.3f}")
        return
    arrays = {k: shipped[k] for k in shipped if not k.startswith("ans_")}
    arrays.update(ans_mean=head["mean"], ans_scale=head["scale"], ans_w=head["w"], ans_b=head["b"],
                  ans_threshold=np.asarray(t), ans_splits=np.asarray(list(SHIPPED_ON) + list(FRESH)),
                  ans_fresh_weight=np.asarray(w), ans_ridge=np.asarray(l2))
    np.savez(out, **arrays)
    print(f"wrote {out}: answered-path head w {w:g} ridge {l2:g} threshold {t:.3f}, cross-fitted pooled precision {p:.3f}")
    for k in np.argsort(-np.abs(head["w"]))[:12]:
        print(f"    {names[k]:24} {head['w'][k]:+.3f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", required=True)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--weights", default="1,3,10,30", help="the fresh rows' weights --write chooses from")
    ap.add_argument("--scope", default="ans", choices=("ans", "all"), help="--write: refit the answered paths' head or the whole filter")
    ap.add_argument("--head", default=None, help="the cue filter's weights (default: the shipped links.npz)")
    ap.add_argument("--write", default=None, help="fit the shipped filter (c17-p@r on both fresh splits) and write it here")
    args = ap.parse_args(argv)
    from mnemo.graph import link_head

    data = {s: T.cached(args.cache, s) for s in READS}
    shipped = link_head.load(Path(args.head)) if args.head else link_head.load()
    assert shipped is not None
    if args.write:
        ship(data, shipped, Path(args.write), tuple(float(v) for v in args.weights.split(",")), args.scope)
        return 0
    fresh = {n: Fresh(data[n]) for n in FRESH}
    old = [data[n] for n in SHIPPED_ON]
    tables(data, shipped)
    for n in FRESH:
        pr_curve(fresh[n], shipped)
    rng = np.random.default_rng(args.seed)
    pooled: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    keeps: dict[str, dict[str, np.ndarray]] = defaultdict(dict)
    for tune, test in (("test16", "test15"), ("test15", "test16")):
        print(f"\nfold: settings chosen on {tune}, scored on {test} (bootstrap 90% of the gain over shipped)")
        vs = variants(fresh[tune], fresh[test], shipped, old, old + [data["test14"]])
        base = vs["shipped"][0]
        for name, (keep, note) in vs.items():
            m, r, g, nr = fresh[test].tally(keep)
            for k, v in enumerate((m, r, g, nr)):
                pooled[name][k] += v
            keeps[name][test] = keep
            lo, hi, rlo, rhi = boot(fresh[test], keep, base, rng)
            print(f"  {name:13} {fmt(m, r, g, nr)}   dP [{lo:+.3f},{hi:+.3f}] dR [{rlo:+.3f},{rhi:+.3f}]   {note}")
    print("\npooled over the two folds")
    for name, (m, r, g, nr) in pooled.items():
        print(f"  {name:13} {fmt(m, r, g, nr)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
