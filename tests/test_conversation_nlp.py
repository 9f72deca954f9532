"""Parsing conversations, dropping chatter, classifying, fingerprinting (real spaCy model)."""

from __future__ import annotations

import json

import pytest

from mnemo.errors import InvalidInput
from mnemo.models import MemoryType
from mnemo.nlp import conversation
from mnemo.nlp.classify import classify
from mnemo.nlp.extract import candidates, keep_sentence, prose
from mnemo.nlp.fingerprint import Gazetteer, fingerprint_texts


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Alice prefers dark mode.", "preference"),
        ("The client hates pop-up dialogs.", "preference"),
        ("I now prefer light mode in the editor.", "preference"),
        ("I always use spaces for indentation.", "preference"),
        ("We decided to use PostgreSQL for the database.", "decision"),
        ("Let's go with FastAPI for the billing API.", "decision"),
        ("We switched the cache from Redis to Memcached.", "decision"),
        ("So we will add a readiness check for Redis.", "decision"),
        ("Decision: deploy on Fly.io.", "decision"),
        ("The worker crashes with a KeyError in parse_row.", "debug_log"),
        ("The export still failed on Sunday.", "debug_log"),
        ("I'm working on the Stripe webhook handler today.", "session_note"),
        ("The offsite is in Lisbon on April 14.", "fact"),
        ("Bob picked up the ticket from the queue.", "fact"),
        ("The invites showed Toronto time instead of Lisbon time.", "fact"),
    ],
)
def test_classify(text: str, kind: str) -> None:
    assert classify(text).value == kind


def test_json_shapes() -> None:
    turns = conversation.parse(json.dumps([
        {"role": "system", "content": "You are helpful."},
        {"speaker": "Alice", "text": "Hello", "timestamp": "2026-03-01T10:00:00Z"},
        {"author": {"role": "assistant"}, "content": [{"type": "text", "text": "Hi"}, {"type": "text", "text": "there"}], "ts": 1772359260},
        {"role": "user", "content": "   "},
    ]), "json")
    assert [(t.index, t.speaker, t.text) for t in turns] == [(0, "Alice", "Hello"), (1, "assistant", "Hi\nthere")]
    assert turns[0].timestamp == 1772359200.0 and turns[1].timestamp == 1772359260.0
    wrapped = conversation.parse(json.dumps({"messages": [{"role": "user", "content": "A"}]}), "json")
    assert [t.text for t in wrapped] == ["A"]
    lines = '{"role": "user", "content": "one"}\n\n{"role": "assistant", "content": "two"}\n'
    assert [t.text for t in conversation.parse(lines, "json")] == ["one", "two"]
    assert conversation.detect(lines) == "json"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[{"role": "user", "content": "a"}, 7]', "turn 2: expected an object"),
        ('[{"role": "user"}]', "turn 1: no text"),
        ('[{"role": "user", "content": "a", "timestamp": "yesterday-ish"}]', "turn 1: not an ISO-8601 time"),
        ('{"title": "x"}', "without a list of turns"),
        ('"just a string"', "must be a list of turns"),
        ('[{"role": "user", "content": "a"', "not valid JSON"),
    ],
)
def test_bad_json_is_refused_with_the_turn(text: str, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        conversation.parse(text, "json")


def test_markdown_and_text_shapes() -> None:
    md = (
        "# Title line\n\n**Alice:** I prefer tabs.\nStill true.\n\n**Bob**: Noted.\n\n## Carol\n\nFirst paragraph.\n\n"
        "```\nnot a speaker: inside code\n```\n[2026-03-01T10:00:00Z] **Dave:** Late.\n"
    )
    turns = conversation.parse(md, "markdown")
    assert [t.speaker for t in turns] == ["Alice", "Bob", "Carol", "Dave"]
    assert turns[0].text == "I prefer tabs.\nStill true."
    assert "not a speaker: inside code" in turns[2].text and turns[3].timestamp is not None
    assert conversation.detect(md) == "markdown"

    named = "Carol: Morning.\nDave: Hi!\nmore from Dave\nCarol: Bye."
    assert [(t.speaker, t.text) for t in conversation.parse(named, "text")] == [
        ("Carol", "Morning."), ("Dave", "Hi!\nmore from Dave"), ("Carol", "Bye.")
    ]
    prose_text = "We moved to Berlin in May.\nIt was a long trip.\n\nThe flat has two rooms."
    assert [(t.speaker, t.text) for t in conversation.parse(prose_text, "text")] == [
        (None, "We moved to Berlin in May.\nIt was a long trip."), (None, "The flat has two rooms.")
    ]


def test_path_or_text(tmp_path) -> None:
    f = tmp_path / "chat.md"
    f.write_text("**Alice:** We decided to use Kafka.", encoding="utf-8")
    turns, fmt, name = conversation.load(str(f))
    assert (fmt, name, turns[0].speaker) == ("markdown", "chat.md", "Alice")
    turns, fmt, name = conversation.load("Alice: hello there\nBob: hi Alice")
    assert (fmt, name, len(turns)) == ("text", None, 2)
    with pytest.raises(InvalidInput, match="no such file"):
        conversation.load(str(tmp_path / "gone.json"))
    with pytest.raises(InvalidInput, match="unknown conversation format"):
        conversation.load("x", format="yaml")
    bad = tmp_path / "latin.txt"
    bad.write_bytes("caf\xe9".encode("latin-1"))
    with pytest.raises(InvalidInput, match="not valid UTF-8"):
        conversation.load(str(bad))


@pytest.mark.parametrize(
    "sentence",
    ["Thanks so much!", "Ok, sounds good.", "Let me know if you need anything else.", "Can you write a test for it?",
     "You could use a connection pool.", "Great, that should keep memory flat.", "Why is the build slow?",
     "Here is the updated function.", "I hope this helps!"],
)
def test_chatter_questions_and_suggestions_are_dropped(sentence: str) -> None:
    assert not keep_sentence(sentence)


def test_statements_are_kept_and_continuations_joined() -> None:
    turns = conversation.parse(
        "Alice: Thanks! We decided to use Kafka for the event bus. It also keeps the audit log. Got it?\n"
        "Bob: Because of the outage, we paused the deploys.", "text")
    cands, stats = candidates(turns)
    assert [c.text for c in cands] == [
        "We decided to use Kafka for the event bus. It also keeps the audit log.",
        "Because of the outage, we paused the deploys.",
    ]
    # pausing the deploys because of the outage is a decision taken (it was typed a fact before)
    assert [c.type for c in cands] == [MemoryType.DECISION, MemoryType.DECISION]
    assert stats.turns == 2 and stats.dropped == 2


def test_code_blocks_keep_only_the_error_line() -> None:
    text = "The job died:\n```\nTraceback (most recent call last):\n  File \"x.py\", line 3\nKeyError: 'invoice_id'\n```\n- first bullet\n- **bold** second"
    out = prose(text)
    assert "KeyError: 'invoice_id'" in out and "File" not in out
    assert "first bullet." in out and "bold second." in out and "**" not in out


def test_fingerprints() -> None:
    texts = [
        "We decided to use PostgreSQL instead of MySQL because it has better JSONB support.",
        "We chose PostgreSQL over MySQL and MongoDB.",
        "We decided against Heroku since the costs were too high.",
        "We switched the cache from Redis to Memcached.",
        "Because of the Redis timeouts, we added a connection pool to the API gateway.",
        "Alice prefers dark mode in the editor.",
        "The outage started since the last deploy.",
    ]
    fps = fingerprint_texts(texts, [classify(t) for t in texts], Gazetteer(["Alice"]))
    assert fps[0].decision == "Use PostgreSQL" and fps[0].rejected == ("MySQL",)
    assert fps[0].reasons == ("It has better JSONB support",)
    assert set(fps[0].entities) == {"PostgreSQL", "MySQL", "JSONB"} and fps[0].subjects == ("jsonb support",)
    assert fps[1].decision == "PostgreSQL" and fps[1].rejected == ("MySQL", "MongoDB")
    assert fps[2].decision == "Against Heroku" and fps[2].rejected == ("Heroku",) and fps[2].reasons == ("The costs were too high",)
    assert fps[3].rejected == ("Redis",) and set(fps[3].entities) == {"Redis", "Memcached"}
    assert fps[4].reasons == ("The Redis timeouts",) and fps[4].subjects == ("connection pool", "api gateway")
    assert "API" not in fps[4].entities  # a generic acronym is not a name worth linking on
    assert fps[5].entities == ("Alice",) and fps[5].type == "preference"  # found through the gazetteer
    assert fps[6].reasons == ()  # "since the last deploy" is a time, not a reason
