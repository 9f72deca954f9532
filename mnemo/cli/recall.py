"""``mnemo context``: the prompt block (logic in ``mnemo/recall/context.py``)."""

from __future__ import annotations

import click

from . import App, cli

pass_app = click.make_pass_decorator(App)


def _context_text(d: dict) -> str:
    if not d["context"]:
        return "(nothing fits: no memories or notes for this query)"
    return f"{d['context']}\n\n({d['used']}/{d['budget']} tokens)"


@cli.command()
@click.argument("query")
@click.option("--budget", type=click.IntRange(1, 1_000_000), help="Most tokens the block may take (default recall.budget, 4000).")
@click.option("--k", "k", type=click.IntRange(1, 1000), help="Recall results considered (default 20).")
@click.option("--intent", type=click.Choice(["general", "recall", "explore", "exact"]), help="BM25/vector weighting.")
@click.option("--tier", type=click.Choice(["all", "stm", "ltm"]), default="all", show_default=True)
@click.option("--type", "mtype", help="Only this memory type.")
@click.option("--tag", help="Only memories with this tag.")
@click.option("--wing")
@click.option("--room")
@click.option("--session", "session_id", help="The current conversation: its notes come first, uses record it.")
@click.option("--no-touch", is_flag=True, help="Do not reinforce what is shown (nothing is written).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (stdout carries only the payload).")
@pass_app
def context(app: App, query: str, budget: int | None, k: int | None, intent: str | None, tier: str, mtype: str | None,
            tag: str | None, wing: str | None, room: str | None, session_id: str | None, no_touch: bool,
            as_json: bool) -> None:
    """The context block for QUERY within a token budget: pinned memories, recent session
    notes, relevant memories and notes, review candidates, each with its id."""
    from .output import emit

    with app.engine() as m:
        data = m.context(query, budget=budget, k=k, intent=intent, tier=tier, session_id=session_id,
                         touch=not no_touch, type=mtype, tag=tag, wing=wing, room=room)
    emit(data, as_json, _context_text)
