"""Installing the Obsidian plugin into a vault: ``<vault>/.obsidian/plugins/mnemo/``.

The built plugin ships with mnemo as package data (``mnemo/obsidian/plugin/``: ``main.js``,
``manifest.json``, ``styles.css``), so installing is a copy. Only those three files in that one
folder are ever written: the person's other settings, other plugins, the plugin's own
``data.json`` (its settings) and whether community plugins are enabled stay as they are.
Re-running is idempotent; an older installed version is replaced, a newer one is left alone
unless forced. Each file is written to a temporary name and renamed into place, so Obsidian
never reads half a file.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from pathlib import Path
from typing import Any

from ..errors import InvalidInput, VaultError

PLUGIN_ID = "mnemo"
FILES = ("main.js", "manifest.json", "styles.css")
SOURCE = Path(__file__).resolve().parent / "plugin"


def plugin_dir(vault: Path) -> Path:
    return Path(vault) / ".obsidian" / "plugins" / PLUGIN_ID


def _version(manifest: Path) -> str | None:
    try:
        v = json.loads(manifest.read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError, AttributeError):
        return None
    return v if isinstance(v, str) else None


def _key(version: str | None) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version or ""))


def bundled_version() -> str:
    v = _version(SOURCE / "manifest.json")
    if v is None:
        raise VaultError(f"the Obsidian plugin is missing from this mnemo install ({SOURCE})", hint="reinstall mnemo")
    return v


def _enabled(vault: Path) -> bool | None:
    """Whether Obsidian lists the plugin as enabled (None: the vault has no such list yet)."""
    try:
        ids = json.loads((Path(vault) / ".obsidian" / "community-plugins.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return False
    return isinstance(ids, list) and PLUGIN_ID in ids


def _same(vault: Path) -> bool:
    dst = plugin_dir(vault)
    return all((dst / f).is_file() and (dst / f).read_bytes() == (SOURCE / f).read_bytes() for f in FILES)


def _check_vault(vault: Path) -> Path:
    vault = Path(vault).expanduser()
    if not vault.is_dir():
        raise InvalidInput(f"{vault} is not a folder", hint="give the vault's folder: mnemo obsidian install --vault PATH")
    return vault.resolve()


def status(vault: Path) -> dict[str, Any]:
    """What is installed in ``vault``, and whether it is this mnemo's version."""
    vault = _check_vault(vault)
    dst = plugin_dir(vault)
    installed = _version(dst / "manifest.json") if dst.is_dir() else None
    bundled = bundled_version()
    return {
        "vault": str(vault),
        "path": str(dst),
        "installed": installed is not None,
        "version": installed,
        "bundled": bundled,
        "up_to_date": installed is not None and _same(vault),
        "newer_installed": installed is not None and _key(installed) > _key(bundled),
        "enabled": _enabled(vault),
    }


def _copy(src: Path, dst: Path) -> None:
    tmp = dst.with_name(f".{dst.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(src.read_bytes())
        os.replace(tmp, dst)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def install(vault: Path, force: bool = False) -> dict[str, Any]:
    """Copy the plugin into the vault. ``action``: ``installed``, ``updated``, ``unchanged``, or
    ``kept`` (a newer version is installed and ``force`` was not given)."""
    before = status(vault)
    vault = Path(before["vault"])
    if before["up_to_date"]:
        return {**before, "action": "unchanged"}
    if before["newer_installed"] and not force:
        return {**before, "action": "kept"}
    dst = plugin_dir(vault)
    dst.mkdir(parents=True, exist_ok=True)
    for name in FILES:
        _copy(SOURCE / name, dst / name)
    return {**status(vault), "action": "updated" if before["installed"] else "installed", "previous": before["version"]}
