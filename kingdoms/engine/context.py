"""What one month's resolution carries around: the state being changed, events, per-month scratch data.

Randomness comes only from `MonthContext.rng(purpose)`: a generator seeded from (game seed, month,
purpose), so a roll added in one phase never shifts the rolls of another (determinism, OPEN-74).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kingdoms import ruledata as rd
from kingdoms.state import GameState, Unit


@dataclass(slots=True)
class Event:
    """Something that happened, told to `audience` (kingdom ids) or to everyone when `audience` is None."""

    month: int
    kind: str
    text: str
    audience: list[str] | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def seen_by(self, kingdom: str) -> bool:
        """True when `kingdom` is told of this event (a public one, or one it is in the audience of)."""
        return told_to(self.audience, kingdom)


def told_to(audience: list[str] | None, kingdom: str) -> bool:
    """True when an event with `audience` (None: everyone) is told to `kingdom`; stored events keep the same
    audience, so views.observation filters them with this very test."""
    return audience is None or kingdom in audience


@dataclass(slots=True)
class OrderOutcome:
    """How a queued order fared when carried out at month end."""

    kingdom: str
    position: int
    text: str
    ok: bool
    result: str
    code: str | None = None


class OrderFailed(Exception):
    """Raised by a verb when an order cannot be carried out; `code` is stable, `message` says why and what works."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def rng_for(seed: int, month: int, purpose: str) -> np.random.Generator:
    """The generator for one purpose in one month of one game."""
    return np.random.default_rng(np.random.SeedSequence([seed & 0xFFFFFFFF, seed >> 32, month, zlib.crc32(purpose.encode())]))


class MonthContext:
    """Mutable scratch of one month's resolution (or of an issue-time check when `scratch` is True)."""

    def __init__(self, state: GameState, *, scratch: bool = False, quiet: bool = False) -> None:
        self.state = state
        self.month = state.month
        self.scratch = scratch
        #: a forecast's throwaway month (views.forecast): nothing reads its events' texts or its cities' notes
        #: (City.last), so what only writes those may be skipped; every number of the board is as without it
        self.quiet = quiet
        self.events: list[Event] = []
        self.outcomes: list[OrderOutcome] = []
        self.moves_left: dict[int, float] = {}
        self.attacked: set[int] = set()  # units that made their one attack this month (COMBAT-010)
        self.ordered: set[int] = set()  # units given a new order this month (TURN-120)
        self.cities_attacked: set[int] = set()  # cities assaulted or shot at (SIEGE-140)
        self.shot_at_city: dict[int, set[int]] = {}  # city id -> units that shot at it (SIEGE-100)
        self.blockaded: set[int] = set()  # cities under blockade this month (SIEGE-150), set before production
        self.captured: set[int] = set()  # cities that changed hands this month (CONQ-050: no unrest that month)
        self.sabotaged: set[int] = set()  # cities sabotaged this month (INTEL-170)
        self.fed: dict[int, float] = {}  # dan each unit has eaten this month, from any source (SUPPLY)
        self.broken: set[int] = set()  # troops that broke and fell back this month: no more orders (COMBAT-200)
        self.acting: str | None = None  # kingdom whose orders are running
        #: where each unit stood when the month began: an attack aims at what stood on its tile (COMBAT-320)
        self.start_tiles: dict[int, tuple[int, int]] = {u.id: (u.q, u.r) for u in state.units.values()}
        self.start_camps: frozenset[int] = frozenset(state.camps)  # camps standing when the month began
        #: the memory phase's sight of each living kingdom on the month's final board (MonthResult.sights)
        self.sights: dict[str, Any] = {}
        #: (eco.Board, {city id: eco.CityFrame}) the grain phase read, handed to the growth phase right after it
        #: (cities.grain_phase / growth_phase say when it holds); None when there is none to hand over
        self.after_grain: tuple[Any, dict[int, Any]] | None = None
        self._rngs: dict[str, np.random.Generator] = {}

    def rng(self, purpose: str) -> np.random.Generator:
        gen = self._rngs.get(purpose)
        if gen is None:
            gen = self._rngs[purpose] = rng_for(self.state.seed, self.month, purpose)
        return gen

    def emit(self, kind: str, text: str, audience: list[str] | None = None, **data: Any) -> Event:
        ev = Event(self.month, kind, text, sorted(set(audience)) if audience is not None else None, data)
        self.events.append(ev)
        return ev

    def moves(self, unit: Unit) -> float:
        """Moves the unit has left this month."""
        left = self.moves_left.get(unit.id)
        if left is None:
            left = self.moves_left[unit.id] = float(rd.UNITS[unit.type].moves)
        return left

    def spend(self, unit: Unit, cost: float) -> None:
        self.moves_left[unit.id] = max(0.0, self.moves(unit) - cost)
