"""Chroma server mode: talking to a Chroma server over HTTP instead of the embedded index.

Why a server: the vectors can live on another machine (a bigger box, shared storage), and
several mnemo daemons, each owning its own store, can share one server; each home's collections
carry a prefix (``h<home id>_``) so they never collide.

What this module adds to ``chromadb.HttpClient``:

- ``probe``: a heartbeat with a short timeout *before* the client is built. Chroma's HTTP
  client waits forever (``httpx`` timeout ``None``), so a host that drops packets would hang a
  command; here it becomes a ``StorageError`` after ``CONNECT_TIMEOUT`` seconds, with a message
  that says whether nothing listens, something that is not Chroma answers, or the URL is bad.
- ``index_failure``: turns the errors a failing server or a damaged embedded index raises
  (``httpx`` transport errors, ``chromadb.errors.ChromaError``) into one ``StorageError`` whose
  hint says what to do. What was already committed to the store stays there: the store is the
  truth and the index catches up at the next open (``Core.sync_index``) or ``mnemo doctor
  --repair``.

Standard library only at import time; ``chromadb``/``httpx`` are imported lazily.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from ..errors import ConfigError, MnemoError, StorageError

if TYPE_CHECKING:
    from chromadb.api import ClientAPI
    from chromadb.config import Settings

CONNECT_TIMEOUT = 5.0  # seconds for the heartbeat before a client is built
REQUEST_TIMEOUT = 120.0  # seconds for any one request to the server once connected
HEARTBEAT = "/api/v2/heartbeat"
_HOST = re.compile(r"[A-Za-z0-9._\-]+|[0-9A-Fa-f:.]+(%[A-Za-z0-9]+)?")  # a name, IPv4 or IPv6
VERSION = "/api/v2/version"
SERVER_HINT = (
    "start the server (`chroma run --host 127.0.0.1 --port 8000 --path /data/chroma`), or unset "
    "index.chroma_url (MNEMO_INDEX_CHROMA_URL) to use the embedded index"
)


@dataclass(frozen=True)
class ServerAddress:
    url: str  # normalised: scheme://host:port
    host: str
    port: int
    ssl: bool


def parse_url(url: str) -> ServerAddress:
    """Check and normalise ``index.chroma_url`` (``http://host:port`` or ``https://host[:port]``)."""
    text = (url or "").strip()
    parsed = urlparse(text if "://" in text else f"http://{text}")
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ConfigError(f"index.chroma_url {url!r} is not an http(s) URL", hint="e.g. http://127.0.0.1:8000")
    if parsed.path not in ("", "/") or parsed.query or parsed.fragment or parsed.username:
        raise ConfigError(
            f"index.chroma_url {url!r} must be only scheme, host and port",
            hint="e.g. http://chroma.example.lan:8000 (no path, no user name)",
        )
    try:
        port = parsed.port or (443 if parsed.scheme == "https" else 8000)
    except ValueError:
        raise ConfigError(f"index.chroma_url {url!r} has an invalid port", hint="a number from 1 to 65535") from None
    host = parsed.hostname
    if not _HOST.fullmatch(host):
        raise ConfigError(f"index.chroma_url {url!r} has an invalid host name", hint="e.g. http://chroma.example.lan:8000")
    shown = f"[{host}]" if ":" in host else host
    return ServerAddress(f"{parsed.scheme}://{shown}:{port}", host, port, parsed.scheme == "https")


def probe(url: str, timeout: float = CONNECT_TIMEOUT) -> dict[str, str | int]:
    """Check that a Chroma server answers at ``url``: its heartbeat and version.
    Raises ``StorageError`` (with a hint) when it does not."""
    addr = parse_url(url)
    beat = _get_json(addr.url + HEARTBEAT, addr.url, timeout)
    if not isinstance(beat, dict) or "nanosecond heartbeat" not in beat:
        raise StorageError(
            f"{addr.url} answered, but not as a Chroma server (no heartbeat)",
            hint="check the host and port of index.chroma_url",
        )
    try:
        version = _get_json(addr.url + VERSION, addr.url, timeout)
    except StorageError:
        version = "unknown"
    return {"url": addr.url, "version": str(version), "heartbeat": int(beat["nanosecond heartbeat"])}


def _get_json(endpoint: str, url: str, timeout: float) -> object:
    try:
        with urllib.request.urlopen(endpoint, timeout=timeout) as resp:  # noqa: S310 - http(s) only, checked above
            body = resp.read(65536)
    except urllib.error.HTTPError as exc:
        if exc.code in (401, 403):
            raise StorageError(f"the Chroma server at {url} refused mnemo (HTTP {exc.code})",
                               hint="mnemo connects without credentials: use a server on a trusted network") from None
        raise StorageError(f"{url} answered HTTP {exc.code}: it does not look like a Chroma server",
                           hint="check the host and port of index.chroma_url") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, TimeoutError) or "timed out" in str(reason):
            raise StorageError(f"the Chroma server at {url} did not answer within {timeout:g} s",
                               hint=SERVER_HINT) from None
        raise StorageError(f"cannot reach the Chroma server at {url}: {reason}", hint=SERVER_HINT) from None
    try:
        return json.loads(body)
    except ValueError:
        raise StorageError(f"{url} answered, but not as a Chroma server (not JSON)",
                           hint="check the host and port of index.chroma_url") from None


def connect(url: str, settings: Settings, timeout: float = REQUEST_TIMEOUT) -> ClientAPI:
    """A ``chromadb.HttpClient`` for ``url`` after a successful ``probe``, with a request timeout
    (Chroma's own default is to wait forever)."""
    addr = parse_url(url)
    probe(addr.url)
    import chromadb

    try:
        client = chromadb.HttpClient(host=addr.host, port=addr.port, ssl=addr.ssl, settings=settings)
    except Exception as exc:  # chromadb raises ValueError and its own errors here
        raise index_failure(addr.url, "connecting", exc) from exc
    _set_timeout(client, timeout)
    return client


def _set_timeout(client: object, timeout: float) -> None:
    # chromadb builds its httpx session with timeout=None and offers no setting for it.
    session = getattr(getattr(client, "_server", None), "_session", None)
    if session is not None:
        import httpx

        session.timeout = httpx.Timeout(timeout, connect=CONNECT_TIMEOUT)


def index_errors() -> tuple[type[BaseException], ...]:
    """The exception types that mean "the index failed", as opposed to a bug of ours."""
    import httpx
    from chromadb.errors import ChromaError

    return (httpx.HTTPError, ChromaError)


def is_not_found(exc: BaseException) -> bool:
    from chromadb.errors import NotFoundError

    return isinstance(exc, NotFoundError)


def index_failure(where: str | Path | None, doing: str, exc: BaseException) -> MnemoError:
    """One clear ``StorageError`` for an index that failed while ``doing`` something."""
    if isinstance(exc, MnemoError):
        return exc
    text = str(exc).strip() or type(exc).__name__
    if isinstance(where, str) and "://" in where:
        return StorageError(
            f"the Chroma server at {where} failed while {doing}: {text}",
            hint="is the server running and reachable? What was saved is kept in the store and indexed "
            "again when the server answers (`mnemo doctor --repair`). " + SERVER_HINT.capitalize(),
        )
    return StorageError(
        f"the vector index at {where} failed while {doing}: {text}",
        hint="the index is derived from the store: `mnemo doctor --repair` or `mnemo reindex` rebuilds it",
    )
