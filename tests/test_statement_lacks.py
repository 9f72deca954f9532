"""A finding about the addressee's thing is a statement, not praise (issue #16): "Your domain
has no SPF or DKIM records." names what the listener's thing lacks, and the fix said next
answers it. The parse read every "your X ..." sentence without a name as a reaction and dropped
it; a negated one ("not", or "no" before its object) now goes to the margin like any other. The
real spaCy parse and the real ingest (MiniLM); each test fails on the eleventh round's filter."""

from __future__ import annotations

import pytest

from mnemo.nlp.entities import nlp
from mnemo.nlp.statement import reaction

from .labelled_set import turn_links


def _reaction(text: str) -> bool:
    return reaction(next(iter(nlp()(text).sents)))


def test_what_the_addressees_thing_lacks_is_no_reaction() -> None:
    assert not _reaction("Your mail server has no reverse DNS entry.")
    assert not _reaction("Your printer isn't connected to the office wifi.")
    # Praise stays a reaction, "never" included.
    assert _reaction("Your garden looks great")
    assert _reaction("Your determination never ceases to amaze me.")


@pytest.mark.slow
def test_a_fix_answers_the_finding_on_the_addressees_thing(real_engine) -> None:
    types, pairs = turn_links(real_engine, [
        ("Ollie", "My emails to customers keep going to their junk folders."),
        ("Pam", "Your domain has no sender records at all."),
        ("Ollie", "Added the sender records at the registrar this morning."),
    ], "lacks")
    assert 1 in types, types
    assert pairs == {(1, 2)}, pairs
