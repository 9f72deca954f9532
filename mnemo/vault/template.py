"""``mnemo init --vault``: copy ``vault_template/`` into a vault without overwriting anything."""

from __future__ import annotations

import shutil
from pathlib import Path

from ..errors import VaultError

TEMPLATE = Path(__file__).resolve().parent.parent.parent / "vault_template"


def init_vault(vault: Path, template: Path = TEMPLATE) -> list[str]:
    """Create missing folders and files from the template; existing ones are left as they are.
    Returns the vault-relative paths it created."""
    if vault.exists() and not vault.is_dir():
        raise VaultError(f"{vault} exists and is not a folder")
    if not template.is_dir():
        raise VaultError(f"the vault template is missing at {template}", hint="reinstall mnemo")
    created: list[str] = []
    # An existing vault's Obsidian settings are the person's: add nothing to them.
    had_settings = (vault / ".obsidian").exists()
    vault.mkdir(parents=True, exist_ok=True)
    for src in sorted(template.rglob("*")):
        rel = src.relative_to(template)
        if had_settings and rel.parts[0] == ".obsidian":
            continue
        if rel.name == ".keep":
            (vault / rel.parent).mkdir(parents=True, exist_ok=True)
            continue
        dst = vault / rel
        if src.is_dir():
            if not dst.exists():
                dst.mkdir(parents=True)
                created.append(rel.as_posix() + "/")
            continue
        if dst.exists() or dst.is_symlink():
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
        created.append(rel.as_posix())
    if not had_settings:
        # The Obsidian settings are new, made from the template: the companion plugin comes with
        # them (copied from mnemo's package data, not kept twice in the template).
        from ..obsidian.install import install

        r = install(vault)
        if r["action"] != "unchanged":
            created.append(Path(r["path"]).relative_to(vault.resolve()).as_posix() + "/")
    return created
