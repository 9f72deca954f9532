"""``mnemo mcp --http``: the same server over streamable HTTP, for clients that connect by URL.

It listens on 127.0.0.1 only (there is no option to bind elsewhere: the memory of a person is
not a network service) and every request must carry the daemon's token as
``Authorization: Bearer <token>``, the token in ``MNEMO_HOME/daemon.json`` (mode ``0600``, so
only the owner of the home can read it). The check is the SDK's bearer-token middleware with a
verifier that compares against the token of the daemon running now (a restarted daemon has a
new token, and the old one stops working). Without it, or with another, the answer is
``401 Unauthorized``.

The daemon is found or started before the server listens: its token is the key.
"""

from __future__ import annotations

import hmac
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings

from ..daemon.endpoint import read_endpoint

if TYPE_CHECKING:
    from ..config import Settings

log = logging.getLogger("mnemo.mcp")

HOST = "127.0.0.1"
DEFAULT_PORT = 8931
PATH = "/mcp"


class DaemonToken:
    """The SDK's ``TokenVerifier``: a bearer token is valid when it is the running daemon's."""

    def __init__(self, home: Path) -> None:
        self.home = Path(home)

    async def verify_token(self, token: str) -> AccessToken | None:
        ep = read_endpoint(self.home)
        if ep is None or not token or not hmac.compare_digest(token.encode(), ep.token.encode()):
            log.info("HTTP request refused: %s", "no daemon" if ep is None else "wrong token")
            return None
        return AccessToken(token=token, client_id="mnemo-daemon-token", scopes=[])


def token_auth(home: Path, port: int) -> dict[str, Any]:
    """The MCPServer arguments that make every HTTP request show the daemon's token."""
    base = f"http://{HOST}:{port}"
    return {
        "token_verifier": DaemonToken(home),
        # A resource server only (there is no OAuth flow: the token comes from the home).
        # Validated from plain values, as the SDK reads its settings: the URLs stay as written.
        "auth": AuthSettings.model_validate({"issuer_url": base, "resource_server_url": f"{base}{PATH}",
                                             "validate_token_resource": False}),
    }


def run_http(settings: Settings, port: int = DEFAULT_PORT) -> None:
    """Serve MCP over streamable HTTP on 127.0.0.1:``port`` until interrupted."""
    from .bridge import build_server, configure_logging, link_for

    configure_logging(settings.home)
    link = link_for(settings)
    link.connect()  # find or start the daemon now: without it there is no token to check
    server = build_server(link, auth=token_auth(settings.home, port))
    sys.stderr.write(
        f"mnemo mcp: streamable HTTP on http://{HOST}:{port}{PATH}\n"
        f"mnemo mcp: send 'Authorization: Bearer <token>' with the token in {settings.home / 'daemon.json'}\n"
    )
    sys.stderr.flush()
    log.info("HTTP bridge on %s:%d", HOST, port)
    server.run("streamable-http", host=HOST, port=port, streamable_http_path=PATH)
