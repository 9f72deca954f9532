"""The store's fast row decoding (store/decode.py) gives exactly the Memory that the plain path
gives: ``Memory.from_dict``-style typing of every column, field by field."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import pytest

from mnemo.models import Fingerprint, Layer, Memory, MemoryType, Source, Status
from mnemo.store.decode import SCALAR, row_to_memory
from mnemo.store.sqlite import Store


def plain(row: sqlite3.Row) -> Memory:
    """The decoding the fast one replaced, kept here as the reference."""
    data: dict[str, Any] = {k: row[k] for k in SCALAR}
    data["fingerprint"] = Fingerprint.from_dict(json.loads(row["fingerprint"] or "{}"))
    data["tags"] = tuple(json.loads(row["tags"] or "[]"))
    data["meta"] = json.loads(row["meta"] or "{}")
    data["pinned"] = bool(row["pinned"])
    data["type"] = MemoryType(data["type"])
    data["layer"] = Layer(data["layer"])
    data["status"] = Status(data["status"])
    data["source"] = Source(data["source"])
    return Memory(**data)


def memories() -> list[Memory]:
    """Every kind of field a row can hold: empty and full fingerprints (a decision or none),
    tags, nested meta, each enum member, optional fields set and unset, pinned or not."""
    out = [Memory(id="m0", content="plain")]
    kinds = [list(MemoryType), list(Layer), list(Status), list(Source)]
    for i in range(max(len(k) for k in kinds) + 4):
        t, layer, status, source = (k[i % len(k)] for k in kinds)
        out.append(Memory(
            id=f"m{i + 1}", content=f"text {i} with “quotes” and ünïcode", type=t, layer=layer, status=status, source=source,
            fingerprint=Fingerprint(type=t.value, entities=("Alice", "Bob") if i % 2 else (), subjects=("billing",),
                                    decision="use Postgres" if i % 3 == 0 else None, rejected=("MySQL",) * (i % 2),
                                    reasons=("cost",)),
            tokens=i, wing="work" if i % 2 else None, room="infra" if i % 3 else None, tags=("a", "b") if i % 2 else ("x",),
            trust=0.5 + i / 100, importance=0.1 * (i % 10), strength=1.0 + i / 10, use_count=i, created_at=1000.0 + i,
            updated_at=2000.0 + i, last_used=3000.0 + i if i % 2 else None, pinned=bool(i % 2),
            note_path=f"Memories/n{i}.md" if i % 4 == 0 else None,
            meta={"context": "before", "turn": i, "nested": {"k": [1, 2, None]}} if i % 2 else {},
            session_id="s1" if i % 2 else None, duplicate_of="m0" if i == 3 else None, surprise=0.2 if i % 2 else None,
            review_count=i % 3, cross_domain_count=i % 2, last_review_at=4000.0 if i % 2 else None,
            event_at=5000.0 + i if i % 3 == 0 else None, expires_at=6000.0 if i == 2 else None,
            archived_at=7000.0 if i == 4 else None, superseded_by="m1" if i == 5 else None, embed_model="hash-64",
        ))
    return out


def test_every_row_decodes_as_the_plain_path_does(tmp_path) -> None:
    store = Store(tmp_path / "mnemo.db")
    saved = memories()
    store.insert_memories(saved)
    rows = store.query("SELECT * FROM memories")
    assert len(rows) == len(saved) >= 10
    for row in rows:
        fast, reference = row_to_memory(row), plain(row)
        assert fast == reference
        assert type(fast.pinned) is bool and type(fast.tags) is tuple and type(fast.type) is MemoryType
    by_id = {m.id: m for m in saved}
    assert all(row_to_memory(r) == by_id[r["id"]] for r in rows)  # and it is what was saved
    assert store.get_memories([m.id for m in saved]) == by_id
    store.close()


def test_columns_left_empty_or_unusual_decode_alike(tmp_path) -> None:
    """Empty JSON columns, a fingerprint with unknown keys or missing ones, and the same
    fingerprint text twice (shared once decoded) decode as the plain path decodes them."""
    store = Store(tmp_path / "mnemo.db")
    store.insert_memories([Memory(id="a", content="one"), Memory(id="b", content="two"), Memory(id="c", content="three")])
    with store.tx() as conn:
        conn.execute("UPDATE memories SET fingerprint = '', tags = '', meta = '' WHERE id = 'a'")
        conn.execute("UPDATE memories SET fingerprint = '{}', tags = '[]', meta = '{}' WHERE id = 'b'")
        conn.execute("""UPDATE memories SET fingerprint = '{"type": "fact", "entities": null, "extra": 1, "decision": "x"}',
                        tags = '["t"]', meta = 'null' WHERE id = 'c'""")
    rows = store.query("SELECT * FROM memories")
    for row in rows + rows:
        assert row_to_memory(row) == plain(row)
    twice = [row_to_memory(r) for r in rows if r["id"] == "c"] * 2
    assert twice[0].fingerprint.entities is None and twice[0].fingerprint.decision == "x"
    store.close()


def test_a_value_no_enum_knows_is_refused_as_the_enum_refuses_it(tmp_path) -> None:
    store = Store(tmp_path / "mnemo.db")
    store.insert_memories([Memory(id="a", content="one")])
    with store.tx() as conn:
        conn.execute("UPDATE memories SET layer = 'nowhere' WHERE id = 'a'")
    row = store.query("SELECT * FROM memories")[0]
    with pytest.raises(ValueError, match="nowhere"):
        plain(row)
    with pytest.raises(ValueError, match="nowhere"):
        row_to_memory(row)
    store.close()
