"""Pure economy calculators on one city: worked tiles, harvest, production, capacity, growth, land, upkeep.

Nothing here changes the state. The month phases (kingdoms.engine.cities), the briefing, get_city and the
CITY SITES report all call these functions, so every number an agent sees comes from the same code
(CITY-020..310, BUILD-080..140, RECRUIT-180, OPEN-6, OPEN-45, OPEN-46, OPEN-47, OPEN-48, OPEN-55, OPEN-56, OPEN-57, OPEN-92, OPEN-102).

A city is read through a `CityFrame`: its people, the flat indices of every tile it holds, its improvements
by tile, the tiles an enemy troop occupies (COMBAT-280) and the men of its own troops on its land. A
hypothetical city (CITY SITES) is just another frame, built from the founding ring, and runs through the very
same functions.
"""

from __future__ import annotations

import array
import math
import weakref
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kingdoms import ruledata as rd
from kingdoms.engine.land import founding_problem, founding_ring
from kingdoms.engine.pathing import base_of
from kingdoms.frozen import record
from kingdoms.gamemap import WATER_CLASSES, GameMap
from kingdoms.hexgrid import Tile, distance, flat_index, spiral
from kingdoms.state import City, GameState, QueueEntry, Unit

EPS = 1e-9
#: People a city needs to raise colonists and keep its floor (OPEN-24, OPEN-101).
COLONIST_CITY_PEOPLE = rd.COLONIST_PEOPLE + rd.MIN_CITY_PEOPLE
#: Improvements that need a tile of given terrain (BUILD-080..110).
IMPROVEMENT_TERRAIN_NAMES = {kind: " or ".join(rd.TERRAINS[t].name for t in codes)
                             for kind, codes in rd.IMPROVEMENT_TERRAIN.items()}


def round_half_up(x: float) -> int:
    """Round to the nearest integer, halves up (OPEN-45, OPEN-99); tolerant of float noise at .5."""
    return int(math.floor(x + 0.5 + EPS))


# --- the map as plain lists (read once per map) -------------------------------------------------------------

#: Per-map cache of (food, prod, r, q) as Python lists: derived from the immutable map only, so it never
#: changes an outcome; it saves numpy scalar reads in the per-tile loops. The lists are read, never written.
_LISTS: weakref.WeakKeyDictionary[GameMap, tuple[list[int], list[int], list[int], list[int]]] = \
    weakref.WeakKeyDictionary()


def _as_list(arr: np.ndarray) -> list[int]:
    """`arr.tolist()` of a flat native int array, by way of array.array: the same ints in fewer instructions."""
    code = arr.dtype.char
    if code in array.typecodes and arr.dtype.isnative and array.array(code).itemsize == arr.itemsize:
        return array.array(code, arr.tobytes()).tolist()
    return arr.tolist()  # pragma: no cover - no such array on the maps we make


def map_lists(gm: GameMap) -> tuple[list[int], list[int], list[int], list[int]]:
    """(food incl. river, production, r, q) of every tile of the map, as lists indexed by flat index.

    r and q depend on the layout alone: a believed map (pathing.derived_map) shares its true map's lists."""
    got = _LISTS.get(gm)
    if got is None:
        base = base_of(gm)
        if base is gm:
            rs, qs = _as_list(gm.r_of), _as_list(gm.q_of)
        else:
            _, _, rs, qs = map_lists(base)
        got = _LISTS[gm] = (_as_list(gm.food), _as_list(gm.prod), rs, qs)
    return got


# --- who stands where ---------------------------------------------------------------------------------------


#: Names of the fighting unit types (UnitType.fighting), for the loops over every unit of a state.
_FIGHTING = frozenset(rd.FIGHTING_TYPES)


def fighting_by_tile(state: GameState) -> dict[int, list[Unit]]:
    """Fighting troops with men, grouped by flat tile index (built once per phase, read by every city).

    One pass over the units, tiles by hexgrid.flat_index (no GameMap.index call: this runs for every board and check)."""
    out: dict[int, list[Unit]] = {}
    gm = state.map
    width, height, fighting = gm.width, gm.height, _FIGHTING
    for unit in state.units.values():
        if unit.men > 0 and unit.type in fighting:
            i = flat_index(unit.q, unit.r, width, height)
            if i >= 0:
                got = out.get(i)
                if got is None:
                    out[i] = [unit]
                else:
                    got.append(unit)
    return out


def _held(owner: np.ndarray, city_id: int) -> list[int]:
    """Flat indices of the tiles `city_id` holds, in map order: np.flatnonzero by the array's own method (the owner
    array is flat; ~9 k fewer instructions than the function's Python wrappers)."""
    return (owner == city_id).nonzero()[0].tolist()


def land_by_city(state: GameState) -> dict[int, list[int]]:
    """Flat indices of every tile each city holds (centre and water included), in map order."""
    owner = state.owner
    held = (owner >= 0).nonzero()[0]  # numpy by the arrays' methods (see _held)
    out: dict[int, list[int]] = {}
    if held.size:
        ids = owner[held]
        order = ids.argsort(kind="stable")
        tiles, ids = held[order].tolist(), ids[order]
        starts = [0, *((ids[1:] != ids[:-1]).nonzero()[0] + 1).tolist()]
        ends = [*starts[1:], len(tiles)]
        for cid, a, b in zip(ids[starts].tolist(), starts, ends, strict=True):
            out[cid] = tiles[a:b]
    return out


def occupies(state: GameState, unit: Unit, city_owner: str) -> bool:
    """True when `unit` stops a tile of `city_owner` working: a fighting troop of a side at war with it (COMBAT-280)."""
    return unit.spec.fighting and unit.men > 0 and state.at_war(unit.owner, city_owner)


@dataclass(slots=True)
class Board:
    """Per-phase index of the board: land of each city and fighting troops by tile (read-only helpers).

    `frames`, when not None, keeps each city's frame once read (`kept`): only for a state nothing changes while
    the board is in use, such as a kingdom's believed board, which is read only."""

    state: GameState
    land: dict[int, list[int]] = field(default_factory=dict)
    troops: dict[int, list[Unit]] = field(default_factory=dict)
    frames: dict[int, CityFrame] | None = None

    @classmethod
    def of(cls, state: GameState) -> Board:
        """Index the state as it stands now."""
        return cls(state, land_by_city(state), fighting_by_tile(state))

    @classmethod
    def kept(cls, state: GameState) -> Board:
        """Index a state that is never changed while the board is used, keeping every city's frame once read (every
        focus, site kind and the budget of a kingdom's month read the same frames). Its land is read city by city
        as asked (`tiles`): a kingdom's board serves its own few cities, not every city on it."""
        return cls(state, {}, fighting_by_tile(state), {})

    def tiles(self, city: City) -> list[int]:
        """Flat indices the city holds, in map order (on a kept board read on first use, as land_by_city has them)."""
        got = self.land.get(city.id)
        if got is None:
            if self.frames is None:
                return []
            got = self.land[city.id] = _held(self.state.owner, city.id)
        return got

    def own_troops_on_land(self, city: City) -> list[Unit]:
        """Fighting troops of the city's owner standing on its land (centre included), by id (CITY-110)."""
        troops, owner = self.troops, city.owner
        found = [u for i in troops.keys() & self.tiles(city) for u in troops[i] if u.owner == owner]  # most: none
        return sorted(found, key=lambda u: u.id)

    def occupied(self, city: City, tiles: Iterable[int] | None = None) -> frozenset[int]:
        """Tiles of the city on which an enemy fighting troop stands (COMBAT-280, OPEN-92)."""
        state = self.state
        tiles = self.tiles(city) if tiles is None else tiles
        troops = self.troops
        return frozenset(i for i in troops.keys() & tiles for u in troops[i] if occupies(state, u, city.owner))


# --- one city's frame ---------------------------------------------------------------------------------------


@record
class CityFrame:
    """What the economy reads about one city (real or hypothetical)."""

    state: GameState
    city: City
    people: int
    centre: int
    tiles: tuple[int, ...]  # every tile held, centre included
    improvements: Mapping[int, str]  # flat index -> farm / granary / workshop
    occupied: frozenset[int] = frozenset()
    troop_men: int = 0  # men of the owner's fighting troops on its land (they eat from its granary)
    court: bool = False  # the capital's +8 (CITY-230)
    foods: dict[int, int] = field(init=False, repr=False, compare=False)
    prods: dict[int, int] = field(init=False, repr=False, compare=False)
    lists: tuple[list[int], list[int], list[int], list[int]] = field(init=False, repr=False, compare=False)  # map_lists
    #: What the economy works out of the frame's own fields alone, once per frame (the frame is frozen, so an entry
    #: never goes stale): the candidate tiles in food and production order, worked tiles by focus, capacity, land.
    memo: dict[str, Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Tile yields of its land, read once: terrain + river, +1 for a farm; the centre at least 2 / 1 (CITY-080)."""
        lists = map_lists(self.state.map)
        food, prod = lists[0], lists[1]
        tiles = self.tiles
        foods = {i: food[i] for i in tiles}
        for i, kind in self.improvements.items():
            if kind == "farm" and i in foods:
                foods[i] += rd.FARM_FOOD_BONUS
        prods = {i: prod[i] for i in tiles}
        c = self.centre
        foods[c] = max(foods.get(c, food[c]), rd.CENTRE_MIN_FOOD)
        prods[c] = max(prods.get(c, prod[c]), rd.CENTRE_MIN_PROD)
        self.foods, self.prods, self.lists, self.memo = foods, prods, lists, {}  # type: ignore[misc]  # set once, here

    def food(self, i: int) -> int:
        """Food of a tile the city holds: terrain + river, +1 for a farm; the centre at least 2 (CITY-080, BUILD-080)."""
        return self.foods[i]

    def prod(self, i: int) -> int:
        """Production of a tile; the centre at least 1 (CITY-080)."""
        return self.prods[i]

    def working(self, kind: str) -> bool:
        """The city has an improvement of `kind` and no enemy stands on its tile (BUILD-140)."""
        occupied = self.occupied
        for i, k in self.improvements.items():  # a plain loop: called twice per outlook, most cities have none
            if k == kind and i not in occupied:
                return True
        return False

    def has(self, kind: str) -> bool:
        """The city has an improvement of `kind`, working or not (capacity and catapults stay, BUILD-140)."""
        return any(k == kind for k in self.improvements.values())

    def with_people(self, people: int) -> CityFrame:
        """The same city with another number of people (its tile orders and land, which people do not change, kept)."""
        out = CityFrame(self.state, self.city, people, self.centre, self.tiles, self.improvements, self.occupied,
                        self.troop_men, self.court)
        for key in ("orders", "land"):
            if key in self.memo:
                out.memo[key] = self.memo[key]
        return out


def improvements_of(state: GameState, city: City) -> dict[int, str]:
    """The city's improvements by flat tile index."""
    gm = state.map
    out: dict[int, str] = {}
    for imp in city.improvements:
        i = gm.index(imp.q, imp.r)
        if i >= 0:
            out[i] = imp.kind
    return out


def is_court(state: GameState, city: City) -> bool:
    """The city is its kingdom's capital and holds the court (+8 production, CITY-230, OPEN-18)."""
    kd = state.kingdoms.get(city.owner)
    return city.is_capital and kd is not None and kd.capital_id == city.id


def frame(state: GameState, city: City, board: Board | None = None) -> CityFrame:
    """Read a real city from the state (or from a phase's `board` index; a kept board's frame when it has one of
    this very city)."""
    kept = board.frames if board is not None else None
    if kept is not None:
        got = kept.get(city.id)
        if got is not None and got.city is city:
            return got
    gm = state.map
    if board is None:
        board = Board(state, {city.id: _held(state.owner, city.id)}, fighting_by_tile(state))
    tiles = tuple(board.tiles(city))
    centre = gm.index(city.q, city.r)
    on_land = centre in tiles
    if not on_land:
        tiles = (centre, *tiles)
    troops = board.troops
    hit = troops.keys() & tiles
    troop_men, occupied = 0, frozenset[int]()
    if hit:  # most cities: only their garrison's tile. own_troops_on_land's men and occupied's tiles in one pass
        owner, taken = city.owner, []
        for i in hit:
            for u in troops[i]:
                if u.owner == owner:
                    if on_land or i != centre:  # own troops count on its land (a centre it does not hold is not)
                        troop_men += u.men
                elif occupies(state, u, owner):
                    taken.append(i)
        if taken:
            occupied = frozenset(taken)
    f = CityFrame(state, city, city.people, centre, tiles, improvements_of(state, city), occupied, troop_men,
                  is_court(state, city))
    if kept is not None:
        kept[city.id] = f
    return f


# --- worked tiles (CITY-020, CITY-040, OPEN-48, OPEN-92) ----------------------------------------------------


def _keys(f: CityFrame) -> tuple[Callable[[int], tuple[int, ...]], Callable[[int], tuple[int, ...]]]:
    """Sort keys of a city's tiles: most food first (then production), most production first (then food); ties
    lowest r, then lowest q (OPEN-74). The flat index is r * width + a column that grows with q within a row, so
    ordering by it is ordering by (r, q)."""
    foods, prods = f.foods, f.prods

    def food_key(i: int) -> tuple[int, ...]:
        """Most food first."""
        return (-foods[i], -prods[i], i)

    def prod_key(i: int) -> tuple[int, ...]:
        """Most production first."""
        return (-prods[i], -foods[i], i)

    return food_key, prod_key


def worked_count(people: int, available: int) -> int:
    """Tiles worked besides the centre: one per full 3,000 people, never more than available (CITY-020, OPEN-92)."""
    return max(0, min(people // rd.PEOPLE_PER_WORKED_TILE, available))


#: Flat indices below 2 ** _SHIFT pack into one int sort key with a tile's two yields (_orders).
_SHIFT = 21
_LOW = (1 << _SHIFT) - 1


def _orders(f: CityFrame) -> tuple[list[int], list[int]]:
    """The city's workable tiles (not the centre, not occupied) most food first and most production first, as
    _keys orders them; worked out once per frame. Each key is packed into one int, -(first << 42) - (second << 21)
    + i (yields are small and non-negative, indices below 2 ** 21), which sorts as the tuple (-first, -second, i)."""
    got = f.memo.get("orders")
    if got is None:
        centre, occupied, foods, prods = f.centre, f.occupied, f.foods, f.prods
        cands = [i for i in f.tiles if i != centre and i not in occupied]
        if cands and max(cands) <= _LOW:
            s2 = 2 * _SHIFT
            by_food = [k & _LOW for k in sorted([-(foods[i] << s2) - (prods[i] << _SHIFT) + i for i in cands])]
            by_prod = [k & _LOW for k in sorted([-(prods[i] << s2) - (foods[i] << _SHIFT) + i for i in cands])]
        else:
            food_key, prod_key = _keys(f)
            by_food, by_prod = sorted(cands, key=food_key), sorted(cands, key=prod_key)
        got = f.memo["orders"] = (by_food, by_prod)
    return got


def worked_indices(f: CityFrame, focus: str) -> list[int]:
    """Flat indices of the tiles worked besides the centre, in the order the focus picks them (CITY-040).

    food: most food first (then production); production: most production first (then food); balanced:
    alternates, taking the top food tile and then the top production tile. Held water counts (OPEN-48);
    occupied tiles are skipped (OPEN-92). Ties: lowest r, then lowest q (OPEN-74). Kept on the frame by focus.
    """
    return list(_worked_kept(f, focus))


def _worked_kept(f: CityFrame, focus: str) -> tuple[int, ...]:
    """worked_indices as the frame keeps it (a tuple: read, never written), for the economy's own readers."""
    key = "worked:" + focus
    got = f.memo.get(key)
    if got is None:
        got = f.memo[key] = tuple(_worked(f, focus))
    return got


def _worked(f: CityFrame, focus: str) -> list[int]:
    """worked_indices, worked out."""
    by_food, by_prod = _orders(f)
    n = worked_count(f.people, len(by_food))
    if n == 0:
        return []
    if focus == "food":
        return by_food[:n]
    if focus == "production":
        return by_prod[:n]
    picked: list[int] = []
    taken: set[int] = set()
    lists = (by_food, by_prod)
    pos = [0, 0]
    turn = 0
    while len(picked) < n:
        lst = lists[turn]
        while lst[pos[turn]] in taken:
            pos[turn] += 1
        pick = lst[pos[turn]]
        picked.append(pick)
        taken.add(pick)
        turn = 1 - turn
    return picked


# --- harvest, capacity, production (CITY-090, CITY-150, CITY-230, OPEN-6, OPEN-46, OPEN-47) -----------------


def _sized(f: CityFrame) -> tuple[float, float, float, int]:
    """What the frame's people make of it: harvest multiplier, size bonus, drill cap and land reach (CITY-240,
    CITY-300, OPEN-55, OPEN-57); kept on the frame."""
    got = f.memo.get("sized")
    if got is None:
        people = f.people
        got = f.memo["sized"] = (rd.harvest_multiplier(people), rd.size_bonus(people), rd.drill_cap(people),
                                 rd.land_reach(people))
    return got


def harvest_of(f: CityFrame, worked: Iterable[int]) -> float:
    """(3 + centre food + worked food, +3 with a working granary) x harvest multiplier (CITY-090, OPEN-6)."""
    foods = f.foods
    base = rd.HARVEST_BASE + foods[f.centre] + sum([foods[i] for i in worked])
    if f.working("granary"):
        base += rd.GRANARY_HARVEST_BONUS
    return base * _sized(f)[0]


def capacity_of(f: CityFrame) -> int:
    """People the city's land feeds: harvest with every unoccupied tile worked / 0.6 per 1,000 (CITY-150, OPEN-47).
    Kept on the frame."""
    got = f.memo.get("capacity")
    if got is None:
        everything = _orders(f)[0]  # every workable tile (not the centre, not occupied); the food sum is of ints
        got = f.memo["capacity"] = round_half_up(harvest_of(f, everything) * 1000 / rd.PEOPLE_EAT_PER_1000)
    return got


def production_of(f: CityFrame, worked: Iterable[int], focus: str) -> int:
    """round((centre + worked production + workshop) x size bonus x focus x 1.5), at least 1, +8 court (CITY-230).

    The size bonus grows with the square root of the people: one big city outproduces the same land and people
    split (CITY-250). Workshop bonus when working: 1 + 12% of the base production collected (OPEN-46); halves round up (OPEN-45).
    """
    prods = f.prods
    base = prods[f.centre] + sum([prods[i] for i in worked])
    bonus = rd.WORKSHOP_FLAT + rd.WORKSHOP_SHARE * base if f.working("workshop") else 0.0
    raw = (base + bonus) * _sized(f)[1] * rd.FOCUS_PROD[focus] * rd.PROD_FACTOR
    out = max(1, round_half_up(raw))
    return out + rd.COURT_BONUS if f.court else out


def granary_capacity(city: City) -> int:
    """Granary capacity: 300 dan, or 600 with a granary improvement, working or not (CITY-100, BUILD-090, BUILD-140)."""
    return rd.GRANARY_CAP_IMPROVED if any(imp.kind == "granary" for imp in city.improvements) else rd.GRANARY_CAP


def ration_reserve(city: City) -> float:
    """Grain kept back from ration refills: 25% of granary capacity (CITY-110, OPEN-7)."""
    return rd.RATION_RESERVE_SHARE * granary_capacity(city)


def water_class(state: GameState, city: City) -> str:
    """fresh / coast / dry: the water of the site (MAP-160, CITY-140)."""
    return WATER_CLASSES[int(state.map.water_class[state.map.index(city.q, city.r)])]


# --- growth (CITY-120..170, OPEN-56, OPEN-101) --------------------------------------------------------------


def growth_dan(people: int, surplus: float, capacity: int, focus: str, water: str, *, stock: float = math.inf,
               people_limit: int | None = None) -> float:
    """Dan of the surplus turned into people this month (CITY-130, CITY-140, CITY-160, OPEN-56).

    surplus x focus growth share x site water x max(0, 1 - people / capacity), then at most the whole surplus,
    at most (500 + 3% of people) / 240 dan, at most the grain in store, and (while raising colonists with fewer
    than 6,500 people) at most what brings it to `people_limit` more people.
    """
    if surplus <= EPS or capacity <= 0 or people >= capacity:
        return 0.0
    dan = surplus * rd.FOCUS_GROWTH[focus] * rd.WATER_GROWTH[water] * (1.0 - people / capacity)
    dan = min(dan, surplus, (rd.GROWTH_CAP_FLAT + rd.GROWTH_CAP_SHARE * people) / rd.PEOPLE_PER_DAN, max(0.0, stock))
    if people_limit is not None:
        dan = min(dan, max(0, people_limit) / rd.PEOPLE_PER_DAN)
    return max(0.0, dan)


def people_from_dan(dan: float) -> int:
    """New people from grown dan: 240 per dan, rounded half-up (CITY-130, OPEN-99)."""
    return round_half_up(dan * rd.PEOPLE_PER_DAN)


def raising_colonists(city: City) -> bool:
    """The city is raising colonists: they head its queue (CITY-170, CITY-400)."""
    return bool(city.queue) and city.queue[0].item == "colonists"


def growth_block(city: City, blockaded: bool, month: int) -> tuple[str | None, int | None]:
    """Why a city cannot grow in `month`, and the most people it may still gain (CITY-170, OPEN-71, OPEN-101).

    Returns (reason or None, people_limit or None). A city raising colonists with fewer than 6,500 people
    still grows toward 6,500 (the limit); one with more does not grow, nor does one in the month its
    colonists were finished (its ledger's `colonists_done` names that month).
    """
    if city.owner == rd.BANDITS:
        return "bandits never grow", 0
    if city.restless:
        return "restless", 0
    if blockaded:
        return "blockaded", 0
    if city.last.get("colonists_done") == month:
        return "colonists finished this month", 0
    if raising_colonists(city):
        room = COLONIST_CITY_PEOPLE - city.people
        if room <= 0:
            return "raising colonists", 0
        return None, room
    return None, None


# --- land follows people (CITY-340..380, OPEN-55) -----------------------------------------------------------


def land_tile_count(state: GameState, tiles: Iterable[int], centre: int) -> int:
    """Land tiles held besides the centre; water does not count (CITY-290, CITY-360)."""
    is_land = state.map.is_land
    return sum(1 for i in tiles if i != centre and is_land[i])


def next_tile_at(state: GameState, tiles: Collection[int], centre: int, land: int | None = None) -> int | None:
    """People the city needs for its next land tile (OPEN-55); None once it holds 91 tiles (CITY-350).
    `land`: the tiles' land_tile_count, when the caller has it."""
    if len(tiles) >= rd.MAX_CITY_TILES:
        return None
    return rd.next_tile_people(land_tile_count(state, tiles, centre) if land is None else land)


def claim_candidates(state: GameState, city: City, tiles: Iterable[int], people: int) -> list[int]:
    """Free land tiles the city could claim: within its reach and beside its land (OPEN-55, CITY-370)."""
    gm = state.map
    reach = rd.land_reach(people)
    centre = (city.q, city.r)
    held = set(tiles)
    out: set[int] = set()
    for i in held:
        for j in gm.nbr[i]:
            j = int(j)
            if j < 0 or j in held or j in out or state.owner[j] != -1 or not gm.is_land[j]:  # -1: free (land.FREE)
                continue
            if distance(centre, gm.tile(j)) <= reach:
                out.add(j)
    return sorted(out)


def claim_pick(state: GameState, city: City, tiles: Iterable[int], people: int, focus: str) -> int | None:
    """The tile the city's land grows onto next, by focus (CITY-050, CITY-340), or None when hemmed in (CITY-370).

    food: most food first, then production; production: most production first, then food; balanced: it
    alternates by the land it holds — with an even number of land tiles it takes its best food tile, with an
    odd number its best production tile (so new land goes food, production, food...). Then nearest the centre,
    lowest r, lowest q.
    """
    tiles = list(tiles)
    gm = state.map
    cands = claim_candidates(state, city, tiles, people)
    if not cands:
        return None
    centre = (city.q, city.r)
    if focus == "balanced":
        focus = "food" if land_tile_count(state, tiles, gm.index(*centre)) % 2 == 0 else "production"

    foods, prods, rs, qs = map_lists(gm)

    def key(i: int) -> tuple[int, int, int, int, int]:
        food, prod = foods[i], prods[i]
        first, second = (food, prod) if focus == "food" else (prod, food)
        return (-first, -second, distance(centre, (qs[i], rs[i])), rs[i], qs[i])

    return min(cands, key=key)


# --- prices, store cap (CITY-270, RECRUIT-130, RECRUIT-140, OPEN-102) ---------------------------------------


def item_price(item: str, men: int = 0) -> float:
    """Production price of a queue item: troops per 1,000 men (RECRUIT-130), the rest flat (BUILD-010..100);
    production pays for everything a city builds or raises (CITY-260)."""
    if item in rd.BUILDINGS:
        return float(rd.BUILDINGS[item])
    if item in rd.IMPROVEMENTS:
        return float(rd.IMPROVEMENTS[item])
    spec = rd.UNITS[item]
    return spec.cost * men / 1000 if spec.per_1000 else float(spec.cost)


def batch_men(city: City, entry: QueueEntry, cap_left: float | None = None) -> int:
    """Men of the next batch of a troop order: the rest of the order, at most the drill cap left (RECRUIT-140, OPEN-102)."""
    cap = rd.drill_cap(city.people) if cap_left is None else cap_left
    return max(0, min(entry.men, int(cap + EPS)))


def next_payment(city: City, entry: QueueEntry) -> float:
    """What the head item still needs before it is done: a troop's next batch, else the rest of its price."""
    spec = rd.UNITS.get(entry.item)
    if spec is not None and spec.fighting:
        return item_price(entry.item, batch_men(city, entry))
    return max(0.0, item_price(entry.item, entry.men) - entry.paid)


def store_cap(city: City, gross: float) -> float:
    """Production a city may keep: 60 with nothing queued, else the larger of 2 months' gross output and the
    price of its next queued item (CITY-270, OPEN-102); for a troop order that price is its next batch."""
    if not city.queue:
        return float(rd.STORE_EMPTY_CAP)
    head = city.queue[0]
    spec = rd.UNITS.get(head.item)
    price = item_price(head.item, batch_men(city, head)) if spec is not None and spec.fighting else item_price(
        head.item, head.men)
    return max(2.0 * gross, price)


# --- upkeep (RECRUIT-180, OPEN-31) --------------------------------------------------------------------------


def troop_upkeep(men: int) -> float:
    """Upkeep a month of one fighting troop of `men` men: 1 per 1,000 (crews included) + 0.5 (RECRUIT-180)."""
    return rd.UPKEEP_PER_1000 * men / 1000 + rd.UPKEEP_PER_TROOP


def upkeep(state: GameState, kingdom: str) -> float:
    """Army upkeep a month: 1 per 1,000 soldiers (crews included) + 0.5 per fighting troop (RECRUIT-180, OPEN-31)."""
    total, fighting = 0.0, _FIGHTING
    for unit in state.units.values():
        if unit.owner == kingdom and unit.men > 0 and unit.type in fighting:
            total += troop_upkeep(unit.men)
    return total


def is_blockaded(city: City, blockaded: Iterable[int] | None = None) -> bool:
    """The city is blockaded (SIEGE-150, SIEGE-160): in this month's set during the month, else as last settled."""
    if blockaded is not None:
        return city.id in blockaded
    return bool(city.last.get("blockaded"))


def gross_production(state: GameState, city: City, board: Board | None = None) -> int:
    """A city's production this month under its focus; 0 while restless (CITY-230, CONQ-030)."""
    if city.restless:
        return 0
    f = frame(state, city, board)
    return production_of(f, _worked_kept(f, city.focus), city.focus)


@record
class CityBudget:
    """A city's production this month and where it goes before its queue (RECRUIT-190, BUILD-220)."""

    gross: int
    upkeep_share: float  # its share of the kingdom's army upkeep
    blockade_loss: float  # half of what is left, while blockaded (SIEGE-160)
    available: float  # what its queue gets


@record
class KingdomBudget:
    """A kingdom's output and upkeep this month, and each city's budget (RECRUIT-180..200)."""

    output: int
    upkeep: float
    share: float  # upkeep / output, at most 1
    shortfall: float  # upkeep beyond the whole output: x 1,000 men desert (OPEN-32)
    cities: dict[int, CityBudget]


def kingdom_budget(state: GameState, kingdom: str, *, board: Board | None = None,
                   blockaded: Iterable[int] | None = None) -> KingdomBudget:
    """Upkeep taken as the same share of every city's production, then halved while blockaded (RECRUIT-190, BUILD-220).

    Restless cities make nothing and pay no share (OPEN-31). Bandit cities have no budget.
    """
    board = board or Board.of(state)
    blockaded = None if blockaded is None else set(blockaded)
    cities = sorted((c for c in state.cities.values() if c.owner == kingdom), key=lambda c: c.id)
    gross = {c.id: gross_production(state, c, board) for c in cities}
    output = sum(gross.values())
    up = upkeep(state, kingdom)
    if up <= EPS:
        share = 0.0
    elif output <= 0:
        share = 1.0
    else:
        share = min(1.0, up / output)
    budgets: dict[int, CityBudget] = {}
    for c in cities:
        g = gross[c.id]
        paid = g * share
        left = g - paid
        loss = left / 2 if is_blockaded(c, blockaded) else 0.0
        budgets[c.id] = CityBudget(g, paid, loss, left - loss)
    return KingdomBudget(output, up, share, max(0.0, up - output), budgets)


# --- the outlook: one city's month in numbers ---------------------------------------------------------------


@record
class CityOutlook:
    """What a city makes in a month under one focus: the figures of its briefing line (TOOLS-050, CITY-070)."""

    focus: str
    people: int
    worked: tuple[Tile, ...]  # tiles worked besides the centre
    harvest_multiplier: float
    harvest_full: float  # the harvest formula (CITY-090)
    harvest: float  # what goes into the granary: half if restless, none if blockaded (CITY-220, CONQ-030)
    people_eat: float
    troops_eat: float
    net: float  # harvest - people - troops (CITY-120's surplus)
    production: int  # gross production; 0 while restless (CONQ-030)
    size_bonus: float
    capacity: int  # "land feeds N" (CITY-150)
    growth: int  # people gained this month (CITY-130)
    growth_dan: float
    no_growth: str | None  # why it cannot grow, if so (CITY-170)
    granary_cap: int
    store_cap: float
    land_tiles: int
    next_tile_people: int | None
    reach: int
    water: str
    drill_cap: float


def outlook_of(f: CityFrame, focus: str, *, restless: bool = False, blockaded: bool = False,
               grain: float = 0.0, block: tuple[str | None, int | None] = (None, None)) -> CityOutlook:
    """The month of the city in `f` under `focus` (shared by real cities and site reports)."""
    state = f.state
    city = f.city
    gm = state.map
    _, _, rs, qs = f.lists
    worked = _worked_kept(f, focus)
    full = harvest_of(f, worked)
    harvest = 0.0 if blockaded else (full * 0.5 if restless else full)
    people_eat = f.people * rd.PEOPLE_EAT_PER_1000 / 1000
    troops_eat = f.troop_men * rd.SOLDIERS_EAT_PER_1000 / 1000
    net = harvest - people_eat - troops_eat
    gross = 0 if restless else production_of(f, worked, focus)
    capacity = capacity_of(f)
    gcap = granary_capacity(city)
    water = WATER_CLASSES[int(gm.water_class[f.centre])]
    reason, limit = block
    stock = max(0.0, min(grain + harvest, gcap) - people_eat - troops_eat)
    dan = 0.0 if reason is not None else growth_dan(f.people, net, capacity, focus, water, stock=stock,
                                                     people_limit=limit)
    if reason is None and dan <= EPS:
        reason = "at the people its land feeds" if f.people >= capacity else (
            "no surplus" if net <= EPS else None)
    land: int | None = f.memo.get("land")
    if land is None:
        land = f.memo["land"] = land_tile_count(state, f.tiles, f.centre)
    sized = _sized(f)
    return CityOutlook(
        focus=focus,
        people=f.people,
        worked=tuple((qs[i], rs[i]) for i in worked),
        harvest_multiplier=sized[0],
        harvest_full=full,
        harvest=harvest,
        people_eat=people_eat,
        troops_eat=troops_eat,
        net=net,
        production=gross,
        size_bonus=sized[1],
        capacity=capacity,
        growth=people_from_dan(dan),
        growth_dan=dan,
        no_growth=reason,
        granary_cap=gcap,
        store_cap=store_cap(city, gross),
        land_tiles=land,
        next_tile_people=next_tile_at(state, f.tiles, f.centre, land),
        reach=sized[3],
        water=water,
        drill_cap=sized[2],
    )


def city_output(state: GameState, city: City, focus: str | None = None, *, board: Board | None = None,
                blockaded: Iterable[int] | None = None) -> CityOutlook:
    """A city's month under `focus` (its own when None): harvest, eating, net grain, production, growth (CITY-070)."""
    f = frame(state, city, board)
    bl = is_blockaded(city, blockaded)
    return outlook_of(f, focus or city.focus, restless=city.restless, blockaded=bl, grain=city.grain,
                      block=growth_block(city, bl, state.month))


def outlook_all_focuses(state: GameState, city: City, *, board: Board | None = None) -> dict[str, CityOutlook]:
    """The city's output and growth under each of the three focuses (CITY-070)."""
    board = board or Board.of(state)
    return {focus: city_output(state, city, focus, board=board) for focus in rd.FOCUSES}


def carrying_capacity(state: GameState, city: City) -> int:
    """People the city's land feeds ("land feeds N", CITY-150)."""
    return capacity_of(frame(state, city))


def next_tile_people(state: GameState, city: City) -> int | None:
    """People the city needs to claim its next land tile (CITY-350, OPEN-55); None at 91 tiles."""
    f = frame(state, city)
    return next_tile_at(state, f.tiles, f.centre)


# --- improvement sites (BUILD-070..110, BUILD-200) ----------------------------------------------------------


def free_sites(state: GameState, city: City, kind: str, taken: Iterable[Tile] = (), *,
               board: Board | None = None) -> list[Tile]:
    """Tiles of the city's land where an improvement of `kind` could stand, best first (BUILD-070, BUILD-200).

    Not the centre, no improvement on it (nor in `taken`), terrain allowed for the kind. Best: a farm goes
    where the city works (its +1 counts only there, BUILD-120), most food first; a granary nearest the centre
    on the poorest food tile (keeping farm sites free); a workshop nearest the centre. Ties: lowest r, then q.
    """
    f = frame(state, city, board)
    gm = state.map
    _, _, rs, qs = f.lists
    terrain = gm.terrain
    blocked = set(f.improvements) | {gm.index(*t) for t in taken}
    allowed = rd.IMPROVEMENT_TERRAIN[kind]
    sites = [i for i in f.tiles if i != f.centre and i not in blocked and int(terrain[i]) in allowed]
    centre = (city.q, city.r)
    worked = set(_worked_kept(f, city.focus))
    foods, prods = f.foods, f.prods

    def key(i: int) -> tuple[int, ...]:
        """Ties by flat index: (r, q) order, as in _keys."""
        dist = distance(centre, (qs[i], rs[i]))
        if kind == "farm":
            return (0 if i in worked else 1, -foods[i], -prods[i], dist, i)
        if kind == "granary":
            return (dist, foods[i], i)
        return (dist, -prods[i], i)

    return [(qs[i], rs[i]) for i in sorted(sites, key=key)]


# --- progress of the head of the queue (BUILD-230) ----------------------------------------------------------


@record
class HeadProgress:
    """The item a city is building: "ITEM done/cost, months @ prod N/mo" (BUILD-230, TOOLS-050)."""

    item: str
    men: int  # troops still to raise (0 for other items)
    done: float  # production paid in (for troops: the store toward the next batch)
    cost: float  # its price (for troops: the next batch)
    months: int | None  # months to finish at this rate; None when nothing reaches the queue
    per_month: float  # production reaching the queue a month (after upkeep, blockade)

    def text(self) -> str:
        """The briefing's building field."""
        what = f"{self.item}:{self.men}" if self.men else self.item
        when = f"{self.months} mo" if self.months is not None else "never at this rate"
        return f"building {what} {self.done:.0f}/{self.cost:.0f}, {when} @ prod {self.per_month:.1f}/mo"


def head_progress(state: GameState, city: City, available: float | None = None) -> HeadProgress | None:
    """Progress of the head of the queue and the months it still needs (None with an empty queue)."""
    if not city.queue:
        return None
    if available is None:
        available = kingdom_budget(state, city.owner).cities[city.id].available if city.owner in state.kingdoms else 0.0
    head = city.queue[0]
    spec = rd.UNITS.get(head.item)
    months: int | None
    if spec is not None and spec.fighting:
        cost = next_payment(city, head)
        done = min(city.store, cost)
        drill = max(1, int(rd.drill_cap(city.people) + EPS))
        batches = math.ceil(head.men / drill)
        need = item_price(head.item, head.men) - city.store
        by_prod = math.ceil(max(0.0, need) / available - EPS) if available > EPS else (0 if need <= EPS else None)
        months = None if by_prod is None else max(batches, by_prod, 1)
        return HeadProgress(head.item, head.men, done, cost, months, available)
    cost = item_price(head.item, head.men)
    need = cost - head.paid - city.store
    if available > EPS:
        months = max(1, math.ceil(max(0.0, need) / available - EPS))
    else:
        months = 1 if need <= EPS else None
    if head.item == "colonists" and months is not None:
        months = max(months, rd.COLONIST_MIN_MONTHS - head.months)
    return HeadProgress(head.item, 0, head.paid, cost, months, available)


# --- CITY SITES (CITY-450) ----------------------------------------------------------------------------------


@record
class SiteReport:
    """What a city founded on a tile would yield, when new and with all its starting land worked (CITY-450)."""

    tile: Tile
    problem: str | None  # why no city can be founded there (CITY-320), None when it can
    water: str
    ring: tuple[Tile, ...]  # the founding ring: centre, free land and shore (CITY-330)
    land_tiles: int
    at_founding: CityOutlook
    full: CityOutlook  # with the people to work every tile of its ring
    people_fed: int  # "land feeds N" of the new city (CITY-150)


def site_report(state: GameState, q: int, r: int, owner: str | None = None, focus: str = "balanced") -> SiteReport:
    """Build the hypothetical new city on (q, r) — 5,000 founders, 20 dan, its founding ring — and read it (CITY-450).

    The same frame and functions as a real city, so the figures are what the city's line would show once
    founded. With `owner`, enemy troops on the ring count as occupying it (COMBAT-280).
    """
    gm = state.map
    problem = founding_problem(state, q, r)
    if gm.index(q, r) < 0:
        raise ValueError(f"({q},{r}) is off the map")
    ring = tuple(founding_ring(state, q, r))
    city = City(id=-1, name="site", owner=owner or "", founder=owner, q=q, r=r, people=rd.COLONIST_PEOPLE,
                focus=focus, grain=float(rd.COLONIST_GRAIN))
    occupied: frozenset[int] = frozenset()
    if owner is not None:
        troops = fighting_by_tile(state)
        occupied = frozenset(i for i in ring for u in troops.get(i, ()) if occupies(state, u, owner))
    base = CityFrame(state, city, rd.COLONIST_PEOPLE, ring[0], ring, {}, occupied, 0, False)
    founding = outlook_of(base, focus, grain=city.grain)
    full_people = max(rd.COLONIST_PEOPLE, rd.PEOPLE_PER_WORKED_TILE * (len(ring) - 1))
    full = outlook_of(base.with_people(full_people), focus, grain=city.grain)
    return SiteReport(
        tile=(q, r),
        problem=problem,
        water=founding.water,
        ring=tuple(gm.tile(i) for i in ring),
        land_tiles=founding.land_tiles,
        at_founding=founding,
        full=full,
        people_fed=founding.capacity,
    )


def site_ceilings(gm: GameMap, focus: str = "balanced", at: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per tile (or per flat index in `at`), a ceiling on what a site report under `focus` can show there (CITY-450,
    CITY-150, CITY-230): its people fed and full production worked out as site_report does, with every neighbour
    on the map in the ring.

    A ring is the centre and the free neighbours (CITY-330), and both figures only grow with the ring (yields are
    never negative, the size bonus grows with the people who work it, rounding keeps order), so the ceiling is never
    below the report, and equals it where every neighbour is free: a planner may skip the tiles whose ceiling cannot
    beat a site it holds. A pure function of the map (a planner asks for its few candidates, so nothing is kept).
    """
    n = gm.size
    idx = np.arange(n) if at is None else np.asarray(at, dtype=np.int64)
    food = np.append(np.maximum(gm.food.astype(np.int64), 0), 0)
    prod = np.append(np.maximum(gm.prod.astype(np.int64), 0), 0)
    around = gm.nbr[idx]
    on_map = around >= 0
    nbr = np.where(on_map, around, n)
    ring_food = food[nbr].sum(axis=1)
    ring_prod = prod[nbr].sum(axis=1)
    # people fed: capacity_of on the founding frame (its 5,000 people work every tile of the ring), rounded as it is
    harvest = (rd.HARVEST_BASE + np.maximum(food[idx], rd.CENTRE_MIN_FOOD) + ring_food) * rd.harvest_multiplier(
        rd.COLONIST_PEOPLE)
    feeds = np.floor(harvest * 1000 / rd.PEOPLE_EAT_PER_1000 + 0.5 + EPS)
    # full production: production_of with the people to work k ring tiles (k neighbours), each of them worked
    bonus = np.array([rd.size_bonus(max(rd.COLONIST_PEOPLE, rd.PEOPLE_PER_WORKED_TILE * k)) for k in range(7)])
    raw = ((np.maximum(prod[idx], rd.CENTRE_MIN_PROD) + ring_prod) + 0.0) * bonus[on_map.sum(axis=1)] * rd.FOCUS_PROD[
        focus] * rd.PROD_FACTOR
    production = np.maximum(1.0, np.floor(raw + 0.5 + EPS))
    return feeds, production


def rank_sites(reports: Iterable[SiteReport], origin: Tile | None = None) -> list[SiteReport]:
    """Legal sites best first: people fed, then production with its starting land worked, then distance (OPEN-89)."""
    legal = [s for s in reports if s.problem is None]

    def key(s: SiteReport) -> tuple[int, int, int, int, int]:
        dist = distance(origin, s.tile) if origin is not None else 0
        return (-s.people_fed, -s.full.production, dist, s.tile[1], s.tile[0])

    return sorted(legal, key=key)


def sites_near(state: GameState, origin: Tile, radius: int, owner: str | None = None,
               known: np.ndarray | None = None, limit: int = 5) -> list[SiteReport]:
    """The best legal city sites within `radius` of `origin` (CITY-450): only tiles in `known` (a flat boolean
    mask of what the kingdom knows) when given."""
    gm = state.map
    reports = []
    for t in spiral(origin, radius):
        i = gm.index(*t)
        if i < 0 or (known is not None and not known[i]) or founding_problem(state, *t) is not None:
            continue
        reports.append(site_report(state, *t, owner))
    return rank_sites(reports, origin)[:limit]
