#!/usr/bin/env python3
"""Evidence recall on LoCoMo-format conversations: mnemo's recall against BM25, dense and RRF,
on four ways of storing a conversation, with leave-one-conversation-out tuning.

    scripts/eval_locomo.py DATASET.json [--store turns|turns-sessions|ingest|observations[,...]]
        [--folds none|loo] [--grid recall.KEY=V1,V2 ...] [--set KEY=VALUE ...] [--k 5,10]
        [--categories 1,2,3,4] [--ablations] [--misses 50] [--dump FILE.jsonl] [--embedder MODEL] [--json]

Storage paths (``--store``; a fresh mnemo home per conversation and path, the real
all-MiniLM-L6-v2 model unless ``--embedder`` names a local sentence-transformers folder to compare,
the clock following the sessions' dates):
- ``turns``: every dialog turn saved through ``save_many`` as ``"<speaker>: <text>"`` with its
  ``dia_id`` in ``meta`` and its session's date as ``created_at``, no ``session_id``;
- ``turns-sessions``: the same, each turn with its session as ``session_id``;
- ``ingest``: each session given to ``Mnemo.ingest`` as a JSON conversation (speaker, text, the
  session's date as timestamp): the product path; a memory maps back to its turn by
  ``meta.turn``;
- ``observations``: LoCoMo's ``observation`` facts, one memory each (as an assistant saves
  distilled facts over MCP), dated by their session; a fact covers the ``dia_id``s it cites.
Each question is recalled at the end with ``recall(k, touch=False)``. A question's evidence is
its set of ``dia_id``s; recall@k is the share of them covered by the top k memories, nDCG@10
counts a memory as a gain when it covers evidence not covered above it, MRR is the reciprocal
rank of the first memory covering evidence within the top max(k).

Baselines in the same run, on the same stored memories: ``bm25`` (FTS5 BM25 with every word
of the question, OR), ``dense`` (exact numpy cosine of the stored MiniLM vectors), ``rrf``
(plain reciprocal rank fusion of those two, k = 60, equal weights).

``--folds loo``: every setting of the grid (``--grid``, default ``DEFAULT_GRID``) is scored on
every conversation; for each conversation the setting with the best recall@max(k) on the
*other* conversations' questions is chosen and reported on the held-out one (rotating). The
``in-sample`` column is the setting best on all conversations, reported on all of them: the gap
between the two columns is the over-fit. ``defaults`` is mnemo as configured (plus ``--set``).
Store-time settings (``--set``) are applied when the stores are built; grid settings are
``recall.*`` settings, changed between queries on the same stores.

``--misses K`` (e.g. 50) is the diagnosis of what re-ordering could still buy: mnemo as configured
is also asked with k = K, and for each evidence turn its first 10 miss (and some memory covers),
the script finds the best rank of a memory covering it in that list and in the baselines' first K
(``missed_ranks``); per category it prints the share of the evidence the first 10 / 20 / K cover
and, for each ranking, how many of the missed turns lie within 20 and within K, with their median
rank (``misses_report``).

``--dump FILE.jsonl`` writes mnemo's first max(50, ``--misses``) hits of every question (text,
covered turns, score, BM25 and vector ranks) to a file outside the repository, one JSON line per
question, for re-orderings measured outside this script (they need no store and no model).

Embeddings of stored texts and questions are computed once per run and reused across paths
and settings (a cache in front of the model), so a LOO sweep costs one pass of the model over
the data plus the recalls themselves.

Malformed evidence ids (``D:11:26``, ``D30:05``, ``D8:6; D9:17``) are normalised; ids that
point at no turn are skipped and counted. The data is only read: nothing is written but the
temporary homes, which are removed.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import math
import re
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
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

STORES = ("turns", "turns-sessions", "ingest", "observations")
HEADLINE = (1, 2, 3, 4)
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
# The form of a question, for the --misses table by form: read from its first words only (no model, no
# list of the dataset's questions), so that where recall misses can be told apart by what is asked.
FORM_NAMES = {1: "when / how long", 2: "yes-no / would", 3: "how many", 4: "two people", 5: "list (what Xs)",
              6: "what / which (other)", 7: "who / where / why / how (other)"}
_AUXILIARIES = frozenset(["is", "are", "was", "were", "do", "does", "did", "has", "have", "had", "can", "could", "would", "will", "should", "might"])
_TWO_PEOPLE = re.compile(r"\b[A-Z][\w'-]+ and [A-Z][\w'-]+|\bboth\b")
_LIST = re.compile(r"(?:what|which) (?:kinds? of |types? of |sorts? of )?([a-z-]+)\b")
_SINGULAR_S = frozenset(["does", "is", "was", "has", "his", "its", "this", "us", "as", "yes", "always"])
_EVIDENCE = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)")
# Settings switched off one at a time by --ablations (each row: mnemo without that step).
ABLATIONS = {
    "- stopword-aware BM25": {"recall.stopwords": False},
    "- score fusion (= weighted RRF)": {"recall.rank_mix": 1.0},
    "- conversation context": {"recall.neighbour_weight": 0.0},
    "- retention re-rank": {"recall.rerank_weight": 0.0},
    "- review blending": {"recall.review_ratio": 0.0},
    "- names in the query": {"recall.name_boost": 0.0},
    "- dated ranking": {"recall.time_scope": 0.0},
    "- specificity": {"recall.specificity": 0.0},
}
# What --folds loo chooses among unless --grid is given: the knobs whose best value could
# plausibly differ between conversations (the fusion weights of the intent, the weight of the dated
# ranking of a query that names a date, or off, how many memories must hold a name before the dense
# side embeds the query without it, the specificity on or off); the first value of each is mnemo's
# default. Left the grid after they were chosen at their defaults in every fold for every path at once:
# the answer share (recall.answer_weight 0.5), the names step (recall.name_boost 1) and result
# diversity (recall.diversity 0, in 3 of 3 folds of the sixth round).
DEFAULT_GRID = {
    "recall.intent": ["recall", "general"],
    "recall.time_scope": [2.0, 1.0, 0.0],
    "recall.name_strip_min": [50, 0],
    "recall.specificity": [0.7, 0.0],
}


Metrics = dict[str, float]
Row = tuple[int, Metrics]  # (category, metrics) for one question


# -- the data -----------------------------------------------------------------------------------
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


def normalise_evidence(raw: Any, known: set[str] | None) -> tuple[list[str], int, int]:
    """Evidence ids as ``D<session>:<turn>`` (zero-padding and stray colons removed, lists
    split); returns (resolvable ids, number skipped, number that needed normalising).
    ``known=None`` accepts every well-formed id."""
    ids: list[str] = []
    skipped = fixed = 0
    items = raw if isinstance(raw, list) else [raw]
    for item in items or []:
        text = str(item)
        found = _EVIDENCE.findall(text)
        if not found:
            skipped += 1
            continue
        for s, t in found:
            did = f"D{int(s)}:{int(t)}"
            if did != text.strip():
                fixed += 1
            if known is None or did in known:
                ids.append(did)
            else:
                skipped += 1
    return list(dict.fromkeys(ids)), skipped, fixed


def spoken(turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [t for t in turns if str(t.get("text", "")).strip() and t.get("dia_id")]


def observations(sample: dict[str, Any], n: int) -> list[tuple[str, list[str]]]:
    """(fact, cited dia_ids) of session ``n``'s observations, in file order."""
    block = (sample.get("observation") or {}).get(f"session_{n}_observation") or {}
    out = []
    for facts in block.values():
        for fact in facts or []:
            if isinstance(fact, list | tuple) and fact and isinstance(fact[0], str) and fact[0].strip():
                ids, _, _ = normalise_evidence(list(fact[1:]), None)
                out.append((fact[0].strip(), ids))
    return out


# -- metrics ------------------------------------------------------------------------------------
def metrics(ranked: Sequence[frozenset[str]], evidence: set[str], ks: list[int]) -> Metrics:
    """``ranked``: the dia_ids each returned memory covers, best first."""
    def covered(k: int) -> set[str]:
        out: set[str] = set()
        for ids in ranked[:k]:
            out |= ids
        return out & evidence

    out = {f"recall@{k}": len(covered(k)) / len(evidence) for k in ks}
    seen: set[str] = set()
    gains = []
    for ids in ranked[:10]:
        new = (ids & evidence) - seen
        gains.append(1.0 if new else 0.0)
        seen |= new
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
    idcg = sum(1.0 / math.log2(i + 2) for i in range(min(len(evidence), 10)))
    out["ndcg@10"] = dcg / idcg if idcg else 0.0
    first = next((i for i, ids in enumerate(ranked[: max(ks)]) if ids & evidence), None)
    out["mrr"] = 1.0 / (first + 1) if first is not None else 0.0
    return out


def question_form(question: str) -> int:
    """The key of ``FORM_NAMES`` for a question: a time asked for, a yes-no or hypothetical question,
    a count, two people named together, "What / Which <plural noun>" (a list of things), other
    "what / which", and the rest. The first matching form wins, in that order."""
    text = question.strip()
    low = text.lower()
    first = low.split(" ", 1)[0] if low else ""
    if first == "when" or low.startswith(("how long", "what year", "what month", "what date", "which year", "which month")):
        return 1
    if first in _AUXILIARIES:
        return 2
    if low.startswith(("how many", "how much")):
        return 3
    if _TWO_PEOPLE.search(text):
        return 4
    m = _LIST.match(low)
    if m and m.group(1).endswith("s") and not m.group(1).endswith("ss") and m.group(1) not in _SINGULAR_S:
        return 5
    return 6 if first in ("what", "which") else 7


def missed_ranks(rankings: Mapping[str, Sequence[str]], covers: Mapping[str, frozenset[str]], evidence: set[str],
                 lead: str = "mnemo", head: int = 10) -> list[dict[str, float]]:
    """Where the evidence the first ``head`` of ``rankings[lead]`` misses lies: one record per
    evidence turn that some stored memory covers and none of those ``head`` does, giving for each
    ranking (ids best first) the 1-based rank of its best memory covering that turn (``inf``: none
    of the ranking's memories covers it)."""
    stored: set[str] = set().union(*covers.values()) if covers else set()
    found: set[str] = set()
    for i in rankings[lead][:head]:
        found |= covers.get(i, frozenset())
    out = []
    for turn in sorted((evidence & stored) - found):
        out.append({name: float(next((r for r, i in enumerate(ids, start=1) if turn in covers.get(i, frozenset())),
                                     math.inf)) for name, ids in rankings.items()})
    return out


def misses_report(per_conv: dict[str, dict[str, list[Row]]], depth: int, by: str = "category") -> tuple[list[str], dict[str, Any]]:
    """The ``--misses`` table of one path: per category (``by="form"``: per question form,
    ``question_form``), the share of the evidence the lead ranking's first 10 / 20 / ``depth``
    cover, and where the turns its first 10 miss lie in it and in each baseline (how many within
    20 and within ``depth``, and their median rank there)."""
    convs = list(per_conv)
    suffix, labels = ("", CATEGORY_NAMES) if by == "category" else (":form", FORM_NAMES)
    lead = [r for c in convs for r in per_conv[c].get("misses:lead" + suffix, [])]
    missed = [r for c in convs for r in per_conv[c].get("misses:ranks" + suffix, [])]
    cats = sorted({r[0] for r in lead})
    names = list(missed[0][1]) if missed else ["mnemo", "bm25", "dense"]
    head = [by, "n", f"mnemo k={depth}: recall@10 / 20 / {depth}", "missed turns",
            *[f"{n}: within 20 / {depth} (median rank)" for n in names]]
    body = []
    out: dict[str, Any] = {}
    for cat in [*cats, None]:  # None: every category
        rs = [r for r in lead if cat is None or r[0] == cat]
        ms = [r[1] for r in missed if cat is None or r[0] == cat]
        label = "all" if cat is None else f"{cat} {labels.get(cat, '')}"
        shares = [mean_of(rs, f"recall@{k}") for k in (10, 20, depth)]
        row = [label, str(len(rs)), " / ".join(f"{x:.3f}" for x in shares), str(len(ms))]
        key = "all" if cat is None else str(cat)
        out[key] = {"recall": dict(zip(("10", "20", str(depth)), shares, strict=True)), "missed": len(ms), "n": len(rs)}
        for n in names:
            ranks = [m[n] for m in ms if m[n] <= depth]
            med = f"{float(np.median(ranks)):.0f}" if ranks else "-"
            row.append(f"{sum(1 for x in ranks if x <= 20)} / {len(ranks)} ({med})")
            out[key][n] = {"within_20": sum(1 for x in ranks if x <= 20), f"within_{depth}": len(ranks),
                                "median": float(np.median(ranks)) if ranks else None}
        body.append(row)
    lines = [f"where the evidence mnemo's first 10 miss lies, by {by} (mnemo recalled with k = {depth}; the baselines' first {depth})", ""]
    return lines + md_table(head, body), out


# -- embeddings computed once per run -----------------------------------------------------------
class CachedEmbedder:
    """The real model behind a text → vector cache: the same turns stored on two paths, and the
    same question asked under every setting of a grid, are embedded once."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.docs: dict[str, np.ndarray] = {}
        self.queries: dict[str, np.ndarray] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def load(self, path: Path) -> None:
        """Vectors kept from an earlier run of the same model (``--embed-cache``)."""
        if path.is_file():
            with np.load(path, allow_pickle=False) as z:
                if str(z["model"]) == self.inner.model_hash:
                    for kind, store in (("docs", self.docs), ("queries", self.queries)):
                        store.update(zip(z[f"{kind}_text"].tolist(), z[f"{kind}_vec"], strict=True))

    def save(self, path: Path) -> None:
        arrays: dict[str, Any] = {"model": np.array(self.inner.model_hash)}
        for kind, store in (("docs", self.docs), ("queries", self.queries)):
            arrays[f"{kind}_text"] = np.array(list(store), dtype=str)
            arrays[f"{kind}_vec"] = np.stack(list(store.values())) if store else np.zeros((0, 1), dtype=np.float32)
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez(tmp, **arrays)
        tmp.replace(path)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self.docs))
        if missing:
            for t, v in zip(missing, self.inner.embed(missing), strict=True):
                self.docs[t] = np.asarray(v, dtype=np.float32)
        if not texts:
            return self.inner.embed([])
        return np.stack([self.docs[t] for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        v = self.queries.get(text)
        if v is None:
            v = self.queries[text] = np.asarray(self.inner.embed_query(text), dtype=np.float32)
        return v


# -- building a store ---------------------------------------------------------------------------
@dataclass
class Built:
    m: Mnemo
    covers: dict[str, frozenset[str]]  # memory id → the dia_ids it covers
    known: set[str]  # every dia_id of the conversation
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


def build(sample: dict[str, Any], store: str, embedder: Any, overrides: dict[str, Any], home: str,
          model: str = "all-MiniLM-L6-v2") -> Built:
    conv = sample["conversation"]
    sess = sessions(conv)
    sid = sample.get("sample_id", "conv")
    settings = load_settings(home=home, overrides={"embedding.model": model, **overrides})
    clock = Clock(sess[0][1] if sess else 0.0)
    m = Mnemo(settings, clock=clock, embedder=embedder)
    covers: dict[str, frozenset[str]] = {}
    known = {t["dia_id"] for _, _, turns in sess for t in spoken(turns)}
    t0 = time.perf_counter()
    extra: dict[str, Any] = {}
    for n, ts, turns in sess:
        clock.set(ts)
        turns = spoken(turns)
        if store in ("turns", "turns-sessions"):
            items = [{"content": f"{t.get('speaker', '?')}: {t['text']}", "meta": {"dia_id": t["dia_id"]},
                      "created_at": ts, **({"session_id": f"{sid}/session_{n}"} if store == "turns-sessions" else {})}
                     for t in turns]
            for r in m.save_many(items):
                covers[r.id] = frozenset([r.memory.meta["dia_id"]])
        elif store == "ingest":
            if not turns:
                continue
            text = json.dumps([{"speaker": t.get("speaker") or "?", "text": t["text"], "timestamp": ts} for t in turns])
            out = m.ingest(text, format="json")
            for mem in out["memories"]:
                if mem["created"] and mem.get("turn") is not None and 0 <= mem["turn"] < len(turns):
                    covers[mem["id"]] = frozenset([turns[mem["turn"]]["dia_id"]])
            extra["kept"] = extra.get("kept", 0) + out["kept"]
        elif store == "observations":
            facts = observations(sample, n)
            if facts:
                items = [{"content": text, "meta": {"dia_ids": ids}, "created_at": ts} for text, ids in facts]
                for r, (_, ids) in zip(m.save_many(items), facts, strict=True):
                    covers[r.id] = frozenset(ids)
        else:
            raise ValueError(f"unknown store {store!r}")
    return Built(m, covers, known, time.perf_counter() - t0, extra)


# -- scoring a built store ----------------------------------------------------------------------
def set_recall(m: Mnemo, setting: dict[str, Any]) -> dict[str, Any]:
    """Apply ``recall.*`` settings to an open engine; returns the previous values."""
    before = {}
    for key, value in setting.items():
        name = key.removeprefix("recall.")
        before[key] = getattr(m.settings.recall, name)
        setattr(m.settings.recall, name, value)
    return before


def questions(sample: dict[str, Any], known: set[str], categories: set[int]) -> tuple[list[tuple[str, int, set[str]]], dict[str, int]]:
    out = []
    counts = {"skipped_ids": 0, "normalised_ids": 0, "skipped_questions": 0}
    for qa in sample.get("qa", []):
        cat = int(qa.get("category", 0) or 0)
        if cat not in categories:
            continue
        evidence, skipped, fixed = normalise_evidence(qa.get("evidence", []), known)
        counts["skipped_ids"] += skipped
        counts["normalised_ids"] += fixed
        if not evidence or not str(qa.get("question", "")).strip():
            counts["skipped_questions"] += 1
            continue
        out.append((str(qa["question"]), cat, set(evidence)))
    return out, counts


def score(b: Built, qs: list[tuple[str, int, set[str]]], settings: dict[str, dict[str, Any]], ks: list[int],
          misses: int = 0, dump: list[dict[str, Any]] | None = None, dump_k: int = 50) -> tuple[dict[str, list[Row]], list[float]]:
    """Rows per system: each named setting of mnemo, and the baselines. ``misses`` > 0: also
    mnemo as configured recalled with k = ``misses`` (rows ``misses:lead``) and, for each evidence
    turn its first 10 miss, the ranks of ``missed_ranks`` in it and in the baselines
    (``misses:ranks``); the same rows keyed by ``question_form`` instead of category
    (``misses:lead:form``, ``misses:ranks:form``). ``dump``, when given, receives one ``dumped``
    record per question: mnemo as configured recalled with k = ``dump_k``."""
    m = b.m
    k = max(ks)
    n_cand = max(50, 3 * k)
    rows: dict[str, list[Row]] = defaultdict(list)
    latencies: list[float] = []
    none = frozenset()

    def covered(ids: Sequence[str]) -> list[frozenset[str]]:
        return [b.covers.get(i, none) for i in ids]

    for name, setting in settings.items():
        before = set_recall(m, setting)
        try:
            for q, cat, ev in qs:
                t1 = time.perf_counter()
                hits = m.recall(q, k=k, touch=False)
                latencies.append(time.perf_counter() - t1)
                rows[name].append((cat, metrics(covered([h.id for h in hits]), ev, ks)))
        finally:
            set_recall(m, before)
    stored = frozenset().union(*b.covers.values()) if b.covers else frozenset()
    for _, cat, ev in qs:  # what any k could reach: the evidence turns some memory covers
        rows["ceiling"].append((cat, {key: len(ev & stored) / len(ev) for key in (f"recall@{x}" for x in ks)}))
    ids = list(b.covers)
    vecs = m.core.index.get_vectors("memories", ids) if ids else {}
    ids = [i for i in ids if i in vecs]
    matrix = np.stack([vecs[i] for i in ids]) if ids else np.zeros((0, 1), dtype=np.float32)
    rows_cache: dict[str, Any] = {}
    everything = max(1, m.core.store.fts_size_bound("memories"))

    def ranked(scores: Sequence[tuple[str, float]], limit: int = n_cand) -> list[str]:
        """Best first; ties as mnemo orders them (recall.candidates.rank_key): the newer memory,
        then the later save; never the random ids, so two runs give the same figures."""
        light = m.core.store.light_rows([i for i, _ in scores], rows_cache)

        def key(item: tuple[str, float]) -> tuple[float, float, int]:
            r = light.get(item[0]) or {}
            at = r.get("event_at") if r.get("event_at") is not None else r.get("created_at")
            return (-item[1], -float(at or 0.0), -int(r.get("seq") or 0))

        return [i for i, _ in sorted(scores, key=key)][:limit]

    for q, cat, ev in qs:
        # Every match, then the tie-break above: the store's LIMIT would cut ties by id.
        bm_scores = m.core.store.fts_search(q, limit=everything)
        bm = ranked(bm_scores)
        sims = matrix @ m.core.embedder.embed_query(q) if ids else np.zeros(0)
        dense_scores = list(zip(ids, sims.tolist(), strict=True))
        dense = ranked(dense_scores)
        fused = weighted_rrf([(bm, 1.0), (dense, 1.0)], k=60)
        rrf = ranked(list(fused.items()))
        for name, ranking in (("bm25", bm), ("dense", dense), ("rrf", rrf)):
            rows[name].append((cat, metrics(covered(ranking), ev, ks)))
        if dump is not None:
            dump.append(dumped(b, q, cat, ev, m.recall(q, k=dump_k, touch=False)))
        if misses > 0:
            lead = [h.id for h in m.recall(q, k=misses, touch=False)]
            got = metrics(covered(lead), ev, sorted({10, 20, misses}))
            deep = {"mnemo": lead, "bm25": ranked(bm_scores, misses), "dense": ranked(dense_scores, misses)}
            where = missed_ranks(deep, b.covers, ev)
            form = question_form(q)
            rows["misses:lead"].append((cat, got))
            rows["misses:ranks"] += [(cat, r) for r in where]
            rows["misses:lead:form"].append((form, got))
            rows["misses:ranks:form"] += [(form, r) for r in where]
    return rows, latencies


def dumped(b: Built, question: str, cat: int, evidence: set[str], hits: Sequence[Any]) -> dict[str, Any]:
    """One question's record for ``--dump``: what a re-ordering of mnemo's list can be tried on
    outside this script (each hit's text, the turns it covers, its score and the two retrievers'
    ranks), so that no one writes the dump again to measure a re-ranking."""
    return {"question": question, "category": cat, "form": question_form(question), "evidence": sorted(evidence),
            "hits": [{"id": h.id, "text": h.content, "covers": sorted(b.covers.get(h.id, frozenset())), "score": h.score,
                      "bm25_rank": h.bm25_rank, "vector_rank": h.vector_rank, "similarity": h.similarity,
                      "reason": h.reason, "at": h.created_at} for h in hits]}


def outside_repository(path: Path) -> bool:
    """The dump holds the dataset's text: it must not land in the repository (the data is not ours
    to ship)."""
    target = path.expanduser().resolve()
    return target != ROOT and ROOT not in target.parents


# -- leave one conversation out -----------------------------------------------------------------
def mean_of(rows: list[Row], key: str) -> float:
    return float(np.mean([r[1][key] for r in rows])) if rows else 0.0


def choose(per_conv: dict[str, dict[str, list[Row]]], names: list[str], on: list[str], key: str) -> str:
    """The setting with the best mean ``key`` over the questions of the conversations ``on``
    (pooled); ties go to the earlier setting (the defaults come first)."""
    best, best_v = names[0], -1.0
    for name in names:
        v = mean_of([r for c in on for r in per_conv[c][name]], key)
        if v > best_v + 1e-12:
            best, best_v = name, v
    return best


def loo(per_conv: dict[str, dict[str, list[Row]]], names: list[str], key: str) -> dict[str, Any]:
    convs = list(per_conv)
    held: dict[str, list[Row]] = {}
    chosen: dict[str, str] = {}
    for c in convs:
        others = [o for o in convs if o != c] or [c]  # one conversation: nothing to hold out
        chosen[c] = choose(per_conv, names, others, key)
        held[c] = per_conv[c][chosen[c]]
    insample = choose(per_conv, names, convs, key)
    return {"chosen": chosen, "held_out": held, "in_sample_setting": insample,
            "in_sample": {c: per_conv[c][insample] for c in convs}}


def joint_loo(per_store: dict[str, dict[str, dict[str, list[Row]]]], names: list[str], key: str) -> dict[str, Any]:
    """One setting for every path, as a product ships one set of defaults: for each conversation,
    the setting with the best mean ``key`` over the questions of every path on the *other*
    conversations, reported on each path of the held-out one."""
    convs = list(next(iter(per_store.values())))
    chosen: dict[str, str] = {}
    for c in convs:
        others = [o for o in convs if o != c] or [c]
        best, best_v = names[0], -1.0
        for name in names:
            v = mean_of([r for pc in per_store.values() for o in others for r in pc[o][name]], key)
            if v > best_v + 1e-12:
                best, best_v = name, v
        chosen[c] = best
    return {"chosen": chosen, "held_out": {store: {c: pc[c][chosen[c]] for c in convs} for store, pc in per_store.items()}}


def joint_report(per_store: dict[str, dict[str, dict[str, list[Row]]]], names: list[str], key: str,
                 labels: dict[str, str]) -> tuple[list[str], dict[str, Any]]:
    fold = joint_loo(per_store, names, key)
    convs = list(fold["chosen"])
    cats = sorted({r[0] for pc in per_store.values() for c in convs for r in pc[c]["bm25"]})
    lines = [f"### One setting for every path: {key} held out (chosen on every path of the other conversations)", ""]
    body = []
    out: dict[str, Any] = {"chosen": {c: labels[n] for c, n in fold["chosen"].items()}, "stores": {}}
    for store, held in fold["held_out"].items():
        pooled = [r for c in convs for r in held[c]]
        bm = [r for c in convs for r in per_store[store][c]["bm25"]]
        row = [store, *[f"{mean_of(held[c], key):.3f}" for c in convs], f"**{mean_of(pooled, key):.3f}**"]
        row += [f"{mean_of([r for r in pooled if r[0] == cat], key):.3f} ({mean_of([r for r in bm if r[0] == cat], key):.3f})"
                for cat in cats]
        body.append(row)
        out["stores"][store] = {"pooled": summarise(pooled), **{c: summarise(held[c]) for c in convs}}
    lines += md_table(["path", *convs, "pooled", *[f"{cat} {CATEGORY_NAMES.get(cat, '')} (bm25)" for cat in cats]], body)
    lines += ["", "chosen on the other conversations: " + "; ".join(f"{c}: {out['chosen'][c]}" for c in convs), ""]
    return lines, out


# -- summaries and tables -----------------------------------------------------------------------
def summarise(rows: list[Row]) -> dict[str, dict[str, float]]:
    groups: dict[str, list[Metrics]] = defaultdict(list)
    for cat, met in rows:
        groups[str(cat)].append(met)
        if cat in HEADLINE:
            groups["1-4"].append(met)
    return {g: {**{k: round(float(np.mean([x[k] for x in ms])), 4) for k in ms[0]}, "n": len(ms)}
            for g, ms in groups.items()}


def md_table(head: list[str], body: list[list[str]]) -> list[str]:
    return [f"| {' | '.join(head)} |", "|" + " --- |" * len(head), *(f"| {' | '.join(r)} |" for r in body)]


def store_report(store: str, per_conv: dict[str, dict[str, list[Row]]], names: list[str], folds: str,
                 ks: list[int], labels: dict[str, str]) -> tuple[list[str], dict[str, Any]]:
    key = f"recall@{max(ks)}"
    convs = list(per_conv)
    systems: dict[str, dict[str, list[Row]]] = {}  # system → conversation → rows
    out: dict[str, Any] = {"store": store}
    if folds == "loo":
        fold = loo(per_conv, names, key)
        systems["mnemo held-out"] = fold["held_out"]
        systems["mnemo in-sample"] = fold["in_sample"]
        out["chosen"] = {c: labels[n] for c, n in fold["chosen"].items()}
        out["in_sample_setting"] = labels[fold["in_sample_setting"]]
    extra_names = names if folds != "loo" else names[:1]
    for n in extra_names:
        systems["mnemo" if n == "defaults" else f"mnemo {labels[n]}"] = {c: per_conv[c][n] for c in convs}
    for base in ("bm25", "dense", "rrf"):
        systems[base] = {c: per_conv[c][base] for c in convs}
    sysnames = list(systems)
    lines = [f"### --store {store}: {key}, categories {'/'.join(map(str, sorted({r[0] for c in convs for r in per_conv[c]['bm25']})))}", ""]
    body = []
    for c in convs:
        row = [c, str(len(per_conv[c]["bm25"]))]
        row += [f"{mean_of(systems[s][c], key):.3f}" for s in sysnames]
        body.append(row)
    pooled = {s: [r for c in convs for r in systems[s][c]] for s in sysnames}
    body.append(["**pooled**", str(len(pooled["bm25"]))] + [f"**{mean_of(pooled[s], key):.3f}**" for s in sysnames])
    lines += md_table(["conversation", "n", *sysnames], body)
    cats = sorted({r[0] for r in pooled["bm25"]})
    lines += ["", f"{key} by category (pooled)", ""]
    body = []
    for s in sysnames:
        row = [s]
        for cat in cats:
            rs = [r for r in pooled[s] if r[0] == cat]
            row.append(f"{mean_of(rs, key):.3f}")
        body.append(row)
    lines += md_table(["system", *[f"{cat} {CATEGORY_NAMES.get(cat, '')} (n={sum(1 for r in pooled['bm25'] if r[0] == cat)})" for cat in cats]], body)
    ceiling = [r for c in convs for r in per_conv[c].get("ceiling", [])]
    if ceiling:
        lines += ["", f"ceiling (evidence turns covered by any stored memory): {mean_of(ceiling, key):.3f}"]
        out["ceiling"] = round(mean_of(ceiling, key), 4)
    if folds == "loo":
        lines += ["", "chosen on the other conversations: " + "; ".join(f"{c}: {out['chosen'][c]}" for c in convs),
                  f"chosen on all (in-sample): {out['in_sample_setting']}"]
    if folds == "loo" and len(names) > 1:
        lines += ["", f"every setting, {key} pooled over all conversations (in-sample): " + "; ".join(
            f"{labels[n]} {mean_of([r for c in convs for r in per_conv[c][n]], key):.3f}" for n in names)]
        out["settings_in_sample"] = {labels[n]: round(mean_of([r for c in convs for r in per_conv[c][n]], key), 4) for n in names}
    out["systems"] = {s: {"pooled": summarise(pooled[s]), **{c: summarise(systems[s][c]) for c in convs}} for s in sysnames}
    return lines, out


def parse_value(text: str) -> Any:
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            continue
    return text.strip()


def grid_settings(specs: list[str], error: Callable[[str], Any]) -> dict[str, list[Any]]:
    grid: dict[str, list[Any]] = {}
    for spec in specs:
        key, sep, values = spec.partition("=")
        key = key.strip()
        if not sep or not key.startswith("recall.") or not values.strip():
            error(f"--grid {spec!r}: expected recall.KEY=V1,V2,...")
        grid[key] = [parse_value(v) for v in values.split(",") if v.strip()]
    return grid


def label_of(setting: dict[str, Any]) -> str:
    return ", ".join(f"{k.removeprefix('recall.')}={v}" for k, v in setting.items()) or "defaults"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dataset", type=Path, help="a LoCoMo-format JSON file (a list of samples)")
    ap.add_argument("--store", default="turns-sessions", help=f"one or more of {', '.join(STORES)} (comma-separated)")
    ap.add_argument("--folds", choices=("none", "loo"), default="none", help="loo: choose the grid setting on the other conversations")
    ap.add_argument("--grid", action="append", default=[], metavar="recall.KEY=V1,V2",
                    help="a setting and its candidate values for --folds loo (repeat; the grid is their product)")
    ap.add_argument("--k", default="5,10", help="cut-offs for recall@k (default 5,10)")
    ap.add_argument("--categories", default="1,2,3,4", help="question categories to ask (default 1,2,3,4)")
    ap.add_argument("--json", action="store_true", help="print the results as JSON on stdout")
    ap.add_argument("--ablations", action="store_true", help="also run mnemo with each step switched off")
    ap.add_argument("--misses", type=int, default=0, metavar="K",
                    help="also recall with k = K (e.g. 50) and print, per category, where the evidence turns "
                         "mnemo's first 10 miss lie in that list and in the baselines' first K")
    ap.add_argument("--embed-cache", type=Path, metavar="FILE.npz",
                    help="keep the vectors of stored texts and questions in this file between runs (outside the repository)")
    ap.add_argument("--dump", type=Path, metavar="FILE.jsonl",
                    help="write, per path, conversation and question, mnemo's first max(50, --misses) hits with their "
                         "texts, covered turns, scores and ranks, one JSON line each (outside the repository)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a setting override, e.g. recall.rank_mix=1")
    ap.add_argument("--embedder", default="all-MiniLM-L6-v2", metavar="MODEL",
                    help="the embedding model: all-MiniLM-L6-v2 (default, the installed package) or a local "
                         "sentence-transformers folder, e.g. another model to compare (nothing is downloaded)")
    args = ap.parse_args(argv)
    try:
        ks = sorted({int(x) for x in args.k.split(",") if x.strip()})
        categories = {int(x) for x in args.categories.split(",") if x.strip()}
        if not ks or ks[0] < 1 or not categories or (args.misses and args.misses < 20):
            raise ValueError
    except ValueError:
        ap.error("--k and --categories take positive whole numbers, e.g. 5,10; --misses at least 20")
    if args.dump is not None and not outside_repository(args.dump):
        ap.error(f"--dump {args.dump}: the file holds the dataset's text; write it outside the repository")
    stores = [s.strip() for s in args.store.split(",") if s.strip()]
    bad = [s for s in stores if s not in STORES]
    if bad or not stores:
        ap.error(f"--store: unknown {', '.join(bad) or '(none)'}; choose from {', '.join(STORES)}")
    overrides = {}
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep:
            ap.error(f"--set {item!r}: expected KEY=VALUE")
        overrides[key.strip()] = value.strip()
    grid = grid_settings(args.grid, ap.error) if args.grid else (DEFAULT_GRID if args.folds == "loo" else {})
    try:
        data = json.loads(args.dataset.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        print(f"Error: cannot read {args.dataset}: {exc}", file=sys.stderr)
        return 1
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list) or not all(isinstance(s, dict) and isinstance(s.get("conversation"), dict) for s in data):
        print(f"Error: {args.dataset} is not a LoCoMo-format list of samples with a 'conversation'", file=sys.stderr)
        return 1

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    # The settings to score: the defaults, each ablation, each point of the grid.
    settings: dict[str, dict[str, Any]] = {"defaults": {}}
    if args.ablations:
        settings.update(ABLATIONS)
    for combo in itertools.product(*grid.values()):
        point = dict(zip(grid, combo, strict=True))
        settings.setdefault(f"grid {label_of(point)}", point)
    labels = {n: (n if n in ("defaults", *ABLATIONS) else label_of(s)) for n, s in settings.items()}
    names = list(settings)

    from mnemo.errors import ConfigError
    from mnemo.nlp.embedder import make_embedder

    try:
        embedder = CachedEmbedder(make_embedder(args.embedder))
    except ConfigError as exc:
        print(f"Error: --embedder {args.embedder!r}: {exc}", file=sys.stderr)
        return 1
    if args.embed_cache:
        embedder.load(args.embed_cache)
    t0 = time.perf_counter()
    report: dict[str, Any] = {"dataset": args.dataset.name, "embedder": args.embedder, "conversations": len(data), "folds": args.folds,
                              "settings": overrides, "grid": {labels[n]: s for n, s in settings.items()}, "stores": {}}
    text: list[str] = []
    log(f"{args.dataset.name}: {len(data)} conversations, embedder {args.embedder}, stores {', '.join(stores)}, {len(settings)} setting(s)")
    per_store: dict[str, dict[str, dict[str, list[Row]]]] = {}
    dumps: list[dict[str, Any]] = []
    for store in stores:
        per_conv: dict[str, dict[str, list[Row]]] = {}
        counts: dict[str, int] = defaultdict(int)
        latencies: list[float] = []
        for i, sample in enumerate(data):
            cid = str(sample.get("sample_id", f"conv-{i + 1}"))
            with tempfile.TemporaryDirectory(prefix="mnemo-locomo-") as home, contextlib.ExitStack() as stack:
                b = build(sample, store, embedder, overrides, home, model=args.embedder)
                stack.callback(b.m.close)
                qs, c = questions(sample, b.known, categories)
                for key, v in c.items():
                    counts[key] += v
                t1 = time.perf_counter()
                records: list[dict[str, Any]] | None = [] if args.dump is not None else None
                rows, lat = score(b, qs, settings, ks, misses=args.misses, dump=records, dump_k=max(50, args.misses))
                for r in records or []:
                    dumps.append({"store": store, "conversation": cid, **r})
                latencies += lat
                per_conv[cid] = rows
                log(f"  {store} {cid}: {len(b.covers)} memories in {b.seconds:.1f}s, {len(qs)} questions x "
                    f"{len(settings)} setting(s) in {time.perf_counter() - t1:.1f}s, recall p50 "
                    f"{1000 * float(np.median(lat)) if lat else 0:.1f} ms")
                counts["memories"] += len(b.covers)
        if not any(per_conv[c]["bm25"] for c in per_conv):
            print("Error: no question with resolvable evidence", file=sys.stderr)
            return 1
        per_store[store] = per_conv
        lines, out = store_report(store, per_conv, names, args.folds, ks, labels)
        if args.misses:
            more, out["misses"] = misses_report(per_conv, args.misses)
            forms, out["misses_by_form"] = misses_report(per_conv, args.misses, by="form")
            more += ["", *forms]
            lines += ["", *more]
        out.update(counts)
        out["recall_latency_ms_p50"] = round(1000 * float(np.median(latencies)), 2) if latencies else None
        report["stores"][store] = out
        text += lines + ["", f"{counts['memories']} memories; {counts['normalised_ids']} evidence ids normalised, "
                         f"{counts['skipped_ids']} skipped (no such turn), {counts['skipped_questions']} questions "
                         f"without evidence; mnemo recall p50 {out['recall_latency_ms_p50']} ms", ""]
    if args.folds == "loo" and len(stores) > 1:
        lines, report["one_setting"] = joint_report(per_store, names, f"recall@{max(ks)}", labels)
        text += lines
    if args.embed_cache:
        embedder.save(args.embed_cache)
    if args.dump is not None:
        args.dump.write_text("".join(json.dumps(r) + "\n" for r in dumps), encoding="utf-8")
        log(f"{len(dumps)} questions' lists written to {args.dump}")
    report["seconds"] = round(time.perf_counter() - t0, 1)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print("\n".join(text))
        print(f"{report['seconds']} s in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
