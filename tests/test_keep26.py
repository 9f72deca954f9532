"""The turn's context as eval_extract.py measures it (``--signals``): what the turns after a turn
do with it, what it adds to the whole conversation, where it comes in its session, a turn's
memories combined as a noisy-or, and the folds that choose a signal's weight with the threshold.
Hand-written turns and hand-made runs (the real parser reads the turns): behaviour of the
measure, never quality."""

from __future__ import annotations

import math
from typing import Any

import pytest

from scripts.eval_extract import any_statement, context, heldout_added, heldout_turns


def _run(turns: list[tuple[str, str]], memories: list[dict[str, Any]], cited: set[int], dia: list[str] | None = None
         ) -> dict[str, Any]:
    base = {"type": "fact", "evidence": 0, "self": 0, "novel": 0, "reacts": 0, "dup_of": -1, "vector": None}
    dia = dia or [f"D1:{i + 1}" for i in range(len(turns))]
    return {"id": "t", "dia": dia, "cited": {dia[i] for i in cited},
            "memories": [{**base, "content": f"Ana: memory {n}", **m} for n, m in enumerate(memories)],
            "names": ["Ana", "Ben"], "turns": turns}


TALK = [
    ("Ana", "I adopted a kitten from the shelter in Leeds on Saturday."),
    ("Ben", "A kitten from the shelter! What breed is the kitten?"),
    ("Ana", "We called her Pickle, after the jar she hid behind."),
    ("Ana", "Anyway, how was the marathon?"),
    ("Ben", "The marathon went fine, my knee held up."),
]


def test_context_reads_what_the_next_turns_do_with_a_turn() -> None:
    # Two sessions: the first three turns, then two more.
    run = _run(TALK, [], set(), dia=["D1:1", "D1:2", "D1:3", "D2:1", "D2:2"])
    c = context(run)
    # Ben's reply says "kitten" and "shelter" again: the adoption is taken up, and asked on.
    assert c["taken up"][0] == pytest.approx(math.log1p(2))
    assert c["asked on"][0] == 1.0
    # Ana's next turn is her own: neither taken up nor asked on by the other speaker.
    assert c["taken up"][2] == 0.0 and c["asked on"][2] == 0.0
    # The marathon is asked about by Ana and taken up by Ben's answer in the next five turns.
    assert c["taken up later"][3] > 0.0
    assert c["taken up later"][4] == 0.0  # nothing after the last turn
    # The first turn's words are all new to the conversation; of Ben's reply only "breed" is (the
    # kitten and the shelter were said).
    assert c["new to all"][0] == pytest.approx(math.log1p(4))  # kitten, shelter, Leeds, Saturday
    assert c["new to all"][1] == pytest.approx(math.log1p(1))
    # How early each turn comes in its session: 1 for a session's first, 0 for its last.
    assert list(c["early in session"]) == pytest.approx([1.0, 0.5, 0.0, 1.0, 0.0])


def test_any_statement_combines_a_turns_memories_as_a_noisy_or() -> None:
    run = _run(TALK, [
        {"turn": 0, "score": 0.0},
        {"turn": 0, "score": 0.0},  # two even chances: at least one is a statement 3 times in 4
        {"turn": 2, "score": -1.0},  # one memory: its own log-odds
        {"turn": 4, "score": 2.0, "reacts": 1},  # a reaction, dropped as shipped
        {"turn": 4, "score": 3.0, "dup_of": 0},  # a near-duplicate counts as no memory
    ], {0})
    odds = any_statement(run)
    assert odds[0] == pytest.approx(math.log(3.0))
    assert odds[2] == pytest.approx(-1.0)
    assert odds[1] == odds[3] == odds[4] == -9.0  # turns without a memory lowest


def _separable(n: int) -> tuple[dict[str, Any], list[float]]:
    """Four turns, one memory each at the same score; the signal is 1 on the cited turns."""
    cited = {0, n % 4}
    run = _run(TALK[:4], [{"turn": i, "score": 0.0} for i in range(4)], cited)
    return run, [1.0 if i in cited else 0.0 for i in range(4)]


def test_the_folds_choose_a_signals_weight_with_the_threshold_and_report_the_one_left_out() -> None:
    runs, values = zip(*(_separable(n) for n in (1, 2, 3)), strict=True)
    held, chosen = heldout_added(list(runs), list(values), [-0.5, 0.0, 0.5])
    # Only a positive weight separates cited from uncited turns: every fold chooses it, and each
    # conversation left out keeps its cited turns and nothing else.
    assert [w for w, _ in chosen] == [0.5, 0.5, 0.5]
    assert all(0.0 < t <= 0.5 for _, t in chosen)
    assert (held["cited_kept"], held["uncited_kept"]) == (1.0, 0.0)
    # Without the signal the same scores cannot separate the turns: all or nothing is kept.
    held, _ = heldout_added(list(runs), list(values), [0.0])
    assert held["uncited_kept"] in (0.0, 1.0) and held["cited_kept"] in (0.0, 1.0)
    assert (held["cited_kept"], held["uncited_kept"]) != (1.0, 0.0)


def test_turn_scores_are_kept_from_the_threshold_the_other_folds_choose() -> None:
    runs, values = zip(*(_separable(n) for n in (1, 2, 3)), strict=True)
    held, thresholds = heldout_turns(list(runs), [[v - 0.5 for v in vs] for vs in values])
    assert all(-0.5 < t <= 0.5 for t in thresholds)
    assert (held["cited_kept"], held["uncited_kept"]) == (1.0, 0.0)
