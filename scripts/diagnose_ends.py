"""Why a gold causal link's end is not stored as a memory of its own (issue #16).

For each labelled unit that is the cause or effect of a gold link, on the given (spent) splits:
is it (a) dropped, and at which stage, or (b) merged into a candidate memory that holds another
unit, and by which join? The candidates and the statement filter's choice are recorded while the
real ingest runs (``evaluate``), so the stages are the pipeline's own.

    .venv/bin/python scripts/diagnose_ends.py --split test15,test14 [--show]

Classes: dropped: chatter-turn (the whole turn is an acknowledgement), sentence-rule
(keep_sentence: question, chatter/boilerplate/request/suggestion/speculation regex, < 3 words),
reaction (statement.reaction), not-in-candidate (none of the above: e.g. a cut, a continuation
joined into a dropped candidate), head (the statement head's threshold, ``judge``), stored-not
(kept by the judge but not created: ``substantive`` or a duplicate); merged: one-sentence (both
units inside one spaCy sentence, no cut), continuation (CONTINUATION joined it), join (a further
sentence of the turn that ``_starts_apart`` did not set apart); with the other unit's label
(chatter or statement) and whether the memory maps to this unit (``unit_of``) or the other.

Counts are per unit that ends a gold link (a unit in two links counts once), so they are not the
per-link counts of eval_labelled's missed links. Sixteenth round, on the fifteenth round's code
(cd02c48 / 63663ff), spent splits:

- test15, 489 ends: 366 stored alone; merged 95 (join 67, 7 of them behind a chatter opening;
  one spaCy sentence holding two units 25; continuation 3); dropped 28 (reaction 13, not created
  by ``substantive`` or as a duplicate 8, sentence rule 6, statement head 1).
- test14, 520 ends: 414 stored alone; merged 74 (one sentence 53, join 13, continuation 8);
  dropped 31 (reaction 13, not in a candidate 6, not created 5, head 3, sentence rule 3,
  chatter turn 1); 1 mapped to another unit.

Merged ends are the biggest class on both, but by different joins: test15's are mostly two full
sentences of one turn that ``_starts_apart`` leaves together (the speaker's own story, "I ... I
...", by design; two clauses about things where one of them reports nothing), test14's mostly two
statements the parser left in one unpunctuated sentence. After the heading rule (extract
``_heading``): test15 371 stored alone (the chatter-opening joins 7 -> 4), test14 415.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.labelled_set import _tokens  # noqa: E402  (the words unit_of compares)


def covers(text: str, unit_text: str, share: float = 0.6) -> bool:
    want = _tokens(unit_text)
    return bool(want) and len(want & _tokens(text)) / len(want) >= share


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", default="test15,test14")
    ap.add_argument("--show", action="store_true")
    args = ap.parse_args(argv)

    from unittest import mock

    from mnemo import judge_extract
    from mnemo.clock import Clock
    from mnemo.config import load_settings
    from mnemo.engine import Mnemo
    from mnemo.nlp import extract
    from mnemo.nlp.entities import nlp
    from mnemo.nlp.statement import reaction
    from tests.labelled_set import evaluate, load, unit_of

    record: list[dict] = []
    real_cands, real_judge = judge_extract.candidates, judge_extract.judge

    def cands_spy(core, turns, progress=None):  # type: ignore[no-untyped-def]
        out, stats = real_cands(core, turns, progress)
        record.append({"cands": out, "kept": None, "turns": turns})
        return out, stats

    def judge_spy(cands, vectors, named, embedder, stats=None):  # type: ignore[no-untyped-def]
        kept = real_judge(cands, vectors, named, embedder, stats)
        record[-1]["kept"] = set(kept)
        return kept

    totals: Counter[str] = Counter()
    for split in args.split.split(","):
        convs = load(split)
        record.clear()
        with tempfile.TemporaryDirectory(prefix="mnemo-diag-") as home, \
                mock.patch.object(judge_extract, "candidates", cands_spy), mock.patch.object(judge_extract, "judge", judge_spy):
            settings = load_settings(home=home, overrides={"embedding.model": "all-MiniLM-L6-v2"})
            with Mnemo(settings, clock=Clock(1_800_000_000.0)) as m:
                _, stored = evaluate(m, convs)
        counts: Counter[str] = Counter()
        gold_ends = 0
        for conv, rec, row in zip(convs, record, stored, strict=True):
            ends = list({id(u): u for pair in conv.links() for u in pair}.values())
            mems = row["memories"]
            for u in ends:
                gold_ends += 1
                turn_units = [v for v in conv.units if v.turn == u.turn]
                mine = [mm for mm in mems if mm["turn"] == u.turn and unit_of(conv, mm["turn"], mm["content"]) is u]
                alone = [mm for mm in mine if not any(v is not u and covers(mm["content"], v.text) for v in turn_units)]
                if alone:
                    counts["ok: stored alone"] += 1
                    continue
                cands = [c for c in rec["cands"] if c.turn.index == u.turn]
                holding = [(i, c) for i, c in enumerate(rec["cands"]) if c.turn.index == u.turn and covers(c.text, u.text)]
                others = []
                if holding:
                    i, c = holding[0]
                    others = [v for v in turn_units if v is not u and covers(c.text, v.text)]
                if holding and others:
                    # merged: which join
                    pos = next((k for k, s in enumerate(c.sentences) if covers(s, u.text, 0.5)), None)
                    oth = others[0]
                    opos = next((k for k, s in enumerate(c.sentences) if covers(s, oth.text, 0.5)), None)
                    if pos is None or opos is None or pos == opos:
                        how = "one-sentence"
                    else:
                        later = c.sentences[max(pos, opos)]
                        how = "continuation" if extract.CONTINUATION.match(later) else "join"
                    label = "chatter" if oth.type == "chatter" else "statement"
                    maps = "maps-here" if mine else "maps-other"
                    state = "kept" if (rec["kept"] is not None and i in rec["kept"]) else "dropped-by-head"
                    order = "other-first" if (opos is not None and pos is not None and opos < pos) else "other-after"
                    key = f"merged: {how}, other {label}, {order}, {maps}, {state}"
                    counts[key] += 1
                    if args.show:
                        print(f"[{split}] {key}\n   unit: {u.text}\n   cand: {c.text}")
                    continue
                if holding:
                    i, c = holding[0]
                    if rec["kept"] is not None and i not in rec["kept"]:
                        key = "dropped: head"
                    else:
                        key = "dropped: stored-not (substantive/duplicate)" if not mine else "mapped-elsewhere"
                else:
                    spk, text = conv.turns[u.turn]
                    t = extract.trim(u.text)
                    if extract.CHATTER.match(text.strip()):
                        key = "dropped: chatter-turn"
                    elif not extract.keep_sentence(t):
                        key = "dropped: sentence-rule"
                    else:
                        doc = nlp()(t)
                        sent = next(iter(doc.sents))
                        key = "dropped: reaction" if reaction(sent) else "dropped: not-in-candidate"
                counts[key] += 1
                if args.show:
                    print(f"[{split}] {key}\n   unit: {u.text}\n   turn cands: {[c.text for c in cands]}")
        print(f"== {split}: {gold_ends} gold link ends")
        for k, v in sorted(counts.items(), key=lambda kv: -kv[1]):
            print(f"  {v:4}  {k}")
        totals.update(counts)
    if "," in args.split:
        print("== pooled")
        for k, v in sorted(totals.items(), key=lambda kv: -kv[1]):
            print(f"  {v:4}  {k}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
