"""Two statements of one turn stored as one memory (issue #16). A letter's frame is not a
statement, and never rides along with one: the salutation ("Dear Mr Olsen,"), the thanks behind it ("thank you for your message"), the
announcement of what the letter is about ("I am writing regarding ..."), the pleasantry ("I hope
you're keeping well") and the sign-off ("Best regards, Lena") are dropped, so the statement of
the turn is stored, and linked, alone. And a consequence said in other words than "So" ("Due to
this, ...", "In that case ...") starts a memory of its own, apart from its cause; so do "Which
is why ..." (a consequence, not a relative clause running on) and a fronted causal clause ("Since
the hall was that full, we ..."), while "Since 2018 ..." and "Because of the rain ..." (no
clause) and "Because it is faster." (a reason running on) stay with the sentence before.

Twelfth round: a second statement about another subject starts a memory of its own ("The
chartplotter lost its GPS fix twice yesterday. The antenna cable had come loose at the
connector."; a thing, then what the speaker did about it), when each sentence reports something
on its own; the speaker's own story (I ... we ...), praise and encouragement stay whole."""

from __future__ import annotations

import pytest

from mnemo.nlp.conversation import Turn
from mnemo.nlp.extract import CHATTER, candidates, keep_sentence, trim

from .labelled_set import causal_pairs, ingest_turns


def _parts(*texts: str) -> list[list[str]]:
    cands, _ = candidates([Turn(index=i, speaker="Ana", text=t) for i, t in enumerate(texts)])
    return [c.sentences for c in cands]


@pytest.mark.parametrize("salutation", ["Dear Mr Olsen,", "Dear Sir or Madam,", "Dear parents,", "Dear Dr. Kaur,", "Dear,"])
def test_a_salutation_is_trimmed_like_a_greeting(salutation: str) -> None:
    assert trim(f"{salutation} the boiler in flat 3 failed its safety check.") == "The boiler in flat 3 failed its safety check."


def test_dear_inside_a_sentence_is_not_a_salutation() -> None:
    assert trim("My dear old dog, Rufus, turned fourteen on Sunday.") == "My dear old dog, Rufus, turned fourteen on Sunday."


@pytest.mark.parametrize("text", ["Best regards, Lena", "Kind regards,\nLena", "Yours sincerely, Tom Hale", "Best wishes, Mo",
                                  "Dear Mr Olsen,", "All the best, Jo"])
def test_a_sign_off_is_chatter(text: str) -> None:
    assert CHATTER.match(text)


@pytest.mark.parametrize("text", ["I hope you're keeping well.", "Hope this email finds you well.",
                                  "I am writing regarding my council tax bill.", "I write with regard to the invoice of 3 May."])
def test_a_letter_formula_is_not_kept(text: str) -> None:
    assert not keep_sentence(text)


@pytest.mark.parametrize("text", ["I'm writing the report for the board now.", "I write all my notes in plain text.",
                                  "I hope to finish the kitchen by June.", "Best of all, the new flat has a garden."])
def test_statements_near_the_formulas_are_kept(text: str) -> None:
    assert keep_sentence(text)


def test_the_frame_of_a_letter_is_not_part_of_its_statement() -> None:
    assert _parts(
        "Dear Mr Olsen, thank you for your message. The boiler in flat 3 failed its safety check on Monday.",
        "Hi Marco, I hope you're keeping well. The studio lease ends on 30 June. Best regards, Lena",
        "Dear Sir or Madam, I am writing regarding my council tax bill. The March bill charged me twice for the same flat.",
    ) == [
        ["The boiler in flat 3 failed its safety check on Monday."],
        ["The studio lease ends on 30 June."],
        ["The March bill charged me twice for the same flat."],
    ]


@pytest.mark.parametrize("connective", ["Due to this,", "Owing to that,", "Thanks to that", "In that case", "Accordingly,",
                                        "Given that,"])
def test_a_consequence_in_other_words_starts_its_own_memory(connective: str) -> None:
    assert _parts(f"The sports hall is closed for repairs until May. {connective} we moved the choir to the library.") == [
        ["The sports hall is closed for repairs until May."],
        [f"{connective} we moved the choir to the library."],
    ]


def test_which_is_why_starts_its_own_memory() -> None:
    assert _parts("The printer on the second floor jams on thick paper. Which is why we order the 80 gsm reams now.") == [
        ["The printer on the second floor jams on thick paper."],
        ["Which is why we order the 80 gsm reams now."],
    ]


@pytest.mark.parametrize("front", ["Since the hall was that full,", "Because the hall was that full,"])
def test_a_fronted_causal_clause_starts_its_own_memory(front: str) -> None:
    assert _parts(f"The town hall was packed for the budget meeting. {front} the council is adding a second session in May.") == [
        ["The town hall was packed for the budget meeting."],
        [f"{front} the council is adding a second session in May."],
    ]


@pytest.mark.parametrize("text", [
    "The choir rehearses in the crypt. Since 2018, the crypt has been our only free room.",
    "The choir rehearses in the crypt. Because it is warmer.",
    "The choir rehearses in the crypt, so that nobody hears the wrong notes. So that the neighbours sleep, we stop at nine.",
])
def test_a_reason_without_a_fronted_clause_stays_together(text: str) -> None:
    assert len(_parts(text)) == 1


@pytest.mark.parametrize("first, second", [
    ("The chartplotter lost its GPS fix twice yesterday.", "The antenna cable had come loose at the connector."),
    ("The badge printer kept spitting out blank cards.", "The ribbon had run out."),
    ("Moving day is 3 May.", "The building's lift is out of order until June."),
])
def test_two_statements_about_two_things_are_two_memories(first: str, second: str) -> None:
    assert _parts(f"{first} {second}") == [[first], [second]]


@pytest.mark.parametrize("first, second", [
    ("My Garmin stopped syncing runs to Strava after the update.", "I re-linked the accounts on Sunday."),
    ("The bank feed stopped importing transactions on 3 May.", "We re-authorised the connection on Friday."),
])
def test_what_the_speaker_did_after_a_thing_is_its_own_memory(first: str, second: str) -> None:
    assert _parts(f"{first} {second}") == [[first], [second]]


@pytest.mark.parametrize("text", [
    # The speaker's own story: the same teller, one memory.
    "I went to a pride parade last Friday. We had a great time with the whole group.",
    # Encouragement and praise report nothing part by part (no evidence): split, each part would
    # fall under the statement filter where the whole turn passes.
    "I'm here to support you. Every step's getting you closer to your dream.",
    "The colors are so bright and the flowers are so pretty. Art is such a source of joy.",
    # A pronoun points back to the sentence before: more of the same statement.
    "The roofer found three cracked tiles on Monday. They replaced the tiles on Thursday.",
])
def test_one_story_and_chat_stay_one_memory(text: str) -> None:
    assert len(_parts(text)) == 1


@pytest.mark.slow
def test_two_statements_of_one_turn_are_stored_apart(real_engine) -> None:
    turns = [("Ines", "The chartplotter lost its GPS fix twice yesterday. The antenna cable had come loose at the connector."),
             ("Tom", "My Garmin stopped syncing runs to Strava after the update. I re-linked the accounts on Sunday.")]
    _, kept = ingest_turns(real_engine, turns, session="two-statements")
    assert [m["content"] for m in kept] == [
        "Ines: The chartplotter lost its GPS fix twice yesterday.",
        "Ines: The antenna cable had come loose at the connector.",
        "Tom: My Garmin stopped syncing runs to Strava after the update.",
        "Tom: I re-linked the accounts on Sunday.",
    ]


@pytest.mark.slow
def test_a_letter_stores_and_links_its_statement_alone(real_engine) -> None:
    turns = [
        ("Ms Grant", "Dear Mr Olsen, thank you for your message. The boiler in flat 3 failed its safety check on Monday."),
        ("Mr Olsen", "Dear Ms Grant, thanks for letting me know. Because of that we have booked an engineer for Thursday morning. "
                     "Kind regards, Piotr Olsen"),
    ]
    _, kept = ingest_turns(real_engine, turns, session="letter")
    assert [m["content"] for m in kept] == [
        "Ms Grant: The boiler in flat 3 failed its safety check on Monday.",
        "Mr Olsen: Because of that we have booked an engineer for Thursday morning.",
    ]
    assert causal_pairs(real_engine, kept) == {(0, 1)}


# Issue #16, thirteenth round: chat lines without punctuation run together. The parser finds no
# sentence boundary, but a second main clause with its own subject, after the first verb's own
# object, is cut off like a new sentence, and stands apart on the same terms as one.
@pytest.mark.parametrize(("text", "parts"), [
    ("we're dropping the export feature from the beta the sync engine can't handle large files yet",
     [["We're dropping the export feature from the beta"], ["The sync engine can't handle large files yet"]]),
])
def test_run_on_chat_lines_are_cut_into_statements(text: str, parts: list[list[str]]) -> None:
    assert _parts(text) == parts


@pytest.mark.parametrize("text", [
    "I think the cache key was wrong on Monday",  # the verb takes the clause as its object
    "I made the dessert this afternoon so it can set overnight",  # joined by "so": a purpose
    "The consumer lag hit 2M, so every few minutes the whole group rebalanced",  # punctuated: as written
])
def test_one_clause_with_its_complement_or_purpose_stays_whole(text: str) -> None:
    assert len(_parts(text)) == 1


# Thirteenth round: "so" without punctuation between a cause and an act done or under way starts
# the consequence's memory, as ". So ..." would; a purpose, a cause that leans on the
# conversation ("it rained ..."), filler and "so" + adjective stay whole.
@pytest.mark.parametrize(("text", "parts"), [
    ("the hall boiler is broken so we're moving choir practice to the church tonight",
     [["The hall boiler is broken"], ["So we're moving choir practice to the church tonight"]]),
    ("the old release broke our date parser last year so we pinned version 2 in March",
     [["The old release broke our date parser last year"], ["So we pinned version 2 in March"]]),
    ("my landlord put the rent up to 900 so I've started looking at flats in Leith",
     [["My landlord put the rent up to 900"], ["So I've started looking at flats in Leith"]]),
])
def test_an_unpunctuated_so_before_an_act_starts_its_own_memory(text: str, parts: list[list[str]]) -> None:
    assert _parts(text) == parts


@pytest.mark.parametrize("text", [
    "I moved the stand-up to 9:30 so the Lisbon team can join",  # a purpose: an aim, not an act
    "I've put a reminder in the calendar so it doesn't happen again",
    "it rained here the whole weekend so we just stayed in and watched films",  # the cause leans on the chat
    "the soup at the new place was so good we went back on Friday",  # "so" + adjective
    "the market was packed so anyway we left the stall early",  # filler
    "I moved the meeting to Friday so that Anna can join us",
])
def test_so_before_a_purpose_filler_or_an_adjective_stays_whole(text: str) -> None:
    assert len(_parts(text)) == 1
