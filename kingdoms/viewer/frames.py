"""The viewer's view models: one audience's picture of a game, month by month, made only of what it may know.

A `Record` is what the replay page, the chronicle and the /watch page draw on: the map as the audience knows it,
the sides, and one `Frame` per stored month (land, fog, cities, troops, camps, the public tally and the figures
the audience knows), with the events, order results and rulers' notes it was told. A kingdom's frames are made
from its `Observation` of each month (`frame_of_observation`), the spectator's from `observe_all`'s
`SpectatorView` (`frame_of_spectator`); kingdoms.viewer.source is the one module that reads the game file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kingdoms import ruledata as rd
from kingdoms.gamemap import GameMap
from kingdoms.hexgrid import axial_q, flat_index
from kingdoms.views.observation import Observation, SpectatorView

Json = dict[str, Any]

#: Land codes of a frame besides side indices: no city holds the tile, or the audience cannot tell.
FREE, UNKNOWN = -1, -2
#: Fog codes of a frame: never seen, seen before (remembered), in sight now.
UNEXPLORED, REMEMBERED, IN_SIGHT = 0, 1, 2


@dataclass(slots=True)
class Side:
    """A kingdom (or the bandits) as everyone knows it: id, name and ruler."""

    id: str
    name: str
    ruler: str


@dataclass(slots=True)
class CityMark:
    """A city as the audience knows it: exact people for its own (or the spectator), a size tier otherwise."""

    id: int
    name: str
    side: str
    q: int
    r: int
    size: str  # size tier (village, town, city, great city)
    people: int | None
    walls: int | None
    capital: bool
    ruin: bool
    troops: str | None  # size class of its troops as seen from outside (None: none, or own city)
    seen: int | None  # month last seen when out of sight now, else None


@dataclass(slots=True)
class UnitMark:
    """A troop or other unit as the audience knows it: exact men where known, else its size class."""

    id: int
    side: str
    type: str
    q: int
    r: int
    men: int | None
    size: str | None
    general: str | None
    seen: int | None  # month last seen when remembered out of sight, else None


@dataclass(slots=True)
class CampMark:
    """An army camp."""

    id: int
    side: str
    q: int
    r: int
    seen: int | None


@dataclass(slots=True)
class Figures:
    """A kingdom's cities, people and men under arms, when the audience knows them."""

    cities: int
    people: int
    men: int


@dataclass(slots=True)
class Frame:
    """The board as the audience knew it at the start of one stored month (the end of the month before)."""

    key: int  # the stored month: the state at its start
    month: int  # the state's month (the final state keeps the last month's number)
    finished: bool
    land: np.ndarray  # int16 per tile: side index, FREE or UNKNOWN
    fog: np.ndarray  # int8 per tile: UNEXPLORED, REMEMBERED or IN_SIGHT
    cities: list[CityMark]
    units: list[UnitMark]
    camps: list[CampMark]
    captures: dict[str, int]
    eliminated: list[str]
    lead: tuple[str | None, int]
    wars: list[tuple[str, str]]
    ruin: str | None  # who holds the Ruin
    figures: dict[str, Figures]  # only the kingdoms whose figures the audience knows

    @property
    def done(self) -> int:
        """The month this frame closes (0 for the start of the game)."""
        return self.key - 1


@dataclass(slots=True)
class Told:
    """An event the audience was told of (stored kind, text and data) in `month`."""

    month: int
    kind: str
    text: str
    data: Json
    to: tuple[str, ...] | None = None  # who was told (None: everyone)


@dataclass(slots=True)
class Result:
    """The result of one of a kingdom's orders in `month`, as the engine told that kingdom."""

    month: int
    kingdom: str
    order: str
    result: str


@dataclass(slots=True)
class Note:
    """A ruler's note or dispatch written in `month`."""

    month: int
    kingdom: str
    kind: str
    text: str


@dataclass(slots=True)
class MapPicture:
    """The static map as the audience knows it: terrain letters per tile (lower case on rivers, ' ' unknown),
    bridges and the named landmarks' known tiles."""

    width: int
    height: int
    terrain: str
    bridges: list[int]
    landmarks: list[tuple[str, str, list[int]]]

    def index(self, q: int, r: int) -> int:
        """Flat index of (q, r), -1 off the map (odd rows shifted right, as gamemap lays them out)."""
        return flat_index(q, r, self.width, self.height)

    def tile(self, i: int) -> tuple[int, int]:
        """(q, r) of flat index i."""
        r, c = divmod(i, self.width)
        return axial_q(c, r), r

    def known(self, i: int) -> bool:
        """True when tile i's terrain is known."""
        return 0 <= i < len(self.terrain) and self.terrain[i] != " "


@dataclass(slots=True)
class Record:
    """One audience's whole record of a game: the spectator (`audience` None) or one kingdom."""

    audience: str | None
    title: str
    scenario: str
    seed: int | None
    map: MapPicture
    sides: list[Side]
    frames: list[Frame]
    events: list[Told]
    results: list[Result]
    notes: list[Note]
    finished: bool
    end_reason: str | None
    outcome: Json = field(default_factory=dict)  # the game_end event's data, once told
    live: bool = False  # a running game's record (the /watch page)

    def side(self, side_id: str) -> Side:
        """The Side of an id (a made-up one for an unknown id)."""
        for s in self.sides:
            if s.id == side_id:
                return s
        return Side(side_id, side_id.capitalize(), "")

    def name(self, side_id: str | None) -> str:
        """A side's name in a sentence ('the bandits', 'Shu Han')."""
        if side_id == rd.BANDITS:
            return "the bandits"
        return self.side(side_id).name if side_id else "no one"

    @property
    def kingdoms(self) -> list[Side]:
        """The kingdoms (every side but the bandits)."""
        return [s for s in self.sides if s.id != rd.BANDITS]

    def events_of(self, month: int) -> list[Told]:
        """The events of one month."""
        return [e for e in self.events if e.month == month]

    def frame_for(self, month: int) -> Frame | None:
        """The frame at the end of `month` (month 0: the start)."""
        for f in self.frames:
            if f.done == month:
                return f
        return None


# --- the map ------------------------------------------------------------------------------------------------


def full_map(gm: GameMap) -> MapPicture:
    """The whole map (the spectator's, a scenario preview)."""
    return MapPicture(gm.width, gm.height, "".join(gm.rows()), np.flatnonzero(gm.bridge).astype(int).tolist(),
                      [(m.name, m.kind, [i for i in (gm.index(*t) for t in m.tiles) if i >= 0]) for m in gm.landmarks])


def known_map(gm: GameMap, explored: np.ndarray) -> MapPicture:
    """The map as far as a kingdom has explored it: terrain, bridges and landmark tiles there only."""
    letters = np.array(list("".join(gm.rows())), dtype="<U1")
    shown = np.where(explored, letters, " ")
    marks = []
    for m in gm.landmarks:
        tiles = [i for i in (gm.index(*t) for t in m.tiles) if i >= 0 and explored[i]]
        if tiles:
            marks.append((m.name, m.kind, tiles))
    return MapPicture(gm.width, gm.height, "".join(shown.tolist()),
                      np.flatnonzero(gm.bridge & explored).astype(int).tolist(), marks)


# --- frames -------------------------------------------------------------------------------------------------


def _fighting(kind: str) -> bool:
    """True for a fighting unit type."""
    spec = rd.UNITS.get(kind)
    return spec is not None and spec.fighting


def frame_of_observation(obs: Observation, key: int, sides: list[str]) -> Frame:
    """One kingdom's frame, from its observation of the month: its own things in full, foreign ones as seen or
    remembered, land where it is its own or in sight, fog from what it has explored and sees now."""
    view, gm, me = obs.view, obs.map, obs.kingdom
    index = {s: n for n, s in enumerate(sides)}
    land = np.full(gm.size, UNKNOWN, dtype=np.int16)
    visible = obs.sight.visible
    land[visible] = FREE
    for i, holder in obs.land.holder.items():
        land[i] = index.get(holder, index.get(rd.BANDITS, FREE))
    land[obs.land.own_city >= 0] = index[me]
    fog = np.where(visible, IN_SIGHT, np.where(obs.explored, REMEMBERED, UNEXPLORED)).astype(np.int8)
    cities = [CityMark(c.id, c.name, me, c.q, c.r, c.size, c.people, int(round(c.walls)), c.is_capital, c.is_ruin,
                       None, None) for c in view.cities]
    units = [UnitMark(u.id, me, u.type, u.q, u.r, u.men, u.size, u.general, None) for u in view.units]
    known = {c.id for c in cities}
    shown = {u.id for u in units}
    for c in view.foreign_cities:
        known.add(c.id)
        cities.append(CityMark(c.id, c.name, c.owner, c.q, c.r, c.size or "town", None, c.walls, False, c.ruin,
                               c.troops, None if c.in_sight else c.month))
        for g in c.garrison or ():
            if g.id not in shown:
                shown.add(g.id)
                units.append(UnitMark(g.id, g.owner, g.type, g.q, g.r, g.men, g.size, None, None))
    ruin = view.ruin
    if ruin is not None and ruin.city_id not in known:  # the Ruin is known to all (VIC-130)
        cities.append(CityMark(ruin.city_id, ruin.name, ruin.holder, ruin.q, ruin.r, "town", None, None, False, True,
                               None, None))
    for u in view.foreign_units:
        if u.id not in shown:
            shown.add(u.id)
            units.append(UnitMark(u.id, u.owner, u.type, u.q, u.r, u.men if u.exact else None, u.size, None,
                                  None if u.in_sight else u.month))
    camps = [CampMark(c.id, me, c.q, c.r, None) for c in view.camps]
    camps += [CampMark(c.id, c.owner, c.q, c.r, None if c.in_sight else c.month) for c in view.foreign_camps]
    figures = {me: Figures(len(view.cities), sum(c.people for c in view.cities),
                           sum(u.men for u in view.units if _fighting(u.type)))}
    return Frame(
        key=key, month=obs.month, finished=obs.finished, land=land, fog=fog, cities=cities, units=units, camps=camps,
        captures={k.id: k.captures for k in view.kingdoms}, eliminated=[k.id for k in view.kingdoms if k.eliminated],
        lead=(view.lead.get("kingdom"), int(view.lead.get("months") or 0)),
        wars=[(str(a), str(b)) for a, b in view.wars], ruin=ruin.holder if ruin else None, figures=figures,
    )


def frame_of_spectator(sv: SpectatorView, key: int, sides: list[str]) -> Frame:
    """The spectator's frame: every side in full, every tile's holder, no fog."""
    index = {s: n for n, s in enumerate(sides)}
    owner_of = {c.id: side for side, sv_side in sv.sides.items() for c in sv_side.cities}
    size = sv.width * sv.height
    holder = np.array([index.get(owner_of.get(cid, ""), FREE) if cid >= 0 else FREE for cid in sv.land],
                      dtype=np.int16) if sv.land else np.full(size, FREE, dtype=np.int16)
    cities, units, camps = [], [], []
    figures: dict[str, Figures] = {}
    for side, part in sv.sides.items():
        for c in part.cities:
            cities.append(CityMark(c.id, c.name, side, c.q, c.r, c.size, c.people, int(round(c.walls)), c.is_capital,
                                   c.is_ruin, None, None))
        for u in part.units:
            units.append(UnitMark(u.id, side, u.type, u.q, u.r, u.men, u.size, u.general, None))
        for camp in part.camps:
            camps.append(CampMark(camp.id, side, camp.q, camp.r, None))
        if side != rd.BANDITS:
            figures[side] = Figures(len(part.cities), sum(c.people for c in part.cities),
                                    sum(u.men for u in part.units if _fighting(u.type)))
    cities.sort(key=lambda c: c.id)
    units.sort(key=lambda u: u.id)
    return Frame(
        key=key, month=sv.month, finished=sv.end_reason is not None, land=holder,
        fog=np.full(size, IN_SIGHT, dtype=np.int8), cities=cities, units=units, camps=camps,
        captures={k.id: k.captures for k in sv.kingdoms}, eliminated=[k.id for k in sv.kingdoms if k.eliminated],
        lead=(sv.lead.get("kingdom"), int(sv.lead.get("months") or 0)), wars=[(str(a), str(b)) for a, b in sv.wars],
        ruin=sv.ruin.holder if sv.ruin else None, figures=figures,
    )
