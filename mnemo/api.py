"""The engine interface every surface is written against.

``engine.Mnemo`` (in-process) and ``client.RemoteMnemo`` (the daemon's thin client) both
implement it. The daemon exposes exactly these operations over its JSON API; the client decodes
each result back into the annotated return type, so callers cannot tell the two apart.
Add an operation here, implement it on ``Mnemo``, and every surface has it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from .models import Hit, ImportResult, Link, Memory, PromotionResult, SaveResult, Stats


class MnemoAPI(Protocol):
    def save(self, content: str, tags: Sequence[str] = (), meta: dict[str, Any] | None = None, **fields: Any) -> SaveResult: ...

    def save_many(self, items: list[dict[str, Any]]) -> list[SaveResult]: ...

    def get(self, memory_id: str) -> Memory: ...

    def list(
        self,
        status: str | None = None,
        type: str | None = None,
        tag: str | None = None,
        layer: str | None = None,
        wing: str | None = None,
        room: str | None = None,
        limit: int | None = 50,
    ) -> list[Memory]: ...

    def recall(
        self, query: str, k: int | None = None, now: float | str | None = None, touch: bool = True,
        intent: str | None = None, tier: str = "all", session_id: str | None = None, budget: int | None = None,
        **filters: Any,
    ) -> list[Hit]: ...

    def context(
        self, query: str, budget: int | None = None, k: int | None = None, touch: bool = True,
        intent: str | None = None, tier: str = "all", session_id: str | None = None, **filters: Any,
    ) -> dict[str, Any]: ...

    def touch(self, memory_id: str, context_tags: Sequence[str] | None = None) -> Memory: ...

    def forget(self, memory_id: str) -> Memory: ...

    def restore(self, memory_id: str) -> Memory: ...

    def stats(self) -> Stats: ...

    def import_jsonl(self, path: str, progress: Any = None, batch: int = 256) -> ImportResult: ...

    def reindex(self, progress: Any = None) -> dict[str, int]: ...

    def doctor(self, repair: bool = False) -> dict[str, Any]: ...

    def move_index(self, to: str, progress: Any = None) -> dict[str, Any]: ...

    def explain(self, memory_id: str) -> dict[str, Any]: ...

    def pin(self, memory_id: str) -> Memory: ...

    def unpin(self, memory_id: str) -> Memory: ...

    def review(self, limit: int = 20) -> list[dict[str, Any]]: ...

    def gc(self, dry_run: bool = False) -> dict[str, Any]: ...

    def dream(self, dry_run: bool = False, steps: Sequence[str] | str | None = None, progress: Any = None) -> dict[str, Any]: ...

    def dream_review(self) -> list[dict[str, Any]]: ...

    def dream_decide(self, cluster_id: str, accept: bool) -> dict[str, Any]: ...

    def observe(self, memory_ids: Sequence[str], context_tags: Sequence[str] | None = None) -> list[Memory]: ...

    def index_vault(self, progress: Any = None) -> dict[str, Any]: ...

    def index_note(self, path: str) -> dict[str, Any]: ...

    def remove_note(self, path: str) -> dict[str, Any]: ...

    def move_note(self, old: str, new: str) -> dict[str, Any]: ...

    def promote(self, memory_id: str | None = None, auto: bool = False, dry_run: bool = False) -> list[PromotionResult]: ...

    def demote(self, memory_id: str) -> Memory: ...

    def read_note(self, path_or_title: str) -> dict[str, Any]: ...

    def related(
        self, path: str | None = None, text: str | None = None, content: str | None = None, k: int = 10,
        tier: str = "all", **filters: Any,
    ) -> dict[str, Any]: ...

    def rename_note(self, path: str, title: str) -> dict[str, Any]: ...

    def dashboard(self) -> str: ...

    def edit(
        self, memory_id: str, content: str | None = None, tags: Sequence[str] | None = None, type: str | None = None,
        layer: str | None = None, wing: str | None = None, room: str | None = None, meta: dict[str, Any] | None = None,
    ) -> Memory: ...

    def ingest(
        self, path_or_text: str, wing: str | None = None, room: str | None = None, session_id: str | None = None,
        dry_run: bool = False, format: str | None = None,
    ) -> dict[str, Any]: ...

    def capture(
        self, path: str, source: str = "claude-code", wing: str | None = None, session_id: str | None = None,
        dry_run: bool = False, final: bool = False,
    ) -> dict[str, Any]: ...

    def project_context(
        self, project: str, query: str | None = None, budget: int | None = None, session_id: str | None = None,
    ) -> dict[str, Any]: ...

    def ingest_conversation(
        self, conversation: dict[str, Any], format: str, me: str | None = None, wing: str | None = None,
        room: str | None = None, dry_run: bool = False,
    ) -> dict[str, Any]: ...

    def session_memories(self, session_id: str, limit: int = 50) -> list[Memory]: ...

    def export_page(self, after: int = 0, limit: int = 500) -> dict[str, Any]: ...

    def link(self, a: str, b: str, rel: str, origin: str = "person", weight: float = 1.0) -> Link: ...

    def unlink(self, a: str, b: str, rel: str | None = None) -> int: ...

    def chain(self, memory_id: str, depth: int = 5, consequences: bool = False) -> dict[str, Any]: ...

    def graph(self, memory_id: str, depth: int = 1) -> dict[str, Any]: ...

    def enrich_pending(self, limit: int = 500) -> dict[str, Any]: ...

    def close(self) -> None: ...


# Operations the daemon API serves (name → whether it changes state). Surfaces added by later
# work register theirs here too.
OPERATIONS: dict[str, bool] = {
    "save": True,
    "save_many": True,
    "get": False,
    "list": False,
    "recall": True,
    "context": True,
    "touch": True,
    "forget": True,
    "restore": True,
    "stats": False,
    "import_jsonl": True,
    "reindex": True,
    "doctor": True,
    "move_index": True,
    "explain": False,
    "pin": True,
    "unpin": True,
    "review": False,
    "gc": True,
    "dream": True,
    "dream_review": False,
    "dream_decide": True,
    "observe": True,
    "index_vault": True,
    "index_note": True,
    "remove_note": True,
    "move_note": True,
    "promote": True,
    "demote": True,
    "read_note": False,
    "related": False,
    "rename_note": True,
    "dashboard": True,
    "edit": True,
    "ingest": True,
    "ingest_conversation": True,
    "export_page": False,
    "session_memories": False,
    "link": True,
    "unlink": True,
    # chain and graph only read (the dead links they meet are removed as upkeep, not as a change)
    "chain": False,
    "graph": False,
    "enrich_pending": True,
    # client session capture (capture.py): the hooks' operations
    "capture": True,
    "project_context": True,  # records which ids it showed to the session (nothing is reinforced)
}
