"""Chat exports in (``mnemo ingest --from chatgpt|claude``): hand-written exports in
``tests/exports/`` built from the documented schemas (ChatGPT's message tree with an edit
branch, a tool call, hidden context, an image attachment and empty parts; Claude's
``chat_messages`` with content blocks, thinking and tool blocks, attachments, an empty message
and an edit branch), each ingested for real (spaCy, SQLite, Chroma; the hash embedder).

What is checked: the sessions (one per conversation, the export's id), the speakers, the
timestamps and the titles; the branch the person kept and nothing else; a second run adds
nothing; a run killed half way (SIGKILL at a write, ``mnemo/faults.py``) and run again ends with
each conversation once; malformed entries are skipped and counted with a reason."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections import Counter
from pathlib import Path

import pytest

from mnemo import faults
from mnemo.clock import parse_time
from mnemo.errors import InvalidInput
from mnemo.sources import Conversation, names, reader
from mnemo.sources.run import ingest_export

from .conftest import ROOT, invoke_main

EXPORTS = Path(__file__).parent / "exports"
GPT = EXPORTS / "chatgpt_conversations.json"
CLAUDE = EXPORTS / "claude_conversations.json"
LISBON, INVOICE = "6a1f0c2e-0001-4000-8000-000000000001", "6a1f0c2e-0002-4000-8000-000000000002"
GARDEN, TALK = "0b7e4d1a-1111-4c2b-9a51-5d0c1a000001", "0b7e4d1a-2222-4c2b-9a51-5d0c1a000002"


def _memories(engine) -> list:  # noqa: ANN001
    return engine.list(limit=None)


def _by_session(engine) -> dict[str, list]:  # noqa: ANN001
    out: dict[str, list] = {}
    for m in sorted(_memories(engine), key=lambda m: (m.created_at, m.meta.get("part", 0))):
        out.setdefault(m.session_id, []).append(m)
    return out


def test_registry_names_the_formats_and_refuses_others() -> None:
    assert {"chatgpt", "claude"} <= set(names())
    with pytest.raises(InvalidInput, match="unknown export format"):
        reader("myspace")


def test_chatgpt_reader_follows_the_kept_branch() -> None:
    got = list(reader("chatgpt")(GPT, None))
    convs = [c for c in got if isinstance(c, Conversation)]
    lisbon = convs[0]
    assert lisbon.id == LISBON and lisbon.title == "Lisbon trip"
    # System, hidden custom instructions, the tool call, the tool's output and the empty parts
    # are gone; of the edited message, only the version on current_node's branch is kept.
    assert [(m.role, m.text) for m in lisbon.messages] == [
        ("user", "I am planning a trip to Lisbon with Tomas in May. I prefer small family-run hotels over big hotel chains."),
        ("assistant", "Lisbon in May is lovely. Alfama and Principe Real both have small guesthouses."),
        ("user", "We decided to stay in Alfama because Tomas wants to hear fado every night."),
        ("assistant", "Tasca do Chico in Alfama has fado most nights."),
    ]
    assert [m.timestamp for m in lisbon.messages] == [1772442060.0, 1772442075.0, 1772442300.0, 1772449500.5]
    assert lisbon.meta["attachments"] == ["alfama-map.png"]
    assert (lisbon.created_at, lisbon.updated_at) == (1772442000.0, 1772449500.5)
    # Without current_node the newest children are followed: the same edit wins.
    raw = json.loads(GPT.read_text())[0]
    raw["current_node"] = None
    from mnemo.sources.chatgpt import parse

    assert [m.text for m in parse(raw).messages][2].startswith("We decided to stay in Alfama")


def test_claude_reader_text_blocks_and_branch() -> None:
    got = list(reader("claude")(CLAUDE, None))
    convs = [c for c in got if isinstance(c, Conversation)]
    garden, talk = convs
    assert garden.title == "Garden watering plan" and garden.created_at == parse_time("2026-03-05T08:00:00Z")
    assert [(m.role, m.text) for m in garden.messages] == [
        ("user", "I decided to water the tomato beds with drip irrigation because the hose wastes water."),
        ("assistant", "Drip irrigation suits tomatoes well; water early in the morning."),  # thinking and tools dropped
        ("user", "My neighbour Ingrid lends us her rain barrel every summer."),  # the empty message is gone
    ]
    assert garden.meta["attachments"] == ["garden-layout.txt", "garden-photo.jpg"]
    assert [m.text for m in talk.messages if m.role == "user"] == [
        "My talk at PyCon Berlin is about streaming JSON parsers.",
        "We decided to present the demo in Python because the audience knows Python.",
    ]
    skipped = [s for s in got if not isinstance(s, Conversation)]
    assert [s.reason for s in skipped] == ["no chat_messages list", "expected an object, got str"]


def test_chatgpt_export_ingested_as_sessions(engine) -> None:  # noqa: ANN001
    r = ingest_export(engine, "chatgpt", GPT, me="Alice")
    assert (r["conversations"], r["ingested"], r["empty"], r["malformed"]) == (3, 2, 1, 1)
    assert r["malformed_reasons"] == [{"where": "conversation 3 (6a1f0c2e-0003-4000-8000-000000000003)",
                                       "reason": "no message tree (mapping)"}]
    sessions = _by_session(engine)
    assert set(sessions) == {LISBON, INVOICE}
    lisbon = sessions[LISBON]
    assert {m.meta["conversation_title"] for m in lisbon} == {"Lisbon trip"}
    assert {m.meta["export"] for m in lisbon} == {"chatgpt"}
    assert all(m.meta["attachments"] == ["alfama-map.png"] for m in lisbon)  # files by name, not content
    assert all("attachments" not in m.meta for m in sessions[INVOICE])
    assert {m.meta["speaker"] for m in lisbon} == {"Alice", "assistant"}
    # Each memory keeps its message's time; the person's first-person words carry their name.
    times = {1772442060.0, 1772442075.0, 1772442300.0, 1772449500.5}
    assert {m.created_at for m in lisbon} <= times
    fado = next(m for m in lisbon if "fado every night" in m.content)
    assert fado.created_at == 1772442300.0 and fado.meta["speaker"] == "Alice"
    hotels = next(m for m in lisbon if "family-run hotels" in m.content)
    assert hotels.content.startswith("Alice: I prefer") and hotels.type.value == "preference"
    text = " ".join(m.content for m in _memories(engine))
    for gone in ("Baixa", "Be brief", "Berlin", "Clube de Fado", "search(", "\u3010"):
        assert gone not in text
    assert {m.meta["conversation_title"] for m in sessions[INVOICE]} == {"Invoice service database"}
    assert all(m.source.value == "ingest" for m in _memories(engine))


def test_claude_export_ingested_as_sessions(engine) -> None:  # noqa: ANN001
    r = ingest_export(engine, "claude", CLAUDE)
    assert (r["conversations"], r["ingested"], r["malformed"]) == (2, 2, 2)
    sessions = _by_session(engine)
    assert set(sessions) == {GARDEN, TALK}
    garden = sessions[GARDEN]
    assert {m.meta["conversation_title"] for m in garden} == {"Garden watering plan"}
    assert {m.meta["speaker"] for m in garden} <= {"user", "assistant"}
    drip = next(m for m in garden if "drip irrigation because" in m.content)
    assert drip.created_at == parse_time("2026-03-05T08:00:00Z") and drip.meta["speaker"] == "user"
    ingrid = next(m for m in garden if "Ingrid" in m.content)
    assert ingrid.created_at == parse_time("2026-03-05T08:20:00Z")
    text = " ".join(m.content for m in _memories(engine))
    for gone in ("shed key", "30 percent", "wants a watering plan", "Rust"):
        assert gone not in text
    assert any("demo in Python" in m.content for m in sessions[TALK])


def test_second_run_adds_nothing(engine) -> None:  # noqa: ANN001
    first = ingest_export(engine, "claude", CLAUDE)
    before = sorted((m.id, m.content) for m in _memories(engine))
    second = ingest_export(engine, "claude", CLAUDE)
    assert first["kept"] > 0
    assert (second["already_ingested"], second["ingested"], second["kept"]) == (2, 0, 0)
    assert sorted((m.id, m.content) for m in _memories(engine)) == before


def test_a_conversation_that_went_on_adds_only_its_new_turns(engine, tmp_path: Path) -> None:  # noqa: ANN001
    ingest_export(engine, "claude", CLAUDE)
    before = Counter(m.content for m in _memories(engine))
    data = json.loads(CLAUDE.read_text())
    data[0]["updated_at"] = "2026-03-08T10:00:00Z"
    data[0]["chat_messages"].append({"uuid": "g5", "sender": "human", "created_at": "2026-03-08T10:00:00Z",
                                     "text": "We decided to buy a second rain barrel for the greenhouse."})
    later = tmp_path / "conversations.json"
    later.write_text(json.dumps(data))
    r = ingest_export(engine, "claude", later)
    assert r["ingested"] == 1 and r["already_ingested"] == 1
    after = Counter(m.content for m in _memories(engine))
    assert after - before == Counter({"We decided to buy a second rain barrel for the greenhouse.": 1})
    assert all(n == 1 for n in after.values())


def test_zip_as_downloaded_since_and_dry_run(engine, tmp_path: Path) -> None:  # noqa: ANN001
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("user.json", "{}")
        zf.write(GPT, "conversations.json")
    dry = ingest_export(engine, "chatgpt", archive, dry_run=True)
    assert dry["dry_run"] and dry["ingested"] == 2 and dry["kept"] > 0
    assert _memories(engine) == []  # nothing stored, nothing journaled
    r = ingest_export(engine, "chatgpt", archive, since=parse_time("2026-03-03"))
    assert (r["ingested"], r["before_since"], r["empty"]) == (1, 1, 1)
    assert set(_by_session(engine)) == {INVOICE}


def test_truncated_export_keeps_what_came_before(engine, tmp_path: Path) -> None:  # noqa: ANN001
    text = GPT.read_text()
    cut = tmp_path / "conversations.json"
    cut.write_text(text[: text.index('"title": "Broken entry"')])
    r = ingest_export(engine, "chatgpt", cut)
    assert r["ingested"] == 2 and r["malformed"] == 1
    assert "the rest of the file was not read" in r["malformed_reasons"][0]["reason"]
    assert set(_by_session(engine)) == {LISBON, INVOICE}


def test_cli_reports_and_refuses_cleanly(capsys, home: Path, tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setenv("MNEMO_EMBEDDING_MODEL", "hash-64")
    code, out, err = invoke_main(capsys, "ingest", "--from", "claude", str(CLAUDE), "--me", "Sam", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["ingested"] == 2 and data["malformed"] == 2
    assert {s["title"] for s in data["sessions"]} == {"Garden watering plan", "Conference talk"}
    code, out, err = invoke_main(capsys, "ingest", "--from", "claude", str(CLAUDE))
    assert code == 0 and "2 already ingested" in out and "2 malformed" in out
    wrong = tmp_path / "notes.json"
    wrong.write_text('{"hello": "world"}')
    code, out, err = invoke_main(capsys, "ingest", "--from", "chatgpt", str(wrong))
    assert code == 1 and out == "" and "expected a JSON list of conversations" in err and "Traceback" not in err
    code, out, err = invoke_main(capsys, "ingest", "--from", "chatgpt", str(tmp_path / "missing.zip"))
    assert code == 1 and "no such file" in err
    bad_zip = tmp_path / "export.zip"
    with zipfile.ZipFile(bad_zip, "w") as zf:
        zf.writestr("chat.html", "<html></html>")
    code, out, err = invoke_main(capsys, "ingest", "--from", "chatgpt", str(bad_zip))
    assert code == 1 and "holds no conversations.json" in err
    code, out, err = invoke_main(capsys, "ingest", "--from", "myspace", str(CLAUDE))
    assert code == 2
    code, out, err = invoke_main(capsys, "ingest", str(CLAUDE), "--me", "Sam")
    assert code == 2 and "--from" in err


def test_over_the_daemon(home: Path) -> None:
    """The same run through a real daemon's API (the conversations travel as JSON)."""
    from mnemo.client import RemoteMnemo
    from mnemo.clock import Clock
    from mnemo.config import load_settings
    from mnemo.daemon.server import Daemon

    from .conftest import T0

    jobs = {f"daemon.{j}_interval": 0 for j in ("activity", "promote", "gc", "enrich", "dashboard", "dream")}
    d = Daemon(load_settings(home=home, overrides={"embedding.model": "hash-64", **jobs}), clock=Clock(T0, running=True))
    d.open()
    d.start_threads()
    try:
        client = RemoteMnemo.connect(d.home)
        assert client is not None
        r = ingest_export(client, "chatgpt", GPT, me="Alice")
        assert r["ingested"] == 2 and r["malformed"] == 1
        again = ingest_export(client, "chatgpt", GPT, me="Alice")
        assert again["already_ingested"] == 3 and again["kept"] == 0
        sessions = {m.session_id for m in client.list(limit=None)}
        assert sessions == {LISBON, INVOICE}
    finally:
        d.request_stop("test over")
        d.shutdown()


def _state(home: Path) -> tuple[dict[str, Counter], set[str]]:
    """What is durable in a home: each session's memory contents, and the journaled ids."""
    import sqlite3

    if not (home / "mnemo.db").exists():
        return {}, set()
    db = sqlite3.connect(f"file:{home / 'mnemo.db'}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT session_id, content FROM memories").fetchall()
        done = {k.rsplit(".", 1)[-1] for (k,) in db.execute("SELECT key FROM kv WHERE key LIKE 'history.%'")}
    finally:
        db.close()
    out: dict[str, Counter] = {}
    for sid, content in rows:
        out.setdefault(sid, Counter())[content] += 1
    return out, done


def _cli(home: Path, *args: str, kill_at: int | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMO_")}
    env.update(MNEMO_HOME=str(home), MNEMO_EMBEDDING_MODEL="hash-64", MNEMO_NOW=NOW, HF_HUB_OFFLINE="1", PYTHONPATH=str(ROOT))
    if kill_at is not None:
        env[faults.ENV] = str(kill_at)
    return subprocess.run([sys.executable, "-m", "mnemo", *args], capture_output=True, text=True, env=env, timeout=300,
                          cwd=ROOT)


NOW = "2026-03-10T09:00:00Z"


def _four_conversations(path: Path) -> None:
    """One ChatGPT export holding both fixtures' conversations (Claude's turned into trees)."""
    from mnemo.sources.claude import parse as claude_parse

    out = json.loads(GPT.read_text())[:2]
    for raw in json.loads(CLAUDE.read_text())[:2]:
        conv = claude_parse(raw)
        mapping: dict = {"r": {"id": "r", "message": None, "parent": None, "children": []}}
        prev = "r"
        for i, m in enumerate(conv.messages):
            nid = f"{conv.id}-{i}"
            mapping[nid] = {"id": nid, "parent": prev, "children": [], "message": {
                "author": {"role": m.role}, "create_time": m.timestamp, "recipient": "all",
                "content": {"content_type": "text", "parts": [m.text]}, "metadata": {}}}
            mapping[prev]["children"].append(nid)
            prev = nid
        out.append({"id": conv.id, "title": conv.title, "create_time": conv.created_at,
                    "update_time": conv.updated_at, "mapping": mapping, "current_node": prev})
    path.write_text(json.dumps(out))


def test_killed_half_way_and_run_again_ends_with_each_conversation_once(tmp_path: Path, capsys, monkeypatch) -> None:  # noqa: ANN001
    """A real ``kill -9`` (SIGKILL from the fault hook, ``mnemo/faults.py``) in the middle of
    an export's ingest, then the same command again: the store ends as a clean run's, each
    conversation once and marked done.

    The kill points are chosen where it hurts: the clean run is made in-process through the
    real CLI entry with every durable write counted, and the state before each write noted; a
    kill lands at a write before which some conversation's memories are stored but the
    conversation is not yet marked done."""
    export = tmp_path / "conversations.json"
    _four_conversations(export)
    clean = tmp_path / "clean"
    monkeypatch.setenv("MNEMO_HOME", str(clean))
    monkeypatch.setenv("MNEMO_EMBEDDING_MODEL", "hash-64")
    monkeypatch.setenv("MNEMO_NOW", NOW)
    before_write: list[tuple[dict[str, Counter], set[str]]] = []
    monkeypatch.setattr(faults, "point", lambda: before_write.append(_state(clean)))
    code, out, _ = invoke_main(capsys, "ingest", "--from", "chatgpt", str(export), "--json")
    monkeypatch.undo()
    assert code == 0 and json.loads(out)["ingested"] == 4
    want, done = _state(clean)
    assert len(want) == 4 and len(done) == 4

    # Write n (1-based) is the kill point; what is durable then is the state before it.
    torn = [n for n, (mems, marked) in enumerate(before_write, start=1) if set(mems) - marked and mems != want]
    assert len(torn) >= 4
    for kill_at in (torn[len(torn) // 2],):  # one trial: each costs two CLI processes
        home = tmp_path / f"killed-{kill_at}"
        killed = _cli(home, "ingest", "--from", "chatgpt", str(export), "--json", kill_at=kill_at)
        assert killed.returncode == -9, killed.stderr
        mems, marked = _state(home)
        assert set(mems) - marked  # stored, not marked done: the case a rerun must not double
        again = _cli(home, "ingest", "--from", "chatgpt", str(export), "--json")
        assert again.returncode == 0, again.stderr
        assert _state(home) == (want, done)
        rerun = json.loads(again.stdout)
        assert rerun["already_ingested"] == len(marked) and rerun["ingested"] == 4 - len(marked)
        shutil.rmtree(home)


def test_reader_streams_a_large_export(tmp_path: Path) -> None:
    """A ~12 MB export is read with flat memory: the parser holds one conversation at a time."""
    import tracemalloc

    one = json.loads(GPT.read_text())[1]
    big = tmp_path / "conversations.json"
    with big.open("w") as fh:
        fh.write("[")
        for i in range(1200):
            fh.write(("," if i else "") + json.dumps({**one, "id": f"conv-{i}", "title": f"Chat {i}" + " padding" * 1100}))
        fh.write("]")
    assert big.stat().st_size > 10_000_000
    positions: list[tuple[int, int]] = []
    tracemalloc.start()
    try:
        count = sum(1 for c in reader("chatgpt")(big, lambda done, size: positions.append((done, size)))
                    if isinstance(c, Conversation))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 1200
    assert peak < 2_000_000, peak  # a fraction of the file's size
    assert positions[-1] == (big.stat().st_size, big.stat().st_size)
    assert [d for d, _ in positions] == sorted(d for d, _ in positions)


def test_progress_bar_on_a_terminal_only(capsys, home: Path, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setenv("MNEMO_EMBEDDING_MODEL", "hash-64")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code, out, err = invoke_main(capsys, "ingest", "--from", "claude", str(CLAUDE), "--dry-run")
    assert code == 0 and "ingesting" in err and "conversations," in err and "/s" in err
    assert "would ingest 2" in out
    code, out, err = invoke_main(capsys, "ingest", "--from", "claude", str(CLAUDE), "--dry-run", "--json")
    assert code == 0 and err == "" and json.loads(out)["dry_run"] is True


def test_a_registered_reader_and_a_conversation_ingest_refuses(engine, monkeypatch) -> None:  # noqa: ANN001
    """Another format plugs in through the registry; a conversation the ingest refuses is
    skipped and counted with the reason, and the run goes on."""
    from mnemo import sources
    from mnemo.sources import Message, Skipped, register

    def read(path: Path, seen=None):  # noqa: ANN001, ANN202
        yield Conversation("blank-1", "Blank", (Message("user", "   \n  "),))
        yield Skipped("line 3", "not a transcript")
        yield Conversation("ok-1", "Fine", (Message("user", "We decided to ship the beta on Friday because QA signed off."),))

    monkeypatch.setitem(sources.READERS, "test-format", read)
    assert "test-format" in names()
    r = ingest_export(engine, "test-format", GPT)
    assert (r["ingested"], r["malformed"]) == (1, 2)
    assert r["malformed_reasons"][0]["where"] == "conversation blank-1"
    assert "no conversation turns" in r["malformed_reasons"][0]["reason"]
    assert {m.session_id for m in _memories(engine)} == {"ok-1"}
    with pytest.raises(InvalidInput, match="--me"):
        ingest_export(engine, "test-format", GPT, me="x" * 61)
    register("test-format-2", "mnemo.sources.claude:read")  # by name: imported on first use
    from mnemo.sources import claude

    assert reader("test-format-2") is claude.read
    monkeypatch.delitem(sources.READERS, "test-format-2")
