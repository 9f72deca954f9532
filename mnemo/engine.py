"""``Mnemo``: the one façade that the CLI, the daemon and the MCP bridge call.

The engine owns the store, the vector index and the models for one ``MNEMO_HOME`` (and
optionally one vault). It holds the owner lock while open: two engines on one home never run
at once (design.md §2). Heavy pieces (Chroma, the embedder) load on first use, so opening an
engine for a command that only reads the store stays cheap.

Write order: SQLite (the truth) commits first, then Chroma (derived). If a crash lands between
the two, ``_sync_index`` at the next open finds the memories Chroma lacks and embeds them.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .clock import Clock, parse_time
from .config import Settings, load_settings
from .errors import HomeError, InvalidInput, NotFound
from .lock import OwnerLock
from .models import (
    MAX_CONTENT_BYTES,
    TRUST,
    Fingerprint,
    Hit,
    ImportResult,
    Layer,
    Link,
    Memory,
    MemoryType,
    PromotionResult,
    SaveResult,
    Source,
    Stats,
    Status,
)
from .store import Store

log = logging.getLogger(__name__)

Progress = Callable[[int], None]
SEARCHABLE = (Status.ACTIVE.value, Status.PROMOTED.value)


def _tags(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple) or not all(isinstance(t, str) for t in value):
        raise InvalidInput(f"{where}tags must be a list of strings")
    out: dict[str, None] = {}
    for t in value:
        t = t.strip().lstrip("#").strip()
        if t:
            out.setdefault(t, None)
    return tuple(out)


def _time(value: Any, where: str, field: str) -> float:
    try:
        return parse_time(value)
    except InvalidInput as exc:
        raise InvalidInput(f"{where}{field}: {exc.message}", hint=exc.hint) from None


def _enum(cls: type, value: Any, where: str, field: str) -> Any:
    try:
        return cls(value)
    except ValueError:
        choices = ", ".join(v.value for v in cls)  # type: ignore[attr-defined]
        raise InvalidInput(f"{where}unknown {field} {value!r}", hint=f"choose one of: {choices}") from None


class Mnemo:
    def __init__(self, settings: Settings, clock: Clock | None = None, embedder: Any = None, lock: bool = True) -> None:
        self.settings = settings
        self.clock = clock or Clock(parse_time(settings.now) if settings.now else None)
        self.home = settings.home
        self._prepare_home()
        self._lock = OwnerLock(self.home, kind="engine") if lock else None
        if self._lock:
            self._lock.acquire()
        try:
            self.store = Store(self.home / "mnemo.db")
        except BaseException:
            if self._lock:
                self._lock.release()
            raise
        self._embedder = embedder
        self._index: Any = None
        self._init_lock = threading.RLock()
        self.write_lock = threading.RLock()
        self._index_writes = 0  # depth of nested index_write blocks
        self._index_write_failed = False
        self._background: Any = None
        from .index.deferred import DeferredMetadata

        self.deferred_meta = DeferredMetadata()
        self._call_time = threading.local()  # a caller's own "now", for one call on one thread (``at``)

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

    def _prepare_home(self) -> None:
        home = self.home
        try:
            home.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as exc:
            raise HomeError(f"cannot create the mnemo home {home}: {exc.strerror}", hint="pass --home PATH or set MNEMO_HOME") from exc
        if not os.access(home, os.R_OK | os.W_OK | os.X_OK):
            raise HomeError(f"the mnemo home {home} is not readable and writable", hint="fix its permissions or pass --home PATH")

    def close(self) -> None:
        try:
            if self._background is not None:
                self._background.shutdown(wait=True)
                self._background = None
            self.deferred_meta.close(self)  # a no-op unless a layer change awaits its index write
            if self._index is not None:
                self._index.close()
                self._index = None
            self.store.close()
        finally:
            if self._lock:
                self._lock.release()

    def __enter__(self) -> Mnemo:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def now(self) -> float:
        t = getattr(self._call_time, "t", None)
        return self.clock.now() if t is None else t

    @contextmanager
    def at(self, now: float | str | None) -> Iterator[None]:
        """Run what happens inside at the time ``now`` (``--now``/``MNEMO_NOW`` of one caller),
        on this thread only: the engine's own clock never moves, so a daemon serving several
        clients and its scheduler keep their time while one request runs at another."""
        if now is None:
            yield
            return
        previous = getattr(self._call_time, "t", None)
        self._call_time.t = parse_time(now)
        try:
            yield
        finally:
            self._call_time.t = previous

    # -- lazy heavy parts -------------------------------------------------------------------
    @property
    def embedder(self) -> Any:
        with self._init_lock:
            if self._embedder is None:
                from .nlp.embedder import make_embedder

                e = self.settings.embedding
                cache = Path(e.model_cache).expanduser() if e.model_cache else self.home / "models"
                self._embedder = make_embedder(e.model, e.batch_size, e.query_cache, backend=e.backend, cache_dir=cache)
            return self._embedder

    @property
    def background(self) -> Any:
        """One worker thread for work beside a request's own (a query's embedding while FTS5 runs)."""
        with self._init_lock:
            if self._background is None:
                from concurrent.futures import ThreadPoolExecutor

                self._background = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mnemo-worker")
            return self._background

    @property
    def index(self) -> Any:
        with self._init_lock:
            if self._index is None:
                from .index.chroma import VectorIndex

                url = self.settings.index.chroma_url
                if url:
                    self._index = VectorIndex(url=url, batch=self.settings.index.batch, prefix=self._index_prefix())
                else:
                    from .index.recover import open_embedded

                    # A folder Chroma cannot read is moved aside and rebuilt from the store.
                    path = self.home / "chroma"
                    self._index = open_embedded(path, lambda: VectorIndex(path=path, batch=self.settings.index.batch),
                                                self.store)
                self._check_model()
            return self._index

    def _index_prefix(self) -> str:
        """Each home gets its own collections on a shared Chroma server."""
        pid = self.store.kv_get("home.id")
        if pid is None:
            pid = uuid.uuid4().hex[:12]
            self.store.kv_set("home.id", pid)
        return f"h{pid}_"

    def _check_model(self) -> None:
        """Re-embed everything when the configured model is not the one the index was built with,
        and embed what a crash left out of the index."""
        current = self.embedder.model_hash
        recorded = self.store.kv_get("index.model_hash")
        if recorded != current:
            if recorded is not None or self.store.count() > 0:
                log.info("embedding model changed (%s → %s): re-embedding", recorded, current)
                self._rebuild_vectors()
            self.store.kv_set("index.model_hash", current)
            self.store.kv_set("index.model_name", self.embedder.name)
        else:
            self._sync_index()

    # -- validation -------------------------------------------------------------------------
    def _draft(self, item: dict[str, Any], where: str = "") -> tuple[Memory, bool]:
        """Validate one save item → (memory, whether its type was given)."""
        if not isinstance(item, dict):
            raise InvalidInput(f"{where}expected an object with at least 'content'")
        unknown = set(item) - _SAVE_FIELDS
        if unknown:
            raise InvalidInput(f"{where}unknown field(s): {', '.join(sorted(unknown))}", hint=f"known: {', '.join(sorted(_SAVE_FIELDS))}")
        content = item.get("content", item.get("text"))
        if content is not None and not isinstance(content, str):
            kind = {bool: "true/false", int: "a number", float: "a number", list: "a list", dict: "an object"}.get(
                type(content), type(content).__name__)
            raise InvalidInput(f"{where}content must be text, not {kind} ({json.dumps(content, default=str)[:40]})",
                               hint='give the text of the memory as a string, e.g. "content": "..."')
        if not isinstance(content, str) or not content.strip():
            raise InvalidInput(f"{where}content is empty", hint="give the text of the memory")
        size = len(content.encode("utf-8", errors="surrogatepass"))
        if size > MAX_CONTENT_BYTES:
            raise InvalidInput(f"{where}content is {size} bytes; the limit is {MAX_CONTENT_BYTES} (64 KiB)", hint="split it into several memories")
        try:
            content.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidInput(f"{where}content is not valid Unicode text") from None
        meta = item.get("meta") or {}
        if not isinstance(meta, dict):
            raise InvalidInput(f"{where}meta must be a JSON object")
        try:
            json.dumps(meta)
        except (TypeError, ValueError, RecursionError) as exc:
            raise InvalidInput(f"{where}meta is not JSON-serialisable: {exc}") from None
        from . import inputs

        given_id = inputs.memory_id(item.get("id"), where)
        pinned = inputs.flag(item.get("pinned"), where, "pinned")
        now = self.now()
        created = item.get("created_at")
        created_at = _time(created, where, "created_at") if created is not None else now
        source = _enum(Source, item.get("source") or "human", where, "source")
        mtype = _enum(MemoryType, item["type"], where, "type") if item.get("type") else None
        layer = _enum(Layer, item["layer"], where, "layer") if item.get("layer") else Layer.WORKING
        importance = item.get("importance")
        if importance is not None and (isinstance(importance, bool) or not (isinstance(importance, int | float) and 0 <= importance <= 1)):
            raise InvalidInput(f"{where}importance must be a number from 0 to 1")
        for key in ("wing", "room", "session_id"):
            if item.get(key) is not None and not isinstance(item[key], str):
                raise InvalidInput(f"{where}{key} must be a string")
        return Memory(
            id=given_id or str(uuid.uuid4()),
            content=content,
            type=mtype or MemoryType.FACT,
            layer=layer,
            fingerprint=Fingerprint(type=(mtype or MemoryType.FACT).value),
            wing=item.get("wing"),
            room=item.get("room"),
            tags=_tags(item.get("tags"), where),
            source=source,
            trust=TRUST[source],
            importance=float(importance) if importance is not None else 0.5,
            created_at=created_at,
            updated_at=now,
            pinned=pinned,
            meta=meta,
            session_id=item.get("session_id"),
            event_at=_time(item["event_at"], where, "event_at") if item.get("event_at") else None,
            expires_at=_time(item["expires_at"], where, "expires_at") if item.get("expires_at") else None,
            embed_model=None,
        ), mtype is not None

    # -- writes -----------------------------------------------------------------------------
    def save(self, content: str, tags: Sequence[str] = (), meta: dict[str, Any] | None = None, **fields: Any) -> SaveResult:
        """Save one memory. ``fields`` are any of the save fields (type, wing, room, source,
        layer, created_at, session_id, pinned, importance, event_at, expires_at)."""
        # A single save gets its fingerprint and links now (spaCy inline); bulk writes defer them.
        return self.save_many([{"content": content, "tags": list(tags), "meta": meta or {}, **fields}], enrich="inline")[0]

    def save_many(self, items: Iterable[dict[str, Any]], progress: Progress | None = None, enrich: str = "defer") -> list[SaveResult]:
        """Validate every item first (nothing is written if one is bad), then embed in batches
        and write. Returns one SaveResult per item, in order. Fingerprints and links of a bulk
        write are left to ``enrich_pending`` (``enrich="inline"`` makes them now)."""
        drafts: list[tuple[Memory, bool]] = [self._draft(item, f"item {i + 1}: ") for i, item in enumerate(items)]
        if not drafts:
            return []
        if enrich not in ("defer", "inline"):
            raise InvalidInput(f"unknown enrich mode {enrich!r}", hint="defer or inline")
        from . import inputs, pipeline

        inputs.new_ids(self.store, [m.id for m, _ in drafts])

        return pipeline.write_memories(self, drafts, progress, enrich=enrich)

    def touch(self, memory_id: str, context_tags: Sequence[str] | None = None) -> Memory:
        """Reinforce a memory: a use now (see ``lifecycle.reinforce``)."""
        from .lifecycle.reinforce import reinforce

        return reinforce(self, [self.resolve_id(memory_id)], context_tags=context_tags, kind="touch")[0]

    def forget(self, memory_id: str) -> Memory:
        """Archive a memory (never a silent delete; ``restore`` brings it back)."""
        m = self.get(memory_id)
        if m.pinned:
            raise InvalidInput(f"memory {m.id} is pinned", hint="unpin it first with `mnemo unpin`")
        return self.set_status(m, Status.ARCHIVED)

    def restore(self, memory_id: str) -> Memory:
        m = self.get(memory_id)
        if m.status not in (Status.ARCHIVED, Status.COLD):
            return m
        from .lifecycle.cold import warm_up
        from .lifecycle.reinforce import reinforce

        warm_up(self, m)
        # Bringing a memory back is a deliberate use: without it the next gc would archive it again.
        return reinforce(self, [m.id], kind="restore")[0]

    # -- scoring and the lifecycle (logic in scoring/ and lifecycle/) -------------------------
    def explain(self, memory_id: str) -> dict[str, Any]:
        """Every factor of a memory's retention and importance, and the clock each used."""
        from .lifecycle.assess import explain

        return explain(self, self.get(memory_id))

    def pin(self, memory_id: str) -> Memory:
        """Never forget this memory (gc skips it, forget refuses it)."""
        from .lifecycle.pin import set_pinned

        return set_pinned(self, memory_id, True)

    def unpin(self, memory_id: str) -> Memory:
        from .lifecycle.pin import set_pinned

        return set_pinned(self, memory_id, False)

    def review(self, limit: int = 20) -> list[dict[str, Any]]:
        """The spaced-repetition queue: memories in the danger zone, most urgent first."""
        from .lifecycle.review import review

        return review(self, limit=limit)

    def gc(self, dry_run: bool = False) -> dict[str, Any]:
        """The forgetting pass: archive what faded, freeze what is nearly gone (never deletes)."""
        from .lifecycle.gc import gc

        return gc(self, dry_run=dry_run)

    # -- the dream cycle (logic in lifecycle/dream/) ------------------------------------------
    def dream(self, dry_run: bool = False, steps: Sequence[str] | str | None = None,
              progress: Progress | None = None) -> dict[str, Any]:
        """Plan the dream cycle's steps and, unless ``dry_run``, apply them through the journal
        (an interrupted run is finished first); a report note goes into ``Dreams/``."""
        from .lifecycle.dream import dream

        return dream(self, dry_run=dry_run, steps=steps, progress=progress)

    def dream_review(self) -> list[dict[str, Any]]:
        """Clusters of near-duplicates that wait for a person's decision."""
        from .lifecycle.dream import review

        return review(self)

    def dream_decide(self, cluster_id: str, accept: bool) -> dict[str, Any]:
        """Accept (merge now) or reject (keep apart) a cluster from the review list."""
        from .lifecycle.dream import decide

        return decide(self, cluster_id, accept)

    def observe(self, memory_ids: Sequence[str], context_tags: Sequence[str] | None = None) -> list[Memory]:
        """Memories used in a conversation: reinforce each, with cross-domain detection."""
        from .lifecycle.reinforce import reinforce

        if isinstance(memory_ids, str):
            memory_ids = [memory_ids]
        if not memory_ids:
            raise InvalidInput("no memory ids given", hint="pass one or more ids")
        ids = list(dict.fromkeys(self.resolve_id(i) for i in memory_ids))
        return reinforce(self, ids, context_tags=context_tags, kind="observe")

    # -- the vault tier (logic in vault/ and lifecycle/promote.py) ----------------------------
    def index_vault(self, progress: Progress | None = None) -> dict[str, Any]:
        """Reconcile the vault's notes with the index by content hash (added, changed, moved,
        removed, unchanged); owned notes' edits flow back into their memories."""
        from .vault import indexer, vault_lock

        with vault_lock(self):
            return indexer.index_vault(self, progress)

    def index_note(self, path: str) -> dict[str, Any]:
        """Index or re-index one note (absolute or vault-relative path)."""
        from .vault import indexer, vault_lock

        with vault_lock(self):
            return indexer.index_note(self, path)

    def remove_note(self, path: str) -> dict[str, Any]:
        from .vault import indexer, vault_lock

        with vault_lock(self):
            return indexer.remove_note(self, path)

    def move_note(self, old: str, new: str) -> dict[str, Any]:
        from .vault import indexer, vault_lock

        with vault_lock(self):
            return indexer.move_note(self, old, new)

    def promote(self, memory_id: str | None = None, auto: bool = False, dry_run: bool = False) -> list[PromotionResult]:
        """Promote one memory, or every eligible one with ``auto``, into a note in the vault."""
        from .lifecycle.promote import promote
        from .vault import vault_lock

        with vault_lock(self):
            return promote(self, memory_id, auto=auto, dry_run=dry_run)

    def demote(self, memory_id: str) -> Memory:
        """Move a promoted memory's note to the archive (marked) and make it active again."""
        from .lifecycle.promote import demote
        from .vault import vault_lock

        with vault_lock(self):
            return demote(self, memory_id)

    def read_note(self, path_or_title: str) -> dict[str, Any]:
        """One note of the vault by path or title (confined to the vault)."""
        from .vault.read import read_note

        return read_note(self, path_or_title)

    def related(self, path: str | None = None, text: str | None = None, content: str | None = None,
                k: int = 10, tier: str = "all", **filters: Any) -> dict[str, Any]:
        """Memories and notes related to one note (its title, headings and first lines, or the
        selection ``text``), never the note itself or its own memory; does not reinforce."""
        from .vault.related import related

        return related(self, path, text=text, content=content, k=k, tier=tier, **filters)

    def rename_note(self, path: str, title: str) -> dict[str, Any]:
        """Rename a note mnemo owns; incoming wikilinks in every note follow."""
        from .vault import vault_lock
        from .vault.rename import rename_note

        with vault_lock(self):
            return rename_note(self, path, title)

    def dashboard(self) -> str:
        """Write the dashboard note; returns its vault-relative path."""
        from .vault import vault_lock
        from .vault.dashboard import write_dashboard

        with vault_lock(self):
            return write_dashboard(self)

    def set_status(self, m: Memory, status: Status) -> Memory:
        from dataclasses import replace

        now = self.now()
        with self.write_lock, self.index_write():
            # Only the status and the note change: the rest comes from the row as it is now, so a
            # use recorded since the caller read ``m`` (another request) is not written over.
            current = self.store.get_memory(m.id) or m
            new = replace(current, status=status, note_path=m.note_path, updated_at=now,
                          archived_at=now if status == Status.ARCHIVED else current.archived_at)
            self.store.update_memory(new)
            self.index.update_metadata("memories", [new.id], [vector_meta(new)])
        return new

    def update(self, memory: Memory) -> Memory:
        """Write a changed memory back (content changes are re-embedded)."""
        from dataclasses import replace

        old = self.get(memory.id)
        new = replace(memory, updated_at=self.now())
        with self.write_lock, self.index_write():
            if new.content != old.content:
                from .nlp.tokens import count_tokens

                new = replace(new, tokens=count_tokens(new.content))
                self.store.update_memory(new)
                from .graph.db import queue

                queue(self.store, [new.id], self.now())  # new words: fingerprint and links again
                vec = self.embedder.embed([new.content])
                self.index.upsert("memories", [new.id], vec, [vector_meta(new)])
            else:
                self.store.update_memory(new)
                self.index.update_metadata("memories", [new.id], [vector_meta(new)])
        return new

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

        return edit_memory(self, memory_id, content=content, tags=tags, type=type, layer=layer, wing=wing, room=room, meta=meta)

    # -- conversations and the graph (``ingest``, ``graph``) ----------------------------------
    def ingest(
        self,
        path_or_text: str,
        wing: str | None = None,
        room: str | None = None,
        session_id: str | None = None,
        dry_run: bool = False,
        format: str | None = None,  # noqa: A002 - json, markdown or text
        progress: Progress | None = None,
    ) -> dict[str, Any]:
        """Turn a conversation (a file path, or its text) into memories and links."""
        from .ingest import ingest

        return ingest(self, path_or_text, wing=wing, room=room, session_id=session_id, dry_run=dry_run, format=format, progress=progress)

    def capture(
        self,
        path: str,
        source: str = "claude-code",
        wing: str | None = None,
        session_id: str | None = None,
        dry_run: bool = False,
        final: bool = False,
    ) -> dict[str, Any]:
        """Ingest the part of a client's session transcript not read before (an offset per
        file, in the store), in the session's project; observe the recalled memories it used
        (``capture.py``). ``final``: the session ended."""
        from .capture import capture

        return capture(self, path, source=source, wing=wing, session_id=session_id, dry_run=dry_run, final=final)

    def project_context(
        self, project: str, query: str | None = None, budget: int | None = None, session_id: str | None = None,
    ) -> dict[str, Any]:
        """The block a session in ``project`` starts with: the project's pinned memories,
        session notes and relevant memories, then shared knowledge; reinforces nothing."""
        from .capture import project_context

        return project_context(self, project, query=query, budget=budget, session_id=session_id)

    def ingest_conversation(
        self,
        conversation: dict[str, Any],
        format: str,  # noqa: A002 - the export's name in ``sources.READERS``
        me: str | None = None,
        wing: str | None = None,
        room: str | None = None,
        dry_run: bool = False,
    ) -> dict[str, Any]:
        """One conversation of a chat export (``sources.Conversation.to_dict()``) as a session,
        unless a previous run already ingested it (see ``sources.session``)."""
        from .sources.session import ingest_conversation

        return ingest_conversation(self, conversation, format, me=me, wing=wing, room=room, dry_run=dry_run)

    def session_memories(self, session_id: str, limit: int = 50) -> list[Memory]:
        """The memories used (recalled, touched, observed) in one session, last used first:
        what a closing session reviews."""
        if not isinstance(session_id, str) or not session_id.strip():
            raise InvalidInput("session_id must be a non-empty string")
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 1000:
            raise InvalidInput("limit must be a whole number from 1 to 1000")
        rows = self.store.query(
            "SELECT memory_id, max(at) AS last FROM uses WHERE json_valid(context) "
            "AND json_extract(context, '$.session_id') = ? GROUP BY memory_id ORDER BY last DESC LIMIT ?",
            (session_id, limit),
        )
        found = self.store.get_memories([r[0] for r in rows])
        return [found[r[0]] for r in rows if r[0] in found]

    def export_page(self, after: int = 0, limit: int = 500) -> dict[str, Any]:
        """A page of the store as export records (see ``mnemo.export``); ``after`` is the
        cursor the previous page returned."""
        from .export.page import export_page

        return export_page(self, after=after, limit=limit)

    def link(self, a: str, b: str, rel: str, origin: str = "person", weight: float = 1.0) -> Link:
        """Link memory ``a`` to ``b`` (stored both ways); causal links run cause → effect."""
        from .graph.links import link

        return link(self, a, b, rel, origin=origin, weight=weight)

    def unlink(self, a: str, b: str, rel: str | None = None) -> int:
        from .graph.links import unlink

        return unlink(self, a, b, rel)

    def chain(self, memory_id: str, depth: int = 5, consequences: bool = False) -> dict[str, Any]:
        """Causes (and consequences) of a memory along causal links; heals dead links."""
        from .graph.traverse import chain

        return chain(self, memory_id, depth=depth, consequences=consequences)

    def graph(self, memory_id: str, depth: int = 1) -> dict[str, Any]:
        """The typed neighbourhood of a memory; heals dead links."""
        from .graph.traverse import graph

        return graph(self, memory_id, depth=depth)

    def enrich_pending(self, limit: int = 500) -> dict[str, Any]:
        """Fingerprint and link up to ``limit`` memories a bulk write left pending."""
        from .graph.enrich import enrich_pending

        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
            raise InvalidInput("limit must be a whole number ≥ 0")
        return enrich_pending(self, limit=limit)

    # -- reads ------------------------------------------------------------------------------
    def resolve_id(self, memory_id: str) -> str:
        memory_id = (memory_id or "").strip()
        if not memory_id:
            raise InvalidInput("no memory id given")
        if self.store.get_memory(memory_id) is not None:
            return memory_id
        if len(memory_id) >= 4:
            found = self.store.find_prefix(memory_id)
            if len(found) == 1:
                return found[0]
            if len(found) > 1:
                raise InvalidInput(f"id prefix {memory_id!r} is ambiguous", hint="give more characters of the id")
        note = self._note_of_handle(memory_id)
        if note is not None:
            path, owner = note
            if owner and self.store.get_memory(owner) is not None:
                return owner  # a passage of a promoted note: its memory
            raise NotFound(f"{memory_id!r} is the note {path}, not a memory",
                           hint=f"read it with `mnemo note show \"{path}\"`; a person's note is recalled, never touched or changed")
        raise NotFound(f"no memory with id {memory_id!r}", hint="`mnemo list` shows the ids")

    def _note_of_handle(self, handle: str) -> tuple[str, str | None] | None:
        """(path, mnemo_id) of the note a recall hit named: a passage id (``<note uid>:<n>``, or
        the first 8+ characters of it as the CLI prints them) or the note's path (with the
        ``#heading`` that ``context`` adds)."""
        rows = self.store.query("SELECT n.path, n.mnemo_id FROM chunks c JOIN notes n ON n.uid = c.note_uid WHERE c.id = ?",
                                (handle,))
        if not rows and len(handle) >= 8 and all(ch in "0123456789abcdef" for ch in handle):
            rows = self.store.query("SELECT path, mnemo_id FROM notes WHERE uid LIKE ? || '%' LIMIT 2", (handle,))
            if len(rows) > 1:
                raise InvalidInput(f"id prefix {handle!r} is ambiguous", hint="give more characters of the id")
        if not rows:
            path = handle.split("#", 1)[0]  # `context` names a passage as path#heading
            rows = self.store.query("SELECT path, mnemo_id FROM notes WHERE path = ? OR path = ? || '.md'", (path, path))
        return (rows[0][0], rows[0][1]) if rows else None

    def get(self, memory_id: str) -> Memory:
        m = self.store.get_memory(self.resolve_id(memory_id))
        assert m is not None
        return m

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
            _enum(Status, status, "", "status")
        if type:
            _enum(MemoryType, type, "", "type")
        if layer:
            _enum(Layer, layer, "", "layer")
        return self.store.list_memories(status=status, type=type, tag=tag, layer=layer, wing=wing, room=room, limit=limit)

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

        with self.at(now):  # this call only: the engine's clock stays where it is
            return recall(self, query, k=k or self.settings.recall.k, touch=touch, intent=intent, tier=tier,
                          session_id=session_id, budget=budget, **filters)

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
    ) -> dict[str, Any]:
        """The block of text an assistant puts in its prompt, within ``budget`` tokens: pinned
        memories, recent session notes, relevant memories and notes, review candidates
        (``recall/context.py``)."""
        from .recall.context import compose

        return compose(self, query, budget=budget or self.settings.recall.budget, k=k, touch=touch, intent=intent,
                       tier=tier, session_id=session_id, **filters)

    def stats(self) -> Stats:
        s = self.store
        return Stats(
            memories=s.count(),
            by_status=s.counts_by("status"),
            by_type=s.counts_by("type"),
            by_layer=s.counts_by("layer"),
            links=s.count_links(),
            uses=int(s.query("SELECT count(*) FROM uses")[0][0]),
            activity_days=int(s.query("SELECT count(*) FROM activity_days")[0][0]),
            notes=int(s.query("SELECT count(*) FROM notes")[0][0]),
            chunks=int(s.query("SELECT count(*) FROM chunks")[0][0]),
            home=str(self.home),
            vault=str(self.settings.vault) if self.settings.vault else None,
            embed_model=s.kv_get("index.model_name") or self.settings.embedding.model,
        )

    # -- bulk -------------------------------------------------------------------------------
    def import_jsonl(self, path: str | Path, progress: Progress | None = None, batch: int = 256) -> ImportResult:
        """Save the memories of a JSONL file; a ``mnemo export`` file is restored exactly
        (ids, fields, uses, links, status: ``export.restore``)."""
        from .export.restore import is_export, restore
        from .importer import import_jsonl

        if is_export(Path(path)):
            return restore(self, path, progress=progress)
        return import_jsonl(self, Path(path), progress=progress, batch=batch)

    def reindex(self, progress: Progress | None = None) -> dict[str, int]:
        """Rebuild FTS5 and Chroma from the store (the source of truth)."""
        with self.write_lock:
            fts = self.store.fts_rebuild()
            _ = self.index  # opening checks the model
            vectors = self._rebuild_vectors(progress)
            self.store.kv_set("index.model_hash", self.embedder.model_hash)
            self.store.kv_set("index.model_name", self.embedder.name)
        result = {"fts": fts, "vectors": vectors}
        if self.settings.vault is not None and self.settings.vault.is_dir():
            from .vault import indexer, vault_lock

            with vault_lock(self):  # the notes' index is derived too: rebuilt from the vault
                result["notes"] = indexer.rebuild(self)["notes"]
        return result

    def move_index(self, to: str, progress: Progress | None = None) -> dict[str, Any]:
        """Move the vector index to a Chroma server URL (or back with ``"embedded"``), copying
        the vectors, and record the new place in config.toml (see ``index.move``)."""
        from .index.move import move_index

        return move_index(self, to, progress=progress)

    def doctor(self, repair: bool = False) -> dict[str, Any]:
        """Check that the indexes agree with the store; ``repair`` fixes them from the store."""
        from .doctor import run_checks

        return run_checks(self, repair=repair)

    def _rebuild_vectors(self, progress: Progress | None = None) -> int:
        idx = self._index
        idx.drop("memories")
        return self._embed_into_index(self.store.iter_memories(batch=512, status=_HOT), progress)

    def _embed_into_index(self, batches: Iterable[list[Memory]], progress: Progress | None = None) -> int:
        n = 0
        for batch in batches:
            vecs = self.embedder.embed([m.content for m in batch])
            self._index.upsert("memories", [m.id for m in batch], vecs, [vector_meta(m) for m in batch])
            # Record which model made each vector (the doctor checks it against the current one).
            with self.store.tx() as conn:
                conn.executemany("UPDATE memories SET embed_model = ? WHERE id = ?",
                                 [(self.embedder.model_hash, m.id) for m in batch])
            n += len(batch)
            if progress:
                progress(len(batch))
        return n

    @contextmanager
    def index_write(self) -> Iterator[None]:
        """Mark the vector index dirty around a write to it: if the process dies between the
        store's commit and Chroma's write, the next open sees the mark and re-syncs. Nested
        uses clear the mark only when the outermost one ends; a failed write leaves it set."""
        with self.write_lock:
            if not self._index_writes:
                self.store.kv_set("index.dirty", "1")
                self._index_write_failed = False
            self._index_writes += 1
            try:
                yield
            except BaseException:
                self._index_write_failed = True
                raise
            finally:
                self._index_writes -= 1
            if not self._index_writes and not self._index_write_failed and not self.deferred_meta:
                self.store.kv_set("index.dirty", "0")

    def _sync_index(self) -> None:
        """Bring the vector index in line with the store after a crash between the SQLite
        commit and the Chroma write, or a lost Chroma folder (``index.recover.sync``). Cheap
        when the last write finished and the counts agree."""
        from .index.recover import sync

        sync(self)


_HOT = ("active", "promoted", "archived")
_SAVE_FIELDS = frozenset(
    {
        "content", "text", "tags", "meta", "type", "layer", "wing", "room", "source", "created_at",
        "session_id", "pinned", "importance", "event_at", "expires_at", "id",
    }
)


def vector_meta(m: Memory) -> dict[str, Any]:
    return {
        "status": m.status.value,
        "type": m.type.value,
        "layer": m.layer.value,
        "wing": m.wing,
        "room": m.room,
        "source": m.source.value,
        "created_at": m.created_at,
        "pinned": m.pinned,
    }
