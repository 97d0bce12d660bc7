"""The world model: every fact of a game at the start of a month, as plain dataclasses.

The state holds no rules and does no I/O: the engine (kingdoms.engine) changes it, storage serialises it,
views read it. Ids of units, cities, generals and camps are global increasing integers (OPEN-87).
Tile ownership is one numpy array over the map (`owner`, city id or -1), the single source of truth
for which city holds which tile (MAP-170).
"""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from pydantic import ConfigDict, TypeAdapter

from kingdoms import ruledata as rd
from kingdoms.gamemap import GameMap
from kingdoms.hexgrid import Tile

Json = dict[str, Any]


@dataclass(slots=True)
class QueueEntry:
    """One item of a city's build queue; `paid` is production put in so far, `months` months at the head."""

    item: str
    men: int = 0  # troops: men still to raise
    tile: Tile | None = None  # improvements placed on a chosen tile
    paid: float = 0.0
    months: int = 0


@dataclass(slots=True)
class Improvement:
    """A farm, granary or workshop on a tile of a city's land (BUILD-070)."""

    q: int
    r: int
    kind: str


@dataclass(slots=True)
class City:
    """A city and its economy; `owner` is a kingdom id or "bandits", `founder` the kingdom that founded it."""

    id: int
    name: str
    owner: str
    founder: str | None
    q: int
    r: int
    people: int
    focus: str = "balanced"
    grain: float = 0.0
    store: float = 0.0
    happiness: float = float(rd.HAPPY_START)
    walls: float = 0.0
    walls_max: float = 0.0
    buildings: list[str] = field(default_factory=list)
    improvements: list[Improvement] = field(default_factory=list)
    queue: list[QueueEntry] = field(default_factory=list)
    is_capital: bool = False
    is_ruin: bool = False
    militia: float = 0.0  # militia standing now (SIEGE-080)
    restless: bool = False
    unrest_months: int = 0
    captured_by: str | None = None  # kingdom whose assault took it from a rival (VIC-050), while it holds it
    founded_month: int = 0
    last: Json = field(default_factory=dict)  # last month's ledger (harvest, eaten, growth...) for briefings

    @property
    def tile(self) -> Tile:
        return (self.q, self.r)


@dataclass(slots=True)
class Unit:
    """A troop, siege train, civilian unit (colonists, wagon) or agent (scout, travelling spy)."""

    id: int
    owner: str
    type: str
    q: int
    r: int
    men: int = 0  # soldiers or crew; colonists carry their 5,000 people here
    xp: float = 0.0
    morale: float = 100.0
    hunger: float = 0.0
    rations: float = 0.0  # dan carried
    cargo: float = 0.0  # grain carried by a wagon or colonists
    fortified: bool = False
    general_id: int | None = None
    standing: Json | None = None  # standing order (an order's dump), carried over to next month
    dest: Tile | None = None  # a wagon's destination
    home_city: int | None = None
    #: what a standing attack order is aimed at beyond its tile (engine-internal, attack.py; COMBAT-320/350/370):
    #: {"to": [q, r], "kind": "unit"|"city"|"camp", the target's id, type or name, and its owner when ordered}
    standing_meta: Json | None = None

    @property
    def tile(self) -> Tile:
        return (self.q, self.r)

    @property
    def spec(self) -> rd.UnitType:
        return rd.UNITS[self.type]


@dataclass(slots=True)
class General:
    """A named general leading a troop (`unit_id`) or waiting in a city (`city_id`)."""

    id: int
    owner: str
    name: str
    xp: int = 0
    unit_id: int | None = None
    city_id: int | None = None

    @property
    def level(self) -> int:
        return rd.general_level(self.xp)


@dataclass(slots=True)
class Camp:
    """An army camp: a grain store on a tile (SUPPLY-220..290)."""

    id: int
    owner: str
    q: int
    r: int
    grain: float = 0.0


@dataclass(slots=True)
class StationedSpy:
    """A spy inside a city: no longer a unit (INTEL-130)."""

    owner: str
    city_id: int
    since: int


@dataclass(slots=True)
class Kingdom:
    """A player kingdom: names, capital, name lists and its memory of the map (fog, INTEL)."""

    id: str
    name: str
    ruler: str
    landing: Tile
    city_names: list[str]
    general_names: list[str]
    capital_id: int | None = None
    names_used: int = 0
    generals_used: int = 0
    eliminated: bool = False
    eliminated_month: int = 0
    memory: Json = field(default_factory=dict)  # explored tiles, last-seen enemies (kingdoms.views)
    result: str | None = None  # "win" | "loss" | "draw" once the game ends
    place: int | None = None


@dataclass
class GameState:
    """A whole game at the start of `month` (orders for `month` not yet carried out)."""

    __pydantic_config__ = ConfigDict(arbitrary_types_allowed=True)

    seed: int
    month: int
    kingdoms: dict[str, Kingdom]
    cities: dict[int, City] = field(default_factory=dict)
    units: dict[int, Unit] = field(default_factory=dict)
    generals: dict[int, General] = field(default_factory=dict)
    camps: dict[int, Camp] = field(default_factory=dict)
    spies: list[StationedSpy] = field(default_factory=list)
    wars: list[list[str]] = field(default_factory=list)  # sorted kingdom-id pairs (DIPLO)
    rotation: list[str] = field(default_factory=list)  # this month's order of kingdoms (TURN-040)
    next_id: int = 1
    last_month: int = rd.LAST_MONTH  # the game ends after this month (TURN-010; a scenario may shorten it)
    lead: Json = field(default_factory=lambda: {"kingdom": None, "months": 0})  # VIC-150..170
    finished: bool = False
    end_reason: str | None = None
    owner: np.ndarray = field(default=None, repr=False)  # type: ignore[assignment]  # city id per tile, -1 free
    map: GameMap = field(default=None, repr=False, compare=False)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.owner is None and self.map is not None:
            self.owner = np.full(self.map.size, -1, dtype=np.int32)

    # --- ids and lookups ----------------------------------------------------------------------------

    def new_id(self) -> int:
        i = self.next_id
        self.next_id += 1
        return i

    def units_at(self, q: int, r: int) -> list[Unit]:
        return [u for u in self.units.values() if u.q == q and u.r == r]

    def city_at(self, q: int, r: int) -> City | None:
        for c in self.cities.values():
            if c.q == q and c.r == r:
                return c
        return None

    def tile_owner_city(self, q: int, r: int) -> City | None:
        """The city holding tile (q, r), if any."""
        i = self.map.index(q, r)
        if i < 0:
            return None
        cid = int(self.owner[i])
        return self.cities.get(cid) if cid >= 0 else None

    def city_tiles(self, city_id: int) -> list[Tile]:
        """Every tile a city holds, centre and water included, in map order."""
        idx = np.flatnonzero(self.owner == city_id)
        return [(int(self.map.q_of[i]), int(self.map.r_of[i])) for i in idx]

    def at_war(self, a: str, b: str) -> bool:
        """True when a and b fight: bandits fight everyone (BANDIT-020), kingdoms only once at war."""
        if a == b:
            return False
        if rd.BANDITS in (a, b):
            return True
        return sorted((a, b)) in self.wars

    def living(self) -> list[str]:
        return [k for k, kd in self.kingdoms.items() if not kd.eliminated]

    # --- copying, serialising, hashing ---------------------------------------------------------------

    def clone(self) -> GameState:
        """A deep copy sharing the immutable map."""
        return copy.deepcopy(self, memo={id(self.map): self.map})

    def to_dict(self) -> Json:
        """Plain JSON-able data (the map is stored once per game, not per month)."""
        data = _ADAPTER.dump_python(self, mode="json", exclude={"owner", "map"})
        data["owner"] = self.owner.tolist()
        return data

    @classmethod
    def from_dict(cls, data: Json, game_map: GameMap) -> GameState:
        body = {k: v for k, v in data.items() if k != "owner"}
        state = _ADAPTER.validate_python(body)
        state.map = game_map
        state.owner = np.asarray(data["owner"], dtype=np.int32)
        return state

    def canonical_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    def state_hash(self) -> str:
        """Canonical hash of the whole state: replaying the same orders must reproduce it."""
        return hashlib.sha256(self.canonical_json().encode()).hexdigest()[:32]


_ADAPTER: TypeAdapter[GameState] = TypeAdapter(GameState)
