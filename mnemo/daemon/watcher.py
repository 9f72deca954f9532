"""The vault watcher (design.md §7): file events → ``index_note`` / ``remove_note`` /
``move_note``, debounced per path.

``NoteEvents`` is the logic, a plain class fed events with explicit times (tests drive it with
no sleeps and no file-system observer); ``VaultWatcher`` connects it to watchdog and to the
daemon (each engine call under the daemon's operation lock).

Rules:
- Only mutating events (created, modified, deleted, moved) of Markdown files; dot paths
  (``.obsidian``, ``.trash``, temp files), conflict copies and ``vault.exclude`` are ignored
  (the vault indexer's own rules, ``vault.indexer.indexable``).
- Debounce: a path is handled once it has been quiet for ``debounce`` seconds (editors and sync
  tools write a file several times in a row).
- Self-echo: a note whose bytes hash to what the index already holds is skipped without calling
  the engine; mnemo indexes every note it writes right after writing it, so its own writes come
  back as such no-ops (and a person's save that changes nothing costs nothing).
- A create on a path the index knows is a modify; a temp file renamed onto a note (atomic save)
  is a modify of the note; a note moved into a dot folder (Obsidian's ``.trash``) is a delete.
- Moves: watchdog's move events, and a delete plus a create with the same content hash (how
  many sync tools and editors rename), become ``move_note``: nothing is re-embedded.
- A note whose YAML frontmatter does not parse is retried after a pause (a sync tool may be
  half-way through writing it); if it still fails it is indexed as plain text. Never "fixed".
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .server import Daemon

log = logging.getLogger("mnemo.daemon.watcher")

MUTATING = frozenset({"created", "modified", "deleted", "moved"})
RETRY_DELAYS = (2.0, 5.0, 15.0)


class NoteActions(Protocol):
    """What the watcher needs from the engine (vault-relative paths)."""

    def index_note(self, rel: str) -> dict[str, Any]: ...

    def remove_note(self, rel: str) -> dict[str, Any]: ...

    def move_note(self, old: str, new: str) -> dict[str, Any]: ...

    def known_hash(self, rel: str) -> str | None: ...

    def known_under(self, prefix: str) -> list[str]: ...


@dataclass
class Pending:
    kind: str  # created | changed | deleted | moved
    due: float
    src: str | None = None  # moved: the old path
    attempts: int = 0  # YAML retries so far


def _file_hash(path: Path) -> str | None:
    from ..vault.writer import bytes_hash

    try:
        return bytes_hash(path.read_bytes())
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        return None


def _yaml_error(path: Path, rel: str) -> str | None:
    from ..vault.parse import parse_note

    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return None
    return parse_note(rel, text).fm_error


class NoteEvents:
    def __init__(
        self,
        vault: Path,
        actions: NoteActions,
        debounce: float = 1.0,
        patterns: list[str] | None = None,
        retry_delays: tuple[float, ...] = RETRY_DELAYS,
    ) -> None:
        self.vault = Path(vault)
        self.root = os.path.realpath(self.vault)
        self.actions = actions
        self.debounce = debounce
        self.patterns = list(patterns or [])
        self.retry_delays = retry_delays
        self.pending: dict[str, Pending] = {}
        self.lock = threading.RLock()
        self.handled = 0  # engine calls made
        self.skipped = 0  # events that needed no engine call (echoes, no-ops)
        self.errors = 0
        self.last_event_at: float | None = None
        self.last_error: str | None = None
        self.log: list[dict[str, Any]] = []  # recent actions, newest last (status / tests)

    # -- paths --------------------------------------------------------------------------------
    def rel(self, path: str | os.PathLike[str]) -> str | None:
        """Vault-relative POSIX path, or None for a path outside the vault."""
        p = os.path.abspath(os.fspath(path))
        for base in (os.path.abspath(self.vault), self.root):
            if p == base:
                return None
            if p.startswith(base + os.sep):
                return p[len(base) + 1:].replace(os.sep, "/")
        return None

    def ignored(self, rel: str | None) -> bool:
        """Not a note the index wants: outside the vault, not Markdown, a dot path (.obsidian,
        .trash, temp files), a conflict copy, or excluded by ``vault.exclude``."""
        if rel is None or not rel.lower().endswith(".md"):
            return True
        if any(part.startswith(".") for part in rel.split("/")):
            return True
        from ..vault.indexer import indexable

        return not indexable(self.vault, rel, self.patterns)

    # -- feeding ------------------------------------------------------------------------------
    def feed(self, kind: str, src: str, dest: str | None = None, at: float | None = None, is_dir: bool = False) -> None:
        """One file-system event (watchdog's names: created, modified, deleted, moved)."""
        if kind not in MUTATING:
            return
        at = time.monotonic() if at is None else at
        with self.lock:
            self.last_event_at = at
            if is_dir:
                self._feed_dir(kind, src, dest, at)
                return
            s = self.rel(src)
            if kind != "moved":
                if not self.ignored(s):
                    self._note(kind, s, at)  # type: ignore[arg-type]
                return
            d = self.rel(dest) if dest is not None else None
            s_ign, d_ign = self.ignored(s), self.ignored(d)
            if s_ign and d_ign:
                return
            if s_ign:  # a temp file renamed onto a note: the note was written
                self._note("created", d, at)  # type: ignore[arg-type]
            elif d_ign:  # moved out of sight (.trash, outside the vault): gone
                self._note("deleted", s, at)  # type: ignore[arg-type]
            else:
                self._moved(s, d, at)  # type: ignore[arg-type]

    def _note(self, kind: str, rel: str, at: float) -> None:
        prev = self.pending.get(rel)
        due = at + self.debounce
        if kind == "created":
            new = "changed" if prev and prev.kind == "deleted" else (prev.kind if prev else "created")
            self.pending[rel] = Pending(new, due, prev.src if prev and prev.kind == "moved" else None)
        elif kind == "modified":
            new = prev.kind if prev and prev.kind in ("created", "moved") else "changed"
            self.pending[rel] = Pending(new, due, prev.src if prev and prev.kind == "moved" else None)
        elif kind == "deleted":
            if prev and prev.kind == "moved" and prev.src:
                # moved then deleted: it is the old path that is gone from the index's view
                del self.pending[rel]
                self.pending[prev.src] = Pending("deleted", due)
            elif prev and prev.kind == "created" and self.actions.known_hash(rel) is None:
                del self.pending[rel]  # came and went within the debounce: nothing to do
            else:
                self.pending[rel] = Pending("deleted", due)

    def _moved(self, src: str, dest: str, at: float) -> None:
        prev = self.pending.pop(src, None)
        due = at + self.debounce
        if prev and prev.kind == "created":
            self.pending[dest] = Pending("created", due)  # never indexed under src
        elif prev and prev.kind == "moved":
            self.pending[dest] = Pending("moved", due, prev.src)  # a → b → c is a → c
        else:
            self.pending[dest] = Pending("moved", due, src)

    def _feed_dir(self, kind: str, src: str, dest: str | None, at: float) -> None:
        """A folder event: watchdog reports the files of a moved folder one by one, but not the
        notes of a folder deleted or moved out of the vault, nor of one moved in."""
        if kind == "deleted" or (kind == "moved" and self.ignored_dir(dest)):
            prefix = self.rel(src)
            if prefix is not None:
                for rel in self.actions.known_under(prefix + "/"):
                    self._note("deleted", rel, at)
        if kind == "created" or (kind == "moved" and self.ignored_dir(src) and not self.ignored_dir(dest)):
            folder = dest if kind == "moved" and dest is not None else src  # a move always has a dest
            for base, _dirs, files in os.walk(folder):
                for name in files:
                    note = self.rel(os.path.join(base, name))
                    if note is not None and not self.ignored(note):
                        self._note("created", note, at)

    def ignored_dir(self, path: str | None) -> bool:
        rel = self.rel(path) if path is not None else None
        return rel is None or any(p.startswith(".") for p in rel.split("/"))

    # -- handling -----------------------------------------------------------------------------
    def next_due(self) -> float | None:
        with self.lock:
            return min((p.due for p in self.pending.values()), default=None)

    def pending_count(self) -> int:
        with self.lock:
            return len(self.pending)

    def flush(self, now: float | None = None) -> list[dict[str, Any]]:
        """Handle every path that has been quiet for the debounce time. Returns what was done."""
        now = time.monotonic() if now is None else now
        done: list[dict[str, Any]] = []
        with self.lock:
            due = sorted((p.due, rel) for rel, p in self.pending.items() if p.due <= now)
            for _, rel in due:
                p = self.pending.pop(rel, None)
                if p is None:  # consumed as the other half of a move
                    continue
                try:
                    result = self._handle(rel, p, now)
                except Exception as exc:  # noqa: BLE001 - one bad note must not stop the watcher
                    self.errors += 1
                    self.last_error = f"{rel}: {getattr(exc, 'message', exc)}"
                    log.warning("watcher: %s", self.last_error)
                    result = {"path": rel, "action": "error", "error": str(getattr(exc, "message", exc))}
                done.append(result)
            self.log = (self.log + done)[-50:]
        return done

    def _handle(self, rel: str, p: Pending, now: float) -> dict[str, Any]:
        path = self.vault / rel
        kind = p.kind
        exists = path.is_file()
        if kind == "moved":
            if not exists:
                return self._handle(p.src or rel, Pending("deleted", now), now) if p.src else {"path": rel, "action": "none"}
            return self._call("move", rel, lambda: self.actions.move_note(p.src, rel), src=p.src)  # type: ignore[arg-type]
        if kind == "deleted":
            if exists:  # deleted and written again (some editors save this way)
                return self._changed(rel, p, now)
            old_hash = self.actions.known_hash(rel)
            if old_hash is None:
                self.skipped += 1
                return {"path": rel, "action": "none", "why": "not indexed"}
            moved_to = self._pending_twin("created", old_hash)
            if moved_to is not None:  # a delete + a create with the same bytes: a move
                del self.pending[moved_to]
                return self._call("move", moved_to, lambda: self.actions.move_note(rel, moved_to), src=rel)
            return self._call("remove", rel, lambda: self.actions.remove_note(rel))
        if not exists:
            return self._handle(rel, Pending("deleted", now), now)
        if kind == "created" and self.actions.known_hash(rel) is None:
            digest = _file_hash(path)
            twin = self._pending_twin("deleted", digest) if digest else None
            if twin is not None:
                del self.pending[twin]
                return self._call("move", rel, lambda: self.actions.move_note(twin, rel), src=twin)
        return self._changed(rel, p, now)

    def _changed(self, rel: str, p: Pending, now: float) -> dict[str, Any]:
        path = self.vault / rel
        digest = _file_hash(path)
        if digest is not None and digest == self.actions.known_hash(rel):
            self.skipped += 1  # our own write coming back, or a save that changed nothing
            return {"path": rel, "action": "none", "why": "unchanged"}
        error = _yaml_error(path, rel)
        if error and p.attempts < len(self.retry_delays):
            self.pending[rel] = Pending("changed", now + self.retry_delays[p.attempts], attempts=p.attempts + 1)
            return {"path": rel, "action": "retry", "why": error, "attempt": p.attempts + 1}
        return self._call("index", rel, lambda: self.actions.index_note(rel), yaml_error=error)

    def _pending_twin(self, kind: str, digest: str | None) -> str | None:
        """A pending path of ``kind`` whose bytes (created: on disk; deleted: as indexed) are
        ``digest``: the other half of a move made as delete + create."""
        if digest is None:
            return None
        for rel, q in self.pending.items():
            if q.kind != kind:
                continue
            other = self.actions.known_hash(rel) if kind == "deleted" else (
                _file_hash(self.vault / rel) if self.actions.known_hash(rel) is None else None)
            if other == digest:
                return rel
        return None

    def _call(self, action: str, rel: str, fn: Callable[[], Any], **extra: Any) -> dict[str, Any]:
        result = fn()
        self.handled += 1
        out = {"path": rel, "action": action, **{k: v for k, v in extra.items() if v is not None}}
        if isinstance(result, dict):
            out["result"] = result
        log.info("watcher: %s %s%s", action, f"{extra['src']} → " if extra.get("src") else "", rel)
        return out


class EngineActions:
    """NoteActions backed by an engine. ``call(op, *args)`` runs an engine operation; the daemon
    passes one that holds its operation lock."""

    def __init__(self, engine: Any, call: Callable[..., Any] | None = None) -> None:
        self.engine = engine
        self.call = call or (lambda op, *args: getattr(engine, op)(*args))

    def index_note(self, rel: str) -> dict[str, Any]:
        return self.call("index_note", rel)

    def remove_note(self, rel: str) -> dict[str, Any]:
        return self.call("remove_note", rel)

    def move_note(self, old: str, new: str) -> dict[str, Any]:
        return self.call("move_note", old, new)

    def known_hash(self, rel: str) -> str | None:
        return self.engine.core.store.indexed_note_hash(rel)

    def known_under(self, prefix: str) -> list[str]:
        return self.engine.core.store.indexed_notes_under(prefix)


class VaultWatcher:
    """watchdog → NoteEvents → the daemon's engine. ``run`` reconciles the vault first (edits
    made while the daemon was down), then handles events until the daemon stops."""

    def __init__(self, daemon: Daemon, vault: Path, debounce: float = 1.0) -> None:
        self.daemon = daemon
        self.vault = Path(vault)
        self.events = NoteEvents(self.vault, EngineActions(daemon.engine, daemon.run_op), debounce=debounce,
                                 patterns=list(daemon.settings.vault_cfg.exclude))
        self.state_name = "starting"
        self.why: str | None = None
        self.reconcile: dict[str, Any] | None = None
        self._observer: Any = None

    @property
    def handled(self) -> int:
        return self.events.handled

    def pending_count(self) -> int:
        return self.events.pending_count()

    def state(self) -> dict[str, Any]:
        e = self.events
        return {
            "state": self.state_name,
            "why": self.why,
            "vault": str(self.vault),
            "debounce": e.debounce,
            "pending": e.pending_count(),
            "handled": e.handled,
            "skipped": e.skipped,
            "errors": e.errors,
            "last_error": e.last_error,
            "reconcile": self.reconcile,
            "recent": e.log[-5:],
        }

    def _start_observer(self) -> None:
        from watchdog.events import FileSystemEventHandler
        from watchdog.observers import Observer

        events = self.events

        class Bridge(FileSystemEventHandler):
            def on_any_event(self, event: Any) -> None:
                if event.event_type in MUTATING:
                    src = os.fsdecode(event.src_path)
                    dest = os.fsdecode(event.dest_path) if getattr(event, "dest_path", None) else None
                    events.feed(event.event_type, src, dest, is_dir=event.is_directory)

        observer = Observer()
        observer.schedule(Bridge(), str(self.vault), recursive=True)
        observer.daemon = True
        observer.start()
        self._observer = observer

    def run(self, stop: threading.Event) -> None:
        if not self.vault.is_dir():
            self.state_name, self.why = "off", f"the vault {self.vault} does not exist"
            log.warning("watcher off: %s", self.why)
            return
        engine = self.daemon.engine
        if not all(callable(getattr(engine, op, None)) for op in ("index_vault", "index_note", "remove_note", "move_note")):
            self.state_name, self.why = "unavailable", "the engine cannot index notes in this version"
            return
        try:
            self._start_observer()  # first, so edits made during the reconcile are not missed
            self.state_name = "reconciling"
            self.reconcile = self.daemon.run_op("index_vault")
            log.info("vault reconciled: %s", self.reconcile)
        except Exception as exc:  # noqa: BLE001
            self.state_name, self.why = "error", str(getattr(exc, "message", exc))
            log.exception("the vault watcher could not start")
            self.close()
            return
        self.state_name = "watching"
        while not stop.is_set():
            nxt = self.events.next_due()
            wait = 0.25 if nxt is None else min(0.25, max(0.0, nxt - time.monotonic()))
            if stop.wait(wait):
                break
            if nxt is not None and nxt <= time.monotonic():
                try:
                    self.events.flush()
                except Exception:  # noqa: BLE001 - e.g. the engine closed under us at shutdown
                    if stop.is_set():
                        break
                    log.exception("watcher flush failed")
        self.close()
        self.state_name = "stopped"

    def close(self) -> None:
        obs, self._observer = self._observer, None
        if obs is not None:
            obs.stop()
            obs.join(timeout=5)
