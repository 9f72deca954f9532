"""Conversation and graph commands: ingest, chain, graph, link, unlink, enrich."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from ..capture import INCREMENTAL
from . import App, cli
from .history import export_formats
from .output import emit, progress, short

pass_app = click.make_pass_decorator(App)
json_opt = click.option("--json", "as_json", is_flag=True, help="Print JSON (stdout carries only the payload).")
depth_opt = click.option("--depth", type=click.IntRange(1, 10), default=None, help="How many links away (1-10).")


def _day(ts: float | None) -> str:
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%d %H:%M") if ts else "-"


def _ingest_text(d: dict[str, Any]) -> str:
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(d["by_type"].items())) or "none"
    links = ", ".join(f"{k} {v}" for k, v in d["links"].items()) or "none"
    head = "would keep" if d["dry_run"] else "kept"
    lines = [
        f"{d['turns']} turns ({d['format']}, session {d['session_id']}) in {d['seconds']:.1f}s, {d['turns_per_second']} turns/s",
        f"{head} {d['kept']} memories ({kinds}); {d['duplicates']} duplicates not stored; "
        f"{d['dropped']} sentences and {d['chatter_turns']} chatter turns dropped",
        f"links: {links}",
    ]
    shown = [m for m in d["memories"] if m["created"]]
    for m in shown[:50]:
        lines.append(f"  {m['id'][:8]}  {m['type']:<12} {short(m['content'], 80)}")
    if len(shown) > 50:
        lines.append(f"  ... and {len(shown) - 50} more (--json lists them all)")
    return "\n".join(lines)


@cli.command()
@click.argument("source", metavar="FILE")
@click.option("--from", "export", type=click.Choice(export_formats()), metavar="|".join(export_formats()),
              help="FILE is this tool's data export (its .zip, folder or conversations.json): one session per conversation; "
                   "claude-code: a Claude Code session transcript, read incrementally (only the lines not read before).")
@click.option("--wing", help="Namespace for the memories, e.g. a project.")
@click.option("--room", help="Sub-namespace within the wing.")
@click.option("--session-id", help="The conversation's session (default: derived from its text).")
@click.option("--format", "fmt", type=click.Choice(["json", "markdown", "text"]), help="Default: from the file name, else detected.")
@click.option("--since", metavar="DATE", help="With --from: only conversations active on or after this date (ISO-8601).")
@click.option("--me", metavar="NAME", help="With --from: your name, for your side of the conversations (default: user).")
@click.option("--dry-run", is_flag=True, help="Show what would be stored and linked; store nothing.")
@json_opt
@pass_app
def ingest(app: App, source: str, export: str | None, wing: str | None, room: str | None, session_id: str | None,
           fmt: str | None, since: str | None, me: str | None, dry_run: bool, as_json: bool) -> None:
    """Turn a conversation into memories and links.

    FILE is a JSON list of {role|speaker, content|text, timestamp?}, a Markdown chat
    (**Name:** lines or ## Name headings) or plain text; '-' reads standard input.
    With --from, FILE is a chat export (see `mnemo ingest --help` for the formats)."""
    from ..nlp import conversation

    if export in INCREMENTAL:
        if since or me:
            raise click.UsageError("--since and --me do not go with --from claude-code")
        _capture_transcript(app, export, source, wing, room, session_id, fmt, dry_run, as_json)
        return
    if export:
        from .history import ingest_export_command

        ingest_export_command(app, export, source, since=since, me=me, wing=wing, room=room,
                              session_id=session_id, fmt=fmt, dry_run=dry_run, as_json=as_json)
        return
    if since or me:
        raise click.UsageError("--since and --me go with --from (a chat export)")
    if source == "-":
        stdin: Any = click.get_text_stream("stdin")  # type: ignore[operator]  # click 8.3 types it as object
        payload = stdin.read()
    else:
        path = Path(source).expanduser()
        if not path.is_file():
            from ..errors import InvalidInput

            raise InvalidInput(f"no such file: {source}", hint="give the path of a conversation file, or '-' for standard input")
        # Made absolute here: the daemon, if one runs, reads the file from its own folder.
        payload = str(path.resolve())
    turns, _, _ = conversation.load(payload, fmt)  # light: fails fast on a bad file, sizes the bar
    with app.engine() as m, progress(2 * len(turns), "ingesting", as_json) as bar:
        result = m.ingest(payload, wing=wing, room=room, session_id=session_id, dry_run=dry_run, format=fmt, progress=bar)
    emit(result, as_json, _ingest_text)


def _capture_text(d: dict[str, Any]) -> str:
    if not d["new_turns"]:
        return f"nothing new in {d['path']} (read up to byte {d['to_offset']})"
    head = "would keep" if d["dry_run"] else "kept"
    skipped = ", ".join(f"{k} {v}" for k, v in d["skipped"].items()) or "nothing"
    return (f"{d['new_turns']} new turns (session {d['session_id']}, project {d['wing'] or '-'}): {head} {d['kept']} memories, "
            f"{d['duplicates']} duplicates not stored; skipped {skipped}"
            + (f"; {len(d['observed'])} recalled memories were used" if d["observed"] else ""))


def _capture_transcript(app: App, client: str, source: str, wing: str | None, room: str | None, session_id: str | None,
                        fmt: str | None, dry_run: bool, as_json: bool) -> None:
    """A client's session file, read from where the last capture of it stopped."""
    if room or fmt:
        raise click.UsageError("--room and --format do not go with --from claude-code")
    path = Path(source).expanduser()
    if source == "-" or not path.is_file():
        from ..errors import InvalidInput

        raise InvalidInput(f"no such transcript: {source}", hint="Claude Code keeps them in ~/.claude/projects/<project>/<session-id>.jsonl")
    with app.engine() as m:
        result = m.capture(str(path.resolve()), source=client, wing=wing, session_id=session_id, dry_run=dry_run)
    emit(result, as_json, _capture_text)


def _node_line(n: dict[str, Any], mark: str = " ") -> str:
    rel = f" [{n['rel']}]" if n.get("rel") else ""
    return f"{mark} {n['id'][:8]}  {_day(n['created_at'])}  {n['type']:<12}{rel} {short(n['content'], 70)}"


def _chain_text(d: dict[str, Any]) -> str:
    lines = ["causes (root cause first):" if d["causes"] else "no causes found"]
    lines += [_node_line(n) + f"  (depth {n['depth']})" for n in d["causes"]]
    lines.append(_node_line(d["memory"], "▶"))
    if d["consequences"]:
        lines.append("consequences (nearest first):")
        lines += [_node_line(n) + f"  (depth {n['depth']})" for n in d["consequences"]]
    if d["healed"]:
        lines.append(f"({d['healed']} dead links removed)")
    return "\n".join(lines)


@cli.command()
@click.argument("memory_id")
@depth_opt
@click.option("--consequences", is_flag=True, help="Also follow the effects downstream.")
@json_opt
@pass_app
def chain(app: App, memory_id: str, depth: int | None, consequences: bool, as_json: bool) -> None:
    """The causes of a memory (upstream along causal links), and its consequences."""
    with app.engine() as m:
        result = m.chain(memory_id, depth=depth or 5, consequences=consequences)
    emit(result, as_json, _chain_text)


def _graph_text(d: dict[str, Any]) -> str:
    lines = [_node_line(n, "▶" if n["depth"] == 0 else " ") + (f"  (depth {n['depth']})" if n["depth"] else "") for n in d["nodes"]]
    lines.append(f"{len(d['edges'])} links:")
    lines += [f"  {e['src'][:8]} --{e['rel']}--> {e['dst'][:8]}  ({e['origin']}, {e['weight']:.2f})" for e in d["edges"]]
    if d["healed"]:
        lines.append(f"({d['healed']} dead links removed)")
    if d["truncated"]:
        lines.append("(truncated: lower --depth)")
    return "\n".join(lines)


@cli.command()
@click.argument("memory_id")
@depth_opt
@json_opt
@pass_app
def graph(app: App, memory_id: str, depth: int | None, as_json: bool) -> None:
    """The typed neighbourhood of a memory: linked memories and the links among them."""
    with app.engine() as m:
        result = m.graph(memory_id, depth=depth or 1)
    emit(result, as_json, _graph_text)


@cli.command()
@click.argument("a")
@click.argument("b")
@click.option("--rel", required=True, help="Link type, e.g. because, triggered, resolves, supersedes, conflicts, shares_entity:Name.")
@click.option("--weight", type=click.FloatRange(0, 1), default=1.0, show_default=True)
@json_opt
@pass_app
def link(app: App, a: str, b: str, rel: str, weight: float, as_json: bool) -> None:
    """Link memory A to memory B (stored both ways). Causal types run cause → effect:
    `link A B --rel triggered` says A triggered B; `--rel supersedes` says A replaces B."""
    with app.engine() as m:
        ln = m.link(a, b, rel, origin="person", weight=weight)
    emit(ln, as_json, lambda x: f"linked {x.src[:8]} --{x.rel}--> {x.dst[:8]}")


@cli.command()
@click.argument("a")
@click.argument("b")
@click.option("--rel", help="Only links of this type (default: every link between A and B).")
@json_opt
@pass_app
def unlink(app: App, a: str, b: str, rel: str | None, as_json: bool) -> None:
    """Remove the links between memories A and B (either direction)."""
    with app.engine() as m:
        n = m.unlink(a, b, rel)
    emit({"removed": n}, as_json, lambda d: f"removed {d['removed']} link(s)")


@cli.command()
@click.option("--limit", type=click.IntRange(0, 1_000_000), default=500, show_default=True)
@json_opt
@pass_app
def enrich(app: App, limit: int, as_json: bool) -> None:
    """Fingerprint and link memories that a bulk import left pending (the daemon does this
    on its own schedule)."""
    with app.engine() as m:
        result = m.enrich_pending(limit=limit)
    emit(result, as_json, lambda d: f"enriched {d['enriched']} memories ({d['total']} links); {d['pending']} still pending")
