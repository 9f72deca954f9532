"""``mnemo mcp``: the stdio MCP server that LLM clients start (see ``mnemo.mcp_bridge``)."""

from __future__ import annotations

import click

from . import App, cli

pass_app = click.make_pass_decorator(App)


@cli.command("mcp")
@click.option("--home", type=click.Path(file_okay=False), default=None, help="Data folder (overrides the global --home / MNEMO_HOME).")
@click.option("--vault", type=click.Path(file_okay=False), default=None, help="The Obsidian vault (used when this bridge starts the daemon).")
@click.option("--http", "http", is_flag=True, help="Serve streamable HTTP on 127.0.0.1 instead of stdio (needs the daemon's token).")
@click.option("--port", type=click.IntRange(1, 65535), default=None, help="The HTTP port (default 8931).")
@pass_app
def mcp_command(app: App, home: str | None, vault: str | None, http: bool, port: int | None) -> None:
    """Serve MCP on stdin/stdout for an LLM client (Claude Desktop, Claude Code, ...).

    Every tool call goes to the daemon, which is started when none runs; stdout carries only
    the protocol, logs go to MNEMO_HOME/mcp.log. With --http: streamable HTTP at
    http://127.0.0.1:PORT/mcp, every request carrying 'Authorization: Bearer TOKEN' with the
    token in MNEMO_HOME/daemon.json.
    """
    from ..config import load_settings

    settings = load_settings(home=home or app.home, vault=vault or app.vault, now=app.now)
    if port is not None and not http:
        raise click.UsageError("--port goes with --http")
    if http:
        from ..mcp_bridge.http import DEFAULT_PORT, run_http

        run_http(settings, port or DEFAULT_PORT)
        return
    from ..mcp_bridge.bridge import run_bridge

    run_bridge(settings)
