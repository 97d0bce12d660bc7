"""The live /watch page of `kingdoms serve GAME --http`: a read-only replay page that follows the game as months
resolve, for a seat (its own view) or the game's spectator token (everything, months that are over).

How a browser gives its token without putting it in a URL or a log:
- GET /watch without a session shows a small login form (no game data). Its form POSTs the token to
  /watch/login; a valid seat or spectator token gets a random session id in an HttpOnly, SameSite=Strict cookie
  scoped to /watch (the token itself is never stored in the browser), and a redirect to /watch.
- A link may carry the token in the URL fragment (`/watch#token=...`): browsers never send fragments, so the
  token reaches neither the server's log nor a proxy; the login page's script posts it and clears the fragment.
- Scripts may send `Authorization: Bearer TOKEN` on any /watch request instead.
No token, no page: every route but the login form and the login itself answers 401 without a session.
GET /watch/data?have=N answers the page data when the game has moved past N months (204 otherwise); the page
polls it every few seconds.
"""

from __future__ import annotations

import html
import json
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio.to_thread
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from kingdoms.game import Game
from kingdoms.viewer.page import page_data, render_page
from kingdoms.viewer.source import RecordBuilder

COOKIE = "kingdoms_watch"
SESSION_S = 12 * 3600.0
POLL_HINT_S = 5

LOGIN_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; form-action 'self'">
<meta name="referrer" content="same-origin"><link rel="icon" href="data:,">
<title>Watch a game · Kingdoms</title>
<style>body{{font:15px/1.5 system-ui,sans-serif;background:#f4f1ea;color:#1f1d1a}}
form{{max-width:430px;margin:70px auto;background:#fffdf8;padding:18px 22px;border:1px solid #d8d0c0;border-radius:6px}}
input{{width:100%;font:inherit;padding:5px;margin:6px 0 10px}} button{{font:inherit;padding:4px 14px}}
.err{{color:#b3261e}}</style></head>
<body><form method="post" action="/watch/login" autocomplete="off">
<h1 style="font-size:20px;margin:0 0 8px">Watch this game</h1>
<p>Give a seat token to watch that kingdom's view, or the game's spectator token to watch everything of the
months that are over. Both were printed by <code>kingdoms new</code>.</p>{message}
<label>Token <input type="password" name="token" autocomplete="off" required autofocus></label>
<button type="submit">Watch</button></form>
<script>(function(){{var m=/(?:^#|&)token=([^&]+)/.exec(location.hash);if(!m){{return;}}
history.replaceState(null,"",location.pathname);
fetch("/watch/login",{{method:"POST",credentials:"same-origin",headers:{{"Content-Type":"application/x-www-form-urlencoded"}},
body:"token="+m[1]}}).then(function(){{location.replace("/watch");}});}})();</script>
</body></html>"""


@dataclass(slots=True)
class Viewer:
    """Who a session watches for: a kingdom (its seat's view) or None (the spectator)."""

    kingdom: str | None
    expires: float


class WatchState:
    """The game file, the sessions and each audience's record builder (shared by the routes, guarded by a lock)."""

    def __init__(self, game_path: str | Path, clock: Callable[[], float] = time.time) -> None:
        self.path = Path(game_path)
        self.clock = clock
        self.lock = threading.Lock()
        self.sessions: dict[str, Viewer] = {}
        self._game: Game | None = None
        self._builders: dict[str | None, RecordBuilder] = {}
        self._cache: dict[str | None, tuple[int, dict[str, Any]]] = {}

    def game(self) -> Game:
        """The game file, opened on first use."""
        if self._game is None:
            self._game = Game.open(self.path)
        return self._game

    def viewer_for_token(self, token: str | None) -> Viewer | None:
        """The viewer a seat or spectator token stands for, or None."""
        if not token:
            return None
        with self.lock:
            game = self.game()
            kingdom = game.kingdom_for_token(token)
            if kingdom is not None:
                return Viewer(kingdom, self.clock() + SESSION_S)
            if game.is_spectator(token):
                return Viewer(None, self.clock() + SESSION_S)
        return None

    def login(self, viewer: Viewer) -> str:
        """A new session for `viewer`; returns its id (expired sessions are dropped)."""
        sid = secrets.token_urlsafe(24)
        now = self.clock()
        self.sessions = {k: v for k, v in self.sessions.items() if v.expires > now}
        self.sessions[sid] = viewer
        return sid

    def viewer_of(self, request: Request) -> Viewer | None:
        """The request's viewer: its session cookie, or its `Authorization: Bearer` token."""
        sid = request.cookies.get(COOKIE)
        if sid:
            v = self.sessions.get(sid)
            if v is not None and v.expires > self.clock():
                return v
        auth = request.headers.get("authorization") or ""
        scheme, _, token = auth.strip().partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            return self.viewer_for_token(token.strip())
        return None

    def months(self) -> int:
        """How many months the game file holds now."""
        with self.lock:
            return len(self.game().store.month_hashes())

    def data(self, kingdom: str | None) -> tuple[int, dict[str, Any]]:
        """(stored months, page data) of an audience's record, rebuilt only when the game has moved on."""
        with self.lock:
            game = self.game()
            n = len(game.store.month_hashes())
            cached = self._cache.get(kingdom)
            if cached is not None and cached[0] == n:
                return cached
            builder = self._builders.get(kingdom)
            if builder is None:
                builder = self._builders[kingdom] = RecordBuilder(game, kingdom, live=True)
            record = builder.record()
            got = (n, page_data([record]))
            self._cache[kingdom] = got
            return got

    def page(self, kingdom: str | None) -> str:
        """The page (GET /watch, or the HTML of an audience's live record)."""
        with self.lock:
            game = self.game()
            builder = self._builders.get(kingdom) or RecordBuilder(game, kingdom, live=True)
            self._builders[kingdom] = builder
            record = builder.record()
        return render_page([record], watch=True)

    def close(self) -> None:
        """Close the game file."""
        if self._game is not None:
            self._game.close()
            self._game = None


def _login_page(message: str = "", status: int = 200) -> HTMLResponse:
    """The login form (no game data), with a message."""
    text = LOGIN_PAGE.format(message=f'<p class="err">{html.escape(message)}</p>' if message else "")
    return HTMLResponse(text, status_code=status, headers=_NO_STORE)


_NO_STORE = {"Cache-Control": "no-store", "Referrer-Policy": "same-origin", "X-Content-Type-Options": "nosniff"}


def _same_origin(request: Request) -> bool:
    """A form post from this server's own page (no Origin header, or one naming this host)."""
    origin = request.headers.get("origin")
    if not origin or origin == "null":
        return origin is None
    host = request.headers.get("host", "")
    return origin.split("://", 1)[-1] == host


def host_allowed(host: str, patterns: list[str] | None) -> bool:
    """Whether a request's Host header is one the server answers to (patterns as the MCP app's transport security
    lists them: `name` or `name:*`); every host when no list is given."""
    if patterns is None:
        return True
    for pattern in patterns:
        if pattern.endswith(":*"):
            if host.rsplit(":", 1)[0] == pattern[:-2]:
                return True
        elif host == pattern:
            return True
    return False


class _HostCheck:
    """ASGI middleware: a request naming a host not served is refused (DNS rebinding), like the MCP app's."""

    def __init__(self, app: ASGIApp, patterns: list[str] | None) -> None:
        self.app = app
        self.patterns = patterns

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            host = next((v.decode("latin-1") for k, v in scope.get("headers") or [] if k == b"host"), "")
            if not host_allowed(host, self.patterns):
                await Response("Invalid Host header", status_code=421)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def build_watch_app(game_path: str | Path, *, clock: Callable[[], float] = time.time,
                    allowed_hosts: list[str] | None = None) -> ASGIApp:
    """The /watch routes as one ASGI app (mount it beside the MCP app with `with_watch`); `allowed_hosts` are
    the Host headers served (the MCP app's list; all when None)."""
    state = WatchState(game_path, clock)

    async def page(request: Request) -> Response:
        """The page (GET /watch, or the HTML of an audience's live record)."""
        viewer = state.viewer_of(request)
        if viewer is None:
            return _login_page(status=401)
        text = await anyio.to_thread.run_sync(state.page, viewer.kingdom)
        return HTMLResponse(text, headers=_NO_STORE)

    async def login(request: Request) -> Response:
        """A new session for `viewer`; returns its id (expired sessions are dropped)."""
        if not _same_origin(request):
            return _login_page("This form can only be sent from this server's own page.", 403)
        form = await request.form()
        token = str(form.get("token") or "").strip()
        viewer = await anyio.to_thread.run_sync(state.viewer_for_token, token)
        if viewer is None:
            return _login_page("That token is not one of this game's seat tokens or its spectator token.", 401)
        sid = state.login(viewer)
        response = RedirectResponse("/watch", status_code=303, headers=_NO_STORE)
        response.set_cookie(COOKIE, sid, max_age=int(SESSION_S), path="/watch", httponly=True, samesite="strict",
                            secure=request.url.scheme == "https")
        return response

    async def logout(request: Request) -> Response:
        """Forget the session and its cookie."""
        sid = request.cookies.get(COOKIE)
        if sid:
            state.sessions.pop(sid, None)
        response = RedirectResponse("/watch", status_code=303, headers=_NO_STORE)
        response.delete_cookie(COOKIE, path="/watch")
        return response

    async def data(request: Request) -> Response:
        """The page data when the game has moved past `have` months (204 otherwise)."""
        viewer = state.viewer_of(request)
        if viewer is None:
            return JSONResponse({"error": "no_session", "message": "Log in at /watch with a seat or spectator "
                                 "token."}, status_code=401, headers=_NO_STORE)
        try:
            have = int(request.query_params.get("have", "0"))
        except ValueError:
            have = 0
        months = await anyio.to_thread.run_sync(state.months)
        if months <= have:
            return Response(status_code=204, headers=_NO_STORE)
        _, payload = await anyio.to_thread.run_sync(state.data, viewer.kingdom)
        return Response(json.dumps(payload, separators=(",", ":"), ensure_ascii=False), media_type="application/json",
                        headers={**_NO_STORE, "X-Poll-Seconds": str(POLL_HINT_S)})

    app = Starlette(routes=[
        Route("/watch", page, methods=["GET"]),
        Route("/watch/", page, methods=["GET"]),
        Route("/watch/login", login, methods=["POST"]),
        Route("/watch/logout", logout, methods=["POST"]),
        Route("/watch/data", data, methods=["GET"]),
    ])
    app.state.watch = state
    return _HostCheck(app, allowed_hosts) if allowed_hosts is not None else app


def with_watch(app: ASGIApp, watch: ASGIApp) -> ASGIApp:
    """One ASGI app: requests under /watch go to `watch`, everything else (and the lifespan) to `app`."""

    async def dispatch(scope: Scope, receive: Receive, send: Send) -> None:
        """Route one ASGI call by its path."""
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if path == "/watch" or path.startswith("/watch/"):
            await watch(scope, receive, send)
        else:
            await app(scope, receive, send)

    return dispatch

