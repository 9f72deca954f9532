"""How scripts/eval_extract.py filters one ingest's memories for a setting: a near-duplicate counts
only when what it repeats falls below the filter (as the store would hold it then), a reaction
with an infinite penalty never counts, and the threshold sweep the folds choose with counts what
``measure`` counts at every threshold. Hand-made runs: behaviour of the measure, not quality."""

from __future__ import annotations

from typing import Any

from scripts.eval_extract import GRID, INF, _arrays, choose, measure, sweep


def _run(memories: list[dict[str, Any]], turns: int = 5, cited: tuple[int, ...] = (0, 1, 2)) -> dict[str, Any]:
    base = {"type": "fact", "evidence": 0, "self": 0, "novel": 0, "reacts": 0, "dup_of": -1, "vector": None}
    return {"id": "t", "dia": [f"D1:{i + 1}" for i in range(turns)], "cited": {f"D1:{i + 1}" for i in cited},
            "memories": [{**base, "content": f"Ana: memory {n}", **m} for n, m in enumerate(memories)],
            "names": ["Ana", "Ben"], "turns": [("Ana", "text")] * turns}


RUN = _run([
    {"turn": 0, "score": 0.10},
    {"turn": 1, "score": 0.05, "dup_of": 0},  # repeats memory 0
    {"turn": 2, "score": 0.02, "dup_of": 0},  # repeats it too
    {"turn": 3, "score": 0.20, "reacts": 1},
    {"turn": 4, "score": -0.10},
])


def _turns(row: dict[str, Any]) -> tuple[int, int]:
    kg, _, ku, _, _, _, _ = row["_counts"]
    return kg, ku


def test_a_duplicate_counts_only_when_what_it_repeats_is_filtered_out() -> None:
    assert _turns(measure(RUN, 0.0)) == (1, 0)  # memory 0 stored: its repeats are duplicates
    assert _turns(measure(RUN, 0.12)) == (0, 0)  # memory 0 filtered out, and its repeats with it
    # Memory 0 filtered out, both repeats passing: the first is stored in its place, the second
    # is a duplicate of it.
    run = _run([{"turn": 0, "score": -0.05}, {"turn": 1, "score": 0.05, "dup_of": 0}, {"turn": 2, "score": 0.06, "dup_of": 0}])
    assert _turns(measure(run, 0.0)) == (1, 0)
    assert measure(run, 0.0)["memories"] == 1
    assert _turns(measure(run, 0.055)) == (1, 0)  # only the second passes: it is stored


def test_an_infinite_penalty_drops_reactions_at_any_threshold() -> None:
    assert measure(RUN, -INF)["memories"] == 2  # memories 0 and 4: not the repeats, not the reaction
    assert measure(RUN, -INF, reaction_penalty=0.0)["memories"] == 3
    assert _turns(measure(RUN, 0.15, reaction_penalty=0.0)) == (0, 1)  # turn 3 is not cited
    assert _turns(measure(RUN, 0.15, reaction_penalty=0.1)) == (0, 0)


def test_the_sweep_counts_what_measure_counts_at_every_threshold() -> None:
    a = _arrays(RUN)
    for penalty in (INF, 0.1, 0.0):
        s = a["score"] - [penalty if r else 0.0 for r in a["reacts"]]
        kg, ku = sweep(a, s, GRID)
        for i, t in enumerate(GRID):
            assert (kg[i], ku[i]) == _turns(measure(RUN, t, reaction_penalty=penalty)), (t, penalty)


def test_the_folds_choose_the_least_shortfall_then_the_lowest_threshold_then_no_reactions() -> None:
    # One cited turn at most (the others repeat it); the reaction's turn and turn 4 are uncited:
    # keep memory 0 and nothing else, at the lowest threshold that drops memory 4.
    assert choose([RUN], novelty_weights=[0.0], reaction_penalties=[INF, 0.0]) == (-0.095, 0.0, 0.0, 0.0, INF)
