"""Client hooks: ``mnemo hook session-start|pre-compact|session-end|stop`` (what the client runs),
``mnemo hook install|uninstall`` (its settings file) and ``mnemo hook project``."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from . import App, cli
from .output import emit

pass_app = click.make_pass_decorator(App)
json_opt = click.option("--json", "as_json", is_flag=True, help="Print JSON (stdout carries only the payload).")
CLIENTS = ("claude-code",)


@cli.group()
def hook() -> None:
    """Automatic capture through the assistant's client hooks (Claude Code).

    `mnemo hook install claude-code` adds them to the client's settings; the client then runs
    `mnemo hook EVENT` with the event's JSON payload on stdin."""


def _event_command(event: str, doc: str) -> None:
    @hook.command(event, help=doc)
    @click.option("--strict", is_flag=True, help="Fail loudly (exit 1, message on stderr) instead of logging and exiting 0.")
    @click.option("--text", is_flag=True, help="session-start: print the bare block instead of the client's JSON.")
    @pass_app
    def run(app: App, strict: bool, text: bool) -> None:
        from ..hooks.run import main

        sys.exit(main(event, home=app.home, strict=strict, text=text, vault=app.vault, now=app.now))


for _event, _doc in (
    ("session-start", "Print the project's context block for a starting session (the client adds it to the context)."),
    ("pre-compact", "Capture the transcript before the client compacts it (queued in the daemon)."),
    ("session-end", "Capture the rest of the transcript when the session ends (queued in the daemon)."),
    ("stop", "Capture the transcript after each reply (queued in the daemon; installed with --stop)."),
):
    _event_command(_event, _doc)


def _target(scope: str | None, settings_path: str | None) -> Path:
    from ..hooks.install import settings_file

    if settings_path:
        return Path(settings_path).expanduser()
    return settings_file(scope or "user")


scope_opts = [
    click.option("--project", "scope", flag_value="project", help="This project's .claude/settings.local.json (personal, not committed)."),
    click.option("--user", "scope", flag_value="user", help="~/.claude/settings.json: every project (the default)."),
    click.option("--settings", "settings_path", type=click.Path(dir_okay=False), help="This settings file instead."),
]


def _scoped(f: Callable[..., Any]) -> Callable[..., Any]:
    for opt in reversed(scope_opts):
        f = opt(f)
    return f


@hook.command("install")
@click.argument("client", type=click.Choice(CLIENTS), default="claude-code")
@_scoped
@click.option("--stop", "with_stop", is_flag=True, help="Also capture after every reply (the Stop event).")
@json_opt
@pass_app
def install_cmd(app: App, client: str, scope: str | None, settings_path: str | None, with_stop: bool, as_json: bool) -> None:
    """Add mnemo's hooks to the client's settings file (merged in; nothing else is touched)."""
    from ..hooks.install import DEFAULT_EVENTS, install

    events = (*DEFAULT_EVENTS, "stop") if with_stop else DEFAULT_EVENTS
    result = install(_target(scope, settings_path), app.settings.home, events, command_home=str(app.settings.home) if app.home else None)
    emit(result, as_json, lambda r: (f"added {', '.join(r['added'])} to {r['settings']}" if r["changed"]
                                     else f"mnemo's hooks are already in {r['settings']}"))


@hook.command("uninstall")
@click.argument("client", type=click.Choice(CLIENTS), default="claude-code")
@_scoped
@json_opt
@pass_app
def uninstall_cmd(app: App, client: str, scope: str | None, settings_path: str | None, as_json: bool) -> None:
    """Take mnemo's hooks out of the client's settings file (and only them)."""
    from ..hooks.install import uninstall

    result = uninstall(_target(scope, settings_path), app.settings.home)
    emit(result, as_json, lambda r: ("restored " + r["settings"] + " as it was before install" if r["restored"]
                                     else f"removed {', '.join(r['removed'])} from {r['settings']}" if r["changed"]
                                     else f"no mnemo hooks in {r['settings']}"))


@hook.command("project")
@click.argument("directory", type=click.Path(file_okay=False), default=".")
@json_opt
def project_cmd(directory: str, as_json: bool) -> None:
    """The project (wing) sessions in DIRECTORY are captured into: its git root, else itself."""
    from ..capture import project_of

    emit({"project": project_of(directory)}, as_json, lambda d: d["project"])
