"""The MCP server: the eleven tools a seated ruler plays with, a thin layer over kingdoms.game.Game.

One seat over stdio (its token from `--seat` or the KINGDOMS_SEAT variable), or every seat over streamable
HTTP, each request naming its seat with `Authorization: Bearer TOKEN`. The token is the only credential:
without a valid one a tool answers with one refusal and no game data. Every text a seat reads is rendered
from its own KingdomView (kingdoms.views), so the fog holds here as everywhere.

A month resolves once every living seat has ended it: AI seats end theirs at once, a late seat is ended by
the game's deadline (OPEN-78). Several stdio processes may share one game file, so a seat waiting for its
turn polls the file (never blocking the event loop: game work runs in worker threads under one lock) and
answers "still waiting" after about 45 seconds rather than outlast a client's request timeout.
Everything sent to and from a seat is kept in the game file's history, in order (OPEN-85).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Annotated, Any

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from kingdoms import ruledata as rd
from kingdoms.game import Game, GameError, Verdict, captures_of
from kingdoms.storage import StorageError
from kingdoms.views import build_view, known_city, render, tile_view

log = logging.getLogger("kingdoms.server")

ROOT = Path(__file__).resolve().parent.parent
RULES_PATH = ROOT / "rules.md"
GOAL_REVIEW_PATH = ROOT / "prompts" / "goal_review.md"

WAIT_S = 45.0  # longest a tool waits for the next month (clients time out at about 60 s)
POLL_S = 0.3
GOAL_CHARS = 400  # TOOLS-430
GOAL_REVIEW_EVERY = 20  # OPEN-84
HISTORY_BUDGET = 60_000  # characters of the game's own texts get_history repeats in full
NOTE_CHARS = 2_000
DISPATCH_CHARS = 20_000

REFUSAL = ("No seat: this server acts only for a seated ruler, and the seat token given is missing or not one of "
           "this game's. Over stdio start it with `kingdoms serve GAME --seat TOKEN` (or set KINGDOMS_SEAT); over "
           "HTTP send the header `Authorization: Bearer TOKEN`. The token was printed by `kingdoms new`.")

INTERNAL_ERROR = ("The server failed while answering this call (an internal error, now in its log). Check "
                  "get_briefing (or wait_for_turn) before repeating it, or carry on with another tool.")

INSTRUCTIONS = """\
You rule one kingdom of Kingdoms, a month-by-month hex strategy game won on captured cities.
Each month: get_briefing (read ALERTs and last month first), look closer with get_city / get_map /
inspect_tile / get_sites, send orders with issue_orders (try risky ones with preview=true), then
issue_orders end_turn=true with a short note. If the answer says the month is still open, call
wait_for_turn until the next briefing arrives. get_rules has the full rules; get_history replays
everything said so far if you lose track. Orders are text like `move unit=5 to=9,4; attack unit=7 to=10,4`."""


# =============================================================================================================
# The desk: everything the tools do, without MCP
# =============================================================================================================


class Desk:
    """One game file served to its seats: thread-safe (one lock), polling the file for other processes' moves."""

    def __init__(self, path: str | Path, *, token: str | None = None, wait_s: float = WAIT_S,
                 poll_s: float = POLL_S) -> None:
        self.path = Path(path)
        self.game = Game.open(self.path)
        self.lock = threading.RLock()
        self.token = token.strip() if token else None
        self.wait_s = wait_s
        self.poll_s = poll_s
        self.fast_forward: dict[str, int] = {}  # months a seat still wants skipped (TURN-200)
        self.started = time.time()  # a month's deadline never counts time when no server was running
        self._ai_lock = self.path.with_name(self.path.name + ".ai.lock")

    def close(self) -> None:
        with self.lock:
            self.game.close()

    # --- who is calling -----------------------------------------------------------------------------------

    def token_of(self, ctx: Context | None) -> str | None:
        """The seat token: the launch's (stdio, tests) or the request's `Authorization: Bearer` header (HTTP)."""
        if self.token is not None:
            return self.token
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

    def seat(self, token: str | None) -> str:
        """The kingdom a token seats; a ToolError (with no game data) otherwise."""
        if not token:
            raise ToolError(REFUSAL)
        with self.lock:
            kingdom = self.game.kingdom_for_token(token)
        if kingdom is None:
            raise ToolError(REFUSAL)
        return kingdom

    # --- keeping the game moving ---------------------------------------------------------------------------

    @contextlib.contextmanager
    def _ai_file_lock(self) -> Iterator[None]:
        """A lock shared by every process serving this file, so an AI seat never plays its month twice."""
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not on Linux
            yield
            return
        with open(self._ai_lock, "a+") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def _opened_at(self) -> float:
        """When the open month started counting toward its deadline: when it opened, or when this server started
        if that was later (a game left without a server does not lose its month the moment one starts)."""
        opened = float(self.game.store.meta_value("month_opened_at", self.started))
        return max(opened, self.started)

    def deadline_left(self) -> float:
        """Seconds until the open month is ended for the seats still playing it (OPEN-78)."""
        with self.lock:
            limit = float(self.game.meta.get("deadline_s", 600.0))
            return max(0.0, self._opened_at() + limit - time.time())

    def tick(self) -> None:
        """Apply the deadline, resolve a month every seat has ended, let AI seats play the open month."""
        with self.lock:
            g = self.game
            if g.finished:
                return
            try:
                g.apply_deadline(not_before=self.started)
                g.try_resolve()
                if not g.finished:
                    with self._ai_file_lock():
                        g.play_ai_seats()
            except GameError as exc:  # another process got there first
                log.info("tick: %s", exc)

    # --- history -------------------------------------------------------------------------------------------

    def record(self, kingdom: str, kind: str, text: str, month: int | None = None) -> None:
        with self.lock:
            m = self.game.month if month is None else month
            self.game.store.add_history(m, kingdom, kind, text, time.time())

    def seen_months(self, kingdom: str) -> set[int]:
        """Months whose briefing the seat has been sent."""
        with self.lock:
            return self.game.store.history_months(kingdom, "briefing")

    def goal_of(self, kingdom: str) -> tuple[str | None, int | None]:
        with self.lock:
            goals = self.game.store.notes(kingdom, "goal")
        if not goals:
            return None, None
        return goals[-1]["text"], int(goals[-1]["month"])

    # --- the briefing ----------------------------------------------------------------------------------------

    def _visible_events(self, kingdom: str, month: int) -> list[dict[str, Any]]:
        return [e for e in self.game.store.events(month) if e["audience"] is None or kingdom in e["audience"]]

    def briefing_text(self, kingdom: str, *, explicit: bool, headline: str | None = None) -> str:
        """The briefing of the open month: full rows when asked for (get_briefing), on month 1 and every 10th
        month, or when the seat missed last month's; otherwise short rows (TOOLS-060/070, OPEN-5)."""
        with self.lock:
            g = self.game
            state = g.state()
            m = state.month
            start = int(g.meta.get("start_month", 1))
            view = build_view(state, kingdom)
            seen = self.seen_months(kingdom)
            full = explicit or m == start or m % 10 == 0 or (m - 1) not in seen
            prev_view = None
            if not full:
                try:
                    prev_view = build_view(g.state(m - 1), kingdom)
                except StorageError:
                    full = True
            earlier = [s for s in seen if s < m]
            first = max(earlier) if earlier else start  # everything since the last briefing the seat saw
            first = max(first, start, m - 6)
            last = m + 1 if state.finished else m  # a finished game's state keeps the final month's number
            results = [render.MonthResults(mm, g.store.outcomes(mm, kingdom), self._visible_events(kingdom, mm))
                       for mm in range(first, last)]
            recent = results[-1].events if results else []
            figures = render.own_figures(state, view, recent)
            goal, goal_month = self.goal_of(kingdom)
            review = None
            over = state.finished or state.kingdoms[kingdom].eliminated
            if not over and (goal is None or (goal_month is not None and m - goal_month >= GOAL_REVIEW_EVERY)):
                review = _goal_review_text()
            colonists = [u for u in view.units if u.type == "colonists"]
            believed = render.believed_state(state, view)
            colonist_sites = [(u, render.site_for(believed, view, u.q, u.r)) for u in colonists]
            near = [(c.q, c.r) for c in view.cities] + [(u.q, u.r) for u in colonists]
            sites = render.known_sites(state, view, near=near, radius=render.SITE_RADIUS,
                                       limit=render.SITES_IN_BRIEFING)
            data = render.BriefingInput(
                figures=figures, full_rows=full, prev_view=prev_view, goal=goal, goal_month=goal_month,
                goal_review=review, results=results, sites=sites, colonist_sites=colonist_sites,
                headline=headline or self._headline(kingdom), landmarks=render.landmark_lines(state, view),
                over=over, last_month=state.last_month,
            )
            return render.briefing(view, data)

    def _headline(self, kingdom: str) -> str | None:
        state = self.game.state()
        kd = state.kingdoms[kingdom]
        if state.finished:
            place = f", place {kd.place}" if kd.place else ""
            return (f"THE GAME IS OVER ({state.end_reason or 'ended'}): your result is {(kd.result or '-').upper()}"
                    f"{place}. Send your final report with submit_dispatch(final=true); get_game_record gives your "
                    "record and the replay.")
        if kd.eliminated:
            return ("YOUR KINGDOM HAS FALLEN: you can give no more orders. Send your final report with "
                    "submit_dispatch(final=true); get_game_record works once the game ends.")
        return None

    # --- tools (sync parts, run in worker threads) ------------------------------------------------------------

    def get_briefing(self, kingdom: str) -> tuple[str, int]:
        self.tick()
        with self.lock:
            return self.briefing_text(kingdom, explicit=True), self.game.state().month

    def get_city(self, kingdom: str, city_id: int) -> str:
        with self.lock:
            state = self.game.state()
            view = build_view(state, kingdom)
            own = next((c for c in view.cities if c.id == city_id), None)
            if own is not None:
                figs = render.own_figures(state, view, self._visible_events(kingdom, state.month - 1))
                return render.own_city_text(state, view, own, figs.cities[own.id])
            seen = view.city(city_id)
            if seen is None:
                seen = known_city(state, kingdom, city_id)
            if seen is None or not isinstance(seen, render.SeenCity):
                ids = ", ".join(f"#{c.id} {c.name}" for c in view.cities)
                raise ToolError(f"No city #{city_id} on your map. Your cities: {ids or 'none'}; other known cities "
                                "are under KNOWN ENEMIES in your briefing.")
            return render.rival_city_text(view, seen)

    def get_map(self, kingdom: str, center: tuple[int, int] | None, radius: int | None) -> str:
        with self.lock:
            view = build_view(self.game.state(), kingdom)
        return render.map_text(view, center, radius)

    def inspect_tile(self, kingdom: str, q: int, r: int) -> str:
        with self.lock:
            state = self.game.state()
            view = build_view(state, kingdom)
            tv = tile_view(state, kingdom, q, r, view)
            return render.tile_text(state, view, tv)

    def get_sites(self, kingdom: str, limit: int) -> str:
        with self.lock:
            state = self.game.state()
            view = build_view(state, kingdom)
            return render.sites_text(state, view, limit)

    def get_history(self, kingdom: str) -> str:
        with self.lock:
            rows = self.game.store.history(kingdom)
            names = {s["kingdom"]: s["name"] for s in self.game.seats()}
        return history_text(names.get(kingdom, kingdom), rows)

    def submit_dispatch(self, kingdom: str, report: str, final: bool) -> str:
        text = report.strip()
        if not text:
            raise ToolError("The report is empty: write what you did, why, and where things stand.")
        text = text[:DISPATCH_CHARS]
        with self.lock:
            m = self.game.month
            self.game.store.add_note(m, kingdom, "final" if final else "dispatch", text, time.time())
        kind = "final report" if final else "progress report"
        return (f"Your {kind} is stored in the chronicle under month {m} ({len(text):,} characters). "
                "It changes nothing in play.")

    def get_game_record(self, kingdom: str) -> str:
        self.tick()
        with self.lock:
            state = self.game.state()
            if not state.finished:
                return (f"Not available yet: the game is still running (month {state.month} of {state.last_month}). "
                        "Your record and the full replay are written when it ends; ask again then.")
            replay = write_replay(self.game)
            record = write_record(self.game, kingdom, replay)
        return (f"The game is over. Your record (what the game told you each month, your orders and the replies, "
                f"notes, goals, reports, time per month): {record}\nFull replay (every month's whole map): {replay}\n"
                "Keep them: the game keeps nothing for you between games.")

    def issue(self, kingdom: str, orders: Any, *, note: str | None, goal: str | None, verbose: bool,
              preview: bool, end_turn: bool, fast_forward: int) -> tuple[str, bool, int]:
        """Check and queue orders, store note and goal, end the month when asked. Returns (reply, ended, month)."""
        self.tick()
        with self.lock:
            g = self.game
            state = g.state()
            m = state.month
            if state.finished:
                raise ToolError("The game is over: no more orders. get_briefing shows the result; send your final "
                                "report with submit_dispatch(final=true) and fetch get_game_record.")
            if state.kingdoms[kingdom].eliminated:
                raise ToolError("Your kingdom has fallen: you can give no more orders. Send your final report with "
                                "submit_dispatch(final=true).")
            if kingdom in g.store.ended(m):
                how = g.store.ended(m)[kingdom]
                why = {"deadline": "the month's time limit ran out", "fast_forward": "fast_forward ended it"}.get(
                    how, "you ended it")
                raise ToolError(f"Month {m} is already ended for you ({why}); your orders would be for a month that "
                                "is closed. Call wait_for_turn for the next briefing, then give orders.")
            lines: list[str] = []
            verdicts: list[Verdict] = []
            if _has_orders(orders):
                try:
                    verdicts = g.issue(kingdom, orders, preview=preview)
                except GameError as exc:
                    raise ToolError(str(exc)) from exc
            lines.append(orders_reply(m, verdicts, verbose=verbose, preview=preview))
            now = time.time()
            if note and note.strip():
                if preview:
                    lines.append("Note not stored (preview).")
                else:
                    g.store.add_note(m, kingdom, "note", note.strip()[:NOTE_CHARS], now)
                    lines.append("Note stored for the chronicle.")
            if goal and goal.strip():
                kept = goal.strip()[:GOAL_CHARS]
                if preview:
                    lines.append("Goal not changed (preview).")
                else:
                    g.store.add_note(m, kingdom, "goal", kept, now)
                    cut = f" (cut to its first {GOAL_CHARS} characters)" if len(goal.strip()) > GOAL_CHARS else ""
                    lines.append(f"Goal set{cut}: {kept}")
            ended = False
            if end_turn and preview:
                lines.append("end_turn ignored: a preview never ends the month. Send the orders without preview, "
                             "then end the month.")
            elif end_turn:
                g.end_month(kingdom)
                ended = True
                self.fast_forward[kingdom] = max(0, int(fast_forward or 0))
                skip = (f" fast_forward: up to {self.fast_forward[kingdom]} more months will be ended for you while "
                        "nothing needs you.") if self.fast_forward[kingdom] else ""
                lines.append(f"Month {m} ended for you.{skip}")
            elif fast_forward:
                lines.append("fast_forward ignored: it works only together with end_turn=true.")
            if not ended and not preview:
                waiting = g.waiting_for()
                others = [k for k in waiting if k != kingdom]
                lines.append(f"Month {m} stays open for you: add orders, or end it with issue_orders end_turn=true"
                             + (f" (also waiting for {len(others)} other seat{'s' if len(others) != 1 else ''})."
                                if others else "."))
        if ended:
            self.tick()
        return "\n".join(lines), ended, m

    def turn_status(self, kingdom: str) -> tuple[str, str, int]:
        """("turn", briefing, month) when the seat may play (or the game is over for it), else ("wait", status, month).

        Carries on a fast_forward: a month with nothing for the seat is ended for it (TURN-200/210, OPEN-91).
        """
        self.tick()
        with self.lock:
            g = self.game
            state = g.state()
            m = state.month
            kd = state.kingdoms[kingdom]
            if state.finished or kd.eliminated:
                return "turn", self.briefing_text(kingdom, explicit=False), m
            ended = g.store.ended(m)
            if kingdom not in ended:
                left = self.fast_forward.get(kingdom, 0)
                if left > 0:
                    view = build_view(state, kingdom)
                    events = self._visible_events(kingdom, m - 1)
                    figs = render.own_figures(state, view, events)
                    stops = render.fast_forward_stops(view, figs, events, state.last_month)
                    if not stops:
                        self.fast_forward[kingdom] = left - 1
                        g.store.mark_ended(m, kingdom, "fast_forward", time.time())
                        self.record(kingdom, "fast_forward", f"month {m} ended for you by fast_forward: nothing "
                                    "needed you", m)
                        g.try_resolve()
                        return "wait", f"month {m} skipped by fast_forward", m
                    self.fast_forward[kingdom] = 0
                    head = "fast_forward stopped: " + "; ".join(stops[:6]) + (" ..." if len(stops) > 6 else "")
                    return "turn", self.briefing_text(kingdom, explicit=False, headline=head), m
                return "turn", self.briefing_text(kingdom, explicit=False), m
            waiting = [k for k in g.waiting_for() if k != kingdom]
            names = {s["kingdom"]: s["name"] for s in g.seats()}
            left_s = int(self.deadline_left())
            who = ", ".join(names.get(k, k) for k in waiting) or "the month's resolution"
            return "wait", (f"Still waiting: month {m} is open and you have ended it; waiting for {who} "
                            f"(the month ends by itself in at most {left_s} s). Call wait_for_turn again."), m

    async def wait_turn(self, kingdom: str) -> str:
        """Wait up to `wait_s` for the seat's next turn; returns (and records) its briefing or a still-waiting line."""
        deadline = anyio.current_time() + self.wait_s
        status, month = "", 0
        while True:
            kind, text, month = await anyio.to_thread.run_sync(self.turn_status, kingdom)
            if kind == "turn":
                await anyio.to_thread.run_sync(self.record, kingdom, "briefing", text, month)
                return text
            status = text
            if anyio.current_time() >= deadline:
                break
            await anyio.sleep(self.poll_s)
        if not status.startswith("Still waiting"):
            status = (f"Still waiting: {status}; your next briefing is not ready yet. Call wait_for_turn again.")
        await anyio.to_thread.run_sync(self.record, kingdom, "reply", status, month)
        return status


def _has_orders(orders: Any) -> bool:
    if orders is None:
        return False
    if isinstance(orders, str):
        return bool(orders.strip())
    if isinstance(orders, (list, tuple)):
        return len(orders) > 0
    return True


def _goal_review_text() -> str:
    try:
        return GOAL_REVIEW_PATH.read_text(encoding="utf-8").strip()
    except OSError:
        return ("GOAL REVIEW: set goal in your next issue_orders as '<aim> by M<month>: <next steps>' "
                f"({GOAL_CHARS} characters at most).")


# =============================================================================================================
# Replies
# =============================================================================================================


def _is_notice(message: str) -> bool:
    low = message.lower()
    return any(w in low for w in render.NOTICE_WORDS)


def orders_reply(month: int, verdicts: list[Verdict], *, verbose: bool, preview: bool) -> str:
    """The answer to issue_orders: compact (routine orders counted; attacks, notices and refusals listed) or
    verbose (every order), always with the position, text, code and reason of a refusal (TOOLS-400/410)."""
    if not verdicts:
        return "No orders given." if not preview else "PREVIEW: no orders given."
    ok = [v for v in verdicts if v.ok]
    bad = [v for v in verdicts if not v.ok]
    lines: list[str] = []
    if preview:
        lines.append(f"PREVIEW of {len(verdicts)} order{'s' if len(verdicts) != 1 else ''} against the board of "
                     f"month {month} after what you already queued — nothing queued, the month goes on:")
        for v in verdicts:
            if v.ok:
                lines.append(f"  {v.position}. {v.text} → {v.message}")
            else:
                lines.append(f"  {v.position}. {v.text} → WOULD BE REFUSED [{v.code}]: {v.message}")
        return "\n".join(lines)
    lines.append(f"Month {month}: {len(ok)} of {len(verdicts)} order{'s' if len(verdicts) != 1 else ''} queued"
                 + (f", {len(bad)} REFUSED (not queued: fix and send again)" if bad else "") + ".")
    if verbose:
        for v in verdicts:
            if v.ok:
                lines.append(f"  {v.position}. {v.text} → {v.message}")
            else:
                lines.append(f"  {v.position}. REFUSED [{v.code}] {v.text}: {v.message}")
        return "\n".join(lines)
    routine: dict[str, int] = {}
    for v in ok:
        verb = render._verb(v.text) or "order"
        if verb in render.ROUTINE_VERBS and not _is_notice(v.message):
            routine[verb] = routine.get(verb, 0) + 1
        else:
            lines.append(f"  {v.position}. {v.text} → {v.message}")
    if routine:
        lines.append("  routine, queued: " + ", ".join(f"{n} {verb}" for verb, n in routine.items())
                     + " (verbose=true lists each)")
    for v in bad:
        lines.append(f"  {v.position}. REFUSED [{v.code}] {v.text}: {v.message}")
    return "\n".join(lines)


def history_text(name: str, rows: list[dict[str, Any]], budget: int = HISTORY_BUDGET) -> str:
    """get_history: everything sent to and from the seat, oldest first (OPEN-85).

    The seat's own calls (orders, notes, goals, reports) always appear in full; the game's texts appear in full
    for the most recent `budget` characters and as one line each before that, so the answer stays readable.
    """
    if not rows:
        return f"HISTORY of {name}: nothing yet. Start with get_briefing."
    game_kinds = {"briefing", "reply"}
    full_ids: set[int] = set()
    spent = 0
    for row in reversed(rows):
        if row["kind"] in game_kinds:
            if spent + len(row["text"]) > budget:
                continue
            spent += len(row["text"])
            full_ids.add(int(row["id"]))
    out = [f"HISTORY of {name}: {len(rows)} entries, oldest first. Your calls are shown in full; the game's answers "
           f"in full for the latest ~{budget:,} characters, older ones as one line."]
    for row in rows:
        stamp = time.strftime("%H:%M:%S", time.gmtime(float(row["at"])))
        kind = row["kind"]
        text = row["text"]
        if kind == "call":
            out.append(f"--- M{row['month']} {stamp} you: {text}")
        elif kind in game_kinds:
            label = f"briefing of month {row['month']}" if kind == "briefing" else "reply"
            if int(row["id"]) in full_ids:
                out.append(f"--- M{row['month']} {stamp} game, {label}:\n{text}")
            else:
                first = text.strip().splitlines()[0][:120] if text.strip() else ""
                out.append(f"--- M{row['month']} {stamp} game, {label} ({len(text):,} chars, omitted): {first}")
        else:
            out.append(f"--- M{row['month']} {stamp} {kind}: {text}")
    return "\n".join(out)


# =============================================================================================================
# The game record and the replay (TOOLS-490)
# =============================================================================================================


def _write_json(path: Path, data: Any) -> None:
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    tmp.replace(path)


def write_replay(game: Game) -> Path:
    """Every month's whole map (ownership, cities, units, camps, wars, captures) and its public and private
    events, next to the game file: public once the game is over."""
    path = game.store.path.with_suffix(".replay.json")
    if path.exists() and game.finished:  # a finished game never changes: one replay serves every seat
        return path.resolve()
    hashes = game.store.month_hashes()
    months = []
    for m in sorted(hashes):
        s = game.state(m)
        months.append({
            "month": m, "hash": hashes[m], "owner": s.owner.tolist(),
            "cities": [{"id": c.id, "name": c.name, "owner": c.owner, "founder": c.founder, "q": c.q, "r": c.r,
                        "people": c.people, "walls": round(c.walls, 1), "capital": c.is_capital, "ruin": c.is_ruin,
                        "restless": c.restless, "buildings": list(c.buildings)}
                       for c in sorted(s.cities.values(), key=lambda c: c.id)],
            "units": [{"id": u.id, "owner": u.owner, "type": u.type, "q": u.q, "r": u.r, "men": u.men,
                       "general": u.general_id} for u in sorted(s.units.values(), key=lambda u: u.id)],
            "camps": [{"id": c.id, "owner": c.owner, "q": c.q, "r": c.r, "grain": round(c.grain, 1)}
                      for c in s.camps.values()],
            "wars": s.wars, "captures": captures_of(s), "lead": s.lead,
            "events": [{"kind": e["kind"], "text": e["text"], "audience": e["audience"]}
                       for e in game.store.events(m)],
        })
    final = game.state()
    data = {
        "game": game.store.path.name, "scenario": game.meta.get("scenario"), "seed": game.meta.get("seed"),
        "rules_version": game.meta.get("rules_version"), "map": game.meta.get("map"),
        "kingdoms": [{"id": k, "name": kd.name, "ruler": kd.ruler, "result": kd.result, "place": kd.place}
                     for k, kd in final.kingdoms.items()],
        "end_reason": final.end_reason, "months": months,
    }
    _write_json(path, data)
    return path.resolve()


def write_record(game: Game, kingdom: str, replay: Path) -> Path:
    """The seat's own record: each month's briefings, calls and replies, orders with verdicts, notes, goals,
    dispatches and the seconds it took to end the month."""
    store = game.store
    path = store.path.with_suffix(f".{kingdom}.record.json")
    final = game.state()
    kd = final.kingdoms[kingdom]
    months: dict[int, dict[str, Any]] = {}

    def month(m: int) -> dict[str, Any]:
        return months.setdefault(m, {"month": m, "briefings": [], "calls": [], "replies": [], "orders": [],
                                     "notes": [], "goals": [], "dispatches": [], "seconds": None})

    for h in store.history(kingdom):
        slot = {"briefing": "briefings", "call": "calls", "reply": "replies"}.get(h["kind"], "replies")
        month(int(h["month"]))[slot].append({"at": h["at"], "text": h["text"]})
    for o in store.all_orders(kingdom):
        month(int(o["month"]))["orders"].append({"call": o["call"], "position": o["position"], "order": o["raw"],
                                                  "accepted": bool(o["accepted"]), "code": o["code"] or None,
                                                  "message": o["message"]})
    for n in store.notes(kingdom):
        slot = {"note": "notes", "goal": "goals"}.get(n["kind"], "dispatches")
        month(int(n["month"]))[slot].append({"kind": n["kind"], "text": n["text"], "at": n["at"]})
    hashes = store.month_hashes()
    opened = float(game.meta.get("created_at", 0.0))
    for m in sorted(hashes):
        ends = store.ended_at(m)
        if kingdom in ends and opened:
            month(m)["seconds"] = round(ends[kingdom] - opened, 1)
        if ends:
            opened = max(ends.values())
    data = {
        "game": store.path.name, "kingdom": kingdom, "name": kd.name, "ruler": kd.ruler, "result": kd.result,
        "place": kd.place, "end_reason": final.end_reason, "final_month": final.month, "replay": str(replay),
        "months": [months[m] for m in sorted(months)],
    }
    _write_json(path, data)
    return path.resolve()


# =============================================================================================================
# The MCP server
# =============================================================================================================

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
    each request names its seat in an `Authorization: Bearer TOKEN` header (HTTP)."""
    desk = Desk(game_path, token=token, wait_s=wait_s, poll_s=poll_s)
    server = MCPServer(name="kingdoms", instructions=INSTRUCTIONS)
    server.desk = desk  # type: ignore[attr-defined]  # for tests and serve()

    async def run_tool(ctx: Context, tool: str, args: dict[str, Any],
                       body: Callable[[str], Awaitable[str]]) -> str:
        """Seat the caller (or refuse), record the call, run the tool; every failure becomes one clear ToolError."""
        token = desk.token_of(ctx)
        kingdom = await anyio.to_thread.run_sync(desk.seat, token)
        shown = {k: v for k, v in args.items() if v not in (None, False, "", 0) or k == "orders"}
        await anyio.to_thread.run_sync(desk.record, kingdom, "call",
                                       f"{tool} {json.dumps(shown, ensure_ascii=False, default=str)}")
        try:
            return await body(kingdom)
        except ToolError as exc:
            await anyio.to_thread.run_sync(desk.record, kingdom, "error", str(exc))
            raise
        except (GameError, StorageError) as exc:
            await anyio.to_thread.run_sync(desk.record, kingdom, "error", str(exc))
            raise ToolError(str(exc)) from exc
        except Exception as exc:
            log.exception("tool %s failed for %s", tool, kingdom)
            await anyio.to_thread.run_sync(desk.record, kingdom, "error", f"internal error: {exc!r}")
            raise ToolError(INTERNAL_ERROR) from exc

    async def call(ctx: Context, tool: str, args: dict[str, Any], fn: Callable[..., str], *fargs: Any,
                   quiet_reply: str | None = None) -> str:
        """A tool whose answer is one text from a Desk method run in a worker thread."""

        async def body(kingdom: str) -> str:
            text = await anyio.to_thread.run_sync(lambda: fn(kingdom, *fargs))
            stored = quiet_reply.format(n=len(text)) if quiet_reply else text
            await anyio.to_thread.run_sync(desk.record, kingdom, "reply", stored)
            return text

        return await run_tool(ctx, tool, args, body)

    @server.tool(structured_output=False, description=(
        "Your situation report for the month now open: where the game stands (captures, lead, the Ruin, wars), "
        "your goal, every city with its numbers and ALERTs, every troop, generals, known enemies, city sites, "
        "military buildings, landmarks, what needs attention and what happened last month. Call it first in "
        "every session and whenever you need the full picture; it always shows full city rows."))
    async def get_briefing(ctx: Context) -> str:
        async def body(kingdom: str) -> str:
            text, month = await anyio.to_thread.run_sync(desk.get_briefing, kingdom)
            await anyio.to_thread.run_sync(desk.record, kingdom, "briefing", text, month)
            return text

        return await run_tool(ctx, "get_briefing", {}, body)

    @server.tool(structured_output=False, description=(
        "The complete rules this server plays by (map and moves, economy, troops and combat formulas, sieges, "
        "spies, victory by captures, order syntax). Long: read it once at the start of a game and come back "
        "when a reply or a number puzzles you."))
    async def get_rules(ctx: Context) -> str:
        def rules(_: str) -> str:
            try:
                return RULES_PATH.read_text(encoding="utf-8")
            except OSError as exc:
                raise ToolError(f"The rules file is missing on this server ({exc}).") from exc

        return await call(ctx, "get_rules", {}, rules, quiet_reply="[the rules text, {n:,} characters]")

    @server.tool(structured_output=False, description=(
        "Places where colonists could found a city, among the tiles you have explored, best first: each with "
        "its water (which sets growth), its distance from your nearest city or colonists, the grain and "
        "production a new city there would make at once and with all its starting land worked, and the people "
        "its land would feed. Use it when planning colonists."))
    async def get_sites(ctx: Context, limit: Annotated[int, Field(
            description="How many sites to list, best first (1-200).", ge=1, le=200)] = 25) -> str:
        return await call(ctx, "get_sites", {"limit": limit}, desk.get_sites, limit)

    @server.tool(structured_output=False, description=(
        "A text map of what you have explored: one terrain letter per tile (lower case where a river runs), "
        "with markers for cities, troops, other units and camps, and a list of what the markers are. Give "
        "center_q, center_r and radius together to see only the area around a tile, which is much shorter; "
        "with none of them you get your whole explored map."))
    async def get_map(
        ctx: Context,
        center_q: Annotated[int | None, Field(description="q coordinate of the centre tile (give with center_r "
                                                          "and radius).")] = None,
        center_r: Annotated[int | None, Field(description="r coordinate of the centre tile (give with center_q "
                                                          "and radius).")] = None,
        radius: Annotated[int | None, Field(description="How many tiles around the centre to show (1-40).",
                                            ge=1, le=40)] = None,
    ) -> str:
        given = [x is not None for x in (center_q, center_r, radius)]
        if any(given) and not all(given):
            raise ToolError("get_map takes center_q, center_r and radius together (e.g. center_q=10, center_r=8, "
                            "radius=5), or none of them for the whole explored map.")
        center = (center_q, center_r) if all(given) else None
        return await call(ctx, "get_map", {"center_q": center_q, "center_r": center_r, "radius": radius},
                          desk.get_map, center, radius)

    @server.tool(structured_output=False, description=(
        "Everything you know about one tile: terrain and what it yields, move cost, defence bonus, any "
        "landmark name, whose land it is, the units you can see on it, and whether colonists could found a "
        "city there (with what that city would make)."))
    async def inspect_tile(
        ctx: Context,
        q: Annotated[int, Field(description="Axial q coordinate of the tile.")],
        r: Annotated[int, Field(description="Axial r coordinate of the tile (rows grow downward).")],
    ) -> str:
        return await call(ctx, "inspect_tile", {"q": q, "r": r}, desk.inspect_tile, q, r)

    @server.tool(structured_output=False, description=(
        "A close look at one city. Your own: its full row, what each focus would give, worked tiles, the "
        "queue, improvements and free improvement sites, every item it could build with its price and months "
        "to finish, and the units inside. Another ruler's city: what you have seen of it and your spies' latest "
        "report. Use before set_production, set_focus or an assault."))
    async def get_city(ctx: Context, city_id: Annotated[int, Field(
            description="The city's id, the number after # in your briefing.")]) -> str:
        return await call(ctx, "get_city", {"city_id": city_id}, desk.get_city, city_id)

    @server.tool(structured_output=False, description=(
        "Everything this game has said to you and you to it, oldest first: briefings, replies, your orders, "
        "notes, goals and reports. Use it at the start of a new session to pick up the thread; older long "
        "texts are shortened to one line."))
    async def get_history(ctx: Context) -> str:
        return await call(ctx, "get_history", {}, desk.get_history,
                          quiet_reply="[your history, {n:,} characters]")

    @server.tool(structured_output=False, description=(
        "Give orders for the month now open. Each order is checked at once against the board as it stands "
        "(after your orders already queued): accepted ones are queued to run at month end, refused ones are "
        "not queued and the reply says why, so fix and resend them. preview=true only shows what each order "
        "would do. end_turn=true also ends your month and waits for the next briefing; if the reply says it is "
        "still waiting, call wait_for_turn."))
    async def issue_orders(
        ctx: Context,
        orders: Annotated[str | list[str | dict[str, Any]], Field(description=_ORDERS_HELP)] = "",
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
    ) -> str:
        args = {"orders": orders, "end_turn": end_turn, "note": note, "goal": goal, "verbose": verbose,
                "preview": preview, "fast_forward": fast_forward}

        async def body(kingdom: str) -> str:
            reply, ended, month = await anyio.to_thread.run_sync(
                lambda: desk.issue(kingdom, orders, note=note, goal=goal, verbose=verbose, preview=preview,
                                   end_turn=end_turn, fast_forward=fast_forward))
            await anyio.to_thread.run_sync(desk.record, kingdom, "reply", reply, month)
            if not ended:
                return reply
            return reply + "\n\n" + await desk.wait_turn(kingdom)

        return await run_tool(ctx, "issue_orders", args, body)

    @server.tool(structured_output=False, description=(
        "Wait for your next month after you have ended this one: returns its briefing (what changed, last "
        "month's results) as soon as every ruler has ended the month, or after about 45 seconds a short "
        "'Still waiting' — then simply call it again. If your month is still open it returns the briefing at "
        "once."))
    async def wait_for_turn(ctx: Context) -> str:
        return await run_tool(ctx, "wait_for_turn", {}, desk.wait_turn)

    @server.tool(structured_output=False, description=(
        "File a report in your kingdom's chronicle, for your human and spectators: what you did, why, and how "
        "things stand. It has no effect on play. Send progress reports whenever useful (final=false) and one "
        "final report when the game is over for you (final=true)."))
    async def submit_dispatch(
        ctx: Context,
        report: Annotated[str, Field(description="The report text: what you did, why, and the situation now.")],
        final: Annotated[bool, Field(description=(
            "true for your closing report once the game has ended for you; false for a progress report."))],
    ) -> str:
        return await call(ctx, "submit_dispatch", {"report": report, "final": final}, desk.submit_dispatch,
                          report, final)

    @server.tool(structured_output=False, description=(
        "After the game has ended: writes your own record of it (each month's briefings, your orders and the "
        "replies, notes, goals, reports and the time you took) and the full replay of the whole map month by "
        "month, and tells you where both files are. Before the end it only says it is not available yet."))
    async def get_game_record(ctx: Context) -> str:
        return await call(ctx, "get_game_record", {}, desk.get_game_record)

    return server


# =============================================================================================================
# serve
# =============================================================================================================


def serve(args: Any) -> int:
    """`kingdoms serve GAME`: one seat over stdio (--seat TOKEN or KINGDOMS_SEAT), or every seat over HTTP."""
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(name)s %(message)s")
    path = Path(args.game)
    if not path.exists():
        print(f"kingdoms serve: no game file at {path}", file=sys.stderr)
        return 2
    try:
        if getattr(args, "http", False):
            server = build_server(path)
            host = getattr(args, "host", "127.0.0.1")
            port = int(getattr(args, "port", 8765))
            print(f"kingdoms: serving {path} to every seat at http://{host}:{port}/mcp "
                  "(send Authorization: Bearer TOKEN)", file=sys.stderr)
            server.run("streamable-http", host=host, port=port)
            return 0
        token = getattr(args, "seat", None) or os.environ.get("KINGDOMS_SEAT")
        server = build_server(path, token=token or "")
        desk: Desk = server.desk  # type: ignore[attr-defined]
        kingdom = desk.game.kingdom_for_token(token) if token else None
        if kingdom is None:
            print("kingdoms serve: warning: no valid seat token (--seat or KINGDOMS_SEAT); every tool will refuse",
                  file=sys.stderr)
        else:
            log.info("serving seat %s of %s over stdio", kingdom, path)
        server.run()
        return 0
    except StorageError as exc:
        print(f"kingdoms serve: {exc}", file=sys.stderr)
        return 2
