"""Scoring and lifecycle commands: explain, pin, unpin, review, gc, observe."""

from __future__ import annotations

import click

from . import App, cli
from .output import emit, short

pass_app = click.make_pass_decorator(App)
json_opt = click.option("--json", "as_json", is_flag=True, help="Print JSON (stdout carries only the payload).")


def _explain_text(d: dict) -> str:
    rf, imp, pr = d["retention_factors"], d["importance_factors"], d["promotion"]

    def hl(v: float | None) -> str:
        return "never" if v is None else f"{v:g} days"

    lines = [
        f"{d['id']}  ({d['type']}, {d['effective_layer']} layer, {d['status']}{', pinned' if d['pinned'] else ''})",
        f"retention  {d['retention']:.4f}  = amplitude {rf['amplitude']:.4f} × decay {rf['decay']:.4f}"
        f" × layer age {rf['layer_age']:.4f} × type {rf['type_decay']:.4f}",
        f"  amplitude: (uses+1)^β·strength = {rf['evidence']:.3f} → {rf['evidence_bounded']:.4f},"
        f" + reinforcement {rf['reinforcement']:.4f}",
        f"  decay: {rf['model']}/{rf['mode']}, half-life {hl(rf['half_life_days'])} (trust ×{rf['trust_factor']:.3g}),"
        f" idle {rf['idle_activity_days']:g} activity days",
        f"  layer age: half-life {hl(rf['layer_half_life_days'])}, age {rf['age_activity_days']:g} activity days;"
        f" type decay over {rf['age_calendar_days']:.1f} calendar days",
        f"importance {d['importance']:.4f}  = sigmoid(raw {imp['raw']:.3f} − 2)",
        f"  value {imp['value']:.3f} (effective access {imp['effective_access']:.2f}) + hub {imp['hub']:.3f}"
        f" + entity hub {imp['entity_hub']:.3f} + mention {imp['mention']:.3f} + newness {imp['newness']:.3f}"
        f" + base {imp['base']:.3f} + ACT-R {imp['actr']:.3f}",
        f"  × recency {imp['recency']:.3f} × temporal {imp['temporal']:g} × expiration {imp['expiration']:.3f}",
        f"review priority {d['review_priority']:.3f}",
        f"promotion: {'eligible' if pr['eligible'] else 'not eligible'} ({pr['why']})",
    ]
    if d["would_forget"]:
        lines.append("gc would archive it (retention below the forget threshold)")
    return "\n".join(lines)


@cli.command()
@click.argument("memory_id")
@json_opt
@pass_app
def explain(app: App, memory_id: str, as_json: bool) -> None:
    """Every factor of a memory's retention and importance, and the clock each used."""
    with app.engine() as m:
        data = m.explain(memory_id)
    emit(data, as_json, _explain_text)


@cli.command()
@click.argument("memory_id")
@json_opt
@pass_app
def pin(app: App, memory_id: str, as_json: bool) -> None:
    """Never forget a memory (gc skips it; `mnemo unpin` undoes it)."""
    with app.engine() as m:
        mem = m.pin(memory_id)
    emit(mem, as_json, lambda x: f"pinned {x.id}")


@cli.command()
@click.argument("memory_id")
@json_opt
@pass_app
def unpin(app: App, memory_id: str, as_json: bool) -> None:
    """Let a pinned memory be forgotten again when it fades."""
    with app.engine() as m:
        mem = m.unpin(memory_id)
    emit(mem, as_json, lambda x: f"unpinned {x.id}")


@cli.command()
@click.option("--limit", type=click.IntRange(1, 10000), default=20, show_default=True)
@json_opt
@pass_app
def review(app: App, limit: int, as_json: bool) -> None:
    """Memories in the danger zone (about to be forgotten), most urgent first."""
    with app.engine() as m:
        queue = m.review(limit=limit)
    emit({"review": queue}, as_json, lambda d: "\n".join(
        f"{q['priority']:.3f}  R={q['retention']:.3f}  {q['memory']['id'][:8]}  {short(q['memory']['content'], 70)}"
        for q in d["review"]
    ) or "nothing to review")


def _gc_text(d: dict) -> str:
    verb = "would archive" if d["dry_run"] else "archived"
    lines = [f"checked {d['checked']}: {verb} {len(d['archived'])}, "
             f"{'would freeze' if d['dry_run'] else 'froze'} {len(d['cold'])}, {len(d['layers'])} layer change(s)"
             + (f", {d['pinned_kept']} pinned kept" if d["pinned_kept"] else "")]
    lines += [f"  archive {a['id'][:8]}  {a['reason']}" for a in d["archived"]]
    lines += [f"  cold    {c['id'][:8]}  {c['reason']}" for c in d["cold"]]
    return "\n".join(lines)


@cli.command()
@click.option("--dry-run", is_flag=True, help="Print what would happen; change nothing.")
@json_opt
@pass_app
def gc(app: App, dry_run: bool, as_json: bool) -> None:
    """Forget what faded: archive below the forget threshold, freeze below the cold one."""
    with app.engine() as m:
        result = m.gc(dry_run=dry_run)
    emit(result, as_json, _gc_text)


@cli.command()
@click.argument("memory_ids", nargs=-1, required=True)
@click.option("--context-tag", "context_tags", multiple=True, help="A tag of the context it was used in (repeatable).")
@json_opt
@pass_app
def observe(app: App, memory_ids: tuple[str, ...], context_tags: tuple[str, ...], as_json: bool) -> None:
    """Record that memories were used in a conversation (reinforces; detects cross-domain use)."""
    with app.engine() as m:
        mems = m.observe(list(memory_ids), context_tags=list(context_tags) or None)
    emit({"memories": mems}, as_json, lambda d: "\n".join(
        f"observed {x.id[:8]}  uses {x.use_count}  strength {x.strength:.2f}  cross-domain uses {x.cross_domain_count}"
        for x in d["memories"]
    ))
