"""The report note: one per run in ``Dreams/``, saying what the run merged, split, archived,
linked and flagged, with wikilinks to the notes involved (memories without a note are named by
short id and first words). It is rendered from the journal, so a run finished after a kill
writes the same report as one that was never interrupted; it is created with the safe writer
and never overwrites a note (or a person's edit of an earlier attempt's report)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ...clock import iso, note_time
from ...errors import ConflictError
from .journal import Journal, Op
from .notes import ref, short

if TYPE_CHECKING:
    from ...core import Core
    from .workspace import ApplyContext

MAX_LINES = 200  # per section; the journal keeps the rest


def report_path(core: Core, started_at: float, run_id: str) -> str:
    from ...vault.names import join_rel, note_filename

    stamp = datetime.fromtimestamp(started_at, tz=UTC).strftime("%Y-%m-%d %H%M")
    return join_rel(core.settings.vault_cfg.dreams_folder, note_filename(f"Dream {stamp} {run_id[:6]}"))


def render(core: Core, run_id: str, started_at: float, ops: list[Op]) -> str:
    from ...vault.props import render_frontmatter

    memo: dict[str, Any] = {}

    def mem(mid: str) -> str:
        if mid not in memo:
            memo[mid] = ref(core, core.store.get_memory(mid), mid)
        return memo[mid]

    done = [op for op in ops if op.status == "applied" and op.kind != "report"]
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for op in done:
        by_kind.setdefault(op.kind, []).append(op.result or {})
    sections: list[tuple[str, list[str]]] = []

    def section(title: str, kind: str, line: Callable[[dict[str, Any]], str]) -> None:
        items = by_kind.get(kind, [])
        if items:
            lines = [line(r) for r in items[:MAX_LINES]]
            if len(items) > MAX_LINES:
                lines.append(f"- … and {len(items) - MAX_LINES} more (`mnemo dream --json` on the journal)")
            sections.append((f"{title} ({len(items)})", lines))

    section("Merged", "merge", lambda r: f"- {mem(r['new_id'])} ← " + ", ".join(mem(i) for i in r["members"])
            + (" *(accepted by you)*" if r.get("accepted") else ""))
    section("Waiting for your review", "review", lambda r: f"- cluster `{r['cluster_id']}` (cohesion {r['cohesion']:.2f}): "
            + ", ".join(mem(i) for i in r["members"]) + f" — `mnemo dream review accept {r['cluster_id']}`")
    section("Split", "split", lambda r: f"- {mem(r['id'])} → {len(r['pieces'])} pieces: " + ", ".join(mem(i) for i in r["pieces"]))
    section("Superseded", "supersede", lambda r: f"- {mem(r['old'])} is superseded by {mem(r['new'])}")
    section("Conflicts", "conflict", lambda r: f"- {mem(r['old'])} conflicts with the newer {mem(r['new'])}; "
            f"its importance {r['importance'][0]:.2f} → {r['importance'][1]:.2f}")
    section("Bridges", "bridge", lambda r: f"- [[{r['entity']}]] links {r['domains'][0]} ↔ {r['domains'][1]}: "
            f"{mem(r['a'])} ↔ {mem(r['b'])}")
    section("Peer cards", "card", lambda r: f"- [[{r['entity']}]] {r.get('card', 'updated')} ({r.get('memories', 0)} memories)")
    section("Drift: cited paths that are gone", "flag", lambda r: f"- {mem(r['id'])}: " + ", ".join(f"`{p}`" for p in r["missing"]))
    section("Drift: cited paths back again", "unflag", lambda r: f"- {mem(r['id'])}")
    section("Archived (faded)", "archive", lambda r: f"- {mem(r['id'])} — {r.get('reason', '')}")
    section("Cold storage", "freeze", lambda r: f"- {mem(r['id'])} — {r.get('reason', '')}")
    section("Layers", "layer", lambda r: f"- {mem(r['id'])} → {r['to']}")
    section("Pruned", "prune", lambda r: "- " + ", ".join(f"{n} {k}" for k, n in r["counts"].items()))
    section("Left alone", "oversize", lambda r: f"- a chain of {r['size']} near-duplicates (`{r['cluster_id']}`) is too long to merge")
    kept = [op for op in ops if op.status in ("skipped", "failed")]
    if kept:
        sections.append((f"Not done ({len(kept)})", [
            f"- {op.summary}: {(op.result or {}).get('reason') or (op.result or {}).get('error') or op.status}"
            for op in kept[:MAX_LINES]]))
    props = {"mnemo_id": f"dream:{run_id}", "type": "dream", "tags": ["dream"], "created": note_time(started_at), "run": run_id}
    head = f"# Dream of {(iso(started_at) or '')[:16].replace('T', ' ')} UTC\n\n"
    if not sections:
        return render_frontmatter(props) + head + "Nothing needed doing.\n"
    body = "".join(f"## {title}\n" + "\n".join(lines) + "\n\n" for title, lines in sections)
    return render_frontmatter(props) + head + body.rstrip("\n") + "\n"


def apply_report(core: Core, op: Op, actx: ApplyContext) -> dict[str, Any]:
    from ...vault import indexer
    from ...vault.writer import read_note_file, write_note

    if actx.vault is None:
        return {"path": None}
    ops = [o for o in Journal(core.store).ops(actx.run_id) if o.seq != op.seq]
    rel = report_path(core, actx.started_at, actx.run_id)
    text = render(core, actx.run_id, actx.started_at, ops)
    if (actx.vault / rel).is_file():
        current, _ = read_note_file(actx.vault, rel)
        if current != text:  # a person edited an earlier attempt's report: keep theirs
            return {"path": rel, "kept": True}
    else:
        try:
            write_note(actx.vault, rel, text, expected_hash=None)
        except ConflictError:
            return {"path": rel, "kept": True}
    indexer.index_note(core, rel)
    return {"path": rel, "summary": short(text.split("\n## ", 1)[-1], 120)}
