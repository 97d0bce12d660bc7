"""A small external agent for Kingdoms: plays one seat through the MCP tools with a simple builder's plan.

It is what a tournament's `command` entrant looks like: launched once per game with the seat's connection
in its environment, it connects with the official MCP Python client and plays until the game is over.
Each month it reads the briefing, gives every city with an empty queue something to build (walls, a
barracks, spearmen, farms, in turn), sets a goal when the briefing asks for one, and ends the month.

    KINGDOMS_URL=http://127.0.0.1:8765/mcp KINGDOMS_TOKEN=... python examples/agents/end_turn_agent.py
    python examples/agents/end_turn_agent.py --stdio   # start `kingdoms serve` from KINGDOMS_MCP_CONFIG

Over HTTP it sends `Authorization: Bearer TOKEN`; with --stdio it launches the server named in the MCP
config file (the {"mcpServers": {...}} shape agent CLIs read), whose environment holds the seat token.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import sys
from typing import Any

import anyio
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

PLAN = ["palisade", "barracks", "spearman:1000", "farm", "walls", "granary", "archer:1000", "spearman:2000"]
GAME_OVER = "THE GAME IS OVER"
CITY_LINE = re.compile(r"^#(\d+) .*\(-?\d+,-?\d+\).*queue EMPTY", re.M)


async def call(client: Client, tool: str, args: dict[str, Any] | None = None) -> tuple[bool, str]:
    """(is_error, text) of one tool call."""
    result = await client.call_tool(tool, args or {})
    return bool(result.is_error), "\n".join(getattr(c, "text", "") for c in result.content)


def plan_orders(briefing: str, plan: Any) -> tuple[str, str | None]:
    """Orders for the month (one set_production per city with an empty queue) and a goal if one is due."""
    orders = [f"set_production city={cid} queue={next(plan)}" for cid in CITY_LINE.findall(briefing)]
    goal = None
    if "GOAL REVIEW" in briefing or "GOAL: none set" in briefing:
        goal = "Hold every city by M160: wall the capital, keep a spearman garrison, grow grain and people."
    return "; ".join(orders), goal


def over(text: str) -> bool:
    """True once the game is over for this seat (ended, or the kingdom has fallen)."""
    upper = text.upper()
    return GAME_OVER in upper or "YOUR KINGDOM HAS FALLEN" in upper


def still_waiting(text: str) -> bool:
    """True when the reply says the next month is not ready yet (call wait_for_turn again)."""
    return text.strip().split("\n\n")[-1].startswith("Still waiting")


async def next_turn(client: Client, text: str) -> str:
    """Wait (in ~45-second calls) until the reply is a briefing for a month this seat can play."""
    while still_waiting(text):
        err, text = await call(client, "wait_for_turn")
        if err and over(text):
            break
    return text


async def play(client: Client) -> int:
    """Play the seat until the game is over for it; returns the months it ended."""
    plan = itertools.cycle(PLAN)
    err, text = await call(client, "get_briefing")
    if err:
        raise SystemExit(f"end_turn_agent: get_briefing refused: {text}")
    months = 0
    while not over(text):
        orders, goal = plan_orders(text, plan)
        args: dict[str, Any] = {"orders": orders, "end_turn": True, "note": "Building up and holding the cities."}
        if goal:
            args["goal"] = goal
        err, text = await call(client, "issue_orders", args)
        if err:  # the game ended meanwhile, or the deadline closed this month: carry on from the next briefing
            if over(text):
                break
            err, text = await call(client, "wait_for_turn")
            text = await next_turn(client, text)
            continue
        months += 1
        text = await next_turn(client, text)
    await call(client, "submit_dispatch", {"report": f"Ended {months} months building and holding.", "final": True})
    return months


async def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", default=os.environ.get("KINGDOMS_URL"), help="MCP endpoint (default $KINGDOMS_URL)")
    ap.add_argument("--token", default=os.environ.get("KINGDOMS_TOKEN"), help="seat token (default $KINGDOMS_TOKEN)")
    ap.add_argument("--stdio", action="store_true", help="start the server from $KINGDOMS_MCP_CONFIG instead")
    args = ap.parse_args(argv)
    if args.stdio:
        config = json.loads(open(os.environ["KINGDOMS_MCP_CONFIG"], encoding="utf-8").read())
        spec = next(iter(config["mcpServers"].values()))
        server: Any = StdioServerParameters(command=spec["command"], args=spec.get("args", []), env=spec.get("env"))
        async with Client(server) as client:
            months = await play(client)
    else:
        if not args.url or not args.token:
            raise SystemExit("end_turn_agent: give --url and --token (or KINGDOMS_URL and KINGDOMS_TOKEN)")
        timeout = httpx2.Timeout(30.0, read=300.0)
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {args.token}"}, timeout=timeout) as http, \
                Client(streamable_http_client(args.url, http_client=http)) as client:
            months = await play(client)
    print(f"end_turn_agent: played {months} months", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
