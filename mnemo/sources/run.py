"""``mnemo ingest --from FORMAT EXPORT``: every conversation of an export, one session each.

The export is read here, a conversation at a time (``sources.<format>.read``), and each is
sent to the engine's ``ingest_conversation`` (in-process, or the daemon's: the same interface),
which skips those a previous run finished. Conversations last active before ``since`` are left
out; entries the reader could not parse are counted with their reason. Nothing here raises for
a bad entry: only an export that cannot be opened at all is an error.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import InvalidInput
from . import Conversation, Skipped, reader

MAX_REASONS = 20
MAX_SESSIONS = 1000  # listed in the result; an export of 100,000 conversations is counted, not listed

# progress(bytes of the export read, its size in bytes, conversations handled so far)
Progress = Callable[[int, int, int], None]


def ingest_export(
    engine: Any,
    fmt: str,
    path: str | Path,
    since: float | None = None,
    dry_run: bool = False,
    me: str | None = None,
    wing: str | None = None,
    room: str | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Ingest the export at ``path`` written by the tool ``fmt`` (a name in ``sources.READERS``)."""
    from .session import check_me

    read = reader(fmt)
    check_me(me)  # a bad name is the caller's mistake, not every conversation's
    t0 = time.perf_counter()
    counts: Counter[str] = Counter()
    kept = duplicates = 0
    skipped: list[dict[str, str]] = []
    sessions: list[dict[str, Any]] = []
    source = Path(path).expanduser()
    tally = _Tally()
    for got in read(source, tally.seen):
        if isinstance(got, Conversation) and (since is None or (got.last_at or since) >= since):
            try:
                r = engine.ingest_conversation(got.to_dict(), fmt, me=me, wing=wing, room=room, dry_run=dry_run)
            except InvalidInput as exc:  # this conversation's content; a store or daemon failure stops the run
                got = Skipped(f"conversation {got.id}", exc.message)
        if isinstance(got, Skipped):
            counts["malformed"] += 1
            if len(skipped) < MAX_REASONS:
                skipped.append({"where": got.where, "reason": got.reason})
        elif since is not None and (got.last_at or since) < since:
            counts["before_since"] += 1
        else:
            counts[r["status"]] += 1
            kept += r["kept"]
            duplicates += r["duplicates"]
            if r["status"] != "done" and len(sessions) < MAX_SESSIONS:
                sessions.append({k: r.get(k) for k in ("session_id", "title", "status", "turns", "kept", "duplicates")})
        tally.handled += 1
        if progress:
            progress(tally.read, tally.size, tally.handled)
    seconds = time.perf_counter() - t0
    return {
        "format": fmt,
        "source": str(source),
        "dry_run": bool(dry_run),
        "conversations": tally.handled - counts["malformed"],
        "ingested": counts["ingested"] + counts["dry-run"],
        "already_ingested": counts["done"],
        "empty": counts["empty"],
        "before_since": counts["before_since"],
        "malformed": counts["malformed"],
        "malformed_reasons": skipped,
        "kept": kept,
        "duplicates": duplicates,
        "sessions": sessions,
        "seconds": round(seconds, 3),
        "conversations_per_second": round(tally.handled / seconds, 1) if seconds > 0 else None,
    }


class _Tally:
    def __init__(self) -> None:
        self.read = self.size = self.handled = 0

    def seen(self, done: int, size: int) -> None:
        self.read, self.size = done, size


__all__ = ["Conversation", "ingest_export"]
