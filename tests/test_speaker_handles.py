"""A chat handle in lower case is a person: their "I" is attributed to them, as a capitalised
name's is. Real spaCy parse, real MiniLM model, real store."""

from __future__ import annotations

import json

from mnemo.nlp.extract import is_person


def test_lower_case_handles_are_people_and_roles_are_not() -> None:
    assert is_person("jo") and is_person("dev1") and is_person("Maya") and is_person("Mr Osei")
    assert not any(is_person(s) for s in ("user", "Assistant", "system", "", "  ", "42", None))


def test_a_lower_case_handles_memories_name_them(real_engine) -> None:
    conversation = [
        {"speaker": "jo", "text": "I moved the weekly standup to 9:30 because half the team starts late."},
        {"speaker": "kat", "text": "I always take the night train to Vienna, I can't stand flying."},
    ]
    out = real_engine.ingest(json.dumps(conversation), format="json")
    kept = {m["turn"]: m["content"] for m in out["memories"] if m["created"]}
    assert set(kept) == {0, 1}
    assert kept[0].startswith("jo: ") and "standup" in kept[0]
    assert kept[1].startswith("kat: ") and "Vienna" in kept[1]
