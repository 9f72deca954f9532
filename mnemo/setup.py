"""``mnemo init``: create the home and record the vault; the vault tier copies its template."""

from __future__ import annotations

from typing import Any

from .config import Settings
from .errors import HomeError


def init_home(settings: Settings) -> dict[str, Any]:
    home = settings.home
    try:
        home.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        raise HomeError(f"cannot create {home}: {exc.strerror}", hint="pass --home PATH") from exc
    out: dict[str, Any] = {"home": str(home)}
    if settings.vault:
        cfg = settings.config_file
        if not cfg.exists():
            cfg.write_text(f'[vault]\npath = "{settings.vault.as_posix()}"\n', encoding="utf-8")
            cfg.chmod(0o600)
        from .vault.template import init_vault

        out["vault"] = str(settings.vault)
        out["created"] = init_vault(settings.vault)
    return out
