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
    rows = store.memory_rows_after(after, limit)
    ids = [r["id"] for r in rows]
    uses = store.uses_of(ids)
    links = store.out_links_of(ids)
    entities = store.entities_of(ids)
    pending = store.enrich_pending_among(ids)
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
        out["days"] = store.activity_day_rows()
        out["journal"] = store.history_journal()
        out["total"] = store.count()
    return out
