"""``RemoteMnemo``: the daemon's thin client. It implements the engine interface
(``api.MnemoAPI``) by calling the daemon's JSON API, so the CLI and the MCP bridge are written
once against either.

Every operation of ``api.REGISTRY`` (the methods of ``engine.Mnemo`` marked ``@operation``) is
available as a method with that method's signature: arguments are bound like a direct call,
sent as one JSON object (``POST /v1/<op>``), and the result is decoded into the type annotated
on ``Mnemo.<op>`` (a ``results`` TypedDict stays the plain dict it came as).
For the type checker the client is the engine class (its base under ``TYPE_CHECKING``), so calls
through it are checked against the one declaration.
Errors come back as the same ``MnemoError`` class the engine raised. Callable arguments
(progress) are never sent: for operations that report progress the client asks for a stream
of progress lines instead, which is also how an import knows which saves were acknowledged.

Standard library only (plus ``models``, and the registry, read from the engine class when the
first operation is called: ``engine.py`` imports its heavy parts lazily): a client-only command
must not pay for the model stack.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from .daemon.endpoint import Endpoint, read_endpoint
from .errors import DaemonError, MnemoError, error_from_dict
from .wire import NOW_HEADER, bind_arguments, decode, dumps

if TYPE_CHECKING:
    import inspect

    from .core import Progress
    from .engine import Mnemo as _Engine
    from .models import ImportResult
    from .operations import Operation
else:
    _Engine = object

NDJSON = "application/x-ndjson"


class ConnectionLost(DaemonError):
    """The daemon went away while a request was in flight: its outcome is unknown."""


class RemoteMnemo(_Engine):
    remote = True

    def __init__(self, endpoint: Endpoint, timeout: float | None = 3600.0) -> None:
        self.endpoint = endpoint
        self.timeout = timeout
        self.home = Path(endpoint.home)
        self._methods: dict[str, Callable[..., Any]] = {}
        self.clock: Any = None  # a clock.Clock: the caller's own time, sent with every operation

    # -- connecting ---------------------------------------------------------------------------
    @classmethod
    def connect(cls, home: Path, timeout: float = 2.0) -> RemoteMnemo | None:
        """A client for the daemon serving ``home``, or None when none answers."""
        ep = read_endpoint(home)
        if ep is None:
            return None
        client = cls(ep)
        return client if client.ping(timeout) else None

    def ping(self, timeout: float = 2.0) -> bool:
        try:
            data = self._request("GET", "/v1/health", timeout=timeout)
        except MnemoError:
            return False
        return bool(data.get("ok")) and data.get("pid") == self.endpoint.pid

    def close(self) -> None:
        """Nothing to release: every call uses its own connection."""

    def __enter__(self) -> RemoteMnemo:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the generic operation call -----------------------------------------------------------
    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_"):
            raise AttributeError(name)
        method = self._methods.get(name)
        if method is None:
            from .api import REGISTRY

            op = REGISTRY.get(name)
            if op is None:
                raise AttributeError(f"{type(self).__name__} has no operation {name!r}")
            method = self._methods[name] = RemoteOperation(self, op)
        return method

    def call(self, op: str, kwargs: dict[str, Any] | None = None, progress: Callable[..., Any] | None = None) -> Any:
        """Call one operation; returns its plain JSON result."""
        return self._request("POST", f"/v1/{op}", kwargs or {}, progress=progress, op=op)

    # -- operations with client-side behaviour ------------------------------------------------
    def import_jsonl(self, path: str | Path, progress: Progress | None = None, batch: int = 256) -> ImportResult:
        """The daemon reads the file (so the path is made absolute here) and streams one
        acknowledgement per committed chunk; if the daemon goes away mid-import, the error
        says how many memories (in file order) were saved and acknowledged."""
        acked = 0

        def on_progress(n: int) -> None:
            nonlocal acked
            acked += n
            if progress:
                progress(n)

        abspath = Path(path).expanduser().resolve()
        try:
            raw = self._request("POST", "/v1/import_jsonl", {"path": str(abspath), "batch": batch},
                                progress=on_progress, op="import_jsonl")
        except ConnectionLost as exc:
            raise ConnectionLost(
                f"the daemon stopped during the import of {abspath}: the first {acked} memories were saved "
                "and acknowledged; later lines may or may not have been saved",
                hint="start the daemon again (`mnemo daemon start`), check with `mnemo doctor`, then import the remaining lines",
            ) from exc.__cause__
        except MnemoError as exc:
            if acked:
                exc.message = f"{exc.message} ({acked} memories were saved before this, in file order)"
            raise
        self.acknowledged = acked
        from .api import REGISTRY

        return cast("ImportResult", decode(raw, REGISTRY["import_jsonl"].returns))

    def submit(self, op: str, kwargs: dict[str, Any] | None = None, timeout: float | None = None) -> dict[str, Any]:
        """Queue an operation in the daemon's background (``POST /v1/background/<op>``): the
        daemon checks the arguments and answers with the job at once, then runs it."""
        return self._request("POST", f"/v1/background/{op}", kwargs or {}, op=op, timeout=timeout)

    def job(self, job_id: int) -> dict[str, Any]:
        return self._request("GET", f"/v1/background/{int(job_id)}")

    def daemon_status(self) -> dict[str, Any]:
        return self._request("GET", "/v1/status")

    def operations(self) -> dict[str, Any]:
        return self._request("GET", "/v1/operations")["operations"]

    def shutdown(self) -> dict[str, Any]:
        return self._request("POST", "/v1/shutdown", {})

    # -- HTTP -----------------------------------------------------------------------------------
    # A minimal HTTP/1.0 exchange over a socket: the daemon speaks HTTP/1.0 (one request per
    # connection), and http.client would cost a client-only command ~30 ms of imports (email,
    # ssl) for nothing.
    def _request(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        progress: Callable[..., Any] | None = None,
        op: str | None = None,
        timeout: float | None = None,
    ) -> Any:
        ep = self.endpoint
        data = dumps(body) if body is not None else b""
        head = [
            f"{method} {path} HTTP/1.0",
            f"Host: {ep.host}:{ep.port}",
            f"Authorization: Bearer {ep.token}",
            f"Accept: {NDJSON if progress else 'application/json'}",
            f"Content-Length: {len(data)}",
        ]
        if body is not None:
            head.append("Content-Type: application/json")
        if self.clock is not None and self.clock.fixed and op is not None:
            head.append(f"{NOW_HEADER}: {self.clock.now()!r}")
        what = f"`{op}`" if op else path
        try:
            sock = socket.create_connection((ep.host, ep.port), timeout=timeout or self.timeout)
        except OSError as exc:
            raise DaemonError(
                f"the daemon at {ep.url} does not answer ({exc.strerror or exc})",
                hint="check `mnemo daemon status`; start it with `mnemo daemon start`",
            ) from exc
        try:
            try:
                sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + data)
                reader = sock.makefile("rb")
                status, headers = _read_head(reader)
                if progress and status == 200 and headers.get("content-type", "").startswith(NDJSON):
                    return self._read_stream(reader, progress)
                length = headers.get("content-length")
                payload = reader.read(int(length)) if length is not None else reader.read()
                if length is not None and len(payload) < int(length):
                    raise ConnectionResetError("short body")
            except (OSError, ValueError) as exc:
                raise ConnectionLost(
                    f"lost the connection to the daemon during {what}; whether it completed is unknown",
                    hint="see `mnemo daemon status` and the log in MNEMO_HOME/daemon.log",
                ) from exc
        finally:
            sock.close()
        try:
            decoded = json.loads(payload or b"{}")
        except ValueError as exc:
            raise DaemonError(f"the daemon sent a reply that is not JSON (HTTP {status})") from exc
        if status >= 400 or (isinstance(decoded, dict) and "error" in decoded and "result" not in decoded):
            raise error_from_dict(decoded if isinstance(decoded, dict) else {})
        return decoded["result"] if isinstance(decoded, dict) and "result" in decoded else decoded

    @staticmethod
    def _read_stream(reader: Any, progress: Callable[..., Any]) -> Any:
        """NDJSON: ``{"progress": n}`` lines, then one ``{"result": ...}`` or error line."""
        while True:
            line = reader.readline()
            if not line.endswith(b"\n"):  # EOF, or a line cut short by a dying daemon
                raise ConnectionResetError("the daemon closed the stream before the result")
            if not line.strip():
                continue
            msg = json.loads(line)
            if "progress" in msg:
                if msg.get("stage"):  # what the daemon is doing (``mnemo.progress``)
                    progress(int(msg["progress"]), str(msg["stage"]))
                else:
                    progress(int(msg["progress"]))
            elif "result" in msg:
                return msg["result"]
            elif "error" in msg:
                raise error_from_dict(msg)


class RemoteOperation:
    """One operation of the registry as a client method: the engine method's signature
    (``inspect.signature`` shows it), its arguments bound like a direct call and sent, its
    result decoded into the annotated type. A progress callback is never sent: the client asks
    for a stream of progress lines instead."""

    def __init__(self, client: RemoteMnemo, op: Operation) -> None:
        self.client, self.op = client, op
        self.__name__ = self.__qualname__ = op.name
        self.__doc__ = op.function.__doc__

    @property
    def __signature__(self) -> inspect.Signature:
        return self.op.signature

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        bound = bind_arguments(self.op.function, args, kwargs)
        progress = bound.pop("progress", None)
        sent = {k: v for k, v in bound.items() if not callable(v)}
        raw = self.client.call(self.op.name, sent, progress=progress if callable(progress) else None)
        return decode(raw, self.op.returns)

    def __repr__(self) -> str:
        return f"<remote operation {self.op.name}{self.op.signature}>"


def _read_head(reader: Any) -> tuple[int, dict[str, str]]:
    """The status code and the (lower-cased) headers of an HTTP response."""
    line = reader.readline(65537)
    parts = line.decode("latin-1").split(None, 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/"):
        raise ConnectionResetError("no HTTP status line")
    status = int(parts[1])
    headers: dict[str, str] = {}
    while True:
        line = reader.readline(65537)
        if not line:
            raise ConnectionResetError("the headers were cut short")
        if line in (b"\r\n", b"\n"):
            return status, headers
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
