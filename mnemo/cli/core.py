"""Core commands: init, save, recall, show, list, touch, forget, restore, import, reindex,
stats, config."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import click

from . import App, cli
from .output import emit, key_values, progress, short

if TYPE_CHECKING:
    from ..models import Hit, Memory

pass_app = click.make_pass_decorator(App)
json_opt = click.option("--json", "as_json", is_flag=True, help="Print JSON (stdout carries only the payload).")


def _when(ts: float | None) -> str:
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%d %H:%M") if ts else "-"


def _memory_text(m: Memory) -> str:
    lines = [
        f"id:        {m.id}",
        f"type:      {m.type}    layer: {m.layer}    status: {m.status}",
        f"tags:      {', '.join(m.tags) or '-'}",
        f"created:   {_when(m.created_at)}    last used: {_when(m.last_used)}    uses: {m.use_count}",
        f"importance {m.importance:.2f}   strength {m.strength:.2f}   tokens {m.tokens}",
    ]
    if m.note_path:
        lines.append(f"note:      {m.note_path}")
    if m.duplicate_of:
        lines.append(f"duplicate of: {m.duplicate_of}")
    lines += ["", m.content]
    return "\n".join(lines)


@cli.command()
@click.option("--vault", "vault_opt", type=click.Path(file_okay=False), help="Create or adopt this vault.")
@json_opt
@pass_app
def init(app: App, vault_opt: str | None, as_json: bool) -> None:
    """Create the mnemo home (and set up the vault, without overwriting anything)."""
    from ..setup import init_home

    if vault_opt:
        app.vault = vault_opt
        app._settings = None
    if app.settings.vault is not None and not as_json:
        click.echo("init: indexing the notes it adds to the vault (the first time, preparing the embedding "
                   "model takes a minute)", err=True)
    result = init_home(app.settings, index_notes=True)
    emit(result, as_json, key_values)


@cli.command()
@click.argument("text")
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable).")
@click.option("--type", "mtype", help="decision, fact, preference, session_note or debug_log (default: detected).")
@click.option("--wing", help="Namespace, e.g. a project.")
@click.option("--room", help="Sub-namespace within the wing.")
@click.option("--source", type=click.Choice(["human", "ai", "ingest"]), default="human", show_default=True)
@click.option("--meta", "meta_json", metavar="JSON", help="Free-form JSON metadata, returned unchanged by recall.")
@click.option("--pin", is_flag=True, help="Never forget this memory.")
@json_opt
@pass_app
def save(app: App, text: str, tags: tuple[str, ...], mtype: str | None, wing: str | None, room: str | None,
         source: str, meta_json: str | None, pin: bool, as_json: bool) -> None:
    """Save a memory. TEXT of '-' reads standard input."""
    import sys

    from ..errors import InvalidInput

    if text == "-":
        try:
            text = sys.stdin.buffer.read().decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidInput(f"standard input is not valid UTF-8 text (byte {exc.start + 1})") from None
    meta = {}
    if meta_json:
        try:
            meta = json.loads(meta_json)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"--meta is not valid JSON: {exc.msg}") from None
        except RecursionError:
            raise InvalidInput("--meta is nested too deeply") from None
    with app.engine() as m:
        r = m.save(text, tags=list(tags), meta=meta, type=mtype, wing=wing, room=room, source=source, pinned=pin)
    data = {"id": r.memory.id, "type": r.memory.type, "tokens": r.memory.tokens, "duplicate_of": r.duplicate_of,
            "importance": round(r.memory.importance, 4), "surprise": r.memory.surprise}
    emit(data, as_json, lambda d: f"saved {d['id']} ({d['type']}, {d['tokens']} tokens)"
         + (f"; near-duplicate of {d['duplicate_of']}" if d["duplicate_of"] else ""))


def _handle(h: Hit) -> str:
    """What to pass to `show`/`touch` for a hit: a memory's short id; for a passage of a note,
    its memory's short id when mnemo owns the note, else the passage id (``show`` shows the note)."""
    owner = (h.meta or {}).get("mnemo_id") if h.tier == "ltm" else None
    if owner and ":" not in owner:
        return owner[:8]
    return h.id[:8] if h.tier != "ltm" else h.id


def _hits_text(hits: list[Hit]) -> str:
    if not hits:
        return "no memories found"
    rows = []
    for i, h in enumerate(hits, start=1):
        where = f" [{h.path}{'#' + h.heading if h.heading else ''}]" if h.path else ""
        mark = " (review)" if h.reason == "review" else (" (linked)" if h.reason == "link" else "")
        if h.rendered is not None:  # packed into a budget: show what the budget allowed
            rows.append(f"{i:>2}. {h.score:.4f} {h.mode:<11} {h.tokens:>4}t{mark}  {h.rendered}")
        else:
            rows.append(f"{i:>2}. {h.score:.4f} {_handle(h)} {h.tier}{mark}{where}  {short(h.content, 90)}")
    return "\n".join(rows)


@cli.command()
@click.argument("query")
@click.option("--k", "k", type=click.IntRange(1, 1000), default=None, help="How many hits (default 10).")
@click.option("--intent", type=click.Choice(["general", "recall", "explore", "exact"]), help="BM25/vector weighting.")
@click.option("--tier", type=click.Choice(["all", "stm", "ltm"]), default="all", show_default=True)
@click.option("--type", "mtype", help="Only this memory type.")
@click.option("--tag", help="Only memories with this tag.")
@click.option("--wing")
@click.option("--room")
@click.option("--layer", type=click.Choice(["working", "episodic", "semantic", "procedural"]), help="Only this layer.")
@click.option("--status", type=click.Choice(["active", "promoted", "archived", "cold"]), help="Only this status (default: active and promoted).")
@click.option("--since", metavar="ISO-8601", help="Only memories created at or after this time.")
@click.option("--until", metavar="ISO-8601", help="Only memories created at or before this time.")
@click.option("--budget", type=click.IntRange(1, 1_000_000), help="Pack the hits into this many tokens (render modes).")
@click.option("--session", "session_id", help="The conversation this recall belongs to (recorded with the uses).")
@click.option("--no-touch", is_flag=True, help="Do not reinforce what is returned (nothing is written).")
@json_opt
@pass_app
def recall(app: App, query: str, k: int | None, intent: str | None, tier: str, mtype: str | None, tag: str | None,
           wing: str | None, room: str | None, layer: str | None, status: str | None, since: str | None,
           until: str | None, budget: int | None, session_id: str | None, no_touch: bool, as_json: bool) -> None:
    """Recall memories and notes relevant to QUERY ("a quoted phrase" matches exactly)."""
    with app.engine() as m:
        hits = m.recall(query, k=k, intent=intent, tier=tier, touch=not no_touch, type=mtype, tag=tag, wing=wing, room=room,
                        layer=layer, status=status, since=since, until=until, budget=budget, session_id=session_id)
    emit({"hits": hits}, as_json, lambda d: _hits_text(d["hits"]))


@cli.command()
@click.argument("memory_id")
@json_opt
@pass_app
def show(app: App, memory_id: str, as_json: bool) -> None:
    """Show one memory (or, given a note's passage id or path from `recall`, that note)."""
    from ..errors import NotFound

    with app.engine() as m:
        try:
            mem = m.get(memory_id)
        except NotFound as exc:
            if "not a memory" not in exc.message:
                raise
            from .vault import _note_text

            emit(m.read_note(memory_id), as_json, _note_text)  # a recall hit's handle for a person's note
            return
    emit(mem, as_json, _memory_text)


@cli.command("list")
@click.option("--status", type=click.Choice(["active", "promoted", "archived", "cold"]))
@click.option("--type", "mtype")
@click.option("--tag")
@click.option("--layer", type=click.Choice(["working", "episodic", "semantic", "procedural"]))
@click.option("--wing")
@click.option("--limit", type=click.IntRange(1, 100000), default=50, show_default=True)
@json_opt
@pass_app
def list_(app: App, status: str | None, mtype: str | None, tag: str | None, layer: str | None, wing: str | None,
          limit: int, as_json: bool) -> None:
    """List memories, newest first."""
    with app.engine() as m:
        mems = m.list(status=status, type=mtype, tag=tag, layer=layer, wing=wing, limit=limit)
    emit({"memories": mems}, as_json, lambda d: "\n".join(
        f"{x.id[:8]}  {_when(x.created_at)}  {x.type:<12} {x.status:<8} {short(x.content, 70)}" for x in d["memories"]
    ) or "no memories")


@cli.command()
@click.argument("memory_id")
@click.option("--context-tag", "context_tags", multiple=True, help="Tags of the context it was used in.")
@json_opt
@pass_app
def touch(app: App, memory_id: str, context_tags: tuple[str, ...], as_json: bool) -> None:
    """Reinforce a memory (a use now)."""
    with app.engine() as m:
        mem = m.touch(memory_id, context_tags=list(context_tags) or None)
    emit(mem, as_json, lambda x: f"touched {x.id} (uses: {x.use_count}, strength {x.strength:.2f})")


@cli.command()
@click.argument("memory_id")
@json_opt
@pass_app
def forget(app: App, memory_id: str, as_json: bool) -> None:
    """Archive a memory (`mnemo restore` brings it back)."""
    with app.engine() as m:
        mem = m.forget(memory_id)
    emit(mem, as_json, lambda x: f"archived {x.id}")


@cli.command()
@click.argument("memory_id")
@json_opt
@pass_app
def restore(app: App, memory_id: str, as_json: bool) -> None:
    """Bring an archived or cold memory back."""
    with app.engine() as m:
        mem = m.restore(memory_id)
    emit(mem, as_json, lambda x: f"restored {x.id} ({x.status})")


@cli.command("import")
@click.argument("path", type=click.Path(dir_okay=False))
@json_opt
@pass_app
def import_(app: App, path: str, as_json: bool) -> None:
    """Import memories from a JSONL file (one object per line with the save fields), or
    restore a `mnemo export` file exactly (ids, uses, links, status).

    Every line is checked first: if one is bad, nothing is imported."""
    from pathlib import Path

    from ..export.restore import export_size
    from ..importer import read_jsonl

    size = export_size(Path(path))  # a mnemo export (``mnemo export``): restored exactly
    total = size if size is not None else len(read_jsonl(Path(path)))
    with app.engine() as m, progress(total, "importing", as_json) as bar:
        result = m.import_jsonl(path, progress=bar)
    emit({"saved": result.saved, "seconds": round(result.seconds, 3)}, as_json,
         lambda d: f"imported {d['saved']} memories in {d['seconds']:.1f}s")


@cli.command()
@click.option("--to", "to", metavar="URL|embedded",
              help="Move the vector index to this Chroma server (or back to the embedded one), copying the vectors.")
@json_opt
@pass_app
def reindex(app: App, to: str | None, as_json: bool) -> None:
    """Rebuild the keyword and vector indexes from the store (or move the vector index: --to)."""
    with app.engine() as m:
        total = m.stats().memories
        with progress(total, "moving" if to else "reindexing", as_json) as bar:
            result = m.move_index(to, progress=bar) if to else m.reindex(progress=bar)
    emit(result, as_json, lambda d: "\n".join(f"{k}: {v}" for k, v in d.items()) if to
         else ", ".join(f"{k}: {v}" for k, v in d.items()))


@cli.command()
@json_opt
@pass_app
def stats(app: App, as_json: bool) -> None:
    """Counts of memories, links, uses and notes."""
    with app.engine() as m:
        s = m.stats()
    emit(s, as_json, lambda x: key_values(x.to_dict()))


@cli.group()
def config() -> None:
    """Show the settings in force."""


@config.command("show")
@json_opt
@pass_app
def config_show(app: App, as_json: bool) -> None:
    """Print the settings (defaults < config.toml < MNEMO_* < flags)."""
    from ..config import flatten

    data = app.settings.to_dict()
    emit(data, as_json, lambda d: "\n".join(f"{k} = {v}" for k, v in flatten(d).items()))
