"""``mnemo daemon run|start|stop|status``: the owner process (see ``mnemo.daemon``)."""

from __future__ import annotations

from typing import Any

import click

from . import App, cli
from .output import emit

pass_app = click.make_pass_decorator(App)
json_opt = click.option("--json", "as_json", is_flag=True, help="Print JSON (stdout carries only the payload).")


@cli.group()
def daemon() -> None:
    """The one owner process: local API, vault watcher, scheduled jobs."""


@daemon.command()
@click.option("--background", is_flag=True, hidden=True, help="Log to the file only (used by `start`).")
@pass_app
def run(app: App, background: bool) -> None:
    """Run the daemon in the foreground (logs to stderr and MNEMO_HOME/daemon.log)."""
    from ..daemon.server import run_daemon

    run_daemon(app.settings, foreground=not background)


@daemon.command()
@click.option("--timeout", type=float, default=None, help="Seconds to wait for it to be ready (default: daemon.start_timeout).")
@json_opt
@pass_app
def start(app: App, timeout: float | None, as_json: bool) -> None:
    """Start the daemon in the background; returns once it answers. If one already runs for
    this home, says so and exits 0 (the daemon wanted is there), unless it serves another vault."""
    from ..client import RemoteMnemo
    from ..daemon.process import start_daemon
    from ..errors import LockedError

    s = app.settings
    running = RemoteMnemo.connect(s.home)
    if running is not None:
        ep = running.endpoint
        if s.vault is not None and ep.vault is not None and str(s.vault) != ep.vault:
            raise LockedError(f"a mnemo daemon already runs for {s.home} (pid {ep.pid}) with the vault {ep.vault}, not {s.vault}",
                              hint="`mnemo daemon stop`, then start it again with the vault you want")
        info = {"pid": ep.pid, "url": ep.url, "already_running": True, "log": str(s.home / "daemon.log")}
        emit(info, as_json, lambda d: f"a mnemo daemon is already running for {s.home} (pid {d['pid']}, {d['url']}); nothing to do")
        return
    info = start_daemon(s.home, vault=s.vault, now=s.now, timeout=timeout or s.daemon.start_timeout)
    emit(info, as_json, lambda d: f"daemon started (pid {d['pid']}, {d['url']}); log: {d['log']}")


@daemon.command()
@json_opt
@pass_app
def stop(app: App, as_json: bool) -> None:
    """Stop the daemon gracefully (the work in hand finishes or rolls back)."""
    from ..daemon.process import stop_daemon

    info = stop_daemon(app.settings.home)
    emit(info, as_json, lambda d: f"daemon stopped (pid {d['pid']})")


def _status_text(d: dict[str, Any]) -> str:
    if not d.get("running"):
        return f"not running: {d.get('why')} (home {d.get('home')})"
    c = d.get("counts", {})
    w = d.get("watcher", {})
    q = d.get("queue", {})
    lines = [
        f"running   pid {d['pid']}  {d['url']}  up {d['uptime_s']:.0f}s  version {d['version']}",
        f"home      {d['home']}",
        f"vault     {d.get('vault') or '-'}",
        f"clock     {d['now']} ({d['clock']})",
        f"memories  {c.get('memories', 0)}  " + "  ".join(f"{k}: {v}" for k, v in sorted(c.get("by_status", {}).items())),
        f"notes     {c.get('notes') if c.get('notes') is not None else '-'}  chunks {c.get('chunks') if c.get('chunks') is not None else '-'}",
        f"watcher   {w.get('state')}" + (f"  pending {w.get('pending', 0)}  handled {w.get('handled', 0)}" if w.get("state") != "off" else f"  ({w.get('why')})"),
        f"queue     in flight: {q.get('in_flight') or '-'}  waiting: {q.get('waiting', 0)}",
        f"requests  {d.get('requests', 0)}  errors {d.get('errors', 0)}",
        "jobs      name        every      last run                   next run                   last status",
    ]
    for j in d.get("jobs", []):
        every = f"{j['interval']:.0f}s" if j["enabled"] else "off"
        lines.append(f"          {j['name']:<11} {every:<10} {j['last_run'] or '-':<26} {j['next_run'] or '-':<26} {j['last_status'] or '-'}")
    broken = d.get("broken_notes") or []
    if broken:
        lines.append(f"broken    {len(broken)} promoted note(s) whose properties do not parse:")
        lines += [f"          {b['path']}: {b['error']}" for b in broken]
        lines.append(f"          fix: {broken[0]['fix']}")
    return "\n".join(lines)


@daemon.command()
@json_opt
@pass_app
def status(app: App, as_json: bool) -> None:
    """Pid, uptime, home, vault, counts, watcher, jobs and queue of the running daemon."""
    from ..daemon.process import daemon_status

    emit(daemon_status(app.settings.home), as_json, _status_text)
