"""The daemon's JSON API over HTTP (stdlib ``http.server``, one thread per request).

Every request must carry ``Authorization: Bearer <token>`` (the token is in the ``0600``
endpoint file, so only the owner of ``MNEMO_HOME`` can read it); requests from a non-loopback
address are refused unless ``daemon.allow_remote`` is set. Operations are ``POST /v1/<op>``
with a JSON object of keyword arguments, answered ``{"result": ...}`` or with an error body
(``MnemoError.to_dict()``) and the error's HTTP status. With ``Accept: application/x-ndjson``
an operation that reports progress streams ``{"progress": n}`` lines before its final
``{"result": ...}`` (or error) line. An ``X-Mnemo-Now`` header runs that one request at the
caller's time (``--now``). docs/API.md documents the whole surface.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

from ..clock import parse_time
from ..errors import AuthError, InvalidInput, MnemoError, NotFound, StorageError
from ..wire import NOW_HEADER, dumps

if TYPE_CHECKING:
    from .server import Daemon

log = logging.getLogger("mnemo.daemon.http")

NDJSON = "application/x-ndjson"
MAX_BODY = 128 * 1024 * 1024


class Forbidden(MnemoError):
    code = "forbidden"
    http_status = 403


def is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return host == "localhost"


class ApiServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = False  # a port in use by someone else must fail, not be shared

    def __init__(self, address: tuple[str, int], app: Daemon, token: str, allow_remote: bool = False) -> None:
        self.app = app
        self.token = token
        self.allow_remote = allow_remote
        super().__init__(address, Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that hung up mid-reply is routine; anything else goes to the log, not stderr.
        log.debug("connection from %s ended with an error", client_address, exc_info=True)


class Handler(BaseHTTPRequestHandler):
    server: ApiServer
    server_version = "mnemo"
    sys_version = ""
    protocol_version = "HTTP/1.0"  # one request per connection; a streamed body ends at close

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        log.debug("%s %s", self.client_address[0], format % args)

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        self._handle("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._handle("POST")

    def do_PUT(self) -> None:  # noqa: N802
        self._send_error(MnemoError("use GET or POST"), status=405)

    do_DELETE = do_PATCH = do_PUT  # noqa: N815

    # -- plumbing -----------------------------------------------------------------------------
    def _send_json(self, status: int, payload: Any) -> None:
        body = dumps(payload)
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def _send_error(self, exc: MnemoError, status: int | None = None) -> None:
        self._send_json(status or exc.http_status, exc.to_dict())

    def _authorised(self) -> MnemoError | None:
        host = self.client_address[0]
        if not self.server.allow_remote and not is_loopback(host):
            return Forbidden(f"requests from {host} are refused: the API serves this machine only")
        header = self.headers.get("Authorization", "")
        scheme, _, given = header.partition(" ")
        if scheme.lower() != "bearer" or not given:
            return AuthError("this request has no token", hint="send `Authorization: Bearer <token>` from MNEMO_HOME/daemon.json")
        if not hmac.compare_digest(given.strip().encode(), self.server.token.encode()):
            return AuthError("the token is wrong", hint="read the current token from MNEMO_HOME/daemon.json")
        return None

    def _body(self) -> dict[str, Any]:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            raise InvalidInput("bad Content-Length") from None
        if length > MAX_BODY:
            raise InvalidInput(f"the request body is {length} bytes; the limit is {MAX_BODY}", hint="send it in several requests")
        raw = self.rfile.read(length) if length else b""
        if not raw.strip():
            return {}
        try:
            data = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            raise InvalidInput(f"the request body is not valid JSON: {exc}") from None
        if not isinstance(data, dict):
            raise InvalidInput("the request body must be a JSON object of keyword arguments")
        return data

    # -- routing ------------------------------------------------------------------------------
    def _handle(self, method: str) -> None:
        app = self.server.app
        denied = self._authorised()
        if denied is not None:
            log.warning("refused %s %s from %s: %s", method, self.path, self.client_address[0], denied.message)
            self._send_error(denied)
            return
        path = self.path.split("?", 1)[0].rstrip("/")
        try:
            if path == "/v1/health":
                self._send_json(200, {"ok": True, **app.identity()})
            elif path == "/v1/status":
                self._send_json(200, app.status())
            elif path == "/v1/operations":
                self._send_json(200, {"operations": app.operations()})
            elif path == "/v1/shutdown":
                if method != "POST":
                    raise MnemoError("use POST /v1/shutdown")
                app.request_stop("API request")
                self._send_json(202, {"result": {"stopping": True}})
            elif path == "/v1/background" or path.startswith("/v1/background/"):
                self._background(method, path[len("/v1/background"):].strip("/"))
            elif path.startswith("/v1/") and method == "POST":
                self._operation(path[4:])
            elif path.startswith("/v1/"):
                raise MnemoError(f"use POST {path}", hint="operations are POST requests with a JSON body")
            else:
                raise NotFound(f"no endpoint {path}", hint="see docs/API.md; operations are POST /v1/<name>")
        except MnemoError as exc:
            self._send_error(exc)
        except Exception as exc:  # noqa: BLE001 - never a traceback to the client
            log.exception("internal error on %s", path)
            self._send_error(StorageError(f"internal error: {exc}", hint="see MNEMO_HOME/daemon.log"))

    def _background(self, method: str, rest: str) -> None:
        """``POST /v1/background/<op>`` queues an operation (202 with the job); ``GET
        /v1/background`` is the queue's state, ``GET /v1/background/<job id>`` one job."""
        bg = self.server.app.background
        if method == "POST":
            if not rest or rest.isdigit():
                raise MnemoError("use POST /v1/background/<operation>")
            self._send_json(202, {"result": bg.submit(rest, self._body())})
        elif not rest:
            self._send_json(200, {"result": bg.state()})
        elif rest.isdigit():
            self._send_json(200, {"result": bg.get(int(rest))})
        else:
            raise NotFound(f"no endpoint /v1/background/{rest}", hint="GET /v1/background/<job id>")

    def _operation(self, op: str) -> None:
        app = self.server.app
        kwargs = self._body()
        now = self.headers.get(NOW_HEADER) or None  # the caller's --now, for this request only
        if now is not None:
            parse_time(now)  # a bad time is refused before anything runs
        stream = NDJSON in self.headers.get("Accept", "") and app.reports_progress(op)
        if not stream:
            self._send_json(200, {"result": app.call(op, kwargs, now=now)})
            return
        # Streamed: the status line goes out before the work starts, so errors travel in-band.
        self.send_response(200)
        self.send_header("Content-Type", NDJSON)
        self.send_header("Cache-Control", "no-store")
        self.end_headers()

        def line(payload: Any) -> None:
            self.wfile.write(dumps(payload) + b"\n")
            self.wfile.flush()

        try:
            def progress(n: int, step: str | None = None) -> None:
                line({"progress": n, "stage": step} if step else {"progress": n})

            result = app.call(op, kwargs, progress=progress, now=now)
        except MnemoError as exc:
            line({**exc.to_dict(), "status": exc.http_status})
            return
        except Exception as exc:  # noqa: BLE001
            log.exception("internal error in %s", op)
            line(StorageError(f"internal error: {exc}", hint="see MNEMO_HOME/daemon.log").to_dict())
            return
        line({"result": result})
