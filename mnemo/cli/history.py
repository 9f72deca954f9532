"""Bringing history in and taking memory out: ``mnemo ingest --from FORMAT EXPORT``."""

from __future__ import annotations

import sys
import time
from typing import Any

import click

from . import App
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
    with app.engine() as m, _bar(as_json) as bar:
        result = ingest_export(m, export, source, since=when, dry_run=dry_run, me=me, wing=wing, room=room, progress=bar)
    emit(result, as_json, _ingest_export_text)


class _bar:
    """A progress bar over the export's bytes that shows conversations/s, on a terminal only."""

    def __init__(self, as_json: bool) -> None:
        self.on = not as_json and sys.stderr.isatty()
        self.bar: Any = None
        self.t0 = time.perf_counter()
        self.at = 0

    def __enter__(self) -> Any:
        return self.update if self.on else None

    def update(self, done: int, size: int, conversations: int) -> None:
        if self.bar is None:
            self.bar = click.progressbar(length=max(size, 1), label="ingesting", file=sys.stderr,
                                         item_show_func=lambda s: s)
            self.bar.__enter__()
        rate = conversations / max(time.perf_counter() - self.t0, 1e-9)
        self.bar.update(max(0, done - self.at), f"{conversations} conversations, {rate:.1f}/s")
        self.at = max(self.at, done)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(*exc)
