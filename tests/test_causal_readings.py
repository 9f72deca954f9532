"""Causal links through the real ingest (MiniLM and spaCy) on hand-written conversations, one
per kind of wrong link found on test9 after the ninth round (see the labelled README): a
statement that only carries the talk on ("So, ..."), a work-in-progress note said just before
a consequence, "since" opening a time, "following" as a verb, "as a result" before an aside, a
fix said after a finding on the failure it answers, and an option taken "instead" of the one that
failed. Each fails on the ninth round's rules."""

from __future__ import annotations

import pytest

from .labelled_set import turn_links

pytestmark = pytest.mark.slow




def test_so_opening_a_statement_that_is_no_decision_carries_the_talk_on(real_engine) -> None:
    types, pairs = turn_links(real_engine, [
        ("Ines", "Reverted the cache config, the hit rate is back to 95%."),
        ("Omar", "So, the quarterly review is on Thursday."),
    ], "so-filler")
    assert types[1] == "fact"
    assert pairs == set()


def test_a_work_in_progress_note_is_no_cause(real_engine) -> None:
    types, pairs = turn_links(real_engine, [
        ("Ines", "The invoice export timed out at midnight."),
        ("Omar", "That's exactly when the new batch size went out."),
        ("Ines", "Reverted the batch size, the export runs in ten minutes again."),
        ("Omar", "So, I'm still on the warehouse migration plan, will share it by Friday."),
        ("Ines", "From now on batch settings ship behind a flag, since that one bit us."),
    ], "wip-note")
    assert types[3] == "session_note"
    assert not any(3 in pair for pair in pairs), pairs


def test_since_before_a_noun_phrase_is_a_time_in_any_tense(real_engine) -> None:
    _, pairs = turn_links(real_engine, [
        ("Kofi", "The holiday cottage owner cancelled on us a week before we left."),
        ("Ama", "Since our last holiday I only book rooms with free cancellation."),
    ], "since-time")
    assert pairs == set()


def test_following_as_a_verb_is_no_cue(real_engine) -> None:
    _, pairs = turn_links(real_engine, [
        ("Rosa", "I switched to the meal kit subscription, the boxes come on Mondays."),
        ("Tim", "I don't like following meal kit instructions, I improvise."),
    ], "following-verb")
    assert pairs == set()


def test_as_a_result_before_an_aside_points_back_to_the_finding(real_engine) -> None:
    types, pairs = turn_links(real_engine, [
        ("Jas", "The router in the new flat has shown a \"no sync\" error since we moved in."),
        ("Kim", "The old tenant's line is still registered to their provider, the helpline told me."),
        ("Jas", "We've ordered a new phone line from another company as a result, ten days' wait."),
    ], "as-a-result")
    assert types[2] == "decision"
    assert pairs == {(1, 2)}


def test_a_fix_answers_the_finding_said_after_the_failure(real_engine) -> None:
    types, pairs = turn_links(real_engine, [
        ("Mara", "The club's booking site shows a blank page on Android phones since Monday."),
        ("Nico", "Their calendar plugin is blocked by the new Chrome cookie rules."),
        ("Mara", "I replaced the plugin with a plain list of the sessions."),
    ], "finding")
    # The finding (turn 1) is a debug log by the labelling's definition (a finding about a
    # software failure's cause): the type head refitted with test9 says so, the ninth round's
    # said fact; the link is the same either way.
    assert types[0] == "debug_log" and types[1] in ("fact", "debug_log") and types[2] == "decision"
    assert pairs == {(1, 2)}


def test_an_option_taken_instead_replaces_the_one_that_failed(real_engine) -> None:
    # "instead" points back past the other speaker's word on why the booking page fails to the
    # failure itself, named again ("booking" / "booked").
    types, pairs = turn_links(real_engine, [
        ("Dana", "The pool's booking page keeps saying every lane is full, even at 6am."),
        ("Eli", "Their website still shows last month's timetable, the manager told me."),
        ("Dana", "I booked by phone instead."),
    ], "instead")
    assert types[2] == "decision"
    assert pairs == {(0, 2)}

