"""The MCP bridge through the SDK's real client: `mnemo mcp` launched over stdio, talking to a
real daemon (started by the bridge itself) on a temporary home.

The hash embedder keeps the daemon's start-up short; recall quality is not what these tests
are about. Every daemon a test starts is stopped in the fixture's teardown.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.message import SessionMessage

from mnemo.client import RemoteMnemo
from mnemo.daemon.endpoint import pid_alive
from mnemo.daemon.process import stop_daemon
from mnemo.errors import DaemonError
from mnemo.lock import OwnerLock
from mnemo.mcp_bridge.link import DaemonLink, OperationUnavailable
from mnemo.mcp_bridge.tools import conversation_text

HEAVY = ("torch", "sentence_transformers", "transformers", "spacy", "chromadb")

# Runs the real CLI entry point (`mnemo mcp`), then reports on stderr which heavy packages the
# bridge process imported during the whole session.
PROBE = """
import json, sys
from mnemo.cli import main
try:
    main(["mcp"])
finally:
    loaded = sorted(m for m in HEAVY if m in sys.modules)
    sys.stderr.write("\\nLOADED=" + json.dumps(loaded) + "\\n")
""".replace("HEAVY", repr(HEAVY))

TOOLS = {
    "save_memory", "recall", "load_context", "get_memory", "update_memory", "observe_memory_usage",
    "forget_memory", "restore_memory", "pin_memory", "promote", "demote", "link_memories", "causal_chain",
    "review_queue", "gc", "dream", "stats", "read_note", "ingest_conversation",
}


def bridge_env(home: Path) -> dict[str, str]:
    # Scheduled jobs off: the tests drive everything themselves.
    jobs = {f"MNEMO_DAEMON_{j}_INTERVAL": "0" for j in ("PROMOTE", "GC", "ENRICH", "DASHBOARD", "DREAM")}
    return {"MNEMO_HOME": str(home), "MNEMO_EMBEDDING_MODEL": "hash-64", "HF_HUB_OFFLINE": "1",
            "PYTHONUNBUFFERED": "1", **jobs}


def daemon_pids(home: Path) -> list[int]:
    """Live `mnemo ... daemon run` processes serving ``home``."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        args = [a.decode(errors="replace") for a in argv]
        if "daemon" in args and "run" in args and str(home) in args and pid_alive(int(entry.name)):
            pids.append(int(entry.name))
    return pids


@pytest.fixture
def mcp_home(home: Path):
    """The test's home; every daemon serving it is stopped afterwards."""
    yield home
    if RemoteMnemo.connect(home) is not None:
        stop_daemon(home, timeout=30)
    for pid in daemon_pids(home):  # one that never became ready
        os.kill(pid, signal.SIGTERM)
        end = time.monotonic() + 10
        while pid_alive(pid) and time.monotonic() < end:
            time.sleep(0.05)
        if pid_alive(pid):
            os.kill(pid, signal.SIGKILL)


def params(home: Path, *args: str, probe: bool = False) -> StdioServerParameters:
    argv = ["-c", PROBE] if probe else ["-m", "mnemo", "mcp", *args]
    return StdioServerParameters(command=sys.executable, args=argv, env=bridge_env(home))


def data(result: types.CallToolResult) -> Any:
    """A successful tool result's structured content."""
    assert not result.is_error, result.content
    return result.structured_content


def error(result: types.CallToolResult) -> str:
    assert result.is_error, result.structured_content
    return " ".join(c.text for c in result.content if isinstance(c, types.TextContent))


class Recorder:
    """Wraps the client's read stream: every line the bridge wrote to stdout arrives here either
    as a parsed JSON-RPC message or, if it was not one, as an Exception (the SDK's stdio client
    turns each line into one of the two)."""

    def __init__(self, stream: Any) -> None:
        self.stream, self.messages, self.bad = stream, 0, []

    async def receive(self) -> Any:
        item = await self.stream.receive()
        if isinstance(item, Exception):
            self.bad.append(item)
        else:
            self.messages += 1
        return item

    def __aiter__(self) -> Recorder:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> Recorder:
        await self.stream.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> Any:
        return await self.stream.__aexit__(*exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


# -- 1. the whole tool surface through the SDK's stdio client ---------------------------------------
def test_session_over_stdio(mcp_home: Path, tmp_path: Path) -> None:
    errlog = (tmp_path / "bridge.stderr").open("w")

    async def session() -> None:
        async with stdio_client(params(mcp_home), errlog=errlog) as (read, write):
            rec = Recorder(read)
            async with ClientSession(rec, write) as s:
                init = await s.initialize()
                assert init.server_info.name == "mnemo"
                assert "recall" in (init.instructions or "")
                await check_session(s, tmp_path)
            assert rec.bad == [] and rec.messages > 20

    anyio.run(session)
    errlog.close()
    # The bridge is gone; the daemon it started keeps serving other clients.
    assert RemoteMnemo.connect(mcp_home) is not None
    # Logs went to MNEMO_HOME/mcp.log; only warnings would reach stderr.
    assert "started the daemon" in (mcp_home / "mcp.log").read_text()
    assert "save_memory" not in (tmp_path / "bridge.stderr").read_text()
    # An operation the daemon lacks is a clear error, never a crash.
    with pytest.raises(OperationUnavailable, match="does not provide the `no_such_op` operation"):
        DaemonLink(mcp_home).call("no_such_op")


async def check_session(s: ClientSession, tmp_path: Path) -> None:  # noqa: PLR0915 - one session, in order
    listed = {t.name: t for t in (await s.list_tools()).tools}
    assert set(listed) == TOOLS
    for t in listed.values():
        assert len(t.description or "") > 60, t.name  # the model reads these
        assert t.input_schema["type"] == "object" and t.annotations is not None
    save_schema = listed["save_memory"].input_schema
    assert save_schema["required"] == ["content"]
    assert "decision" in json.dumps(save_schema["properties"]["type"])
    assert listed["recall"].input_schema["properties"]["k"]["anyOf"][0]["type"] == "integer"
    assert listed["get_memory"].annotations.read_only_hint is True
    assert listed["forget_memory"].annotations.destructive_hint is True
    assert listed["restore_memory"].annotations.idempotent_hint is True
    assert listed["save_memory"].annotations.read_only_hint is False
    for dry in ("gc", "dream"):  # both are dry-run unless asked
        assert listed[dry].input_schema["properties"]["dry_run"]["default"] is True

    # save, recall, get
    pg = data(await s.call_tool("save_memory", {
        "content": "We decided to use Postgres for the billing service because we need JSONB and row locks.",
        "tags": ["database", "billing"], "type": "decision", "wing": "work", "source": "human"}))
    assert pg["type"] == "decision" and pg["created"] is True and pg["duplicate_of"] is None
    tea = data(await s.call_tool("save_memory", {"content": "The person prefers green tea over coffee in the afternoon.",
                                                 "tags": ["food"]}))
    hits = data(await s.call_tool("recall", {"query": "Postgres billing JSONB", "k": 5}))["hits"]
    assert hits and hits[0]["id"] == pg["id"] and "Postgres" in hits[0]["content"]
    assert data(await s.call_tool("recall", {"query": "Postgres billing", "since": "2999-01-01"}))["hits"] == []
    assert "ISO-8601" in error(await s.call_tool("recall", {"query": "Postgres", "since": "last tuesday"}))
    got = data(await s.call_tool("get_memory", {"memory_id": pg["id"]}))
    assert got["tags"] == ["database", "billing"] and got["wing"] == "work" and got["source"] == "human"
    assert data(await s.call_tool("get_memory", {"memory_id": pg["id"][:8]}))["id"] == pg["id"]  # a prefix works

    # observe: a use with cross-domain context
    before = got["use_count"]
    obs = data(await s.call_tool("observe_memory_usage", {"memory_ids": [pg["id"]], "context_tags": ["cooking"]}))
    assert obs["observed"][0]["id"] == pg["id"] and obs["observed"][0]["use_count"] == before + 1
    assert data(await s.call_tool("get_memory", {"memory_id": pg["id"]}))["use_count"] == before + 1

    # load_context: the composed block stays within its budget, and names the ids it shows
    from mnemo.nlp.tokens import count_tokens

    for budget in (60, 400):
        ctx = data(await s.call_tool("load_context", {"query": "which database for the billing service", "budget": budget}))
        assert ctx["context"] and count_tokens(ctx["context"]) <= budget and ctx["used"] <= budget
        assert pg["id"] in ctx["ids"] and pg["id"][:8] in ctx["context"]
    assert "budget" in error(await s.call_tool("load_context", {"query": "x", "budget": 10}))

    # a bad argument is a tool error, and the bridge carries on
    assert "k" in error(await s.call_tool("recall", {"query": "tea", "k": "many"}))
    assert "content" in error(await s.call_tool("save_memory", {"tags": ["x"]}))
    missing = error(await s.call_tool("get_memory", {"memory_id": "0000000000"}))
    assert "no memory with id" in missing and "Hint:" in missing
    assert data(await s.call_tool("get_memory", {"memory_id": tea["id"]}))["id"] == tea["id"]

    # update_memory edits in place; recall finds the new text
    upd = data(await s.call_tool("update_memory", {"memory_id": tea["id"], "content": "The person prefers jasmine tea in the afternoon.",
                                                   "tags": ["food", "tea"]}))
    assert upd["content"].startswith("The person prefers jasmine") and upd["tags"] == ["food", "tea"]
    assert data(await s.call_tool("recall", {"query": "jasmine", "touch": False}))["hits"][0]["id"] == tea["id"]
    assert "nothing to change" in error(await s.call_tool("update_memory", {"memory_id": tea["id"]}))

    # forget archives (recall no longer finds it), restore brings it back
    gone = data(await s.call_tool("forget_memory", {"memory_id": tea["id"]}))
    assert gone["status"] == "archived"
    assert tea["id"] not in [h["id"] for h in data(await s.call_tool("recall", {"query": "jasmine tea", "touch": False}))["hits"]]
    back = data(await s.call_tool("restore_memory", {"memory_id": tea["id"]}))
    assert back["status"] == "active"
    assert data(await s.call_tool("recall", {"query": "jasmine tea", "touch": False}))["hits"][0]["id"] == tea["id"]

    # pin: forget refuses a pinned memory, with a hint the model can follow
    assert data(await s.call_tool("pin_memory", {"memory_id": pg["id"]}))["pinned"] is True
    refused = error(await s.call_tool("forget_memory", {"memory_id": pg["id"]}))
    assert "pinned" in refused and "unpin" in refused
    assert data(await s.call_tool("pin_memory", {"memory_id": pg["id"], "pinned": False}))["pinned"] is False

    # links and the causal chain
    why = data(await s.call_tool("save_memory", {"content": "The billing service needs row-level locking for invoices.",
                                                 "type": "fact"}))
    assert data(await s.call_tool("link_memories", {"from_id": why["id"], "to_id": pg["id"], "relation": "because"}))["link"]
    chain = data(await s.call_tool("causal_chain", {"memory_id": pg["id"]}))
    assert why["id"] in [c["id"] for c in chain["causes"]]
    assert "relation" in error(await s.call_tool("link_memories", {"from_id": why["id"], "to_id": pg["id"], "relation": "likes"}))

    # lifecycle tools: dry-run by default
    plan = data(await s.call_tool("gc", {}))
    assert plan["dry_run"] is True
    assert isinstance(data(await s.call_tool("review_queue", {"limit": 5}))["queue"], list)
    dream = data(await s.call_tool("dream", {}))
    assert dream["dry_run"] is True and "planned" in dream

    # the vault tools say clearly that no vault is configured
    assert "vault" in error(await s.call_tool("read_note", {"path_or_title": "Memories/X.md"})).lower()
    assert "vault" in error(await s.call_tool("promote", {"memory_id": pg["id"]})).lower()

    # ingest: text only; a file name sent as the conversation is never read by the daemon
    secret = tmp_path / "private.json"
    secret.write_text(json.dumps([{"role": "user", "content": "We decided to use Kafka for the audit log because of replay."}]))
    leaked = data(await s.call_tool("ingest_conversation", {"conversation": str(secret), "dry_run": True}))
    assert "Kafka" not in json.dumps(leaked)
    turns = [{"role": "user", "content": "We decided to deploy the billing service on Fridays only, because of the freeze."},
             {"role": "assistant", "content": "Noted."}]
    planned = data(await s.call_tool("ingest_conversation", {"conversation": turns, "dry_run": True}))
    assert "Fridays" in json.dumps(planned)

    st = data(await s.call_tool("stats", {}))
    assert st["memories"] == 3 and st["daemon"]["started_by_this_bridge"] is True


def test_link_without_daemon(mcp_home: Path) -> None:
    """Without autostart the link says how to start the daemon."""
    link = DaemonLink(mcp_home, autostart=False)
    with pytest.raises(DaemonError, match="no mnemo daemon is running"):
        link.call("stats")
    assert conversation_text("/etc/passwd").endswith("\n")  # never a bare file name


# -- 2. two bridges started at once share one daemon -------------------------------------------------
def test_two_bridges_share_one_daemon(mcp_home: Path, tmp_path: Path) -> None:
    assert RemoteMnemo.connect(mcp_home) is None and daemon_pids(mcp_home) == []
    saved: dict[int, str] = {}
    seen: dict[int, set[str]] = {}
    pids: dict[int, int] = {}
    ready = [anyio.Event(), anyio.Event()]
    errlogs = [(tmp_path / f"bridge{i}.stderr").open("w") for i in range(2)]

    async def bridge(i: int) -> None:
        async with stdio_client(params(mcp_home), errlog=errlogs[i]) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            r = data(await s.call_tool("save_memory", {"content": f"Bridge {i} notes that service {'alpha' if i == 0 else 'omega'} runs on port 80{i}0."}))
            saved[i] = r["id"]
            ready[i].set()
            await ready[1 - i].wait()  # both saved before either looks
            hits = data(await s.call_tool("recall", {"query": "service runs on port", "k": 5, "touch": False}))["hits"]
            seen[i] = {h["id"] for h in hits}
            pids[i] = data(await s.call_tool("stats", {}))["daemon"]["pid"]

    async def both() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(bridge, 0)
            tg.start_soon(bridge, 1)

    anyio.run(both)
    assert seen[0] >= {saved[0], saved[1]} and seen[1] >= {saved[0], saved[1]}
    assert pids[0] == pids[1]
    assert daemon_pids(mcp_home) == [pids[0]]  # one owner, whoever won the race to start it
    assert OwnerLock(mcp_home).holder()["pid"] == pids[0]


# -- 3. stdout carries nothing but the protocol; the bridge never loads the model stack --------------
def test_stdout_is_only_protocol(mcp_home: Path, vault: Path, tmp_path: Path) -> None:
    """A whole session (with a vault this time) through a transport that reads the bridge's
    stdout line by line and parses each line on its own."""
    (vault / "Ideas.md").write_text("# Ideas\n\nA garden of small scripts, tended weekly.\n")
    (tmp_path / "outside.md").write_text("# Outside\n\nsecret-outside-the-vault\n")
    lines: list[str] = []
    stderr = b""

    async def session() -> None:
        nonlocal stderr
        proc = await anyio.open_process([sys.executable, "-c", PROBE],
                                        env={**os.environ, **bridge_env(mcp_home), "MNEMO_VAULT": str(vault)})
        to_client, client_read = anyio.create_memory_object_stream[SessionMessage | Exception](100)
        client_write, to_server = anyio.create_memory_object_stream[SessionMessage](100)

        async def pump_out() -> None:
            buf = b""
            async for chunk in proc.stdout:
                buf += chunk
                *complete, buf = buf.split(b"\n")
                for raw in complete:
                    line = raw.decode("utf-8")
                    lines.append(line)
                    # Each line must be exactly one JSON-RPC message.
                    await to_client.send(SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False)))
            lines.extend([buf.decode()] if buf else [])
            await to_client.aclose()

        async def pump_in() -> None:
            async for msg in to_server:
                await proc.stdin.send((msg.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n").encode())
            await proc.stdin.aclose()

        async def drain_err() -> None:
            nonlocal stderr
            async for chunk in proc.stderr:
                stderr += chunk

        async with anyio.create_task_group() as tg:
            tg.start_soon(pump_out)
            tg.start_soon(pump_in)
            tg.start_soon(drain_err)
            async with ClientSession(client_read, client_write) as s:
                await s.initialize()
                await s.list_tools()
                # the first call waits for the daemon this bridge starts: its output must not leak
                m = data(await s.call_tool("save_memory", {"content": "Staging runs on Debian 12 since March."}))
                error(await s.call_tool("get_memory", {"memory_id": "zzzzzzzz"}))
                error(await s.call_tool("recall", {"query": ""}))
                # read_note stays inside the vault
                assert "garden of small scripts" in data(await s.call_tool("read_note", {"path_or_title": "Ideas.md"}))["body"]
                for escape in ("../outside.md", str(tmp_path / "outside.md"), "../../etc/passwd"):
                    refused = error(await s.call_tool("read_note", {"path_or_title": escape}))
                    assert "the vault" in refused and "secret-outside" not in refused
                data(await s.call_tool("recall", {"query": "staging Debian"}))
                data(await s.call_tool("observe_memory_usage", {"memory_ids": [m["id"]]}))
                data(await s.call_tool("gc", {}))
                first = data(await s.call_tool("stats", {}))["daemon"]["pid"]
                # the daemon goes away mid-session: the next call starts a new one and goes on
                await anyio.to_thread.run_sync(lambda: stop_daemon(mcp_home, timeout=30))
                again = data(await s.call_tool("get_memory", {"memory_id": m["id"]}))
                assert again["content"] == "Staging runs on Debian 12 since March."
                assert data(await s.call_tool("stats", {}))["daemon"]["pid"] not in (first, None)
            await client_write.aclose()
            with anyio.fail_after(20):
                await proc.wait()

    anyio.run(session)
    assert len(lines) >= 10
    for line in lines:  # every line the bridge wrote, parsed again on its own
        msg = json.loads(line)
        assert msg["jsonrpc"] == "2.0" and ("id" in msg or "method" in msg)
    loaded = re.search(r"LOADED=(\[.*\])", stderr.decode())
    assert loaded, stderr.decode()[-2000:]
    assert json.loads(loaded.group(1)) == []  # no torch, sentence-transformers, spaCy or chromadb
    assert not any("secret-outside" in line for line in lines)
    assert "bridge starting" in (mcp_home / "mcp.log").read_text()
