"""The hard ruler's reading of its month: one `Analysis`, built once from the Observation and read by every planner.

Nothing here decides anything; it sorts what the kingdom knows into the shapes the planners need: its cities
and who garrisons them, its field troops, scouts, spies, colonists and wagons, its rivals (captures, the lead,
wars, the city taken for each one's capital, their military buildings), the enemy troops seen near each of its
cities (taken at the top of their size class unless watched), the production it makes and the upkeep it pays,
and planning fields over the known map (common.distance_field). Iteration is always in sorted order.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from kingdoms import ruledata as rd
from kingdoms.ai.common import INF, MapInfo, Picture, distance_field, map_info, picture_for
from kingdoms.engine.pathing import slot_of_type
from kingdoms.hexgrid import Tile, distance
from kingdoms.views.kingdom_view import OwnCity, OwnUnit, SeenCity, SeenUnit
from kingdoms.views.observation import Observation

#: Foreign troops this close to an own city count as a threat to it; a big force (LARGE_FORCE men or more) from
#: farther off, WATCH_RADIUS, when it could be aimed at the capital or the Ruin.
THREAT_RADIUS = 4
WATCH_RADIUS = 7
LARGE_FORCE = 5000


@dataclass(slots=True)
class Rival:
    """A living rival as the kingdom knows it."""

    id: str
    name: str
    captures: int
    at_war: bool
    capital: SeenCity | None  # its first known city: taken for its capital
    cities: list[SeenCity] = dataclasses.field(default_factory=list)
    military: set[str] = dataclasses.field(default_factory=set)  # its public military buildings (BUILD-060)
    seen_men: int = 0  # its fighting men in sight now (top of class unless watched)


@dataclass(slots=True)
class Threat:
    """Foreign fighting troops seen near one own city."""

    city_id: int
    men: int
    units: list[SeenUnit]
    owners: list[str]
    nearest: int  # hex distance of the nearest


def seen_men(u: SeenUnit) -> int:
    """A foreign troop's men as the kingdom must reckon them: exact when watched, else the top of its class."""
    if u.men is not None:
        return int(u.men)
    return rd.SIZE_CLASS_RANGE.get(u.size or "small", (1, 1999))[1]


@dataclass(slots=True)
class Analysis:
    """Everything the planners read this month, sorted out of the Observation."""

    obs: Observation
    pic: Picture
    mi: MapInfo
    month: int
    kingdom: str
    cities: list[OwnCity]
    city_by_id: dict[int, OwnCity]
    capital: OwnCity
    garrison: dict[int, OwnUnit]  # city id -> the troop standing in it
    field: list[OwnUnit]  # fighting troops outside cities, and every siege train
    scouts: list[OwnUnit]
    spies: list[OwnUnit]
    colonists: list[OwnUnit]
    wagons: list[OwnUnit]
    rivals: dict[str, Rival]
    enemies: set[str]
    captures: int
    best_rival_captures: int
    leader: str | None
    lead_months: int
    threats: dict[int, Threat]
    output: int
    upkeep: float
    queued_men: dict[str, int]
    queued_items: dict[str, int]
    buildings: set[str]  # buildings and improvements in any own city
    foreign_units: list[SeenUnit]
    home: np.ndarray  # planning move cost from the own cities over the known map
    closed: np.ndarray  # land known to be closed to our troops (kingdoms at peace)
    extra: dict[str, object] = dataclasses.field(default_factory=dict)
    #: field_from by tile: the picture and its troop costs do not change within the month's decision
    _fields: dict[Tile, np.ndarray] = dataclasses.field(default_factory=dict, repr=False)

    # --- small lookups -----------------------------------------------------------------------------------------

    def idx(self, tile: Tile) -> int:
        return self.mi.index(tile[0], tile[1])

    def tile_of(self, i: int) -> Tile:
        return self.mi.tile(i)

    @property
    def leading(self) -> bool:
        return self.captures > self.best_rival_captures

    @property
    def months_left(self) -> int:
        return rd.LAST_MONTH - self.month

    def unit(self, unit_id: int) -> OwnUnit | None:
        return self.pic.unit_by_id.get(unit_id)

    def city_tile(self, city: OwnCity | SeenCity) -> Tile:
        return (city.q, city.r)

    def field_from(self, tile: Tile) -> np.ndarray:
        """Planning move cost from `tile` over the known map (memoised per map, and per tile for this decision)."""
        got = self._fields.get(tile)
        if got is None:
            got = self._fields[tile] = distance_field(self.mi, [self.idx(tile)], self.pic.troop_costs())
        return got

    def near_own(self, tile: Tile) -> OwnCity:
        """The own city nearest `tile` (hex distance, then id)."""
        return min(self.cities, key=lambda c: (distance((c.q, c.r), tile), c.id))

    def free_beside(self, tile: Tile, slot: str = "troop", *, own_land: bool = False, radius: int = 1,
                    taken: set[Tile] | None = None) -> list[Tile]:
        """Tiles within `radius` of `tile` (not itself) a unit of `slot` may stop on as far as we know, nearest
        first then lowest r, q."""
        mi, pic = self.mi, self.pic
        c = self.idx(tile)
        out = []
        for j in mi.within(c, radius).tolist():
            if j == c or not pic.visible[j] and not pic.own_land[j]:
                continue
            if own_land and not pic.own_land[j]:
                continue
            t = mi.tile(j)
            if taken and t in taken:
                continue
            if pic.can_stop(j, slot):
                out.append(t)
        out.sort(key=lambda t: (distance(t, tile), t[1], t[0]))
        return out


def analyse(obs: Observation) -> Analysis:
    """The month's analysis of the kingdom's observation."""
    pic = picture_for(obs)
    mi = map_info(obs.map)
    view = obs.view
    cities = sorted(view.cities, key=lambda c: c.id)
    city_by_id = {c.id: c for c in cities}
    capital = city_by_id.get(view.capital_id) if view.capital_id is not None else None
    capital = capital or cities[0]
    garrison: dict[int, OwnUnit] = {}
    fld: list[OwnUnit] = []
    scouts: list[OwnUnit] = []
    spies: list[OwnUnit] = []
    colonists: list[OwnUnit] = []
    wagons: list[OwnUnit] = []
    for u in sorted(view.units, key=lambda x: x.id):
        spec = rd.UNITS[u.type]
        if u.type == "scout":
            scouts.append(u)
        elif u.type == "spy":
            spies.append(u)
        elif u.type == "colonists":
            colonists.append(u)
        elif u.type == "wagon":
            wagons.append(u)
        elif spec.fighting:
            if u.in_city is not None and slot_of_type(u.type) == "troop":
                garrison[u.in_city] = u
            else:
                fld.append(u)
    captures = {k.id: k.captures for k in view.kingdoms}
    enemies = set(pic.enemies) - {rd.BANDITS}
    first: dict[str, SeenCity] = {}
    for fc in sorted(view.foreign_cities, key=lambda c: c.id):
        if not fc.ruin and fc.owner in captures:
            first.setdefault(fc.owner, fc)
    rivals: dict[str, Rival] = {}
    for k in view.kingdoms:
        if k.id == obs.kingdom or k.eliminated:
            continue
        rivals[k.id] = Rival(k.id, k.name, k.captures, k.id in enemies, first.get(k.id))
    for fc in sorted(view.foreign_cities, key=lambda c: c.id):
        if fc.owner in rivals:
            rivals[fc.owner].cities.append(fc)
    for mb in view.military_buildings:
        if mb.kingdom in rivals:
            rivals[mb.kingdom].military |= set(mb.buildings)
    foreign = [u for u in view.foreign_units if u.in_sight]
    for fu in foreign:
        if fu.owner in rivals and rd.UNITS[fu.type].fighting:
            rivals[fu.owner].seen_men += seen_men(fu)
    best = max((r.captures for r in rivals.values()), default=0)
    lead = view.lead or {}
    threats: dict[int, Threat] = {}
    for c in cities:
        radius = THREAT_RADIUS
        if c.is_capital or c.is_ruin:
            big = sum(seen_men(u) for u in foreign if u.owner in rivals and rd.UNITS[u.type].fighting
                      and distance((u.q, u.r), (c.q, c.r)) <= WATCH_RADIUS)
            radius = WATCH_RADIUS if big >= LARGE_FORCE else THREAT_RADIUS
        near = [u for u in foreign if u.owner in rivals and rd.UNITS[u.type].fighting
                and distance((u.q, u.r), (c.q, c.r)) <= radius]
        if near:
            threats[c.id] = Threat(c.id, sum(seen_men(u) for u in near), sorted(near, key=lambda u: u.id),
                                   sorted({u.owner for u in near}),
                                   min(distance((u.q, u.r), (c.q, c.r)) for u in near))
    queued_men: dict[str, int] = {}
    queued_items: dict[str, int] = {}
    buildings: set[str] = set()
    for c in cities:
        buildings |= set(c.buildings) | {imp["kind"] for imp in c.improvements}
        for e in c.queue:
            queued_items[e["item"]] = queued_items.get(e["item"], 0) + 1
            if e["item"] in rd.FIGHTING_TYPES:
                queued_men[e["item"]] = queued_men.get(e["item"], 0) + int(e.get("men") or 0)
    budget = obs.budget
    home = distance_field(mi, [mi.index(c.q, c.r) for c in cities], pic.troop_costs())
    return Analysis(
        obs=obs, pic=pic, mi=mi, month=obs.month, kingdom=obs.kingdom, cities=cities, city_by_id=city_by_id,
        capital=capital, garrison=garrison, field=fld, scouts=scouts, spies=spies, colonists=colonists,
        wagons=wagons, rivals=rivals, enemies=enemies, captures=captures.get(obs.kingdom, 0),
        best_rival_captures=best, leader=lead.get("kingdom"), lead_months=int(lead.get("months") or 0),
        threats=threats, output=budget.output, upkeep=budget.upkeep, queued_men=queued_men,
        queued_items=queued_items, buildings=buildings, foreign_units=foreign, home=home,
        closed=pic.closed_land(),
    )


def months_by_field(an: Analysis, cost: float, moves: int = 3) -> float:
    """Months of marching a planning move cost stands for (a foot troop's 3 moves a month)."""
    return INF if cost >= INF / 2 else cost / moves
