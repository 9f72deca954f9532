"""One way to print: JSON when asked (stdout carries only the payload), text otherwise;
progress bars only on a terminal and never under --json."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click

# The daemon's encoding: a command prints the same JSON in-process as through the daemon.
from ..wire import to_jsonable


def plain(value: Any) -> str:
    """A value as a person reads it: lists comma-separated, mappings as ``key n``, never a
    Python repr (``[]``, ``{}``, quotes)."""
    if isinstance(value, dict):
        return ", ".join(f"{k} {plain(v)}" for k, v in value.items()) or "none"
    if isinstance(value, list | tuple | set):
        return ", ".join(plain(v) for v in value) or "none"
    return "-" if value is None else str(value)


def key_values(data: dict[str, Any]) -> str:
    """``key: value`` lines for a flat report (``init``, ``stats``)."""
    return "\n".join(f"{k}: {plain(v)}" for k, v in data.items())


def emit(data: Any, as_json: bool, text: Callable[[Any], str] | str | None = None) -> None:
    if as_json:
        click.echo(json.dumps(to_jsonable(data), ensure_ascii=False, default=str))
        return
    if text is None:
        click.echo(json.dumps(to_jsonable(data), ensure_ascii=False, indent=2, default=str))
    elif callable(text):
        out = text(data)
        if out:
            click.echo(out)
    else:
        click.echo(text)


@contextmanager
def progress(total: int, label: str, as_json: bool) -> Iterator[Callable[[int], None] | None]:
    if as_json or not sys.stderr.isatty() or total <= 0:
        yield None
        return
    # progress(0, step) names a step that takes a while (``mnemo.progress``): shown beside the bar.
    with click.progressbar(length=total, label=label, file=sys.stderr, item_show_func=lambda step: step) as bar:
        yield bar.update


def short(text: str, width: int = 80) -> str:
    one = " ".join(text.split())
    return one if len(one) <= width else one[: width - 1] + "…"
