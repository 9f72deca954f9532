"""``mnemo dream``: the dream cycle (plan, then apply; ``--dry-run`` only plans), and ``mnemo
dream review`` with ``accept`` / ``reject`` for the clusters that wait for a person."""

from __future__ import annotations

from typing import Any

import click

from . import App, cli
from .output import emit, progress, short

pass_app = click.make_pass_decorator(App)
json_opt = click.option("--json", "as_json", is_flag=True, help="Print JSON (stdout carries only the payload).")


def _plan_text(result: dict[str, Any]) -> str:
    dry = result["dry_run"]
    head = ("Plan" if dry else "Dream") + f" {result['run_id']} ({result['started_at']})"
    if result.get("resumed"):
        head += ": finishing a run that was interrupted" if not dry else ": an interrupted run will be finished"
    lines = [head]
    ops = [op for op in result.get("ops", []) if op["kind"] != "report"]
    for op in ops[:200]:
        mark = "" if dry or op["status"] == "applied" else f" [{op['status']}]"
        lines.append(f"  {op['step']:<9} {short(op['summary'], 110)}{mark}")
    if len(ops) > 200:
        lines.append(f"  … and {len(ops) - 200} more (--json lists all)")
    if not ops:
        lines.append("  nothing to do")
    if not dry:
        lines.append(f"applied {result['applied']} of {result['planned']} operations"
                     + (f"; skipped {len(result['skipped'])}" if result["skipped"] else "")
                     + (f"; failed {len(result['failed'])}" if result["failed"] else ""))
        for s in result["skipped"]:
            lines.append(f"  skipped: {short(s['summary'], 80)}: {s['reason']}")
        for f in result["failed"]:
            lines.append(f"  failed: {short(f['summary'], 80)}: {f['error']}")
        if result.get("report"):
            lines.append(f"report: {result['report']}")
    else:
        lines.append(f"{result['planned']} operations planned; nothing was changed (dry run)")
    if result.get("review"):
        lines.append(f"{len(result['review'])} cluster(s) wait for review: `mnemo dream review`")
    return "\n".join(lines)


@cli.group(invoke_without_command=True)
@click.option("--dry-run", is_flag=True, help="Print the plan; change nothing.")
@click.option("--steps", metavar="A,B,...", help="Only these steps: forget, cluster, merge, split, supersede, "
              "beliefs, bridges, cards, drift, prune (default: all).")
@json_opt
@click.pass_context
def dream(ctx: click.Context, dry_run: bool, steps: str | None, as_json: bool) -> None:
    """Run the dream cycle: consolidate, split, link, forget, and write a report note."""
    if ctx.invoked_subcommand is not None:
        return
    from ..lifecycle.dream.steps import select_steps

    app = ctx.find_object(App)
    assert app is not None  # the root command made it
    chosen = select_steps(steps, app.settings.dream.steps)  # a bad name fails before anything opens
    # One tick per step planned, and (unless a dry run) per step applied and for the report.
    total = len(chosen) if dry_run else 2 * len(chosen) + 1
    with app.engine() as m, progress(total, "dreaming", as_json) as bar:
        result = m.dream(dry_run=dry_run, steps=chosen, progress=bar)
    emit(result, as_json, _plan_text)


def _review_text(clusters: list[dict[str, Any]]) -> str:
    if not clusters:
        return "no clusters wait for review"
    lines = []
    for c in clusters:
        lines.append(f"{c['id']}  cohesion {c['cohesion']:.3f}  ({len(c['members'])} memories)")
        for mem in c["members"]:
            lines.append(f"    {mem['id'][:8]}  {short(mem['content'], 90)}")
    lines.append("accept: `mnemo dream review accept ID` (merges now) · reject: `mnemo dream review reject ID`")
    return "\n".join(lines)


@dream.group(invoke_without_command=True)
@json_opt
@click.pass_context
def review(ctx: click.Context, as_json: bool) -> None:
    """List the clusters of near-duplicates that wait for your decision."""
    if ctx.invoked_subcommand is not None:
        return
    app = ctx.find_object(App)
    assert app is not None  # the root command made it
    with app.engine() as m:
        clusters = m.dream_review()
    emit({"clusters": clusters}, as_json, lambda d: _review_text(d["clusters"]))


def _decided(d: dict[str, Any]) -> str:
    if d["status"] == "merged":
        return f"cluster {d['cluster_id']} merged into {d['merged_into']}" + (f" ({d['note']})" if d.get("note") else "")
    if d["status"] == "rejected":
        return f"cluster {d['cluster_id']} rejected: its memories stay apart"
    return f"cluster {d['cluster_id']} accepted but not merged: {d.get('reason')}"


@review.command()
@click.argument("cluster_id")
@json_opt
@pass_app
def accept(app: App, cluster_id: str, as_json: bool) -> None:
    """Merge the cluster CLUSTER_ID now."""
    with app.engine() as m:
        result = m.dream_decide(cluster_id, True)
    emit(result, as_json, _decided)


@review.command()
@click.argument("cluster_id")
@json_opt
@pass_app
def reject(app: App, cluster_id: str, as_json: bool) -> None:
    """Keep the memories of CLUSTER_ID apart (the cluster is not proposed again)."""
    with app.engine() as m:
        result = m.dream_decide(cluster_id, False)
    emit(result, as_json, _decided)
