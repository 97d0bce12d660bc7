"""The game service: one game file, its seats and months, over the engine and storage.

This is the library the interfaces (MCP server, CLI, AI runner, bench) stand on: it parses and checks
orders, queues the accepted ones durably, ends months, resolves a month exactly once when every seat has
ended it (or its deadline passed, OPEN-78), lets AI seats play, and replays a game to verify its hashes.

Orders and month ends are bound to their month: checking and queuing run in one write transaction that
first confirms the month is still open (and still the one the caller saw, `month=`), so a reply that says
"queued" is true; when the month has closed, MonthClosed says which month is open now.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import os
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kingdoms import RULES_VERSION
from kingdoms.engine.context import Event
from kingdoms.engine.month import resolve_month
from kingdoms.engine.sight import Sight
from kingdoms.engine.victory import captures as captures_of
from kingdoms.gamemap import GameMap
from kingdoms.orders.models import ORDER_ADAPTER
from kingdoms.orders.syntax import OrderError, ParsedOrder, ParseResult, echo_text, format_order, parse_orders
from kingdoms.state import GameState, diff_states
from kingdoms.storage import (
    DEFAULT_BUSY_TIMEOUT_S,
    DiskFull,
    GameStore,
    StorageError,
    new_token,
    remove_game_file,
    side_files,
    sqlite_problem,
    token_digest,
)
from kingdoms.views.observation import MonthFacts, Observation, observe

DEFAULT_DEADLINE_S = 600.0
#: Orders one seat may queue for one month (rules.md "Limits"): keeps every check of a new order bounded, since
#: it runs after the orders already queued (TURN-050).
MAX_QUEUED = 1000

#: Decides an AI seat's month: (game, kingdom id, controller name) -> orders text, or a Decision
#: (kingdoms.ai.common: `.orders` text and an optional chronicle `.note`).
AiDecider = Callable[["Game", str, str], Any]

#: Seconds since the epoch; a test gives a controllable clock instead of time.time.
Clock = Callable[[], float]

_HOW = {"deadline": "the month's deadline ended it for you", "fast_forward": "fast_forward ended it for you",
        "ai": "the AI ended it", "ended": "you ended it"}


def ai_decide(game: Game, kingdom: str, controller: str) -> Any:
    """The default AiDecider: the scripted ruler named by `controller`, given the seat's Observation."""
    from kingdoms.ai import decide_orders

    return decide_orders(game.observation(kingdom), controller)


class GameError(Exception):
    """A request the game cannot serve (bad seat, finished game...); the message says why."""


class MonthClosed(GameError):
    """Orders or a month end for a month that is no longer open to this seat; nothing was queued or ended.

    `month` is the month the caller meant, `open_month` the month open now (None once the game is over),
    `ended_by` how the seat's month was ended when it is still open but ended for this seat (else None).
    """

    def __init__(self, message: str, *, month: int, open_month: int | None, ended_by: str | None = None) -> None:
        super().__init__(message)
        self.month = month
        self.open_month = open_month
        self.ended_by = ended_by


@dataclass(slots=True)
class Verdict:
    """The issue-time answer for one order: accepted (with what it will do) or refused (code and reason)."""

    position: int
    text: str
    ok: bool
    message: str
    code: str | None = None


@dataclass(slots=True)
class ReplayReport:
    """What `replay` found: ok, months replayed, the first month whose state differs, and what differs there.

    `hashes` are the replayed states' hashes from the first month on; `rebuilt` says whether the first month
    was rebuilt from the scenario and seed (False when the file does not record how it was set up).
    """

    ok: bool
    months: int
    first_mismatch: int | None
    hashes: list[str]
    differences: list[str] = field(default_factory=list)
    rebuilt: bool = False
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "months": self.months, "first_mismatch": self.first_mismatch, "hashes": self.hashes,
                "differences": self.differences, "rebuilt_first_month": self.rebuilt, "note": self.note}


# --- how a game was set up, so replay --verify can rebuild its first month -----------------------------------


def setup_for(scenario: str | Path | None) -> dict[str, Any]:
    """What rebuilds a scenario later, for the file's meta: a random map's seed and kingdoms, or the TOML text
    of a named or file scenario (the file may move or change; the text in the game file does not)."""
    from kingdoms.scenario import DEFAULT_SCENARIO, scenario_path

    text = DEFAULT_SCENARIO if scenario is None or str(scenario).strip() == "" else str(scenario).strip()
    if not isinstance(scenario, Path) and text.startswith("random:"):
        parts = text.split(":")
        return {"kind": "random", "map_seed": int(parts[1]), "kingdoms": int(parts[2]) if len(parts) > 2 else 3}
    path = scenario_path(scenario if isinstance(scenario, Path) else text)
    return {"kind": "toml", "name": path.stem, "toml": path.read_text(encoding="utf-8")}


def rebuild_first_state(setup: dict[str, Any], seed: int) -> GameState:
    """The first month's state made afresh from a stored setup (setup_for) and the game seed."""
    from kingdoms.scenario import parse_scenario
    from kingdoms.setup import build_state, random_scenario

    if setup.get("kind") == "random":
        scenario = random_scenario(int(setup["map_seed"]), int(setup["kingdoms"]))
    else:
        scenario = parse_scenario(str(setup["toml"]), source=f"<scenario {setup.get('name')} stored in the game>",
                                  name=str(setup.get("name") or ""))
    return build_state(scenario, seed)


class Game:
    """One game file opened by this process; cheap to open, safe to use from several processes at once."""

    def __init__(self, store: GameStore, *, clock: Clock | None = None) -> None:
        self.store = store
        self.clock: Clock = clock or time.time
        meta = store.meta()
        self.meta = meta
        try:
            self.map = GameMap.from_dict(meta["map"])
        except Exception as exc:  # noqa: BLE001 - any failure here means the stored map is unusable
            raise StorageError(f"{store.path} is damaged: its map cannot be read ({type(exc).__name__}): restore "
                               "it from a backup", "damaged") from None
        self._cache: dict[int, GameState] = {}
        self._observations: dict[tuple[int, str], Observation] = {}
        #: the state the last resolution made here and its kingdoms' sights, worked out by its memory phase
        self._month_end: tuple[GameState, dict[str, Sight]] | None = None
        self._facts: dict[int, MonthFacts] = {}  # what the observations of one state share, by month (the last few)
        self.ai_decider: AiDecider | None = None

    # --- creating and opening -----------------------------------------------------------------------

    @classmethod
    def create(cls, path: str | Path, state: GameState, *, scenario: str, controllers: dict[str, str],
               deadline_s: float = DEFAULT_DEADLINE_S, extra_meta: dict[str, Any] | None = None,
               setup: dict[str, Any] | None = None, clock: Clock | None = None) -> tuple[Game, dict[str, str]]:
        """Write a new game file holding `state` as month 1 (or its start month); returns seat tokens.

        All or nothing: the file is written under a temporary name beside `path` and renamed into place once
        complete, so a failure (or a kill) never leaves a half-made game at `path`. `setup` (setup_for) lets
        replay --verify rebuild the first month; the file is readable by its owner only.
        """
        path = Path(path)
        clock = clock or time.time
        if path.exists():
            raise GameError(f"{path} already exists: choose another --out path or delete it")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageError(f"cannot make the directory {path.parent} ({exc.strerror or exc}): choose another "
                               "--out path", "readonly") from exc
        tmp = path.with_name(f".{path.name}.creating-{os.getpid()}")
        remove_game_file(tmp)
        tokens: dict[str, str] = {}
        try:
            store = GameStore(tmp, create=True)
            try:
                with store.write():
                    now = clock()
                    store.set_meta(rules_version=RULES_VERSION, seed=state.seed, scenario=scenario,
                                   map=state.map.to_dict(), deadline_s=deadline_s, start_month=state.month,
                                   created_at=now, month_opened_at=now,
                                   **({"setup": setup} if setup is not None else {}), **(extra_meta or {}))
                    for kid, kd in state.kingdoms.items():
                        token = new_token()
                        tokens[kid] = token
                        store.add_seat(kid, kd.ruler, kd.name, controllers.get(kid, "agent"), token)
                    digest, body = state.stored_form()
                    store.save_month(state.month, body, digest)
                busy, _, _ = store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
                if busy:
                    raise StorageError(f"{tmp} could not be completed (its log could not be folded in): try again",
                                       "io")
            finally:
                store.close()  # the last connection: SQLite folds the -wal into the file and removes it
            try:
                os.link(tmp, path)  # never replaces a file made meanwhile
                tmp.unlink()
            except FileExistsError:
                raise GameError(f"{path} already exists: choose another --out path or delete it") from None
            except OSError:  # a file system without hard links
                os.replace(tmp, path)
            for side in side_files(tmp):
                with contextlib.suppress(FileNotFoundError):
                    side.unlink()
        except BaseException as exc:
            remove_game_file(tmp)
            if isinstance(exc, (OSError, sqlite3.Error)):
                exc = sqlite_problem(path, exc)
            if isinstance(exc, DiskFull):  # said of the game asked for, not of the temporary name
                raise DiskFull(f"disk full: {path} could not be created (no room left on its disk); nothing was left "
                               "behind: free some disk space and try again") from exc
            if isinstance(exc, StorageError) and exc.kind == "readonly":
                raise StorageError(f"{path} cannot be created: its directory is read-only (a read-only directory or "
                                   "file system): choose a writable --out path", "readonly") from exc
            if isinstance(exc, StorageError):
                raise StorageError(str(exc).replace(str(tmp), str(path)), exc.kind) from exc
            raise
        game = cls(GameStore(path), clock=clock)
        game._remember(state.month, state.clone().sort_ids())
        return game, tokens

    @classmethod
    def open(cls, path: str | Path, *, readonly: bool = False, check: bool = False, clock: Clock | None = None,
             busy_timeout: float = DEFAULT_BUSY_TIMEOUT_S) -> Game:
        """Open a game file. `readonly` never writes (info, replay); `check` runs SQLite's integrity check and
        reads the open month's state first, so a damaged file fails here with one StorageError."""
        store = GameStore(path, readonly=readonly, busy_timeout=busy_timeout)
        try:
            if check:
                store.check()
            game = cls(store, clock=clock)
            if check:
                game.state()
            return game
        except BaseException:
            store.close()
            raise

    def close(self) -> None:
        self.store.close()

    # --- reading ------------------------------------------------------------------------------------

    @property
    def month(self) -> int:
        """The month now open for orders (or the final state's month once the game is over)."""
        return self.state().month

    def state(self, month: int | None = None) -> GameState:
        """The state at the start of `month` (default: the latest: the open month, or the final state)."""
        month = self.store.latest_month() if month is None else month
        cached = self._cache.get(month)
        if cached is None:
            data, _ = self.store.month_state(month)
            cached = GameState.from_dict(data, self.map)
            self._remember(month, cached)
        return cached

    def observation(self, kingdom: str, month: int | None = None) -> Observation:
        """The kingdom's Observation of the state at `month` (default: the latest), with the events it was told
        of in the month before (the final month's own, once the game is over). One per kingdom-month and state:
        the AI, the briefing and every tool of the month share it."""
        state = self.state(month)
        key = (state.month, kingdom)
        got = self._observations.get(key)
        if got is None or not got.of(state):
            told = state.month if state.finished else state.month - 1
            facts = self._facts.get(state.month)
            if facts is None or not facts.of(state):  # the kingdoms' sights and the public facts, made once a state
                if len(self._facts) >= 4:
                    del self._facts[next(iter(self._facts))]
                # the month's stored events are read once for all its kingdoms (each observation keeps its own)
                facts = self._facts[state.month] = MonthFacts(state, self._sights_of(state), self.store.events(told))
            got = observe(state, kingdom, facts.events, facts)
            if len(self._observations) > 4 * max(1, len(state.kingdoms)):
                self._observations.clear()
            self._observations[key] = got
        return got

    def _sights_of(self, state: GameState) -> dict[str, Sight] | None:
        """The month-end sights the resolution that made this very state object worked out (None for another)."""
        made = self._month_end
        return made[1] if made is not None and made[0] is state else None

    def _remember(self, month: int, state: GameState) -> None:
        """Keep a few recent stored months' states (the oldest go first), so the open month stays in memory.

        Keyed by the stored month: a finished game's final state keeps its last month's number but is stored
        one month later."""
        self._cache[month] = state
        while len(self._cache) > 4:
            del self._cache[min(self._cache)]

    def seats(self) -> list[dict[str, Any]]:
        return self.store.seats()

    def new_spectator_token(self) -> str:
        """Make the game's spectator token (the live /watch page's, everything but only months that are over) and
        keep only its digest, like the seat tokens; a new one replaces the old."""
        token = new_token()
        digest = token_digest(token)
        self.store.set_meta(spectator_digest=digest)
        self.meta["spectator_digest"] = digest
        return token

    def is_spectator(self, token: str | None) -> bool:
        """True when `token` is the game's spectator token (compared by digest, in constant time)."""
        digest = self.store.meta_value("spectator_digest")
        if not token or not digest:
            return False
        return hmac.compare_digest(token_digest(token.strip()), str(digest))

    def controller(self, kingdom: str) -> str:
        for seat in self.seats():
            if seat["kingdom"] == kingdom:
                return seat["controller"]
        raise GameError(f"no seat for kingdom {kingdom!r}")

    def kingdom_for_token(self, token: str | None) -> str | None:
        if not token:
            return None
        return self.store.seat_for_token(token.strip())

    def queued(self, kingdom: str, month: int | None = None) -> list[Any]:
        """The accepted orders of a kingdom for a month, in the order given (TURN-070)."""
        month = self.month if month is None else month
        return [ORDER_ADAPTER.validate_json(row["parsed"]) for row in self.store.accepted_orders(month, kingdom)]

    @property
    def finished(self) -> bool:
        return self.state().finished

    def events_seen_by(self, kingdom: str, month: int) -> list[dict[str, Any]]:
        """The stored events of `month` that `kingdom` was told (the engine's Event.seen_by decides), in order."""
        return [e for e in self.store.events(month)
                if Event(month, e["kind"], e["text"], e["audience"], e["data"]).seen_by(kingdom)]

    # --- giving orders ------------------------------------------------------------------------------

    def _open_for(self, kingdom: str, month: int | None, *, ended_ok: bool = False) -> GameState:
        """The open month's state, if `kingdom` may still act in it (and it is `month`, when given).

        Raises MonthClosed when the month the caller meant has closed or the seat has ended it (unless
        `ended_ok`), GameError for a finished game or a fallen or unknown kingdom. Inside a write transaction
        the answer holds until it commits.
        """
        state = self.state()
        asked = state.month if month is None else month
        if state.finished:
            raise MonthClosed(f"the game is over (it ended in month {state.month}): no more orders or month ends",
                              month=asked, open_month=None)
        if kingdom not in state.kingdoms:
            raise GameError(f"no kingdom {kingdom!r} in this game")
        if asked != state.month:
            when = "has been resolved" if asked < state.month else "has not opened yet"
            raise MonthClosed(f"month {asked} {when}; month {state.month} is open now. Nothing was queued or "
                              f"ended: look at month {state.month} and give its orders", month=asked,
                              open_month=state.month)
        if state.kingdoms[kingdom].eliminated:
            raise GameError("your kingdom has fallen: it gives no more orders")
        if not ended_ok:
            how = self.store.ended(state.month).get(kingdom)
            if how is not None:
                raise MonthClosed(f"you have already ended month {state.month} ({_HOW.get(how, how)}); nothing was "
                                  f"queued: wait for month {state.month + 1}", month=asked, open_month=state.month,
                                  ended_by=how)
        return state

    def _verdicts(self, state: GameState, kingdom: str, parsed: list[ParseResult]) -> list[Verdict]:
        """Check parsed orders against the board after the kingdom's queued ones (TURN-050)."""
        good = [p for p in parsed if isinstance(p, ParsedOrder)]
        queued = self.queued(kingdom, state.month)
        room = max(0, MAX_QUEUED - len(queued))  # orders beyond it are not even checked (bounded time)
        checks = iter(self.observation(kingdom, state.month).check_orders(queued, [p.order for p in good[:room]]))
        verdicts: list[Verdict] = []
        seen = 0
        for item in parsed:
            if isinstance(item, OrderError):
                verdicts.append(Verdict(item.position, item.text, False, item.message, item.code))
                continue
            text = item.text or format_order(item.order)
            seen += 1
            if seen > room:
                fit = f"only this call's first {room} readable orders fit" if room else "none more fit"
                verdicts.append(Verdict(item.position, echo_text(text), False,
                                        f"a seat queues at most {MAX_QUEUED} orders in one month and you have "
                                        f"{len(queued)} queued for month {state.month}, so {fit}: this one is not "
                                        "queued; give it next month", "queue_full"))
                continue
            res = next(checks)
            verdicts.append(Verdict(item.position, text if res.ok else echo_text(text), res.ok, res.message, res.code))
        return verdicts

    def issue(self, kingdom: str, orders: Any, *, preview: bool = False, month: int | None = None) -> list[Verdict]:
        """Parse and check orders for `kingdom`; queue the accepted ones unless previewing (TURN-050/070/170).

        Checking and queuing are one write transaction that first confirms the month is open, is `month` (the
        month the caller saw, when given) and not ended by this seat: every order a verdict accepts is queued
        for that month and will run at its end. Otherwise MonthClosed, and nothing is queued.
        """
        parsed = parse_orders(orders)  # pure and bounded: outside the transaction
        if preview:
            return self._verdicts(self._open_for(kingdom, month), kingdom, parsed)
        with self.store.write():
            state = self._open_for(kingdom, month)
            verdicts = self._verdicts(state, kingdom, parsed)
            order_of = {p.position: p.order for p in parsed if isinstance(p, ParsedOrder)}
            rows = [{"position": v.position, "raw": v.text,
                     "parsed": json.dumps(ORDER_ADAPTER.dump_python(order_of[v.position], mode="json"))
                     if v.position in order_of else "", "accepted": int(v.ok), "code": v.code or "",
                     "message": v.message} for v in verdicts]
            if rows:
                self.store.add_orders(state.month, kingdom, rows)
        return verdicts

    # --- ending months ------------------------------------------------------------------------------

    def mark_ended(self, kingdom: str, how: str = "ended", *, month: int | None = None) -> int:
        """End the open month for `kingdom` without resolving (it must be `month` when given); returns the month.

        Ending a month the seat has already ended changes nothing. MonthClosed when the month has closed.
        """
        with self.store.write():
            state = self._open_for(kingdom, month, ended_ok=True)
            self.store.mark_ended(state.month, kingdom, how, self.clock())
        return state.month

    def end_month(self, kingdom: str, how: str = "ended", *, month: int | None = None) -> bool:
        """End exactly the open month (`month`, when given) for `kingdom`, then resolve it if every seat has.

        True when a month resolved. MonthClosed (saying which month is open) when that month has closed:
        then nothing is marked, so a seat never ends a month it has not seen.
        """
        self.mark_ended(kingdom, how, month=month)
        return self.try_resolve()

    def waiting_for(self) -> list[str]:
        """Living kingdoms that have not ended the open month."""
        return self._waiting_in(self.state())

    def _waiting_in(self, state: GameState) -> list[str]:
        """waiting_for for the open month's `state` the caller has just read."""
        ended = self.store.ended(state.month)
        return [k for k in state.living() if k not in ended]

    def apply_deadline(self, now: float | None = None, *, not_before: float | None = None) -> list[str]:
        """End the month for seats past the deadline with what they queued (OPEN-78); returns those ended.

        The deadline counts from the month's opening, or from `not_before` when that is later (a server that
        starts long after a game was created does not end its month at once). One write transaction: the
        month whose deadline passed is the month whose seats are ended.
        """
        now = self.clock() if now is None else now
        if not self._deadline_passed(now, not_before):  # a read first: no write lock taken on every tick
            return []
        with self.store.write():
            state = self.state()
            if state.finished or not self._deadline_passed(now, not_before):  # checked again under the lock
                return []
            ended = self.store.ended(state.month)
            late = [k for k in state.living() if k not in ended]
            for kingdom in late:
                self.store.mark_ended(state.month, kingdom, "deadline", now)
        return late

    def _deadline_passed(self, now: float, not_before: float | None) -> bool:
        """Whether the open month's deadline has passed at `now` (counted as apply_deadline says)."""
        opened = float(self.store.meta_value("month_opened_at", now))
        if not_before is not None:
            opened = max(opened, not_before)
        return now - opened >= float(self.meta.get("deadline_s", DEFAULT_DEADLINE_S))

    def deadline_at(self) -> float:
        """When the open month's deadline passes (seconds since the epoch), counted from its opening."""
        opened = float(self.store.meta_value("month_opened_at", self.clock()))
        return opened + float(self.meta.get("deadline_s", DEFAULT_DEADLINE_S))

    def try_resolve(self) -> bool:
        """Resolve the open month if every living seat has ended it; exactly once across processes.

        Once every seat has ended a month no order can join it (issue checks that inside its transaction), so
        the orders read here are all the month's orders.
        """
        state = self.state()
        if state.finished or self._waiting_in(state):  # the state read once: one SELECT MAX(month) fewer a month
            return False
        orders = {k: self.queued(k, state.month) for k in state.kingdoms}
        result = resolve_month(self.rolled(state), orders)
        nxt = result.state
        events = [{"kind": e.kind, "text": e.text, "audience": e.audience, "data": e.data} for e in result.events]
        outcomes = [{"kingdom": o.kingdom, "position": o.position, "text": o.text, "ok": int(o.ok), "result": o.result,
                     "code": o.code or ""} for o in result.outcomes]
        digest, body = nxt.stored_form()
        done = self.store.commit_resolution(state.month, body, digest, events, outcomes,
                                           {"month_opened_at": self.clock()})
        if done:
            self._remember(state.month + 1, nxt)
            self._month_end = (nxt, result.sights)  # its observations take these sights (MonthFacts)
        return done

    def rolled(self, state: GameState) -> GameState:
        """The state a month is resolved from: a fork given a new seed (meta `reseed`: {month, seed}, `kingdoms
        fork --seed`) resolves that month with it, so every later month carries it; the stored state of the fork
        month keeps the original's seed and hash."""
        reseed = self.meta.get("reseed")
        if reseed and state.month == int(reseed["month"]) and state.seed != int(reseed["seed"]):
            state = state.clone()
            state.seed = int(reseed["seed"])
        return state

    def tick(self, *, not_before: float | None = None) -> dict[str, Any]:
        """An operator's step (`kingdoms tick`): apply the deadline, resolve an ended month, let AI seats play.

        Returns what happened: {"month": open month before, "deadline": seats ended by it, "resolved": months
        resolved, "now": open month after}.
        """
        before = self.store.latest_month()
        late = self.apply_deadline(not_before=not_before)
        self.try_resolve()
        self.play_ai_seats()
        after = self.store.latest_month()
        return {"month": self.state(before).month, "deadline": late, "resolved": after - before,
                "now": self.state().month, "finished": self.finished}

    def ai_seats_waiting(self) -> bool:
        """Whether an AI seat has still to play the open month (play_ai_seats would give orders)."""
        state = self.state()
        if state.finished:
            return False
        ended = self.store.ended(state.month)
        return any(seat["controller"].startswith("ai") and seat["kingdom"] not in ended
                   and not state.kingdoms[seat["kingdom"]].eliminated for seat in self.seats())

    def play_ai_seats(self) -> None:
        """Let every AI seat that has not ended the open month give its orders and end it, then resolve the month if
        every seat has ended it.

        One write transaction for it all (the seats' orders, notes and month ends and the resolution, not one for
        each seat and one more for the resolution): no other process can queue, end or resolve meanwhile, and a
        failure leaves the month as it was, to be played again (the AI rulers decide the same from the same state).
        """
        if self.ai_decider is None:
            self.ai_decider = ai_decide
        with self.store.write():
            state = self.state()
            if state.finished:
                return
            ended = self.store.ended(state.month)
            try:
                for seat in self.seats():
                    kid, controller = seat["kingdom"], seat["controller"]
                    if not controller.startswith("ai") or kid in ended or state.kingdoms[kid].eliminated:
                        continue
                    decision = self.ai_decider(self, kid, controller)
                    text = decision if isinstance(decision, str) else decision.orders
                    note = None if isinstance(decision, str) else decision.note
                    # a ruler's order models are queued as they are (their text is the one they were written as)
                    given = text if isinstance(decision, str) or not decision.parsed else list(decision.parsed)
                    if text.strip():
                        self.issue(kid, given, month=state.month)
                    if note:
                        self.store.add_note(state.month, kid, "note", note, self.clock())
                    self.mark_ended(kid, "ai", month=state.month)
            except MonthClosed:
                pass  # the game moved on (a decider of a test may end months): nothing to redo
            self.try_resolve()

    # --- records ------------------------------------------------------------------------------------

    def info(self) -> dict[str, Any]:
        """Month, seats with who has ended, captures, model usage totals, and whether the game is over."""
        state = self.state()
        ended = self.store.ended(state.month)
        caps = captures_of(state)
        usage = self.store.usage_totals()  # model seats' calls and cost (kingdoms.modelseat)
        return {
            "game": str(self.store.path), "month": state.month, "finished": state.finished,
            "end_reason": state.end_reason, "rules_version": self.meta.get("rules_version"),
            "scenario": self.meta.get("scenario"), "seed": self.meta.get("seed"),
            "deadline_at": None if state.finished else self.deadline_at(),
            "seats": [{"kingdom": s["kingdom"], "name": s["name"], "ruler": s["ruler"], "controller": s["controller"],
                       "ended": s["kingdom"] in ended, "eliminated": state.kingdoms[s["kingdom"]].eliminated,
                       "captures": caps.get(s["kingdom"], 0), "result": state.kingdoms[s["kingdom"]].result,
                       "place": state.kingdoms[s["kingdom"]].place, "usage": usage.get(s["kingdom"])}
                      for s in self.seats()],
        }

    def replay(self, *, rebuild: bool = True) -> ReplayReport:
        """Replay every stored month's accepted orders and compare each resulting hash with the stored one.

        With `rebuild`, the first month is first made afresh from the scenario and seed in the meta and checked
        too. Stops at the first month that differs and says what differs (diff_states).
        """
        hashes = self.store.month_hashes()
        months = sorted(hashes)
        if not months:
            raise StorageError(f"{self.store.path} holds no months: its creation was interrupted", "incomplete")
        first = months[0]
        stored = self.state(first)
        report = ReplayReport(ok=True, months=0, first_mismatch=None, hashes=[])
        setup = self.meta.get("setup")
        if rebuild and setup:
            try:
                fresh = rebuild_first_state(setup, int(self.meta.get("seed", stored.seed)))
            except Exception as exc:  # noqa: BLE001 - a scenario this version cannot build is a mismatch to report
                return ReplayReport(False, 0, first, [], [f"month {first} cannot be rebuilt from the stored "
                                                          f"scenario: {exc}"], rebuilt=False)
            report.rebuilt = True
            report.hashes.append(fresh.state_hash())
            if fresh.state_hash() != hashes[first]:
                report.ok, report.first_mismatch = False, first
                report.differences = diff_states(fresh, stored, ("rebuilt", "stored"))
                return report
        else:
            report.note = ("month 1 was not rebuilt: the file does not record its scenario"
                           if rebuild else "month 1 was not rebuilt")
            report.hashes.append(stored.state_hash())
            if stored.state_hash() != hashes[first]:
                report.ok, report.first_mismatch = False, first
                report.differences = ["the stored state of the first month does not match its stored hash"]
                return report
        state = stored
        for month in months[:-1]:
            orders: dict[str, list[Any]] = {k: [] for k in state.kingdoms}
            for row in self.store.accepted_orders(month):
                orders.setdefault(row["kingdom"], []).append(ORDER_ADAPTER.validate_json(row["parsed"]))
            state = resolve_month(self.rolled(state), orders).state
            report.months += 1
            report.hashes.append(state.state_hash())
            if report.hashes[-1] != hashes[month + 1]:
                report.ok, report.first_mismatch = False, month + 1
                try:
                    saved = GameState.from_dict(self.store.month_state(month + 1)[0], self.map)
                    report.differences = diff_states(state, saved)
                    if not report.differences:
                        report.differences = ["the stored state equals the replayed one: the stored hash is wrong"]
                except StorageError as exc:
                    report.differences = [str(exc)]
                return report
        return report
