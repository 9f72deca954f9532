"""The labelled set's scorer: what counts as a memory naming its speaker."""

from __future__ import annotations

from .labelled_set import parse, score

CONV = """=== handles ops
@sana: checkout 502s across eu-west since 14:02 [debug_log]
Chair (Rosa): The meeting moves to Thursday. [decision]
"""


def test_a_speaker_label_with_non_word_edges_counts_as_named() -> None:
    conv = parse(CONV)[0]
    memories = [
        {"id": "a", "turn": 0, "content": "@sana: checkout 502s across eu-west since 14:02", "type": "debug_log"},
        {"id": "b", "turn": 1, "content": "Chair (Rosa): The meeting moves to Thursday.", "type": "decision"},
    ]
    s = score(conv, memories, [])
    assert (s.memories, s.named) == (2, 2)


def test_a_label_inside_another_word_is_not_a_name() -> None:
    conv = parse("=== inside chat\nAl: The tank leaks. [debug_log]\n")[0]
    s = score(conv, [{"id": "a", "turn": 0, "content": "Always: the tank leaks.", "type": "debug_log"}], [])
    assert (s.memories, s.named) == (1, 0)
