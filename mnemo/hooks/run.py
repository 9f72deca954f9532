"""``mnemo hook EVENT``: what runs when the assistant's client fires a hook.

The client starts the hook with its JSON payload on stdin (``session_id``, ``transcript_path``,
``cwd``, ``hook_event_name`` and the event's own fields) and waits for it. So a hook is a
client of the daemon and nothing more: it imports neither the model stack nor the store, and
every event costs one request.

- ``session-start``: the daemon composes the project's block (``project_context``); the hook
  prints it as the client's ``hookSpecificOutput.additionalContext`` (``--text``: the bare
  block, which the client also adds to the context).
- ``pre-compact``, ``session-end``, ``stop``: the daemon queues a ``capture`` of the transcript
  in its background and answers at once; the ingest runs after the hook has returned.

A hook never breaks the client: whatever fails (a payload that is not JSON, a transcript that
is gone, no daemon) is logged to ``MNEMO_HOME/hooks.log``, and the hook exits 0 with nothing
on stdout. ``--strict`` turns a failure into exit 1 with the message on stderr (for trying a
hook by hand). With no daemon running, the hook does not wait for one to load (5-10 s of models
on the client's clock): it starts one in the background (``hooks.start_daemon``) so the next
hook finds it warm; ``session-start`` then adds nothing this time, and a capture is handed to a
detached ``mnemo ingest --from claude-code`` (``hooks.capture_fallback``), which owns the store
for as long as it runs and then exits.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InvalidInput, MnemoError

if TYPE_CHECKING:
    import logging

# CLI name -> the client's event name (hook_event_name in the payload, key in settings.json)
EVENTS = {"session-start": "SessionStart", "pre-compact": "PreCompact", "session-end": "SessionEnd", "stop": "Stop"}
CAPTURE_EVENTS = ("pre-compact", "session-end", "stop")
LOG_NAME = "hooks.log"
MAX_PAYLOAD = 1024 * 1024
LOG_MAX_BYTES = 2_000_000


class HookOutcome:
    # A plain class: ``dataclasses`` would cost every hook process ~15 ms of imports.
    def __init__(self, code: int = 0, stdout: str = "", stderr: str = "", detail: dict[str, Any] | None = None) -> None:
        self.code, self.stdout, self.stderr = code, stdout, stderr
        self.detail: dict[str, Any] = {} if detail is None else detail  # what was done (logged; tests read it)

    def __repr__(self) -> str:
        return f"HookOutcome(code={self.code!r}, stdout={self.stdout!r}, stderr={self.stderr!r}, detail={self.detail!r})"


def logger(home: Path) -> logging.Logger:
    """``MNEMO_HOME/hooks.log`` (rotated, 0600): a hook's only voice, as its stdout belongs to
    the client."""
    import logging

    log = logging.getLogger("mnemo.hooks")
    path = home / LOG_NAME
    if not any(getattr(h, "baseFilename", None) == str(path) for h in log.handlers):
        from ..security import PrivateRotatingFileHandler

        for h in list(log.handlers):
            log.removeHandler(h)
            h.close()
        home.mkdir(parents=True, exist_ok=True, mode=0o700)
        handler = PrivateRotatingFileHandler(path, maxBytes=LOG_MAX_BYTES, backupCount=2, encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False
    return log


def log_info(home: Path, message: str) -> None:
    """One INFO line in ``hooks.log``, in ``logger``'s format, without importing ``logging``
    (~10 ms of every hook process, which logs one line when all went well). A line that would
    take the file over its size, and every warning and error, go through ``logger``, which
    rotates."""
    path = home / LOG_NAME
    now = time.time()
    line = f"{time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(now))},{int((now % 1) * 1000):03d} INFO {message}\n".encode()
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    if st is not None and st.st_size + len(line) > LOG_MAX_BYTES:
        logger(home).info("%s", message)
        return
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        if st is not None and st.st_mode & 0o077:  # as PrivateRotatingFileHandler keeps it: 0600
            os.fchmod(fd, 0o600)
        os.write(fd, line)
    finally:
        os.close(fd)


def parse_payload(raw: bytes, event: str) -> dict[str, Any]:
    """The client's payload, checked: a JSON object whose fields have the documented types."""
    if len(raw) > MAX_PAYLOAD:
        raise InvalidInput(f"the hook payload is {len(raw)} bytes; the limit is {MAX_PAYLOAD}")
    try:
        data = json.loads(raw.decode("utf-8-sig")) if raw.strip() else None
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"the hook payload is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise InvalidInput("the hook payload must be a JSON object (the client sends one on stdin)")
    for key in ("session_id", "transcript_path", "cwd", "hook_event_name"):
        if key in data and data[key] is not None and not isinstance(data[key], str):
            raise InvalidInput(f"the hook payload's {key} must be a string")
    if not data.get("cwd"):
        raise InvalidInput("the hook payload has no cwd (the session's working directory)")
    if event in CAPTURE_EVENTS and not data.get("transcript_path"):
        raise InvalidInput("the hook payload has no transcript_path")
    return data


def _connect(settings: Any) -> Any:
    from ..client import RemoteMnemo

    return RemoteMnemo.connect(settings.home, timeout=settings.hooks.connect_timeout)


def run_hook(event: str, raw: bytes, settings: Any, strict: bool = False, text: bool = False) -> HookOutcome:
    """Run one hook; never raises. ``raw`` is what the client wrote on stdin."""
    t0 = time.perf_counter()
    sid = None
    # The home holds the log, and a daemon or a capture started from here writes its output there.
    settings.home.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        if event not in EVENTS:
            raise InvalidInput(f"unknown hook event {event!r}", hint=f"one of: {', '.join(EVENTS)}")
        payload = parse_payload(raw, event)
        sid = payload.get("session_id") or None
        named = payload.get("hook_event_name")
        if named and named != EVENTS[event]:
            logger(settings.home).warning("%s: the payload names the event %s", event, named)
        out = _session_start(payload, settings, text) if event == "session-start" else _capture(event, payload, settings)
        out.detail["ms"] = round(1000 * (time.perf_counter() - t0), 1)
        shown = {k: v for k, v in out.detail.items() if not k.startswith("_")}
        log_info(settings.home, f"{event} session={sid} {json.dumps(shown, ensure_ascii=False, default=str)}")
        return out
    except Exception as exc:  # noqa: BLE001 - a hook must never break the client
        message = exc.message if isinstance(exc, MnemoError) else f"{type(exc).__name__}: {exc}"
        logger(settings.home).error("%s session=%s failed: %s", event, sid, message, exc_info=not isinstance(exc, MnemoError))
        if strict:
            return HookOutcome(code=1, stderr=f"mnemo hook {event}: {message}\n", detail={"error": message})
        return HookOutcome(detail={"error": message})


def _session_start(payload: dict[str, Any], settings: Any, text: bool) -> HookOutcome:
    from ..capture import project_of

    project = project_of(payload["cwd"])
    client = _connect(settings)
    if client is None:
        started = _start_daemon(settings)
        return HookOutcome(detail={"project": project, "daemon": "none", "started_daemon": started, "context": False})
    # The plain JSON call: the typed method would import the engine interface for nothing.
    result = client.call("project_context", {"project": project, "budget": settings.hooks.budget,
                                             "session_id": payload.get("session_id") or None})
    block = result.get("context") or ""
    detail = {"project": project, "tokens": result.get("used"), "shown": len(result.get("ids") or []),
              "source": payload.get("source")}
    if not block:
        return HookOutcome(detail=detail)
    if text:
        return HookOutcome(stdout=block + "\n", detail=detail)
    out = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": block}}
    return HookOutcome(stdout=json.dumps(out, ensure_ascii=False) + "\n", detail=detail)


def _capture(event: str, payload: dict[str, Any], settings: Any) -> HookOutcome:
    from ..capture import project_of

    path = Path(payload["transcript_path"]).expanduser()
    if not path.is_file():
        raise InvalidInput(f"the transcript {path} does not exist")
    project = project_of(payload["cwd"])
    args = {"path": str(path.resolve()), "source": "claude-code", "wing": project,
            "session_id": payload.get("session_id") or None, "final": event == "session-end"}
    client = _connect(settings)
    if client is not None:
        job = client.submit("capture", args)
        return HookOutcome(detail={"project": project, "job": job.get("id"), "ahead": job.get("ahead")})
    detail: dict[str, Any] = {"project": project, "daemon": "none"}
    if settings.hooks.capture_fallback:
        proc = _spawn_capture(settings, args)
        detail["handed_to_pid"] = proc.pid
        detail["_proc"] = proc
    else:
        detail["captured"] = False  # the offset did not move: the next capture of this transcript reads these lines
    return HookOutcome(detail=detail)


def _start_daemon(settings: Any) -> int | None:
    """Start a daemon in the background unless one is starting already; its pid, or None."""
    if not settings.hooks.start_daemon:
        return None
    from ..daemon.process import spawn_daemon
    from ..lock import OwnerLock

    if OwnerLock.is_held(settings.home):
        return None  # a daemon is loading, or a command owns the store for now
    return spawn_daemon(settings.home, settings.vault, settings.now).pid


def _spawn_capture(settings: Any, args: dict[str, Any]) -> Any:
    from ..daemon.process import spawn_detached

    cmd = [sys.executable, "-m", "mnemo", "--home", str(settings.home)]
    if settings.vault is not None:
        cmd += ["--vault", str(settings.vault)]
    cmd += ["ingest", "--from", "claude-code", args["path"], "--wing", args["wing"], "--json"]
    if args["session_id"]:
        cmd += ["--session-id", args["session_id"]]
    return spawn_detached(cmd, settings.home / LOG_NAME, {"MNEMO_HOME": str(settings.home)})


def main(event: str, home: str | None = None, strict: bool = False, text: bool = False, vault: str | None = None,
         now: str | None = None) -> int:
    """A whole hook: settings, stdin, the run, stdout and stderr; returns the exit code."""
    try:
        from .settings import load_hook_settings

        settings = load_hook_settings(home=home, vault=vault, now=now)
    except Exception as exc:  # noqa: BLE001 - bad settings must not break the client either
        from ..config import default_home

        logger(Path(home).expanduser() if home else default_home()).error("%s failed: %s", event, getattr(exc, "message", exc))
        outcome = HookOutcome(code=1 if strict else 0, stderr=f"mnemo hook {event}: {exc}\n" if strict else "")
    else:
        outcome = run_hook(event, read_stdin(), settings, strict=strict, text=text)
    if outcome.stdout:
        sys.stdout.write(outcome.stdout)
        sys.stdout.flush()
    if outcome.stderr:
        sys.stderr.write(outcome.stderr)
    return outcome.code


def fast_path(argv: list[str]) -> int | None:
    """``python -m mnemo [--home H] hook EVENT [--strict] [--text]`` (what ``hook install``
    writes) without loading the click command line: the client waits for every millisecond of
    a hook. Any other shape returns None and goes through the full command line."""
    home = None
    args = list(argv)
    while args and args[0].startswith("--home"):
        if args[0] == "--home" and len(args) > 1:
            home, args = args[1], args[2:]
        elif args[0].startswith("--home="):
            home, args = args[0].split("=", 1)[1], args[1:]
        else:
            return None
    if len(args) < 2 or args[0] != "hook" or args[1] not in EVENTS or not set(args[2:]) <= {"--strict", "--text"}:
        return None
    return main(args[1], home=home, strict="--strict" in args, text="--text" in args)


def read_stdin() -> bytes:
    """The payload; a terminal gives none (the hook was started by hand)."""
    if sys.stdin is None or sys.stdin.isatty():
        return b""
    return sys.stdin.buffer.read(MAX_PAYLOAD + 1)
