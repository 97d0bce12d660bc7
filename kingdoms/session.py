"""The seat's month, for any interface: what a seated ruler is shown and what its calls do, without MCP.

A Session serves one game file to its seats (the MCP server now; a replay viewer, a tournament runner or a
built-in model seat can use it unchanged). It owns the seat-facing policy: when a briefing has full rows, the
window of results it reports, goal reviews, fast_forward (kept in the game file, so a restart carries it on),
the deadline and AI seats (tick), order replies, the history (kingdoms.history) and the exports of a finished
game (kingdoms.records). Every text is rendered from the seat's one Observation of the month
(Game.observation, kingdoms.views.observation), so the fog holds here as everywhere. Refusals are SessionError, whose message is meant for the seat.

Thread-safe (one lock); several processes may serve one file, so each read goes to the file.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kingdoms import history, records
from kingdoms.game import Game, GameError, MonthClosed, Verdict
from kingdoms.history import DISPATCH_CHARS, GOAL_CHARS, HISTORY_BUDGET, NOTE_CHARS, SeatFacts
from kingdoms.records import RECORD_URI, REPLAY_URI
from kingdoms.storage import StorageError, match_token
from kingdoms.views import render

log = logging.getLogger("kingdoms.session")

ROOT = Path(__file__).resolve().parent.parent
RULES_PATH = ROOT / "rules.md"
GOAL_REVIEW_PATH = ROOT / "prompts" / "goal_review.md"

GOAL_REVIEW_EVERY = 20  # OPEN-84
FULL_ROWS_EVERY = 10  # TOOLS-070: full city rows every 10th month
RESULT_MONTHS = 6  # a briefing reports at most this many months of results (OPEN-5)
#: What a harness may report with report_usage (kingdoms.modelseat); "status" stores nothing.
USAGE_KINDS = {"session", "call", "retry", "outage", "month_ended", "budget", "provider_failed", "status"}

NOTHING_TO_DO = ("issue_orders got nothing to do: give `orders` (e.g. \"move unit=5 to=9,4; set_focus city=1 "
                 "focus=food\"), `end_turn`: true to end your month, a `note` or a `goal` — or several of them.")

__all__ = ["DISPATCH_CHARS", "GOAL_CHARS", "HISTORY_BUDGET", "NOTE_CHARS", "Session", "SessionError",
           "orders_reply"]


class SessionError(Exception):
    """A call the session refuses; the message says why and what to do, in words meant for the seat."""


class Session:
    """One game file served to its seats: each method takes the seat's kingdom id and answers in text."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.game = Game.open(self.path)
        self.lock = threading.RLock()
        self.started = time.time()  # a month's deadline never counts time when no server was running
        self._ai_lock = self.path.with_name(self.path.name + ".ai.lock")
        self._digests: dict[str, str] | None = None

    def close(self) -> None:
        with self.lock:
            self.game.close()

    def kingdom_for(self, token: str | None) -> str | None:
        """The kingdom a seat token seats, or None (the seats' digests are read once: seats never change once a
        game is made)."""
        if not token or not token.strip():
            return None
        with self.lock:
            if self._digests is None:
                self._digests = self.game.store.seat_digests()
            return match_token(token.strip(), self._digests)

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
        """When the open month started counting toward its deadline: when it opened, or when this session started
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
                if g.ai_seats_waiting():  # the file lock only when there is an AI month to play
                    with self._ai_file_lock():
                        g.play_ai_seats()
            except GameError as exc:  # another process got there first
                log.info("tick: %s", exc)

    # --- the history of calls ----------------------------------------------------------------------------------

    def record(self, kingdom: str, kind: str, text: str, month: int | None = None) -> int:
        """Append to the seat's history (briefing, reply, error, fast_forward...); returns the entry's id."""
        with self.lock:
            m = self.game.month if month is None else month
            try:
                return self.game.store.add_history(m, kingdom, kind, text, time.time())
            except StorageError as exc:  # e.g. a full disk: the call's own answer (say, "disk full") still goes out
                log.warning("history entry not stored: %s", exc)
                return 0

    def record_call(self, kingdom: str, tool: str, args: dict[str, Any]) -> int:
        """Store one call and its arguments, each cut to what the tool keeps; returns the entry's id."""
        return self.record(kingdom, "call", history.call_text(tool, args))

    def record_error(self, kingdom: str, text: str) -> None:
        self.record(kingdom, "error", history.cut(text, history.ERROR_CHARS))

    def record_reply_size(self, call_id: int, reply: str) -> None:
        """Keep the size of the whole answer a call got (characters and estimated tokens) with the call."""
        chars, tokens = history.reply_size(reply)
        with self.lock:
            try:
                self.game.store.set_reply_size(call_id, chars, tokens)
            except StorageError as exc:
                log.warning("reply size not stored: %s", exc)

    def record_reply(self, kingdom: str, kind: str, text: str, month: int | None = None, *,
                     call_id: int | None = None, reply: str = "") -> None:
        """Append the answer to the seat's history and, given the call's entry, keep the whole answer's size
        (`reply`) with it: one transaction (a call's records are written apart from its orders, which commit
        first)."""
        chars, tokens = history.reply_size(reply)
        with self.lock:
            store = self.game.store
            try:
                with store.write():
                    store.add_history(self.game.month if month is None else month, kingdom, kind, text, time.time())
                    if call_id:
                        store.set_reply_size(call_id, chars, tokens)
            except StorageError as exc:  # e.g. a full disk: the call's own answer still goes out
                log.warning("reply not stored: %s", exc)

    def record_failure(self, kingdom: str, call_id: int, error: str, *, reply: str | None = None) -> None:
        """A refused or failed call: its error in the history and the answer's size (`reply`, default the error
        itself) with the call, in one transaction."""
        self.record_reply(kingdom, "error", history.cut(error, history.ERROR_CHARS), call_id=call_id,
                          reply=error if reply is None else reply)

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

    def briefing_text(self, kingdom: str, *, explicit: bool, headline: str | None = None) -> str:
        """The briefing of the open month: full rows when asked for (get_briefing), on month 1 and every 10th
        month, or when the seat missed last month's; otherwise short rows (TOOLS-060/070, OPEN-5)."""
        with self.lock:
            g = self.game
            obs = g.observation(kingdom)
            view = obs.view
            m = obs.month
            start = int(g.meta.get("start_month", 1))
            seen = self.seen_months(kingdom)
            full = explicit or m == start or m % FULL_ROWS_EVERY == 0 or (m - 1) not in seen
            prev_view = None
            if not full:
                try:
                    prev_view = g.observation(kingdom, m - 1).view
                except StorageError:
                    full = True
            earlier = [s for s in seen if s < m]
            first = max(earlier) if earlier else start  # everything since the last briefing the seat saw
            first = max(first, start, m - RESULT_MONTHS)
            last = m + 1 if obs.finished else m  # a finished game's state keeps the final month's number
            results = [render.MonthResults(mm, g.store.outcomes(mm, kingdom), g.events_seen_by(kingdom, mm))
                       for mm in range(first, last)]
            goal, goal_month = self.goal_of(kingdom)
            review = None
            over = obs.finished or obs.eliminated
            if not over and (goal is None or (goal_month is not None and m - goal_month >= GOAL_REVIEW_EVERY)):
                review = _goal_review_text()
            data = render.briefing_data(
                obs, full_rows=full, prev_view=prev_view, goal=goal, goal_month=goal_month, goal_review=review,
                results=results, headline=headline or self._headline(kingdom), over=over)
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

    # --- what a seat can ask for ------------------------------------------------------------------------------

    def get_briefing(self, kingdom: str) -> tuple[str, int]:
        """The full briefing of the open month and that month's number (record it as sent: kind 'briefing')."""
        self.tick()
        with self.lock:
            return self.briefing_text(kingdom, explicit=True), self.game.state().month

    def get_rules(self, section: str | None = None) -> str:
        """The rules: a table of contents without `section`, one section by number or title word, or "all"."""
        try:
            text = RULES_PATH.read_text(encoding="utf-8")
        except OSError as exc:
            raise SessionError(f"The rules file is missing on this server ({exc}).") from exc
        return rules_section(text, section)

    def get_city(self, kingdom: str, city_id: int) -> str:
        with self.lock:
            obs = self.game.observation(kingdom)
            view = obs.view
            own = next((c for c in view.cities if c.id == city_id), None)
            if own is not None:
                return render.own_city_text(obs, own, obs.figures.cities[own.id])
            seen = view.city(city_id)
            if seen is None:
                seen = obs.known_city(city_id)
            if seen is None or not isinstance(seen, render.SeenCity):
                ids = ", ".join(f"#{c.id} {c.name}" for c in view.cities)
                raise SessionError(f"No city #{city_id} on your map. Your cities: {ids or 'none'}; other known "
                                   "cities are under KNOWN ENEMIES in your briefing.")
            return render.rival_city_text(view, seen)

    def get_map(self, kingdom: str, center: tuple[int, int] | None, radius: int | None,
                layer: str = "terrain") -> str:
        """get_map: the explored map (terrain and markers), or with layer="supply" who feeds a troop on each tile."""
        with self.lock:
            obs = self.game.observation(kingdom)
            supply = obs.supply if layer == "supply" else None
            return render.map_text(obs.view, center, radius, supply=supply)

    def inspect_tile(self, kingdom: str, q: int, r: int) -> str:
        with self.lock:
            obs = self.game.observation(kingdom)
            return render.tile_text(obs, obs.tile(q, r))

    def get_sites(self, kingdom: str, limit: int) -> str:
        with self.lock:
            return render.sites_text(self.game.observation(kingdom), limit)

    def get_history(self, kingdom: str, month: int | None = None, before: int | None = None,
                    budget: int = HISTORY_BUDGET) -> str:
        """The seat's history within `budget` characters: the digest (newest first, `before` pages back), or
        one month in full."""
        with self.lock:
            facts = self._seat_facts(kingdom)
            if month is not None and before is not None:
                raise SessionError("get_history takes month (one month in full) or before (the months before it), "
                                   "not both.")
            if month is not None:
                if not facts.start <= month <= facts.month:
                    raise SessionError(f"month={month} is outside this game so far: give a month from "
                                       f"{facts.start} to {facts.month}.")
                return history.month_in_full(self.game, kingdom, facts, month, budget=budget)
            if before is not None and not facts.start < before <= facts.month + 1:
                raise SessionError(f"before={before} is outside this game so far: give a month from "
                                   f"{facts.start + 1} to {facts.month + 1}.")
            return history.digest(self.game, kingdom, facts, before=before, budget=budget)

    def _seat_facts(self, kingdom: str) -> SeatFacts:
        """The digest's head, from the seat's own view and notes."""
        obs = self.game.observation(kingdom)
        names = {s["kingdom"]: s["name"] for s in self.game.seats()}
        goal, goal_month = self.goal_of(kingdom)
        standing = [f"#{u.id} {u.type}: {render.order_text(u.standing)}" for u in obs.view.units if u.standing]
        return SeatFacts(name=names.get(kingdom, kingdom), month=obs.month, last_month=obs.last_month,
                         start=int(self.game.meta.get("start_month", 1)), finished=obs.finished, goal=goal,
                         goal_month=goal_month, standing=standing)

    def submit_dispatch(self, kingdom: str, report: str, final: bool) -> str:
        text = report.strip()
        if not text:
            raise SessionError("The report is empty: write what you did, why, and where things stand.")
        text = text[:DISPATCH_CHARS]
        with self.lock:
            m = self.game.month
            self.game.store.add_note(m, kingdom, "final" if final else "dispatch", text, time.time())
        kind = "final report" if final else "progress report"
        return (f"Your {kind} is stored in the chronicle under month {m} ({len(text):,} characters). "
                "It changes nothing in play.")

    def get_game_record(self, kingdom: str) -> str:
        """Where a finished game's record and replay are: MCP resources (copies go next to the game file)."""
        self.tick()
        with self.lock:
            state = self.game.state()
            if not state.finished:
                return (f"Not available yet: the game is still running (month {state.month} of {state.last_month}). "
                        "Your record and the full replay can be read when it ends; ask again then.")
            records.write_replay(self.game)
            records.write_record(self.game, kingdom)
        record = RECORD_URI.format(kingdom=kingdom)
        return (f"The game is over. Read these MCP resources (resources/read) and keep them: the game keeps nothing "
                f"for you between games.\nYour record (what the game told you each month, your orders and the "
                f"replies, notes, goals, reports, time per month), JSON: {record}\nFull replay (every month's "
                f"whole map and every event), JSON: {REPLAY_URI}")

    def record_text(self, kingdom: str) -> str:
        """The seat's own record as JSON, once the game is over."""
        self.tick()
        with self.lock:
            if not self.game.state().finished:
                raise SessionError("Your record can be read once the game is over.")
            return records.to_json(records.record_data(self.game, kingdom))

    def replay_text(self) -> str:
        """The full replay as JSON, once the game is over (before that it would show what no seat may know)."""
        self.tick()
        with self.lock:
            if not self.game.state().finished:
                raise SessionError("The full replay can be read once the game is over: it shows every kingdom's "
                                   "moves.")
            return records.replay_text(self.game)

    def seat_digests(self) -> dict[str, str]:
        """Each seat's token digest by kingdom (seats never change once a game is made)."""
        with self.lock:
            if self._digests is None:
                self._digests = self.game.store.seat_digests()
            return dict(self._digests)

    # --- orders and the end of the month -------------------------------------------------------------------

    def issue(self, kingdom: str, orders: Any, *, note: str | None, goal: str | None, verbose: bool,
              preview: bool, end_turn: bool, fast_forward: int, force: bool = False) -> tuple[str, bool, int]:
        """Check and queue orders, store note and goal, end the month when asked. Returns (reply, ended, month).

        A call with end_turn whose orders include a refused one keeps the month open (and starts no fast_forward)
        unless `force` is given: the reply says so first, so one bad order never costs a month."""
        if not (_has_orders(orders) or end_turn or (note and note.strip()) or (goal and goal.strip())):
            raise SessionError(NOTHING_TO_DO)
        self.tick()
        with self.lock:
            g = self.game
            state = g.state()
            m = state.month
            if state.finished:
                raise SessionError("The game is over: no more orders. get_briefing shows the result; send your final "
                                   "report with submit_dispatch(final=true) and fetch get_game_record.")
            if state.kingdoms[kingdom].eliminated:
                raise SessionError("Your kingdom has fallen: you can give no more orders. Send your final report "
                                   "with submit_dispatch(final=true).")
            ended_now = g.store.ended(m)
            if kingdom in ended_now:
                how = ended_now[kingdom]
                why = {"deadline": "the month's time limit ran out", "fast_forward": "fast_forward ended it"}.get(
                    how, "you ended it")
                raise SessionError(f"Month {m} is already ended for you ({why}); your orders would be for a month "
                                   "that is closed. Call wait_for_turn for the next briefing, then give orders.")
            lines: list[str] = []
            verdicts: list[Verdict] = []
            if _has_orders(orders):
                try:
                    verdicts = g.issue(kingdom, orders, preview=preview, month=m)  # bound to month m
                except MonthClosed as exc:
                    raise SessionError(month_closed_text(exc)) from exc
                except GameError as exc:
                    raise SessionError(str(exc)) from exc
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
            refused = sum(1 for v in verdicts if not v.ok)
            if end_turn and preview:
                lines.append("end_turn ignored: a preview never ends the month. Send the orders without preview, "
                             "then end the month.")
            elif end_turn and refused and not force:
                lines.insert(0, kept_open_line(m, refused, fast_forward))
            elif end_turn:
                try:  # ends exactly month m, or says which month is open
                    g.end_month(kingdom, month=m)
                except MonthClosed as exc:
                    if exc.open_month is None or exc.open_month == m:
                        raise SessionError(month_closed_text(exc)) from exc
                    lines.append(f"Month {m} had already closed when you ended it: {exc}. Any orders this reply "
                                 f"calls queued were part of month {m} and ran at its end.")
                ended = True
                skip = max(0, int(fast_forward or 0))
                g.store.set_fast_forward(kingdom, skip, time.time())
                more = (f" fast_forward: up to {skip} more months will be ended for you while nothing needs you."
                        if skip else "")
                forced = (f" (force: {refused} refused order{'s' if refused != 1 else ''} left out)"
                          if refused else "")
                lines.append(f"Month {m} ended for you{forced}.{more}")
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
        A "turn" briefing is the seat's to read: record it as sent (kind 'briefing') once it is delivered.
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
                if g.store.fast_forward(kingdom) > 0:
                    stops = g.observation(kingdom).fast_forward_stops()
                    if not stops:
                        if g.store.skip_month(m, kingdom, time.time()):
                            self.record(kingdom, "fast_forward", f"month {m} ended for you by fast_forward: nothing "
                                        "needed you", m)
                            g.try_resolve()
                            return "wait", f"month {m} skipped by fast_forward", m
                    else:
                        g.store.set_fast_forward(kingdom, 0, time.time())
                        head = "fast_forward stopped: " + "; ".join(stops[:6]) + (" ..." if len(stops) > 6 else "")
                        return "turn", self.briefing_text(kingdom, explicit=False, headline=head), m
                return "turn", self.briefing_text(kingdom, explicit=False), m
            waiting = [k for k in g.waiting_for() if k != kingdom]
            names = {s["kingdom"]: s["name"] for s in g.seats()}
            left_s = int(self.deadline_left())
            who = ", ".join(names.get(k, k) for k in waiting) or "the month's resolution"
            return "wait", (f"Still waiting: month {m} is open and you have ended it; waiting for {who} "
                            f"(the month ends by itself in at most {left_s} s). Call wait_for_turn again."), m


    # --- model usage (for harnesses such as kingdoms.modelseat, never shown to a ruler) ----------------------

    def seat_status(self, kingdom: str) -> dict[str, Any]:
        """Where the seat stands, for a harness: the open month, whether it may still play it, the time left."""
        self.tick()
        with self.lock:
            state = self.game.state()
            ended = self.game.store.ended(state.month)
            kd = state.kingdoms[kingdom]
            return {"month": state.month, "open_for_you": not (state.finished or kd.eliminated or kingdom in ended),
                    "ended_how": ended.get(kingdom), "deadline_left_s": round(self.deadline_left(), 1),
                    "finished": state.finished, "eliminated": kd.eliminated, "last_month": state.last_month}

    def report_usage(self, kingdom: str, kind: str, month: int | None, row: dict[str, Any]) -> str:
        """Store one usage row for the seat (unless kind is "status") and answer its status and totals as JSON.
        The rows live apart from the history: the ruler never reads them back."""
        if kind not in USAGE_KINDS:
            raise SessionError(f"kind {kind!r} is not one of: {', '.join(sorted(USAGE_KINDS))}.")
        stored = kind != "status"
        if stored:
            with self.lock:
                current = self.game.month
                start = int(self.game.meta.get("start_month", 1))
                m = current if month is None else int(month)
                if not start <= m <= current:
                    raise SessionError(f"month {m} is outside this game's months so far ({start}-{current}).")
                self.game.store.add_usage(m, kingdom, {**row, "kind": kind, "at": time.time()})
        status = self.seat_status(kingdom)
        with self.lock:
            totals = self.game.store.usage_totals().get(kingdom)
        return json.dumps({"stored": stored, "seat": kingdom, "status": status, "totals": totals})

def month_closed_text(exc: MonthClosed) -> str:
    """The seat's answer when its month closed under it: nothing was queued or ended, and what is open now."""
    if exc.open_month is None:
        return f"{exc} Nothing was queued. get_briefing shows the result."
    if exc.ended_by is not None:
        return f"{exc} Call wait_for_turn for the month {exc.open_month + 1} briefing, then give orders."
    return f"{exc} Call get_briefing for the month {exc.open_month} briefing, then send your orders again."


#: A rules section's heading ("## 8. Combat") and the bold words that open its paragraphs.
_SECTION_RE = re.compile(r"(?m)^## (\d+)\. (.+)$")
_LEAD_RE = re.compile(r"(?m)^(?:- )?\*\*([^*]{2,40}?)[.:]?\*\*")


def rules_sections(text: str) -> list[tuple[str, str, str]]:
    """(number, title, text) of each `## N. Title` section of the rules, in order."""
    heads = list(_SECTION_RE.finditer(text))
    out = []
    for n, h in enumerate(heads):
        end = heads[n + 1].start() if n + 1 < len(heads) else len(text)
        out.append((h.group(1), h.group(2).strip(), text[h.start():end].strip().removesuffix("---").strip()))
    return out


def rules_section(text: str, section: str | None) -> str:
    """get_rules: the table of contents (no section), the whole text ("all"), or one section by its number or a
    word of its title ("8", "combat", "order syntax")."""
    sections = rules_sections(text)
    if section is None or not section.strip():
        lines = [f"RULES — table of contents ({len(text):,} characters in all). Read a section with get_rules "
                 "section=N (or a word of its title, e.g. section=supply); section=all gives the whole text."]
        head = _SECTION_RE.search(text)
        intro = text[:head.start() if head else 0].replace("---", "").strip().split("\n", 1)
        if len(intro) > 1 and intro[1].strip():
            lines.append(" ".join(intro[1].split()))
        for num_, title, body in sections:
            leads = [m.group(1).strip(" .:") for m in _LEAD_RE.finditer(body)][:10]
            lines.append(f"§{num_} {title} ({len(body):,} chars)" + (": " + ", ".join(leads) if leads else ""))
        return "\n".join(lines)
    want = section.strip().lower().lstrip("§").strip()
    if want == "all":
        return text
    for num_, title, body in sections:
        if want == num_ or want == title.lower():
            return body
    hits = [(num_, body) for num_, title, body in sections if want in title.lower()]
    if len(hits) == 1:
        return hits[0][1]
    known = "; ".join(f"{num_} {title}" for num_, title, _ in sections)
    if hits:
        raise SessionError(f"section={section!r} matches several sections ({', '.join(n for n, _ in hits)}): give "
                           f"its number. Sections: {known}; or all.")
    raise SessionError(f"No rules section {section!r}. Sections: {known}; or all for the whole text.")


def kept_open_line(month: int, refused: int, fast_forward: int) -> str:
    """The first line of an end_turn reply whose orders include a refused one: the month stays open."""
    them = "it" if refused == 1 else "them"
    ff = " fast_forward not started." if fast_forward else ""
    return (f"{refused} order{'s' if refused != 1 else ''} REFUSED, month {month} NOT ended: fix {them} and send "
            f"again, or call issue_orders end_turn=true again to end the month without {them} (force=true ends it "
            f"in this same call).{ff}")


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
# The answer to issue_orders
# =============================================================================================================


#: Any of the notice words (render.NOTICE_WORDS) anywhere in a message, in one search.
_NOTICE_RE = re.compile("|".join(re.escape(w) for w in render.NOTICE_WORDS))


def _is_notice(message: str) -> bool:
    return _NOTICE_RE.search(message.lower()) is not None


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
