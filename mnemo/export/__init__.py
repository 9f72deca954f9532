"""Taking the memory out: ``mnemo export`` (JSONL or Markdown) and the restore of a JSONL export
by ``mnemo import``.

The JSONL export is the store itself, one line per record, so that importing it into an empty
home gives back an identical store:

```
{"mnemo": "export", "format": 1, "exported_at": "…", "memories": 1234}
{"record": "memory", "id": "…", "content": "…", "status": "archived", "pinned": false, …,
 "uses": [[at, kind, context], …], "links": [[dst, rel, origin, weight, created_at], …],
 "entities": [[key, name, created_at], …], "pending": false,
 "cold": [base64 int8 vector, scale, model hash]}    (cold memories only)
…
{"record": "day", "day": "2026-03-02", "first_at": 1772442000.0}
{"record": "journal", "key": "history.chatgpt.…", "value": "…"}
```

A memory line carries every field of the memory (``models.Memory``, less the derived
``embed_model``), its uses (the access log), its outgoing links (each link is stored in both
directions on import), the entity index rows and whether it waits for enrichment. ``day`` lines
are the activity days that time in mnemo is counted in; ``journal`` lines say which chat-export
conversations were ingested. Vectors and the keyword index are derived and are rebuilt on
import with the home's own model; a cold memory's quantized vector travels with it and is
kept when the importing home uses the same model (made again otherwise).

The core serves the store a page at a time (``export_page``), so the export runs the same in
process and through the daemon, and never holds the whole store.
"""

from __future__ import annotations

FORMAT = 1
HEADER_KEY = "mnemo"
HEADER_VALUE = "export"
