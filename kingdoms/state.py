"""The world model: every fact of a game at the start of a month, as plain dataclasses.

The state holds no rules and does no I/O: the engine (kingdoms.engine) changes it, storage serialises it,
views read it. Ids of units, cities, generals and camps are global increasing integers (OPEN-87).
Tile ownership is one numpy array over the map (`owner`, city id or -1), the single source of truth
for which city holds which tile (MAP-170).
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import re
import weakref
from collections.abc import Container
from dataclasses import dataclass, field
from dataclasses import fields as dataclass_fields
from itertools import compress
from typing import Any

import numpy as np
from pydantic import ConfigDict, TypeAdapter
from pydantic_core import CoreConfig, PydanticSerializationError, SchemaSerializer, core_schema

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

    def update_walls_max(self) -> None:
        """Set the wall ceiling from the buildings (and the Ruin's own walls): the one place `walls_max` is set.

        The figure follows from the buildings (`rd.walls_ceiling`); it stays a stored field because game files
        and state hashes carry it.
        """
        self.walls_max = rd.walls_ceiling(self.buildings, self.is_ruin)


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
    owner: np.ndarray = field(default=None, repr=False)  # type: ignore[arg-type]  # city id per tile, -1 free; set on building
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
        return ([a, b] if a < b else [b, a]) in self.wars  # a war is stored as its sorted pair

    def at_peace_with(self, kingdom: str) -> tuple[str, ...]:
        """The kingdoms (in state order) not at war with `kingdom`, as `at_war` tells, in one pass: none for bandits."""
        if kingdom == rd.BANDITS:
            return ()
        wars = self.wars
        return tuple([k for k in self.kingdoms if k != kingdom and k != rd.BANDITS
                      and not (wars and ([kingdom, k] if kingdom < k else [k, kingdom]) in wars)])

    def living(self) -> list[str]:
        return [k for k, kd in self.kingdoms.items() if not kd.eliminated]

    # --- copying, serialising, hashing ---------------------------------------------------------------

    def clone(self, *, memory_of: str | None = None, units: Container[int] | None = None,
              cities: Container[int] | None = None, share: str | None = None) -> GameState:
        """A deep copy sharing the immutable map; with `memory_of`, only that kingdom's memory is copied and the
        others' are left empty (a kingdom's believed board keeps no rival's memory); with `units` or `cities`,
        only the units or cities of those ids (in their order), the rest left out (what it cannot know).

        With `share` (a kingdom id), the copy is one nobody changes (engine.belief's read-only believed board):
        that kingdom's record, cities, units and camps and every general and stationed spy are this state's own
        objects, not copies (the dicts and lists holding them are new). Those shared records must never be written
        through the copy: a write would change this state (tests/test_believed_sharing.py).

        Written out field by field (a copy.deepcopy made some 2,800 calls a copy): every mutable container is
        copied, JSON values (City.last, Kingdom.memory, Unit.standing/standing_meta, lead) in depth, since
        engine code changes nested values in place (intel adds spy reports inside memory["reports"], cities
        append to last["built"]). tests/test_state_clone.py checks that every field of every dataclass is
        handled, so a new field must be added here.
        """
        new = GameState.__new__(GameState)
        new.seed = self.seed
        new.month = self.month
        # `share`'s records stay this state's objects (an id or owner is never None: without it all are copied)
        own = share if memory_of in (None, share) else None
        new.kingdoms = {k: kd if k == own else _copy_kingdom(kd, memory_of is None or k == memory_of)
                        for k, kd in self.kingdoms.items()}
        new.cities = {k: c if c.owner == share else copy_city(c) for k, c in self.cities.items()
                      if cities is None or k in cities}
        new.units = {k: u if u.owner == share else copy_unit(u) for k, u in self.units.items()
                     if units is None or k in units}
        new.generals = {k: _copy_general(g) for k, g in self.generals.items()} if share is None else dict(self.generals)
        new.camps = {k: c if c.owner == share else _copy_camp(c) for k, c in self.camps.items()}
        new.spies = [_copy_spy(s) for s in self.spies] if share is None else list(self.spies)
        new.wars = _copy_json(self.wars)
        new.rotation = _copy_json(self.rotation)
        new.next_id = self.next_id
        new.last_month = self.last_month
        new.lead = _copy_json(self.lead)
        new.finished = self.finished
        new.end_reason = self.end_reason
        new.owner = self.owner.copy() if self.owner is not None else None
        new.map = self.map
        if len(self.__dict__) != len(new.__dict__):  # attributes set outside the fields: copied as deepcopy did
            memo = {id(self.map): self.map}
            for key, value in self.__dict__.items():
                if key not in new.__dict__:
                    new.__dict__[key] = copy.deepcopy(value, memo)
        return new

    def sort_ids(self) -> GameState:
        """Put units, cities, generals and camps in ascending id order, in place (the one canonical order).

        The engine iterates these dicts; new ids are always larger, so insertion keeps the order, and a state
        built or loaded any other way is brought to it here (from_dict, resolve_month). Returns the state.
        """
        for name in _ID_DICTS:
            table = getattr(self, name)
            keys = list(table)
            if any(a > b for a, b in zip(keys, keys[1:], strict=False)):
                setattr(self, name, {k: table[k] for k in sorted(keys)})
        return self

    def to_dict(self) -> Json:
        """Plain JSON-able data (the map is stored once per game, not per month)."""
        data = _ADAPTER.dump_python(self, mode="json", exclude={"owner", "map"})
        data["owner"] = self.owner.tolist()
        return data

    def stored_form(self) -> tuple[str, bytes]:
        """(state_hash, the JSON the game file keeps): the JSON has `to_dict`'s keys in its order, so loading it gives
        `to_dict()` back (json.loads), and the hash is `state_hash()`'s.

        Faster than `to_dict` + `hash_of_data` + json.dumps: the owner array's JSON is made once for both (and
        kept per map while the array is unchanged, `_owner_json`), and both texts are written by pydantic's
        serializer straight from the dataclasses (`_canonical_bytes`; its floats round-trip exactly, NaN and
        Infinity as Python's json writes them), with no JSON data made in between.
        """
        owner = _owner_json(self)
        body = _STORE_SERIALIZER.to_json(self, exclude=_NOT_STORED)
        if b"NaN" in body or b"Infinity" in body:  # to_dict has null for one in free JSON: made its way
            body = _STORE_ADAPTER.dump_json(_ADAPTER.dump_python(self, mode="json", exclude=_NOT_STORED))
        return self._digest(owner), b"".join((body[:-1], b',"owner":', owner.encode(), b"}"))

    def _digest(self, owner: str) -> str:
        """The canonical hash of the state whose owner array's JSON is `owner`."""
        return hashlib.sha256(_canonical_bytes(self, owner)).hexdigest()[:32]

    @classmethod
    def from_dict(cls, data: Json, game_map: GameMap) -> GameState:
        """The state `to_dict` gave, with every dict and list in the order it was saved; id-keyed dicts are then
        put in ascending id order (sort_ids), so a state read from an older file iterates as one built in memory."""
        body = {k: v for k, v in data.items() if k != "owner"}
        state = _ADAPTER.validate_python(body)
        state.map = game_map
        state.owner = np.asarray(data["owner"], dtype=np.int32)
        return state.sort_ids()

    def canonical_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    def state_hash(self) -> str:
        """Canonical hash of the whole state: replaying the same orders must reproduce it."""
        return self._digest(_owner_json(self))


_ADAPTER: TypeAdapter[GameState] = TypeAdapter(GameState)
#: Writes a `to_dict` body (plain JSON data) as JSON bytes, keys in their order, NaN/Infinity as json.dumps does.
_STORE_ADAPTER: TypeAdapter[Json] = TypeAdapter(Json, config=ConfigDict(ser_json_inf_nan="constants"))
#: Writes a state as `_STORE_ADAPTER.dump_json(to_dict())` would, owner aside, straight from the dataclasses.
_STORE_SERIALIZER = SchemaSerializer(_ADAPTER.core_schema, CoreConfig(ser_json_inf_nan="constants"))
_NOT_STORED = {"owner", "map"}


#: Per map: the owner array's bytes and its JSON, so a month whose tile owners did not change reuses the text.
#: Never stale: the text is reused only when the array's bytes (and dtype) equal the ones it was made from.
_OWNER_JSON: weakref.WeakKeyDictionary[GameMap, tuple[str, bytes, str]] = weakref.WeakKeyDictionary()


def _owner_json(state: GameState) -> str:
    """json.dumps(state.owner.tolist()) (compact), reused while the map's owner array holds the same values."""
    owner = state.owner
    raw = owner.tobytes()
    kind = owner.dtype.str
    got = _OWNER_JSON.get(state.map) if state.map is not None else None
    if got is not None and got[0] == kind and got[1] == raw:
        return got[2]
    text = json.dumps(owner.tolist(), separators=(",", ":"))
    if state.map is not None:
        _OWNER_JSON[state.map] = (kind, raw, text)
    return text


#: json.dumps(x, sort_keys=True, separators=(",", ":")) as one encoder made once (json.dumps makes one a call);
#: without the circular-reference check, which only turns a cycle into a different error (state JSON has none).
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), check_circular=False).encode


def _canonical_text(data: Json, owner: str) -> str:
    """The sorted-key compact JSON of `data` with an "owner" key whose JSON is `owner`: the text hash_of_data
    hashes for the whole `to_dict`, made as the keys before "owner" and those after it (two encodings, not one a
    key) with the owner's text put between them, so it is not made again."""
    before = {k: v for k, v in data.items() if k < "owner"}
    after = {k: v for k, v in data.items() if k > "owner"}
    parts = [text[1:-1] for text in (_CANONICAL(before), _CANONICAL(after)) if text != "{}"]
    parts.insert(1 if before else 0, '"owner":' + owner)
    return "{" + ",".join(parts) + "}"


class _NotPlain(Exception):
    """A JSON value `_sorted_json` will not sort itself (a dict key that is not a string): `_canonical_bytes` then
    takes the plain path."""


def _sorted_json(data: dict[Any, Any]) -> Json:
    """A copy of a JSON dict with the keys of every dict in it in sorted order, as json.dumps(sort_keys=True) writes
    them (an empty dict as it is). A state's thousands of dicts hold a few dozen key sets: the copy is a kept dict of
    the same keys in sorted order (`_SORTED_KEYS`) updated with `data`'s values, which leaves its order as it is
    (in C, no sort); only the values that are dicts or lists are walked, picked out in C (most are numbers or
    strings), and a list holding no dict or list is kept as it is."""
    if not data:
        return data
    size = len(data)
    keys = _SORTED_KEYS.get((size, next(iter(data))))
    if keys is None or len(out := keys | data) != size:  # none kept, or kept for other keys (a key it lacks)
        out = _sorted_keys(data) | data
    if not _CONTAINERS.isdisjoint(map(type, out.values())):
        for key in list(compress(out, map(_CONTAINERS.__contains__, map(type, out.values())))):
            value = out[key]
            out[key] = _sorted_json(value) if type(value) is dict else _sorted_items(value)
    return out


#: (number of keys, first key) of a dict -> a dict of the keys of the last such dict `_sorted_json` saw, in sorted
#: order (values None). Never stale: a dict whose keys differ from the kept one's (the update then makes it longer)
#: makes its own. Only string keys (exact type) are kept; emptied when it grows past _SORTED_KEY_SETS (id-keyed
#: dicts make new key sets as a game goes on).
_SORTED_KEYS: dict[tuple[int, Any], dict[str, None]] = {}
_SORTED_KEY_SETS = 2048


def _sorted_keys(data: dict[Any, Any]) -> dict[str, None]:
    """Make and keep `_SORTED_KEYS`' entry for the keys of `data`; _NotPlain when a key is not a string."""
    if not _ONLY_STR.issuperset(map(type, data)):
        raise _NotPlain
    if len(_SORTED_KEYS) >= _SORTED_KEY_SETS:
        _SORTED_KEYS.clear()
    keys = _SORTED_KEYS[(len(data), next(iter(data)))] = dict.fromkeys(sorted(data))
    return keys


_SEQUENCES = (list, tuple)
_CONTAINERS = frozenset((dict, list, tuple))  # the JSON values _sorted_json walks into (exact types)
_ONLY_STR = frozenset((str,))


def _sorted_items(items: list[Any] | tuple[Any, ...]) -> list[Any] | tuple[Any, ...]:
    """`_sorted_json` inside a list: the list itself when it holds no dict or list (most do not)."""
    if _CONTAINERS.isdisjoint(map(type, items)):
        return items
    return [_sorted_json(v) if type(v) is dict else _sorted_items(v) if type(v) in _SEQUENCES else v for v in items]


def _by_text_key(table: dict[Any, Any]) -> dict[Any, Any]:
    """A dict of dataclasses (by id or kingdom) in the order of its keys' JSON text, as sort_keys has it."""
    return {key: table[key] for key in sorted(table, key=str)}


def _hash_schema(schema: Any) -> Any:
    """The state's core schema made to write sorted keys: every dataclass's fields by name, dicts of dataclasses by
    key text, free JSON values (memory, ledgers, standing orders, lead) through `_sorted_json`. A copy: every dict
    and list of the schema is new, its other values (types, functions) shared."""
    if isinstance(schema, list):
        return [_hash_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    node = {key: value if key == "metadata" else _hash_schema(value) for key, value in schema.items()}
    kind = node.get("type")
    if kind == "dataclass":
        node["fields"] = sorted(node["fields"])
    elif kind == "dataclass-args":
        node["fields"] = sorted(node["fields"], key=lambda f: f["name"])
    elif kind == "dict":
        if node["values_schema"]["type"] == "any":
            node["serialization"] = core_schema.plain_serializer_function_ser_schema(_sorted_json)
        else:  # reordered, then written by the dict's own schema (a wrap serializer would infer the values)
            node["serialization"] = core_schema.plain_serializer_function_ser_schema(
                _by_text_key, return_schema=dict(node))
    return node


@functools.cache
def _hash_serializer() -> SchemaSerializer:
    """Writes a state's canonical JSON (sorted keys at every level), owner aside; made at the first hash (a few
    milliseconds), not at import."""
    return SchemaSerializer(_hash_schema(_ADAPTER.core_schema), CoreConfig(ser_json_inf_nan="constants"))


_FIELDS = sorted(f.name for f in dataclass_fields(GameState) if f.name not in _NOT_STORED)
_BEFORE_OWNER = {name for name in _FIELDS if name < "owner"}
_AFTER_OWNER = {name for name in _FIELDS if name > "owner"}
#: A float pydantic writes otherwise than json.dumps: below 1e-4 (0.0000x, or 1e-7 where json.dumps has 1e-07).
_EXPONENT = re.compile(rb"[0-9]e-")


def _canonical_bytes(state: GameState, owner: str) -> bytes:
    """`_canonical_text(to_dict() data, owner).encode()`, written by pydantic from the dataclasses with sorted keys
    (several times cheaper than making the data and json's encoder) whenever that text is certainly the same: no
    float below 1e-4, no character json.dumps escapes and pydantic does not (non-ASCII, DEL), no NaN or Infinity
    (to_dict makes one in free JSON null), no dict key that is not a string; else the plain way. Every other value
    (floats, ints of any size, the other escapes) pydantic writes as json.dumps does, byte for byte."""
    try:
        write = _hash_serializer().to_json
        parts = [write(state, include=_BEFORE_OWNER), write(state, include=_AFTER_OWNER)]
    except PydanticSerializationError:
        parts = []
    for body in parts:
        if (b"0.0000" in body or (b"e-" in body and _EXPONENT.search(body)) or b"\x7f" in body
                or not body.isascii() or b"NaN" in body or b"Infinity" in body):
            parts = []
    if not parts:
        data = _ADAPTER.dump_python(state, mode="json", exclude=_NOT_STORED)
        return _canonical_text(data, owner).encode()
    return b"".join((parts[0][:-1], b',"owner":', owner.encode(), b",", parts[1][1:]))


def side_name(state: GameState, owner: str) -> str:
    """A kingdom's name, or the side's id ("bandits") when it is no kingdom."""
    kd = state.kingdoms.get(owner)
    return kd.name if kd is not None else owner


def hash_of_data(data: Json) -> str:
    """GameState.state_hash of the state whose `to_dict` is `data` (a caller that has the dict already, to store
    it, hashes it without making it again): sha256 of the sorted-key JSON."""
    return hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:32]


#: The GameState dicts keyed by integer id, kept in ascending id order (sort_ids).
_ID_DICTS = ("cities", "units", "generals", "camps")


# --- what differs between two states (replay --verify) -------------------------------------------------------

_TABLES = {"kingdoms": "kingdom", "cities": "city", "units": "unit", "generals": "general", "camps": "camp"}


def _json_paths(a: Any, b: Any, path: str, out: list[str], limit: int) -> None:
    """Dotted paths (with both values, shortened) where two JSON values differ, at most `limit`."""
    if len(out) >= limit:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if k not in b or k not in a:
                out.append(f"{path}.{k} only in the {'first' if k in a else 'second'}")
            elif a[k] != b[k]:
                _json_paths(a[k], b[k], f"{path}.{k}" if path else str(k), out, limit)
            if len(out) >= limit:
                return
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                _json_paths(x, y, f"{path}[{i}]", out, limit)
            if len(out) >= limit:
                return
    else:
        def short(v: Any) -> str:
            text = json.dumps(v, sort_keys=True)
            return text if len(text) <= 40 else text[:37] + "..."
        out.append(f"{path} {short(a)} != {short(b)}")


def diff_states(a: GameState, b: GameState, names: tuple[str, str] = ("replayed", "stored"),
                limit: int = 20) -> list[str]:
    """What differs between two states, one line per thing: which units, cities, kingdoms... and which fields
    (first value from `a`, second from `b`), plus top-level fields and tile ownership; at most `limit` lines."""
    da, db = a.to_dict(), b.to_dict()
    out: list[str] = []
    for key in da:
        if len(out) >= limit:
            break
        if da[key] == db.get(key):
            continue
        if key in _TABLES:
            label = _TABLES[key]
            ta, tb = da[key], db.get(key) or {}
            for ident in list(ta) + [i for i in tb if i not in ta]:
                if len(out) >= limit:
                    break
                name = f"{label} {ident}" if key == "kingdoms" else f"{label} #{ident}"
                ra, rb = ta.get(ident), tb.get(ident)
                if ra is None or rb is None:
                    out.append(f"{name}: only in the {names[0] if rb is None else names[1]} state")
                    continue
                if ra == rb:
                    continue
                if key == "cities":
                    name += f" ({ra.get('name')})"
                fields: list[str] = []
                _json_paths(ra, rb, "", fields, 4)
                out.append(f"{name}: " + "; ".join(fields))
        elif key == "owner":
            oa, ob = np.asarray(da[key]), np.asarray(db.get(key))
            if oa.shape != ob.shape:
                out.append(f"owner: {oa.size} tiles != {ob.size}")
                continue
            idx = np.flatnonzero(oa != ob)
            i = int(idx[0])
            tile = (int(a.map.q_of[i]), int(a.map.r_of[i])) if a.map is not None else i
            out.append(f"tile owners: {idx.size} tiles differ, first {tile}: city {int(oa[i])} != city {int(ob[i])}"
                       " (-1: nobody's)")
        else:
            paths: list[str] = []
            _json_paths(da[key], db.get(key), key, paths, 4)
            out.append("; ".join(paths))
    if out:
        out.insert(0, f"(values: {names[0]} != {names[1]})")
    return out


# --- the explicit deep copy behind GameState.clone -------------------------------------------------------------

_ATOMS = frozenset({str, int, float, bool, type(None)})


def _copy_json(value: Any) -> Any:
    """A deep copy of JSON-like data: dicts and lists (and tuples, sets) copied all the way down, scalars shared.

    Anything else goes through copy.deepcopy, so an unexpected value is still copied, only slower.
    """
    kind = type(value)
    if kind is dict:  # a shallow copy in C, then only the nested containers replaced (most values are scalars)
        out = value.copy()
        for k, v in value.items():
            if type(v) not in _ATOMS:
                out[k] = _copy_json(v)
        return out
    if kind is list:
        copied = value.copy()
        for i, v in enumerate(value):
            if type(v) not in _ATOMS:
                copied[i] = _copy_json(v)
        return copied
    if kind in _ATOMS:
        return value
    if kind is tuple:
        return tuple(_copy_json(v) for v in value)
    if kind is set or kind is frozenset:
        return kind(_copy_json(v) for v in value)
    if isinstance(value, (np.generic, str, int, float)):
        return value  # numpy scalars, subclasses of str and numbers: immutable
    return copy.deepcopy(value)


def _tile(t: Any) -> Any:
    """A tile (a tuple of ints, shared as it is) or None; anything else is copied."""
    return t if t is None or type(t) is tuple else _copy_json(t)


# The copies below make the object with __new__ and set every field (as the dataclass __init__ would, which has
# no __post_init__ here): about four times faster than calling the constructor with keywords, and each written out
# (a loop over the field names with getattr/setattr took twice as long). Every field holds a scalar but those
# copied below (tests/test_state_clone.py finds a field left out: the copy would lack it).
_new = object.__new__


def _copy_improvement(i: Improvement) -> Improvement:
    new: Improvement = _new(Improvement)
    new.q = i.q
    new.r = i.r
    new.kind = i.kind
    return new


def _copy_general(g: General) -> General:
    new: General = _new(General)
    new.id = g.id
    new.owner = g.owner
    new.name = g.name
    new.xp = g.xp
    new.unit_id = g.unit_id
    new.city_id = g.city_id
    return new


def _copy_camp(c: Camp) -> Camp:
    new: Camp = _new(Camp)
    new.id = c.id
    new.owner = c.owner
    new.q = c.q
    new.r = c.r
    new.grain = c.grain
    return new


def _copy_spy(s: StationedSpy) -> StationedSpy:
    new: StationedSpy = _new(StationedSpy)
    new.owner = s.owner
    new.city_id = s.city_id
    new.since = s.since
    return new


def _copy_kingdom(kd: Kingdom, memory: bool = True) -> Kingdom:
    new: Kingdom = _new(Kingdom)
    new.id = kd.id
    new.name = kd.name
    new.ruler = kd.ruler
    new.landing = _tile(kd.landing)
    new.city_names = list(kd.city_names)
    new.general_names = list(kd.general_names)
    new.capital_id = kd.capital_id
    new.names_used = kd.names_used
    new.generals_used = kd.generals_used
    new.eliminated = kd.eliminated
    new.eliminated_month = kd.eliminated_month
    new.memory = _copy_json(kd.memory) if memory else {}
    new.result = kd.result
    new.place = kd.place
    return new


def _copy_entry(e: QueueEntry) -> QueueEntry:
    new: QueueEntry = _new(QueueEntry)
    new.item = e.item
    new.men = e.men
    new.tile = _tile(e.tile)
    new.paid = e.paid
    new.months = e.months
    return new


def copy_city(c: City, *, books: bool = True) -> City:
    """A copy of a city sharing no mutable object with it (as GameState.clone copies it); with `books=False`
    what its owner keeps to itself is left out: an empty queue and ledger, no store or grain (a rival's city on a
    believed board, INTEL-040), without copying what is left out."""
    new: City = _new(City)
    new.id = c.id
    new.name = c.name
    new.owner = c.owner
    new.founder = c.founder
    new.q = c.q
    new.r = c.r
    new.people = c.people
    new.focus = c.focus
    new.grain = c.grain if books else 0.0
    new.store = c.store if books else 0.0
    new.happiness = c.happiness
    new.walls = c.walls
    new.walls_max = c.walls_max
    new.buildings = list(c.buildings)
    new.improvements = [_copy_improvement(i) for i in c.improvements]
    new.queue = [_copy_entry(e) for e in c.queue] if books else []
    new.is_capital = c.is_capital
    new.is_ruin = c.is_ruin
    new.militia = c.militia
    new.restless = c.restless
    new.unrest_months = c.unrest_months
    new.captured_by = c.captured_by
    new.founded_month = c.founded_month
    new.last = _copy_json(c.last) if books else {}
    return new


def copy_unit(u: Unit, *, orders: bool = True) -> Unit:
    """A copy of a unit sharing no mutable object with it (as GameState.clone copies it); with `orders=False`
    without its standing order, what it is aimed at and its home city (a rival's troop on a believed board,
    INTEL-040), without copying what is left out."""
    new: Unit = _new(Unit)
    new.id = u.id
    new.owner = u.owner
    new.type = u.type
    new.q = u.q
    new.r = u.r
    new.men = u.men
    new.xp = u.xp
    new.morale = u.morale
    new.hunger = u.hunger
    new.rations = u.rations
    new.cargo = u.cargo
    new.fortified = u.fortified
    new.general_id = u.general_id
    new.standing = _copy_json(u.standing) if orders else None
    new.dest = _tile(u.dest)
    new.home_city = u.home_city if orders else None
    new.standing_meta = _copy_json(u.standing_meta) if orders else None
    return new
