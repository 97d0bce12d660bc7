"""Hand-made worlds for the intelligence and view tests (tests/test_intel.py, tests/test_views.py)."""

from __future__ import annotations

from kingdoms.engine.context import MonthContext
from kingdoms.engine.land import found_city
from kingdoms.gamemap import GameMap
from kingdoms.state import City, GameState, Kingdom, Unit

#: 20 x 14 open grassland (odd-r rows): no terrain gets in the way of sight tests.
OPEN_ROWS = ["G" * 20] * 14


def kingdom(kid: str, name: str, ruler: str, landing: tuple[int, int]) -> Kingdom:
    """A kingdom with numbered city and general names."""
    return Kingdom(kid, name, ruler, landing, [f"{name} {i}" for i in range(1, 31)],
                   [f"{ruler} G{i}" for i in range(1, 13)])


def world(rows: list[str] | None = None, month: int = 5) -> GameState:
    """Two kingdoms, wei and shu, with no cities yet, at peace, on an open map."""
    gm = GameMap.from_rows(rows or OPEN_ROWS)
    kds = {"wei": kingdom("wei", "Cao Wei", "Cao Cao", (2, 2)), "shu": kingdom("shu", "Shu Han", "Liu Bei", (12, 10))}
    return GameState(seed=11, month=month, kingdoms=kds, map=gm, rotation=["wei", "shu"])


def city(state: GameState, owner: str, q: int, r: int, people: int = 15_000, grain: float = 150.0,
         capital: bool = False, name: str | None = None) -> City:
    """Found a city (with its founding ring) through the engine's own founding code."""
    return found_city(state, owner, q, r, people=people, grain=grain, capital=capital, name=name)


def unit(state: GameState, owner: str, kind: str, q: int, r: int, men: int = 0, **kw) -> Unit:
    """Put a unit on the board with the next id."""
    uid = state.new_id()
    u = Unit(uid, owner, kind, q, r, men=men, **kw)
    state.units[uid] = u
    return u


def ctx_of(state: GameState, scratch: bool = False) -> MonthContext:
    """A month context over `state` (changes apply to it)."""
    return MonthContext(state, scratch=scratch)


class FixedRoll:
    """A stand-in generator whose random() always returns `value` (to test thresholds exactly)."""

    def __init__(self, value: float) -> None:
        self.value = value
        self.calls = 0

    def random(self) -> float:
        """The fixed roll."""
        self.calls += 1
        return self.value


def reveal(state: GameState, kingdom_id: str) -> None:
    """Give a kingdom a memory of the whole board as it stands (as if it had seen every tile once)."""
    import numpy as np

    from kingdoms.engine.intel import update_memory
    from kingdoms.engine.sight import Sight

    n = state.map.size
    update_memory(state, kingdom_id, Sight(kingdom_id, np.ones(n, bool), np.zeros(n, bool), np.zeros(n, bool)))
