"""The game service: one game file, its seats and months, over the engine and storage.

This is the library the interfaces (MCP server, CLI, AI runner, bench) stand on: it parses and checks
orders, queues the accepted ones durably, ends months, resolves a month exactly once when every seat has
ended it (or its deadline passed, OPEN-78), lets AI seats play, and replays a game to verify its hashes.
"""

from __future__ import annotations

import hmac
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kingdoms import RULES_VERSION
from kingdoms.engine.context import Event
from kingdoms.engine.month import resolve_month
from kingdoms.engine.victory import captures as captures_of
from kingdoms.gamemap import GameMap
from kingdoms.orders.models import ORDER_ADAPTER
from kingdoms.orders.syntax import OrderError, ParsedOrder, format_order, parse_orders
from kingdoms.state import GameState
from kingdoms.storage import GameStore, StorageError, token_digest
from kingdoms.views.observation import Observation, observe

DEFAULT_DEADLINE_S = 600.0

#: Decides an AI seat's month: (game, kingdom id, controller name) -> orders text, or a Decision
#: (kingdoms.ai.common: `.orders` text and an optional chronicle `.note`).
AiDecider = Callable[["Game", str, str], Any]


def ai_decide(game: Game, kingdom: str, controller: str) -> Any:
    """The default AiDecider: the scripted ruler named by `controller`, given the seat's Observation."""
    from kingdoms.ai import decide_orders

    return decide_orders(game.observation(kingdom), controller)


class GameError(Exception):
    """A request the game cannot serve (bad seat, finished game...); the message says why."""


@dataclass(slots=True)
class Verdict:
    """The issue-time answer for one order: accepted (with what it will do) or refused (code and reason)."""

    position: int
    text: str
    ok: bool
    message: str
    code: str | None = None


class Game:
    """One game file opened by this process; cheap to open, safe to use from several processes at once."""

    def __init__(self, store: GameStore) -> None:
        self.store = store
        meta = store.meta()
        self.meta = meta
        self.map = GameMap.from_dict(meta["map"])
        self._cache: dict[int, GameState] = {}
        self._observations: dict[tuple[int, str], Observation] = {}
        self.ai_decider: AiDecider | None = None

    # --- creating and opening -----------------------------------------------------------------------

    @classmethod
    def create(cls, path: str | Path, state: GameState, *, scenario: str, controllers: dict[str, str],
               deadline_s: float = DEFAULT_DEADLINE_S, extra_meta: dict[str, Any] | None = None
               ) -> tuple[Game, dict[str, str]]:
        """Write a new game file holding `state` as month 1 (or its start month); returns seat tokens."""
        path = Path(path)
        if path.exists():
            raise GameError(f"{path} already exists: choose another --out path or delete it")
        path.parent.mkdir(parents=True, exist_ok=True)
        store = GameStore(path, create=True)
        store.set_meta(rules_version=RULES_VERSION, seed=state.seed, scenario=scenario, map=state.map.to_dict(),
                       deadline_s=deadline_s, start_month=state.month, created_at=time.time(),
                       month_opened_at=time.time(), **(extra_meta or {}))
        tokens: dict[str, str] = {}
        for kid, kd in state.kingdoms.items():
            controller = controllers.get(kid, "agent")
            token = secrets.token_urlsafe(18)
            tokens[kid] = token
            store.add_seat(kid, kd.ruler, kd.name, controller, token)
        store.save_month(state.month, state.to_dict(), state.state_hash())
        game = cls(store)
        game._remember(state.month, state.clone().sort_ids())
        return game, tokens

    @classmethod
    def open(cls, path: str | Path) -> Game:
        return cls(GameStore(path))

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
            got = observe(state, kingdom, self.events_seen_by(kingdom, told))
            if len(self._observations) > 4 * max(1, len(state.kingdoms)):
                self._observations.clear()
            self._observations[key] = got
        return got

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
        token = secrets.token_urlsafe(18)
        self.store.set_meta(spectator_digest=token_digest(token))
        self.meta["spectator_digest"] = token_digest(token)
        return token

    def is_spectator(self, token: str | None) -> bool:
        """True when `token` is the game's spectator token (compared by digest, in constant time)."""
        digest = self.store.meta_value("spectator_digest")
        return bool(token and digest) and hmac.compare_digest(token_digest(token.strip()), str(digest))

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

    def issue(self, kingdom: str, orders: Any, *, preview: bool = False) -> list[Verdict]:
        """Parse and check orders for `kingdom`; queue the accepted ones unless previewing (TURN-050/070/170)."""
        state = self.state()
        if state.finished:
            raise GameError("the game is over: no more orders")
        if kingdom in self.store.ended(state.month):
            raise GameError(f"you have already ended month {state.month}; wait for the next month")
        parsed = parse_orders(orders)
        good = [p for p in parsed if isinstance(p, ParsedOrder)]
        checks = iter(self.observation(kingdom).check_orders(self.queued(kingdom, state.month),
                                                            [p.order for p in good]))
        verdicts: list[Verdict] = []
        for item in parsed:
            if isinstance(item, OrderError):
                verdicts.append(Verdict(item.position, item.text, False, item.message, item.code))
            else:
                res = next(checks)
                verdicts.append(Verdict(item.position, item.text or format_order(item.order), res.ok, res.message,
                                        res.code))
        if not preview:
            order_of = {p.position: p.order for p in good}
            rows = [{"position": v.position, "raw": v.text,
                     "parsed": json.dumps(ORDER_ADAPTER.dump_python(order_of[v.position], mode="json"))
                     if v.position in order_of else "", "accepted": int(v.ok), "code": v.code or "",
                     "message": v.message} for v in verdicts]
            if rows:
                self.store.add_orders(state.month, kingdom, rows)
        return verdicts

    # --- ending months ------------------------------------------------------------------------------

    def end_month(self, kingdom: str, how: str = "ended") -> bool:
        """Mark the kingdom's month as ended; resolve it if it was the last seat. True when a month resolved."""
        month = self.month
        self.store.mark_ended(month, kingdom, how, time.time())
        return self.try_resolve()

    def waiting_for(self) -> list[str]:
        """Living kingdoms that have not ended the open month."""
        state = self.state()
        ended = self.store.ended(state.month)
        return [k for k in state.living() if k not in ended]

    def apply_deadline(self, now: float | None = None, *, not_before: float | None = None) -> list[str]:
        """End the month for seats past the deadline with what they queued (OPEN-78); returns those ended.

        The deadline counts from the month's opening, or from `not_before` when that is later (a server that
        starts long after a game was created does not end its month at once).
        """
        now = time.time() if now is None else now
        opened = float(self.store.meta_value("month_opened_at", now))
        if not_before is not None:
            opened = max(opened, not_before)
        deadline = float(self.meta.get("deadline_s", DEFAULT_DEADLINE_S))
        late = self.waiting_for() if now - opened >= deadline else []
        for kingdom in late:
            self.store.mark_ended(self.month, kingdom, "deadline", now)
        return late

    def try_resolve(self) -> bool:
        """Resolve the open month if every living seat has ended it; exactly once across processes."""
        state = self.state()
        if state.finished or self.waiting_for():
            return False
        orders = {k: self.queued(k, state.month) for k in state.kingdoms}
        result = resolve_month(self.rolled(state), orders)
        nxt = result.state
        events = [{"kind": e.kind, "text": e.text, "audience": e.audience, "data": e.data} for e in result.events]
        outcomes = [{"kingdom": o.kingdom, "position": o.position, "text": o.text, "ok": int(o.ok), "result": o.result,
                     "code": o.code or ""} for o in result.outcomes]
        done = self.store.commit_resolution(state.month, nxt.to_dict(), nxt.state_hash(), events, outcomes,
                                           {"month_opened_at": time.time()})
        if done:
            self._remember(state.month + 1, nxt)
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

    def play_ai_seats(self) -> None:
        """Let every AI seat that has not ended the open month give its orders and end it."""
        if self.ai_decider is None:
            self.ai_decider = ai_decide
        state = self.state()
        if state.finished:
            return
        ended = self.store.ended(state.month)
        for seat in self.seats():
            kid, controller = seat["kingdom"], seat["controller"]
            if not controller.startswith("ai") or kid in ended or state.kingdoms[kid].eliminated:
                continue
            decision = self.ai_decider(self, kid, controller)
            text = decision if isinstance(decision, str) else decision.orders
            note = None if isinstance(decision, str) else decision.note
            if text.strip():
                self.issue(kid, text)
            if note:
                self.store.add_note(state.month, kid, "note", note, time.time())
            self.store.mark_ended(state.month, kid, "ai", time.time())
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
            "seats": [{"kingdom": s["kingdom"], "name": s["name"], "ruler": s["ruler"], "controller": s["controller"],
                       "ended": s["kingdom"] in ended, "eliminated": state.kingdoms[s["kingdom"]].eliminated,
                       "captures": caps.get(s["kingdom"], 0), "result": state.kingdoms[s["kingdom"]].result,
                       "place": state.kingdoms[s["kingdom"]].place, "usage": usage.get(s["kingdom"])}
                      for s in self.seats()],
        }

    def replay(self) -> tuple[int | None, int]:
        """Replay every stored month's accepted orders from the first stored state.

        Returns (first month whose resulting hash differs, or None; months checked).
        """
        hashes = self.store.month_hashes()
        months = sorted(hashes)
        if not months:
            raise StorageError("the game file holds no months")
        data, _ = self.store.month_state(months[0])
        state = GameState.from_dict(data, self.map)
        if state.state_hash() != hashes[months[0]]:
            return months[0], 0
        checked = 0
        for month in months[:-1]:
            orders: dict[str, list[Any]] = {k: [] for k in state.kingdoms}
            for row in self.store.accepted_orders(month):
                orders.setdefault(row["kingdom"], []).append(ORDER_ADAPTER.validate_json(row["parsed"]))
            state = resolve_month(self.rolled(state), orders).state
            checked += 1
            if state.state_hash() != hashes[month + 1]:
                return month + 1, checked
        return None, checked

