"""Vault commands: promote, demote, dashboard, ``vault index``, ``note show``, ``note rename``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from . import App, cli
from .output import emit, progress

if TYPE_CHECKING:
    from ..models import PromotionResult

pass_app = click.make_pass_decorator(App)
json_opt = click.option("--json", "as_json", is_flag=True, help="Print JSON (stdout carries only the payload).")


def _promotions_text(results: list[PromotionResult]) -> str:
    if not results:
        return "nothing to promote"
    rows = []
    for p in results:
        if p.status == "skipped":
            rows.append(f"skipped  {p.memory_id[:8]}  {p.reason}")
            continue
        verb = {"planned": "would create" if p.created else "would update", "created": "created",
                "updated": "updated", "unchanged": "unchanged"}.get(p.status, p.status)
        extra = f"  (+ {', '.join(p.entity_notes)})" if p.entity_notes else ""
        rows.append(f"{verb:<12} {p.memory_id[:8]} → {p.path}{extra}")
    return "\n".join(rows)


@cli.command()
@click.argument("memory_id", required=False)
@click.option("--auto", is_flag=True, help="Promote every memory that earned it (retention and uses).")
@click.option("--dry-run", is_flag=True, help="Say what would be written; write nothing.")
@json_opt
@pass_app
def promote(app: App, memory_id: str | None, auto: bool, dry_run: bool, as_json: bool) -> None:
    """Promote a memory (or, with --auto, every eligible one) into a note in the vault."""
    if memory_id and auto:
        raise click.UsageError("give a memory id or --auto, not both")
    with app.engine() as m:
        results = m.promote(memory_id, auto=auto, dry_run=dry_run)
    emit({"promotions": results}, as_json, lambda d: _promotions_text(d["promotions"]))


@cli.command()
@click.argument("memory_id")
@json_opt
@pass_app
def demote(app: App, memory_id: str, as_json: bool) -> None:
    """Move a promoted memory's note to the archive (never deleted); the memory is active again."""
    with app.engine() as m:
        mem = m.demote(memory_id)
    emit(mem, as_json, lambda x: f"demoted {x.id}; its note is in the archive")


@cli.command()
@json_opt
@pass_app
def dashboard(app: App, as_json: bool) -> None:
    """Write the dashboard note (Mermaid charts of the memory) into the vault."""
    with app.engine() as m:
        path = m.dashboard()
    emit({"path": path}, as_json, lambda d: f"dashboard: {d['path']}")


@cli.group("vault")
def vault_group() -> None:
    """The vault's note index."""


def _index(app: App, as_json: bool) -> None:
    from ..vault.indexer import count_notes

    total = count_notes(app.settings)
    with app.engine() as m, progress(total, "indexing notes", as_json) as bar:
        result = m.index_vault(progress=bar)
    emit(result, as_json, lambda d: ", ".join(f"{k}: {v}" for k, v in d.items()))


@vault_group.command("index")
@json_opt
@pass_app
def vault_index(app: App, as_json: bool) -> None:
    """Index every note of the vault (only what changed since the last run is re-embedded)."""
    _index(app, as_json)


@cli.command("index")
@json_opt
@pass_app
def index_cmd(app: App, as_json: bool) -> None:
    """Same as `mnemo vault index`."""
    _index(app, as_json)


@cli.group()
def note() -> None:
    """Read or rename one note."""


def _note_text(d: dict) -> str:
    head = [f"path:    {d['path']}", f"title:   {d['title']}",
            f"owner:   {'mnemo (' + d['mnemo_id'] + ')' if d['owned'] else 'you'}"]
    if d["tags"]:
        head.append(f"tags:    {', '.join(d['tags'])}")
    if d["frontmatter_error"]:
        head.append(f"warning: {d['frontmatter_error']}")
    return "\n".join(head) + "\n\n" + d["body"].rstrip("\n")


@note.command("show")
@click.argument("path_or_title")
@json_opt
@pass_app
def note_show(app: App, path_or_title: str, as_json: bool) -> None:
    """Show a note by vault path or title: properties, links, headings, body."""
    with app.engine() as m:
        data = m.read_note(path_or_title)
    emit(data, as_json, _note_text)


@note.command("rename")
@click.argument("path_or_title")
@click.argument("new_title")
@json_opt
@pass_app
def note_rename(app: App, path_or_title: str, new_title: str, as_json: bool) -> None:
    """Rename a note mnemo owns; links to it in every note follow."""
    with app.engine() as m:
        data = m.rename_note(path_or_title, new_title)
    emit(data, as_json, lambda d: f"renamed {d['from']} → {d['to']}; {d['links_rewritten']} links rewritten in "
         f"{len(d['notes_changed'])} notes" + (f"; skipped {len(d['skipped'])}" if d["skipped"] else ""))
