"""The MCP server: the eleven tools a seated ruler plays with, a thin mapping onto kingdoms.session.Session.

One seat over stdio (its token from the KINGDOMS_SEAT variable or `--seat`), or every seat over streamable
HTTP, each request naming its seat with `Authorization: Bearer TOKEN` (kingdoms.http_auth refuses any other
request with a 401 before the SDK sees it). The token is the only credential: without a valid one a tool
answers with one refusal and no game data. What each tool says and does is the session's (briefings, orders,
fast_forward, history, the record); this module seats the caller, records the call, runs the session's
method in a worker thread and turns a refusal into a ToolError. Arguments are checked against each tool's
schema before it runs (kingdoms.mcp_strict); prompts and resources are kingdoms.mcp_content's.

A month resolves once every living seat has ended it: AI seats end theirs at once, a late seat is ended by
the game's deadline (OPEN-78). Several stdio processes may share one game file, so a seat waiting for its
turn polls the file (never blocking the event loop) and answers "still waiting" after about 45 seconds rather
than outlast an MCP client's request timeout; a client that leaves ends the wait. That wait is MCP's concern
and stays here.
Everything sent to and from a seat is kept in the game file's history, in order (OPEN-85).
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import logging
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any, Literal, NamedTuple

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

import kingdoms
from kingdoms import http_auth
from kingdoms import ruledata as rd
from kingdoms.game import GameError
from kingdoms.mcp_content import add_prompts_and_resources
from kingdoms.mcp_strict import StrictMCPServer
from kingdoms.session import Session, SessionError
from kingdoms.storage import StorageError, match_token
from kingdoms.viewer.watch import build_watch_app, with_watch

log = logging.getLogger("kingdoms.server")

WAIT_S = 45.0  # longest a tool waits for the next month (clients time out at about 60 s)
POLL_S = 0.3
HARNESS_TOOLS = {"report_usage"}  # callable by name, left out of tools/list: a ruler's tools stay TOOLS-010's

REFUSAL = ("No seat: this server acts only for a seated ruler, and the seat token given is missing or not one of "
           "this game's. Over stdio start it with `kingdoms serve GAME --seat TOKEN` (or set KINGDOMS_SEAT); over "
           "HTTP send the header `Authorization: Bearer TOKEN`. The token was printed by `kingdoms new`.")

DISCONNECTED = "The client went away while waiting for the next month; nothing more was sent."

INTERNAL_ERROR = ("The server failed while answering this call (an internal error, now in its log). Check "
                  "get_briefing (or wait_for_turn) before repeating it, or carry on with another tool.")

INSTRUCTIONS = """\
You rule one kingdom of Kingdoms, a month-by-month hex strategy game won on captured cities.
Each month: get_briefing (read ALERTs and last month first), look closer with get_city / get_map /
inspect_tile / get_sites, send orders with issue_orders (try risky ones with preview=true), then
issue_orders end_turn=true with a short note (a refused order keeps the month open: fix it or end again).
If the answer says it is still waiting, call wait_for_turn until the next briefing arrives. get_rules
lists the rules' sections (read one with section=N); get_history sums up the game so far if you lose
track. Orders are text like `move unit=5 to=9,4; attack unit=7 to=10,4`."""


def package_version() -> str:
    try:
        return importlib.metadata.version("kingdoms")
    except importlib.metadata.PackageNotFoundError:
        return kingdoms.__version__


READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)


class Reply(NamedTuple):
    """What a tool's blocking part answers: the text, the history entry it leaves (kind, text kept, month;
    None: the open month) and whether more follows it (issue_orders that ended the month waits for the next
    briefing)."""

    text: str
    kind: str
    stored: str
    month: int | None = None
    more: bool = False


class ClientGone(Exception):
    """The HTTP client of a waiting call disconnected: stop waiting, store no reply."""


def request_of(ctx: Context | None) -> Any:
    """The HTTP request behind a call (None over stdio or in memory)."""
    with contextlib.suppress(Exception):
        return ctx.request_context.request  # type: ignore[union-attr]
    return None


def bearer_token(ctx: Context | None) -> str | None:
    """The token of an HTTP request's `Authorization: Bearer` header (None over stdio or without one)."""
    headers = None
    if ctx is not None:
        with contextlib.suppress(Exception):
            headers = ctx.headers
    if not headers:
        return None
    auth = headers.get("authorization") or headers.get("Authorization") or ""
    scheme, _, value = auth.strip().partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


_ORDERS_HELP = (
    "Your orders: plain text with one order per line or separated by ';', each `verb key=value ...` — e.g. "
    "`move unit=12 to=7,3; attack unit=9 to=8,3 hold; set_production city=1 queue=palisade,spearman:2000,farm@4,5; "
    "set_focus city=1 focus=food; declare_war to=\"Shu Han\"` — or a JSON array whose items are order objects "
    "({\"action\":\"move\",\"unit_id\":12,\"q\":7,\"r\":3}) or such text strings. Keys: unit, units (1,2), city, "
    "target, general, to (q,r; a ruler or kingdom for declare_war), men, dan, what, queue, focus; a bare key "
    "(hold, pursue, surprise) means true. May be empty when you only end the month.")


def build_server(game_path: str | Path, *, token: str | None = None, wait_s: float = WAIT_S,
                 poll_s: float = POLL_S) -> MCPServer:
    """The MCP server for one game file. With `token` every call acts for that seat (stdio, tests); without,
    each request names its seat in an `Authorization: Bearer TOKEN` header (HTTP). `server.session` is the
    Session behind it."""
    session = Session(game_path)
    launch_token = token.strip() if token else None
    server = StrictMCPServer(name="kingdoms", version=package_version(), instructions=INSTRUCTIONS)
    server.session = session  # type: ignore[attr-defined]  # for tests and serve()

    def kingdom_of(ctx: Context | None) -> str | None:
        """The caller's kingdom, from the launch's token or the request's bearer token; None without a valid one."""
        return session.kingdom_for(launch_token if launch_token is not None else bearer_token(ctx))

    def seat_of(ctx: Context) -> str:
        """The caller's kingdom, or a ToolError (no game data)."""
        kingdom = kingdom_of(ctx)
        if kingdom is None:
            raise ToolError(REFUSAL)
        return kingdom

    add_prompts_and_resources(server, session, kingdom_of,
                              session.kingdom_for(launch_token) if launch_token else None)

    def run_blocking(ctx: Context, tool: str, args: dict[str, Any], work: Callable[[str], Reply] | None
                     ) -> tuple[str, int, Reply | None, BaseException | None]:
        """A call's blocking part in one worker thread: seat the caller (a ToolError without a seat), record the
        call, run `work` and record its reply with the reply's size (one transaction). Returns (kingdom, call id,
        reply, failure); a failure is already recorded, its message is the call's answer."""
        kingdom = seat_of(ctx)
        call_id = session.record_call(kingdom, tool, args)
        if work is None:
            return kingdom, call_id, None, None
        try:
            reply = work(kingdom)
        except (ToolError, SessionError, GameError, StorageError) as exc:
            session.record_failure(kingdom, call_id, str(exc))
            return kingdom, call_id, None, exc
        except Exception as exc:
            log.exception("tool %s failed for %s", tool, kingdom)
            session.record_failure(kingdom, call_id, f"internal error: {exc!r}", reply=INTERNAL_ERROR)
            return kingdom, call_id, None, exc
        session.record_reply(kingdom, reply.kind, reply.stored, reply.month,
                             call_id=None if reply.more else call_id, reply=reply.text)
        return kingdom, call_id, reply, None

    async def run_tool(ctx: Context, tool: str, args: dict[str, Any], work: Callable[[str], Reply] | None,
                       more: Callable[[str], Awaitable[str]] | None = None) -> str:
        """Seat the caller (or refuse), record the call, run the tool, keep the reply's size with the call;
        every failure becomes one clear ToolError. `work` (run in one worker thread with the seating and the
        records) gives the reply; `more` (when the reply asks for it, or with no `work`) waits for what follows
        it (the next briefing), in the event loop."""
        kingdom, call_id, reply, failure = await anyio.to_thread.run_sync(run_blocking, ctx, tool, args, work)
        if failure is not None:
            if isinstance(failure, (ToolError, SessionError, GameError, StorageError)):
                raise ToolError(str(failure))
            raise ToolError(INTERNAL_ERROR) from failure
        text = reply.text if reply is not None else ""
        if more is None or (reply is not None and not reply.more):
            return text
        try:
            later = await more(kingdom)
        except ClientGone:
            await anyio.to_thread.run_sync(session.record, kingdom, "disconnect", DISCONNECTED)
            return DISCONNECTED
        except ToolError as exc:
            message = str(exc)
        except (SessionError, GameError, StorageError) as exc:
            message = str(exc)
        except Exception as exc:
            log.exception("tool %s failed for %s", tool, kingdom)
            error = f"internal error: {exc!r}"
            await anyio.to_thread.run_sync(lambda: session.record_failure(kingdom, call_id, error,
                                                                          reply=INTERNAL_ERROR))
            raise ToolError(INTERNAL_ERROR) from exc
        else:
            text = text + "\n\n" + later if reply is not None else later
            await anyio.to_thread.run_sync(session.record_reply_size, call_id, text)
            return text
        await anyio.to_thread.run_sync(session.record_failure, kingdom, call_id, message)
        raise ToolError(message)

    async def call(ctx: Context, tool: str, args: dict[str, Any], fn: Callable[..., str], *fargs: Any,
                   quiet_reply: str | None = None) -> str:
        """A tool whose answer is one text from a Session method, run in the call's worker thread."""

        def work(kingdom: str) -> Reply:
            text = fn(kingdom, *fargs)
            return Reply(text, "reply", quiet_reply.format(n=len(text)) if quiet_reply else text)

        return await run_tool(ctx, tool, args, work)

    async def wait_turn(ctx: Context, kingdom: str) -> str:
        """Wait up to `wait_s` for the seat's next turn; returns (and records) its briefing or a still-waiting line.
        A client that hangs up ends the wait (ClientGone): over HTTP it is asked at every poll, over stdio and in
        memory its leaving cancels the call."""
        deadline = anyio.current_time() + wait_s
        request = request_of(ctx)
        status, month = "", 0
        while True:
            kind, text, month = await anyio.to_thread.run_sync(session.turn_status, kingdom)
            if await http_auth.client_gone(request):
                raise ClientGone
            if kind == "turn":
                await anyio.to_thread.run_sync(session.record, kingdom, "briefing", text, month)
                return text
            status = text
            if anyio.current_time() >= deadline:
                break
            await anyio.sleep(poll_s)
        if not status.startswith("Still waiting"):
            status = (f"Still waiting: {status}; your next briefing is not ready yet. Call wait_for_turn again.")
        await anyio.to_thread.run_sync(session.record, kingdom, "reply", status, month)
        return status

    @server.tool(structured_output=False, title="Briefing", annotations=READ_ONLY, description=(
        "Your situation report for the month now open: where the game stands (captures, lead, the Ruin, wars), "
        "your goal, every city with its numbers and ALERTs, every troop, generals, known enemies, city sites, "
        "military buildings, landmarks, what needs attention and what happened last month. Call it first in "
        "every session and whenever you need the full picture; it always shows full city rows."))
    async def get_briefing(ctx: Context) -> str:
        def work(kingdom: str) -> Reply:
            text, month = session.get_briefing(kingdom)
            return Reply(text, "briefing", text, month)

        return await run_tool(ctx, "get_briefing", {}, work)

    @server.tool(structured_output=False, title="Rules", annotations=READ_ONLY, description=(
        "The rules this server plays by (map and moves, economy, troops and combat formulas, sieges, spies, "
        "victory by captures, order syntax and refusal codes). Without `section` it lists the sections with "
        "their sizes and key words; read the one you need (section=8 or section=combat), or section=all for the "
        "whole text (about 65,000 characters)."))
    async def get_rules(ctx: Context, section: Annotated[str | None, Field(
            description="A section number (1-17), a word of its title (e.g. supply, sieges), or all for the whole "
                        "text; leave out for the table of contents.", max_length=60, examples=["8"])] = None) -> str:
        return await call(ctx, "get_rules", {"section": section}, lambda _: session.get_rules(section),
                          quiet_reply="[the rules, {n:,} characters]")

    @server.tool(structured_output=False, title="City sites", annotations=READ_ONLY, description=(
        "Places where colonists could found a city, among the tiles you have explored, best first: each with "
        "its water (which sets growth), its distance from your nearest city or colonists, the grain and "
        "production a new city there would make at once and with all its starting land worked, and the people "
        "its land would feed. Use it when planning colonists."))
    async def get_sites(ctx: Context, limit: Annotated[int, Field(
            description="How many sites to list, best first (1-200).", ge=1, le=200)] = 25) -> str:
        return await call(ctx, "get_sites", {"limit": limit}, session.get_sites, limit)

    @server.tool(structured_output=False, title="Map", annotations=READ_ONLY, description=(
        "A text map of what you have explored: one terrain letter per tile (lower case where a river runs), "
        "with markers for cities, troops, other units and camps, and a list of what the markers are; r is written "
        "on every row and a q ruler over every pair of rows. Give center_q, center_r and radius together to see "
        "only the area around a tile, which is much shorter; with none of them you get your whole explored map. "
        "layer=supply shows where troops are fed (your cities' land, your camps' reach)."))
    async def get_map(
        ctx: Context,
        center_q: Annotated[int | None, Field(description="q coordinate of the centre tile (give with center_r "
                                                          "and radius).", examples=[10])] = None,
        center_r: Annotated[int | None, Field(description="r coordinate of the centre tile (give with center_q "
                                                          "and radius).", examples=[8])] = None,
        radius: Annotated[int | None, Field(description="How many tiles around the centre to show (1-40).",
                                            ge=1, le=40, examples=[5])] = None,
        layer: Annotated[Literal["terrain", "supply"], Field(description=(
            "terrain (default): terrain letters and markers for cities, troops and camps; supply: for each tile, "
            "which of your cities' land or camps would feed a troop standing there this month (blank: it eats "
            "its rations)."))] = "terrain",
    ) -> str:
        given = [x is not None for x in (center_q, center_r, radius)]
        if any(given) and not all(given):
            raise ToolError("get_map takes center_q, center_r and radius together (e.g. center_q=10, center_r=8, "
                            "radius=5), or none of them for the whole explored map.")
        center = (center_q, center_r) if all(given) else None
        return await call(ctx, "get_map", {"center_q": center_q, "center_r": center_r, "radius": radius,
                                           "layer": layer}, session.get_map, center, radius, layer)

    @server.tool(structured_output=False, title="Inspect a tile", annotations=READ_ONLY, description=(
        "Everything you know about one tile: terrain and what it yields, move cost, defence bonus, any "
        "landmark name, whose land it is, the units you can see on it, and whether colonists could found a "
        "city there (with what that city would make)."))
    async def inspect_tile(
        ctx: Context,
        q: Annotated[int, Field(description="Axial q coordinate of the tile.", examples=[9])],
        r: Annotated[int, Field(description="Axial r coordinate of the tile (rows grow downward).", examples=[4])],
    ) -> str:
        return await call(ctx, "inspect_tile", {"q": q, "r": r}, session.inspect_tile, q, r)

    @server.tool(structured_output=False, title="City", annotations=READ_ONLY, description=(
        "A close look at one city. Your own: its full row, what each focus would give, worked tiles, the "
        "queue, improvements and free improvement sites, every item it could build with its price and months "
        "to finish, and the units inside. Another ruler's city: what you have seen of it and your spies' latest "
        "report. Use before set_production, set_focus or an assault."))
    async def get_city(ctx: Context, city_id: Annotated[int, Field(
            description="The city's id, the number after # in your briefing.", examples=[1])]) -> str:
        return await call(ctx, "get_city", {"city_id": city_id}, session.get_city, city_id)

    @server.tool(structured_output=False, title="History", annotations=READ_ONLY, description=(
        "A summary of your game so far, to pick up the thread in a new session: your goal, your latest notes "
        "and report, standing orders, what is queued now, then each month newest first in a line or two (orders "
        "given and refused, how the month ended, what was carried out, the main events you saw). About 12,000 "
        "characters at most: page back with before=N, or read one month's calls and answers in full with "
        "month=N."))
    async def get_history(
        ctx: Context,
        month: Annotated[int | None, Field(description=(
            "Show this one month in full: every call you made in it and the game's answers (the latest in full, "
            "earlier ones as their first line), and every event you were told."), ge=1)] = None,
        before: Annotated[int | None, Field(description=(
            "Page back: the month-by-month lines of the months before this one (e.g. the number the previous "
            "answer's last line gives)."), ge=1)] = None,
    ) -> str:
        return await call(ctx, "get_history", {"month": month, "before": before}, session.get_history, month,
                          before, quiet_reply="[your history, {n:,} characters]")

    @server.tool(structured_output=False, title="Issue orders", annotations=ToolAnnotations(
        read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False), description=(
        "Give orders for the month now open. Each order is checked at once against the board as it stands "
        "(after your orders already queued): accepted ones are queued to run at month end, refused ones are "
        "not queued and the reply says why, so fix and resend them. preview=true only shows what each order "
        "would do. end_turn=true also ends your month and waits for the next briefing, unless an order in the "
        "same call was refused: then the month stays open (force=true ends it anyway); if the reply says it is "
        "still waiting, call wait_for_turn."))
    async def issue_orders(
        ctx: Context,
        orders: Annotated[str | list[str | dict[str, Any]], Field(
            description=_ORDERS_HELP, examples=["move unit=5 to=9,4; set_focus city=1 focus=food"])] = "",
        end_turn: Annotated[bool, Field(description=(
            "true: after these orders, end your month; the reply then brings the next month's briefing (or says "
            "it is still waiting). Leave false while you still want to add orders."))] = False,
        note: Annotated[str | None, Field(description=(
            "One or two plain sentences for the war chronicle that your human and spectators read: this month's "
            "main move and its reason. Name cities, generals and army sizes rather than coordinates or unit "
            "numbers; leave out housekeeping."))] = None,
        goal: Annotated[str | None, Field(description=(
            "Your standing long-term plan, kept until you replace it (only its first 400 characters) and shown in "
            "every briefing. Write '<aim> by M<month>: <next steps>' with the cities and generals involved. "
            "Change it when the plan changes or a GOAL REVIEW in the briefing asks."))] = None,
        verbose: Annotated[bool, Field(description=(
            "true: list the result of every order. Default false: routine orders are only counted, while "
            "attacks, notices and refused orders are listed."))] = False,
        preview: Annotated[bool, Field(description=(
            "true: a dry run. Shows what each order would do now (attack outcomes as figures or ranges), after "
            "the orders you already queued; queues nothing and does not end the month."))] = False,
        fast_forward: Annotated[int, Field(description=(
            "Only with end_turn=true: after this month, end up to this many further months for you with no new "
            "orders while nothing needs you (queues and standing orders keep running). It stops early and "
            "brings your briefing when you are attacked or threatened, war starts, a city goes short or wastes "
            "production, a troop or colonists stand without orders, or the final month comes."), ge=0,
            le=rd.LAST_MONTH)] = 0,
        force: Annotated[bool, Field(description=(
            "Only with end_turn=true: end the month even though an order in this call was refused (without "
            "force such a call keeps the month open so you can fix the order)."))] = False,
    ) -> str:
        args = {"orders": orders, "end_turn": end_turn, "note": note, "goal": goal, "verbose": verbose,
                "preview": preview, "fast_forward": fast_forward, "force": force}

        def work(kingdom: str) -> Reply:
            reply, ended, month = session.issue(kingdom, orders, note=note, goal=goal, verbose=verbose,
                                                preview=preview, end_turn=end_turn, fast_forward=fast_forward,
                                                force=force)
            return Reply(reply, "reply", reply, month, more=ended)

        return await run_tool(ctx, "issue_orders", args, work, lambda kingdom: wait_turn(ctx, kingdom))

    @server.tool(structured_output=False, title="Wait for your turn", annotations=READ_ONLY, description=(
        "Wait for your next month after you have ended this one: returns its briefing (what changed, last "
        "month's results) as soon as every ruler has ended the month, or after about 45 seconds a short "
        "'Still waiting' — then simply call it again. If your month is still open it returns the briefing at "
        "once."))
    async def wait_for_turn(ctx: Context) -> str:
        return await run_tool(ctx, "wait_for_turn", {}, None, lambda kingdom: wait_turn(ctx, kingdom))

    @server.tool(structured_output=False, title="Submit a dispatch", annotations=ToolAnnotations(
        read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False), description=(
        "File a report in your kingdom's chronicle, for your human and spectators: what you did, why, and how "
        "things stand. It has no effect on play. Send progress reports whenever useful (final=false) and one "
        "final report when the game is over for you (final=true)."))
    async def submit_dispatch(
        ctx: Context,
        report: Annotated[str, Field(description="The report text: what you did, why, and the situation now.",
                                     examples=["Walls first: Xuchang builds a palisade while the levy holds the ford."])],
        final: Annotated[bool, Field(description=(
            "true for your closing report once the game has ended for you; false for a progress report."))],
    ) -> str:
        return await call(ctx, "submit_dispatch", {"report": report, "final": final}, session.submit_dispatch,
                          report, final)

    @server.tool(structured_output=False, title="Game record", annotations=READ_ONLY, description=(
        "After the game has ended: names the MCP resources holding your own record of it (each month's "
        "briefings, your orders and the replies, notes, goals, reports and the time you took) and the full replay "
        "of the whole map month by month; read them with resources/read. Before the end it only says they are "
        "not available yet."))
    async def get_game_record(ctx: Context) -> str:
        return await call(ctx, "get_game_record", {}, session.get_game_record)

    @server.tool(structured_output=False, description=(
        "For harnesses, not for rulers (a ruler never needs it, and it is left out of the tool list): a program "
        "that puts a model on this seat, such as `kingdoms seat`, stores what each model call cost and when the "
        "provider failed. Stores one row for the calling seat (kind 'status' stores nothing) and answers JSON: "
        "the seat's month status and its usage totals. Rows are kept in the game file, apart from the history."))
    async def report_usage(
        ctx: Context,
        kind: Annotated[str, Field(description=(
            "session (a harness started), call (one model call), retry (a failed provider attempt, retried), "
            "outage (the provider was down past the month's deadline), month_ended (the harness ended the month: "
            "note says why), budget (the spending limit was reached), provider_failed, or status (store nothing)."))],
        month: Annotated[int | None, Field(description="The month the row is about (default: the open month).")] = None,
        model: Annotated[str, Field(description="PROVIDER:MODEL of the call.", max_length=200)] = "",
        input_tokens: Annotated[int, Field(description="Input tokens the provider billed at the full rate.", ge=0)] = 0,
        cached_input_tokens: Annotated[int, Field(description="Input tokens read from the provider's cache.",
                                                  ge=0)] = 0,
        cache_write_tokens: Annotated[int, Field(description="Input tokens written to the provider's cache.",
                                                 ge=0)] = 0,
        output_tokens: Annotated[int, Field(description="Output tokens.", ge=0)] = 0,
        latency_s: Annotated[float, Field(description="Seconds the call took.", ge=0)] = 0.0,
        cost_usd: Annotated[float | None, Field(description="Cost in US dollars from the harness's price table; "
                                                            "null when the model has no price.", ge=0)] = None,
        retries: Annotated[int, Field(description="Failed attempts before this call succeeded.", ge=0)] = 0,
        note: Annotated[str, Field(description="A short remark (an error, a reason).", max_length=1000)] = "",
    ) -> str:
        kingdom = await anyio.to_thread.run_sync(seat_of, ctx)
        row = {"model": model, "input_tokens": input_tokens, "cached_input_tokens": cached_input_tokens,
               "cache_write_tokens": cache_write_tokens, "output_tokens": output_tokens, "latency_s": latency_s,
               "cost_usd": cost_usd, "retries": retries, "note": note}
        try:
            return await anyio.to_thread.run_sync(session.report_usage, kingdom, kind, month, row)
        except (SessionError, GameError, StorageError) as exc:
            raise ToolError(str(exc)) from exc

    listed = server.list_tools

    async def ruler_tools() -> list[Any]:
        return [t for t in await listed() if t.name not in HARNESS_TOOLS]

    server.list_tools = ruler_tools  # type: ignore[method-assign]
    return server


# =============================================================================================================
# serve
# =============================================================================================================


def serve(args: Any) -> int:
    """`kingdoms serve GAME`: one seat over stdio (KINGDOMS_SEAT or --seat TOKEN), or every seat over HTTP."""
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(name)s %(message)s")
    path = Path(args.game)
    if not path.exists():
        print(f"kingdoms serve: no game file at {path}", file=sys.stderr)
        return 2
    try:
        if getattr(args, "http", False):
            return _serve_http(path, args)
        return _serve_stdio(path, args)
    except StorageError as exc:
        print(f"kingdoms serve: {exc}", file=sys.stderr)
        return 2


def _serve_http(path: Path, args: Any) -> int:
    """Every seat over streamable HTTP behind the seat-token check; other machines only with --allow-remote."""
    host = getattr(args, "host", None) or "127.0.0.1"
    port = int(getattr(args, "port", 8765))
    allowed = list(getattr(args, "allowed_host", None) or [])
    remote = not http_auth.is_loopback(host)
    if remote and not getattr(args, "allow_remote", False):
        print(f"kingdoms serve: --host {host} would let other machines connect over plain HTTP; add --allow-remote "
              "if that is what you want (and --allowed-host NAME for each name clients will use)", file=sys.stderr)
        return 2
    server = build_server(path)
    security = http_auth.transport_security(host, allowed)
    app = with_watch(http_app(server, host=host, allowed_hosts=allowed),
                     build_watch_app(path, allowed_hosts=security.allowed_hosts))
    if remote:
        http_auth.remote_warning(host, port, security)
    print(f"kingdoms: serving {path} to every seat at http://{host}:{port}/mcp "
          "(each request sends Authorization: Bearer TOKEN)", file=sys.stderr)
    print(f"kingdoms: watch it live at http://{host}:{port}/watch (log in with a seat or the spectator token)",
          file=sys.stderr)
    http_auth.serve_http(app, host=host, port=port)
    return 0


def http_app(server: MCPServer, *, host: str = "127.0.0.1", allowed_hosts: list[str] | None = None) -> Any:
    """The ASGI app serving `server` (from build_server) over streamable HTTP: the SDK's app with Host/Origin
    checks on, behind the seat-token check of every request."""
    session: Session = server.session  # type: ignore[attr-defined]
    digests = session.seat_digests()  # seats never change once a game is made
    security = http_auth.transport_security(host, list(allowed_hosts or []))
    app = server.streamable_http_app(transport_security=security, host=host)
    return http_auth.SeatAuth(app, lambda token: match_token(token, digests))


def _serve_stdio(path: Path, args: Any) -> int:
    """One seat over stdio; a client that goes away ends the server quietly."""
    token = getattr(args, "seat", None) or os.environ.get("KINGDOMS_SEAT")
    server = build_server(path, token=token or "")
    session: Session = server.session  # type: ignore[attr-defined]
    kingdom = session.kingdom_for(token) if token else None
    if kingdom is None:
        print("kingdoms serve: warning: no valid seat token (KINGDOMS_SEAT or --seat); every tool will refuse",
              file=sys.stderr)
    else:
        log.info("serving seat %s of %s over stdio", kingdom, path)
    try:
        anyio.run(server.run_stdio_async)
    except (KeyboardInterrupt, BrokenPipeError, ConnectionResetError):
        _quiet_stdout()
    except BaseExceptionGroup as group:
        if group.split(_CLIENT_GONE)[1] is not None:  # something else went wrong too: show it
            raise
        _quiet_stdout()
    finally:
        with contextlib.suppress(Exception):
            session.close()
    return 0


_CLIENT_GONE = (KeyboardInterrupt, BrokenPipeError, ConnectionResetError)


def _quiet_stdout() -> None:
    """The client closed our stdout: point it at /dev/null so the interpreter's last flush stays silent."""
    with contextlib.suppress(Exception):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
