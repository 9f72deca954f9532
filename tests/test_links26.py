"""Twenty-sixth round: causal-link precision (#16). Real spaCy parse, real MiniLM model, real
store; the conversations are written for these tests, none is taken from the labelled splits."""

from __future__ import annotations

from mnemo.graph import rules

from .labelled_set import content_links, linked


def test_a_why_question_names_what_it_asks_about() -> None:
    assert rules._asked_about("why did it retry?") == {"retry"}
    assert rules._asked_about("Why do we even park on the seafront?") == {"park", "seafront"}
    # A bare question, or one naming nothing, asks about the statement before it.
    assert rules._asked_about("Why?") == set()
    assert rules._asked_about("how come?") == set()
    assert rules._asked_about("Why? Because of the rain?") == set()


def test_the_answer_to_a_why_question_about_something_else_explains_nothing_said_before(real_engine) -> None:
    turns = [("Nina", "I've moved the team lunch to Friday this week."),
             ("Omar", "Why do we always order from the Thai place though?"),
             ("Nina", "Their delivery van is the only one that reaches the business park.")]
    kept, pairs = content_links(real_engine, turns, "why-else")
    assert any("team lunch" in m["content"] for m in kept) and any("delivery van" in m["content"] for m in kept)
    assert not linked(pairs, "delivery van", "team lunch"), pairs


def test_the_answer_to_a_why_question_about_the_statement_before_is_its_cause(real_engine) -> None:
    turns = [("Nina", "I've moved the team lunch to Friday this week."),
             ("Omar", "Why Friday?"),
             ("Nina", "The Thai place is closed on Thursdays for a private booking.")]
    _, pairs = content_links(real_engine, turns, "why-same")
    assert linked(pairs, "Thai place", "team lunch"), pairs


def test_a_report_after_a_step_that_answers_an_earlier_problem_is_no_second_reason(real_engine) -> None:
    # The fault told after the step is the earlier problem's own cause, not why the step was taken.
    turns = [("Ravi", "The nightly invoice export failed at 2am with a timeout."),
             ("Mo", "Oh no, not again."),
             ("Ravi", "I've rerun the invoice export by hand this morning. "
                      "The connection pool was exhausted by the backup job, it threw PoolTimeoutError.")]
    kept, pairs = content_links(real_engine, turns, "explained-after-problem")
    assert any("connection pool" in m["content"] for m in kept) and any("rerun the invoice export" in m["content"] for m in kept)
    assert linked(pairs, "export failed", "rerun the invoice export"), pairs
    assert not linked(pairs, "connection pool", "rerun the invoice export"), pairs


def test_a_report_after_a_step_with_no_problem_before_it_is_still_its_cause(real_engine) -> None:
    turns = [("Tess", "Morning all."),
             ("Tess", "I have pinned the image builder to Node 18. The Node 20 build was crashing with a segmentation fault in node-gyp.")]
    _, pairs = content_links(real_engine, turns, "explained-alone")
    assert linked(pairs, "segmentation fault", "pinned the image builder"), pairs


def test_a_why_question_names_a_verb_the_statement_inflects() -> None:
    # The crude stem keeps "retry" and "retried" apart; the base form reads them as one word.
    assert rules._names_any({"retry"}, "The nightly export retried three times.")
    assert rules._names_any({"move"}, "We moved the stand-up to ten.")
    assert not rules._names_any({"park", "seafront"}, "I'm not running the freezer off the generator anymore.")
