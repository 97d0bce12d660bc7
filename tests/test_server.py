"""The MCP server through a real MCP client: in memory for most, one over stdio, one over HTTP with two seats.

TOOLS-010..490, TURN-170..210, OPEN-5, OPEN-78, OPEN-84, OPEN-85, OPEN-91: the eleven tools, the seat token as the only credential,
months that resolve once every seat has ended them, waiting, fast_forward, history and the game record.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from kingdoms import ruledata as rd
from kingdoms.game import Game
from kingdoms.mcp_strict import check_arguments, check_value, key_label
from kingdoms.scenario import load_scenario
from kingdoms.server import INTERNAL_ERROR, REFUSAL, build_server
from kingdoms.setup import build_state

pytestmark = pytest.mark.anyio

TOOLS = {"get_briefing", "get_rules", "get_sites", "get_map", "inspect_tile", "get_city", "get_history",
         "issue_orders", "wait_for_turn", "submit_dispatch", "get_game_record"}
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def duel(month: int = 1) -> Any:
    """The shipped duel (32 x 24): Cao Wei 'wei' with Xuchang #1 at (16,3) and levy #2, Shu Han 'shu' with
    Chengdu #4 at (3,21) and levy #5; the Ruins of Chang'an #7 between them."""
    state = build_state(load_scenario("duel"), 7)
    state.month = month
    return state


def new_game(path: Path, controllers: dict[str, str] | None = None, *, deadline_s: float = 600.0,
             state: Any = None) -> dict[str, str]:
    """A duel game file with the given seats; returns the seat tokens."""
    game, tokens = Game.create(path, state or duel(), scenario="duel",
                               controllers=controllers or {"wei": "agent", "shu": "agent"}, deadline_s=deadline_s)
    game.play_ai_seats()
    game.close()
    return tokens


async def call(client: Client, tool: str, args: dict[str, Any] | None = None) -> tuple[bool, str]:
    result = await client.call_tool(tool, args or {})
    text = "\n".join(getattr(c, "text", "") for c in result.content)
    return bool(result.is_error), text


@asynccontextmanager
async def seat(path: Path, token: str, **kw: Any) -> AsyncIterator[Client]:
    server = build_server(path, token=token, **kw)
    try:
        async with Client(server) as client:
            yield client
    finally:
        server.session.close()  # type: ignore[attr-defined]


# --- the tool list ----------------------------------------------------------------------------------------


async def test_tools_010_exactly_the_eleven_tools_with_described_arguments(tmp_path: Path) -> None:
    """TOOLS-010, TOOLS-140: eleven tools, each described, every argument described; issue_orders has its eight."""
    tokens = new_game(tmp_path / "g.sqlite")
    async with seat(tmp_path / "g.sqlite", tokens["wei"]) as c:
        listed = (await c.list_tools()).tools
    assert {t.name for t in listed} == TOOLS
    for tool in listed:
        assert tool.description and len(tool.description) > 60, tool.name
        for name, prop in (tool.input_schema.get("properties") or {}).items():
            assert prop.get("description"), f"{tool.name}.{name} has no description"
    issue = next(t for t in listed if t.name == "issue_orders")
    assert set(issue.input_schema["properties"]) == {"orders", "end_turn", "note", "goal", "verbose", "preview",
                                                      "fast_forward", "force"}
    sites = next(t for t in listed if t.name == "get_sites")
    assert sites.input_schema["properties"]["limit"]["default"] == 25
    dispatch = next(t for t in listed if t.name == "submit_dispatch")
    assert set(dispatch.input_schema["required"]) == {"report", "final"}


async def test_a_missing_or_wrong_token_is_refused_with_no_game_data(tmp_path: Path) -> None:
    """The seat token is the only credential: without a valid one every tool refuses, naming nothing of the game."""
    path = tmp_path / "g.sqlite"
    new_game(path)
    for token in ("", "not-a-token"):
        async with seat(path, token) as c:
            for tool, args in (("get_briefing", {}), ("get_map", {}), ("get_city", {"city_id": 1}),
                               ("issue_orders", {"orders": "hold unit=2", "end_turn": True}),
                               ("wait_for_turn", {}), ("get_history", {}), ("get_rules", {}),
                               ("submit_dispatch", {"report": "x", "final": False})):
                err, text = await call(c, tool, args)
                assert err and REFUSAL in text, (tool, text)
                assert "Cao Wei" not in text and "Shu Han" not in text
    game = Game.open(path)
    assert game.queued("wei") == [] and game.store.history("wei") == [] and game.month == 1
    game.close()


# --- reading tools ----------------------------------------------------------------------------------------


async def test_tools_020_briefing_and_the_reading_tools(tmp_path: Path) -> None:
    """TOOLS-020, TOOLS-040, TOOLS-080, TOOLS-090, TOOLS-100, TOOLS-110, TOOLS-120 (get_briefing, get_rules —
    rules.md itself —, get_map, inspect_tile, get_city, get_sites): the text tools answer in plain text."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path)
    async with seat(path, tokens["wei"]) as c:
        err, brief = await call(c, "get_briefing")
        assert not err
        assert "Cao Wei (Cao Cao) — MONTH 1 of 160" in brief
        assert "#1 Xuchang (16,3) [capital] — 15,000 people (land feeds" in brief
        assert "#2 levy 3,000 (medium) (16,3) in Xuchang" in brief
        assert "The Ruin: Ruins of Chang'an #7 (10,12), held by bandits" in brief
        assert "GOAL: none set" in brief and "GOAL REVIEW" in brief  # OPEN-84: no goal yet
        err, toc = await call(c, "get_rules")  # issue 16 item 7: a table of contents, then one section or all
        assert not err and toc.startswith("RULES — table of contents") and "§8 Combat (" in toc and len(toc) < 3_000
        err, rules = await call(c, "get_rules", {"section": "all"})
        assert not err and rules == (ROOT / "rules.md").read_text(encoding="utf-8")
        err, supply = await call(c, "get_rules", {"section": "supply"})
        err2, same = await call(c, "get_rules", {"section": "6"})
        assert not err and not err2 and supply == same and supply.startswith("## 6. Supply")
        assert "## 7." not in supply
        err, text = await call(c, "get_rules", {"section": "no such part"})
        assert err and "Sections: 1 Aim and victory" in text
        err, text = await call(c, "get_map", {"center_q": 16, "center_r": 3, "radius": 2})
        assert not err and "* #1 Xuchang (16,3) (yours)" in text and "F*" in text
        err, text = await call(c, "get_map", {"center_q": 1})
        assert err and "together" in text
        err, text = await call(c, "inspect_tile", {"q": 16, "r": 3})
        assert not err and "Land of your city #1 Xuchang (its centre)" in text
        err, text = await call(c, "inspect_tile", {"q": 3, "r": 21})
        assert not err and "unexplored" in text
        err, text = await call(c, "get_city", {"city_id": 1})
        assert not err and "BUILD OPTIONS" in text and "palisade 10 prod" in text and "FOCUS" in text
        err, text = await call(c, "get_city", {"city_id": 99})
        assert err and "No city #99" in text
        err, text = await call(c, "get_sites", {"limit": 3})
        assert not err and text.startswith("CITY SITES you know")
        err, text = await call(c, "get_game_record")
        assert not err and "Not available yet" in text


async def test_fog_a_rival_city_shows_only_what_is_known(tmp_path: Path) -> None:
    """Fog: a rival capital out of sight is not on the seat's map, and get_city refuses it like an unknown id."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path)
    game = Game.open(path)
    shu_capital = next(c.id for c in game.state().cities.values() if c.owner == "shu")
    game.close()
    async with seat(path, tokens["wei"]) as c:
        err, text = await call(c, "get_city", {"city_id": shu_capital})
        assert err and "No city" in text and "Chengdu" not in text
        err, brief = await call(c, "get_briefing")
        assert "Chengdu" not in brief
        err, text = await call(c, "get_map")
        assert "Chengdu" not in text and "(3,21)" not in text


# --- issuing orders -----------------------------------------------------------------------------------------


async def test_tools_150_400_compact_verbose_and_refusals(tmp_path: Path) -> None:
    """TOOLS-150, TOOLS-400, TOOLS-410: refusals are listed with position, text, code and reason and are not queued; routine
    orders are counted in the compact reply and listed with verbose=true."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path)
    async with seat(path, tokens["wei"]) as c:
        err, text = await call(c, "issue_orders", {"orders": "set_production city=1 queue=palisade; move unit=99 to=17,4"})
        assert not err
        assert "Month 1: 1 of 2 orders queued, 1 REFUSED" in text
        assert "routine, queued: 1 set_production" in text
        assert "2. REFUSED [unknown_unit] move unit=99 to=17,4:" in text
        err, text = await call(c, "issue_orders", {"orders": ["set_focus city=1 focus=food"], "verbose": True})
        assert "1. set_focus city=1 focus=food →" in text
    game = Game.open(path)
    assert [o.action for o in game.queued("wei")] == ["set_production", "set_focus"]
    game.close()


async def test_turn_170_preview_queues_nothing_and_keeps_the_month_open(tmp_path: Path) -> None:
    """TURN-170, TOOLS-440: a preview shows each order's effect, queues nothing and never ends the month."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path)
    async with seat(path, tokens["wei"]) as c:
        err, text = await call(c, "issue_orders", {"orders": "move unit=2 to=17,4; move unit=77 to=17,4",
                                                   "preview": True, "end_turn": True, "note": "n", "goal": "g"})
    assert not err
    assert "PREVIEW of 2 orders" in text and "nothing queued" in text
    assert "1. move unit=2 to=17,4 → " in text
    assert "2. move unit=77 to=17,4 → WOULD BE REFUSED [unknown_unit]" in text
    assert "end_turn ignored" in text
    game = Game.open(path)
    assert game.queued("wei") == [] and game.month == 1 and "wei" not in game.store.ended(1)
    assert game.store.notes("wei") == []
    game.close()


async def test_tools_420_430_note_and_goal_are_stored_and_the_goal_shown(tmp_path: Path) -> None:
    """TOOLS-420, TOOLS-430, OPEN-84: the note is stored for the chronicle; the goal keeps 400 characters, shows in every
    briefing, and a GOAL REVIEW is asked for 20 months after it was set."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path)
    goal = "Lead on captures by M60: " + "x" * 500
    async with seat(path, tokens["wei"]) as c:
        err, text = await call(c, "issue_orders", {"orders": "", "note": "The capital builds walls.", "goal": goal})
        assert "Note stored" in text and "cut to its first 400 characters" in text
        err, brief = await call(c, "get_briefing")
        assert f"GOAL (set M1): {goal[:400]}" in brief and "GOAL REVIEW" not in brief
    game = Game.open(path)
    notes = game.store.notes("wei")
    assert [(n["kind"], n["month"]) for n in notes] == [("note", 1), ("goal", 1)]
    assert len(notes[1]["text"]) == 400
    game.close()
    # Twenty months on, the briefing asks for a review again.
    later = duel(21)
    path2 = tmp_path / "g2.sqlite"
    tokens2 = new_game(path2, state=later)
    game = Game.open(path2)
    game.store.add_note(1, "wei", "goal", "Hold the river by M30: walls first", time.time())
    game.close()
    async with seat(path2, tokens2["wei"]) as c:
        err, brief = await call(c, "get_briefing")
    assert "GOAL (set M1): Hold the river by M30" in brief and "GOAL REVIEW" in brief


# --- ending months, waiting, deadlines, fast_forward --------------------------------------------------------


async def test_turn_190_end_turn_against_an_ai_returns_the_next_briefing(tmp_path: Path) -> None:
    """TURN-190, TOOLS-460: AI seats end at once, so end_turn resolves the month and brings month 2's briefing
    with last month's results (TURN-180); it is short-rowed after a seen month (TOOLS-070, OPEN-5)."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path, {"wei": "agent", "shu": "ai:passive"})
    async with seat(path, tokens["wei"]) as c:
        await call(c, "get_briefing")
        err, text = await call(c, "issue_orders", {"orders": "set_production city=1 queue=palisade", "end_turn": True,
                                                   "note": "Walls first."})
    assert not err
    assert "Month 1 ended for you." in text
    assert "MONTH 2 of 160" in text
    assert "short rows" in text
    assert "LAST MONTH" in text and "M1: 1 order carried out." in text


async def test_tools_060_full_rows_on_the_first_and_every_tenth_month_and_in_get_briefing(tmp_path: Path) -> None:
    """TOOLS-060, TOOLS-070: a game starting in month 8: its first briefing has full rows, month 9's (after a seen
    month) short ones, month 10's full ones again, month 11's short; get_briefing always has full rows."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path, {"wei": "agent", "shu": "ai:passive"}, state=duel(month=8))
    shown: dict[int, bool] = {}
    async with seat(path, tokens["wei"]) as c:
        err, text = await call(c, "get_briefing")
        assert not err and "MONTH 8 of" in text and "short rows" not in text and "land feeds" in text
        for month in (9, 10, 11):
            err, text = await call(c, "issue_orders", {"orders": [], "end_turn": True})
            assert not err and f"MONTH {month} of" in text, text[:200]
            shown[month] = "short rows" in text
        err, again = await call(c, "get_briefing")
    assert shown == {9: True, 10: False, 11: True}
    assert not err and "MONTH 11 of" in again and "short rows" not in again and "land feeds" in again


async def test_end_turn_waits_then_wait_for_turn_brings_the_briefing(tmp_path: Path) -> None:
    """TURN-190, TOOLS-470: with a human rival still to play, end_turn answers 'Still waiting'; once the rival
    ends the month, wait_for_turn returns the new briefing. Two servers on one file, as two stdio processes."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path)
    async with seat(path, tokens["wei"], wait_s=0.6, poll_s=0.05) as wei, \
            seat(path, tokens["shu"], wait_s=5, poll_s=0.05) as shu:
        err, text = await call(wei, "issue_orders", {"orders": "", "end_turn": True})
        assert not err and "Still waiting: month 1 is open and you have ended it; waiting for Shu Han" in text
        err, text = await call(wei, "issue_orders", {"orders": "hold unit=2"})
        assert err and "already ended" in text
        err, text = await call(shu, "issue_orders", {"orders": "", "end_turn": True})
        assert not err and "MONTH 2 of 160" in text
        err, text = await call(wei, "wait_for_turn")
        assert not err and "MONTH 2 of 160" in text and "Cao Wei" in text
        err, text = await call(wei, "wait_for_turn")  # the month is open for wei: the briefing at once
        assert "MONTH 2 of 160" in text


async def test_open_78_deadline_ends_a_late_seat(tmp_path: Path) -> None:
    """OPEN-78: a seat that does not end its month within the game's deadline is ended with what it queued."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path, deadline_s=1.0)
    game = Game.open(path)
    game.end_month("wei")  # before any server runs, so no slow start-up can let the deadline close month 1 first
    game.close()
    async with seat(path, tokens["wei"], wait_s=10, poll_s=0.05) as wei:
        err, text = await call(wei, "wait_for_turn")
    assert not err and "MONTH 2 of 160" in text
    game = Game.open(path)
    assert game.store.ended(1) == {"wei": "ended", "shu": "deadline"}
    game.close()


async def test_open_78_deadline_counts_from_the_server_start(tmp_path: Path) -> None:
    """OPEN-78: a month that opened while no server ran is not ended the moment a server starts."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path, deadline_s=60)
    game = Game.open(path)
    game.store.set_meta(month_opened_at=time.time() - 3_600)
    game.close()
    async with seat(path, tokens["wei"]) as c:
        err, text = await call(c, "get_briefing")
        assert not err and "MONTH 1 of 160" in text
    game = Game.open(path)
    assert game.month == 1 and game.store.ended(1) == {}
    game.close()


async def test_turn_200_fast_forward_ends_quiet_months_and_stops_for_orders(tmp_path: Path) -> None:
    """TURN-200, TURN-210, OPEN-91: fast_forward ends quiet months for the seat; a troop left without orders stops it."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path, {"wei": "agent", "shu": "ai:passive"})
    async with seat(path, tokens["wei"], wait_s=20, poll_s=0.02) as c:
        err, text = await call(c, "issue_orders", {"orders": "set_production city=1 queue=palisade,levy:1000,walls",
                                                   "end_turn": True, "fast_forward": 3})
        assert not err
        assert "MONTH 5 of 160" in text, text[:400]
        game = Game.open(path)
        assert game.store.ended(2)["wei"] == "fast_forward" and game.store.ended(4)["wei"] == "fast_forward"
        assert "wei" not in game.store.ended(5)
        game.close()
        # A field troop without orders stops the skipping at once (OPEN-91).
        err, text = await call(c, "issue_orders", {"orders": "move unit=2 to=17,4", "end_turn": True,
                                                   "fast_forward": 5})
        assert "MONTH 6 of 160" in text and "fast_forward stopped" in text and "#2 levy has no orders" in text


# --- history, dispatches, the record ------------------------------------------------------------------------


async def test_open_85_history_keeps_everything_in_order(tmp_path: Path) -> None:
    """TOOLS-130, OPEN-85: get_history sums the game up (goal, notes, a line a month) and, for one month, gives the
    seat's calls and the game's answers in full, oldest first; the file keeps every call with its reply's size."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path, {"wei": "agent", "shu": "ai:passive"})
    async with seat(path, tokens["wei"]) as c:
        await call(c, "get_briefing")
        await call(c, "issue_orders", {"orders": "set_focus city=1 focus=food; move unit=99 to=1,1", "note": "Grow.",
                                       "goal": "Walls by M10: then levies", "end_turn": True, "force": True})
        await call(c, "submit_dispatch", {"report": "Month one: we chose food.", "final": False})
        err, digest = await call(c, "get_history")
        err2, month1 = await call(c, "get_history", {"month": 1})
        err3, both = await call(c, "get_history", {"month": 1, "before": 2})
    assert not err and not err2
    assert digest.startswith("HISTORY of Cao Wei: month 2 of 160 is open.")
    assert "GOAL (set M1): Walls by M10: then levies" in digest and "LAST NOTES: M1: Grow." in digest
    assert "LAST REPORT (M2): Month one: we chose food." in digest
    assert "M1: 2 orders given, 1 refused (unknown_unit); you ended it; 1 order carried out." in digest
    assert digest.index("M2: no orders; open now.") < digest.index("M1: 2 orders given")  # newest first
    order = ["you: get_briefing {}", "game, briefing:", "you: issue_orders", "set_focus city=1 focus=food",
             "game, reply:", "Month 1 ended for you (force: 1 refused order left out)."]
    pos = [month1.index(s) for s in order]
    assert pos == sorted(pos), order
    assert "MONTH 2 of 160" not in month1  # month 2's briefing belongs to month 2
    assert err3 and "not both" in both
    game = Game.open(path)
    rows = game.store.history("wei")
    kinds = [h["kind"] for h in rows]
    assert kinds[:6] == ["call", "briefing", "call", "reply", "briefing", "call"]
    briefing_call, briefing = rows[0], rows[1]
    assert briefing_call["reply_chars"] == len(briefing["text"])
    assert briefing_call["reply_tokens"] == (len(briefing["text"]) + 3) // 4
    assert [n["kind"] for n in game.store.notes("wei", "dispatch")] == ["dispatch"]
    game.close()


async def test_tools_480_490_final_dispatch_and_game_record(tmp_path: Path) -> None:
    """TOOLS-480, TOOLS-490: a final dispatch is stored; once the game ends, get_game_record names the MCP resources of
    the seat's record and the full replay (no server paths), both readable through MCP; owner-only copies of
    both lie next to the game file."""
    path = tmp_path / "g.sqlite"
    last = duel(rd.LAST_MONTH)
    tokens = new_game(path, {"wei": "agent", "shu": "ai:passive"}, state=last)
    async with seat(path, tokens["wei"]) as c:
        err, text = await call(c, "issue_orders", {"orders": "set_focus city=1 focus=food", "note": "Last stand.",
                                                   "end_turn": True})
        assert "THE GAME IS OVER" in text and "DRAW" in text
        err, text = await call(c, "issue_orders", {"orders": "hold unit=2"})
        assert err and "game is over" in text
        err, text = await call(c, "submit_dispatch", {"report": "A draw: neither side struck.", "final": True})
        assert not err and "final report" in text
        err, text = await call(c, "get_game_record")
        assert not err and "The game is over" in text
        assert "kingdoms://record/wei" in text and "kingdoms://replay" in text
        assert str(tmp_path) not in text and ".json" not in text
        data = json.loads((await c.read_resource("kingdoms://record/wei")).contents[0].text)
        rep = json.loads((await c.read_resource("kingdoms://replay")).contents[0].text)
    assert data["kingdom"] == "wei" and data["result"] == "draw" and data["replay"] == "kingdoms://replay"
    first = data["months"][0]
    assert first["month"] == rd.LAST_MONTH and first["orders"][0]["order"] == "set_focus city=1 focus=food"
    assert first["notes"][0]["text"] == "Last stand." and first["seconds"] is not None
    assert any(d["kind"] == "final" for m in data["months"] for d in m["dispatches"])
    assert len(rep["months"]) == 2 and len(rep["months"][0]["owner"]) == 32 * 24
    assert {k["id"] for k in rep["kingdoms"]} == {"wei", "shu"}
    for copy in (path.with_suffix(".wei.record.json"), path.with_suffix(".replay.json")):
        assert copy.stat().st_mode & 0o777 == 0o600, copy
    assert json.loads(path.with_suffix(".replay.json").read_text()) == rep


# --- a scripted agent ---------------------------------------------------------------------------------------


async def test_a_scripted_agent_plays_several_months_through_the_tools(tmp_path: Path) -> None:
    """A simple agent loop: read the briefing, fill empty queues, end the month with a note — six months."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path, {"wei": "agent", "shu": "ai:passive"})
    plan = ["palisade", "levy:1000", "workshop", "barracks", "scout", "walls"]
    async with seat(path, tokens["wei"], wait_s=10, poll_s=0.02) as c:
        err, brief = await call(c, "get_briefing")
        for month in range(1, 7):
            assert f"MONTH {month} of 160" in brief
            orders = []
            if "queue EMPTY" in brief or month == 1:
                orders.append(f"set_production city=1 queue={plan[month - 1]}")
            err, reply = await call(c, "issue_orders", {"orders": "; ".join(orders), "end_turn": True,
                                                        "note": f"Month {month}: the capital keeps building.",
                                                        "goal": "Walls and levies by M10: then scout east"
                                                        if month == 1 else None})
            assert not err, reply
            assert "REFUSED" not in reply
            brief = reply
        assert "MONTH 7 of 160" in brief
    game = Game.open(path)
    assert game.month == 7
    assert len(game.store.notes("wei", "note")) == 6
    assert game.state().cities[1].buildings  # something got built along the way
    game.close()


# --- stdio and HTTP -----------------------------------------------------------------------------------------


def _child_env() -> dict[str, str]:
    return {"PYTHONPATH": str(ROOT), "HOME": os.environ.get("HOME", "/tmp")}


@pytest.mark.long
async def test_stdio_one_seat_in_a_subprocess(tmp_path: Path) -> None:
    """`kingdoms serve GAME --seat TOKEN` serves one seat over stdio; a wrong KINGDOMS_SEAT gets the refusal."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path)
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "kingdoms.cli", "serve", str(path), "--seat", tokens["shu"]],
                                   env=_child_env())
    with anyio.fail_after(60):
        async with Client(params) as c:
            err, text = await call(c, "get_briefing")
            assert not err and "Shu Han (Liu Bei) — MONTH 1" in text
            err, text = await call(c, "issue_orders", {"orders": "set_production city=4 queue=palisade"})
            assert not err and "Month 1: 1 of 1 order queued." in text
    bad = StdioServerParameters(command=sys.executable, args=["-m", "kingdoms.cli", "serve", str(path)],
                                env={**_child_env(), "KINGDOMS_SEAT": "wrong"})
    with anyio.fail_after(60):
        async with Client(bad) as c:
            err, text = await call(c, "get_briefing")
    assert err and REFUSAL in text


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@asynccontextmanager
async def http_seat(url: str, token: str | None) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with create_mcp_http_client(headers=headers) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            yield client


@pytest.mark.long
async def test_http_serves_every_seat_each_sees_only_its_own(tmp_path: Path) -> None:
    """`kingdoms serve GAME --http`: two seats act at once over streamable HTTP, each with its bearer token; each
    sees only its own kingdom and is refused when it orders the other's troops; no token, no connection."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path)
    game = Game.open(path)
    units = {u.owner: u.id for u in game.state().units.values()}
    game.close()
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "kingdoms.cli", "serve", str(path), "--http", "--port", str(port)],
                            env={**os.environ, **_child_env()}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.time() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                if time.time() > deadline or proc.poll() is not None:
                    raise AssertionError(proc.stderr.read().decode() if proc.stderr else "no server") from None
                await anyio.sleep(0.1)
        url = f"http://127.0.0.1:{port}/mcp"
        results: dict[str, list[tuple[bool, str]]] = {}

        async def play(kid: str, other: str) -> None:
            async with http_seat(url, tokens[kid]) as c:
                out = [await call(c, "get_briefing"),
                       await call(c, "issue_orders", {"orders": f"move unit={units[other]} to=10,10"}),
                       await call(c, "issue_orders", {"orders": "", "end_turn": True})]
                results[kid] = out

        with anyio.fail_after(60):
            async with anyio.create_task_group() as tg:
                tg.start_soon(play, "wei", "shu")
                tg.start_soon(play, "shu", "wei")
            for token in (None, "forged"):  # no token, no session: the client cannot even connect
                with pytest.raises(Exception):  # noqa: B017 - the SDK wraps the 401 in its own errors
                    async with http_seat(url, token) as anon:
                        await call(anon, "get_briefing")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    for kid, name, other in (("wei", "Cao Wei", "#4 Chengdu"), ("shu", "Shu Han", "#1 Xuchang")):
        (e1, brief), (e2, reply), (e3, ended) = results[kid]
        assert not e1 and f"== {name} (" in brief and other not in brief
        assert "REFUSED [unknown_unit]" in reply or "REFUSED [not_your_unit]" in reply
        assert not e3 and ("MONTH 2 of 160" in ended or "Still waiting" in ended)
    game = Game.open(path)
    assert game.month == 2 and game.queued("wei", 1) == [] and game.queued("shu", 1) == []
    game.close()


# --- fuzz: argument names and types ------------------------------------------------------------------------------

_ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6)


def _fits(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values a JSON schema accepts (the tools' own: integers with ranges, booleans, texts, unions, lists)."""
    options = schema.get("anyOf")
    if options:
        return st.one_of([_fits({**{k: v for k, v in schema.items() if k != "anyOf"}, **o}) for o in options])
    t = schema.get("type")
    if t == "integer":
        return st.integers(schema.get("minimum", -10**4), schema.get("maximum", 10**4))
    if t == "boolean":
        return st.booleans()
    if t == "string":
        return st.text(max_size=20)
    if t == "null":
        return st.none()
    if t == "array":
        return st.lists(_fits(schema.get("items") or {"type": "string"}), max_size=3)
    if t == "object":
        return st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=5), max_size=3)
    return _ANY_JSON


@pytest.fixture(scope="module")
def tool_server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    path = tmp_path_factory.mktemp("schemas") / "g.sqlite"
    tokens = new_game(path)
    server = build_server(path, token=tokens["wei"])
    schemas = {t.name: t.input_schema for t in anyio.run(server.list_tools)}
    yield server, schemas
    server.session.close()  # type: ignore[attr-defined]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzz_argument_names_and_types_are_checked_like_the_schema(tool_server: Any, data: st.DataObject) -> None:
    """Any argument names and JSON values for any tool: the checker never raises, names every unknown key
    (with its closest valid one when there is one), says each problem in a line without pydantic text, and what
    it passes is always accepted by the SDK's own validation (so no pydantic refusal can follow)."""
    server, schemas = tool_server
    name = data.draw(st.sampled_from(sorted(schemas)))
    schema = schemas[name]
    props = schema["properties"]
    misspelt = [k[:-1] for k in props if len(k) > 3] + [k + "s" for k in props] + [k.upper() for k in props]
    keys = data.draw(st.lists(st.sampled_from(sorted(props) or ["x"]) | st.sampled_from(misspelt or ["x"])
                              | st.text(min_size=1, max_size=10), max_size=5, unique=True))
    args = {k: data.draw(_fits(props[k]) | _ANY_JSON if k in props else _ANY_JSON) for k in keys}
    fixed, problems = check_arguments(name, schema, args)
    for key in args:
        if key not in props:
            assert any(p.startswith(f"unknown argument `{key_label(key)}`") for p in problems), (key, problems)
    missing = [k for k in schema.get("required") or [] if k not in args]
    assert all(any(f"missing argument `{k}`" in p for p in problems) for k in missing)
    for p in problems:
        assert "\n" not in p and "validation error" not in p and "pydantic" not in p and "input_value" not in p
    if not problems:
        tool = server._tool_manager.get_tool(name)
        tool.fn_metadata.validate_arguments(fixed)  # raises if the SDK would refuse what the checker let through


async def test_fuzz_bad_calls_through_the_client_change_nothing(tmp_path: Path) -> None:
    """Two hundred calls, each with a wrong name or type somewhere, through a real client: every one is refused
    with 'The call was not run', none shows pydantic text or an internal error, and the game file is unchanged."""
    import random

    path = tmp_path / "g.sqlite"
    tokens = new_game(path)
    rng = random.Random(13)
    junk: list[Any] = [None, True, 3.5, -7, "", "x" * 300, [1, None], {"a": [1]}, "maybe", [[]], 10**9]
    async with seat(path, tokens["wei"]) as c:
        schemas = {t.name: t.input_schema for t in (await c.list_tools()).tools}
        for i in range(200):
            tool = rng.choice(sorted(schemas))
            props = schemas[tool]["properties"]
            args: dict[str, Any] = {k: "set_focus city=1 focus=food" if k == "orders" else 1 for k in
                                    schemas[tool].get("required") or []}
            if props and rng.random() < 0.5:
                key = rng.choice(sorted(props))
                wrong = [v for v in junk if check_value(props[key], v)[1] is not None]
                args[key] = rng.choice(wrong)
            else:
                key = rng.choice([k + "_" for k in props] + ["order", "endturn", "unit", "x" * (i % 7 + 1)])
                args[key] = rng.choice(junk)
            err, text = await call(c, tool, args)
            assert err and "The call was not run" in text, (tool, args, text)
            assert "validation error" not in text and "pydantic" not in text and INTERNAL_ERROR not in text
    game = Game.open(path)
    assert game.month == 1 and game.queued("wei") == [] and game.store.history("wei") == []
    assert game.store.notes("wei") == []
    game.close()
