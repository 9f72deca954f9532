"""The bridge process: an MCPServer over stdio whose tools forward to the daemon.

Start-up order matters for a client waiting on ``initialize``: logging goes to a file first
(stdout carries only the protocol), the daemon is found or started on a background thread, and
the SDK is imported and serving as soon as possible. Nothing here imports the model stack.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import __version__
from .link import DaemonLink

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from ..config import Settings

log = logging.getLogger("mnemo.mcp")

LOG_NAME = "mcp.log"

INSTRUCTIONS = """\
mnemo is the person's long-term memory, shared across conversations and beside their Obsidian vault.
- Before answering anything that may depend on their past decisions, preferences, projects or earlier
  conversations, call recall (or load_context once at the start of a task).
- After answering, call observe_memory_usage with the ids of the memories you actually used: that is
  how useful memories persist and unused ones fade.
- Save decisions (with the reason), preferences, durable facts and lessons with save_memory, one idea
  per memory, self-contained. If a memory is outdated, update_memory it; if it is wrong, forget_memory it.
- gc and dream are dry-run by default; apply them only when the person asks.
"""


def configure_logging(home: Path, level: int = logging.INFO) -> Path:
    """Everything to ``MNEMO_HOME/mcp.log``; warnings also to stderr, which MCP clients keep
    in their own logs. Handlers sit on the root logger, so the SDK's loggers land in the file
    too (and the SDK's own logging set-up, which only runs when the root has no handlers,
    leaves ours alone)."""
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = home / LOG_NAME
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))
    fmt = logging.Formatter(f"%(asctime)s %(levelname)s [{os.getpid()}] %(name)s: %(message)s")
    root = logging.getLogger()
    for h in list(root.handlers):
        root.removeHandler(h)
    fh = RotatingFileHandler(path, maxBytes=2_000_000, backupCount=2, encoding="utf-8")
    fh.setFormatter(fmt)
    root.addHandler(fh)
    err = logging.StreamHandler(sys.stderr)
    err.setLevel(logging.WARNING)
    err.setFormatter(logging.Formatter("mnemo mcp: %(levelname)s %(message)s"))
    root.addHandler(err)
    root.setLevel(level)
    # The SDK logs every request at INFO; keep its warnings and errors only (MNEMO_DEBUG=1: all).
    logging.getLogger("mcp").setLevel(logging.DEBUG if os.environ.get("MNEMO_DEBUG") == "1" else logging.WARNING)
    return path


def argument_errors(tool: str, exc: Any) -> str:
    """A pydantic ``ValidationError`` of a tool's arguments as one clean line the model can act on
    (the SDK's text is pydantic's, with a documentation URL and the rejected values)."""
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err.get("loc", ())) or "arguments"
        msg = "required" if err.get("type") == "missing" else str(err.get("msg", "invalid")).replace("Input should be", "should be")
        parts.append(f"{where}: {msg}")
    return f"invalid arguments for {tool}: " + "; ".join(parts) + " (see the tool's input schema)"


def build_server(link: DaemonLink, auth: dict[str, Any] | None = None) -> MCPServer:
    """The server with every tool, resource and prompt; ``auth`` (the HTTP transport's token
    check, ``http.token_auth``) goes to the SDK."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from pydantic import ValidationError

    from .resources import register_prompts, register_resources
    from .tools import register_tools

    class Server(MCPServer):
        async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
            try:
                return await super().call_tool(name, arguments, context)
            except ToolError as exc:
                if isinstance(exc.__cause__, ValidationError):
                    raise ToolError(argument_errors(name, exc.__cause__)) from exc.__cause__
                raise

    server: MCPServer[Any] = Server(name="mnemo", title="mnemo memory", version=__version__,
                                    instructions=INSTRUCTIONS, log_level="INFO", **(auth or {}))
    register_tools(server, link)
    register_resources(server, link)
    register_prompts(server, link)
    return server


def link_for(settings: Settings) -> DaemonLink:
    return DaemonLink(home=settings.home, vault=settings.vault, now=settings.now,
                      start_timeout=settings.daemon.start_timeout)


def run_bridge(settings: Settings) -> None:
    """Serve MCP on stdin/stdout until the client closes stdin."""
    configure_logging(settings.home)
    link = link_for(settings)
    log.info("bridge starting (pid %d, home %s, vault %s)", os.getpid(), settings.home, settings.vault)
    # Find or start the daemon while the SDK loads and the client initialises.
    threading.Thread(target=link.warm_up, name="mnemo-mcp-warmup", daemon=True).start()
    server = build_server(link)
    try:
        server.run("stdio")
    finally:
        log.info("bridge stopped (the daemon keeps running for other clients)")
