"""The dashboard: one note mnemo owns (``mnemo Dashboard.md`` at the vault root) with Mermaid
charts Obsidian renders natively: memories per status (pie) and per layer (bars), a retention
histogram of active memories, promotions and archivals per week, and links to the latest
promoted notes. Rewritten by ``mnemo dashboard`` (and the daemon's schedule) through the safe
writer; the bytes only change when the numbers do.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from ..clock import DAY, iso, note_time
from ..errors import ConflictError
from ..models import Layer, Status
from .names import title_of
from .parse import parse_note, split_frontmatter
from .props import render_frontmatter
from .writer import read_note_file, update_note, write_note

if TYPE_CHECKING:
    from ..core import Core

DASHBOARD = "mnemo Dashboard.md"
DASHBOARD_ID = "dashboard"
WEEKS = 8
LATEST = 10


def retention_histogram(values: list[float], bins: int = 10) -> list[int]:
    """Counts of values in ``bins`` equal bins over [0, 1] (1.0 falls in the last bin)."""
    out = [0] * bins
    for v in values:
        i = min(bins - 1, max(0, int(v * bins)))
        out[i] += 1
    return out


def week_start(ts: float) -> datetime:
    d = datetime.fromtimestamp(ts, tz=UTC)
    monday = d - timedelta(days=d.weekday())
    return monday.replace(hour=0, minute=0, second=0, microsecond=0)


def per_week(times: list[float], now: float, weeks: int = WEEKS) -> tuple[list[str], list[int]]:
    """(labels ``MM-DD`` of each week's Monday, counts) for the ``weeks`` weeks ending at now."""
    last = week_start(now)
    starts = [last - timedelta(weeks=weeks - 1 - i) for i in range(weeks)]
    counts = [0] * weeks
    for t in times:
        ws = week_start(t)
        if starts[0] <= ws <= last:
            counts[(ws - starts[0]).days // 7] += 1
    return [s.strftime("%m-%d") for s in starts], counts


def _retentions(core: Core, now: float) -> list[float]:
    from ..scoring.activity import ActivityCalendar
    from ..scoring.retention import RetentionParams, memory_factors

    calendar = ActivityCalendar(core.store.activity_day_list())
    params = RetentionParams.from_settings(core.settings.scoring)
    out: list[float] = []
    for batch in core.store.iter_memories(batch=1000, status=(Status.ACTIVE.value,)):
        out += [memory_factors(m, now, calendar, params).retention for m in batch]
    return out


def _xy(title: str, labels: list[str], series: list[tuple[str, list[int]]], y: str) -> str:
    lines = ["```mermaid", "xychart-beta", f'    title "{title}"',
             "    x-axis [" + ", ".join(f'"{x}"' for x in labels) + "]",
             f'    y-axis "{y}" 0 --> {max(1, *(max(v) for _, v in series))}']
    lines += [f"    {kind} [{', '.join(str(v) for v in values)}]" for kind, values in series]
    return "\n".join(lines + ["```"])


def dashboard_data(core: Core) -> dict[str, Any]:
    now = core.now()
    s = core.store
    by_status = s.counts_by("status")
    by_layer = s.counts_by("layer")
    hist = retention_histogram(_retentions(core, now))
    promos = s.promotion_times(now - (WEEKS + 1) * 7 * DAY)
    archived = s.archival_times(now - (WEEKS + 1) * 7 * DAY)
    labels, promo_counts = per_week(promos, now)
    _, archive_counts = per_week(archived, now)
    latest = s.latest_promoted_notes(LATEST)
    notes = s.count_notes_except(DASHBOARD)
    return {"by_status": by_status, "by_layer": by_layer, "retention_histogram": hist, "weeks": labels,
            "promotions": promo_counts, "archivals": archive_counts, "latest": latest, "notes": notes,
            "memories": sum(by_status.values())}


def render_dashboard(data: dict[str, Any], updated: str) -> str:
    props = {"mnemo_id": DASHBOARD_ID, "type": "dashboard", "tags": ["mnemo"], "updated": updated}
    parts = [
        f"Counts as of {updated[:16].replace('T', ' ')} UTC. The daemon refreshes this note within a minute of a "
        "change (`mnemo dashboard` does it now); edits to it are replaced on the next update.",
        "",
        f"**{data['memories']}** memories · **{data['by_status'].get('promoted', 0)}** promoted to notes · "
        f"**{data['notes']}** notes indexed",
        "",
        "## Memories by status",
        "",
    ]
    slices = [(k, v) for k, v in sorted(data["by_status"].items()) if v]
    if slices:
        parts += ["```mermaid", "pie showData", *[f'    "{k}" : {v}' for k, v in slices], "```"]
    else:
        parts.append("No memories yet.")
    layers = [layer.value for layer in Layer]
    parts += ["", "## Memories by layer", "",
              _xy("Memories by layer", layers, [("bar", [data["by_layer"].get(x, 0) for x in layers])], "memories"),
              "", "## Retention of active memories", "",
              _xy("Retention (0 to 1)", [f"{i / 10:.1f}" for i in range(10)], [("bar", data["retention_histogram"])],
                  "memories"),
              "", "## Promotions and archivals per week", "",
              _xy("Promoted (bars) and archived (line) per week", data["weeks"],
                  [("bar", data["promotions"]), ("line", data["archivals"])], "memories"),
              "", "## Latest promoted notes", ""]
    if data["latest"]:
        parts += [f"- [[{title_of(path)}]] · {(iso(at) or '')[:10]}" for path, at in data["latest"]]
    else:
        parts.append("None yet: memories that earn it are promoted here (`mnemo promote --auto`).")
    return render_frontmatter(props) + "\n".join(parts) + "\n"


def write_dashboard(core: Core) -> str:
    """Write (or update) the dashboard note; returns its vault-relative path."""
    from .indexer import index_note, require_vault

    vault = require_vault(core)
    data = dashboard_data(core)
    now_iso = note_time(core.now())
    if not (vault / DASHBOARD).exists():
        write_note(vault, DASHBOARD, render_dashboard(data, now_iso), expected_hash=None)
    else:
        text, _ = read_note_file(vault, DASHBOARD)
        if parse_note(DASHBOARD, text).mnemo_id != DASHBOARD_ID:
            raise ConflictError(f"{DASHBOARD} exists and is not mnemo's dashboard; it was left as it is",
                                hint="rename or move that note, then run `mnemo dashboard` again")

        def transform(current: str) -> str | None:
            note = parse_note(DASHBOARD, current)
            if note.mnemo_id != DASHBOARD_ID:
                return None
            old_updated = str(note.frontmatter.get("updated", ""))
            same = render_dashboard(data, old_updated)
            if split_frontmatter(same)[1] == split_frontmatter(current.replace("\r\n", "\n"))[1]:
                return current  # only the timestamp would change: leave the bytes alone
            return render_dashboard(data, now_iso)

        update_note(vault, DASHBOARD, transform)
    index_note(core, DASHBOARD)
    return DASHBOARD
