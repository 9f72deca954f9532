"""Twenty-fifth round: a person called by a role word, and causal links. Real spaCy parse, real
MiniLM model, real store; the conversations are written for these tests."""

from __future__ import annotations

import json

from mnemo.nlp.extract import people

from .labelled_set import content_links, linked


def test_an_assistant_among_people_is_a_person_and_a_chat_role_is_not() -> None:
    assert people(["Ecologist", "Assistant", "Ecologist"]) == {"Ecologist", "Assistant"}
    assert people(["Mr Khan", "Assistant"]) == {"Mr Khan", "Assistant"}
    # Chat exports and the history import (``--me Alice``) write the role in lower case.
    assert people(["user", "assistant"]) == set()
    assert people(["Alice", "assistant"]) == {"Alice"}
    # Beside another role it is the AI role, whatever its case.
    assert people(["User", "Assistant"]) == set()
    assert people(["Human", "Assistant"]) == set()
    assert people(["Priya", "User", "Assistant"]) == {"Priya"}
    # Alone it is no one's name, and a role that is no job title stays a role beside a person.
    assert people(["Assistant"]) == set()
    assert people(["Priya", "Bot"]) == {"Priya"}
    assert people([None, "Priya", " "]) == {"Priya"}


def test_an_assistant_colleagues_memories_name_them(real_engine) -> None:
    text = (
        "Warden: The boiler in the east wing failed again last night and the showers ran cold.\n"
        "Assistant: I've booked the plumber for Thursday morning because the guests complained twice.\n"
        "Warden: I always put the late arrivals in the annexe, it's quieter.\n"
    )
    out = real_engine.ingest(text, format="text")
    kept = {m["turn"]: m["content"] for m in out["memories"] if m["created"]}
    assert 1 in kept and kept[1].startswith("Assistant") and "plumber" in kept[1]
    assert kept[2].startswith("Warden")


def test_a_chat_exports_assistant_stays_the_ai_role(real_engine) -> None:
    conversation = [
        {"role": "user", "content": "I moved the weekly standup to 9:30 because half the team starts late."},
        {"role": "assistant", "content": "I've drafted the calendar invite for the new 9:30 slot and sent it to the team."},
    ]
    out = real_engine.ingest(json.dumps(conversation), format="json")
    kept = [m["content"] for m in out["memories"] if m["created"]]
    assert kept and not any(c.lower().startswith(("user", "assistant")) for c in kept)
    history = [
        {"speaker": "Alice", "text": "I always take the night train to Vienna, I can't stand flying."},
        {"speaker": "assistant", "text": "I've found a sleeper on Friday that leaves Munich at 23:10 and arrives at 6:40."},
    ]
    out = real_engine.ingest(json.dumps(history), format="json")
    named = {m["turn"]: m["content"] for m in out["memories"] if m["created"]}
    assert named[0].startswith("Alice: ")
    assert 1 not in named or not named[1].lower().startswith("assistant")


def test_a_step_after_the_speakers_own_earlier_step_points_back_to_no_step(real_engine) -> None:
    # "So" after a turn of someone else's: what it points back to is the speaker's own earlier
    # step, which is no reason for the next one; a fact of theirs still is.
    turns = [("Mia", "I've moved my flight to Lisbon to next Tuesday."),
             ("Leo", "Okay."),
             ("Mia", "So I'm going to the travel agent tomorrow.")]
    kept, pairs = content_links(real_engine, turns, "own-step")
    assert any("travel agent" in m["content"] for m in kept) and any("Lisbon" in m["content"] for m in kept)
    assert not linked(pairs, "Lisbon", "travel agent"), pairs
    turns = [("Mia", "I've signed up for the Sunday pottery class."),
             ("Leo", "Nice."),
             ("Mia", "So I'm skipping the football on Sundays now.")]
    _, pairs = content_links(real_engine, turns, "own-fact")
    assert linked(pairs, "pottery class", "skipping the football"), pairs


def test_a_step_after_what_someone_else_did_still_points_back_to_it(real_engine) -> None:
    turns = [("Dev", "The venue has cancelled our booking for the twelfth."),
             ("Kay", "Oh no, not again."),
             ("Dev", "So I've booked the community centre on Mill Lane instead.")]
    kept, pairs = content_links(real_engine, turns, "their-step")
    assert linked(pairs, "cancelled our booking", "community centre"), pairs


def test_what_follows_a_change_of_topic_is_its_own_memory_and_the_cause(real_engine) -> None:
    turns = [("Ruth", "The heating in the scout hut is broken again. On a brighter note, the parish council "
                      "has given us 400 pounds."),
             ("Ruth", "So we're buying a second freezer for the food bank.")]
    kept, pairs = content_links(real_engine, turns, "topic-shift")
    grant = [m["content"] for m in kept if "parish council" in m["content"]]
    assert grant and all("heating" not in c for c in grant), [m["content"] for m in kept]
    assert linked(pairs, "parish council", "second freezer"), pairs
    assert not linked(pairs, "heating", "second freezer"), pairs
