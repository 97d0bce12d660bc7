"""The test kit: hand-made maps and states for the engine, view and game tests, built in one place.

A world is a map (rows of terrain letters, or `width` x `height` of `fill` with letters placed on axial tiles),
kingdoms (numbered city and general names from a pattern, or given lists), optional capitals at the landings,
wars and a rotation. On it tests put cities (through the engine's own founding code, so each takes its ring of
land), units, camps, the Ruin (`kingdoms.setup.found_ruin`) and a kingdom's memory of the board (`reveal`).
A test module's preset world (tests/test_sieges.py's plains with a Shu town, ...) is a call to `world`.

    state = world(corridor(4), width=20)                       # Wei and Shu at war on a lane, no cities
    state = world(rows=ROWS, kingdoms=[kingdom("wei", "Cao Wei", "Cao Cao", (2, 2))], war=False, capitals=True)
    add(state, "wei", "levy", (3, 4), 2_000)                   # 4 months of rations unless told otherwise
    add_city(state, "shu", (9, 7), 20_000, name="Chengdu", focus="food")
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from kingdoms.engine.context import MonthContext
from kingdoms.engine.land import found_city
from kingdoms.engine.month import run_order
from kingdoms.engine.registry import VERBS, load_areas
from kingdoms.gamemap import GameMap, Landmark
from kingdoms.hexgrid import Tile, flat_index
from kingdoms.state import Camp, City, GameState, Kingdom, Unit

#: A kingdom's default name lists: patterns over {name}, {ruler} and {i} (30 cities, 12 generals, from 1).
CITY_NAMES = "{name} {i}"
GENERAL_NAMES = "{name} general {i}"
#: 20 x 14 open grassland: no terrain gets in the way of sight tests.
OPEN_ROWS = ["G" * 20] * 14


# --- maps -------------------------------------------------------------------------------------------------


def rows_with(width: int = 12, height: int = 10, marks: Mapping[Tile, str] | None = None, fill: str = "G", *,
              strict: bool = False) -> list[str]:
    """Rows of `fill` with the letters of `marks` on axial tiles (q, r) (odd-r rows; lower case = river).

    A mark off the map is skipped, or fails the test when `strict`.
    """
    grid = [[fill] * width for _ in range(height)]
    for (q, r), letter in (marks or {}).items():
        i = flat_index(q, r, width, height)
        assert i >= 0 or not strict, f"mark ({q},{r}) is off the {width} x {height} map"
        if i >= 0:
            grid[r][i - r * width] = letter
    return ["".join(row) for row in grid]


def corridor(row: int = 4) -> dict[Tile, str]:
    """Marks walling in row `row` with mountains above and below: a lane along it."""
    return {(q, r): "M" for r in (row - 1, row + 1) for q in range(-10, 20)}


# --- kingdoms and the world -------------------------------------------------------------------------------


def kingdom(kid: str, name: str | None = None, ruler: str | None = None, landing: Tile = (0, 0), *,
            cities: str | list[str] = CITY_NAMES, generals: str | list[str] = GENERAL_NAMES) -> Kingdom:
    """A kingdom; its city and general names are the lists given, or 30 and 12 names made from the patterns."""
    name = name or kid.title()
    ruler = ruler or f"{name} ruler"
    city_names = list(cities) if isinstance(cities, list) else [
        cities.format(name=name, ruler=ruler, i=i) for i in range(1, 31)]
    general_names = list(generals) if isinstance(generals, list) else [
        generals.format(name=name, ruler=ruler, i=i) for i in range(1, 13)]
    return Kingdom(kid, name, ruler, landing, city_names, general_names)


def world(marks: Mapping[Tile, str] | None = None, *, rows: list[str] | GameMap | None = None, width: int = 12,
          height: int = 10, fill: str = "G", bridges: list[Tile] | None = None,
          landmarks: list[Landmark] | None = None, kingdoms: Iterable[Kingdom | str] = ("wei", "shu"),
          seed: int = 5, month: int = 5, war: bool | Iterable[tuple[str, str]] = True,
          rotation: list[str] | None = None, capitals: bool = False, capital_people: int = 15_000,
          capital_grain: float = 150.0) -> GameState:
    """A state on a hand-made map: the kingdoms (ids become kingdom(id)), wars, rotation and optional capitals.

    The map is `rows` (letters or a built GameMap), else `width` x `height` of `fill` with `marks`. `war`: True
    puts wei and shu at war (when both play), False none, or a list of pairs. `rotation` defaults to the kingdoms'
    order. `capitals` founds a capital of `capital_people` and `capital_grain` at each landing, in that order.
    The engine's verbs and phases are loaded, so orders and phases can run at once.
    """
    load_areas()
    if isinstance(rows, GameMap):
        gm = rows
    else:
        gm = GameMap.from_rows(rows if rows is not None else rows_with(width, height, marks, fill), bridges, landmarks)
    kds = {kd.id: kd for kd in (k if isinstance(k, Kingdom) else kingdom(k) for k in kingdoms)}
    if war is True:
        wars = [["shu", "wei"]] if {"shu", "wei"} <= set(kds) else []
    elif war is False:
        wars = []
    else:
        wars = sorted(sorted(pair) for pair in war)
    state = GameState(seed=seed, month=month, kingdoms=kds, map=gm,
                      rotation=list(kds) if rotation is None else list(rotation))
    if capitals:
        for kid, kd in kds.items():
            found_city(state, kid, *kd.landing, people=capital_people, grain=capital_grain, capital=True)
    state.wars = wars
    return state


def open_world(rows: list[str] | None = None, month: int = 5) -> GameState:
    """Cao Wei (landing (2,2)) and Shu Han ((12,10)) at peace on open grassland, no cities: the sight tests' world."""
    return world(rows=rows or OPEN_ROWS, seed=11, month=month, war=False, kingdoms=[
        kingdom("wei", "Cao Wei", "Cao Cao", (2, 2), generals="{ruler} G{i}"),
        kingdom("shu", "Shu Han", "Liu Bei", (12, 10), generals="{ruler} G{i}")])


# --- things on the board ----------------------------------------------------------------------------------


def add_city(state: GameState, owner: str, tile: Tile, people: int = 15_000, grain: float = 150.0, *,
             capital: bool = False, name: str | None = None, founder: str | None = None, **fields: object) -> City:
    """Found a city with its founding ring (the engine's `found_city`), then set any other field (focus=...)."""
    city = found_city(state, owner, tile[0], tile[1], people=people, grain=grain, capital=capital, name=name,
                      founder=founder)
    for key, value in fields.items():
        setattr(city, key, value)
    return city


def add(state: GameState, owner: str, kind: str, tile: Tile, men: int = 0, *, months: float = 4.0,
        **fields: object) -> Unit:
    """Put a unit on `tile` with the next id; its men carry `months` of rations unless `rations` is given."""
    if "rations" not in fields and men:
        fields["rations"] = men / 1000 * months
    unit = Unit(state.new_id(), owner, kind, tile[0], tile[1], men=men, **fields)  # type: ignore[arg-type]
    state.units[unit.id] = unit
    return unit


def camp(state: GameState, owner: str, tile: Tile, grain: float) -> Camp:
    """A supply camp holding `grain` dan."""
    c = Camp(state.new_id(), owner, tile[0], tile[1], grain)
    state.camps[c.id] = c
    return c


def reveal(state: GameState, kingdom_id: str) -> None:
    """Give a kingdom a memory of the whole board as it stands (as if it had seen every tile once)."""
    from kingdoms.engine.intel import update_memory
    from kingdoms.engine.sight import Sight

    n = state.map.size
    update_memory(state, kingdom_id, Sight(kingdom_id, np.ones(n, bool), np.zeros(n, bool), np.zeros(n, bool)))


# --- running things ---------------------------------------------------------------------------------------


def ctx_for(state: GameState, *, scratch: bool = False) -> MonthContext:
    """A month context over `state` (changes apply to it; `scratch` as an issue-time check runs)."""
    return MonthContext(state, scratch=scratch)


def order(ctx: MonthContext, kingdom_id: str, o: object) -> str:
    """Run one order now, as the month runner does (check, then run)."""
    VERBS[o.action].check(ctx, kingdom_id, o)  # type: ignore[attr-defined]
    return run_order(ctx, kingdom_id, o)


class FixedRoll:
    """A stand-in generator whose random() always returns `value` (to test thresholds exactly)."""

    def __init__(self, value: float) -> None:
        self.value = value
        self.calls = 0

    def random(self) -> float:
        """The fixed roll."""
        self.calls += 1
        return self.value
