"""``Mnemo.edit``: change some fields of a memory by id (what the MCP bridge's update_memory
calls)."""

from __future__ import annotations

import pytest

from mnemo.errors import InvalidInput, NotFound
from mnemo.models import Status


def test_edit_changes_only_what_is_given(engine) -> None:
    m = engine.save("We deploy on Tuesdays", tags=["ops"], wing="work", room="deploys", meta={"ticket": "OPS-1"}).memory
    e = engine.edit(m.id[:8], content="We deploy on Thursdays after the freeze", meta={"ticket": None, "owner": "ana"})
    assert e.content == "We deploy on Thursdays after the freeze" and e.tokens > m.tokens
    assert (e.tags, e.wing, e.room, e.type, e.created_at) == (m.tags, m.wing, m.room, m.type, m.created_at)
    assert e.meta == {"owner": "ana"}  # merged; a null removes a key
    assert engine.get(m.id).content == e.content  # stored
    # the new text is what recall finds (re-embedded and re-indexed), the old one is gone
    hits = engine.recall("Thursdays freeze", touch=False)
    assert hits[0].id == m.id and "Thursdays" in hits[0].content
    assert all("Tuesdays" not in h.content for h in engine.recall("Tuesdays", touch=False))

    t = engine.edit(m.id, tags=["#ops", "release", "ops"], type="decision", layer="semantic", wing="", room=" lab ")
    assert t.tags == ("ops", "release") and t.type.value == "decision" and t.fingerprint.type == "decision"
    assert t.layer.value == "semantic" and t.wing is None and t.room == "lab"
    assert engine.edit(m.id, tags=["ops", "release"]).updated_at == t.updated_at  # no change, no write


def test_edit_refuses_bad_input_and_promoted_memories(engine) -> None:
    m = engine.save("The staging database is on host db-2").memory
    for kwargs, msg in (
        ({}, "nothing to change"),
        ({"content": "  "}, "content is empty"),
        ({"content": "x" * (64 * 1024 + 1)}, "the limit is"),
        ({"type": "rumour"}, "unknown type"),
        ({"layer": "deep"}, "unknown layer"),
        ({"tags": [1, 2]}, "tags must be a list of strings"),
        ({"meta": ["x"]}, "meta must be a JSON object"),
    ):
        with pytest.raises(InvalidInput, match=msg):
            engine.edit(m.id, **kwargs)
    assert engine.get(m.id) == m  # nothing half-written
    with pytest.raises(NotFound):
        engine.edit("ffffffff", content="x")
    promoted = engine.core.set_status(m, Status.PROMOTED)
    with pytest.raises(InvalidInput, match="is promoted") as exc:
        engine.edit(promoted.id, content="db-3")
    assert "edit the note" in (exc.value.hint or "")
