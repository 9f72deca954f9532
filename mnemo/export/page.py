"""The store a page at a time, as export records (core side; see ``mnemo.export``)."""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any

from ..errors import InvalidInput

if TYPE_CHECKING:
    from ..core import Core

MAX_PAGE = 5000
DERIVED = ("embed_model",)  # written back by the import with the model it embeds with


def export_page(core: Core, after: int = 0, limit: int = 500) -> dict[str, Any]:
    """Memory records with rowid > ``after``, in store order, at most ``limit``; ``after`` is
    the cursor for the next page, ``done`` says there is none. The first page (``after`` = 0)
    also carries the activity days and the chat-export journal."""
    for name, value in (("after", after), ("limit", limit)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InvalidInput(f"{name} must be a whole number ≥ 0")
    limit = max(1, min(int(limit), MAX_PAGE))
    store = core.store
    rows = store.query("SELECT rowid AS _rowid, * FROM memories WHERE rowid > ? ORDER BY rowid LIMIT ?", (after, limit))
    ids = [r["id"] for r in rows]
    uses: dict[str, list[list[Any]]] = {}
    for r in store.query_in("SELECT memory_id, at, kind, context FROM uses WHERE memory_id IN ({marks}) ORDER BY rowid", ids):
        uses.setdefault(r[0], []).append([r[1], r[2], r[3]])
    links: dict[str, list[list[Any]]] = {}
    for r in store.query_in(
        "SELECT src, dst, rel, origin, weight, created_at FROM links WHERE dir = 'out' AND src IN ({marks}) "
        "ORDER BY src, dst, rel", ids,
    ):
        links.setdefault(r[0], []).append([r[1], r[2], r[3], r[4], r[5]])
    entities: dict[str, list[list[Any]]] = {}
    for r in store.query_in("SELECT memory_id, key, name, created_at FROM memory_entities WHERE memory_id IN ({marks}) "
                            "ORDER BY memory_id, key", ids):
        entities.setdefault(r[0], []).append([r[1], r[2], r[3]])
    pending = {r[0] for r in store.query_in("SELECT memory_id FROM enrich_queue WHERE memory_id IN ({marks})", ids)}
    records = []
    for row in rows:
        m = store._row_to_memory(row)
        rec: dict[str, Any] = {"record": "memory"}
        rec.update({k: v for k, v in m.to_dict().items() if k not in DERIVED})
        rec["uses"] = uses.get(m.id, [])
        rec["links"] = links.get(m.id, [])
        rec["entities"] = entities.get(m.id, [])
        rec["pending"] = m.id in pending
        if row["cold_vector"] is not None:  # kept as is: the restore re-embeds only for another model
            rec["cold"] = [base64.b64encode(row["cold_vector"]).decode("ascii"), row["cold_scale"], row["embed_model"]]
        records.append(rec)
    out: dict[str, Any] = {"memories": records, "after": rows[-1]["_rowid"] if rows else after, "done": len(rows) < limit}
    if after == 0:
        out["days"] = [[r[0], r[1]] for r in store.query("SELECT day, first_at FROM activity_days ORDER BY day")]
        out["journal"] = [[r[0], r[1]] for r in store.query("SELECT key, value FROM kv WHERE key LIKE 'history.%' ORDER BY key")]
        out["total"] = int(store.query("SELECT count(*) FROM memories")[0][0])
    return out
