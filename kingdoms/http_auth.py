"""Serving MCP over HTTP safely: a seat token on every request, sessions bound to their seat, remote serving
only when asked for, Host/Origin checks kept on, and access logs without query strings.

SeatAuth wraps the SDK's Starlette app. A request without a valid `Authorization: Bearer TOKEN` is answered
401 with `WWW-Authenticate: Bearer` and a short JSON body before the SDK sees it, so it creates nothing (no
session, no server task). A valid token is compared by digest in constant time (kingdoms.storage.match_token)
and its seat is handed to the SDK as the request's user: the SDK then serves a session id only to the seat
that opened it. The wait tools ask `client_gone` whether their HTTP client has hung up.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import sys
from collections.abc import Callable, Iterable
from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.transport_security import TransportSecuritySettings
from starlette.authentication import AuthCredentials
from starlette.types import ASGIApp, Receive, Scope, Send

log = logging.getLogger("kingdoms.http")

HOW_TO = ("Send the seat token that `kingdoms new` printed as the header `Authorization: Bearer TOKEN` on every "
          "request to /mcp (initialize included); never put it in the URL.")
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")


def bearer(headers: Iterable[tuple[bytes, bytes]]) -> str | None:
    """The token of an `Authorization: Bearer TOKEN` header among raw ASGI headers, or None."""
    for name, value in headers:
        if name.lower() == b"authorization":
            scheme, _, token = value.decode("latin-1").strip().partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
            return None
    return None


class SeatAuth:
    """ASGI middleware: every HTTP request needs a valid seat token, else 401 and nothing is created."""

    def __init__(self, app: ASGIApp, seat_of: Callable[[str], str | None]) -> None:
        self.app = app
        self.seat_of = seat_of  # token -> kingdom; cheap and constant-time (digests kept in memory)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # no websockets here
            await send({"type": "websocket.close", "code": 1008})
            return
        token = bearer(scope.get("headers") or [])
        kingdom = self.seat_of(token) if token else None
        if kingdom is None:
            await self.refuse(send, given=token is not None)
            return
        scope = dict(scope)
        scope["user"] = AuthenticatedUser(AccessToken(token="seat:" + kingdom, client_id=kingdom, scopes=[]))
        scope["auth"] = AuthCredentials([])
        await self.app(scope, receive, send)

    @staticmethod
    async def refuse(send: Send, *, given: bool) -> None:
        """401 with `WWW-Authenticate: Bearer` and a JSON body saying how to authenticate."""
        error = "invalid_token" if given else "missing_token"
        message = ("That seat token is not one of this game's. " if given else "No seat token. ") + HOW_TO
        body = json.dumps({"error": error, "message": message}).encode()
        challenge = 'Bearer realm="kingdoms"' + (', error="invalid_token"' if given else "")
        await send({"type": "http.response.start", "status": 401,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"www-authenticate", challenge.encode())]})
        await send({"type": "http.response.body", "body": body})


async def client_gone(request: Any) -> bool:
    """Whether the HTTP client of a request (the starlette Request behind a tool call) has disconnected;
    False when there is none (stdio, in memory: there a departing client cancels the call itself)."""
    check = getattr(request, "is_disconnected", None)
    if check is None:
        return False
    try:
        return bool(await check())
    except Exception:  # a transport without a usable receive channel
        return False


# --- remote serving --------------------------------------------------------------------------------------------


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def transport_security(host: str, allowed_hosts: list[str]) -> TransportSecuritySettings:
    """DNS-rebinding protection, always on: loopback names, the bound address (unless a wildcard) and each
    --allowed-host, with any port; Origins likewise over http and https."""
    names = ["127.0.0.1", "localhost", "[::1]"]
    extra = list(allowed_hosts)
    if not is_loopback(host) and host not in ("0.0.0.0", "::", ""):
        extra.append(host)
    for name in extra:
        name = f"[{name}]" if ":" in name and not name.startswith("[") else name
        if name not in names:
            names.append(name)
    hosts = [h for n in names for h in (n, f"{n}:*")]
    origins = [o for n in names for scheme in ("http", "https") for o in (f"{scheme}://{n}", f"{scheme}://{n}:*")]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts,
                                     allowed_origins=origins)


class NoQueryStrings(logging.Filter):
    """Drops the query string from uvicorn's access log lines (a token pasted into a URL is never printed)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3:
            path = args[2]
            if isinstance(path, str):
                record.args = (*args[:2], path.split("?", 1)[0], *args[3:])
        return True


def serve_http(app: ASGIApp, *, host: str, port: int) -> None:
    """Run `app` (SeatAuth around the SDK's app) with uvicorn, its access log without query strings."""
    import uvicorn

    config = uvicorn.Config(app, host=host, port=port, log_level="info")
    logging.getLogger("uvicorn.access").addFilter(NoQueryStrings())
    uvicorn.Server(config).run()


def remote_warning(host: str, port: int, security: TransportSecuritySettings) -> None:
    names = sorted({h.removesuffix(":*") for h in security.allowed_hosts})
    print(f"kingdoms serve: WARNING: serving plain HTTP on {host}:{port} to other machines. Seat tokens travel "
          "unencrypted: put a TLS proxy in front or use a private network. Requests must name one of these hosts "
          f"(add more with --allowed-host NAME): {', '.join(names)}", file=sys.stderr)
