#!/usr/bin/env python3
"""Evidence recall on LoCoMo-format conversations: mnemo's recall against BM25, dense and RRF.

    scripts/eval_locomo.py DATASET.json [--k 5,10] [--json] [--ablations] [--set recall.KEY=VALUE]

For each conversation, a fresh mnemo home: every dialog turn is saved through the normal API
(``save_many``, one batch per session, the real all-MiniLM-L6-v2 model) as
``"<speaker>: <text>"`` with its ``dia_id`` in ``meta``, the session's date as ``created_at``
and the session as ``session_id``; the clock follows the sessions' dates. At the end of the
conversation each question is recalled with ``touch=False``. A question's evidence is the set
of its ``dia_id``s; recall@k is the share of them in the top k, nDCG@10 uses binary gains, MRR
is the reciprocal rank of the first evidence turn within the top max(k).

Baselines in the same run, on the same stored text:
- ``bm25``: FTS5 BM25 over the memories with every word of the question (OR), the store's
  plain keyword search;
- ``dense``: exact cosine (numpy, no HNSW) between the question's and the turns' MiniLM vectors;
- ``rrf``: plain reciprocal rank fusion (k = 60, equal weights) of those two rankings.
``bm25-content`` (BM25 with mnemo's stopword-aware query) is shown for reference.

Malformed evidence ids (``D:11:26``, ``D30:05``, ``D8:6; D9:17``) are normalised; ids that
point at no turn are skipped and counted. The data is only read: nothing is written but the
temporary homes, which are removed.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import tempfile
import time
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mnemo.clock import Clock  # noqa: E402
from mnemo.config import load_settings  # noqa: E402
from mnemo.engine import Mnemo  # noqa: E402
from mnemo.recall.fusion import weighted_rrf  # noqa: E402
from mnemo.recall.query import keyword_text  # noqa: E402

HEADLINE = (1, 2, 3, 4)
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_EVIDENCE = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)")
# Settings switched off one at a time by --ablations (each row: mnemo without that step).
ABLATIONS = {
    "- stopword-aware BM25": {"stopwords": False},
    "- score fusion (= weighted RRF)": {"rank_mix": 1.0},
    "- conversation context": {"neighbour_weight": 0.0},
    "- retention re-rank": {"rerank_weight": 0.0},
    "- review blending": {"review_ratio": 0.0},
}


def session_time(text: str) -> float:
    """LoCoMo's '1:56 pm on 8 May, 2023' (naive, read as UTC)."""
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y"):
        try:
            return datetime.strptime(text.strip(), fmt).replace(tzinfo=UTC).timestamp()
        except ValueError:
            continue
    from mnemo.clock import parse_time

    return parse_time(text)


def sessions(conv: dict[str, Any]) -> list[tuple[int, float, list[dict[str, Any]]]]:
    out = []
    for key, turns in conv.items():
        m = re.fullmatch(r"session_(\d+)", key)
        if m and isinstance(turns, list) and turns:
            n = int(m.group(1))
            out.append((n, session_time(conv[f"session_{n}_date_time"]), turns))
    return sorted(out)


def normalise_evidence(raw: list[Any], known: set[str]) -> tuple[list[str], int, int]:
    """Evidence ids as ``D<session>:<turn>`` (zero-padding and stray colons removed, lists
    split); returns (resolvable ids, number skipped, number that needed normalising)."""
    ids: list[str] = []
    skipped = fixed = 0
    for item in raw or []:
        text = str(item)
        found = _EVIDENCE.findall(text)
        if not found:
            skipped += 1
            continue
        for s, t in found:
            did = f"D{int(s)}:{int(t)}"
            if did != text.strip():
                fixed += 1
            if did in known:
                ids.append(did)
            else:
                skipped += 1
    return list(dict.fromkeys(ids)), skipped, fixed


def metrics(ranked: list[str], evidence: set[str], ks: list[int]) -> dict[str, float]:
    out = {f"recall@{k}": len(evidence & set(ranked[:k])) / len(evidence) for k in ks}
    gains = [1.0 if d in evidence else 0.0 for d in ranked[:10]]
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
    idcg = sum(1.0 / math.log2(i + 2) for i in range(min(len(evidence), 10)))
    out["ndcg@10"] = dcg / idcg if idcg else 0.0
    first = next((i for i, d in enumerate(ranked[: max(ks)]) if d in evidence), None)
    out["mrr"] = 1.0 / (first + 1) if first is not None else 0.0
    return out


def run_conversation(sample: dict[str, Any], embedder: Any, ks: list[int], ablations: bool,
                     overrides: dict[str, Any], log: Any) -> dict[str, Any]:
    conv = sample["conversation"]
    sess = sessions(conv)
    n_cand = max(50, 3 * max(ks))
    rows: dict[str, list[tuple[int, dict[str, float]]]] = defaultdict(list)
    skipped_ids = skipped_questions = fixed_ids = 0
    with tempfile.TemporaryDirectory(prefix="mnemo-locomo-") as home:
        settings = load_settings(home=home, overrides={"embedding.model": "all-MiniLM-L6-v2", **overrides})
        clock = Clock(sess[0][1])
        with Mnemo(settings, clock=clock, embedder=embedder) as m:
            t0 = time.perf_counter()
            dia_of: dict[str, str] = {}
            for n, ts, turns in sess:
                clock.set(ts)
                items = [
                    {"content": f"{t.get('speaker', '?')}: {t.get('text', '')}", "meta": {"dia_id": t["dia_id"]},
                     "created_at": ts, "session_id": f"{sample.get('sample_id', 'conv')}/session_{n}"}
                    for t in turns if str(t.get("text", "")).strip() and t.get("dia_id")
                ]
                for r in m.save_many(items):
                    dia_of[r.id] = r.memory.meta["dia_id"]
            ingest = time.perf_counter() - t0
            ids = list(dia_of)
            vecs = m.index.get_vectors("memories", ids)
            matrix = np.stack([vecs[i] for i in ids])
            known = set(dia_of.values())
            latencies: list[float] = []
            base = {f: getattr(m.settings.recall, f) for s in ABLATIONS.values() for f in s}
            for qa in sample.get("qa", []):
                evidence, skipped, fixed = normalise_evidence(qa.get("evidence", []), known)
                skipped_ids += skipped
                fixed_ids += fixed
                if not evidence:
                    skipped_questions += 1
                    continue
                ev = set(evidence)
                q = str(qa["question"])
                cat = int(qa.get("category", 0))
                t1 = time.perf_counter()
                hits = m.recall(q, k=max(ks), touch=False)
                latencies.append(time.perf_counter() - t1)
                rows["mnemo"].append((cat, metrics([dia_of.get(h.id, "") for h in hits], ev, ks)))
                bm = [i for i, _ in m.store.fts_search(q, limit=n_cand)]
                bm_content = [i for i, _ in m.store.fts_search(keyword_text(q), limit=n_cand)]
                sims = matrix @ m.embedder.embed_query(q)
                dense = [ids[j] for j in np.argsort(-sims, kind="stable")[:n_cand]]
                fused = weighted_rrf([(bm, 1.0), (dense, 1.0)], k=60)
                rrf = sorted(fused, key=lambda d: (-fused[d], d))
                for name, ranking in (("bm25", bm), ("bm25-content", bm_content), ("dense", dense), ("rrf", rrf)):
                    rows[name].append((cat, metrics([dia_of[i] for i in ranking], ev, ks)))
                if ablations:
                    for label, change in ABLATIONS.items():
                        for f, v in change.items():
                            setattr(m.settings.recall, f, v)
                        hits = m.recall(q, k=max(ks), touch=False)
                        for f in change:
                            setattr(m.settings.recall, f, base[f])
                        rows[label].append((cat, metrics([dia_of.get(h.id, "") for h in hits], ev, ks)))
    log(f"  {sample.get('sample_id', '?')}: {len(dia_of)} turns saved in {ingest:.1f}s "
        f"({len(dia_of) / ingest:.0f}/s), {len(latencies)} questions, recall p50 "
        f"{1000 * float(np.median(latencies)) if latencies else 0:.1f} ms")
    return {"rows": rows, "turns": len(dia_of), "skipped_ids": skipped_ids, "skipped_questions": skipped_questions,
            "normalised_ids": fixed_ids,
            "ingest_s": ingest, "latencies": latencies}


def summarise(rows: dict[str, list[tuple[int, dict[str, float]]]]) -> dict[str, dict[str, dict[str, float]]]:
    out: dict[str, dict[str, dict[str, float]]] = {}
    for system, items in rows.items():
        groups: dict[str, list[dict[str, float]]] = defaultdict(list)
        for cat, met in items:
            groups[str(cat)].append(met)
            if cat in HEADLINE:
                groups["1-4"].append(met)
        out[system] = {
            g: {**{k: round(float(np.mean([x[k] for x in ms])), 4) for k in ms[0]}, "n": len(ms)}
            for g, ms in groups.items()
        }
    return out


def table(summary: dict[str, dict[str, dict[str, float]]], ks: list[int]) -> str:
    cols = [f"recall@{k}" for k in ks] + ["ndcg@10", "mrr"]
    lines = [f"Categories 1-4 (n = {summary['mnemo']['1-4']['n']} questions)", ""]
    lines.append(f"| system | {' | '.join(cols)} |")
    lines.append("|" + " --- |" * (len(cols) + 1))
    for system, groups in summary.items():
        g = groups.get("1-4")
        if g:
            lines.append(f"| {system} | " + " | ".join(f"{g[c]:.3f}" for c in cols) + " |")
    cats = sorted({c for groups in summary.values() for c in groups if c != "1-4"}, key=int)
    lines += ["", f"recall@{max(ks)} by category", ""]
    heads = [f"{c} {CATEGORY_NAMES.get(int(c), '')} (n={summary['mnemo'].get(c, {}).get('n', 0)})" for c in cats]
    lines.append(f"| system | {' | '.join(heads)} |")
    lines.append("|" + " --- |" * (len(cats) + 1))
    for system, groups in summary.items():
        lines.append(f"| {system} | " + " | ".join(
            f"{groups[c][f'recall@{max(ks)}']:.3f}" if c in groups else "-" for c in cats) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dataset", type=Path, help="a LoCoMo-format JSON file (a list of samples)")
    ap.add_argument("--k", default="5,10", help="cut-offs for recall@k (default 5,10)")
    ap.add_argument("--json", action="store_true", help="print the results as JSON on stdout")
    ap.add_argument("--ablations", action="store_true", help="also run mnemo with each step switched off")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a setting override, e.g. recall.rank_mix=1")
    args = ap.parse_args(argv)
    try:
        ks = sorted({int(x) for x in args.k.split(",") if x.strip()})
        if not ks or ks[0] < 1:
            raise ValueError
    except ValueError:
        ap.error("--k takes positive whole numbers, e.g. 5,10")
    overrides = {}
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep:
            ap.error(f"--set {item!r}: expected KEY=VALUE")
        overrides[key.strip()] = value.strip()
    try:
        data = json.loads(args.dataset.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        print(f"Error: cannot read {args.dataset}: {exc}", file=sys.stderr)
        return 1
    if isinstance(data, dict):
        data = [data]

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    from mnemo.nlp.embedder import make_embedder

    embedder = make_embedder("all-MiniLM-L6-v2")
    t0 = time.perf_counter()
    rows: dict[str, list[tuple[int, dict[str, float]]]] = defaultdict(list)
    skipped_ids = skipped_questions = turns = fixed_ids = 0
    latencies: list[float] = []
    log(f"{args.dataset.name}: {len(data)} conversations")
    for sample in data:
        r = run_conversation(sample, embedder, ks, args.ablations, overrides, log)
        for system, items in r["rows"].items():
            rows[system].extend(items)
        skipped_ids += r["skipped_ids"]
        skipped_questions += r["skipped_questions"]
        fixed_ids += r["normalised_ids"]
        turns += r["turns"]
        latencies += r["latencies"]
    if not rows:
        print("Error: no question with resolvable evidence", file=sys.stderr)
        return 1
    summary = summarise(rows)
    result = {
        "dataset": args.dataset.name,
        "conversations": len(data),
        "turns": turns,
        "questions": sum(g["n"] for c, g in summary["mnemo"].items() if c != "1-4"),
        "normalised_evidence_ids": fixed_ids,
        "skipped_evidence_ids": skipped_ids,
        "skipped_questions": skipped_questions,
        "recall_latency_ms_p50": round(1000 * float(np.median(latencies)), 2),
        "seconds": round(time.perf_counter() - t0, 1),
        "settings": overrides,
        "results": summary,
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(table(summary, ks))
        print()
        print(f"{result['conversations']} conversations, {turns} turns, {result['questions']} questions; "
              f"{fixed_ids} evidence ids normalised, {skipped_ids} skipped (no such turn), "
              f"{skipped_questions} questions without evidence; "
              f"mnemo recall p50 {result['recall_latency_ms_p50']} ms; {result['seconds']} s in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
