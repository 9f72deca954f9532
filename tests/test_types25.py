"""The twenty-fifth round's "events" block (``type_head.event_features``): what each column names,
and that heads fitted without it read their rows as before."""

from __future__ import annotations

import numpy as np

from mnemo.models import MemoryType
from mnemo.nlp import type_head
from mnemo.nlp.entities import nlp


def _spans(text: str) -> list:
    return [s for s in nlp()(text).sents if s.text.strip()]


# Written for this test (none from the labelled splits): each sentence and the columns it has.
EVENTS = [
    ("The swimming pool is closed until the end of March.", {"time_scope", "scoped_arrangement"}),
    ("From next week the book club meets in the back room.", {"time_scope"}),
    ("Everyone must bring their own helmet on Saturday.", {"directive"}),
    ("The greenhouse heater cut out overnight.", {"incident"}),
    ("The porch sensor never came on when we walked past.", {"expect_gap"}),
    ("My brother lives in Leeds.", set()),
    ("I cycled to work this morning.", set()),  # a person's doing, no thing's incident
    ("We painted the fence last summer.", set()),
    ("Should we bring snacks?", set()),  # asked, no rule laid on anyone
]


def test_event_features_say_what_they_name() -> None:
    for text, want in EVENTS:
        got = dict(zip(type_head.EVENT_NAMES, type_head.event_features(text, _spans(text)), strict=True))
        assert {n for n, v in got.items() if v} == want, text


def test_heads_without_the_events_block_read_rows_as_before() -> None:
    """Backward compatible: the events block is in a row only where a head's parts name it, after
    the stance block."""
    text = "The swimming pool is closed until the end of March."
    spans = _spans(text)
    vector = np.ones(4, np.float32)
    context = (np.zeros(2 * len(type_head.TYPES), np.float32), np.zeros(4, np.float32))
    faults = np.zeros(len(type_head.FAULT_NAMES), np.float32)
    before = "rules,parse,cues,agency,habit,stance,neighbours,faults,vector,thread"
    after = "rules,parse,cues,agency,habit,stance,events,neighbours,faults,vector,thread"
    old = type_head.features(MemoryType.FACT, text, spans, vector, before, context, faults)
    new = type_head.features(MemoryType.FACT, text, spans, vector, after, context, faults)
    n = (len(type_head.TYPES) + len(type_head.PARSE_NAMES) + len(type_head.CUE_NAMES) + len(type_head.AGENCY_NAMES)
         + len(type_head.HABIT_NAMES) + len(type_head.STANCE_NAMES))
    k = len(type_head.EVENT_NAMES)
    assert len(new) == len(old) + k
    assert np.array_equal(new[:n], old[:n]) and new[n:n + k].tolist() == [1.0, 1.0, 0.0, 0.0, 0.0]
    assert np.array_equal(new[n + k:], old[n:])
