"""Bringing history in and taking memory out: ``mnemo ingest --from FORMAT EXPORT`` (the
option lives on ``ingest`` in ``graph``; its work is here) and ``mnemo export``."""

from __future__ import annotations

import sys
import time
from typing import Any

import click

from . import App, cli
from .output import emit


def export_formats() -> list[str]:
    """The chat-export formats ``--from`` accepts (the registry in ``mnemo.sources``)."""
    from ..sources import names

    return names()


def _ingest_export_text(d: dict[str, Any]) -> str:
    head = "would ingest" if d["dry_run"] else "ingested"
    lines = [
        f"{d['conversations']} conversations read from {d['source']} in {d['seconds']:.1f}s "
        f"({d['conversations_per_second']} conversations/s)",
        f"{head} {d['ingested']}: {'would keep' if d['dry_run'] else 'kept'} {d['kept']} memories, "
        f"{d['duplicates']} duplicates not stored",
        f"skipped: {d['already_ingested']} already ingested, {d['empty']} without messages, "
        f"{d['before_since']} before --since, {d['malformed']} malformed",
    ]
    for s in d["malformed_reasons"]:
        lines.append(f"  malformed {s['where']}: {s['reason']}")
    if d["malformed"] > len(d["malformed_reasons"]):
        lines.append(f"  ... and {d['malformed'] - len(d['malformed_reasons'])} more")
    return "\n".join(lines)


def ingest_export_command(app: App, export: str, source: str, since: str | None, me: str | None, wing: str | None,
                          room: str | None, session_id: str | None, fmt: str | None, dry_run: bool, as_json: bool) -> None:
    from ..clock import parse_time
    from ..sources.run import ingest_export

    if session_id or fmt:
        raise click.UsageError("--session-id and --format do not go with --from: each conversation is its own session")
    if source == "-":
        raise click.UsageError("--from reads an export file, not standard input")
    when = parse_time(since) if since else None
    with app.engine() as m, _Bar("ingesting", as_json) as bar:
        result = ingest_export(m, export, source, since=when, dry_run=dry_run, me=me, wing=wing, room=room,
                               progress=bar.conversations if bar else None)
    emit(result, as_json, _ingest_export_text)


class _Bar:
    """A progress bar whose length is known only once the work starts (an export's size, a
    store's count), on a terminal only: quiet under --json and in a pipe."""

    def __init__(self, label: str, as_json: bool) -> None:
        self.label = label
        self.on = not as_json and sys.stderr.isatty()
        self.bar: Any = None
        self.t0 = time.perf_counter()
        self.at = 0

    def __enter__(self) -> _Bar | None:
        return self if self.on else None

    def update(self, done: int, total: int, text: str | None = None) -> None:
        if self.bar is None:
            self.bar = click.progressbar(length=max(total, 1), label=self.label, file=sys.stderr, item_show_func=lambda s: s)
            self.bar.__enter__()
        self.bar.update(max(0, done - self.at), text)
        self.at = max(self.at, done)

    def conversations(self, done: int, size: int, conversations: int) -> None:
        rate = conversations / max(time.perf_counter() - self.t0, 1e-9)
        self.update(done, size, f"{conversations} conversations, {rate:.1f}/s")

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(*exc)


@cli.command("export")
@click.option("--format", "fmt", type=click.Choice(["jsonl", "markdown"]), default="jsonl", show_default=True,
              help="jsonl: the whole store, for `mnemo import`; markdown: one note per memory, for reading.")
@click.option("--out", type=click.Path(), help="The file (jsonl; default: standard output) or the new folder (markdown).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON (with --out).")
@click.pass_obj
def export_command(app: App, fmt: str, out: str | None, as_json: bool) -> None:
    """Write every memory out, with its fields, uses, links and status.

    `mnemo import FILE` in an empty home gives back the same store. The Markdown export goes
    to a new or empty folder outside the vault."""
    from ..export.write import export

    if out is None and fmt == "markdown":
        raise click.UsageError("--format markdown needs --out FOLDER")
    stdout = sys.stdout if out is None else None
    # Onto standard output, the bar would share the terminal with the payload: only with --out.
    with app.engine() as m, _Bar("exporting", as_json or out is None) as bar:
        result = export(m, fmt, out=out, stdout=stdout, vault=app.settings.vault, progress=bar.update if bar else None)
    if out is not None:
        emit(result, as_json, lambda d: f"exported {d['memories']} memories ({d['links']} links) to {d['out']} in {d['seconds']:.1f}s")
