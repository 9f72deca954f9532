"""scripts/agreement.py scores a second reading against a first exactly as `ingest` is scored."""

from __future__ import annotations

import json

import pytest

from scripts import agreement

FIRST = """\
=== c1 ops
Ana: The backup failed because the disk was full. [debug_log] #a
Ben: Ugh. [chatter]
Ana: We added disk alerts. [decision] #b <a
Ben: I always check the graphs on Monday. [preference]

=== c2 travel
Kim: The flight was cancelled. [fact] #a
Lou: So we took the train. [decision] #b <a
+ The train was late too. [fact] !b
"""

# The same text read by someone else: one chatter kept, one type changed, one link moved onto
# the near-miss and one link the same.
SECOND = """\
=== c1 ops
Ana: The backup failed because the disk was full. [debug_log] #a
Ben: Ugh. [fact]
Ana: We added disk alerts. [decision] #b <a
Ben: I always check the graphs on Monday. [fact]

=== c2 travel
Kim: The flight was cancelled. [fact]
Lou: So we took the train. [decision] #b
+ The train was late too. [fact] <b
"""


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_second_reading_is_scored_like_ingest(tmp_path, capsys):
    first, second = _write(tmp_path, "first.txt", FIRST), _write(tmp_path, "second.txt", SECOND)
    assert agreement.main([str(first), str(second), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["second_against_first"]
    assert out["conversations"] == 2 and out["units"] == 7
    assert out["statements_kept"] == 1.0 and out["chatter_kept"] == 1.0
    assert out["type_accuracy"] == 0.833  # 5 of 6 statements: the preference read as a fact
    assert out["type_confusions"] == {"preference -> fact": 1}
    assert out["links_made"] == 2 and out["gold_links"] == 2
    assert out["link_precision"] == 0.5 and out["link_recall"] == 0.5
    assert out["near_misses_linked"] == 1.0
    back = json.loads(json.dumps(agreement.report([(b, a) for a, b in agreement.aligned(
        agreement.parse(FIRST), agreement.parse(SECOND))])))
    # The other way round the chatter the second reader kept is a statement the first dropped.
    assert back["statements_kept"] == pytest.approx(6 / 7, abs=0.001) and back["chatter_kept"] == 0.0


def test_readings_of_different_text_are_refused(tmp_path, capsys):
    first = _write(tmp_path, "first.txt", FIRST)
    second = _write(tmp_path, "second.txt", SECOND.replace("We added disk alerts.", "We added alerts."))
    assert agreement.main([str(first), str(second)]) == 2
    assert "c1: the readings differ at unit 3" in capsys.readouterr().err


def test_no_shared_conversation_is_an_error(tmp_path, capsys):
    first = _write(tmp_path, "first.txt", FIRST)
    second = _write(tmp_path, "second.txt", SECOND.replace("=== c1", "=== x1").replace("=== c2", "=== x2"))
    assert agreement.main([str(first), str(second)]) == 2
    assert "share no conversation" in capsys.readouterr().err


def test_decision_effects_keeps_only_links_into_decisions(tmp_path, capsys):
    # The second reader's link into "The train was late too." (a fact) is outside the splits'
    # convention (every effect a decision or fix); with the flag it is not counted as made.
    first, second = _write(tmp_path, "first.txt", FIRST), _write(tmp_path, "second.txt", SECOND)
    assert agreement.main([str(first), str(second), "--json", "--decision-effects"]) == 0
    out = json.loads(capsys.readouterr().out)["second_against_first"]
    assert out["links_made"] == 1 and out["gold_links"] == 2
    assert out["link_precision"] == 1.0 and out["link_recall"] == 0.5
    assert out["near_misses_linked"] == 0.0


def test_ingest_is_scored_on_the_same_conversations_as_eval_labelled_scores_it(tmp_path, capsys):
    # --ingest runs this checkout's `ingest` on the conversations the readings share and scores
    # it against the first reading with the arithmetic scripts/eval_labelled.py uses.
    from mnemo.clock import Clock
    from mnemo.config import load_settings
    from mnemo.engine import Mnemo
    from tests.labelled_set import evaluate

    first, second = _write(tmp_path, "first.txt", FIRST), _write(tmp_path, "second.txt", SECOND)
    assert agreement.main([str(first), str(second), "--json", "--ingest"]) == 0
    got = json.loads(capsys.readouterr().out)["ingest_against_first"]
    settings = load_settings(home=tmp_path / "home", overrides={"embedding.model": "all-MiniLM-L6-v2"})
    with Mnemo(settings, clock=Clock(1_800_000_000.0)) as m:
        total, _ = evaluate(m, agreement.parse(FIRST))
    want = total.summary()
    assert got["conversations"] == 2 and got["units"] == 7 and got["gold_links"] == 2
    for key in agreement.KEYS:
        assert got[key] == want[key], key
