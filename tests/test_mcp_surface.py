"""MCP beyond the tools: resources (with templates), prompts, structured tool output, and the
streamable-HTTP transport guarded by the daemon's token, all through the SDK's own client
against the real ``mnemo mcp`` process and a real daemon (the hash embedder: quality is not
the point here).

One session script runs over both transports, so stdio and HTTP are shown to serve the same
thing."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from mnemo.daemon.endpoint import read_endpoint

from .conftest import ROOT
from .test_mcp import bridge_env, data, mcp_home, params  # noqa: F401 - mcp_home is a fixture

NOTE = "Projects/Billing.md"


def _vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    (vault / "Projects").mkdir(parents=True)
    (vault / NOTE).write_text("---\ntags: [billing]\n---\n# Billing\n\nThe billing service moved to Postgres in March.\n")
    return vault


def _env(home: Path) -> dict[str, str]:
    return {**bridge_env(home), "PYTHONPATH": str(ROOT)}


def _text(result: types.ReadResourceResult) -> str:
    (content,) = result.contents
    assert isinstance(content, types.TextResourceContents)
    return content.text


async def check_surface(s: ClientSession) -> None:
    """resources/list, templates, reads, prompts/list and prompts/get, structured tool output."""
    await s.initialize()
    saved = await s.call_tool("save_memory", {"content": "We decided to keep invoices in Postgres because of row locks.",
                                              "type": "decision", "tags": ["billing"], "source": "human"})
    # Structured output is kept: the result carries the JSON object, not only text.
    pg = data(saved)
    assert isinstance(pg, dict) and pg["type"] == "decision" and pg["id"]
    hits = data(await s.call_tool("recall", {"query": "invoices Postgres", "session_id": "s-1", "k": 3}))["hits"]
    assert hits[0]["id"] == pg["id"]

    listed = {str(r.uri): r for r in (await s.list_resources()).resources}
    assert set(listed) == {"mnemo://stats", "mnemo://review"}
    assert all(r.description and r.mime_type == "application/json" for r in listed.values())
    templates = {t.uri_template: t for t in (await s.list_resource_templates()).resource_templates}
    assert set(templates) == {"mnemo://memory/{memory_id}", "mnemo://note/{+path}"}
    assert templates["mnemo://note/{+path}"].mime_type == "text/markdown"

    stats = json.loads(_text(await s.read_resource("mnemo://stats")))
    assert stats["memories"] == 1 and stats["by_type"] == {"decision": 1}
    assert json.loads(_text(await s.read_resource("mnemo://review"))) == {"queue": []}
    memory = json.loads(_text(await s.read_resource(f"mnemo://memory/{pg['id']}")))
    assert memory["id"] == pg["id"] and memory["content"].startswith("We decided to keep invoices")
    assert memory["use_count"] == 1  # the recall's use; reading the resource is not one
    note = _text(await s.read_resource("mnemo://note/Projects/Billing.md"))
    assert note.startswith("---\ntags:") and "moved to Postgres in March" in note
    with pytest.raises(Exception, match="no memory|not found|No memory"):
        await s.read_resource("mnemo://memory/does-not-exist")
    with pytest.raises(Exception):  # noqa: B017 - leaving the vault is refused (by the SDK or the daemon)
        await s.read_resource("mnemo://note/../secrets.md")

    prompts = {p.name: p for p in (await s.list_prompts()).prompts}
    assert set(prompts) == {"start_session", "close_session"}
    assert [a.name for a in prompts["start_session"].arguments or []] == ["topic", "session_id"]
    assert (prompts["start_session"].arguments or [])[0].required is True
    start = await s.get_prompt("start_session", {"topic": "invoices storage", "session_id": "s-1"})
    (msg,) = start.messages
    assert msg.role == "user" and isinstance(msg.content, types.TextContent)
    assert "We decided to keep invoices in Postgres" in msg.content.text and pg["id"][:8] in msg.content.text
    close = await s.get_prompt("close_session", {"session_id": "s-1", "decisions": "- move invoices to EU region"})
    text = close.messages[0].content.text  # type: ignore[union-attr]
    assert "save_memory" in text and "observe_memory_usage" in text
    assert "move invoices to EU region" in text and pg["id"] in text  # recalled in s-1: a candidate


def test_resources_prompts_over_stdio(mcp_home: Path, tmp_path: Path) -> None:  # noqa: F811
    vault = _vault(tmp_path)

    async def session() -> None:
        p = params(mcp_home, "--vault", str(vault))
        p = p.model_copy(update={"cwd": str(ROOT), "env": _env(mcp_home)})  # this tree's mnemo, wherever the suite stands
        async with stdio_client(p, errlog=(tmp_path / "stderr").open("w")) as (read, write), ClientSession(read, write) as s:
            await check_surface(s)

    anyio.run(session)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _listening_addresses(port: int) -> set[str]:
    """Local addresses with a listening TCP socket on ``port`` (from /proc/net/tcp{,6})."""
    found = set()
    for name in ("tcp", "tcp6"):
        path = Path("/proc/net") / name
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            addr, hexport = local.rsplit(":", 1)
            if int(hexport, 16) == port and state == "0A":  # LISTEN
                found.add(addr)
    return found


@pytest.fixture
def http_bridge(mcp_home: Path, tmp_path: Path):  # noqa: F811
    port = _free_port()
    vault = _vault(tmp_path)
    env = _env(mcp_home)
    stderr = (tmp_path / "http.stderr").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "mnemo", "mcp", "--vault", str(vault), "--http", "--port", str(port)],
                            env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=stderr)
    try:
        end = time.monotonic() + 120
        while True:  # ready when the port answers (the daemon is started first)
            assert proc.poll() is None, (tmp_path / "http.stderr").read_text()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < end, "the HTTP bridge did not start"
                time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        stderr.close()


def test_streamable_http_with_the_daemon_token_and_refused_without(http_bridge: int, mcp_home: Path) -> None:  # noqa: F811
    port = http_bridge
    url = f"http://127.0.0.1:{port}/mcp"
    assert _listening_addresses(port) == {"0100007F"}  # 127.0.0.1 only
    ep = read_endpoint(mcp_home)
    assert ep is not None
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    for auth in ({}, {"Authorization": "Bearer not-the-token"}, {"Authorization": f"Basic {ep.token}"}):
        r = httpx2.post(url, json=init, headers={**headers, **auth}, timeout=30)
        assert r.status_code == 401, (auth, r.status_code, r.text)
        assert "jsonrpc" not in r.text or "result" not in r.json()

    async def session(token: str) -> None:
        client = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        async with streamable_http_client(url, http_client=client) as (read, write), ClientSession(read, write) as s:
            await check_surface(s)

    anyio.run(session, ep.token)

    async def refused() -> Any:
        client = create_mcp_http_client(headers={"Authorization": "Bearer wrong"})
        async with streamable_http_client(url, http_client=client) as (read, write), ClientSession(read, write) as s:
            await s.initialize()

    with pytest.raises(BaseException):  # noqa: B017 - the SDK client fails on the 401 (wrapped in a task group)
        anyio.run(refused)
