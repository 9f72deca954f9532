"""``mnemo init``: create the home and record the vault; the vault tier copies its template."""

from __future__ import annotations

from typing import Any

from .config import Settings
from .errors import HomeError


def init_home(settings: Settings, index_notes: bool = False) -> dict[str, Any]:
    """Create the home; with a vault, copy the template into it and record it in config.toml.
    ``index_notes`` (what ``mnemo init`` does) also indexes the notes the template added, which
    opens an engine: leave it off when the caller already holds one."""
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
        if index_notes:
            out["indexed"] = index_created(settings, out["created"])
    return out


def index_created(settings: Settings, created: list[str]) -> list[str]:
    """Index the notes ``init`` just copied into the vault, so the first ``mnemo doctor`` finds
    the index as the vault is (and ``recall`` finds the README note at once).

    Why here and not a gentler doctor: doctor's "unindexed" check is how a note the indexer or
    the watcher missed comes to light, and a note mnemo itself created is not "not yet seen": it
    is known now. Notes already in an adopted vault are left to the daemon's reconcile (or
    ``mnemo vault index``), which may take long; only the template's few notes are done here.
    Through the daemon when one runs, else in process (the embedder loads once)."""
    from .vault.indexer import indexable

    vault = settings.vault
    if vault is None:
        return []
    notes = [rel for rel in created if rel.endswith(".md") and indexable(vault, rel, list(settings.vault_cfg.exclude))]
    if not notes:
        return []
    from .connect import open_engine

    eng = open_engine(settings)
    try:
        for rel in notes:
            eng.index_note(rel)
    finally:
        eng.close()
    return notes
