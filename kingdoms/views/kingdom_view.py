"""One kingdom's fog-filtered view of the game: the only picture of the world a seat is ever shown.

`build_view(state, kingdom_id)` reads the true state but copies out only what the rules let that kingdom
know (INTEL-010..220, OPEN-30/49/50/51/90): its own cities, troops, generals, camps and stationed spies in
full; public knowledge (kingdoms, capture counts and the lead, VIC-140/160; the Ruin, VIC-130; wars,
DIPLO-130; military buildings, BUILD-060); foreign units, cities and camps in sight as the rules show them;
what it remembers of things out of sight, with the month seen (MAP-190); its explored map; its spy reports.
It is built by views.observation, the one door from the state to a seat: briefings, tools and the AI
read it there, with the rest of what the kingdom may know.
"""

from __future__ import annotations

import dataclasses
import json
import operator
import weakref
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kingdoms import ruledata as rd
from kingdoms.engine.sight import Sight, compute_sight, hex_to_mask, mask_to_hex
from kingdoms.engine.visibility import seen_now, walls_state
from kingdoms.gamemap import GameMap
from kingdoms.hexgrid import flat_index
from kingdoms.state import City, GameState, Unit

Json = dict[str, Any]


# --- own things, in full ------------------------------------------------------------------------------------


@dataclass(slots=True)
class OwnUnit:
    """One of the kingdom's own units, everything true about it."""

    id: int
    type: str
    q: int
    r: int
    men: int
    size: str | None
    xp: float
    level: int
    morale: float
    hunger: float
    rations: float
    cargo: float
    fortified: bool
    general_id: int | None
    general: str | None
    standing: Json | None
    dest: tuple[int, int] | None
    home_city: int | None
    in_city: int | None  # id of the own city it stands in (its garrison), if any


@dataclass(slots=True)
class OwnCity:
    """One of the kingdom's own cities, everything true about it (foreign spies inside stay hidden)."""

    id: int
    name: str
    q: int
    r: int
    people: int
    size: str
    focus: str
    grain: float
    store: float
    happiness: float
    walls: float
    walls_max: float
    walls_state: str
    buildings: list[str]
    improvements: list[Json]
    queue: list[Json]
    is_capital: bool
    is_ruin: bool
    militia: float
    restless: bool
    unrest_months: int
    founder: str | None
    captured_by: str | None
    founded_month: int
    land_tiles: int
    garrison: list[int]  # ids of own units standing in the city
    counter_spies: int
    last: Json


@dataclass(slots=True)
class OwnGeneral:
    """A general of the kingdom: his level, XP and where he is."""

    id: int
    name: str
    xp: int
    level: int
    unit_id: int | None
    city_id: int | None


@dataclass(slots=True)
class OwnCamp:
    """An army camp of the kingdom and its grain."""

    id: int
    q: int
    r: int
    grain: float


@dataclass(slots=True)
class OwnSpy:
    """A spy of the kingdom stationed in a city: a spy in a rival city, a counter-spy in its own (INTEL-130/180)."""

    city_id: int
    city_name: str
    city_owner: str
    since: int
    role: str  # "spy" | "counter-spy"


# --- public knowledge -----------------------------------------------------------------------------------------


@dataclass(slots=True)
class KingdomInfo:
    """Public facts of a kingdom: names, whether it has fallen, its capture count (VIC-140)."""

    id: str
    name: str
    ruler: str
    eliminated: bool
    captures: int


@dataclass(slots=True)
class RuinInfo:
    """The Ruin: known to all from month 1, where it is and who holds it (VIC-130)."""

    city_id: int
    name: str
    q: int
    r: int
    holder: str


@dataclass(slots=True)
class MilitaryBuildings:
    """The military buildings of one city of a kingdom, public to all (BUILD-060)."""

    kingdom: str
    city: str
    buildings: list[str]


# --- foreign things, as seen or remembered ----------------------------------------------------------------


@dataclass(slots=True)
class SeenUnit:
    """A foreign unit: type and size class; exact men (and cargo) only where watched (INTEL-020/070/080, OPEN-90)."""

    id: int
    owner: str
    type: str
    q: int
    r: int
    size: str | None
    men: int | None
    cargo: float | None
    exact: bool
    month: int
    in_sight: bool


@dataclass(slots=True)
class SeenCity:
    """A foreign city: name, rough size, walls, size class of its troops (INTEL-030, OPEN-30/50).

    `garrison` lists the units inside exactly only while a spy looks into it (INTEL-070); `month` is when it
    was last seen and `in_sight` whether it is seen now.
    """

    id: int
    name: str
    owner: str
    q: int
    r: int
    size: str | None
    walls: int | None
    walls_state: str | None
    troops: str | None
    ruin: bool
    garrison: list[SeenUnit] | None
    month: int
    in_sight: bool


@dataclass(slots=True)
class SeenCamp:
    """A foreign army camp: where and whose; its grain only when watched (OPEN-90)."""

    id: int
    owner: str
    q: int
    r: int
    grain: float | None
    month: int
    in_sight: bool


@dataclass(slots=True)
class SpyReport:
    """A spy's report on one city (INTEL-140/100): its economy, walls, buildings, queue and every unit inside."""

    month: int
    source: str
    city_id: int
    name: str
    owner: str
    q: int
    r: int
    people: int
    focus: str
    production: int | None
    grain: float
    granary_cap: int | None
    walls: float
    walls_max: float
    buildings: list[str]
    improvements: list[str]
    queue: list[Json]
    garrison: list[Json]
    civilians: list[Json]
    militia: int
    counter_spies: int


@dataclass(slots=True)
class TileView:
    """What the kingdom knows of one tile (inspect_tile): terrain if explored, who holds it and what stands there."""

    q: int
    r: int
    explored: bool
    visible: bool
    terrain: str | None
    river: bool | None
    bridge: bool | None
    landmark: str | None
    holder: str | None  # kingdom (or "bandits") whose land it is, when in sight
    city_id: int | None  # the known city whose land it is, if any
    units: list[int]  # ids of units the kingdom sees there (own and foreign)


@dataclass(slots=True)
class KingdomView:
    """Everything one kingdom may know at the start of a month (the input of its briefing and tools)."""

    kingdom: str
    name: str
    ruler: str
    month: int
    capital_id: int | None
    eliminated: bool
    width: int
    height: int
    cities: list[OwnCity]
    units: list[OwnUnit]
    generals: list[OwnGeneral]
    camps: list[OwnCamp]
    spies: list[OwnSpy]
    kingdoms: list[KingdomInfo]
    lead: Json
    ruin: RuinInfo | None
    wars: list[list[str]]
    military_buildings: list[MilitaryBuildings]
    foreign_units: list[SeenUnit]
    foreign_cities: list[SeenCity]
    foreign_camps: list[SeenCamp]
    reports: list[SpyReport]
    explored: str  # hex bitmask of explored tiles (map order), sight.hex_to_mask
    visible: str  # hex bitmask of tiles in sight now
    terrain_rows: list[str] = field(default_factory=list)  # terrain letters; " " where unexplored
    rotation: list[str] = field(default_factory=list)  # this month's order of the kingdoms' slots (public, OPEN-73)

    def to_dict(self) -> Json:
        """Plain JSON-able data."""
        return dataclasses.asdict(self)

    def to_json(self) -> str:
        """The view as a JSON text."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    def _index(self, q: int, r: int) -> int:
        """Flat index of (q, r) on this view's map, -1 off it."""
        return flat_index(q, r, self.width, self.height)

    def is_explored(self, q: int, r: int) -> bool:
        """True when tile (q, r) is on the kingdom's explored map."""
        i = self._index(q, r)
        return i >= 0 and bool(hex_to_mask(self.explored, self.width * self.height)[i])

    def is_visible(self, q: int, r: int) -> bool:
        """True when tile (q, r) is in sight now."""
        i = self._index(q, r)
        return i >= 0 and bool(hex_to_mask(self.visible, self.width * self.height)[i])

    def unit(self, unit_id: int) -> OwnUnit | SeenUnit | None:
        """The view's record of a unit (own, or foreign seen now or remembered), or None."""
        for u in self.units:
            if u.id == unit_id:
                return u
        for s in self.foreign_units:
            if s.id == unit_id:
                return s
        for c in self.foreign_cities:
            for g in c.garrison or ():
                if g.id == unit_id:
                    return g
        return None

    def city(self, city_id: int) -> OwnCity | SeenCity | None:
        """The view's record of a city (own or known foreign), or None."""
        for c in self.cities:
            if c.id == city_id:
                return c
        for s in self.foreign_cities:
            if s.id == city_id:
                return s
        return None

    def report(self, city_id: int) -> SpyReport | None:
        """The latest spy report on a city, if any."""
        for rep in self.reports:
            if rep.city_id == city_id:
                return rep
        return None


# --- building the view ------------------------------------------------------------------------------------


def _seen_unit(rec: Json, in_sight: bool) -> SeenUnit:
    """A unit record (visibility.unit_record) as a view item."""
    return SeenUnit(int(rec["id"]), rec["owner"], rec["type"], int(rec["q"]), int(rec["r"]), rec.get("size"),
                    rec.get("men"), rec.get("cargo"), bool(rec.get("exact")), int(rec["month"]), in_sight)


def _seen_city(rec: Json, in_sight: bool) -> SeenCity:
    """A city record (visibility.city_record) as a view item."""
    garrison = rec.get("garrison")
    return SeenCity(int(rec["id"]), rec["name"], rec["owner"], int(rec["q"]), int(rec["r"]), rec.get("size"),
                    rec.get("walls"), rec.get("walls_state"), rec.get("troops"), bool(rec.get("ruin")),
                    [_seen_unit(g, in_sight) for g in garrison] if garrison is not None and in_sight else None,
                    int(rec["month"]), in_sight)


def _seen_camp(rec: Json, in_sight: bool) -> SeenCamp:
    """A camp record (visibility.camp_record) as a view item."""
    return SeenCamp(int(rec["id"]), rec["owner"], int(rec["q"]), int(rec["r"]), rec.get("grain"), int(rec["month"]),
                    in_sight)


def _report(rec: Json) -> SpyReport:
    """A stored report (intel.city_report) as a view item."""
    names = SpyReport.__slots__
    return SpyReport(**{k: rec.get(k) for k in names})  # type: ignore[arg-type]


def _terrain_rows(gm: GameMap, explored: np.ndarray) -> list[str]:
    """The explored map as rows of terrain letters (lower case on rivers), blank where unexplored."""
    above, rows = _letter_codes(gm)
    # a letter's code is a blank's (32) plus `above`: explored tiles get it, the others stay blank (a product with
    # the mask: several times cheaper than np.where on a small map)
    text = (above * explored.astype(bool, copy=False) + _BLANK).tobytes().decode("ascii")
    return list(map(text.__getitem__, rows))


_BLANK = np.uint8(ord(" "))

#: Per-map terrain letters as ASCII codes above a blank's (the letters of `_letters`, less 32), with the slices
#: of the map's rows, for building rows as bytes.
_LETTER_CODES: weakref.WeakKeyDictionary[GameMap, tuple[np.ndarray, list[slice]]] = weakref.WeakKeyDictionary()


def _letter_codes(gm: GameMap) -> tuple[np.ndarray, list[slice]]:
    """Per-tile ASCII codes of a map's terrain letters less a blank's, and its rows as slices of a text in map
    order (cached for the map's lifetime)."""
    got = _LETTER_CODES.get(gm)
    if got is None:
        codes = np.frombuffer("".join(_letters(gm).tolist()).encode("ascii"), dtype=np.uint8)
        w = gm.width
        got = _LETTER_CODES[gm] = (codes - _BLANK, [slice(k, k + w) for k in range(0, gm.size, w)])
    return got


#: Per-map terrain letters, derived from the immutable map only.
_LETTERS: weakref.WeakKeyDictionary[GameMap, np.ndarray] = weakref.WeakKeyDictionary()


def _letters(gm: GameMap) -> np.ndarray:
    """Per-tile terrain letters of a map (cached for the map's lifetime)."""
    arr = _LETTERS.get(gm)
    if arr is None:
        arr = _LETTERS[gm] = np.array([gm.letter(i) for i in range(gm.size)], dtype="<U1")
    return arr


#: The public facts of a state (_public): kingdoms, the Ruin, military buildings.
Public = tuple[list[KingdomInfo], RuinInfo | None, list[MilitaryBuildings]]


def _public(state: GameState) -> Public:
    """Public knowledge: kingdoms and captures (VIC-140), the Ruin (VIC-130), military buildings (BUILD-060)."""
    from kingdoms.engine.victory import captures

    count = captures(state)
    kingdoms = [KingdomInfo(k, kd.name, kd.ruler, kd.eliminated, count.get(k, 0)) for k, kd in state.kingdoms.items()]
    ruin = None
    military: list[MilitaryBuildings] = []
    for city in sorted(state.cities.values(), key=lambda c: c.id):
        if city.is_ruin and ruin is None:
            ruin = RuinInfo(city.id, city.name, city.q, city.r, city.owner)
        if city.owner not in state.kingdoms:
            continue
        have = [b for b in city.buildings if b in rd.MILITARY_BUILDINGS]
        have += [imp.kind for imp in city.improvements if imp.kind in rd.MILITARY_BUILDINGS]
        if have:
            order = {b: n for n, b in enumerate(rd.MILITARY_BUILDINGS)}
            military.append(MilitaryBuildings(city.owner, city.name, sorted(set(have), key=order.__getitem__)))
    return kingdoms, ruin, military


def _land_counts(state: GameState) -> np.ndarray:
    """Tiles held per city id (index: the id), for every city at once."""
    owner = state.owner
    return np.bincount(owner[owner >= 0], minlength=max(state.cities, default=0) + 1)


def _own_city(state: GameState, city: City, units_here: list[Unit], land_counts: np.ndarray | None = None) -> OwnCity:
    """An own city in full; `land_counts`: the state's _land_counts, when the caller has them."""
    return OwnCity(
        id=city.id, name=city.name, q=city.q, r=city.r, people=city.people, size=rd.size_tier(city.people),
        focus=city.focus, grain=city.grain, store=city.store, happiness=city.happiness, walls=city.walls,
        walls_max=city.walls_max, walls_state=walls_state(city), buildings=list(city.buildings),
        improvements=[{"q": i.q, "r": i.r, "kind": i.kind} for i in city.improvements],
        queue=[{"item": e.item, "men": e.men, "tile": list(e.tile) if e.tile else None, "paid": e.paid,
                "months": e.months} for e in city.queue],
        is_capital=city.is_capital, is_ruin=city.is_ruin, militia=city.militia, restless=city.restless,
        unrest_months=city.unrest_months, founder=city.founder, captured_by=city.captured_by,
        founded_month=city.founded_month,
        land_tiles=int(np.count_nonzero(state.owner == city.id)) if land_counts is None else int(land_counts[city.id]),
        garrison=[u.id for u in units_here],
        counter_spies=sum(1 for s in state.spies if s.city_id == city.id and s.owner == city.owner),
        last=_own_ledger(city.last),
    )


#: Ledger entries that total foreign troops exactly; a view shows only their size class (INTEL-020).
_FOREIGN_MEN_KEYS = ("besieging_men",)


def _own_ledger(last: Json) -> Json:
    """An own city's last-month ledger, with exact counts of foreign troops turned into size classes (INTEL-020)."""
    out = dict(last)
    for key in _FOREIGN_MEN_KEYS:
        if key in out:
            men = int(out.pop(key) or 0)
            out[key.removesuffix("_men") + "_size"] = rd.size_class(men) if men > 0 else None
    return out


def _own_unit(state: GameState, unit: Unit, in_city: int | None) -> OwnUnit:
    """An own unit in full."""
    general = state.generals.get(unit.general_id) if unit.general_id is not None else None
    size = rd.size_class(unit.men) if unit.spec.fighting and unit.men > 0 else None
    return OwnUnit(unit.id, unit.type, unit.q, unit.r, unit.men, size, unit.xp, rd.troop_level(unit.xp),
                   unit.morale, unit.hunger, unit.rations, unit.cargo, unit.fortified, unit.general_id,
                   general.name if general else None, dict(unit.standing) if unit.standing else None,
                   (int(unit.dest[0]), int(unit.dest[1])) if unit.dest else None, unit.home_city, in_city)


#: The sort key of records by id (a C call, not a lambda: the view sorts every own record kind).
_BY_ID = operator.attrgetter("id")


def build_view(state: GameState, kingdom_id: str, sight: Sight | None = None,
               explored: np.ndarray | None = None, public: Public | None = None) -> KingdomView:
    """The view of one kingdom at the start of `state.month`, fog applied (INTEL-*, MAP-190, OPEN-51).

    `sight` and `explored` (its explored map: the remembered mask joined with what it sees): the kingdom's, and
    `public` the state's `_public` facts, when the caller has them already (views.observation); the view gets its
    own lists of the public records."""
    kd = state.kingdoms[kingdom_id]
    gm = state.map
    sight = sight or compute_sight(state, [kingdom_id])[kingdom_id]
    mem = kd.memory
    visible = sight.visible

    def in_sight(rec: Json) -> bool:
        i = gm.index(int(rec["q"]), int(rec["r"]))
        return i >= 0 and bool(visible[i])

    # Own things.
    own_cities = sorted((c for c in state.cities.values() if c.owner == kingdom_id), key=_BY_ID)
    city_by_tile = {c.tile: c.id for c in own_cities}
    own_units = sorted((u for u in state.units.values() if u.owner == kingdom_id), key=_BY_ID)
    in_city: dict[int, list[Unit]] = {}
    for u in own_units:
        cid = city_by_tile.get(u.tile)
        if cid is not None:
            in_city.setdefault(cid, []).append(u)
    counts = _land_counts(state) if own_cities else None
    cities = [_own_city(state, c, in_city.get(c.id, []), counts) for c in own_cities]
    units = [_own_unit(state, u, city_by_tile.get(u.tile)) for u in own_units]
    generals = [OwnGeneral(g.id, g.name, g.xp, g.level, g.unit_id, g.city_id)
                for g in sorted((g for g in state.generals.values() if g.owner == kingdom_id), key=_BY_ID)]
    camps = [OwnCamp(c.id, c.q, c.r, c.grain)
             for c in sorted((c for c in state.camps.values() if c.owner == kingdom_id), key=_BY_ID)]
    spies = []
    for s in state.spies:
        if s.owner != kingdom_id or s.city_id not in state.cities:
            continue
        city = state.cities[s.city_id]
        spies.append(OwnSpy(city.id, city.name, city.owner, s.since, "counter-spy" if city.owner == kingdom_id else "spy"))

    # Foreign things: in sight now, then remembered out of sight.
    seen = seen_now(state, kingdom_id, sight)
    own_ids = {c.id for c in own_cities}
    foreign_cities = [_seen_city(rec, True) for rec in seen.cities]
    live = {c.id for c in foreign_cities}
    for key, rec in (mem.get("cities") or {}).items():
        if int(key) not in live and int(key) not in own_ids and not in_sight(rec):
            foreign_cities.append(_seen_city(rec, False))
    foreign_units = [_seen_unit(rec, True) for rec in seen.units]
    live = {u.id for u in foreign_units} | {g.id for c in foreign_cities for g in (c.garrison or ())}
    live |= {u.id for u in own_units}
    for key, rec in (mem.get("units") or {}).items():
        if int(key) not in live and not in_sight(rec):
            foreign_units.append(_seen_unit(rec, False))
    foreign_camps = [_seen_camp(rec, True) for rec in seen.camps]
    live = {c.id for c in foreign_camps}
    for key, rec in (mem.get("camps") or {}).items():
        if int(key) not in live and not in_sight(rec):
            foreign_camps.append(_seen_camp(rec, False))
    reports = [_report(rec) for key, rec in sorted((mem.get("reports") or {}).items(), key=lambda kv: int(kv[0]))
               if int(key) not in own_ids]

    if explored is None:
        explored = hex_to_mask(mem.get("explored", ""), gm.size) | visible
    kingdoms, ruin, military = public if public is not None else _public(state)
    return KingdomView(
        kingdom=kingdom_id, name=kd.name, ruler=kd.ruler, month=state.month, capital_id=kd.capital_id,
        eliminated=kd.eliminated, width=gm.width, height=gm.height, cities=cities, units=units,
        generals=generals, camps=camps, spies=spies, kingdoms=list(kingdoms),
        lead={"kingdom": state.lead.get("kingdom"), "months": int(state.lead.get("months", 0))},
        ruin=ruin, wars=[list(p) for p in state.wars], military_buildings=list(military),
        foreign_units=foreign_units, foreign_cities=foreign_cities, foreign_camps=foreign_camps,
        reports=reports, explored=mask_to_hex(explored), visible=mask_to_hex(visible),
        terrain_rows=_terrain_rows(gm, explored),
        rotation=[k for k in state.rotation if k in state.kingdoms and not state.kingdoms[k].eliminated],
    )


def build_views(state: GameState) -> dict[str, KingdomView]:
    """Views of every kingdom, sharing one sight computation."""
    sights = compute_sight(state)
    return {k: build_view(state, k, sights[k]) for k in state.kingdoms}


# --- lookups for tools and order checks ---------------------------------------------------------------------


def visible_unit_ids(view: KingdomView) -> set[int]:
    """Ids of the units the view's kingdom can name in orders now: its own and the foreign ones in sight."""
    ids = {u.id for u in view.units} | {u.id for u in view.foreign_units if u.in_sight}
    for c in view.foreign_cities:
        if c.in_sight and c.garrison:
            ids |= {g.id for g in c.garrison}
    return ids


__all__ = [
    "KingdomInfo",
    "KingdomView",
    "MilitaryBuildings",
    "OwnCamp",
    "OwnCity",
    "OwnGeneral",
    "OwnSpy",
    "OwnUnit",
    "RuinInfo",
    "SeenCamp",
    "SeenCity",
    "SeenUnit",
    "SpyReport",
    "TileView",
    "build_view",
    "build_views",
    "visible_unit_ids",
]
