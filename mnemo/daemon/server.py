"""The Daemon: the one process that owns a ``MNEMO_HOME`` (design.md §2).

Start-up: take the owner lock (a second owner fails with a clear message), open the engine and
warm the models and the index (which also embeds whatever a crash left out of it), bind the API
on loopback, write the endpoint file; then run the HTTP server, the scheduler and the vault
watcher on threads. The engine is not thread-safe across operations, so every engine call (API
requests, jobs, watcher actions) runs under one operation lock, while the threaded HTTP server
keeps ``status`` answering during a long import.

Shutdown (SIGTERM, SIGINT or ``POST /v1/shutdown``): stop accepting requests, stop the watcher
and the scheduler, let the operation in hand reach a safe point (a bulk write stops after its
current chunk is committed: every acknowledged chunk stays, nothing is half-written), then close
the engine, remove the endpoint file and release the lock.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

from .. import __version__
from ..api import REGISTRY
from ..clock import Clock, iso, parse_time
from ..config import Settings
from ..errors import ConfigError, DaemonError, InvalidInput, LockedError, MnemoError, NotFound
from ..lock import OwnerLock
from ..operations import Operation
from ..wire import decode, to_jsonable
from .endpoint import Endpoint, remove_endpoint, write_endpoint
from .http import ApiServer, is_loopback

log = logging.getLogger("mnemo.daemon")


def daemon_clock(settings: Settings) -> Clock:
    """Real time, or with ``--now``/``MNEMO_NOW`` a clock that starts there and runs on, so
    schedules advance."""
    return Clock(parse_time(settings.now), running=True) if settings.now else Clock()


class Daemon:
    def __init__(self, settings: Settings, clock: Clock | None = None, embedder: Any = None) -> None:
        self.settings = settings
        self.clock = clock or daemon_clock(settings)
        self.home = settings.home
        self._embedder = embedder
        self.token = secrets.token_urlsafe(32)
        self.op_lock = threading.RLock()
        self.stopping = threading.Event()
        self.warmed = threading.Event()  # the start-up warm-up has finished (status: warm)
        self.stop_reason: str | None = None
        self.started_at = time.time()
        self.engine: Any = None
        self.httpd: ApiServer | None = None
        self.endpoint: Endpoint | None = None
        self.scheduler: Any = None
        self.watcher: Any = None
        self._lock: OwnerLock | None = None
        self._threads: list[threading.Thread] = []
        self._counts_lock = threading.Lock()
        self.requests = 0
        self.errors = 0
        self.waiting = 0
        self.in_flight: str | None = None
        self._vault_events_seen = 0

    # -- start ----------------------------------------------------------------------------------
    def open(self) -> Endpoint:
        """Take the lock, open and warm the engine, bind the API, write the endpoint file."""
        d = self.settings.daemon
        if not is_loopback(d.host) and not d.allow_remote:
            raise ConfigError(
                f"daemon.host is {d.host!r}, which is not a loopback address",
                hint="the API serves this machine only; set daemon.allow_remote = true to bind elsewhere (the token is still required)",
            )
        try:
            self.home.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as exc:
            raise ConfigError(f"cannot create the mnemo home {self.home}: {exc.strerror}") from exc
        lock = OwnerLock(self.home, kind="daemon")
        try:
            lock.acquire()
        except LockedError as exc:
            holder = lock.holder()
            if holder.get("kind") == "daemon":
                raise LockedError(
                    f"a mnemo daemon (pid {holder.get('pid', '?')}) is already running for {self.home}",
                    hint="`mnemo daemon status` shows it; `mnemo daemon stop` stops it",
                ) from None
            raise exc
        self._lock = lock
        try:
            remove_endpoint(self.home)  # stale, from a daemon killed without cleanup: we own the home now
            from ..engine import Mnemo

            self.engine = Mnemo(self.settings, clock=self.clock, embedder=self._embedder, lock=False)
            t0 = time.perf_counter()
            self.engine.core.embedder.embed_query("warm up")  # load the model now, not on the first request
            _ = self.engine.core.index  # opens Chroma; embeds what a crash left out of it
            log.info("engine ready in %.1fs (model %s)", time.perf_counter() - t0, self.engine.core.embedder.name)
            try:
                self.httpd = ApiServer((d.host, d.port), self, self.token, allow_remote=d.allow_remote)
            except OSError as exc:
                raise DaemonError(f"cannot listen on {d.host}:{d.port}: {exc.strerror or exc}",
                                  hint="set daemon.port to 0 (any free port) or to a port that is free") from exc
            host, port = self.httpd.server_address[:2]
            self._setup_scheduler()
            self._setup_watcher()
            self.endpoint = Endpoint(
                pid=os.getpid(), host=str(host), port=int(port), token=self.token, home=str(self.home),
                vault=str(self.settings.vault) if self.settings.vault else None,
                started_at=self.started_at, version=__version__,
            )
            write_endpoint(self.home, self.endpoint)
        except BaseException:
            self._close_parts()
            raise
        log.info("listening on %s (pid %d, home %s)", self.endpoint.url, os.getpid(), self.home)
        return self.endpoint

    def _setup_scheduler(self) -> None:
        from .scheduler import Scheduler, lifecycle_jobs

        def runner(fn: Callable[[], Any]) -> Any:
            with self._operation("job"):
                return fn()

        sched = Scheduler(self.engine.core.store, self.clock, [], runner=runner)
        for job in lifecycle_jobs(self.engine, sched.last_run, self._vault_events_since_last):
            sched.jobs[job.name] = job
        self.scheduler = sched

    def _vault_events_since_last(self) -> int:
        total = self.watcher.handled if self.watcher is not None else 0
        new, self._vault_events_seen = total - self._vault_events_seen, total
        return new

    def _setup_watcher(self) -> None:
        if self.settings.vault is None or not self.settings.daemon.watch:
            return
        from .watcher import VaultWatcher

        self.watcher = VaultWatcher(self, self.settings.vault, debounce=self.settings.daemon.debounce)

    def serve_forever(self, install_signals: bool = True) -> None:
        """Run until asked to stop (signal or API), then shut down cleanly."""
        if install_signals:
            for sig in (signal.SIGTERM, signal.SIGINT):
                signal.signal(sig, lambda signum, _frame: self.request_stop(signal.Signals(signum).name))
        self.start_threads()
        try:
            while not self.stopping.wait(0.5):
                pass
        finally:
            self.shutdown()

    def start_threads(self) -> None:
        assert self.httpd is not None
        threads = [threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.2}, name="mnemo-http")]
        if self.scheduler is not None:
            threads.append(threading.Thread(target=self.scheduler.loop, args=(self.stopping,), name="mnemo-scheduler"))
        if self.watcher is not None:
            threads.append(threading.Thread(target=self.watcher.run, args=(self.stopping,), name="mnemo-watcher"))
        threads.append(threading.Thread(target=self._warm, name="mnemo-warm"))
        for t in threads:
            t.daemon = True
            t.start()
        self._threads = threads

    # Searches run (touching nothing) once the API answers: the first queries of a fresh daemon
    # load each vector collection into memory and run the model on new input sizes; at 100k
    # memories the first ten recalls took 70-430 ms against 29 ms p50 after.
    WARM_QUERIES = ("what did we decide", "who owns the project and why was it changed last week")

    def _warm(self) -> None:
        """In the background once the API answers: load spaCy (single saves and promotions need
        it; its 2-5 s load should not land on the first request) and warm the recall path.
        ``warmed`` is set when this has finished, whether or not it succeeded."""
        try:
            self._warm_up()
        finally:
            self.warmed.set()

    def _warm_up(self) -> None:
        if self.settings.daemon.preload_nlp:
            t0 = time.perf_counter()
            try:
                from ..nlp.entities import nlp

                nlp()
                log.info("spaCy ready in %.1fs", time.perf_counter() - t0)
            except Exception as exc:  # noqa: BLE001 - the first request will report it properly
                log.warning("could not preload spaCy: %s", exc)
        t0 = time.perf_counter()
        try:
            for q in self.WARM_QUERIES:
                if self.stopping.is_set():
                    return
                with self._operation("warm"):
                    assert self.engine is not None
                    self.engine.recall(q, k=10, touch=False)
        except Exception as exc:  # noqa: BLE001 - warming is only a head start
            log.warning("could not warm the recall path: %s", exc)
            return
        log.info("recall warmed in %.1fs", time.perf_counter() - t0)

    # -- stop -----------------------------------------------------------------------------------
    def request_stop(self, reason: str = "") -> None:
        if not self.stopping.is_set():
            self.stop_reason = reason
            log.info("stopping (%s)", reason or "requested")
            self.stopping.set()

    def shutdown(self) -> None:
        self.stopping.set()
        if self.httpd is not None:
            self.httpd.shutdown()  # no new requests; requests in hand finish on their threads
        for t in self._threads:
            if t.name not in ("mnemo-http", "mnemo-warm"):
                t.join(timeout=30)
        # Wait for the operation in hand: a bulk write stops at its next committed chunk.
        with self.op_lock:
            self._close_parts()
        log.info("stopped")

    def _close_parts(self) -> None:
        if self.httpd is not None:
            with contextlib.suppress(Exception):
                self.httpd.server_close()
        if self.watcher is not None:
            with contextlib.suppress(Exception):
                self.watcher.close()
        if self.engine is not None:
            try:
                self.engine.close()
            finally:
                self.engine = None
        if self._lock is not None:
            remove_endpoint(self.home, pid=os.getpid())
            self._lock.release()
            self._lock = None

    # -- operations -----------------------------------------------------------------------------
    @contextlib.contextmanager
    def _operation(self, name: str) -> Any:
        """Hold the operation lock (counting who waits for it: the status's queue length)."""
        with self._counts_lock:
            self.waiting += 1
        try:
            self.op_lock.acquire()
        finally:
            with self._counts_lock:
                self.waiting -= 1
        try:
            if self.engine is None:
                raise DaemonError("the daemon is stopping", hint="start it again with `mnemo daemon start`")
            self.in_flight = name
            yield
        finally:
            self.in_flight = None
            self.op_lock.release()

    def run_op(self, op: str, *args: Any, **kwargs: Any) -> Any:
        """An engine call the daemon makes itself (the watcher), under the operation lock."""
        with self._operation(f"watcher:{op}"):
            return getattr(self.engine, op)(*args, **kwargs)

    def _method(self, op: str) -> Callable[..., Any]:
        """The engine's method for a registered operation (``api.REGISTRY``): nothing else is
        served, whatever else the engine object has."""
        registered(op)
        if self.engine is None:
            raise DaemonError("the daemon is stopping", hint="start it again with `mnemo daemon start`")
        method: Callable[..., Any] = getattr(self.engine, op)
        return method

    def reports_progress(self, op: str) -> bool:
        found = REGISTRY.get(op)
        return found is not None and found.reports_progress

    def call(self, op: str, kwargs: dict[str, Any], progress: Callable[..., None] | None = None,
             now: float | str | None = None) -> Any:
        """Run one engine operation under the operation lock; returns its JSON form. ``now`` is
        the caller's time (``--now``/``MNEMO_NOW``, sent as the ``X-Mnemo-Now`` header): the
        operation runs at it, and the daemon's own clock (its scheduler's) does not move."""
        with self._counts_lock:
            self.requests += 1
        if self.stopping.is_set():
            raise DaemonError("the daemon is stopping", hint="start it again with `mnemo daemon start`")
        try:
            method = self._method(op)
            kwargs = self._arguments(op, kwargs)
            if progress is not None:
                kwargs["progress"] = self._guarded_progress(progress)
            call_time = parse_time(now) if now is not None else None
            with self._operation(op):
                assert self.engine is not None
                with self.engine.at(call_time):
                    result = method(**kwargs)
            return to_jsonable(result)
        except MnemoError:
            with self._counts_lock:
                self.errors += 1
            raise

    def _guarded_progress(self, emit: Callable[..., None]) -> Callable[..., None]:
        """Progress is reported after each committed chunk: the safe point to stop at when the
        daemon is asked to stop (or the client hung up: the write fails and stops the work).
        ``progress(0, step)`` names what is happening (``mnemo.progress``)."""

        def progress(n: int, step: str | None = None) -> None:
            emit(n, step)
            if self.stopping.is_set():
                raise DaemonError("the daemon was stopped; the work stopped after the last acknowledged chunk",
                                  hint="start it again and repeat the rest")

        return progress

    @staticmethod
    def _arguments(op: str, kwargs: dict[str, Any]) -> dict[str, Any]:
        """Check a request's fields against the operation's declared signature (the request
        type) and decode each into its annotated type."""
        declared = registered(op)
        if "progress" in kwargs:
            raise InvalidInput("progress cannot be sent; ask for a stream with `Accept: application/x-ndjson`")
        sig = declared.signature
        try:
            sig.bind(**kwargs)
        except TypeError as exc:
            params = ", ".join(p for p in sig.parameters if p != "progress")
            raise InvalidInput(f"bad arguments for {op}: {exc}", hint=f"{op} takes: {params}") from None
        return {name: decode(value, declared.parameter_type(name)) if name in sig.parameters else value
                for name, value in kwargs.items()}

    def operations(self) -> dict[str, Any]:
        """``GET /v1/operations``: every registered operation, its parameters and result."""
        import inspect

        out: dict[str, Any] = {}
        for op, declared in REGISTRY.items():
            params = {}
            for name, p in declared.signature.parameters.items():
                if name == "progress":
                    continue
                params[name] = {
                    "required": p.default is inspect.Parameter.empty and p.kind is not inspect.Parameter.VAR_KEYWORD,
                    "default": to_jsonable(p.default) if p.default is not inspect.Parameter.empty else None,
                    "annotation": str(p.annotation) if p.annotation is not inspect.Parameter.empty else None,
                    "extra_fields": p.kind is inspect.Parameter.VAR_KEYWORD,
                }
            out[op] = {
                "mutating": declared.mutates,
                "streams_progress": declared.reports_progress,
                "params": params,
                "returns": str(declared.function.__annotations__.get("return", "")),
                "doc": declared.doc.split("\n\n")[0],
            }
        return out

    @property
    def background(self) -> Any:
        """The queue of operations run after the request was answered (``background.py``)."""
        bg = self.__dict__.get("_background")
        if bg is None:
            from .background import Background

            with self._counts_lock:
                bg = self.__dict__.setdefault("_background", Background(self))
        return bg

    # -- status ---------------------------------------------------------------------------------
    def identity(self) -> dict[str, Any]:
        return {"pid": os.getpid(), "version": __version__, "home": str(self.home)}

    def status(self) -> dict[str, Any]:
        """What `mnemo daemon status` shows. Never takes the operation lock, so it answers during
        a long import."""
        store = self.engine.core.store if self.engine is not None else None
        counts: dict[str, Any] = {}
        if store is not None:
            by_status = store.counts_by("status")
            counts = {
                "memories": sum(by_status.values()),
                "by_status": by_status,
                "stm": by_status.get("active", 0),
                "ltm_memories": by_status.get("promoted", 0),
            }
            for table, key in (("notes", "notes"), ("chunks", "chunks")):
                try:
                    counts[key] = store.count_rows(table)
                except Exception:  # noqa: BLE001 - the vault tables may not exist in this version
                    counts[key] = None
        return {
            **self.identity(),
            "vault": str(self.settings.vault) if self.settings.vault else None,
            "url": self.endpoint.url if self.endpoint else None,
            "started_at": iso(self.started_at),
            "uptime_s": round(time.time() - self.started_at, 1),
            "now": iso(self.clock.now()),
            "clock": "fixed start, running" if self.clock.fixed else "real time",
            "stopping": self.stopping.is_set(),
            "warm": self.warmed.is_set(),
            "counts": counts,
            "watcher": self.watcher.state() if self.watcher is not None else {
                "state": "off", "why": "no vault configured" if self.settings.vault is None else "daemon.watch is off"},
            "jobs": self.scheduler.state() if self.scheduler is not None and store is not None else [],
            "queue": {
                "in_flight": self.in_flight,
                "waiting": self.waiting,
                "watcher_pending": self.watcher.pending_count() if self.watcher is not None else 0,
            },
            "background": self.background.state(),
            "requests": self.requests,
            "errors": self.errors,
            "embed_model": store.kv_get("index.model_name") if store is not None else None,
            "broken_notes": self._broken_notes(),
        }

    def _broken_notes(self) -> list[dict[str, str]]:
        """Promoted notes whose YAML a person broke (``doctor.broken_properties``): the file,
        the error and the fix, where a person looks first."""
        if self.engine is None:
            return []
        from ..doctor import HINTS, broken_properties

        try:
            return [{**b, "fix": HINTS["broken_yaml"]} for b in broken_properties(self.engine.core)]
        except Exception:  # noqa: BLE001 - status must answer whatever the vault looks like
            log.exception("checking the promoted notes' properties failed")
            return []


def registered(op: str) -> Operation:
    """The registered operation ``op`` (``api.REGISTRY``), or NotFound."""
    found = REGISTRY.get(op)
    if found is None:
        raise NotFound(f"no operation {op!r}", hint="GET /v1/operations lists them")
    return found


def run_daemon(settings: Settings, foreground: bool = True, install_signals: bool = True) -> int:
    """Open, serve until stopped, clean up. Returns the exit code."""
    configure_logging(settings.home, to_stderr=foreground)
    daemon = Daemon(settings)
    try:
        daemon.open()
    except MnemoError as exc:
        log.error("could not start: %s", exc.message)
        raise
    daemon.serve_forever(install_signals=install_signals)
    return 0


def configure_logging(home: Any, to_stderr: bool, level: int = logging.INFO) -> None:
    """Log to ``MNEMO_HOME/daemon.log`` (rotated, 0600), and to stderr in the foreground."""
    import sys
    from pathlib import Path

    from .endpoint import LOG_NAME

    path = Path(home) / LOG_NAME
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    root = logging.getLogger("mnemo")
    root.setLevel(level)
    for h in list(root.handlers):
        root.removeHandler(h)
    from ..security import PrivateRotatingFileHandler

    # 0600 after every rollover too (the standard handler reopens with the umask).
    fh = PrivateRotatingFileHandler(path, maxBytes=5_000_000, backupCount=3, encoding="utf-8")
    fh.setFormatter(fmt)
    root.addHandler(fh)
    if to_stderr:
        sh = logging.StreamHandler(sys.stderr)
        sh.setFormatter(fmt)
        root.addHandler(sh)
