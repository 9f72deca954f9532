"""``mnemo mcp``: the stdio MCP server that LLM clients start (see ``mnemo.mcp_bridge``)."""

from __future__ import annotations

import click

from . import App, cli

pass_app = click.make_pass_decorator(App)


@cli.command("mcp")
@click.option("--home", type=click.Path(file_okay=False), default=None, help="Data folder (overrides the global --home / MNEMO_HOME).")
@click.option("--vault", type=click.Path(file_okay=False), default=None, help="The Obsidian vault (used when this bridge starts the daemon).")
@pass_app
def mcp_command(app: App, home: str | None, vault: str | None) -> None:
    """Serve MCP on stdin/stdout for an LLM client (Claude Desktop, Claude Code, ...).

    Every tool call goes to the daemon, which is started when none runs; stdout carries only
    the protocol, logs go to MNEMO_HOME/mcp.log.
    """
    from ..config import load_settings
    from ..mcp_bridge.server import run_bridge

    run_bridge(load_settings(home=home or app.home, vault=vault or app.vault, now=app.now))
