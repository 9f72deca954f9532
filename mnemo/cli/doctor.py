"""``mnemo doctor [--repair] [--json]``: do the indexes, the vault index and the home agree with
the sources of truth?"""

from __future__ import annotations

import sys
from typing import Any

import click

from ..doctor import SHOWN
from . import App, cli
from .output import emit

pass_app = click.make_pass_decorator(App)


def _text(report: dict[str, Any]) -> str:
    lines = []
    for name, c in report["checks"].items():
        state = "ok" if c["ok"] else "PROBLEMS: " + ", ".join(f"{k} {n}" for k, n in c["problems"].items())
        lines.append(f"{name:<10} {state}")
        for kind, hint in c.get("hints", {}).items():
            if kind in SHOWN:
                lines += [f"           {item}" for item in c["sample"].get(kind, [])]
            lines.append(f"           {kind}: {hint}")
    for name, done in report.get("repaired", {}).items():
        lines.append(f"repaired {name}: " + ", ".join(f"{k} {v}" for k, v in done.items()))
    lines.append("clean" if report["ok"] else "not clean: run `mnemo doctor --repair`")
    return "\n".join(lines)


@cli.command()
@click.option("--repair", is_flag=True, help="Fix what is found, from the sources of truth (the store, the vault).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (stdout carries only the payload).")
@pass_app
def doctor(app: App, repair: bool, as_json: bool) -> None:
    """Check that store, indexes, vault notes, links and file modes agree. Exits 1 if not clean."""
    with app.engine() as m:
        report = m.doctor(repair=repair)
    emit(report, as_json, _text)
    if not report["ok"]:
        sys.exit(1)
