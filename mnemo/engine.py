"""``Mnemo``: the one façade that the CLI, the daemon and the MCP bridge call.

It holds only the public operations: each validates what it is given, then hands the work to a
feature (recall, lifecycle, dream, graph, vault, ...) together with the ``Core`` below them
(store, vector index, embedder, clock, settings; see ``core/``). Nothing here touches SQL or
Chroma. ``Mnemo.open`` takes the home's owner lock for as long as the engine is open.

Each public operation is declared here and only here: a method marked ``@operation``
(``operations.py``), whose signature is the request and whose return annotation is the result
(``models`` dataclasses, ``results`` TypedDicts). ``api.REGISTRY`` collects them; the daemon
serves exactly those and the thin client derives its methods from them.

The module is light to import (the core and the features are imported when used): the thin
client reads the registry from this class without paying for the store.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from . import inputs
from .clock import Clock, parse_time
from .config import Settings, load_settings
from .errors import InvalidInput
from .models import (
    Hit,
    ImportResult,
    Layer,
    Link,
    Memory,
    MemoryType,
    PromotionResult,
    SaveResult,
    Stats,
    Status,
)
from .operations import operation
from .results import (
    CaptureReport,
    CausalChain,
    ContextBlock,
    ConversationIngest,
    DoctorReport,
    DreamCluster,
    DreamDecision,
    DreamReport,
    EnrichReport,
    Explanation,
    ExportPage,
    GcReport,
    IndexMove,
    IngestReport,
    Neighbourhood,
    NoteIndexResult,
    NoteMove,
    NoteRemoval,
    NoteRename,
    NoteView,
    ProjectContext,
    ReindexResult,
    RelatedResult,
    ReviewItem,
    VaultIndexCounts,
)

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from .core import Core, Progress

SEARCHABLE = (Status.ACTIVE.value, Status.PROMOTED.value)


class Mnemo:
    def __init__(self, settings: Settings, clock: Clock | None = None, embedder: Any = None, lock: bool = True) -> None:
        from .core import Core

        self.core: Core = Core(settings, clock=clock, embedder=embedder, lock=lock)
        self.settings = settings
        self.home = self.core.home

    # -- opening and closing ----------------------------------------------------------------
    @classmethod
    def open(
        cls,
        home: str | Path | None = None,
        vault: str | Path | None = None,
        *,
        settings: Settings | None = None,
        now: str | float | None = None,
        embedder: Any = None,
        overrides: dict[str, Any] | None = None,
        lock: bool = True,
    ) -> Mnemo:
        if settings is None:
            settings = load_settings(home=home, vault=vault, overrides=overrides)
        clock = Clock(parse_time(now)) if now is not None else None
        return cls(settings, clock=clock, embedder=embedder, lock=lock)

    def close(self) -> None:
        self.core.close()

    def __enter__(self) -> Mnemo:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def now(self) -> float:
        return self.core.now()

    def at(self, now: float | str | None) -> AbstractContextManager[None]:
        """Run what happens inside at the time ``now``, on this thread only (``Core.at``)."""
        return self.core.at(now)

    # -- writes -----------------------------------------------------------------------------
    @operation(mutates=True)
    def save(self, content: str, tags: Sequence[str] = (), meta: dict[str, Any] | None = None, **fields: Any) -> SaveResult:
        """Save one memory. ``fields`` are any of the save fields (type, wing, room, source,
        layer, created_at, session_id, pinned, importance, event_at, expires_at)."""
        # A single save gets its fingerprint and links now (spaCy inline); bulk writes defer them.
        return self.save_many([{"content": content, "tags": list(tags), "meta": meta or {}, **fields}], enrich="inline")[0]

    @operation(mutates=True)
    def save_many(self, items: Iterable[dict[str, Any]], progress: Progress | None = None, enrich: str = "defer") -> list[SaveResult]:
        """Validate every item first (nothing is written if one is bad), then embed in batches
        and write. Returns one SaveResult per item, in order. Fingerprints and links of a bulk
        write are left to ``enrich_pending`` (``enrich="inline"`` makes them now)."""
        from .save import save_many

        return save_many(self.core, items, progress, enrich=enrich)

    @operation(mutates=True)
    def touch(self, memory_id: str, context_tags: Sequence[str] | None = None) -> Memory:
        """Reinforce a memory: a use now (see ``lifecycle.reinforce``)."""
        from .lifecycle.reinforce import reinforce

        return reinforce(self.core, [self.core.resolve_id(memory_id)], context_tags=context_tags, kind="touch")[0]

    @operation(mutates=True)
    def forget(self, memory_id: str) -> Memory:
        """Archive a memory (never a silent delete; ``restore`` brings it back)."""
        m = self.get(memory_id)
        if m.pinned:
            raise InvalidInput(f"memory {m.id} is pinned", hint="unpin it first with `mnemo unpin`")
        return self.core.set_status(m, Status.ARCHIVED)

    @operation(mutates=True)
    def restore(self, memory_id: str) -> Memory:
        m = self.get(memory_id)
        if m.status not in (Status.ARCHIVED, Status.COLD):
            return m
        from .lifecycle.cold import warm_up
        from .lifecycle.reinforce import reinforce

        warm_up(self.core, m)
        # Bringing a memory back is a deliberate use: without it the next gc would archive it again.
        return reinforce(self.core, [m.id], kind="restore")[0]

    # -- scoring and the lifecycle (logic in scoring/ and lifecycle/) -------------------------
    @operation(mutates=False)
    def explain(self, memory_id: str) -> Explanation:
        """Every factor of a memory's retention and importance, and the clock each used."""
        from .lifecycle.assess import explain

        return cast("Explanation", explain(self.core, self.get(memory_id)))

    @operation(mutates=True)
    def pin(self, memory_id: str) -> Memory:
        """Never forget this memory (gc skips it, forget refuses it)."""
        from .lifecycle.pin import set_pinned

        return set_pinned(self.core, memory_id, True)

    @operation(mutates=True)
    def unpin(self, memory_id: str) -> Memory:
        from .lifecycle.pin import set_pinned

        return set_pinned(self.core, memory_id, False)

    @operation(mutates=False)
    def review(self, limit: int = 20) -> list[ReviewItem]:
        """The spaced-repetition queue: memories in the danger zone, most urgent first."""
        from .lifecycle.review import review

        return cast("list[ReviewItem]", review(self.core, limit=limit))

    @operation(mutates=True)
    def gc(self, dry_run: bool = False) -> GcReport:
        """The forgetting pass: archive what faded, freeze what is nearly gone (never deletes)."""
        from .lifecycle.gc import gc

        return cast("GcReport", gc(self.core, dry_run=dry_run))

    # -- the dream cycle (logic in lifecycle/dream/) ------------------------------------------
    @operation(mutates=True)
    def dream(self, dry_run: bool = False, steps: Sequence[str] | str | None = None,
              progress: Progress | None = None) -> DreamReport:
        """Plan the dream cycle's steps and, unless ``dry_run``, apply them through the journal
        (an interrupted run is finished first); a report note goes into ``Dreams/``."""
        from .lifecycle.dream import dream

        return cast("DreamReport", dream(self.core, dry_run=dry_run, steps=steps, progress=progress))

    @operation(mutates=False)
    def dream_review(self) -> list[DreamCluster]:
        """Clusters of near-duplicates that wait for a person's decision."""
        from .lifecycle.dream import review

        return cast("list[DreamCluster]", review(self.core))

    @operation(mutates=True)
    def dream_decide(self, cluster_id: str, accept: bool) -> DreamDecision:
        """Accept (merge now) or reject (keep apart) a cluster from the review list."""
        from .lifecycle.dream import decide

        return cast("DreamDecision", decide(self.core, cluster_id, accept))

    @operation(mutates=True)
    def observe(self, memory_ids: Sequence[str], context_tags: Sequence[str] | None = None) -> list[Memory]:
        """Memories used in a conversation: reinforce each, with cross-domain detection."""
        from .lifecycle.reinforce import reinforce

        if isinstance(memory_ids, str):
            memory_ids = [memory_ids]
        if not memory_ids:
            raise InvalidInput("no memory ids given", hint="pass one or more ids")
        ids = list(dict.fromkeys(self.core.resolve_id(i) for i in memory_ids))
        return reinforce(self.core, ids, context_tags=context_tags, kind="observe")

    # -- the vault tier (logic in vault/ and lifecycle/promote.py) ----------------------------
    @operation(mutates=True)
    def index_vault(self, progress: Progress | None = None) -> VaultIndexCounts:
        """Reconcile the vault's notes with the index by content hash (added, changed, moved,
        removed, unchanged); owned notes' edits flow back into their memories."""
        from .vault import indexer, vault_lock

        with vault_lock(self.core):
            return cast("VaultIndexCounts", indexer.index_vault(self.core, progress))

    @operation(mutates=True)
    def index_note(self, path: str) -> NoteIndexResult:
        """Index or re-index one note (absolute or vault-relative path)."""
        from .vault import indexer, vault_lock

        with vault_lock(self.core):
            return cast("NoteIndexResult", indexer.index_note(self.core, path))

    @operation(mutates=True)
    def remove_note(self, path: str) -> NoteRemoval:
        from .vault import indexer, vault_lock

        with vault_lock(self.core):
            return cast("NoteRemoval", indexer.remove_note(self.core, path))

    @operation(mutates=True)
    def move_note(self, old: str, new: str) -> NoteMove:
        from .vault import indexer, vault_lock

        with vault_lock(self.core):
            return cast("NoteMove", indexer.move_note(self.core, old, new))

    @operation(mutates=True)
    def promote(self, memory_id: str | None = None, auto: bool = False, dry_run: bool = False) -> list[PromotionResult]:
        """Promote one memory, or every eligible one with ``auto``, into a note in the vault."""
        from .lifecycle.promote import promote
        from .vault import vault_lock

        with vault_lock(self.core):
            return promote(self.core, memory_id, auto=auto, dry_run=dry_run)

    @operation(mutates=True)
    def demote(self, memory_id: str) -> Memory:
        """Move a promoted memory's note to the archive (marked) and make it active again."""
        from .lifecycle.promote import demote
        from .vault import vault_lock

        with vault_lock(self.core):
            return demote(self.core, memory_id)

    @operation(mutates=False)
    def read_note(self, path_or_title: str) -> NoteView:
        """One note of the vault by path or title (confined to the vault)."""
        from .vault.read import read_note

        return cast("NoteView", read_note(self.core, path_or_title))

    @operation(mutates=False)
    def related(self, path: str | None = None, text: str | None = None, content: str | None = None,
                k: int = 10, tier: str = "all", **filters: Any) -> RelatedResult:
        """Memories and notes related to one note (its title, headings and first lines, or the
        selection ``text``), never the note itself or its own memory; does not reinforce."""
        from .vault.related import related

        return cast("RelatedResult", related(self.core, path, text=text, content=content, k=k, tier=tier, **filters))

    @operation(mutates=True)
    def rename_note(self, path: str, title: str) -> NoteRename:
        """Rename a note mnemo owns; incoming wikilinks in every note follow."""
        from .vault import vault_lock
        from .vault.rename import rename_note

        with vault_lock(self.core):
            return cast("NoteRename", rename_note(self.core, path, title))

    @operation(mutates=True)
    def dashboard(self) -> str:
        """Write the dashboard note; returns its vault-relative path."""
        from .vault import vault_lock
        from .vault.dashboard import write_dashboard

        with vault_lock(self.core):
            return write_dashboard(self.core)

    @operation(mutates=True)
    def edit(
        self,
        memory_id: str,
        content: str | None = None,
        tags: Sequence[str] | None = None,
        type: str | None = None,  # noqa: A002
        layer: str | None = None,
        wing: str | None = None,
        room: str | None = None,
        meta: dict[str, Any] | None = None,
    ) -> Memory:
        """Change some fields of a memory by id (see ``edit.edit_memory``)."""
        from .edit import edit_memory

        return edit_memory(self.core, memory_id, content=content, tags=tags, type=type, layer=layer, wing=wing, room=room, meta=meta)

    # -- conversations and the graph (``ingest``, ``graph``) ----------------------------------
    @operation(mutates=True)
    def ingest(
        self,
        path_or_text: str,
        wing: str | None = None,
        room: str | None = None,
        session_id: str | None = None,
        dry_run: bool = False,
        format: str | None = None,  # noqa: A002 - json, markdown or text
        progress: Progress | None = None,
    ) -> IngestReport:
        """Turn a conversation (a file path, or its text) into memories and links."""
        from .ingest import ingest

        return ingest(self.core, path_or_text, wing=wing, room=room, session_id=session_id, dry_run=dry_run, format=format, progress=progress)

    @operation(mutates=True)
    def capture(
        self,
        path: str,
        source: str = "claude-code",
        wing: str | None = None,
        session_id: str | None = None,
        dry_run: bool = False,
        final: bool = False,
    ) -> CaptureReport:
        """Ingest the part of a client's session transcript not read before (an offset per
        file, in the store), in the session's project; observe the recalled memories it used
        (``capture.py``). ``final``: the session ended."""
        from .capture import capture

        return cast("CaptureReport", capture(self.core, path, source=source, wing=wing, session_id=session_id, dry_run=dry_run, final=final))

    @operation(mutates=True)  # records which ids it showed to the session (nothing is reinforced)
    def project_context(
        self, project: str, query: str | None = None, budget: int | None = None, session_id: str | None = None,
    ) -> ProjectContext:
        """The block a session in ``project`` starts with: the project's pinned memories,
        session notes and relevant memories, then shared knowledge; reinforces nothing."""
        from .capture import project_context

        return cast("ProjectContext", project_context(self.core, project, query=query, budget=budget, session_id=session_id))

    @operation(mutates=True)
    def ingest_conversation(
        self,
        conversation: dict[str, Any],
        format: str,  # noqa: A002 - the export's name in ``sources.READERS``
        me: str | None = None,
        wing: str | None = None,
        room: str | None = None,
        dry_run: bool = False,
    ) -> ConversationIngest:
        """One conversation of a chat export (``sources.Conversation.to_dict()``) as a session,
        unless a previous run already ingested it (see ``sources.session``)."""
        from .sources.session import ingest_conversation

        return cast("ConversationIngest", ingest_conversation(self.core, conversation, format, me=me, wing=wing, room=room, dry_run=dry_run))

    @operation(mutates=False)
    def session_memories(self, session_id: str, limit: int = 50) -> list[Memory]:
        """The memories used (recalled, touched, observed) in one session, last used first:
        what a closing session reviews."""
        if not isinstance(session_id, str) or not session_id.strip():
            raise InvalidInput("session_id must be a non-empty string")
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 1000:
            raise InvalidInput("limit must be a whole number from 1 to 1000")
        ids = self.core.store.session_use_ids(session_id, limit)
        found = self.core.store.get_memories(ids)
        return [found[i] for i in ids if i in found]

    @operation(mutates=False)
    def export_page(self, after: int = 0, limit: int = 500) -> ExportPage:
        """A page of the store as export records (see ``mnemo.export``); ``after`` is the
        cursor the previous page returned."""
        from .export.page import export_page

        return cast("ExportPage", export_page(self.core, after=after, limit=limit))

    @operation(mutates=True)
    def link(self, a: str, b: str, rel: str, origin: str = "person", weight: float = 1.0) -> Link:
        """Link memory ``a`` to ``b`` (stored both ways); causal links run cause → effect."""
        from .graph.links import link

        return link(self.core, a, b, rel, origin=origin, weight=weight)

    @operation(mutates=True)
    def unlink(self, a: str, b: str, rel: str | None = None) -> int:
        from .graph.links import unlink

        return unlink(self.core, a, b, rel)

    @operation(mutates=False)  # only reads: the dead links it meets are removed as upkeep, not as a change
    def chain(self, memory_id: str, depth: int = 5, consequences: bool = False) -> CausalChain:
        """Causes (and consequences) of a memory along causal links; heals dead links."""
        from .graph.traverse import chain

        return cast("CausalChain", chain(self.core, memory_id, depth=depth, consequences=consequences))

    @operation(mutates=False)  # only reads: the dead links it meets are removed as upkeep, not as a change
    def graph(self, memory_id: str, depth: int = 1) -> Neighbourhood:
        """The typed neighbourhood of a memory; heals dead links."""
        from .graph.traverse import graph

        return cast("Neighbourhood", graph(self.core, memory_id, depth=depth))

    @operation(mutates=True)
    def enrich_pending(self, limit: int = 500) -> EnrichReport:
        """Fingerprint and link up to ``limit`` memories a bulk write left pending."""
        from .graph.enrich import enrich_pending

        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
            raise InvalidInput("limit must be a whole number ≥ 0")
        return cast("EnrichReport", enrich_pending(self.core, limit=limit))

    # -- reads ------------------------------------------------------------------------------
    @operation(mutates=False)
    def get(self, memory_id: str) -> Memory:
        return self.core.get(memory_id)

    @operation(mutates=True)
    def recall(
        self,
        query: str,
        k: int | None = None,
        now: float | str | None = None,
        touch: bool = True,
        intent: str | None = None,
        tier: str = "all",
        session_id: str | None = None,
        budget: int | None = None,
        **filters: Any,
    ) -> list[Hit]:
        """Hybrid recall (``recall/pipeline.py``). ``filters``: type, layer, wing, room, tag or
        tags, status, since, until. ``budget`` packs the hits into that many tokens (each hit
        then carries its render mode); ``session_id`` is recorded with the uses when touching."""
        from .recall.pipeline import recall

        with self.core.at(now):  # this call only: the engine's clock stays where it is
            return recall(self.core, query, k=k or self.settings.recall.k, touch=touch, intent=intent, tier=tier,
                          session_id=session_id, budget=budget, **filters)

    @operation(mutates=True)
    def context(
        self,
        query: str,
        budget: int | None = None,
        k: int | None = None,
        touch: bool = True,
        intent: str | None = None,
        tier: str = "all",
        session_id: str | None = None,
        **filters: Any,
    ) -> ContextBlock:
        """The block of text an assistant puts in its prompt, within ``budget`` tokens: pinned
        memories, recent session notes, relevant memories and notes, review candidates
        (``recall/context.py``)."""
        from .recall.context import compose

        return cast("ContextBlock", compose(self.core, query, budget=budget or self.settings.recall.budget, k=k, touch=touch, intent=intent,
                       tier=tier, session_id=session_id, **filters))

    @operation(mutates=False)
    def stats(self) -> Stats:
        s = self.core.store
        return Stats(
            memories=s.count(),
            by_status=s.counts_by("status"),
            by_type=s.counts_by("type"),
            by_layer=s.counts_by("layer"),
            links=s.count_links(),
            uses=s.count_rows("uses"),
            activity_days=s.count_rows("activity_days"),
            notes=s.count_rows("notes"),
            chunks=s.count_rows("chunks"),
            home=str(self.home),
            vault=str(self.settings.vault) if self.settings.vault else None,
            embed_model=s.kv_get("index.model_name") or self.settings.embedding.model,
        )

    @operation(mutates=False)
    def list(
        self,
        status: str | None = None,
        type: str | None = None,
        tag: str | None = None,
        layer: str | None = None,
        wing: str | None = None,
        room: str | None = None,
        limit: int | None = 50,
    ) -> list[Memory]:
        if status:
            inputs.choice(Status, status, "", "status")
        if type:
            inputs.choice(MemoryType, type, "", "type")
        if layer:
            inputs.choice(Layer, layer, "", "layer")
        return self.core.store.list_memories(status=status, type=type, tag=tag, layer=layer, wing=wing, room=room, limit=limit)

    # -- bulk -------------------------------------------------------------------------------
    @operation(mutates=True)
    def import_jsonl(self, path: str | Path, progress: Progress | None = None, batch: int = 256) -> ImportResult:
        """Save the memories of a JSONL file; a ``mnemo export`` file is restored exactly
        (ids, fields, uses, links, status: ``export.restore``)."""
        from .export.restore import is_export, restore
        from .importer import import_jsonl

        if is_export(Path(path)):
            return restore(self.core, path, progress=progress)
        return import_jsonl(self.core, Path(path), progress=progress, batch=batch)

    @operation(mutates=True)
    def reindex(self, progress: Progress | None = None) -> ReindexResult:
        """Rebuild FTS5 and Chroma from the store (the source of truth), and the notes' index
        from the vault."""
        from .reindex import reindex

        return reindex(self.core, progress)

    @operation(mutates=True)
    def move_index(self, to: str, progress: Progress | None = None) -> IndexMove:
        """Move the vector index to a Chroma server URL (or back with ``"embedded"``), copying
        the vectors, and record the new place in config.toml (see ``index.move``)."""
        from .index.move import move_index

        return cast("IndexMove", move_index(self.core, to, progress=progress))

    @operation(mutates=True)
    def doctor(self, repair: bool = False) -> DoctorReport:
        """Check that the indexes agree with the store; ``repair`` fixes them from the store."""
        from .doctor import run_checks

        return cast("DoctorReport", run_checks(self.core, repair=repair))
