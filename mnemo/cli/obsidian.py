"""``mnemo obsidian install|status``: the companion plugin in a vault (``mnemo.obsidian``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ..errors import VaultError
from . import App, cli
from .output import emit

pass_app = click.make_pass_decorator(App)

ENABLE = ("In Obsidian: Settings → Community plugins → Turn on community plugins (once per vault), "
          "then switch on “mnemo” under Installed plugins.")


def _vault(app: App, vault: str | None) -> Path:
    if vault:
        return Path(vault)
    if app.settings.vault is None:
        raise VaultError("no vault given", hint="pass --vault PATH, or set one with `mnemo init --vault PATH`")
    return app.settings.vault


def _say(r: dict[str, Any]) -> str:
    if not r["installed"]:
        return f"the mnemo plugin is not installed in {r['vault']} (mnemo obsidian install)"
    state = "up to date" if r["up_to_date"] else f"this mnemo ships {r['bundled']}"
    enabled = {True: "enabled", False: "not enabled", None: "not enabled yet"}[r["enabled"]]
    return f"mnemo plugin {r['version']} in {r['path']} ({state}; {enabled})"


@cli.group()
def obsidian() -> None:
    """The mnemo plugin for Obsidian (a side pane, commands, a status-bar item)."""


@obsidian.command("install")
@click.option("--vault", "vault_path", type=click.Path(file_okay=False), default=None, help="The vault (default: mnemo's vault).")
@click.option("--force", is_flag=True, help="Replace even a newer installed version.")
@click.option("--json", "as_json", is_flag=True)
@pass_app
def install_command(app: App, vault_path: str | None, force: bool, as_json: bool) -> None:
    """Copy the plugin into <vault>/.obsidian/plugins/mnemo/ (nothing else is touched)."""
    from ..obsidian.install import install

    r = install(_vault(app, vault_path), force=force)

    def text(r: dict[str, Any]) -> str:
        head = {"installed": f"installed the mnemo plugin {r['version']} in {r['path']}",
                "updated": f"updated the mnemo plugin {r.get('previous')} → {r['version']} in {r['path']}",
                "unchanged": f"the mnemo plugin {r['version']} is already installed in {r['path']}",
                "kept": f"kept the newer mnemo plugin {r['version']} in {r['path']} (--force installs {r['bundled']})"}[r["action"]]
        return head if r["enabled"] else f"{head}\n{ENABLE}"

    emit(r, as_json, text)


@obsidian.command("status")
@click.option("--vault", "vault_path", type=click.Path(file_okay=False), default=None, help="The vault (default: mnemo's vault).")
@click.option("--json", "as_json", is_flag=True)
@pass_app
def status_command(app: App, vault_path: str | None, as_json: bool) -> None:
    """Whether the plugin is installed in the vault, its version, and whether it is enabled."""
    from ..obsidian.install import status

    emit(status(_vault(app, vault_path)), as_json, _say)
