"""Where each missed gold causal link of a spent split is lost (#16, eighteenth round).

    .venv/bin/python scripts/diagnose_misses.py test17,test18 [--show] [--json]

``diagnose_targets`` explains the links ``ingest`` makes wrongly; this explains the gold links it
does not make, so recall work starts from the stage that loses most. Each missed gold link
(cause unit -> decision unit) is put in the first class that holds:

- ``not-stored/cause``, ``not-stored/effect``, ``not-stored/both``: no stored memory maps to the
  unit (``labelled_set.unit_of``): extraction dropped it or merged it into a neighbour. The
  detail says which (``fate``): merged when a memory of the unit's turn holds most of its words.
- ``effect-not-decision``: the effect is stored but typed something else (the causal rules link
  into decisions and fixes), with the type it got.
- ``head-dropped``: a rule proposed exactly this pair and the learned filter (``link_head``)
  dropped it, with the filter's score.
- ``other-gold-cause``: the effect is linked to another of its gold causes (the rules give a
  decision one cause; the writer gave it several).
- ``other-cause``: a rule proposed a cause for the effect, none of its gold ones.
- ``nothing-proposed``: both ends stored, the effect typed a decision, and no rule proposed a
  cause for it.

It also prints how many gold links a one-cause-per-decision reading could reach at best. Only the
spent splits may be read (the list ``diagnose_targets.SPENT``): it refuses the fresh ones.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scripts.diagnose_targets import ingest_each, spent_args  # noqa: E402


def classify(conv, mems: list[dict], links: list[tuple[str, str, str]],
             proposed: dict[tuple[str, str], float | None]) -> list[dict]:
    """The missed gold links of one conversation, each with its class. ``links``: (src, dst,
    rel) made; ``proposed``: every (cause id, effect id) a rule proposed, with the filter's score."""
    from tests.labelled_set import CAUSAL_RELS, unit_of

    ids_of: dict[int, list[str]] = {}
    type_of: dict[str, str] = {}
    for m in mems:
        u = unit_of(conv, m["turn"], m["content"])
        if u is not None:
            ids_of.setdefault(id(u), []).append(m["id"])
            type_of[m["id"]] = m["type"]
    made = {(s, d) for s, d, rel in links if rel in CAUSAL_RELS}
    causes_of: dict[int, list] = {}
    for a, b in conv.links():
        causes_of.setdefault(id(b), []).append(a)

    def joined(xs: list[str], ys: list[str], pairs) -> list[tuple[str, str]]:
        return [p for x in xs for y in ys for p in ((x, y), (y, x)) if p in pairs]

    out: list[dict] = []
    for a, b in conv.links():
        ca, eb = ids_of.get(id(a), []), ids_of.get(id(b), [])
        if joined(ca, eb, made):
            continue
        row = {"conversation": conv.cid, "cause": a.text, "effect": b.text, "detail": ""}
        if not ca or not eb:
            row["class"] = "not-stored/" + ("both" if not ca and not eb else "cause" if not ca else "effect")
            row["detail"] = " + ".join(fate(u, mems) for u, ids in ((a, ca), (b, eb)) if not ids)
        elif type_of[eb[0]] != "decision":
            row["class"], row["detail"] = "effect-not-decision", type_of[eb[0]]
        elif hit := joined(ca, eb, proposed):
            row["class"], row["detail"] = "head-dropped", f"{max((proposed[p] or 0.0) for p in hit):.2f}"
        else:
            others = [ids_of.get(id(c), []) for c in causes_of[id(b)] if c is not a]
            into = {s for s, d in proposed if d in eb} | {s for s, d in made if d in eb}
            if any(joined(o, eb, made) for o in others):
                row["class"] = "other-gold-cause"
            elif into:
                row["class"] = "other-cause"
            else:
                row["class"] = "nothing-proposed"
        out.append(row)
    return out


# The share of a unit's words a memory of its turn must hold for the unit to count as merged into
# it rather than dropped: most of them. Not tuned (it sorts the diagnosis, it scores nothing).
MERGED_SHARE = 0.6


def fate(unit, mems: list[dict]) -> str:
    """Whether a unit no memory maps to was merged into a memory of its turn or dropped."""
    from tests.labelled_set import _tokens

    words = _tokens(unit.text)
    best = max((len(words & _tokens(m["content"])) / max(1, len(words)) for m in mems if m["turn"] == unit.turn),
               default=0.0)
    return "merged" if best >= MERGED_SHARE else "dropped"


def one_cause_ceiling(conv) -> int:
    """Gold links a reading that gives each decision one cause can reach: one per effect."""
    return len({id(b) for _, b in conv.links()})


def main(argv: list[str] | None = None) -> int:
    args = spent_args("diagnose_misses", argv, "missed link", __doc__)
    from mnemo.graph import link_head

    rows: list[dict] = []
    gold = found = ceiling = 0
    for conv, total, stored, record in ingest_each(args.split, link_head, "RECORD"):
        proposed = {(c, e): p for c, e, _path, _x, p in record}
        gold += total.gold_links
        found += total.links_found
        ceiling += one_cause_ceiling(conv)
        rows += classify(conv, stored["memories"], stored["links"], proposed)
    classes = Counter(r["class"] for r in rows)
    if args.json:
        print(json.dumps({"gold_links": gold, "found": found, "one_cause_ceiling": ceiling, "missed": len(rows),
                          "classes": dict(classes)}))
        return 0
    print(f"{args.split}: {gold} gold causal links, {found} found, {len(rows)} missed; "
          f"one cause per decision reaches at most {ceiling} ({ceiling / max(1, gold):.3f})")
    for cls, n in classes.most_common():
        details = Counter(r["detail"] for r in rows if r["class"] == cls and r["detail"])
        shown = cls == "effect-not-decision" or cls.startswith("not-stored/")
        extra = f"   ({', '.join(f'{d} {k}' for d, k in details.most_common(6))})" if shown else ""
        print(f"  {cls:22} {n:4}{extra}")
    if args.show:
        for cls, _ in classes.most_common():
            print(f"\n== {cls}")
            for r in rows:
                if r["class"] == cls:
                    print(f"  {r['conversation']}: {r['cause']}  ->  {r['effect']}" + (f"  [{r['detail']}]" if r["detail"] else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
