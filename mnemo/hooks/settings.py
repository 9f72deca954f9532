"""The few settings a hook process reads, without ``mnemo.config``.

A hook is a client of the daemon: it needs the home (where ``daemon.json`` names the port and
the token), the vault and the clock (to start a daemon or hand a capture over) and the
``[hooks]`` table. ``config.load_settings`` builds every section from a dozen dataclasses,
which costs a hook process ~40 ms of its client's wait on every session start; this reads the
same sources with the same precedence (defaults < ``config.toml`` < ``MNEMO_*`` < flags) for
those settings only. Anything it does not read plainly (a value that is not a clean
number/boolean, an unknown key in ``[hooks]``, a file that is not valid TOML) is handed to
``load_settings``, so every such case gets the full reader's answer or its error. Other
sections of ``config.toml`` are the daemon's: a hook does not check them.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

# config.HooksSettings' fields and defaults (tests/test_hooks.py checks they stay the same).
DEFAULTS: dict[str, Any] = {"budget": 1500, "project_share": 0.7, "start_daemon": True, "capture_fallback": True,
                            "connect_timeout": 0.5}
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


class _Unclear(Exception):
    """A value this reader does not take: ``load_settings`` decides (and names the error)."""


class HookOptions:
    """``settings.hooks`` of a hook process (the attributes of ``config.HooksSettings``)."""

    budget: int
    project_share: float
    start_daemon: bool
    capture_fallback: bool
    connect_timeout: float

    def __init__(self, values: dict[str, Any]) -> None:
        self.__dict__.update(values)


class HookSettings:
    """What a hook reads of ``config.Settings``: ``home``, ``vault``, ``now`` and ``hooks``."""

    def __init__(self, home: Path, vault: Path | None, now: str | None, hooks: HookOptions) -> None:
        self.home, self.vault, self.now, self.hooks = home, vault, now, hooks


def _coerce(value: Any, default: Any) -> Any:
    """``value`` as the type of ``default``, by ``config._coerce``'s rules for the plain cases."""
    if isinstance(default, bool):
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in _TRUE or text in _FALSE:
            return text in _TRUE
    elif isinstance(default, int):
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
            return int(value)
    elif isinstance(default, float):
        if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
            return float(value)
        if isinstance(value, str):
            try:
                number = float(value)
            except ValueError:
                raise _Unclear from None
            if math.isfinite(number):
                return number
    raise _Unclear


def load_hook_settings(home: str | None = None, vault: str | None = None, now: str | None = None,
                       env: dict[str, str] | None = None) -> Any:
    """A ``HookSettings``; a ``config.Settings`` when the full reader has to decide."""
    env = dict(os.environ if env is None else env)
    try:
        return _read(home, vault, now, env)
    except _Unclear:
        from ..config import load_settings

        return load_settings(home=home, vault=vault, now=now, env=env)


def _read(home: str | None, vault: str | None, now: str | None, env: dict[str, str]) -> HookSettings:
    if home or env.get("MNEMO_HOME"):
        home_path = Path(home or env["MNEMO_HOME"]).expanduser().absolute()
    else:
        from ..config import default_home

        home_path = default_home().expanduser().absolute()
    values = dict(DEFAULTS)
    toml_vault: str | None = None
    config = home_path / "config.toml"
    if config.is_file():
        import tomllib

        try:
            data = tomllib.loads(config.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raise _Unclear from None
        table = data.get("hooks", {})
        if not isinstance(table, dict) or not set(table) <= set(DEFAULTS):
            raise _Unclear
        values.update({k: _coerce(v, DEFAULTS[k]) for k, v in table.items()})
        for section, value in data.items():  # in the file's order, as load_settings reads them
            if section == "vault_path":
                toml_vault = str(value)
            elif section == "vault" and isinstance(value, str):
                toml_vault = value
            elif section == "vault" and isinstance(value, dict) and "path" in value:
                toml_vault = str(value["path"])
    for key in DEFAULTS:
        var = f"MNEMO_HOOKS_{key.upper()}"
        if var in env:
            values[key] = _coerce(env[var], DEFAULTS[key])
    vault_value = vault or env.get("MNEMO_VAULT") or toml_vault
    return HookSettings(home=home_path,
                        vault=Path(vault_value).expanduser().absolute() if vault_value else None,
                        now=now or env.get("MNEMO_NOW") or None, hooks=HookOptions(values))
