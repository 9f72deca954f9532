"""The causal cues of mnemo.graph.rules on their own: which phrasing is read as a cue, where
the cue says the cause is, and the crude stems that let a reason name its cause in another
form of the same word. Pure functions, no model."""

from __future__ import annotations

from mnemo.graph import rules


def _rels(text: str, decision: bool = True) -> list[tuple[str, str, bool]]:
    return [(rel, span.strip(" ."), anaphoric) for rel, span, anaphoric, _ in rules.cue_spans(text, decision=decision)]


def test_with_opening_a_sentence_is_a_reason() -> None:
    assert ("because", "rates this high", False) in _rels("With rates this high, we decided to overpay the mortgage.")
    # "with" inside a sentence is no reason.
    assert not any(r == "because" for r, _, _ in _rels("We went to Paris with my sister."))


def test_a_pronoun_after_the_cue_points_back() -> None:
    assert ("because", "her gone", True) in _rels("With her gone, I asked to move to the platform team.")
    assert ("because", "then", True) in _rels("Since then we run the workers under systemd.")


def test_rolling_back_is_a_fix_of_what_it_undoes() -> None:
    assert _rels("We rolled back to the old certificate chain.")[0][0] == "resolves"


def test_a_so_clause_names_what_a_decision_answered_only_in_a_decision() -> None:
    text = "We pinned the consumer group to static membership, so the rebalances stopped."
    assert ("resolves", "the rebalances stopped", False) in _rels(text, decision=True)
    assert not _rels("My new job starts at 8, so I can't do the school run.", decision=False)


def test_stems_join_forms_of_one_word() -> None:
    assert rules.stems("the rejection") == rules.stems("was rejected")
    assert rules.stems("the flooding stopped") == rules.stems("floods stop")
    assert rules.stems("body logging") == rules.stems("logs the body")


def test_which_is_why_mid_sentence_points_back() -> None:
    assert ("because", "", True) in _rels("The engineer said no parts are made any more, which is why we ordered a heat pump.")
    assert ("because", "", True) in _rels("Mine too, that's the reason I left.")
    # "why" in a question or a relative clause is no cue.
    assert not _rels("Nobody knows why the lights went out.", decision=False)


def test_a_mishap_is_a_failure_a_loss_an_injury_or_a_price_that_rose() -> None:
    for text in ("Our neighbour's dog bit my daughter in the park.", "Someone stole my bike from outside the gym.",
                 "The venue raised its price by 30%.", "The insurer refused to pay.",
                 "Grandma fell on the stairs twice."):
        assert rules.mishap(text), text
    for text in ("The garden centre closes at six.", "My wife got a job offer in Edinburgh.", "I read best late at night.",
                 "We saw a band in Manchester last night.", "My cousin works as a mechanic at the harbour."):
        assert not rules.mishap(text), text


def test_since_before_a_present_perfect_is_a_time() -> None:
    # A past event, then "I've been ...": since when, not why.
    assert not _rels("Since we got back from Lisbon I've been dying for a proper holiday.", decision=False)
    assert not _rels("Since I moved, I have walked to work.", decision=False)
    # A reason in the present, or any other main clause, is a reason.
    assert ("because", "it depends on the wall clock", False) in _rels("Since it depends on the wall clock, I've frozen the time in the fixture.")
    assert ("because", "the price nearly doubled", False) in _rels("Since the price nearly doubled, I'm switching insurer.")


def test_instead_points_back_only_when_no_reason_is_named() -> None:
    assert ("because", "", True) in _rels("I'm going to study at the café on campus in the evenings instead.")
    named = _rels("Due to the strike, I've booked a hire car from Bologna instead.")
    assert ("because", "the strike", False) in named
    assert not any(back for _, _, back in named)


def test_the_time_reading_of_since_is_a_named_property_of_its_cue() -> None:
    # Which cue may open a time is said by the cue itself, not found by its pattern's text.
    assert [c.pattern.pattern for c in rules.CUES if c.may_be_time] == [r"(?:^|,\s*)since\b"]
    # Words ending in "ss" ("class", "across") are no verb of the present: still a time.
    assert not _rels("Since the class moved across town I've been cycling more.", decision=False)
    # A verb of the present in the clause makes it a reason.
    assert ("because", "the business depends on it", False) in _rels("Since the business depends on it, I've hired a second baker.")


def test_a_purpose_that_points_back_is_found_by_its_scope() -> None:
    assert rules._POINT_BACK_DECISION is next(c.pattern for c in rules.CUES if c.scope == "anaphor_decision")
    assert rules._POINT_BACK_DECISION.search("we've hired a plumber to sort it out")


def test_since_before_a_noun_phrase_and_a_subject_is_a_time() -> None:
    # "Since our last trip I only book ...": a point in time, whatever the main clause's tense.
    assert not _rels("Since our last trip I only book places with free cancellation.", decision=False)
    assert not _rels("Since March we cycle to work.", decision=True)
    # A clause after "since" is a reason, and "since then" points back.
    assert ("because", "the price doubled", False) in _rels("Since the price doubled, we switched to the other gym.")
    assert ("because", "then", True) in _rels("Since then we run the workers under systemd.")


def test_following_after_a_verb_is_the_verb() -> None:
    assert not _rels("I don't like following recipes.", decision=False)
    assert not _rels("We were following the map when the trail ended.", decision=False)
    assert ("because", "the budget review", False) in _rels("Following the budget review, we froze hiring.")
    assert ("because", "the outage", False) in _rels("We paused all deploys following the outage.")


def test_so_opening_a_statement_is_a_consequence_only_in_a_decision() -> None:
    assert ("because", "", True) in _rels("So we booked a hotel by the station instead.", decision=True)
    assert not _rels("So, the conference dinner is on the 15th.", decision=False)
    assert not _rels("so does her sister, they share a car", decision=False)
    # "So" + auxiliary + subject is "too", even in a statement typed as a decision.
    assert not _rels("so does her sister, they share a car", decision=True)
    assert not _rels("So do I, every Sunday.", decision=True)


def test_as_a_result_before_an_aside_points_back() -> None:
    assert ("because", "", True) in _rels("We've ordered a new line with another provider as a result, two weeks' wait.")


def test_stems_keep_a_possessive_word() -> None:
    # "the school's portal" names the school as much as "the school office" does.
    assert "school" in rules.stems("The school's parent portal logs me out.")
    assert "school" in rules.stems("The school’s parent portal logs me out.")
