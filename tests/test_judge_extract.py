"""Extraction asked of a model (``judge.url``), through the real ``Mnemo.ingest`` (spaCy,
SQLite, Chroma) against a real HTTP server on loopback that replays answers in the
chat-completions shape (``tests/fixtures/judge_extract/``) and records every request.

The answers were written by hand in the shape an OpenAI-compatible server sends (no model server
exists here): they prove the behaviour around the model (what is asked, what is stored, when the
rules take over), not the quality of any model's extraction."""

from __future__ import annotations

import json
import logging
import re
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from mnemo.config import load_settings
from mnemo.engine import Mnemo
from mnemo.nlp.embedder import HashEmbedder

from .loopback import serving

FIXTURES = Path(__file__).parent / "fixtures" / "judge_extract"
CONVERSATION = (FIXTURES / "conversation.json").read_text(encoding="utf-8")
BATCH = 4  # judge.extract_batch in these tests: the 8 turns make two requests


class _Replay(BaseHTTPRequestHandler):
    """Extraction requests (the ones asking for a JSON object) get the next scripted reply:
    (status, body, seconds to wait first). Link-relation requests get the rule's own proposal."""

    script: list[tuple[int, bytes, float]] = []
    seen: list[dict[str, Any]] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        extraction = "response_format" in body
        type(self).seen.append({"path": self.path, "body": body, "extraction": extraction})
        if extraction:
            status, data, wait = type(self).script.pop(0)
            time.sleep(wait)
        else:
            proposed = re.search(r"A rule suggests: (\w+)", body["messages"][1]["content"])
            answer = proposed.group(1) if proposed else "no"
            status, data = 200, json.dumps({"choices": [{"message": {"role": "assistant", "content": answer}}]}).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            pass  # the client gave up waiting (the timeout test)

    def log_message(self, *args: object) -> None:
        pass


def recorded(name: str) -> tuple[int, bytes, float]:
    return 200, (FIXTURES / f"{name}.json").read_bytes(), 0.0


@pytest.fixture
def server():
    _Replay.script, _Replay.seen = [], []
    with serving(_Replay) as url:
        yield url


def extraction_requests() -> list[dict[str, Any]]:
    return [r for r in _Replay.seen if r["extraction"]]


def ingest(home: Path, clock, **overrides: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The report of one ingest of the conversation, and the stored memories by id."""
    settings = load_settings(home=home, overrides={"embedding.model": "hash-64", **overrides})
    with Mnemo(settings, clock=clock, embedder=HashEmbedder(64)) as m:
        report = m.ingest(CONVERSATION, format="json")
        stored = {r["id"]: m.get(r["id"]) for r in report["memories"] if r["created"]}
        links = {(ln.src, ln.dst, ln.rel) for mid in stored for ln in m.core.store.links_of(mid)}
    report["stored_links"] = links
    return report, stored


def by_turn(stored: dict[str, Any], turns: range) -> list[tuple[str, str]]:
    return sorted((m.content, m.type.value) for m in stored.values() if m.meta["turn"] in turns)


def test_the_model_writes_the_memories_one_request_per_batch(tmp_path: Path, clock, server) -> None:
    _Replay.script = [recorded("batch1"), recorded("batch2")]
    report, stored = ingest(tmp_path / "a", clock, **{"judge.url": server, "judge.model": "qwen-test",
                                                       "judge.extract_batch": BATCH})
    asked = extraction_requests()
    assert len(asked) == 2  # 8 turns in batches of 4: one request each, not one per sentence
    for req, first in zip(asked, (1, 5), strict=True):
        body = req["body"]
        assert req["path"] == "/v1/chat/completions" and body["model"] == "qwen-test" and body["temperature"] == 0
        assert body["response_format"] == {"type": "json_object"}
        lines = [ln for ln in body["messages"][1]["content"].splitlines() if ln.startswith("[")]
        assert [int(ln[1:ln.index("]")]) for ln in lines] == list(range(first, first + BATCH))
    assert "[2] Bob: Great, thanks! We went hiking in the Alps with my sister Clara." in asked[0]["body"]["messages"][1]["content"]

    mems = sorted(stored.values(), key=lambda m: (m.meta["turn"], m.meta["part"]))
    got = [(m.content, m.type.value, m.meta["speaker"], m.meta["turn"], m.meta["turns"]) for m in mems]
    assert got == [
        ("Bob went hiking in the Alps with his sister Clara.", "fact", "Bob", 1, [1]),
        ("Alice reported that the nightly backup on db-1 failed again because the disk filled up.", "debug_log", "Alice", 2, [2]),
        ("Because of the failed backup, Bob and Alice decided to add disk usage alerts on db-1.", "decision", "Alice", 2, [2, 3]),
        ("Bob always chooses aisle seats on long flights.", "preference", "Bob", 5, [5]),
        # Still in the first and second person: named as the rules name theirs.
        ("Alice (to Bob): I tested your alert rule this morning and it works.", "fact", "Alice", 6, [6]),
    ]
    assert all(m.meta["extractor"] == "model" and m.source.value == "ingest" for m in mems)
    assert report["duplicates"] == 1  # the decision restated in the second batch is not stored twice
    assert "Alice" in mems[4].fingerprint.entities and "Bob" in mems[4].fingerprint.entities
    # What ingest does after extraction still runs on the model's memories: the cause is linked.
    ids = {m.content: m.id for m in mems}
    cause = ids["Alice reported that the nightly backup on db-1 failed again because the disk filled up."]
    decision = ids["Because of the failed backup, Bob and Alice decided to add disk usage alerts on db-1."]
    assert (cause, decision, "because") in report["stored_links"]


@pytest.mark.parametrize("answer", ["prose", "unknown_turn", "bad_type", "other_shape"])
def test_an_unusable_answer_sends_that_batch_to_the_rules(tmp_path: Path, clock, server, caplog, answer: str) -> None:
    _, rules = ingest(tmp_path / "rules", clock)
    assert not _Replay.seen
    _Replay.script = [recorded(answer), recorded("batch2")]
    with caplog.at_level(logging.WARNING, logger="mnemo.judge_extract"):
        _, stored = ingest(tmp_path / "a", clock, **{"judge.url": server, "judge.extract_batch": BATCH})
    assert len(extraction_requests()) == 2
    assert any("turns 1-4 unusable" in r.getMessage() for r in caplog.records)
    # The first batch is exactly what the rules make of it, nothing of the answer kept ...
    assert by_turn(stored, range(4)) == by_turn(rules, range(4)) and by_turn(rules, range(4))
    assert not any("extractor" in m.meta for m in stored.values() if m.meta["turn"] < 4)
    # ... and the second batch is still the model's (its decision now new: the rules worded it otherwise).
    assert by_turn(stored, range(4, 8)) == [
        ("Alice (to Bob): I tested your alert rule this morning and it works.", "fact"),
        ("Because of the failed backup, Bob and Alice decided to add disk usage alerts on db-1.", "decision"),
        ("Bob always chooses aisle seats on long flights.", "preference"),
    ]


@pytest.mark.parametrize("failure", ["500", "timeout"])
def test_a_failing_endpoint_leaves_the_rules_in_charge(tmp_path: Path, clock, server, caplog, failure: str) -> None:
    _, rules = ingest(tmp_path / "rules", clock)
    error = json.dumps({"error": {"message": "model overloaded"}}).encode()
    _Replay.script = [(500, error, 0.0) if failure == "500" else (200, recorded("batch1")[1], 2.0), recorded("batch2")]
    with caplog.at_level(logging.WARNING, logger="mnemo"):
        _, stored = ingest(tmp_path / "a", clock, **{"judge.url": server, "judge.extract_batch": BATCH,
                                                      "judge.extract_timeout": 0.5})
    # After a failure the endpoint rests (HttpJudge.RETRY_AFTER): the second batch is not asked.
    assert len(extraction_requests()) == 1
    assert any("no answer" in r.getMessage() for r in caplog.records)
    assert by_turn(stored, range(8)) == by_turn(rules, range(8))
    assert not any("extractor" in m.meta for m in stored.values())


def test_without_a_url_or_with_extraction_off_nothing_is_asked(tmp_path: Path, clock, server) -> None:
    _, rules = ingest(tmp_path / "rules", clock)
    assert _Replay.seen == []
    _, off = ingest(tmp_path / "off", clock, **{"judge.url": server, "judge.extract": False})
    assert extraction_requests() == []
    assert by_turn(off, range(8)) == by_turn(rules, range(8))


def test_eval_extract_measures_the_model_path_when_the_url_is_in_the_environment(tmp_path: Path, server) -> None:
    """``scripts/eval_extract.py`` reads the settings as ingest does: ``MNEMO_JUDGE_URL`` (or
    ``[judge] url`` in the config) is enough to measure a model server on LoCoMo-format data."""
    import os
    import subprocess
    import sys

    _Replay.script = [recorded("locomo_answer")]
    env = {**os.environ, "MNEMO_JUDGE_URL": server, "PYTHONPATH": str(Path(__file__).parent.parent)}
    out = subprocess.run([sys.executable, "scripts/eval_extract.py", str(FIXTURES / "locomo_format.json"), "--json"],
                         cwd=Path(__file__).parent.parent, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    row = json.loads(out.stdout)["in_sample_pooled"]
    assert len(extraction_requests()) == 1
    assert (row["memories"], row["cited_kept"], row["uncited_kept"], row["named"]) == (2, 1.0, 0.0, 1.0)


@pytest.mark.parametrize("answer, reason", [
    ('{"memories": [{"turns": [], "type": "fact", "text": "Bob owns a boat."}]}', "non-empty list"),
    ('{"memories": [{"turns": [true], "type": "fact", "text": "Bob owns a boat."}]}', "non-empty list"),
    ('{"memories": [{"turns": ["2"], "type": "fact", "text": "Bob owns a boat."}]}', "non-empty list"),
    ('{"memories": [{"turns": [2], "type": "Fact", "text": "Bob owns a boat."}]}', "is not one of"),
    ('{"memories": [{"turns": [2], "type": "fact", "text": ""}]}', "text must be"),
    ('{"memories": [{"turns": [2], "type": "fact", "text": "' + "Bob owns a boat. " * 40 + '"}]}', "text must be"),
    ('{"memories": ["Bob owns a boat."]}', "not an object"),
    ('[{"turns": [2], "type": "fact", "text": "Bob owns a boat."}]', '"memories" list'),
    ('{"memories": [{"turns": [2], "type": "fact", "text": "Bob owns a boat."}]} and more', "not JSON"),
])
def test_parse_rejects_every_answer_not_of_the_shape_asked(answer: str, reason: str) -> None:
    from mnemo.judge_extract import Unusable, parse

    with pytest.raises(Unusable, match=reason):
        parse(answer, {1, 2, 3})


def test_parse_reads_a_fenced_answer_and_batches_respect_the_size() -> None:
    from mnemo.judge_extract import BATCH_CHARS, batches, parse
    from mnemo.models import MemoryType
    from mnemo.nlp.conversation import Turn

    fenced = '```json\n{"memories": [{"turns": [3, 2, 3], "type": "decision", "text": "Bob  chose   Postgres."}]}\n```'
    assert parse(fenced, {2, 3}) == [((2, 3), MemoryType.DECISION, "Bob chose Postgres.")]
    assert parse('{"memories": []}', {1}) == []
    turns = [Turn(i, "Bob", "word " * 500) for i in range(12)]  # 2,500 characters each
    sizes = [len(b) for b in batches(turns, 30)]
    assert sizes == [3, 3, 3, 3] and 3 * 2511 <= BATCH_CHARS < 4 * 2511  # text, name and the line's frame
    assert [len(b) for b in batches(turns[:5], 2)] == [2, 2, 1]
