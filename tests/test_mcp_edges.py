"""The MCP server's edges, through real clients: strict arguments, the token on every HTTP request, sessions
bound to their seat, remote serving only when asked for, prompts and resources, and clients that leave.

In memory and over stdio with the SDK's client; over HTTP with raw requests (httpx2) against uvicorn, so the
401s, session ids and disconnects are the wire's own. The MCP Inspector CLI test is opt-in (`-m inspector`).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
import uvicorn
from mcp import Client, StdioServerParameters

from kingdoms.game import Game
from kingdoms.server import build_server, http_app
from tests.test_server import call, duel, new_game, seat

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parent.parent
LEGACY = "2025-06-18"
READ_ONLY = {"get_briefing", "get_rules", "get_sites", "get_map", "inspect_tile", "get_city", "get_history",
             "wait_for_turn", "get_game_record"}
PYDANTIC_WORDS = ("validation error", "pydantic", "type=", "input_value", "input_type", "Arguments\n",
                  "union[", "Field required")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def no_pydantic(text: str) -> None:
    for word in PYDANTIC_WORDS:
        assert word not in text, (word, text)


def history_kinds(path: Path, kingdom: str) -> list[str]:
    game = Game.open(path)
    try:
        return [h["kind"] for h in game.store.history(kingdom)]
    finally:
        game.close()


# --- strict, friendly arguments ---------------------------------------------------------------------------------


async def test_every_schema_declares_required_arguments_and_forbids_unknown_ones(tmp_path: Path) -> None:
    """Each listed tool schema is closed (additionalProperties false) and names its required arguments."""
    tokens = new_game(tmp_path / "g.sqlite")
    async with seat(tmp_path / "g.sqlite", tokens["wei"]) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
    for name, tool in tools.items():
        assert tool.input_schema.get("additionalProperties") is False, name
        assert tool.input_schema.get("type") == "object", name
    required = {name: set(t.input_schema.get("required") or []) for name, t in tools.items()}
    assert required["inspect_tile"] == {"q", "r"} and required["get_city"] == {"city_id"}
    assert required["submit_dispatch"] == {"report", "final"} and required["issue_orders"] == set()


async def test_an_unknown_argument_is_refused_before_anything_happens(tmp_path: Path) -> None:
    """A misspelt key is refused naming the closest valid one; the month is not ended, nothing is queued or
    stored (the issue's own case: `order` for `orders` together with end_turn)."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path, {"wei": "agent", "shu": "ai:passive"})
    async with seat(path, tokens["wei"]) as c:
        err, text = await call(c, "issue_orders", {"order": "set_focus city=1 focus=food", "end_turn": True})
        assert err and text.startswith("unknown argument `order`: did you mean `orders`?"), text
        assert "The call was not run" in text
        err, text = await call(c, "get_city", {"city": 1})
        assert err and "unknown argument `city`: did you mean `city_id`?" in text
        assert "missing argument `city_id`" in text
        err, text = await call(c, "get_map", {"centre_q": 1, "center_r": 1, "radius": 2})
        assert err and "did you mean `center_q`?" in text
        err, text = await call(c, "get_briefing", {"verbose": True})
        assert err and "unknown argument `verbose`: get_briefing takes no arguments." in text
        err, text = await call(c, "get_breifing", {})
        assert err and "unknown tool `get_breifing`: did you mean `get_briefing`?" in text
    game = Game.open(path)
    assert game.month == 1 and game.queued("wei") == [] and game.store.ended(1).get("wei") is None
    assert game.store.history("wei") == []
    game.close()


async def test_a_wrong_type_gets_one_line_with_the_argument_its_type_and_an_example(tmp_path: Path) -> None:
    """A mistyped argument is answered in one line naming it, the type wanted and an example; no pydantic text
    reaches the client, and nothing runs."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path)
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("issue_orders", {"orders": "hold unit=2", "end_turn": "maybe"},
         'argument `end_turn` must be true or false, got the text "maybe", e.g. `"end_turn": true`.'),
        ("issue_orders", {"orders": [1, "hold unit=2"]},
         "argument `orders` item 1 must be a text or an object, got the number 1"),
        ("issue_orders", {"orders": {"action": "hold", "unit_id": 2}},
         "argument `orders` must be a text or a list of texts or objects, got an object"),
        ("issue_orders", {"orders": "hold unit=2", "fast_forward": 500},
         "argument `fast_forward` must be a whole number from 0 to 160, got the number 500"),
        ("get_city", {"city_id": "one"}, 'argument `city_id` must be a whole number, got the text "one", '
         'e.g. `"city_id": 1`.'),
        ("get_city", {"city_id": 1.5}, "argument `city_id` must be a whole number, got the number 1.5"),
        ("inspect_tile", {"q": 1}, 'missing argument `r`: inspect_tile needs it, a whole number, e.g. `"r": 4`.'),
        ("get_sites", {"limit": 0}, "argument `limit` must be a whole number from 1 to 200, got the number 0"),
        ("get_map", {"center_q": None, "center_r": 2, "radius": [3]},
         "argument `radius` must be a whole number from 1 to 40 (or null / left out), got a list of 1"),
        ("submit_dispatch", {"report": ["a"], "final": False},
         "argument `report` must be a text, got a list of 1"),
        ("get_history", {"month": True}, "argument `month` must be a whole number of at least 1 (or null / left "
         "out), got true"),
    ]
    async with seat(path, tokens["wei"]) as c:
        for tool, args, expected in cases:
            err, text = await call(c, tool, args)
            assert err and expected in text, (tool, args, text)
            assert "\n" not in text, text
            no_pydantic(text)
    game = Game.open(path)
    assert game.queued("wei") == [] and game.store.history("wei") == []
    game.close()


async def test_unambiguous_spellings_are_taken_as_meant(tmp_path: Path) -> None:
    """`"3"` for a whole number, `"true"` for a boolean and 2.0 for 2 are what they say (no refusal)."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path)
    async with seat(path, tokens["wei"]) as c:
        err, text = await call(c, "get_sites", {"limit": "3"})
        assert not err and text.startswith("CITY SITES"), text
        err, text = await call(c, "issue_orders", {"orders": "set_focus city=1 focus=food", "verbose": "true"})
        assert not err and "1. set_focus city=1 focus=food →" in text
        err, text = await call(c, "get_city", {"city_id": 1.0})
        assert not err and "Xuchang" in text


async def test_issue_orders_with_nothing_to_do_says_what_it_expects(tmp_path: Path) -> None:
    """issue_orders without orders, end_turn, note or goal is refused with what it takes; nothing is stored."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path)
    async with seat(path, tokens["wei"]) as c:
        for args in ({}, {"orders": "  "}, {"orders": [], "verbose": True}, {"preview": True}, {"note": " "},
                     {"fast_forward": 3}):
            err, text = await call(c, "issue_orders", args)
            assert err and "issue_orders got nothing to do" in text and "end_turn" in text, (args, text)
        err, text = await call(c, "issue_orders", {"note": "Walls first."})
        assert not err and "Note stored" in text
    game = Game.open(path)
    assert game.month == 1 and game.queued("wei") == []
    game.close()


# --- annotations, version, prompts, resources --------------------------------------------------------------------


async def test_server_version_and_tool_annotations(tmp_path: Path) -> None:
    """serverInfo.version is the package's; reading tools are read-only, issue_orders destructive, none open-world."""
    tokens = new_game(tmp_path / "g.sqlite")
    server = build_server(tmp_path / "g.sqlite", token=tokens["wei"])
    try:
        async with Client(server, mode="legacy") as c:
            info = c.server_info
            tools = {t.name: t for t in (await c.list_tools()).tools}
    finally:
        server.session.close()  # type: ignore[attr-defined]
    assert info is not None and info.version == importlib.metadata.version("kingdoms") and info.version
    for name, tool in tools.items():
        ann = tool.annotations
        assert ann is not None and ann.open_world_hint is False, name
        assert bool(ann.read_only_hint) == (name in READ_ONLY), name
        assert tool.title, name
    assert tools["issue_orders"].annotations.destructive_hint is True  # type: ignore[union-attr]
    assert tools["issue_orders"].annotations.idempotent_hint is False  # type: ignore[union-attr]
    assert tools["submit_dispatch"].annotations.destructive_hint is False  # type: ignore[union-attr]


async def test_prompts_ruler_and_goal_review_and_the_rules_and_legend_resources(tmp_path: Path) -> None:
    """The ruler's system prompt and the goal-review prompt are MCP prompts; rules.md and the map legend are
    resources, and so are the replay and the seat's record (readable once the game is over)."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path)
    async with seat(path, tokens["wei"]) as c:
        prompts = {p.name: p for p in (await c.list_prompts()).prompts}
        assert set(prompts) == {"ruler", "goal_review"} and all(p.description for p in prompts.values())
        ruler = await c.get_prompt("ruler")
        review = await c.get_prompt("goal_review")
        resources = {str(r.uri): r for r in (await c.list_resources()).resources}
        templates = [t.uri_template for t in (await c.list_resource_templates()).resource_templates]
        rules = (await c.read_resource("kingdoms://rules")).contents[0]
        legend = (await c.read_resource("kingdoms://legend")).contents[0].text  # type: ignore[union-attr]
        with pytest.raises(Exception, match="once the game is over"):
            await c.read_resource("kingdoms://replay")
        with pytest.raises(Exception, match="once the game is over"):
            await c.read_resource("kingdoms://record/wei")
        with pytest.raises(Exception, match="only its own record"):
            await c.read_resource("kingdoms://record/shu")
    assert ruler.messages[0].content.text == (ROOT / "prompts" / "system.md").read_text().strip()  # type: ignore[union-attr]
    assert review.messages[0].content.text == (ROOT / "prompts" / "goal_review.md").read_text().strip()  # type: ignore[union-attr]
    assert set(resources) == {"kingdoms://rules", "kingdoms://legend", "kingdoms://replay", "kingdoms://record/wei"}
    assert templates == ["kingdoms://record/{kingdom}"]
    assert rules.text == (ROOT / "rules.md").read_text().strip() and rules.mime_type == "text/markdown"  # type: ignore[union-attr]
    assert "scenario duel: 32 x 24 tiles, months 1 to 160" in legend
    assert "Cao Wei (ruler Cao Cao); Shu Han (ruler Liu Bei)" in legend
    assert "H hills: food 0, production 2, move 2, defence +50%" in legend
    assert "Markers: * your city, + your troop" in legend and "{" not in legend


async def test_a_seat_reads_only_its_own_record_and_the_replay_once_over(tmp_path: Path) -> None:
    """After the game: each seat reads its own record and the replay; another seat's record stays refused,
    and a server without a valid seat reads no record."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path, {"wei": "agent", "shu": "agent"}, state=duel(160), deadline_s=1e9)
    async with seat(path, tokens["wei"], wait_s=0, poll_s=0) as wei, \
            seat(path, tokens["shu"], wait_s=0, poll_s=0) as shu:
        await call(wei, "issue_orders", {"end_turn": True, "note": "wei secret note"})
        await call(shu, "issue_orders", {"end_turn": True, "note": "shu secret note"})
        err, text = await call(wei, "get_game_record")
        assert not err and "kingdoms://record/wei" in text and "kingdoms://replay" in text
        mine = (await wei.read_resource("kingdoms://record/wei")).contents[0].text  # type: ignore[union-attr]
        theirs = (await shu.read_resource("kingdoms://record/shu")).contents[0].text  # type: ignore[union-attr]
        assert "wei secret note" in mine and "shu secret note" not in mine
        assert "shu secret note" in theirs and "wei secret note" not in theirs
        with pytest.raises(Exception, match="only its own record"):
            await wei.read_resource("kingdoms://record/shu")
        replay = json.loads((await shu.read_resource("kingdoms://replay")).contents[0].text)  # type: ignore[union-attr]
        assert replay["months"][-1]["month"] == 161
    async with seat(path, "not-a-token") as anon:
        with pytest.raises(Exception, match="No seat"):
            await anon.read_resource("kingdoms://record/wei")


# --- clients that leave --------------------------------------------------------------------------------------------


async def test_an_in_memory_client_that_cancels_a_wait_gets_no_reply_stored(tmp_path: Path) -> None:
    """A call whose client gives up (the SDK cancels it) ends the wait at once; no wait reply is stored."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path)
    async with seat(path, tokens["wei"], wait_s=30, poll_s=0.05) as c:
        started = time.monotonic()
        with anyio.move_on_after(0.5):
            await c.call_tool("issue_orders", {"end_turn": True})
        err, text = await call(c, "get_rules")
        assert not err
        assert time.monotonic() - started < 10
    kinds = history_kinds(path, "wei")
    assert kinds[:2] == ["call", "reply"]  # the orders' own reply; the wait left nothing
    game = Game.open(path)
    replies = [h["text"] for h in game.store.history("wei") if h["kind"] == "reply"]
    game.close()
    assert not any("Still waiting" in r for r in replies)


def _jsonrpc(method: str, params: dict[str, Any] | None = None, id_: int | None = 1) -> dict[str, Any]:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        msg["params"] = params
    if id_ is not None:
        msg["id"] = id_
    return msg


INIT = _jsonrpc("initialize", {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}})


@pytest.mark.long
def test_stdio_server_exits_quietly_when_its_client_goes_away(tmp_path: Path) -> None:
    """A stdio server whose client closes its pipes in the middle of an end_turn wait exits at once, with
    status 0 and no traceback, and stores no reply for the wait. The seat comes from KINGDOMS_SEAT."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path)
    env = {"PYTHONPATH": str(ROOT), "HOME": os.environ.get("HOME", "/tmp"), "PATH": os.environ.get("PATH", ""),
           "KINGDOMS_SEAT": tokens["wei"]}
    proc = subprocess.Popen([sys.executable, "-m", "kingdoms.cli", "serve", str(path)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None

    def send(msg: dict[str, Any]) -> None:
        proc.stdin.write((json.dumps(msg) + "\n").encode())  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]

    try:
        send(INIT)
        assert b'"serverInfo"' in proc.stdout.readline()
        send(_jsonrpc("notifications/initialized", id_=None))
        send(_jsonrpc("tools/call", {"name": "issue_orders", "arguments": {"end_turn": True}}, id_=2))
        deadline = time.time() + 30
        while "reply" not in history_kinds(path, "wei"):  # the month is ended: the wait has begun
            assert time.time() < deadline
            time.sleep(0.05)
        gone = time.monotonic()
        proc.stdin.close()
        proc.stdout.close()
        code = proc.wait(timeout=20)
        took = time.monotonic() - gone
        err = proc.stderr.read().decode()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert code == 0 and "Traceback" not in err and "Error" not in err, err
    assert took < 10
    game = Game.open(path)
    texts = [h["text"] for h in game.store.history("wei") if h["kind"] == "reply"]
    game.close()
    assert len(texts) == 1 and "Month 1 ended for you." in texts[0]


@pytest.mark.long
async def test_stdio_client_lists_tools_prompts_and_resources(tmp_path: Path) -> None:
    """Over stdio (the SDK client in a subprocess, seat from KINGDOMS_SEAT): prompts, resources and closed
    schemas, as in memory."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path)
    params = StdioServerParameters(command=sys.executable, args=["-m", "kingdoms.cli", "serve", str(path)],
                                   env={"PYTHONPATH": str(ROOT), "HOME": os.environ.get("HOME", "/tmp"),
                                        "KINGDOMS_SEAT": tokens["shu"]})
    with anyio.fail_after(60):
        async with Client(params) as c:
            prompts = {p.name for p in (await c.list_prompts()).prompts}
            resources = {str(r.uri) for r in (await c.list_resources()).resources}
            tools = (await c.list_tools()).tools
            err, text = await call(c, "issue_orders", {"order": "hold unit=5"})
    assert prompts == {"ruler", "goal_review"}
    assert "kingdoms://record/shu" in resources and "kingdoms://rules" in resources
    assert all(t.input_schema.get("additionalProperties") is False for t in tools)
    assert err and "did you mean `orders`?" in text


# --- HTTP: the token on every request -----------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@asynccontextmanager
async def live_http(path: Path, **kw: Any) -> AsyncIterator[tuple[str, Any]]:
    """The HTTP server `kingdoms serve --http` runs (same app), on uvicorn in this process: (url, server)."""
    server = build_server(path, **kw)
    port = _free_port()
    uv = uvicorn.Server(uvicorn.Config(http_app(server), host="127.0.0.1", port=port, log_level="warning"))
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(uv.serve)
            with anyio.fail_after(20):
                while not uv.started:
                    await anyio.sleep(0.02)
            try:
                yield f"http://127.0.0.1:{port}/mcp", server
            finally:
                uv.should_exit = True
    finally:
        server.session.close()


def _headers(token: str | None, session_id: str | None = None) -> dict[str, str]:
    h = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    if token is not None:
        h["Authorization"] = f"Bearer {token}"
    if session_id is not None:
        h["Mcp-Session-Id"] = session_id
        h["MCP-Protocol-Version"] = LEGACY
    return h


def _messages(text: str) -> list[dict[str, Any]]:
    """The JSON-RPC messages of a response body (JSON or server-sent events)."""
    if text.lstrip().startswith("{"):
        return [json.loads(text)]
    return [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:") and line[5:].strip()]


async def _open_session(http: httpx2.AsyncClient, url: str, token: str) -> str:
    r = await http.post(url, json=INIT, headers=_headers(token))
    assert r.status_code == 200, r.text
    sid = r.headers["mcp-session-id"]
    r = await http.post(url, json=_jsonrpc("notifications/initialized", id_=None), headers=_headers(token, sid))
    assert r.status_code == 202, r.text
    return sid


async def test_http_requests_without_a_valid_token_get_401_and_create_nothing(tmp_path: Path) -> None:
    """Every request to /mcp without a valid seat token (initialize included, and GET, DELETE, the 2026 wire)
    is answered 401 with `WWW-Authenticate: Bearer` and a JSON body saying how to authenticate; a token in the
    URL is not accepted; no session is created. A valid token does open one (so the count can move)."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path)
    async with live_http(path) as (url, server), httpx2.AsyncClient(timeout=20) as http:
        manager = server.session_manager
        refusals = [
            await http.post(url, json=INIT, headers=_headers(None)),
            await http.post(url, json=INIT, headers=_headers("forged-token")),
            await http.post(url, json=INIT, headers={**_headers(None), "Authorization": f"Basic {tokens['wei']}"}),
            await http.post(f"{url}?token={tokens['wei']}", json=INIT, headers=_headers(None)),
            await http.get(url, headers={"Accept": "text/event-stream"}),
            await http.delete(url, headers={"Mcp-Session-Id": "abc"}),
            await http.post(url, json=_jsonrpc("tools/list", {}), headers={**_headers(None),
                                                                          "MCP-Protocol-Version": "2026-07-28"}),
        ]
        for _ in range(50):
            refusals.append(await http.post(url, json=INIT, headers=_headers(None)))
        for r in refusals:
            assert r.status_code == 401, (r.status_code, r.text)
            assert r.headers["www-authenticate"].startswith("Bearer"), r.headers
            assert "mcp-session-id" not in r.headers
            body = r.json()
            assert body["error"] in ("missing_token", "invalid_token")
            assert "Authorization: Bearer TOKEN" in body["message"] and "Cao Wei" not in r.text
        assert refusals[1].json()["error"] == "invalid_token" and 'error="invalid_token"' in \
            refusals[1].headers["www-authenticate"]
        assert len(manager._server_instances) == 0  # nothing was created for any of them
        sid = await _open_session(http, url, tokens["wei"])
        assert len(manager._server_instances) == 1 and sid in manager._server_instances


async def test_http_sessions_are_bound_to_the_seat_that_opened_them(tmp_path: Path) -> None:
    """A session id works only with the token that opened it: another seat's token on it is refused (as an
    unknown session, 404) and sees nothing; no token at all is a 401. (And `arguments` that are not an object
    get a tool error saying so, not a bare 'Invalid params'.)"""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path)
    brief = _jsonrpc("tools/call", {"name": "get_briefing", "arguments": {}}, id_=5)
    async with live_http(path) as (url, _server), httpx2.AsyncClient(timeout=20) as http:
        sid = await _open_session(http, url, tokens["wei"])
        stolen = await http.post(url, json=brief, headers=_headers(tokens["shu"], sid))
        assert stolen.status_code == 404 and "Cao Wei" not in stolen.text and "Shu Han" not in stolen.text
        anon = await http.post(url, json=brief, headers=_headers(None, sid))
        assert anon.status_code == 401
        own = await http.post(url, json=brief, headers=_headers(tokens["wei"], sid))
        assert own.status_code == 200
        result = next(m for m in _messages(own.text) if m.get("id") == 5)["result"]
        assert "Cao Wei (Cao Cao) — MONTH 1" in result["content"][0]["text"]
        listed = _jsonrpc("tools/call", {"name": "get_city", "arguments": [1]}, id_=6)
        odd = await http.post(url, json=listed, headers=_headers(tokens["wei"], sid))
        result = next(m for m in _messages(odd.text) if m.get("id") == 6)["result"]
        assert result["isError"] and "the arguments must be one JSON object" in result["content"][0]["text"]
    assert history_kinds(path, "shu") == []


@pytest.mark.long
async def test_http_client_that_disconnects_during_a_wait_ends_it_promptly(tmp_path: Path) -> None:
    """An HTTP client that hangs up during an end_turn wait: the wait ends within a poll or two (not its 30 s),
    no wait reply is stored, and the disconnect is noted in the seat's history."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path)
    async with live_http(path, wait_s=30, poll_s=0.05) as (url, _server):
        async with httpx2.AsyncClient(timeout=20) as http:
            sid = await _open_session(http, url, tokens["wei"])
            call_msg = _jsonrpc("tools/call", {"name": "issue_orders", "arguments": {"end_turn": True}}, id_=9)
            with anyio.move_on_after(1.0):
                async with http.stream("POST", url, json=call_msg, headers=_headers(tokens["wei"], sid)) as r:
                    assert r.status_code == 200
                    async for _ in r.aiter_bytes():
                        pass
        gone = time.monotonic()
        while "disconnect" not in history_kinds(path, "wei"):
            assert time.monotonic() - gone < 5, history_kinds(path, "wei")
            await anyio.sleep(0.05)
    game = Game.open(path)
    rows = game.store.history("wei")
    game.close()
    assert [h["kind"] for h in rows] == ["call", "reply", "disconnect"]
    assert "Still waiting" not in rows[1]["text"] and "went away" in rows[2]["text"]
    assert rows[0]["reply_chars"] is None  # no reply size: nothing was sent


# --- HTTP: remote serving is an explicit, safe choice (the real command) -----------------------------------------


def _start(args: list[str], env_extra: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), **(env_extra or {})}
    return subprocess.Popen([sys.executable, "-m", "kingdoms.cli", "serve", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _wait_port(port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.time() + 30
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            if time.time() > deadline or proc.poll() is not None:
                raise AssertionError(proc.stderr.read().decode() if proc.stderr else "no server") from None
            time.sleep(0.1)


@pytest.mark.long
def test_binding_beyond_loopback_needs_allow_remote(tmp_path: Path) -> None:
    """`--host 0.0.0.0` alone is refused (exit 2, naming --allow-remote) before anything is served."""
    path = tmp_path / "g.sqlite"
    new_game(path)
    proc = _start([str(path), "--http", "--host", "0.0.0.0", "--port", str(_free_port())])
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and b"--allow-remote" in err, err


@pytest.mark.long
def test_remote_serving_warns_keeps_host_checks_and_logs_no_query_strings(tmp_path: Path) -> None:
    """With --allow-remote a warning is printed; Host/Origin checks stay on (an unknown Host is refused even
    with a valid token, an --allowed-host name is accepted); the access log never shows a query string."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path)
    port = _free_port()
    proc = _start([str(path), "--http", "--host", "0.0.0.0", "--port", str(port), "--allow-remote",
                   "--allowed-host", "kingdoms.example"])
    try:
        _wait_port(port, proc)
        url = f"http://127.0.0.1:{port}/mcp"
        with httpx2.Client(timeout=20) as http:
            evil = http.post(url, json=INIT, headers={**_headers(tokens["wei"]), "Host": "evil.example"})
            evil_origin = http.post(url, json=INIT, headers={**_headers(tokens["wei"]),
                                                             "Origin": "http://evil.example"})
            named = http.post(url, json=INIT, headers={**_headers(tokens["wei"]), "Host": f"kingdoms.example:{port}",
                                                       "Origin": "https://kingdoms.example"})
            local = http.post(url, json=INIT, headers=_headers(tokens["wei"]))
            leaked = http.post(f"{url}?token=QuerySecret123&x=1", json=INIT, headers=_headers(None))
        assert evil.status_code == 421 and evil_origin.status_code == 403
        assert named.status_code == 200 and local.status_code == 200
        assert leaked.status_code == 401
        time.sleep(0.5)
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=20)
    log = out.decode() + err.decode()
    assert "WARNING: serving plain HTTP on 0.0.0.0" in log and "kingdoms.example" in log
    assert '"POST /mcp HTTP/1.1" 401' in log  # the access line is there...
    assert "QuerySecret123" not in log and "?token" not in log  # ...without its query string


# --- the MCP Inspector (opt-in: pytest -m inspector) ---------------------------------------------------------------


def _inspector_command() -> list[str] | None:
    """How to run the Inspector CLI: KINGDOMS_INSPECTOR (a command line), else a Node >= 22 with npx."""
    configured = os.environ.get("KINGDOMS_INSPECTOR")
    if configured:
        return configured.split()
    node, npx = shutil.which("node"), shutil.which("npx")
    if not node or not npx:
        return None
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    major = int(re.sub(r"[^0-9.]", "", version).split(".")[0] or 0)
    return [npx, "-y", "@modelcontextprotocol/inspector"] if major >= 22 else None


@pytest.mark.inspector
def test_mcp_inspector_cli_lists_tools_prompts_and_resources(tmp_path: Path) -> None:
    """A third-party client, the MCP Inspector CLI: over stdio it lists the eleven tools (--strict: portable
    schemas), both prompts and the resources; over HTTP it needs the bearer token and gets the friendly refusal
    of a misspelt argument. Opt-in (-m inspector): needs Node >= 22 with npx, or KINGDOMS_INSPECTOR set to
    the command that runs it (e.g. 'NODE22 .../inspector/clients/launcher/build/index.js')."""
    command = _inspector_command()
    if command is None:
        pytest.skip("no MCP Inspector: set KINGDOMS_INSPECTOR or put Node >= 22 and npx on PATH")
    path = tmp_path / "g.sqlite"
    tokens = new_game(path)
    server = ["-e", f"KINGDOMS_SEAT={tokens['wei']}", "-e", f"PYTHONPATH={ROOT}", sys.executable, "-m",
              "kingdoms.cli", "serve", str(path)]
    answers = {}
    for method in ("tools/list", "prompts/list", "resources/list"):
        strict = ["--strict"] if method == "tools/list" else []
        run = subprocess.run([*command, "--cli", *strict, *server, "--method", method], capture_output=True,
                             text=True, timeout=180)
        assert run.returncode == 0, (method, run.stdout[-2000:], run.stderr[-2000:])
        answers[method] = json.loads(run.stdout)
    assert len(answers["tools/list"]["tools"]) == 11
    assert {p["name"] for p in answers["prompts/list"]["prompts"]} == {"ruler", "goal_review"}
    assert {"kingdoms://rules", "kingdoms://legend"} <= {r["uri"] for r in answers["resources/list"]["resources"]}
    port = _free_port()
    proc = _start([str(path), "--http", "--port", str(port)])
    try:
        _wait_port(port, proc)
        url = f"http://127.0.0.1:{port}/mcp"
        listed = subprocess.run([*command, "--cli", url, "--header", f"Authorization: Bearer {tokens['wei']}",
                                 "--method", "tools/list"], capture_output=True, text=True, timeout=180)
        misspelt = subprocess.run([*command, "--cli", url, "--header", f"Authorization: Bearer {tokens['wei']}",
                                   "--method", "tools/call", "--tool-name", "issue_orders", "--tool-arg",
                                   "order=hold unit=2", "end_turn=true"], capture_output=True, text=True, timeout=180)
        anonymous = subprocess.run([*command, "--cli", url, "--method", "tools/list"], capture_output=True, text=True,
                                   timeout=180, stdin=subprocess.DEVNULL)
    finally:
        proc.terminate()
        proc.communicate(timeout=20)
    assert listed.returncode == 0 and len(json.loads(listed.stdout)["tools"]) == 11, listed.stderr[-2000:]
    assert misspelt.returncode == 5  # the Inspector's exit for a tool error
    assert "unknown argument `order`: did you mean `orders`?" in json.loads(misspelt.stdout)["content"][0]["text"]
    assert anonymous.returncode != 0 and "get_briefing" not in anonymous.stdout
    game = Game.open(path)
    assert game.month == 1 and game.queued("wei") == []
    game.close()
