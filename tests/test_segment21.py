"""A second decision in the same turn is a memory of its own (#16, twentieth round: of the ends of
missed gold links on test15..test17 not stored as their own memory, most were merged into a
memory of another unit of their turn, often a decision after a decision), through the real
ingest (MiniLM and spaCy) on hand-written conversations. Each case of
``test_a_second_decision_is_its_own_memory`` fails on the nineteenth round's code (main at
f59c3af), where the second act joined the first and only one of the two could be linked;
``test_a_reason_after_a_decision_stays_with_it`` is a guard that holds on both."""

from __future__ import annotations

import pytest

from .labelled_set import content_links

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("turns, first, second", [
    ([("Tom", "The gym put the monthly fee up to 60 pounds and the pool is shut for a refit until summer."),
      ("Tom", "I've cancelled the gym membership. I'm running in the park before work instead.")],
     "cancelled the gym membership", "running in the park before work"),
    ([("Priya", "The vet says Biscuit has early kidney disease, her bloods came back high on creatinine."),
      ("Priya", "So I've switched her to the renal diet from today. I'm also booking a repeat blood test "
                "for March to see if it helps.")],
     "switched her to the renal diet", "booking a repeat blood test"),
])
def test_a_second_decision_is_its_own_memory(real_engine, turns, first: str, second: str) -> None:
    kept, _ = content_links(real_engine, turns, "second-decision")
    holding_first = [m["content"] for m in kept if first in m["content"]]
    holding_second = [m["content"] for m in kept if second in m["content"]]
    assert holding_first and holding_second, [m["content"] for m in kept]
    assert not any(second in c for c in holding_first), holding_first


def test_a_reason_after_a_decision_stays_with_it(real_engine) -> None:
    """The reason said after a decision still joins it ("Because ..."): only a second act stands apart."""
    turns = [("Ana", "The office printer jams on every duplex job since the firmware update last week."),
             ("Ben", "I'm rolling the printer firmware back tonight. Because the vendor has no fix yet.")]
    kept, _ = content_links(real_engine, turns, "reason-stays")
    assert any("rolling the printer firmware back" in m["content"] and "vendor has no fix" in m["content"] for m in kept), \
        [m["content"] for m in kept]
