"""`kingdoms seat`: a model from a provider plays one seat through the MCP tools, month by month, with the cost of
every call stored in the game file.

The seat is an ordinary MCP client: over stdio it starts `kingdoms serve GAME` itself (the token in the
child's environment), over HTTP it connects to --url with `Authorization: Bearer TOKEN`. Each month is a fresh
conversation: the ruler prompt, the kingdom's goal and last notes, and the month's briefing; the model calls
tools until it ends the month or runs out of calls. Provider failures are not play: they are retried until
the month's deadline and then recorded as an outage. Usage goes to the server's `report_usage` tool, so a
remote seat's costs land in the same file as its tool calls. Nothing is kept locally: a restarted seat picks
up from the game (its status, get_history's digest and the briefing).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from kingdoms.modelseat.costs import PriceError, PriceTable, load_prices
from kingdoms.modelseat.providers import (
    Conversation,
    FatalError,
    Provider,
    ProviderSetupError,
    ProviderUsageError,
    Reply,
    RequestError,
    ToolCall,
    ToolSpec,
    TransientError,
    make_provider,
)

log = logging.getLogger("kingdoms.seat")

ROOT = Path(__file__).resolve().parent.parent.parent
SYSTEM_PROMPT_PATH = ROOT / "prompts" / "system.md"
HARNESS_TOOLS = {"report_usage"}
RULER_PROMPT = "ruler"

# Exit codes (a tournament runner tells them apart).
EXIT_GAME_OVER = 0  # the game is over (or the seat's kingdom has fallen)
EXIT_USAGE = 2  # bad arguments: no token, no game file, a malformed price file
EXIT_BUDGET = 3  # --budget-usd was reached; later months were ended with standing orders
EXIT_PROVIDER = 4  # the provider cannot be used: SDK or key missing, key refused, unknown model
EXIT_MONTHS = 5  # --months months were played and the game goes on
EXIT_SERVER = 6  # the game server could not be reached or refused the token

NUDGE = ("You have not ended the month. Give any orders you still want with issue_orders, and end the month with "
         "issue_orders end_turn=true and a short note.")
FINAL_MESSAGE = ("The game is over for your kingdom. Read the briefing below, then send your final report with "
                 "submit_dispatch(final=true): what you tried, what worked, and why it ended as it did.")


class SeatError(Exception):
    """The seat cannot go on; `code` is the exit status."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


@dataclass(slots=True)
class SeatConfig:
    """Everything `kingdoms seat` was told."""

    model: str
    token: str
    game: str | None = None
    url: str | None = None
    base_url: str | None = None
    months: int | None = None
    max_calls: int = 30
    budget_usd: float | None = None
    price_file: str | None = None
    max_output_tokens: int = 4096
    request_timeout_s: float = 300.0
    backoff_s: float = 2.0  # the first wait of the seat's own retry loop; it doubles up to backoff_max_s
    backoff_max_s: float = 60.0
    final_report: bool = True


@dataclass(slots=True)
class MonthTally:
    """What one month's conversation used, for the progress line."""

    calls: int = 0
    input_tokens: int = 0
    cached_input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0


# --- the MCP side -------------------------------------------------------------------------------------------


class _QuietUnlisted(logging.Filter):
    """The MCP client warns on every call of a tool it did not list; report_usage is unlisted on purpose."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "not listed by server" not in record.getMessage()


@asynccontextmanager
async def connect(cfg: SeatConfig) -> AsyncIterator[Any]:
    """An MCP client session for the seat: over HTTP to --url, or over stdio to a `kingdoms serve` it starts."""
    from mcp import Client, StdioServerParameters

    logging.getLogger("client").addFilter(_QuietUnlisted())
    if cfg.url:
        import httpx2
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        headers = {"Authorization": f"Bearer {cfg.token}"}
        async with create_mcp_http_client(headers=headers, timeout=httpx2.Timeout(30.0, read=120.0)) as http:
            async with Client(streamable_http_client(cfg.url, http_client=http), read_timeout_seconds=120.0) as c:
                yield c
        return
    assert cfg.game is not None
    env = {"KINGDOMS_SEAT": cfg.token, "PYTHONPATH": os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "kingdoms", "serve", cfg.game], env=env)
    async with Client(params, read_timeout_seconds=120.0) as c:
        yield c


class GameLink:
    """The seat's calls to the game server: tools as the model would make them, and report_usage."""

    def __init__(self, client: Any) -> None:
        self.client = client

    async def call(self, name: str, args: dict[str, Any] | None = None) -> tuple[bool, str]:
        """(is_error, text) of one tool call; a protocol-level error comes back as an error text too."""
        from mcp import MCPError

        try:
            result = await self.client.call_tool(name, args or {})
        except MCPError as exc:
            return True, f"Error: {exc}"
        text = "\n".join(getattr(c, "text", "") for c in result.content)
        return bool(result.is_error), text

    async def report(self, kind: str, **row: Any) -> dict[str, Any]:
        """Store one usage row (or only ask, kind="status"); returns {status, totals}."""
        args = {k: v for k, v in row.items() if v is not None}
        err, text = await self.call("report_usage", {"kind": kind, **args})
        if err:
            raise SeatError(f"the game server refused report_usage: {text}", EXIT_SERVER)
        return json.loads(text)

    async def status(self) -> dict[str, Any]:
        return (await self.report("status"))["status"]

    async def tools(self) -> list[ToolSpec]:
        listed = (await self.client.list_tools()).tools
        return [ToolSpec(t.name, t.description or "", dict(t.input_schema or {})) for t in listed
                if t.name not in HARNESS_TOOLS]

    async def system_prompt(self) -> tuple[str, str]:
        """The ruler prompt and where it came from: the server's MCP prompt when it offers one, else the
        repository's prompts/system.md, else the server's instructions."""
        try:
            prompts = (await self.client.list_prompts()).prompts
            if any(p.name == RULER_PROMPT for p in prompts):
                got = await self.client.get_prompt(RULER_PROMPT)
                text = "\n\n".join(getattr(m.content, "text", "") for m in got.messages).strip()
                if text:
                    return text, f"the server's {RULER_PROMPT!r} prompt"
        except Exception as exc:  # a server without prompts, or one that fails on them
            log.info("no MCP prompt %r (%s); using prompts/system.md", RULER_PROMPT, exc)
        try:
            return SYSTEM_PROMPT_PATH.read_text(encoding="utf-8"), str(SYSTEM_PROMPT_PATH)
        except OSError:
            return (getattr(self.client, "instructions", None) or "You rule a kingdom in Kingdoms."), \
                "the server's instructions"


MEMORY_LINES = ("GOAL (set M", "LAST NOTES: ")


def memory_from_digest(text: str) -> list[str]:
    """The goal and last-notes lines of get_history's digest (its head, before the month-by-month lines)."""
    out: list[str] = []
    for line in text.splitlines():
        if line.startswith("--- month by month"):
            break
        if line.startswith(MEMORY_LINES):
            out.append(line.strip())
    return out


def _still_waiting(text: str) -> bool:
    """Whether a reply that ended the month closes with the server's "Still waiting" instead of a briefing."""
    return text.rsplit("\n\n", 1)[-1].lstrip().startswith("Still waiting")


def _truthy(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() == "true") or value == 1


# --- the seat -----------------------------------------------------------------------------------------------


@dataclass
class Seat:
    """One model on one seat for one session."""

    cfg: SeatConfig
    provider: Provider
    prices: PriceTable
    link: GameLink
    system: str = ""
    tools: dict[str, ToolSpec] = field(default_factory=dict)
    spent: float = 0.0
    budget_hit: bool = False
    request_failures: int = 0  # consecutive months lost to a refused request
    last_refusal: str = ""
    waiting: bool = False  # the last end of a month answered "Still waiting": call wait_for_turn
    tally: MonthTally = field(default_factory=MonthTally)

    @property
    def spec(self) -> str:
        return self.provider.spec

    async def setup(self) -> dict[str, Any]:
        """Read the tools, the ruler prompt and the seat's notes; record the session; returns the status."""
        specs = await self.link.tools()
        self.provider.set_tools(specs)
        self.tools = {t.name: t for t in specs}
        self.system, source = await self.link.system_prompt()
        price = self.prices.price_of(self.spec)
        priced = (f"priced from {self.prices.sources[-1]} ({self.prices.date})" if price else "no price: cost unknown")
        got = await self.link.report("session", model=self.spec, note=(
            f"kingdoms seat: {len(specs)} tools, prompt from {source}, up to {self.cfg.max_calls} model calls a "
            f"month, budget {self.cfg.budget_usd if self.cfg.budget_usd is not None else 'none'} USD, {priced}"))
        self.spent = float((got.get("totals") or {}).get("cost_usd") or 0.0)
        if self.cfg.budget_usd is not None and self.spent >= self.cfg.budget_usd:
            self.budget_hit = True
            log.info("the budget of $%.4f is already spent ($%.4f): months end with standing orders",
                     self.cfg.budget_usd, self.spent)
        log.info("seat %s: %s, prompt from %s, %s", got.get("seat"), self.spec, source, priced)
        return got["status"]

    async def run(self) -> int:
        """Play month after month until the game is over for the seat (or --months); returns the exit code."""
        status = await self.setup()
        played = 0
        while True:
            if status["finished"] or status["eliminated"]:
                if played and self.cfg.final_report and not self.budget_hit:
                    await self.final_report(status)
                log.info("the game is over for this seat (month %s)", status["month"])
                return EXIT_BUDGET if self.budget_hit else EXIT_GAME_OVER
            if self.cfg.months is not None and played >= self.cfg.months:
                return EXIT_BUDGET if self.budget_hit else EXIT_MONTHS
            if not status["open_for_you"]:
                await self.wait_next()
                status = await self.link.status()
                continue
            if self.budget_hit:
                await self.end_month(status["month"])
            else:
                await self.play_month(status)
            played += 1
            if self.waiting:  # the month's end did not bring the next briefing (or a fast_forward runs on)
                await self.wait_next()
            status = await self.link.status()

    async def wait_next(self) -> None:
        """Call wait_for_turn until it stops answering 'Still waiting' (the server waits ~45 s per call)."""
        while True:
            err, text = await self.link.call("wait_for_turn")
            if err or not _still_waiting(text):
                self.waiting = False
                return

    async def end_month(self, month: int, reason: str | None = None) -> None:
        """End the month for the seat with what it queued (standing orders keep running); record why."""
        status = await self.link.status()
        if status["month"] == month and status["open_for_you"]:
            err, text = await self.link.call("issue_orders", {"orders": "", "end_turn": True})
            self.waiting = not err and _still_waiting(text)
        if reason:
            await self.link.report("month_ended", month=month, model=self.spec, note=reason)

    # --- one month ---------------------------------------------------------------------------------------

    def month_message(self, status: dict[str, Any], memory: list[str], briefing: str) -> str:
        month, last = status["month"], status.get("last_month")
        lines = [f"Month {month}" + (f" of {last}" if last else "") + ". Each month is a new conversation: what you "
                 "carry over is your goal, your last notes and this briefing (get_history sums up the game so far "
                 "if you need more; get_rules is long, so look up only what you need)."]
        if memory:
            lines.append("From your history (get_history):\n" + "\n".join(memory))
        lines.append(f"Give your orders with issue_orders, then end the month with issue_orders end_turn=true and a "
                     f"note. You have at most {self.cfg.max_calls} model calls this month; after that the month is "
                     "ended with the orders you have queued.")
        lines.append(f"=== Your briefing for month {month} (get_briefing) ===\n{briefing}")
        return "\n\n".join(lines)

    async def play_month(self, status: dict[str, Any]) -> None:
        month = int(status["month"])
        deadline_at = time.monotonic() + float(status["deadline_left_s"])
        self.tally = MonthTally()
        err, briefing = await self.link.call("get_briefing")
        if err:
            log.warning("M%s: get_briefing failed: %s", month, briefing[:200])
            return
        err, digest = await self.link.call("get_history")  # the goal and notes, from the game itself
        memory = [] if err else memory_from_digest(digest)
        convo = self.provider.start(self.system, self.month_message(status, memory, briefing))

        async def ended(call: ToolCall, err: bool) -> bool:
            if call.name != "issue_orders" or err or not _truthy(call.arguments.get("end_turn")) \
                    or _truthy(call.arguments.get("preview")):
                return False
            now = await self.link.status()
            return now["month"] != month or not now["open_for_you"]

        outcome = await self.converse(convo, month, deadline_at, self.cfg.max_calls, ended)
        if outcome == "provider_error":
            await self.end_month(month, f"provider_error: {self.last_refusal}"[:900])
        elif outcome not in ("ended", "outage"):
            await self.end_month(month, outcome)
        t = self.tally
        log.info("M%s %s: %d calls, %s in + %s cached / %s out tokens, $%.4f (seat total $%.4f)", month, outcome,
                 t.calls, f"{t.input_tokens:,}", f"{t.cached_input_tokens:,}", f"{t.output_tokens:,}", t.cost_usd,
                 self.spent)

    async def final_report(self, status: dict[str, Any]) -> None:
        """One short conversation at the end: the model files its final report."""
        err, briefing = await self.link.call("get_briefing")
        if err:
            return
        convo = self.provider.start(self.system, f"{FINAL_MESSAGE}\n\n{briefing}")

        async def filed(call: ToolCall, err: bool) -> bool:
            return call.name == "submit_dispatch" and not err and _truthy(call.arguments.get("final"))

        try:
            await self.converse(convo, int(status["month"]), time.monotonic() + 120.0, 3, filed, final=True)
        except SeatError as exc:  # the game is over anyway: the report is all that is lost
            log.warning("no final report: %s", exc)

    async def converse(self, convo: Conversation, month: int, deadline_at: float, max_calls: int,
                       done: Callable[[ToolCall, bool], Awaitable[bool]], *, final: bool = False) -> str:
        """Model calls and tool calls until `done` says so. Returns why it stopped: ended, call_limit, budget,
        unparsed or no_tool_call (the second unusable reply in a row), outage or provider_error."""
        unusable = 0
        calls = 0
        while True:
            if calls >= max_calls:
                return "call_limit"
            reply = await self.ask(convo, month, deadline_at, final=final)
            if isinstance(reply, str):
                return reply
            calls += 1
            self.provider.add_reply(convo, reply)
            if self.budget_hit and not reply.calls:
                return "budget"
            if not reply.calls:
                unusable += 1
                if unusable >= 2:
                    return "no_tool_call"
                self.provider.add_user(convo, NUDGE)
                continue
            results: list[tuple[ToolCall, str, bool]] = []
            bad = False
            finished = False
            for call in reply.calls:
                if finished:
                    results.append((call, "Not run: an earlier call in this reply already ended the month.", True))
                    continue
                problem = self.problem_with(call)
                if problem:
                    bad = True
                    results.append((call, problem, True))
                    continue
                err, text = await self.link.call(call.name, call.arguments)
                results.append((call, text, err))
                finished = await done(call, err)
                if finished:
                    self.waiting = _still_waiting(text)
            if finished:
                return "ended"
            if self.budget_hit:  # the calls it paid for are made; no more model calls
                return "budget"
            unusable = unusable + 1 if bad else 0
            if unusable >= 2:
                return "unparsed"
            self.provider.add_results(convo, results)

    def problem_with(self, call: ToolCall) -> str | None:
        """Why a tool call cannot be made as given (unknown tool, unreadable arguments), else None."""
        if call.name not in self.tools:
            return (f"Unknown tool {call.name!r}: this game's tools are {', '.join(sorted(self.tools))}. "
                    "Call one of them.")
        if call.error:
            return f"Tool {call.name}: {call.error}. Send the arguments again as one JSON object."
        return None

    # --- one model call, with retries ------------------------------------------------------------------------

    async def ask(self, convo: Conversation, month: int, deadline_at: float, *, final: bool = False) -> Reply | str:
        """One model call, retried on transient failures until the month's deadline. Returns the reply (its usage
        reported), or "outage" / "provider_error" when the month is lost; raises SeatError when the provider
        refuses for good. `final`: the closing report, after the last month (nothing to lose but the report)."""
        failures = 0
        wait = self.cfg.backoff_s
        margin = 1.0
        while True:
            left = deadline_at - time.monotonic()
            started = time.monotonic()
            try:
                reply = await self.provider.send(convo, timeout=max(5.0, min(self.cfg.request_timeout_s, left)))
            except TransientError as exc:
                failures += 1
                got = await self.link.report("retry", month=month, model=self.spec,
                                             latency_s=round(time.monotonic() - started, 3), note=str(exc)[:900])
                st = got["status"]
                gone = False
                if not final:  # the server is the authority on the month's deadline
                    if st["month"] == month and st["open_for_you"]:
                        deadline_at = min(deadline_at, time.monotonic() + float(st["deadline_left_s"]))
                    gone = st["month"] != month or not st["open_for_you"]
                left = deadline_at - time.monotonic()
                if gone or left <= margin:
                    if not final:
                        await self.outage(month, exc, failures, gone)
                    return "outage"
                delay = exc.retry_after if exc.retry_after is not None else wait * (0.75 + 0.5 * random.random())
                wait = min(wait * 2, self.cfg.backoff_max_s)
                log.info("M%s: %s; retry %d in %.2f s", month, exc, failures, min(delay, left - margin))
                await anyio.sleep(max(0.0, min(delay, left - margin)))
                continue
            except RequestError as exc:
                log.warning("M%s: the provider refused the request: %s", month, exc)
                self.last_refusal = str(exc)
                if final:
                    return "provider_error"
                self.request_failures += 1
                if self.request_failures >= 3:
                    await self.link.report("provider_failed", month=month, model=self.spec,
                                           note=f"three months in a row refused: {exc}"[:900])
                    raise SeatError(f"the provider refused requests three months in a row: {exc}",
                                    EXIT_PROVIDER) from exc
                return "provider_error"
            except FatalError as exc:
                await self.link.report("provider_failed", month=month, model=self.spec, note=str(exc)[:900])
                raise SeatError(f"the provider refuses {self.spec}: {exc}", EXIT_PROVIDER) from exc
            self.request_failures = 0
            latency = time.monotonic() - started
            await self.account(month, reply, latency, failures)
            return reply

    async def account(self, month: int, reply: Reply, latency: float, retries: int) -> None:
        """Price the call, store its usage row, and notice when the budget is reached."""
        u = reply.usage
        cost = self.prices.cost(self.spec, u)
        got = await self.link.report(
            "call", month=month, model=self.spec, input_tokens=u.input_tokens,
            cached_input_tokens=u.cached_input_tokens, cache_write_tokens=u.cache_write_tokens,
            output_tokens=u.output_tokens, latency_s=round(latency, 3), cost_usd=cost, retries=retries,
            note=f"stop={reply.stop_reason}; {len(reply.calls)} tool calls")
        self.spent = float((got.get("totals") or {}).get("cost_usd") or 0.0)
        t = self.tally
        t.calls += 1
        t.input_tokens += u.input_tokens + u.cache_write_tokens
        t.cached_input_tokens += u.cached_input_tokens
        t.output_tokens += u.output_tokens
        t.cost_usd += cost or 0.0
        budget = self.cfg.budget_usd
        if budget is not None and not self.budget_hit and self.spent >= budget:
            self.budget_hit = True
            await self.link.report("budget", month=month, model=self.spec, cost_usd=round(self.spent, 6),
                                   note=f"budget of {budget} USD reached: later months end with standing orders")
            log.warning("M%s: budget of $%.4f reached ($%.4f spent)", month, budget, self.spent)

    async def outage(self, month: int, exc: TransientError, failures: int, gone: bool) -> None:
        """Record the month as lost to the provider, and end it with what was queued if it is still open."""
        await self.link.report("outage", month=month, model=self.spec, retries=failures,
                               note=f"provider unavailable past the month's deadline after {failures} failed "
                                    f"attempts; last: {exc}"[:900])
        log.warning("M%s: outage: %s (%d failed attempts)", month, exc, failures)
        if not gone:
            await self.end_month(month)


# --- the command ----------------------------------------------------------------------------------------------


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of `kingdoms seat`."""
    p.add_argument("game", nargs="?", help="the game file (over stdio; leave out with --url)")
    p.add_argument("--model", required=True, metavar="PROVIDER:MODEL",
                   help="anthropic:MODEL, openai:MODEL or openai-compatible:MODEL (with --base-url)")
    p.add_argument("--token", help="the seat token (default: env KINGDOMS_SEAT)")
    p.add_argument("--url", help="play over HTTP at this MCP endpoint, e.g. http://127.0.0.1:8765/mcp")
    p.add_argument("--base-url", help="the provider's API root (needed for openai-compatible)")
    p.add_argument("--months", type=int, help="stop after playing this many months")
    p.add_argument("--max-calls-per-month", type=int, default=30, metavar="N",
                   help="model calls a month before the month is ended with what was queued (default 30)")
    p.add_argument("--budget-usd", type=float, metavar="X",
                   help="stop calling the model once the seat's recorded cost reaches X US dollars")
    p.add_argument("--price-file", metavar="FILE", help="a TOML price table replacing or adding to prices.toml")
    p.add_argument("--max-output-tokens", type=int, default=4096, help="output tokens per model call (default 4096)")
    p.add_argument("--no-final-report", action="store_true", help="skip the final dispatch when the game ends")


def config_from(args: argparse.Namespace) -> SeatConfig:
    """Check the command line and build the configuration (SeatError with EXIT_USAGE when it is wrong)."""
    token = (args.token or os.environ.get("KINGDOMS_SEAT") or "").strip()
    if not token:
        raise SeatError("no seat token: give --token TOKEN or set KINGDOMS_SEAT (printed by `kingdoms new`)",
                        EXIT_USAGE)
    if not args.url:
        if not args.game:
            raise SeatError("give the game file (stdio) or --url http://HOST:PORT/mcp (HTTP)", EXIT_USAGE)
        if not Path(args.game).exists():
            raise SeatError(f"no game file at {args.game}", EXIT_USAGE)
    if args.max_calls_per_month < 1:
        raise SeatError("--max-calls-per-month must be at least 1", EXIT_USAGE)
    if args.months is not None and args.months < 1:
        raise SeatError("--months must be at least 1", EXIT_USAGE)
    return SeatConfig(model=args.model, token=token, game=args.game, url=args.url, base_url=args.base_url,
                      months=args.months, max_calls=args.max_calls_per_month, budget_usd=args.budget_usd,
                      price_file=args.price_file, max_output_tokens=args.max_output_tokens,
                      final_report=not args.no_final_report)


async def play(cfg: SeatConfig) -> int:
    """Set up the provider and prices, connect to the game, and play; returns the exit code."""
    try:
        prices = load_prices(cfg.price_file)
    except PriceError as exc:
        raise SeatError(str(exc), EXIT_USAGE) from exc
    try:
        provider = make_provider(cfg.model, base_url=cfg.base_url, max_output_tokens=cfg.max_output_tokens)
    except ProviderUsageError as exc:
        raise SeatError(str(exc), EXIT_USAGE) from exc
    except ProviderSetupError as exc:
        raise SeatError(str(exc), EXIT_PROVIDER) from exc
    if cfg.budget_usd is not None and prices.price_of(provider.spec) is None:
        raise SeatError(f"--budget-usd needs a price for {provider.spec}: add it to a --price-file", EXIT_USAGE)
    try:
        try:
            async with connect(cfg) as client:
                link = GameLink(client)
                refused, text = await link.call("report_usage", {"kind": "status"})
                if refused:
                    raise SeatError(f"the game server refused this seat: {text}", EXIT_SERVER)
                return await Seat(cfg, provider, prices, link).run()
        except SeatError:
            raise
        except Exception as exc:
            # anyio task groups wrap a failure in an ExceptionGroup: report the SeatError inside, if any
            inner = _seat_error_in(exc)
            if inner is not None:
                raise inner from None
            where = cfg.url or f"kingdoms serve {cfg.game}"
            leaf = _leaf(exc)
            raise SeatError(f"lost the game server ({where}): {type(leaf).__name__}: {leaf}", EXIT_SERVER) from exc
    finally:
        await provider.close()


def _leaf(exc: BaseException) -> BaseException:
    """The first exception inside (nested) exception groups."""
    while getattr(exc, "exceptions", None):
        exc = exc.exceptions[0]  # type: ignore[attr-defined]
    return exc


def _seat_error_in(exc: BaseException) -> SeatError | None:
    if isinstance(exc, SeatError):
        return exc
    for sub in getattr(exc, "exceptions", ()) or ():
        found = _seat_error_in(sub)
        if found is not None:
            return found
    return None


def cmd_seat(args: argparse.Namespace) -> int:
    """`kingdoms seat`: parse, play, and exit with a code that says why it stopped."""
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(name)s %(message)s")
    for noisy in ("httpx", "httpx2", "mcp", "client"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    try:
        cfg = config_from(args)
        code = anyio.run(play, cfg)
    except SeatError as exc:
        print(f"kingdoms seat: {exc}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        return 130
    what = {EXIT_GAME_OVER: "game over", EXIT_BUDGET: "budget reached", EXIT_MONTHS: "months played"}.get(code, "")
    print(f"kingdoms seat: stopped ({what}, exit {code})", file=sys.stderr)
    return code
