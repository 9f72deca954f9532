"""Which earlier memory a causal rule of mnemo.graph.rules links a new one to, on short
conversations fingerprinted with the real spaCy model: the statement a consequence points
back to, not another speaker's remark on it; "therefore" inside a sentence; the situation a
speaker sets out just before their own decision. Hand-written cases: they prove behaviour,
the labelled splits (tests/test_extract_quality.py) measure quality."""

from __future__ import annotations

from mnemo.graph import rules
from mnemo.models import Memory, MemoryType
from mnemo.nlp.fingerprint import fingerprint_texts

T0 = 1_770_000_000.0


def _conversation(rows: list[tuple[str, int, str, MemoryType]]) -> list[Memory]:
    """Memories as ingest stores them: "Speaker: text", the speaker and turn in ``meta``, one
    session, a minute per turn."""
    contents = [f"{speaker}: {text}" for speaker, _, text, _ in rows]
    fps = fingerprint_texts(contents, [kind for *_, kind in rows])
    return [
        Memory(id=f"m{i:02d}-0000-0000", content=content, type=kind, fingerprint=fp, session_id="s", wing="s",
               created_at=T0 + 60 * turn + i, meta={"speaker": speaker, "turn": turn, "part": i})
        for i, ((speaker, turn, _, kind), content, fp) in enumerate(zip(rows, contents, fps, strict=True))
    ]


def _causes(rows: list[tuple[str, int, str, MemoryType]]) -> list[str]:
    """The texts linked as causes of the last row."""
    mems = _conversation(rows)
    new, earlier = mems[-1], mems[:-1]
    by_id = {m.id: m for m in earlier}
    out = []
    for ln in rules.propose(new, earlier, T0 + 3600):
        if ln.rel in rules.CAUSAL_RELS and ln.dst == new.id and ln.src in by_id:
            out.append(rules.said(by_id[ln.src]))
    return out


FACT, DECISION = MemoryType.FACT, MemoryType.DECISION


def test_a_consequence_points_past_the_other_speakers_remark() -> None:
    rows = [
        ("Amara", 0, "The vet says our cat is two kilos overweight.", FACT),
        ("Lukas", 1, "He's a big lad.", FACT),
        ("Amara", 2, "So, no more free-feeding: he gets weighed portions twice a day now.", DECISION),
    ]
    assert _causes(rows) == ["The vet says our cat is two kilos overweight."]
    # A longer statement that opens with a pronoun tells something of its own: it is what the
    # consequence points back to.
    rows[1] = ("Lukas", 1, "It's under the big oak all day, and grass won't grow in that much shade.", FACT)
    rows[2] = ("Amara", 2, "So I'm digging the lawn up and planting ferns.", DECISION)
    assert _causes(rows) == ["It's under the big oak all day, and grass won't grow in that much shade."]


def test_therefore_inside_a_sentence_points_back() -> None:
    assert ("because", "", True) in [(r, s, b) for r, s, b, _ in rules.cue_spans("We have therefore appealed to the tribunal.")]
    rows = [
        ("Bea", 0, "The landlord has served notice of a rent increase from March.", FACT),
        ("Chidi", 1, "The proposed 18% is far above the market rate for similar flats.", FACT),
        ("Bea", 2, "We have therefore appealed to the tribunal to have it reviewed.", DECISION),
    ]
    # The statement just before, not the older rise in price a decision with no cue would answer.
    assert _causes(rows) == ["The proposed 18% is far above the market rate for similar flats."]


def test_a_later_sentence_that_points_back_points_inside_its_own_memory() -> None:
    text = "I checked the buses and they are hopeless outside the city. Which is why I've reserved a small car."
    assert not any(back for _, _, back, _ in rules.cue_spans(text))
    # The first sentence of a memory still points back to what was said before it.
    assert any(back for _, _, back, _ in rules.cue_spans("Which is why I've reserved a small car. It was cheap."))


def test_a_decision_answers_the_situation_its_speaker_set_out_just_before() -> None:
    rows = [
        ("Sakura", 0, "The mobile team reports that the orders endpoint times out for big customers.", MemoryType.DEBUG_LOG),
        ("Bruno", 2, "I suspected as much: the endpoint returns the whole history in a single response.", FACT),
        ("Bruno", 2, "I've added cursor pagination with a hundred rows per page.", DECISION),
    ]
    assert _causes(rows) == ["I suspected as much: the endpoint returns the whole history in a single response."]
    # Said by someone else in another turn, a plain fact is not the answer: the reported problem is.
    rows[1] = ("Sakura", 1, "The mobile team releases every second Tuesday.", FACT)
    assert _causes(rows) == ["The mobile team reports that the orders endpoint times out for big customers."]


def test_a_decision_that_agrees_answers_what_the_other_speaker_just_said() -> None:
    rows = [
        ("Hamza", 0, "Also a nit: I prefer named arguments for the retry helper.", MemoryType.PREFERENCE),
        ("Lucia", 1, "Noted, changed the three call sites to named arguments as well.", DECISION),
    ]
    assert _causes(rows) == ["Also a nit: I prefer named arguments for the retry helper."]
    # Without the agreement, a wish said before a decision is not its cause (a decision sits
    # beside a preference) ...
    rows[1] = ("Lucia", 1, "Changed the three call sites to named arguments as well.", DECISION)
    assert _causes(rows) == []
    # ... and agreeing with one's own statement is no answer to anyone.
    rows[1] = ("Hamza", 1, "Ok, changed the three call sites to named arguments as well.", DECISION)
    assert _causes(rows) == []


def test_a_statement_that_names_its_own_cause_mid_sentence_does_not_point_back() -> None:
    text = "Berlin is flat, which is why people set personal bests there."
    assert not any(back for _, _, back, _ in rules.cue_spans(text, decision=False))
    # A decision said that way still answers what was said before it.
    assert any(back for _, _, back, _ in rules.cue_spans("I told my doctor, which is why she lowered the dose.", decision=True))


def test_a_result_that_names_nothing_points_at_no_problem() -> None:
    cues = rules.cue_spans("Notion was too slow offline on the train, so I gave up on it.", decision=True)
    assert not [c for c in cues if c[0] == "resolves"]
    # One that names what it achieved still does.
    cues = rules.cue_spans("We pinned the consumer group, so the rebalances stopped.", decision=True)
    assert [c[1].strip() for c in cues if c[0] == "resolves"] == ["the rebalances stopped."]


def test_a_consequence_points_past_a_remark_that_does_or_explains_that() -> None:
    rows = [
        ("Ulf", 0, "Game night keeps running past midnight on Fridays.", FACT),
        ("Vicky", 1, "Twilight imperium will do that", FACT),
        ("Ulf", 2, "So we're capping it at one long game a month.", DECISION),
    ]
    assert _causes(rows) == ["Game night keeps running past midnight on Fridays."]
    rows[1] = ("Vicky", 1, "Explains the late nights.", FACT)
    assert _causes(rows) == ["Game night keeps running past midnight on Fridays."]


def test_since_before_a_noun_phrase_is_a_time() -> None:
    def time(s: str) -> bool:
        return rules._since_as_time(s, s.lower().index("since") + 5)

    assert time("Since March I've worked from home three days a week.")
    assert not time("Since it depends on the wall clock, I've frozen the time.")
    rows = [
        ("Maren", 0, "We're having the wall insulation extracted and replaced in March.", DECISION),
        ("Nils", 1, "Since March I've worked from home three days a week.", FACT),
    ]
    assert _causes(rows) == []


def test_a_yes_to_a_question_agrees_to_nothing() -> None:
    mems = _conversation([
        ("Ana", 0, "The japan trip is in june.", FACT),
        ("Ben", 1, "Yes and I've sent off the passport renewal form already.", DECISION),
    ])
    new = mems[-1]
    assert [ln.src for ln in rules.propose(new, mems[:1], T0 + 3600) if ln.rel in rules.CAUSAL_RELS] == [mems[0].id]
    # The same turn after a question ("... in june, right?", stored without its tag) answers it.
    new.meta["context"] = "the japan trip is in june right?"
    assert [ln.src for ln in rules.propose(new, mems[:1], T0 + 3600) if ln.rel in rules.CAUSAL_RELS] == []



def test_a_fix_answers_the_finding_said_between_the_failure_and_it() -> None:
    # The types fixed by hand (the finding stored as a plain fact), so this holds whatever the
    # type head says: the step taken answers the finding that names what it touches, not the
    # symptom reported before it.
    rows = [
        ("Mara", 0, "The club's booking site shows a blank page on Android phones since Monday.", MemoryType.DEBUG_LOG),
        ("Nico", 1, "Their calendar plugin is blocked by the new Chrome cookie rules.", FACT),
        ("Mara", 2, "I replaced the plugin with a plain list of the sessions.", DECISION),
    ]
    assert _causes(rows) == ["Their calendar plugin is blocked by the new Chrome cookie rules."]


def test_a_fix_answers_the_finding_after_a_mishap_told_as_a_fact() -> None:
    rows = [
        ("Fritz", 0, "The new oven shows an error and switches itself off after ten minutes.", FACT),
        ("Gabi", 1, "That code is usually the temperature sensor on those ovens.", FACT),
        ("Fritz", 2, "Called the warranty line, they're replacing the sensor on Monday.", DECISION),
    ]
    assert _causes(rows) == ["That code is usually the temperature sensor on those ovens."]
