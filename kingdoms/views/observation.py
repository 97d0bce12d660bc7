"""One kingdom's observation of one month: the only door from the true game state to a seat, an AI or a viewer.

`observe(state, kingdom, recent_events)` returns an `Observation`, the one object holding everything the
kingdom may know this month: its own cities and units in full, the fog-filtered `KingdomView`, the believed
board (engine.belief, the board as the kingdom knows it), what it remembers, its spy reports, the land it can
tell is held, city sites, its own cities' figures with their ALERTs, why a fast_forward must stop, last
month's events it was told of (filtered with the engine's own audience test), and the public facts.
It also offers the engine services a ruler may use on what it knows, all run on the believed board: the
economy of its own cities (`city_output`, `free_sites`, `budget`), site reports, routes and the issue-time
order check. Renderers (views.render) and the AI rulers (kingdoms.ai) read an Observation, never a GameState.

Everything is worked out on first use and kept, so the one observation of a kingdom-month can be shared by
the AI, the briefing and every tool reply (the game service caches it). The true state stays private to
this module (`_state`); tests/test_leaks.py checks that no other view or AI module imports the state types.

`observe_all(state)` is the spectator's view of a finished game: everything, fog-free, for a replay viewer; with
`live=True` the view of a month of a running game that is already over (the live /watch page behind the game's
spectator token: a stored state holds the results of resolved months, never the open month's orders).
"""

from __future__ import annotations

import dataclasses
import math
import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from kingdoms import ruledata as rd
from kingdoms.engine import economy as eco
from kingdoms.engine.belief import believed_state, member_mask
from kingdoms.engine.conquest import hold_down_needed
from kingdoms.engine.context import told_to
from kingdoms.engine.land import FREE, founding_problem
from kingdoms.engine.month import CheckResult, check_orders_on
from kingdoms.engine.pathing import Ground, find_route, months_to_reach, reachable
from kingdoms.engine.sight import Sight, compute_sight, hex_to_mask
from kingdoms.engine.supply import in_supply, ration_months_left, supplying_camps
from kingdoms.engine.visibility import can_see_unit, known_city_ids, known_city_tile, seen_now
from kingdoms.frozen import record
from kingdoms.gamemap import GameMap
from kingdoms.hexgrid import Tile, distance, spiral
from kingdoms.state import GameState, Unit
from kingdoms.views import forecast as fc
from kingdoms.views.common import BATTLE_KINDS, at_war, f1, idle_units, num, strike_threats
from kingdoms.views.kingdom_view import (
    KingdomInfo,
    KingdomView,
    MilitaryBuildings,
    OwnCamp,
    OwnCity,
    OwnGeneral,
    OwnUnit,
    Public,
    RuinInfo,
    SeenCamp,
    SeenCity,
    SeenUnit,
    SpyReport,
    TileView,
    _letters,
    _own_city,
    _own_unit,
    _public,
    _seen_city,
    _terrain_rows,
    build_view,
    build_views,
)

Json = dict[str, Any]

#: Event kinds besides battles that stop a fast_forward (TURN-210, OPEN-91).
STOP_KINDS = ("city_short", "blockade", "city_restless", "city_to_bandits", "troop_hungry", "troop_starved",
              "desertion", "spy_caught")


# =============================================================================================================
# Own-city figures (own affairs are never fogged)
# =============================================================================================================


@dataclass(slots=True)
class QueueHead:
    """The item a city is building now and when it should be done."""

    item: str
    men: int
    tile: Tile | None
    paid: float
    price: float  # whole price (troops: the whole order)
    months: int | None  # months to finish at the current rate, None when production is 0
    waiting: str | None  # why it waited last month, if it did


@dataclass(slots=True)
class CityFigures:
    """The numbers of one own city's row, get_city and the CITY-070 focus comparison."""

    city_id: int
    outlook: Any  # economy.CityOutlook under the city's own focus
    by_focus: dict[str, Any]
    gross: int
    available: float  # production a month its queue gets, after the upkeep share
    store_cap: float
    granary_cap: int
    head: QueueHead | None
    land: frozenset[Tile]
    own_men_on_land: int
    hold_down: int | None  # men needed on its land while restless (CONQ-040)
    militia_full: int
    alerts: list[str] = field(default_factory=list)


@dataclass(slots=True)
class OwnFigures:
    """Figures for every own city, plus the kingdom's production and upkeep."""

    cities: dict[int, CityFigures]
    output: int
    upkeep: float
    upkeep_share: float


def months_to_finish(need: float, available: float, store: float = 0.0) -> int | None:
    """Months until `need` production is paid at `available` a month with `store` in hand (at least 1)."""
    if need <= store + 1e-9:
        return 1
    if available <= 1e-9:
        return None
    return max(1, math.ceil((need - store) / available - 1e-9))


def _head(city: OwnCity, available: float, people: int) -> QueueHead | None:
    """The head of an own city's queue: its price and the months it still needs at `available` a month."""
    if not city.queue:
        return None
    e = city.queue[0]
    item, men, paid = e["item"], int(e.get("men") or 0), float(e.get("paid") or 0.0)
    t = tuple(e["tile"]) if e.get("tile") else None
    spec = rd.UNITS.get(item)
    if spec is not None and spec.fighting:
        price = eco.item_price(item, men)
        cap = max(1.0, rd.drill_cap(people))
        batches = max(1, math.ceil(men / cap - 1e-9))
        pay = months_to_finish(price, available, city.store)
        months = None if pay is None else max(pay, batches)
    elif item == "colonists":
        price = eco.item_price(item)
        pay = months_to_finish(max(0.0, price - paid), available, city.store)
        months = None if pay is None else max(pay, rd.COLONIST_MIN_MONTHS - int(e.get("months") or 0))
    else:
        price = eco.item_price(item, men)
        months = months_to_finish(max(0.0, price - paid), available, city.store)
    return QueueHead(item, men, t, paid, price, months, city.last.get("waiting"))


def _hold_down(city: Any) -> int | None:
    """Men a restless city (state.City) needs on its land to calm down, as the engine counts them (CONQ-040); None
    when it is not restless."""
    return hold_down_needed(city) if city.restless else None


def _neighbours(t: Tile) -> list[Tile]:
    """The six tiles around `t`."""
    q, r = t
    return [(q + 1, r), (q - 1, r), (q + 1, r - 1), (q, r - 1), (q, r + 1), (q - 1, r + 1)]


def _alerts(view: KingdomView, city: OwnCity, fig: CityFigures, hits: list[str], foreign: list[SeenUnit]) -> list[str]:
    """Why a city's row carries an ALERT (OPEN-83)."""
    alerts: list[str] = []
    last = city.last or {}
    recent = int(last.get("month", -1)) >= view.month - 1
    if hits or (recent and last.get("attacked")):
        alerts.append("pillaged" if hits and all(h == "pillaged" for h in hits) else "attacked last month")
    if recent and last.get("blockaded"):
        alerts.append(f"BLOCKADED (enemy men on its land within {rd.BLOCKADE_RADIUS} tiles outnumber garrison + "
                      f"militia: no harvest, half production, walls -{rd.BLOCKADE_CRUMBLE}/mo)")
    near = set(fig.land)
    for t in list(fig.land):
        near.update(_neighbours(t))
    enemies = [u for u in foreign if (u.q, u.r) in near]
    if enemies:
        exact = sum(u.men for u in enemies if u.men is not None)
        sizes = [u.size or "small" for u in enemies if u.men is None]
        said = ([f"{num(exact)} men"] if exact else []) + sizes
        alerts.append(f"{len(enemies)} enemy troop{'s' if len(enemies) > 1 else ''} on or by its land "
                      f"({' + '.join(said)})")
    look = fig.outlook
    short = ""
    if recent and float(last.get("short") or 0) > 0:
        short = "went SHORT of grain"
    elif city.grain + look.net < 0:
        short = "will go SHORT of grain"
    if short:
        best = max(o.net for o in fig.by_focus.values())
        if best <= look.net + 0.05 and look.troops_eat > 0:  # no focus helps: say what does (SUPPLY-040, SUPPLY-100)
            short += (f" (no focus helps: a stocked camp within {rd.CAMP_REACH} tiles feeds its troops first, or "
                      "ship_grain a wagon)")
        elif best <= look.net + 0.05:
            short += " (no focus helps: ship_grain a wagon)"
        alerts.append(short)
    if city.happiness <= 40:
        alerts.append(f"happiness {f1(city.happiness)} (revolt at {rd.REVOLT_HAPPINESS})")
    if city.restless and fig.hold_down is not None and fig.own_men_on_land < fig.hold_down:
        alerts.append(f"restless: needs {num(fig.hold_down)} men on its land, has {num(fig.own_men_on_land)}")
    if not city.queue and city.store + 1e-9 >= fig.store_cap and city.grain + 1e-9 >= fig.granary_cap:
        alerts.append("wasting production (queue empty, store and granary full)")
    return alerts


# =============================================================================================================
# Sites and land
# =============================================================================================================


@dataclass(slots=True)
class Site:
    """A tile where, as far as the kingdom can see, a city could be founded, with its CITY SITES figures."""

    tile: Tile
    water: str
    distance: int | None
    from_name: str | None
    grain_found: float
    prod_found: int
    grain_full: float
    prod_full: int
    feeds: int
    land: int


#: Site reports of legal sites by true map, then by flat index and the site's signature on the believed map. A
#: site passes founding_problem only when it and its six neighbours are free, so its founding ring is every
#: neighbour on the map and its report reads nothing but the terrain and river of those seven tiles and the
#: centre's water class (the believed map's: engine.belief.believed_map plans unexplored ground as grassland).
#: Keyed by those, a report is worked out once per game for each way the kingdom can know its ground, not
#: once per explored mask (a new believed map nearly every month while the kingdom explores).
_SITE_MEMO: weakref.WeakKeyDictionary[GameMap, dict[tuple[int, bytes], eco.SiteReport]] = weakref.WeakKeyDictionary()


def _site_signature_at(known: GameMap, i: int) -> bytes:
    """What a site report on flat index i reads of `known`, as the memo's key: terrain and river of the tile and of
    its six neighbours (255 off the map), and the tile's water class, a byte each (read for that tile alone: a
    believed map is new most months, and a planner asks of a few tiles)."""
    terrain, river, nbr = known.terrain, known.river, known.nbr
    ring = [255 if j < 0 else (int(terrain[j]) * 2 + int(river[j])) & 0xFF for j in nbr[i].tolist()]
    return bytes([(int(terrain[i]) * 2 + int(river[i])) & 0xFF, *ring, int(known.water_class[i]) & 0xFF])


@record
class Land:
    """Who holds which tile as far as the kingdom can tell: its own land in full, other land only in sight.

    The holder of land in sight shows on the tile (inspect_tile) even when the city it belongs to is unknown,
    so `holder` names the kingdom and `city` gives the city's id only for a city the kingdom knows.
    """

    own_city: np.ndarray  # int32 per tile: the own city holding it, -1 elsewhere
    held: np.ndarray  # bool per tile: in sight and held by a city (own land included)
    holder: dict[int, str]  # flat index -> kingdom (or bandits) holding it, for foreign land in sight
    city: dict[int, int]  # flat index -> id of the known city holding it, for foreign land in sight


@record
class PublicFacts:
    """What every kingdom knows: kingdoms and captures (VIC-140), the lead (VIC-160), the Ruin (VIC-130), wars
    (DIPLO-130) and military buildings (BUILD-060)."""

    kingdoms: list[KingdomInfo]
    lead: Json
    ruin: RuinInfo | None
    wars: list[list[str]]
    military_buildings: list[MilitaryBuildings]


def _orders_key(queued: list[Any], new: list[Any]) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The orders of a check as JSON (order models, each with its action), or None for anything else."""
    try:
        return (tuple(o.model_dump_json() for o in queued), tuple(o.model_dump_json() for o in new))
    except AttributeError:
        return None


def events_seen_by(events: Iterable[Mapping[str, Any]], kingdom: str) -> list[dict[str, Any]]:
    """The stored events (dicts with an `audience`, None for public) that `kingdom` was told of (Event.seen_by)."""
    return [dict(e) for e in events if told_to(e.get("audience"), kingdom)]


# =============================================================================================================
# The observation
# =============================================================================================================


class Observation:
    """Everything one kingdom may know at the start of one month, and the engine services it may use on it."""

    def __init__(self, state: GameState, kingdom: str, *, recent_events: Iterable[Mapping[str, Any]] = (),
                 sight: Sight | None = None, public: Public | None = None) -> None:
        if kingdom not in state.kingdoms:
            raise KeyError(f"no kingdom {kingdom!r} in this game")
        self._state = state
        if sight is not None:  # the kingdom's sight of `state`, worked out with the other kingdoms' (MonthFacts)
            self.sight = sight
        self._public_facts = public
        self.kingdom = kingdom
        self.month = state.month
        self.seed = int(state.seed)  # the game's public seed
        self.last_month = state.last_month
        self.finished = state.finished
        self.end_reason = state.end_reason
        self.eliminated = state.kingdoms[kingdom].eliminated
        self.map: GameMap = state.map  # the static map; terrain is known only where explored (view.terrain_rows)
        #: Last month's events the kingdom was told of (TURN-180), as stored: kind, text, audience, data, month.
        self.events: list[dict[str, Any]] = events_seen_by(recent_events, kingdom)
        self._outputs: dict[tuple[int, str], eco.CityOutlook] = {}
        self._free: dict[tuple[int, str], list[Tile]] = {}
        self._checks: dict[tuple[tuple[str, ...], tuple[str, ...]], list[CheckResult]] = {}
        self._defences: dict[int, fc.CityDefence] = {}  # city_defence by city id: a function of this month's
        # believed board, sight and view, none of which change once made (the answer is a frozen dataclass)

    def __repr__(self) -> str:
        """Whose month it is (never the state: a repr may end up in a log or a reply)."""
        return f"Observation({self.kingdom!r}, month {self.month})"

    def of(self, state: GameState) -> bool:
        """True when this observation was made of exactly `state` (the same object): a cache check."""
        return state is self._state

    # --- what the kingdom sees and knows ----------------------------------------------------------------------

    @cached_property
    def sight(self) -> Sight:
        """The kingdom's sight this month (INTEL-010)."""
        return compute_sight(self._state, [self.kingdom])[self.kingdom]

    @cached_property
    def view(self) -> KingdomView:
        """The fog-filtered view (views.kingdom_view): own things in full, foreign things as seen or remembered."""
        return build_view(self._state, self.kingdom, self.sight, self.explored, self._public_facts)

    @cached_property
    def believed(self) -> GameState:
        """The believed board (engine.belief): the one board the engine services below run on. Read only: its own
        cities, units and camps are the true state's objects (shared, not copied); a service that changes a board
        changes a clone of it (check_orders, months_to, the forecasts)."""
        return believed_state(self._state, self.kingdom, self.sight, self.explored, self._known_ids, shared=True)

    @cached_property
    def _known_ids(self) -> frozenset[int]:
        """Ids of the cities the kingdom knows this month (visibility.known_city_ids), shared by `land` and
        `believed`."""
        return frozenset(known_city_ids(self._state, self.kingdom, self.sight))

    @cached_property
    def explored(self) -> np.ndarray:
        """Per tile: on the kingdom's explored map (what it has seen, or sees now). Read only (shared)."""
        kd = self._state.kingdoms[self.kingdom]
        out = hex_to_mask(kd.memory.get("explored", ""), self.map.size) | self.sight.visible
        out.flags.writeable = False
        return out

    @property
    def own_cities(self) -> list[OwnCity]:
        """Its own cities, in full."""
        return self.view.cities

    @property
    def own_units(self) -> list[OwnUnit]:
        """Its own units, in full."""
        return self.view.units

    @property
    def reports(self) -> list[SpyReport]:
        """Its spy reports on foreign cities, the latest of each (INTEL-140)."""
        return self.view.reports

    @property
    def remembered_cities(self) -> list[SeenCity]:
        """Foreign cities out of sight, as last seen (MAP-190)."""
        return [c for c in self.view.foreign_cities if not c.in_sight]

    @property
    def remembered_units(self) -> list[SeenUnit]:
        """Foreign units out of sight, as last seen (MAP-190)."""
        return [u for u in self.view.foreign_units if not u.in_sight]

    @property
    def remembered_camps(self) -> list[SeenCamp]:
        """Foreign camps out of sight, as last seen (MAP-190)."""
        return [c for c in self.view.foreign_camps if not c.in_sight]

    @property
    def public(self) -> PublicFacts:
        """The facts every kingdom knows."""
        v = self.view
        return PublicFacts(v.kingdoms, v.lead, v.ruin, v.wars, v.military_buildings)

    @cached_property
    def land(self) -> Land:
        """Own land in full; land in sight with its holder (and its city when that city is known)."""
        state, kingdom = self._state, self.kingdom
        owner = state.owner
        own_ids = np.array([c.id for c in state.cities.values() if c.owner == kingdom], dtype=np.int32)
        mine = member_mask(owner, own_ids)
        own_city = np.where(mine, owner, -1)
        held = self.sight.visible & (owner >= 0)
        holder: dict[int, str] = {}
        city: dict[int, int] = {}
        known: dict[int, tuple[str, bool]] = {}  # per city id: its holder and whether the kingdom knows it
        known_ids = self._known_ids
        tiles = np.flatnonzero(held & ~mine)
        for i, cid in zip(tiles.tolist(), owner[tiles].tolist(), strict=True):
            got = known.get(cid)
            if got is None:
                c = state.cities.get(cid)
                got = known[cid] = (c.owner, cid in known_ids) if c is not None else (
                    rd.BANDITS, known_city_tile(state, kingdom, cid, self.sight) is not None)
            holder[i] = got[0]
            if got[1]:
                city[i] = cid
        return Land(own_city, held, holder, city)

    def known_city(self, city_id: int) -> OwnCity | SeenCity | None:
        """What the kingdom knows of city `city_id` (own in full, foreign as seen or remembered), None if unknown."""
        state, kingdom = self._state, self.kingdom
        if known_city_tile(state, kingdom, city_id, self.sight) is None:
            return None
        city = state.cities.get(city_id)
        if city is not None and city.owner == kingdom:
            units_here = sorted((u for u in state.units.values() if u.owner == kingdom and u.tile == city.tile),
                                key=lambda u: u.id)
            return _own_city(state, city, units_here)
        if city is not None and self.sight.sees(state.map, city.q, city.r):
            for rec in seen_now(state, kingdom, self.sight).cities:
                if rec["id"] == city_id:
                    return _seen_city(rec, True)
        remembered = (state.kingdoms[kingdom].memory.get("cities") or {}).get(str(city_id))
        if remembered is not None:
            return _seen_city(remembered, False)
        if city is not None:  # the Ruin, or a city holding one of its spies: public / reported facts only
            return SeenCity(city.id, city.name, city.owner, city.q, city.r, None, None, None, None, city.is_ruin, None,
                            state.month, False)
        return None

    def tile(self, q: int, r: int) -> TileView:
        """What the kingdom knows of tile (q, r): terrain if explored, holder and units if in sight (inspect_tile)."""
        state, gm = self._state, self.map
        i = gm.index(q, r)
        if i < 0 or not self.explored[i]:
            return TileView(q, r, False, False, None, None, None, None, None, None, [])
        vis = bool(self.sight.visible[i])
        mark = gm.landmark_at(q, r)
        holder = city_id = None
        cid = int(state.owner[i])
        if vis and cid >= 0:
            holder = state.cities[cid].owner
            if known_city_tile(state, self.kingdom, cid, self.sight) is not None:
                city_id = cid
        units = [u.id for u in sorted(state.units.values(), key=lambda u: u.id)
                 if u.q == q and u.r == r and can_see_unit(state, self.kingdom, u, self.sight)]
        return TileView(q, r, True, vis, rd.TERRAINS[int(gm.terrain[i])].name, bool(gm.river[i]), bool(gm.bridge[i]),
                        mark.name if mark else None, holder, city_id, units)

    def explored_landmarks(self) -> list[tuple[str, str, Tile]]:
        """Named rivers, ranges and lakes the kingdom has explored: (name, kind, its first explored tile) (MAP-140)."""
        out = []
        gm, explored = self.map, self.explored
        for mark in gm.landmarks:
            seen = [t for t in mark.tiles if 0 <= gm.index(*t) and explored[gm.index(*t)]]
            if seen:
                out.append((mark.name, mark.kind, seen[0]))
        return out

    # --- engine services on the believed board ----------------------------------------------------------------

    @cached_property
    def _economy_board(self) -> eco.Board:
        """The economy's index of the believed board (land by city, troops by tile, each city's frame), built once."""
        return eco.Board.kept(self.believed)  # the believed board is read only: its frames are kept

    def _own(self, city_id: int) -> Any:  # -> state.City on the believed board
        """An own city's record on the believed board; KeyError for any other id (the services serve own cities)."""
        city = self.believed.cities.get(city_id)
        if city is None or city.owner != self.kingdom:
            raise KeyError(f"city #{city_id} is not one of {self.kingdom}'s cities")
        return city

    def city_output(self, city_id: int, focus: str | None = None) -> eco.CityOutlook:
        """An own city's month under `focus` (its own when None): economy.city_output on the believed board."""
        city = self._own(city_id)
        key = (city_id, focus or city.focus)
        got = self._outputs.get(key)
        if got is None:
            got = self._outputs[key] = eco.city_output(self.believed, city, focus, board=self._economy_board)
        return got

    def outlooks(self, city_id: int) -> dict[str, eco.CityOutlook]:
        """An own city's output and growth under each focus (CITY-070)."""
        return {focus: self.city_output(city_id, focus) for focus in rd.FOCUSES}

    def free_sites(self, city_id: int, kind: str) -> list[Tile]:
        """Tiles of an own city's land where an improvement of `kind` could stand, best first (BUILD-070)."""
        key = (city_id, kind)
        got = self._free.get(key)
        if got is None:
            got = self._free[key] = eco.free_sites(self.believed, self._own(city_id), kind, board=self._economy_board)
        return list(got)

    def city_land(self, city_id: int) -> frozenset[Tile]:
        """The tiles an own city holds."""
        return frozenset(self.believed.city_tiles(self._own(city_id).id))

    @cached_property
    def upkeep(self) -> float:
        """The kingdom's army upkeep a month (RECRUIT-180): the budget's, without its cities' production."""
        return eco.upkeep(self.believed, self.kingdom)

    @cached_property
    def budget(self) -> eco.KingdomBudget:
        """The kingdom's output and upkeep this month, and each own city's budget (RECRUIT-180..200)."""
        return eco.kingdom_budget(self.believed, self.kingdom, board=self._economy_board)

    def founding_problem(self, q: int, r: int) -> str | None:
        """Why, as far as the kingdom knows, no city can be founded on (q, r); None when one can (CITY-320)."""
        problem = founding_problem(self.believed, q, r)
        if problem is not None:
            return problem
        gm, held = self.map, self.land.held
        i = gm.index(q, r)
        if held[i] or any(j >= 0 and held[j] for j in gm.nbr[i]):
            return f"({q},{r}) is on or beside land held by a city: found on unclaimed land"
        return None

    def site_report(self, q: int, r: int) -> eco.SiteReport:
        """The figures of a city founded on (q, r) as the kingdom knows the land (CITY-450)."""
        return eco.site_report(self.believed, q, r)

    def site_ceilings(self, at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For the flat indices `at` of the believed map: ceilings of a site's people fed and full production under
        the balanced focus `site` reports (economy.site_ceilings), never below what `site` reports there."""
        return eco.site_ceilings(self.believed.map, at=at)

    def months_to_reach(self, unit_id: int, to: Tile) -> int | None:
        """Months a march of an own unit to `to` takes on the believed board (1 = this month), None if unreachable."""
        unit = self.believed.units.get(unit_id)
        if unit is None or unit.owner != self.kingdom:
            raise KeyError(f"unit #{unit_id} is not one of {self.kingdom}'s units")
        return months_to_reach(self.believed, unit, to)

    @cached_property
    def supply(self) -> dict[Tile, tuple[str, int]]:
        """Who would feed a troop of the kingdom standing on each tile in supply this month (SUPPLY-030,
        SUPPLY-040): ("camp", id) within 2 tiles of a stocked own camp (camps feed first, the nearest one), else
        ("city", id) on that own city's land. Tiles out of supply are left out. Own affairs only."""
        board, gm, kingdom = self.believed, self.map, self.kingdom
        out: dict[Tile, tuple[str, int]] = {}
        own = self.land.own_city
        for i in np.flatnonzero(own >= 0).tolist():
            out[gm.tile(i)] = ("city", int(own[i]))
        for camp in sorted(board.camps.values(), key=lambda c: c.id):
            if camp.owner != kingdom or camp.grain <= 1e-9:
                continue
            for t in spiral((camp.q, camp.r), rd.CAMP_REACH):
                if gm.index(*t) < 0 or out.get(t, ("",))[0] == "camp":
                    continue
                feeding = supplying_camps(board, kingdom, t)  # the engine's own pick: the nearest stocked camp
                if feeding:
                    out[t] = ("camp", feeding[0].id)
        return out

    @cached_property
    def blockading(self) -> dict[int, int]:
        """Foreign cities the kingdom's troops blockaded last month, as it was told (SIEGE-150): city id -> its men."""
        out: dict[int, int] = {}
        for e in self.events:
            data = e.get("data") or {}
            if e.get("kind") == "blockading" and data.get("city_id") is not None:
                out[int(data["city_id"])] = int(data.get("men") or 0)
        return out

    def supply_of(self, unit: OwnUnit) -> tuple[str, int | None, float]:
        """Where an own troop eats this month if it stays: ("camp", id, rations months), ("city", id, ...) or
        ("rations", None, months its carried rations last) (SUPPLY-030..090); months are inf for non-eaters."""
        spec = rd.UNITS[unit.type]
        months = unit.rations / (unit.men / 1000) if spec.fighting and unit.men > 0 else math.inf
        kind, sid = self.supply.get((unit.q, unit.r), ("rations", None))
        return kind, sid, min(months, float(rd.MAX_RATION_MONTHS)) if months != math.inf else months

    def months_to(self, unit_id: int, tiles: Iterable[Tile], *, at_war_with: Iterable[str] = ()) -> int | None:
        """Months an own unit needs to stop on the nearest of `tiles` (1 = this month, 0 = it stands on one), None
        if none can be reached; with `at_war_with`, as if at war with those kingdoms (their land open, DIPLO-020):
        the march a declaration would open. engine.pathing.find_route on the believed board (or a copy)."""
        board = self.believed
        unit = board.units.get(unit_id)
        if unit is None or unit.owner != self.kingdom:
            raise KeyError(f"unit #{unit_id} is not one of {self.kingdom}'s units")
        pairs = [sorted([self.kingdom, k]) for k in sorted(set(at_war_with)) if k in board.kingdoms and k != self.kingdom]
        if any(p not in board.wars for p in pairs):
            board = board.clone()
            board.wars.extend(p for p in pairs if p not in board.wars)
            unit = board.units[unit_id]
        g = Ground(board, unit)
        goals = {i for i in (g.index(t) for t in tiles) if i >= 0}
        if not goals:
            return None
        if len(goals) == 1:
            route = find_route(g, goals)
        else:
            gm = self.map
            qs = [int(gm.q_of[i]) for i in goals]
            rs = [int(gm.r_of[i]) for i in goals]
            centre = gm.index(round(sum(qs) / len(qs)), round(sum(rs) / len(rs)))
            if centre < 0:
                centre = min(goals)
            radius = max(distance(g.tile(centre), g.tile(i)) for i in goals)
            route = find_route(g, goals, centre=centre, radius=radius)
        return route.months if route is not None else None

    def check_orders(self, queued: list[Any], new: list[Any]) -> list[CheckResult]:
        """The issue-time check of `new` orders after the `queued` ones (engine.month), on a copy of the believed board.

        A pure function of the orders (the board is this observation's): the last few answers are kept, so the
        check an AI ran on the orders it gives is the check Game.issue runs when it gives them."""
        key = _orders_key(queued, new)
        got = self._checks.get(key) if key is not None else None
        if got is None:
            got = check_orders_on(self.believed.clone(), self.kingdom, queued, new)
            if key is not None:
                if len(self._checks) >= 8:
                    del self._checks[next(iter(self._checks))]
                self._checks[key] = got
        return list(got)

    def reach(self, unit_id: int) -> dict[Tile, int]:
        """Every tile an own unit can march to on the believed board, with the months it takes (0: its own tile;
        engine.pathing.reachable: moves, terrain, rivers, closed borders and the troops it can see)."""
        unit = self.believed.units.get(unit_id)
        if unit is None or unit.owner != self.kingdom:
            raise KeyError(f"unit #{unit_id} is not one of {self.kingdom}'s units")
        g = Ground(self.believed, unit)
        return {g.tile(i): months for i, months in reachable(g).items()}

    def in_supply(self, q: int, r: int) -> bool:
        """A troop of the kingdom on (q, r) eats from a granary or a stocked camp of its own (SUPPLY-010 to SUPPLY-050)."""
        return in_supply(self.believed, self.kingdom, (q, r))

    def ration_months(self, unit_id: int) -> float:
        """Months of food an own troop carries (SUPPLY-070)."""
        unit = self.believed.units.get(unit_id)
        if unit is None or unit.owner != self.kingdom:
            raise KeyError(f"unit #{unit_id} is not one of {self.kingdom}'s units")
        return ration_months_left(unit)

    @staticmethod
    def price(item: str, men: int = 0) -> float:
        """Production an item costs (a troop: for `men` men) (RECRUIT-030, BUILD-010 to BUILD-110)."""
        return eco.item_price(item, men)

    @staticmethod
    def upkeep_of(men: int) -> float:
        """Upkeep a month of one troop of `men` men (RECRUIT-180)."""
        return eco.troop_upkeep(men)

    # --- forecasts on the believed board (views.forecast: the engine's fights on a copy, fog applied) ---------

    def fight(self, attacker: int | fc.Troop, defender: int | fc.Troop, *, at: Tile | None = None,
              defender_at: Tile | None = None) -> fc.FightForecast:
        """A field fight forecast: `attacker` strikes `defender` (unit ids the kingdom knows, or Troops), from `at`
        or the nearest free tile in reach; a foreign troop no scout or spy watches at both ends of its size class
        (COMBAT-410, INTEL-060). combat.field_battle on a copy of the believed board."""
        return fc.fight(self.believed, self.kingdom, self.sight, attacker, defender, at=at, defender_at=defender_at)

    def city_defence(self, city_id: int) -> fc.CityDefence:
        """What the kingdom may know of a foreign city's defence: exact with a spy report from this month or last,
        else its walls as seen, its troops' size class and its size tier's militia (INTEL-030, INTEL-060,
        INTEL-220)."""
        city = self.believed.cities.get(city_id)
        if city is None or city.owner == self.kingdom:
            raise KeyError(f"city #{city_id} is not a foreign city {self.kingdom} knows")
        got = self._defences.get(city_id)
        if got is None:
            seen = next((c for c in self.view.foreign_cities if c.id == city_id), None)
            got = self._defences[city_id] = fc.city_defence(self.believed, self.kingdom, self.sight, city_id, seen)
        return got

    def siege(self, city_id: int, force: Iterable[int | fc.Troop], *, months: int = 6, end: float = 1.0,
              start: Tile | None = None) -> fc.SiegeForecast:
        """A siege forecast of a foreign city by `force` (own unit ids, or Troops), month by month: volleys, assaults,
        towers, repairs and militia as the engine runs them (sieges), on a copy of the believed board, the city
        taken `end` of the way up what is known of it (1: the top, the default; 0: the low end). `start`: the side
        the force comes from."""
        return fc.siege(self.believed, self.kingdom, self.sight, city_id, list(force), self.city_defence(city_id),
                        months=months, end=end, start=start)

    def threat(self, city_id: int, force: Iterable[fc.Troop], by: str, *, months: int = 3,
               start: Tile | None = None, garrison: fc.Troop | None = None) -> fc.SiegeForecast:
        """How an own city would stand a siege by `by` with `force` (Troops: what the kingdom sees coming, at the
        size it takes them for), month by month, as the engine runs it (sieges) on a copy of the believed board;
        with `garrison`, as if that troop held the city instead of its own (a garrison it could raise)."""
        self._own(city_id)
        return fc.siege(self.believed, self.kingdom, self.sight, city_id, list(force), None, months=months,
                        start=start, by=by, garrison_as=garrison)

    # --- sites (CITY-450, get_sites, OPEN-89) --------------------------------------------------------------------

    @cached_property
    def _site_open(self) -> np.ndarray:
        """Per tile: a city may stand there as far as the kingdom can see (what `site` asks, for every tile at once):
        explored, not the Ruin, founding_problem None (terrain, believed land on it and its six neighbours free,
        no land held in sight there), and no known foreign city on it or beside it."""
        gm, board = self.map, self.believed
        n = gm.size
        pad = np.append(np.asarray(board.owner) == FREE, True) & np.append(~self.land.held, True)
        nbr = np.where(gm.nbr >= 0, gm.nbr, n)
        terrain = board.map.terrain
        out = self.explored & (terrain != rd.M) & (terrain != rd.W) & pad[:n] & pad[nbr].all(axis=1)
        view = self.view
        if view.ruin is not None:
            ri = gm.index(view.ruin.q, view.ruin.r)
            if ri >= 0:
                out[ri] = False
        for c in view.foreign_cities:  # a remembered city out of sight still blocks its tile and its ring
            ci = gm.index(c.q, c.r)
            if ci >= 0:
                out[ci] = False
                out[gm.nbr[ci][gm.nbr[ci] >= 0]] = False
        out.flags.writeable = False
        return out

    def site(self, q: int, r: int) -> Site | None:
        """The CITY SITES figures of a tile, or None when, as far as the kingdom can see, no city can stand there."""
        i = self.map.index(q, r)
        rep = self.site_report_at(i)
        if rep is None:
            return None
        dist, name = self._nearest_own_at(i)
        return Site((q, r), rep.water, dist, name, rep.at_founding.net, rep.at_founding.production, rep.full.net,
                    rep.full.production, rep.people_fed, rep.land_tiles)

    def site_report_at(self, i: int) -> eco.SiteReport | None:
        """The site report `site` reads for flat index i, or None where, as far as the kingdom can see, no city can
        stand (a planner weighing many tiles reads this, not the whole Site)."""
        if i < 0:
            return None
        table = self.__dict__.get("_site_open")  # every tile's answer once a listing made it, else this tile's
        if not (table[i] if table is not None else self._site_open_at(i)):
            return None
        memo = self._site_memo
        key = (i, _site_signature_at(self.believed.map, i))  # the ground as the kingdom knows it
        rep = memo.get(key)
        if rep is None:
            q, r = self.map.tile(i)
            rep = memo[key] = self.site_report(q, r)
        return rep

    def _site_open_at(self, i: int) -> bool:
        """_site_open of one tile (flat index i >= 0), worked out for it alone (a planner asks of a few tiles)."""
        gm, board = self.map, self.believed
        terrain = int(board.map.terrain[i])
        if not self.explored[i] or terrain == rd.M or terrain == rd.W:
            return False
        owner, held = board.owner, self.land.held
        around = [int(j) for j in gm.nbr[i] if j >= 0]
        if any(owner[j] != FREE or held[j] for j in (i, *around)):
            return False
        view = self.view
        if view.ruin is not None and gm.index(view.ruin.q, view.ruin.r) == i:
            return False
        for c in view.foreign_cities:  # a remembered city out of sight still blocks its tile and its ring
            ci = gm.index(c.q, c.r)
            if ci == i or (ci >= 0 and ci in around):
                return False
        return True

    @cached_property
    def _site_memo(self) -> dict[tuple[int, bytes], eco.SiteReport]:
        """The game's site reports (_SITE_MEMO)."""
        memo = _SITE_MEMO.get(self.map)
        if memo is None:
            memo = _SITE_MEMO[self.map] = {}
        return memo

    @cached_property
    def _own_places(self) -> list[tuple[Tile, str]]:
        """Own cities, then own colonists, with the names sites are measured from."""
        return [((c.q, c.r), c.name) for c in self.view.cities] + [
            ((u.q, u.r), f"colonists #{u.id}") for u in self.view.units if u.type == "colonists"]

    def _nearest_own_at(self, i: int) -> tuple[int | None, str | None]:
        """The nearest own city or colonists to flat index i: (distance, name), the first of them at that distance
        (cities before colonists); one table made for every tile at once."""
        table = self._nearest_table
        if table is None:
            return None, None
        dist, which = table
        return int(dist[i]), self._own_places[int(which[i])][1]

    @cached_property
    def _nearest_table(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Per tile: the hex distance to the nearest own place (_own_places) and which (the first at that distance)."""
        places = self._own_places
        if not places:
            return None
        gm = self.map
        q = gm.q_of.astype(np.int64)[None, :]
        r = gm.r_of.astype(np.int64)[None, :]
        pq = np.array([t[0] for t, _ in places], dtype=np.int64)[:, None]
        pr = np.array([t[1] for t, _ in places], dtype=np.int64)[:, None]
        dq, dr = q - pq, r - pr
        d = (np.abs(dq) + np.abs(dr) + np.abs(dq + dr)) // 2
        which = d.argmin(axis=0)  # the first of equals, as the loop keeps it
        return d[which, np.arange(gm.size)], which

    def sites(self, *, near: Iterable[Tile] | None = None, radius: int | None = None, limit: int = 25) -> list[Site]:
        """Every site the kingdom knows (explored tiles), best first (OPEN-89): people fed, full production, distance."""
        gm = self.map
        # explored open ground where `site` may find a city's place, near a centre when asked, in map order
        ok = self.explored & np.isin(_letters(gm), ("G", "P", "F", "H", "g", "p", "f", "h")) & self._site_open
        centres = list(near) if near is not None else None
        if centres is not None and radius is not None:
            close = np.zeros(gm.size, dtype=bool)
            q, r = gm.q_of.astype(np.int64), gm.r_of.astype(np.int64)
            for cq, cr in centres:
                dq, dr = q - cq, r - cr
                close |= (np.abs(dq) + np.abs(dr) + np.abs(dq + dr)) // 2 <= radius
            ok &= close
        found = [s for s in (self.site(*gm.tile(i)) for i in np.flatnonzero(ok).tolist()) if s is not None]
        found.sort(key=lambda s: (-s.feeds, -s.prod_full, s.distance if s.distance is not None else 999,
                                  s.tile[1], s.tile[0]))
        return found[:limit]

    # --- own figures, alerts, fast_forward stops -----------------------------------------------------------------

    @cached_property
    def figures(self) -> OwnFigures:
        """Economy figures of the own cities, and the ALERTs of their rows (OPEN-83)."""
        view = self.view
        budget = self.budget
        hit: dict[int, list[str]] = {}
        for ev in self.events:
            cid = (ev.get("data") or {}).get("city_id")
            kind = ev.get("kind", "")
            if cid is None:
                continue
            if kind in ("city_attacked", "pillage", "pillaged", "sabotage", "towers_hit") or "pillag" in kind:
                hit.setdefault(int(cid), []).append("attacked" if "pillag" not in kind else "pillaged")
        foreign = [u for u in view.foreign_units if u.in_sight and rd.UNITS.get(u.type) is not None
                   and rd.UNITS[u.type].fighting and at_war(view, u.owner)]
        out: dict[int, CityFigures] = {}
        for oc in view.cities:
            city = self.believed.cities.get(oc.id)
            if city is None or city.owner != view.kingdom:
                continue
            by_focus = self.outlooks(city.id)
            look = by_focus[city.focus]
            b = budget.cities.get(city.id)
            available = b.available if b is not None else 0.0
            gross = b.gross if b is not None else look.production
            land = self.city_land(city.id)
            men_here = sum(u.men for u in view.units if (u.q, u.r) in land and rd.UNITS[u.type].fighting)
            hold = _hold_down(city)
            fig = CityFigures(
                city_id=city.id, outlook=look, by_focus=by_focus, gross=gross, available=available,
                store_cap=eco.store_cap(city, gross), granary_cap=eco.granary_capacity(city),
                head=_head(oc, available, oc.people), land=land, own_men_on_land=men_here, hold_down=hold,
                militia_full=rd.full_militia(city.people, city.is_capital, view.month),
            )
            fig.alerts = _alerts(view, oc, fig, hit.get(city.id, []), foreign)
            out[city.id] = fig
        return OwnFigures(out, budget.output, budget.upkeep, budget.share)

    def queue_head(self, city_id: int) -> QueueHead | None:
        """The head of an own city's queue, its price and months to go, as its figures show it (`figures`), without
        working out the rest of the figures; None for a city that is not the kingdom's or builds nothing."""
        city = self.believed.cities.get(city_id)
        oc = next((c for c in self.view.cities if c.id == city_id), None)
        if oc is None or city is None or city.owner != self.kingdom:
            return None
        b = self.budget.cities.get(city_id)
        return _head(oc, b.available if b is not None else 0.0, oc.people)

    def hold_down(self, city_id: int) -> int | None:
        """Men an own restless city needs on its land (CONQ-040), as its figures show it; None when it is not
        restless or not the kingdom's."""
        city = self.believed.cities.get(city_id)
        if city is None or city.owner != self.kingdom or not any(c.id == city_id for c in self.view.cities):
            return None
        return _hold_down(city)

    @property
    def alerts(self) -> dict[int, list[str]]:
        """ALERTs of the own cities that carry any, by city id (OPEN-83)."""
        return {cid: fig.alerts for cid, fig in self.figures.cities.items() if fig.alerts}

    def fast_forward_stops(self) -> list[str]:
        """Why a fast_forward must stop at this month (TURN-210, OPEN-91); empty when it may go on."""
        view, figs = self.view, self.figures
        stops: list[str] = []
        for e in self.events:
            kind = e.get("kind", "")
            if kind in BATTLE_KINDS or kind in STOP_KINDS:
                stops.append(f"M{e.get('month', '?')}: {e.get('text', kind)}")
        for c in view.cities:
            fig = figs.cities.get(c.id)
            if fig is None:
                continue
            for a in fig.alerts:
                stops.append(f"#{c.id} {c.name}: {a}")
        for foe, u in strike_threats(view):
            stops.append(f"enemy #{foe.id} {foe.type} can strike your #{u.id}")
        for u in idle_units(view):
            stops.append(f"#{u.id} {u.type} has no orders")
        if view.month >= self.last_month:
            stops.append(f"month {view.month} is the last month")
        return stops


def observe(state: GameState, kingdom: str, recent_events: Iterable[Mapping[str, Any]] = (),
            facts: MonthFacts | None = None) -> Observation:
    """The observation of `kingdom` at the start of `state.month`; `recent_events`: last month's stored events
    (all of them: the observation keeps those the kingdom was told of); `facts`: the MonthFacts of `state`, when
    the caller observes it for several kingdoms."""
    if facts is None:
        return Observation(state, kingdom, recent_events=recent_events)
    if not facts.of(state):
        raise ValueError("these month facts were made of another state")
    return Observation(state, kingdom, recent_events=recent_events, sight=facts.sights.get(kingdom),
                       public=facts.public)


class MonthFacts:
    """What every observation of one state shares: each kingdom's sight (one compute_sight for all of them), the
    public facts (_public) and the stored events its observations tell of. Made of one state object, which must
    not change while it is used (the game service's states of past and open months do not: resolving a month
    makes a new state; a month's events are stored with the state that follows it, once)."""

    def __init__(self, state: GameState, sights: Mapping[str, Sight] | None = None,
                 events: Iterable[Mapping[str, Any]] = ()) -> None:
        """`sights`: kingdoms' sights already worked out on this very state (MonthResult.sights, the memory
        phase's of the board it left); the other kingdoms' (the fallen) are worked out here. `events`: the stored
        events of the month before (the final month's own once the game is over), all of them: each observation
        keeps those its kingdom was told of (observe's `recent_events`)."""
        self._state = state
        self.events: list[Mapping[str, Any]] = list(events)
        given = sights or {}
        missing = [k for k in state.kingdoms if k not in given]
        made = compute_sight(state, missing) if missing else {}
        self.sights: dict[str, Sight] = {k: given[k] if k in given else made[k] for k in state.kingdoms}
        self.public: Public = _public(state)

    def of(self, state: GameState) -> bool:
        """True when these facts were made of exactly `state` (the same object)."""
        return state is self._state


# =============================================================================================================
# The spectator of a finished game
# =============================================================================================================


@dataclass(slots=True)
class SideView:
    """Everything about one side (a kingdom or the bandits), in full."""

    side: str
    cities: list[OwnCity]
    units: list[OwnUnit]
    generals: list[OwnGeneral]
    camps: list[OwnCamp]


@dataclass(slots=True)
class SpectatorView:
    """A finished game seen whole, fog-free (for a replay viewer): every side in full, the whole map, the results,
    and each kingdom's own view of the same month (`views`) for watching the game through its fog."""

    month: int
    end_reason: str | None
    kingdoms: list[KingdomInfo]
    results: dict[str, Json]  # kingdom -> {"result", "place"}
    lead: Json
    ruin: RuinInfo | None
    wars: list[list[str]]
    military_buildings: list[MilitaryBuildings]
    sides: dict[str, SideView]
    width: int
    height: int
    terrain_rows: list[str]
    views: dict[str, KingdomView]
    land: list[int] = field(default_factory=list)  # per tile (map order): id of the city holding it, -1 for none

    def to_dict(self) -> Json:
        """Plain JSON-able data."""
        return dataclasses.asdict(self)


def _side(state: GameState, side: str) -> SideView:
    """One side's cities, units, generals and camps in full."""
    cities = sorted((c for c in state.cities.values() if c.owner == side), key=lambda c: c.id)
    city_by_tile = {c.tile: c.id for c in cities}
    units = sorted((u for u in state.units.values() if u.owner == side), key=lambda u: u.id)
    inside: dict[int, list[Unit]] = {}
    for u in units:
        cid = city_by_tile.get(u.tile)
        if cid is not None:
            inside.setdefault(cid, []).append(u)
    return SideView(
        side=side,
        cities=[_own_city(state, c, inside.get(c.id, [])) for c in cities],
        units=[_own_unit(state, u, city_by_tile.get(u.tile)) for u in units],
        generals=[OwnGeneral(g.id, g.name, g.xp, g.level, g.unit_id, g.city_id)
                  for g in sorted(state.generals.values(), key=lambda g: g.id) if g.owner == side],
        camps=[OwnCamp(c.id, c.q, c.r, c.grain) for c in sorted(state.camps.values(), key=lambda c: c.id)
               if c.owner == side],
    )


def observe_all(state: GameState, *, live: bool = False, kingdom_views: bool = True) -> SpectatorView:
    """The spectator's view: everything, every side in full, the land of every tile.

    Without `live` only for a finished game (ValueError before the end: while a game runs every view of it is a
    kingdom's). `live=True` is the spectator token's view of a running game (the /watch page): the caller passes
    only stored states, each the result of months that are over. `kingdom_views=False` leaves `views` empty
    (a viewer that builds each kingdom's view from its own observation)."""
    if not state.finished and not live:
        raise ValueError(f"the game is still running (month {state.month}): a spectator sees it whole only once "
                         "it is over")
    kingdoms, ruin, military = _public(state)
    others = {c.owner for c in state.cities.values()} | {u.owner for u in state.units.values()}
    others |= {c.owner for c in state.camps.values()}
    sides = list(state.kingdoms) + sorted(others - set(state.kingdoms))
    gm = state.map
    return SpectatorView(
        month=state.month, end_reason=state.end_reason, kingdoms=kingdoms,
        results={k: {"result": kd.result, "place": kd.place} for k, kd in state.kingdoms.items()},
        lead={"kingdom": state.lead.get("kingdom"), "months": int(state.lead.get("months", 0))},
        ruin=ruin, wars=[list(p) for p in state.wars], military_buildings=military,
        sides={s: _side(state, s) for s in sides}, width=gm.width, height=gm.height,
        terrain_rows=_terrain_rows(gm, np.ones(gm.size, dtype=bool)),
        views=build_views(state) if kingdom_views else {}, land=state.owner.tolist(),
    )


__all__ = [
    "CityFigures",
    "Land",
    "MonthFacts",
    "Observation",
    "OwnFigures",
    "PublicFacts",
    "QueueHead",
    "Site",
    "SideView",
    "SpectatorView",
    "events_seen_by",
    "months_to_finish",
    "observe",
    "observe_all",
]
