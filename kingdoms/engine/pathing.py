"""Routes over the hex map: month-aware cheapest paths for one unit on the board as it stands (MOVE-020..320).

A route is searched with A* over the flat map arrays. Its cost counts months first, then the moves spent in
the last month, so moves a march cannot use at a month's end (a forest step with one move left, a river
crossing that ends the move) count against it: the route chosen is the one that arrives soonest, and among
those the one that spends fewest moves in its last month. Ties go to the lowest (r, q) predecessor (OPEN-66,
OPEN-74). The rules a step obeys:

- entering a tile costs its terrain (1 or 2); mountains and water never (MOVE-020); a unit with all its moves
  unspent this month may always take one step (OPEN-66);
- an unbridged river tile (without a city) is crossed from one bank straight to the tile opposite, for at least
  one move, and the crossing ends the month's march; nobody stops in it or marches along it, except colonists
  going there to found a city (MOVE-270..300, OPEN-65);
- land and camps of a kingdom at peace are closed to troops, wagons and colonists; scouts and spies cross
  them (DIPLO-020, DIPLO-030, INTEL-210); a foreign city is never entered by a march (spies slip through);
- armed foreign units block; unarmed ones (wagons, colonists, scouts) are passed on a move order but never
  stopped on, and block an attack's approach (MOVE-080..100); foreign spies are invisible and ignored;
  spies slip past every unit (MOVE-320);
- own units in the unit's stacking slot are passed through but a month's march may not end on them; a march
  whose moves run out on one steps on to the next free tile of its route, ending its move (MOVE-040, MOVE-050).

`Ground` is the passability of the board for one unit; `find_route` searches it. Both are pure reads.

The search (`_search`) is A* over labels (key = month, then moves used), ties on f broken by the lower key,
then the lower tile. Its heuristic is consistent (no step adds less to the key than it takes off h) and 0 on
every goal; then each tile it settles gets the same key and the same (lowest) predecessor whatever the
heuristic (every predecessor that could give a lower or equal key is settled first), and the goal reached is
the same: the route does not depend on the heuristic, only the work done. Short searches use the hex
distance to the goal ring; long ones a month-aware bound (`_month_keys`) on landmark lower bounds of the
move costs still ahead (`_landmark_weights`), which settles far fewer tiles.

Per map (the net, weak-keyed by it) are kept: its rows, heuristic weights (a believed map borrows the hex-distance
ones of its true map: they depend on the layout only), and `find_route`'s last answers, keyed by everything the
search reads (the board's arrays as `Ground.board_key` names them, start, moves, goals, join, ghost, colonists):
a board that comes back (a march asked again with nothing moved, a believed map unchanged since last month) is
not searched again, and any change of the board, of its map or of the question is another key. A search fills
spare label lists kept per layout, and resets the few entries it wrote before it hands them back (`_give_back`).
"""

from __future__ import annotations

import heapq
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields
from typing import Protocol, TypeVar

import numpy as np

from kingdoms import ruledata as rd
from kingdoms.engine.land import holder_codes
from kingdoms.frozen import record
from kingdoms.gamemap import GameMap
from kingdoms.hexgrid import Tile, hex_len, hex_lens
from kingdoms.state import GameState, Unit

#: Stacking slots (MOVE-110, OPEN-67): one troop, one siege train and one civilian per tile; agents take none.
TROOP, SIEGE, CIVILIAN, AGENT = "troop", "siege", "civilian", "agent"

STEP, CROSS, OVERFLOW = "step", "cross", "overflow"


def _slot_rule(unit_type: str, spec: rd.UnitType) -> str:
    """One troop, one siege train (catapults) and one civilian per tile; agents take no slot (MOVE-110, OPEN-67)."""
    if spec.kind == "agent":
        return AGENT
    if unit_type == "catapult":
        return SIEGE
    return TROOP if spec.kind == "troop" else CIVILIAN


_SLOTS = {name: _slot_rule(name, spec) for name, spec in rd.UNITS.items()}


def slot_of_type(unit_type: str) -> str:
    """The stacking slot a unit of this type takes on its tile (MOVE-110, OPEN-67)."""
    return _SLOTS[unit_type]


def slot_of(unit: Unit) -> str:
    """The stacking slot a unit takes on its tile (MOVE-110, OPEN-67)."""
    return _SLOTS[unit.type]


def is_armed(unit: Unit) -> bool:
    """Armed units block marches: fighting troops, a lone siege train included (MOVE-090, OPEN-67)."""
    return unit.spec.fighting


_ARMED = frozenset(name for name, spec in rd.UNITS.items() if spec.fighting)


# --- static per-map arrays ----------------------------------------------------------------------------------

_Edge = tuple[int, int]  # (neighbour, cost)
_Way = tuple[int, int, int]  # (neighbour, tile straight beyond or -1, cost)
_Row = TypeVar("_Row", covariant=True)


class Rows(Protocol[_Row]):
    """Per-tile rows indexed by flat tile index: a tuple on a true map, made on first use on a believed one."""

    def __getitem__(self, u: int, /) -> _Row: ...

    def __len__(self) -> int: ...


Split = tuple[Rows[tuple[_Edge, ...]], Rows[tuple[_Way, ...]]]


@record(eq=False)
class _Net:
    """The map's arrays as plain Python sequences, for fast scalar access in the search loop, and its caches."""

    width: int
    nbr: tuple[tuple[int, ...], ...]
    cost: Sequence[int]  # move cost per tile, 0 where none may enter
    q: tuple[int, ...]
    r: tuple[int, ...]
    impassable: bytes
    river: bytes  # unbridged river tiles (before cities are taken off)
    ways: Rows[tuple[_Way, ...]]  # per tile: (neighbour, tile straight beyond or -1, its cost)
    beyond: Rows[tuple[tuple[int, int], ...]]  # per tile: (neighbour, tile straight beyond or -1), the layout
    max_cost: int
    q_arr: np.ndarray  # int64 q_of / r_of (for the heuristics)
    r_arr: np.ndarray
    impassable_arr: np.ndarray  # bool
    zeros: bytes  # a zero weight per tile: no heuristic
    splits: dict[bytes, Split]
    weights: dict[frozenset[int], bytes]  # landmark weights per tile, by goal set (a few hundred kept)
    rings: dict[tuple[int, int], bytes]  # hex-distance weights by goal ring (layout only: shared by believed maps)
    ring_tables: list[np.ndarray]  # made on first use: hex distances by offset from a centre (_ring_tables; shared)
    landmarks: list[np.ndarray]  # made on first use: distances from and to a few tiles (_landmarks)
    closed: dict[tuple, tuple[bytes, bytes]]  # _closed_land's last few answers
    routes: dict[tuple, Route | None]  # find_route's last few answers, by everything the search reads
    labels: list[tuple[list[int], list[int]]]  # spare (best, parent) lists for find_route's searches, all _INF and
    # -1 (_give_back resets the entries a search wrote): shared by the true map and its believed maps (one layout)
    nbr_arr: np.ndarray  # gamemap.nbr: (n, 6), -1 off the map
    nbr_index: np.ndarray  # the same as intp: numpy's fancy indexing is several times slower with int32 indices
    steps_all: tuple[tuple[_Edge, ...], ...]  # the true map's rows as (neighbour, cost), no crossing split off
    own_row: list[bytes]  # a believed map: 1 where a tile's row differs from the true map's (a neighbour's cost
    # does), made on first use (_own_row: only a split reads it, and a third of believed maps are never searched)
    cost_arr: np.ndarray  # the move cost per tile as an array, 0 where none may enter (`cost`)
    true_cost: np.ndarray  # the true map's cost_arr (this one's on a true map)
    plain: bool = False  # a believed map (engine.belief): searched with the plain hex-distance heuristic only

    def split(self, crossing: bytearray) -> Split:
        """Each tile's neighbours split by `crossing` (the board's unbridged river tiles, cities taken off):
        ordinary ones as (neighbour, cost), river ones as (neighbour, tile straight beyond it, cost)."""
        key = bytes(crossing)
        out = self.splits.get(key)
        if out is None and self.plain:  # a believed map: rows made when a search first reaches them
            if len(self.splits) >= 16:
                del self.splits[next(iter(self.splits))]
            # a row with the true map's steps and no crossing beside it is the true map's, all ordinary steps
            own = _beside(self.nbr_index, np.flatnonzero(np.frombuffer(key, dtype=np.uint8)), self._own_row())
            out = self.splits[key] = (_PlainRows(own, key, self.beyond, self.cost, self.steps_all),
                                      _RiverRows(own, key, self.beyond, self.cost))
        if out is None:
            base = self.splits.get(self.river)
            rows: Iterable[int]
            if base is None or key == self.river:
                # a row with no crossing beside it is every neighbour as an ordinary step (steps_all) and no
                # crossing: only the rows beside a crossing are made
                plain_rows: list = list(self.steps_all)
                river_rows: list = [()] * len(self.nbr)
                rows = np.flatnonzero(np.frombuffer(_beside(self.nbr_index, np.flatnonzero(
                    np.frombuffer(key, dtype=np.uint8))), dtype=np.uint8)).tolist()
            else:  # only the rows beside tiles that differ from the bare map change
                plain0, river0 = base
                assert isinstance(plain0, tuple) and isinstance(river0, tuple)  # a true map's rows are tuples
                plain_rows, river_rows = list(plain0), list(river0)
                rows = sorted({u for i in range(len(key)) if key[i] != self.river[i] for u in self.nbr[i] if u >= 0})
            pairs = tuple(enumerate(self.cost))  # shared by every row
            for u in rows:
                row = self.ways[u]
                plain_rows[u] = tuple(pairs[v] for v, _b, _c in row if not crossing[v])
                river_rows[u] = tuple((v, b, c) for v, b, c in row if crossing[v])
            if len(self.splits) >= 16:
                del self.splits[next(k for k in self.splits if k != self.river)]
            out = self.splits[key] = (tuple(plain_rows), tuple(river_rows))
        return out

    def _own_row(self) -> bytes:
        """`own_row`, worked out the first time it is read: the tiles beside one whose cost differs from the true
        map's (on a true map none)."""
        if not self.own_row:
            self.own_row.append(_beside(self.nbr_index, np.flatnonzero(self.cost_arr != self.true_cost)))
        return self.own_row[0]


_T = TypeVar("_T")
_K = TypeVar("_K")


class _LazyRows(dict[int, _T]):
    """Per-tile rows of a believed map's net, each made on first use (a believed map serves one kingdom-month,
    and its searches reach a small part of it). A dict whose missing rows a subclass's __missing__ makes: a row
    already made is read at a plain dict's speed in the search loop."""

    __slots__ = ()

    def __len__(self) -> int:
        raise TypeError("a believed map's rows are made one at a time")


class _Rows(_LazyRows[_T]):
    """Rows made by a function of the tile."""

    __slots__ = ("_make",)

    def __init__(self, make: Callable[[int], _T]) -> None:
        super().__init__()
        self._make = make

    def __missing__(self, u: int) -> _T:
        row = self[u] = self._make(u)
        return row


class _PlainRows(_LazyRows[tuple[_Edge, ...]]):
    """A believed map's ordinary steps per tile, each row made on first use: the true map's row where the ground
    around the tile is the same and no crossing lies beside it (`own` 0), else (neighbour, cost) for every
    neighbour not in `crossing`."""

    __slots__ = ("_own", "_crossing", "_layout", "_cost", "_base")

    def __init__(self, own: bytes, crossing: bytes, layout: Rows[tuple[tuple[int, int], ...]],
                 cost: Sequence[int], base: tuple[tuple[_Edge, ...], ...]) -> None:
        super().__init__()
        self._own, self._crossing, self._layout, self._cost, self._base = own, crossing, layout, cost, base

    def __missing__(self, u: int) -> tuple[_Edge, ...]:
        if self._own[u]:
            crossing, cost = self._crossing, self._cost
            row = self[u] = tuple([(v, cost[v]) for v, _b in self._layout[u] if not crossing[v]])
        else:
            row = self[u] = self._base[u]
        return row


class _RiverRows(_LazyRows[tuple[_Way, ...]]):
    """A believed map's crossings per tile, each row made on first use: (neighbour in `crossing`, tile straight
    beyond it, the neighbour's cost); none where no crossing lies beside the tile (`own` 0)."""

    __slots__ = ("_own", "_crossing", "_layout", "_cost")

    def __init__(self, own: bytes, crossing: bytes, layout: Rows[tuple[tuple[int, int], ...]],
                 cost: Sequence[int]) -> None:
        super().__init__()
        self._own, self._crossing, self._layout, self._cost = own, crossing, layout, cost

    def __missing__(self, u: int) -> tuple[_Way, ...]:
        if self._own[u]:
            crossing, cost = self._crossing, self._cost
            row = self[u] = tuple([(v, b, cost[v]) for v, b in self._layout[u] if crossing[v]])
        else:
            row = self[u] = ()
        return row


_NETS: weakref.WeakKeyDictionary[GameMap, _Net] = weakref.WeakKeyDictionary()


#: Believed maps (engine.belief.believed_map) and the true map each was made from: they share its layout.
_BASES: weakref.WeakKeyDictionary[GameMap, GameMap] = weakref.WeakKeyDictionary()


def derived_map(gm: GameMap, base: GameMap) -> None:
    """Mark `gm` as a variant of `base` with the same layout but other terrain (a kingdom's believed map).

    Its net shares the base's layout arrays, and its searches use the plain hex-distance heuristic: a believed
    map lives for one kingdom-month, too short to pay for landmark tables (the routes are the same either way,
    the heuristic being consistent; pathing module docstring).
    """
    _BASES[gm] = base


def base_of(gm: GameMap) -> GameMap:
    """The true map a believed map was made from (derived_map), else `gm` itself: the two share one layout."""
    return _BASES.get(gm, gm)


def net_of(gm: GameMap) -> _Net:
    """The cached plain-Python arrays of a map (the map never changes during a game)."""
    net = _NETS.get(gm)
    if net is None:
        base = _BASES.get(gm)
        net = _NETS[gm] = _true_net(gm) if base is None else _believed_net(gm, base)
    return net


def _beside(nbr: np.ndarray, tiles: np.ndarray, marked: bytes = b"") -> bytes:
    """1 on every tile beside one of `tiles` (flat indices) and on every tile `marked` holds a 1 for, as bytes.

    The tiles beside a tile are those whose neighbours include it (the neighbour relation is symmetric).
    """
    n = len(nbr)
    out = np.zeros(n + 1, dtype=np.uint8)  # the last is where an off-the-map neighbour (-1) lands
    if marked:
        out[:n] = np.frombuffer(marked, dtype=np.uint8)
    out[np.take(nbr, tiles, axis=0)] = 1
    return out[:n].tobytes()


def _true_net(gm: GameMap) -> _Net:
    """The net of a map made on its own: its step rows built now, tuples read by the search loop."""
    nbr_rows = gm.nbr.tolist()
    nbr = tuple(map(tuple, nbr_rows))
    cost_arr = np.maximum(gm.move_cost, 0)
    cost = tuple(cost_arr.tolist())
    pairs = list(enumerate(cost))  # (tile, its cost), shared by every row
    straight = gm.nbr[np.maximum(gm.nbr, 0), np.arange(6)].tolist()  # the tile beyond each neighbour, same side

    # the layout and ways rows are read only beside crossings and by believed maps: each made on first use
    def beyond_row(u: int) -> tuple[tuple[int, int], ...]:
        return tuple([(v, b) for v, b in zip(nbr_rows[u], straight[u], strict=True) if v >= 0])

    beyond: _Rows[tuple[tuple[int, int], ...]] = _Rows(beyond_row)

    def way_row(u: int) -> tuple[_Way, ...]:
        return tuple([(v, b, cost[v]) for v, b in beyond[u]])

    return _Net(
        width=gm.width,
        nbr=nbr,
        cost=cost,
        q=tuple(gm.q_of.tolist()),
        r=tuple(gm.r_of.tolist()),
        impassable=(gm.move_cost <= 0).astype(np.uint8).tobytes(),
        river=(gm.river & ~gm.bridge).astype(np.uint8).tobytes(),
        ways=_Rows(way_row),
        beyond=beyond,
        max_cost=max(max(cost, default=1), 1),
        q_arr=np.asarray(gm.q_of, dtype=np.int64),
        r_arr=np.asarray(gm.r_of, dtype=np.int64),
        impassable_arr=np.asarray(gm.move_cost <= 0),
        zeros=bytes(gm.size),
        splits={},
        weights={},
        rings={},
        ring_tables=[],
        landmarks=[],
        closed={},
        routes={},
        labels=[],
        nbr_arr=gm.nbr,
        nbr_index=gm.nbr.astype(np.intp),
        steps_all=tuple(tuple([pairs[v] for v in row if v >= 0]) for row in nbr_rows),
        own_row=[bytes(gm.size)],
        cost_arr=cost_arr,
        true_cost=cost_arr,
    )


def _believed_net(gm: GameMap, true: GameMap) -> _Net:
    """The net of a believed map (derived_map): the true map's layout, and its rows wherever the ground around a
    tile is the same; the other rows are made when a search first reaches them."""
    base = net_of(true)
    clipped = gm.move_cost  # never below 0 (an impassable terrain's is 0, gamemap._MOVE): the true net's np.maximum
    impassable = clipped == 0
    max_cost = max(int(clipped.max(initial=1)), 1)
    # read per tile when rows are made: bytes (made at once) when every cost fits in one, else a list
    cost: Sequence[int] = clipped.astype(np.uint8).tobytes() if max_cost <= 255 else clipped.tolist()
    layout = base.beyond

    def way_row(u: int) -> tuple[_Way, ...]:  # not read by the search (a believed map's split makes its own rows)
        return tuple([(v, b, cost[v]) for v, b in layout[u]])

    return _Net(
        width=gm.width, nbr=base.nbr, cost=cost, q=base.q, r=base.r,
        impassable=impassable.view(np.uint8).tobytes(),  # a bool array's bytes are its 0/1 as uint8
        river=(gm.river > gm.bridge).view(np.uint8).tobytes(),  # unbridged river tiles
        ways=_Rows(way_row), beyond=layout,
        max_cost=max_cost, q_arr=base.q_arr, r_arr=base.r_arr,
        impassable_arr=impassable, zeros=base.zeros, splits={}, weights={}, rings=base.rings,
        ring_tables=base.ring_tables, landmarks=[], closed={}, routes={}, labels=base.labels, nbr_arr=base.nbr_arr,
        nbr_index=base.nbr_index, steps_all=base.steps_all, own_row=[], cost_arr=clipped, true_cost=base.cost_arr,
        plain=True,
    )


# --- the board for one unit ---------------------------------------------------------------------------------


def _closed_land(state: GameState, owner: str, net: _Net) -> bytes:
    """Impassable tiles, and the land and camps of every kingdom at peace with `owner` (DIPLO-020), as 0/1 bytes.

    Kept per map for the last few boards seen, keyed by what the answer is made of: the kingdoms at peace (and
    every kingdom, whose sorted order gives a believed board's holder codes), their cities and camps, and the
    ownership array's bytes. The boards of a kingdom's units in one phase share it; any change of ownership, of
    camps or of peace makes a new one.
    """
    peace = state.at_peace_with(owner)  # none for bandits, who fight everyone (BANDIT-020)
    if not peace:
        return net.impassable
    held = state.owner
    cities = tuple([c.id for c in state.cities.values() if c.owner in peace])
    camps = tuple([(c.q, c.r) for c in state.camps.values() if c.owner in peace])
    key = (cities, camps, peace, tuple(state.kingdoms), held.dtype.char, held.shape)
    tiles = held.tobytes()
    hit = net.closed.get(key)
    if hit is not None and hit[0] == tiles:
        return hit[1]
    # a believed board may mark land seen whose city it does not know with its holder's code (land.FREE and below)
    coded = bool(held.size) and int(held.min()) < -1
    ids = cities + tuple(holder_codes(state, sorted(peace))) if coded else cities
    if not ids and not camps:
        out = net.impassable
    else:
        closed = net.impassable_arr.copy()
        if ids:
            if coded:
                closed |= np.isin(held, ids)
            else:
                lut = np.zeros(max(max(ids), int(held.max(initial=-1))) + 2, dtype=bool)  # -1 reads the last: False
                lut[list(ids)] = True
                closed |= lut[held]
        gm = state.map
        for q, r in camps:
            i = gm.index(q, r)
            if i >= 0:
                closed[i] = True
        out = closed.view(np.uint8).tobytes()
    if len(net.closed) >= 64:
        del net.closed[next(iter(net.closed))]
    net.closed[key] = (tiles, out)
    return out


class Ground:
    """Where one unit may go and stop on the board as it stands now.

    `mode` "attack" makes unarmed foreign units block (an attack's approach treats them as targets, MOVE-100).
    `ignore_foreign` treats foreign units as absent (a march blocked by troops walks up to them, TURN-160).
    `open_borders` treats land, cities and camps closed at peace as open (a march stopped by a border it had
    not seen walks up to it, DIPLO-030).
    `own_mask` marks the tiles of the unit's own units in its stacking slot (passed, never stopped on).
    """

    def __init__(self, state: GameState, unit: Unit, *, mode: str = "move", ignore_foreign: bool = False,
                 open_borders: bool = False) -> None:
        gm = state.map
        net = net_of(gm)
        self.state = state
        self.unit = unit
        self.net = net
        self.n = n = gm.size
        self.slot = slot = slot_of(unit)
        self.spy = spy = unit.type == "spy"
        self.colonists = unit.type == "colonists"
        owner = unit.owner
        width = net.width
        closes = slot != AGENT and not open_borders
        closed = _closed_land(state, owner, net) if closes else net.impassable
        self.blocked = blocked = bytearray(closed)
        self.crossing = crossing = bytearray(net.river)
        self.noend = noend = bytearray(n)  # foreign units: passed on a move, never stopped on
        self.own_mask = own_mask = bytearray(n)
        self.stops = stops = bytearray(n)  # noend or own_mask: a march not ghosting own units only passes there
        marks: list[int] = []  # each write below as 4 * tile + what: with `closed`, what the arrays hold
        add = marks.append
        for city in state.cities.values():
            r = city.r
            i = r * width + city.q + (r >> 1)  # the flat index (gamemap.index: odd-r offset_col, on the map)
            crossing[i] = 0  # a city on a river tile is an ordinary tile (OPEN-65)
            add(4 * i)
            if city.owner != owner:
                if spy:
                    noend[i] = stops[i] = 1
                    add(4 * i + 2)
                elif not (open_borders and city.owner in state.kingdoms and not state.at_war(owner, city.owner)):
                    blocked[i] = 1
                    add(4 * i + 1)
        attack = mode == "attack"
        skip_foreign = spy or ignore_foreign
        uid = unit.id
        own_slot = slot != AGENT
        for other in state.units.values():
            kind = other.type
            if other.owner != owner:
                if skip_foreign or kind == "spy":
                    continue
                r = other.r
                i = r * width + other.q + (r >> 1)
                if attack or kind in _ARMED:
                    blocked[i] = 1
                    add(4 * i + 1)
                else:
                    noend[i] = stops[i] = 1
                    add(4 * i + 2)
            elif own_slot and _SLOTS[kind] == slot and other.id != uid:
                r = other.r
                i = r * width + other.q + (r >> 1)
                own_mask[i] = stops[i] = 1
                add(4 * i + 3)
        self._closed = closed
        self._marks = marks
        self._key: tuple[bytes, tuple[int, ...]] | None = None

    def board_key(self) -> tuple[bytes, tuple[int, ...]]:
        """What the board's arrays are made of (the closed tiles and every mark put on them, in order): two
        grounds of one map with equal keys hold equal arrays. The arrays are not written after __init__."""
        if self._key is None:
            self._key = (self._closed, tuple(self._marks))
        return self._key

    # --- tile questions ----------------------------------------------------------------------------------

    def index(self, tile: Tile) -> int:
        return self.state.map.index(tile[0], tile[1])

    def tile(self, i: int) -> Tile:
        return self.net.q[i], self.net.r[i]

    def enterable(self, i: int) -> bool:
        """The unit may set foot on (or cross) flat index i."""
        return 0 <= i < self.n and not self.blocked[i]

    def endable(self, i: int) -> bool:
        """The unit may end a march on flat index i: open, not a river crossing, no foreign unit, its slot free."""
        return (0 <= i < self.n and not self.blocked[i] and not self.noend[i] and not self.crossing[i]
                and not self.own_mask[i])

    def endable_by_any(self, i: int) -> bool:
        """endable without the unit's own slot (own_mask): what holds for every unit of its owner a Ground may be
        shared by (views.forecast places a force with one Ground and reads the slots from the board itself)."""
        return 0 <= i < self.n and not self.blocked[i] and not self.noend[i] and not self.crossing[i]

    def why_not(self, i: int) -> str:
        """Short reason the unit cannot stop on flat index i (for refusal texts)."""
        state = self.state
        gm = state.map
        q, r = self.tile(i)
        if gm.move_cost[i] <= 0:
            return f"({q},{r}) is {gm.terrain_at(q, r).name}, which no unit can enter"
        city = state.city_at(q, r)
        if city is not None and city.owner != self.unit.owner:
            return f"({q},{r}) is the city of {city.name}: attack it to take it"
        if self.blocked[i]:
            for other in state.units_at(q, r):
                if other.owner != self.unit.owner and other.type != "spy":
                    return f"({q},{r}) is held by a foreign {other.type}"
            return f"({q},{r}) lies in land closed to you: its kingdom is at peace with you"
        if self.crossing[i]:
            return f"({q},{r}) is an unbridged river tile: troops cross it but cannot stop in it"
        if self.noend[i]:
            return f"({q},{r}) is held by a foreign unit: you may pass it but not stop there"
        if self.own_mask[i]:
            return f"({q},{r}) is held by your own {self.slot}"
        return f"({q},{r}) is free"

    def free_neighbours(self, i: int) -> list[int]:
        """Endable tiles beside flat index i, in the rules' neighbour order."""
        return [j for j in self.net.nbr[i] if j >= 0 and self.endable(j)]


# --- routes -------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a route: the tile entered (or landed on after a crossing), moves it costs, its month (0 = now)."""

    idx: int
    tile: Tile
    cost: int
    month: int
    kind: str = STEP  # STEP, CROSS (a river crossing: ends the month's move) or OVERFLOW (MOVE-050: ends it)
    via: int = -1  # the river tile crossed


@dataclass(slots=True)
class Route:
    """A planned march: its steps, the months it takes (1 = arrives this month) and the tile it reaches."""

    start: int
    steps: list[Step] = field(default_factory=list)

    @property
    def months(self) -> int:
        """Months to reach the end: 0 when already there, 1 when it arrives this month."""
        return self.steps[-1].month + 1 if self.steps else 0

    @property
    def end(self) -> int:
        return self.steps[-1].idx if self.steps else self.start

    def this_month(self) -> list[Step]:
        return [s for s in self.steps if s.month == 0]

    def month_ends(self) -> list[int]:
        """Flat index where the march stands at the end of each month, this month first."""
        out: list[int] = []
        for k, step in enumerate(self.steps):
            if k + 1 == len(self.steps) or self.steps[k + 1].month != step.month:
                out.append(step.idx)
        return out


_INF = 1 << 60


# Heap entries are ints, so no tuples are built in the search: (f << 40) | (key << 16) | tile (tile < 2**16,
# key < 2**24); key * _KEY_CODE + (h << 40) + tile builds one.
_SHIFT = 16
_F_SHIFT = 40
_KEY_CODE = (1 << _F_SHIFT) | (1 << _SHIFT)
_WEIGHT_CAP = 255  # heuristic weights are capped here (a capped lower bound is still one), kept as bytes
_FAR = 1 << 20  # landmark distance of a tile that cannot be reached
_LANDMARKS = 8
# goals at least this far (hex distance to the ring): the month-aware landmark heuristic. Nearer, its per-goal
# weights (a numpy pass over the map) cost more than the tiles it saves settling: the plain ring weights are
# read from the offset tables (callgrind, PYTHONHASHSEED=0, random6 20 months: 8 instead of 4 -62 M instructions,
# about -1.4 % of the game, as many as never using it; far goals still gain from it)
_MONTHLY_FROM = 8
_WEIGHTS_KEPT = 512  # per map, 1 byte a tile each
_ROUTES_KEPT = 256  # routes found, per map (find_route)


@record
class _Tables:
    """Per moves used `s` this month, for units of `full` moves: what an ordinary step costing c does to the key.

    offs[s][c]: the new key's offset from the month's start key, stepping from a tile the unit may stop on;
    offs_passing[s][c] the same from a tile it only passes, -1 where the step does not fit this month (then
    no step, or the MOVE-050 step off own troops). rows[s][c]: the heuristic row (h << 40 by weight) for the
    label the step lands on; row0 for a label starting a month (a crossing, the step off own troops).
    """

    offs: tuple[tuple[int, ...], ...]
    offs_passing: tuple[tuple[int, ...], ...]
    rows: tuple[tuple[list[int], ...], ...]
    row0: list[int]


_TABLES: dict[tuple[int, int, bool], _Tables] = {}
_FLAT_ROW = [w << _F_SHIFT for w in range(_WEIGHT_CAP + 1)]  # h = weight (the hex distance)


def _month_keys(full: int, s: int, weight: int) -> int:
    """Least key a march of `full` moves, `s` of them used this month, adds covering `weight` (the month-aware h).

    In a month at most `full` of the weight is covered (a step of cost c covers c, a crossing 1 and ends the
    month); a month's last key is full, the next month starts at full + 1.
    """
    room = full - s
    if weight <= room:
        return weight
    rest = weight - room
    return (full + 1 - s) + rest + (rest - 1) // full


def _tables(full: int, max_cost: int, monthly: bool) -> _Tables:
    """The step and heuristic tables of units of `full` moves (cached); `monthly`: month-aware heuristic rows."""
    tables = _TABLES.get((full, max_cost, monthly))
    if tables is None:
        kk = full + 1
        if monthly:
            by_s = [[_month_keys(full, s, w) << _F_SHIFT for w in range(_WEIGHT_CAP + 1)] for s in range(kk)]
        else:
            by_s = [_FLAT_ROW] * kk
        offs, offs_passing, rows = [], [], []
        for s in range(kk):
            room = full - s
            a, b, hr = [], [], []
            for c in range(max_cost + 1):
                if c <= room or s == 0:
                    ns = s + c
                    k = ns if ns < full else full
                    a.append(k)
                    b.append(k)
                    hr.append(by_s[k])
                else:
                    a.append(kk + c)
                    b.append(-1)
                    hr.append(by_s[min(c, full)])
            offs.append(tuple(a))
            offs_passing.append(tuple(b))
            rows.append(tuple(hr))
        tables = _TABLES[(full, max_cost, monthly)] = _Tables(tuple(offs), tuple(offs_passing), tuple(rows), by_s[0])
    return tables


def _search(g: Ground, start: int, full: int, left: int, goals: frozenset[int], centre: int, radius: int,
            join: int, ghost: bool, labels: tuple[list[int], list[int]] | None = None
            ) -> tuple[int, list[int], list[int], list[int], list[int]]:
    """A* from `start`; returns (goal reached or -1, parent of each tile (-1 none), best key of each tile, the
    tiles settled, the heap left): every tile whose key or parent it wrote is `start`, settled or in the heap.

    `labels`: the (best, parent) lists to fill, all _INF and -1 (a spare of net.labels), else new ones are made.

    Label key = month * (full + 1) + moves used in that month. A crossing, or the step off own troops when the
    moves ran out on them (MOVE-050), ends the month: the next label starts the month after at 0 used; a month
    may not end on a tile the unit only passes (foreign units, own units unless `ghost`). With no goals the
    search floods every reachable tile. Heap entries order by f, then key, then tile.

    The heuristic is consistent and 0 on the goals, so the tiles settled, their keys and their predecessors —
    the route — are the same under either heuristic (module docstring); only entries of the parent and key
    lists off the route may differ, and find_route reads only the route (reachable() floods with h = 0). h is
    looked up per label: rows[s][c] (for the moves used in the month the step lands in) indexed by the
    tile's weight: the hex distance to the goal ring, or a landmark lower bound on the move costs ahead.
    Neighbours come in two lists (net.split): ordinary tiles and unbridged river tiles; the order a tile's
    neighbours are relaxed in changes nothing (each is its own tile; the heap orders by distinct ints).
    """
    net = g.net
    crossing, noend, own = g.crossing, g.noend, g.own_mask
    if not goals:
        weight = net.zeros
        tables = _tables(full, net.max_cost, False)
    elif _monthly_ok(g, start, full, goals, centre, radius, ghost):
        weight = _landmark_weights(net, goals)
        tables = _tables(full, net.max_cost, True)
    else:
        weight = _ring_weights(net, centre, radius)
        tables = _tables(full, net.max_cost, False)
    plain_ways, river_ways = net.split(crossing)
    offs, offs_passing, rows, row0 = tables.offs, tables.offs_passing, tables.rows, tables.row0
    dead = bytearray(g.blocked)  # blocked, or settled (closed set)
    colonists = g.colonists
    kk = full + 1
    if labels is None:
        best = [_INF] * g.n
        parent = [-1] * g.n
    else:
        best, parent = labels
    settled: list[int] = []
    used0 = full - left
    best[start] = used0
    if crossing[start] and not colonists:  # on an unbridged river tile: it goes nowhere (OPEN-65)
        found = start if not dead[start] and start in goals and start == join else -1
        return found, parent, best, settled, []
    # a month may not end where the unit only passes: foreign units, and own ones unless ghost (MOVE-040)
    passes = noend if ghost else g.stops
    heap = [used0 * _KEY_CODE + start]
    push, pop = heapq.heappush, heapq.heappop
    settle = settled.append
    code_k = _KEY_CODE
    while heap:
        code = pop(heap)
        u = code & 0xFFFF  # the tile
        if dead[u]:
            continue
        dead[u] = 1
        settle(u)
        key = (code >> 16) & 0xFFFFFF
        if u in goals and (u == join or (not noend[u] and not own[u] and (not crossing[u] or colonists))):
            return u, parent, best, settled, heap
        if colonists and crossing[u]:
            continue  # colonists on a river tile they were not sent to go no further (others never get there)
        s = key % kk
        mk = key - s  # the key the month started at
        hrow = rows[s]
        if not passes[u] or u == start or u == join:
            passing = False
            step = offs[s]
            for v, c in plain_ways[u]:
                if dead[v]:
                    continue
                nk = mk + step[c]
                old = best[v]
                if nk < old:
                    best[v] = nk
                    parent[v] = u
                    push(heap, nk * code_k + hrow[c][weight[v]] + v)
                elif nk == old and u < parent[v]:
                    parent[v] = u
        else:
            passing = True
            on_own = own[u] and not ghost
            step = offs_passing[s]
            for v, c in plain_ways[u]:
                if dead[v]:
                    continue
                nk = step[c]
                if nk >= 0:
                    nk += mk
                    h = hrow[c][weight[v]]
                elif on_own and not noend[v] and not own[v]:
                    nk = mk + kk  # MOVE-050: one more step off own troops, which ends the move
                    h = row0[weight[v]]
                else:
                    continue
                old = best[v]
                if nk < old:
                    best[v] = nk
                    parent[v] = u
                    push(heap, nk * code_k + h + v)
                elif nk == old and u < parent[v]:
                    parent[v] = u
        rivers = river_ways[u]
        if not rivers:
            continue
        room = full - s
        for v, beyond, c in rivers:
            if dead[v]:
                continue
            if colonists and v in goals:
                if c <= room or s == 0:
                    nk = mk + kk  # colonists stop in the river tile: it ends their move
                elif passing:
                    continue
                else:
                    nk = mk + 2 * kk
                dest = v
            else:
                dest = beyond
                if dest < 0 or dead[dest] or crossing[dest] or ((noend[dest] or own[dest]) and dest != join):
                    continue
                if room >= 1:
                    nk = mk + kk
                elif passing:
                    continue
                else:
                    nk = mk + 2 * kk
            old = best[dest]
            if nk < old:
                best[dest] = nk
                parent[dest] = u
                push(heap, nk * code_k + row0[weight[dest]] + dest)
            elif nk == old and u < parent[dest]:
                parent[dest] = u
    return -1, parent, best, settled, heap


def _monthly_ok(g: Ground, start: int, full: int, goals: frozenset[int], centre: int, radius: int,
                ghost: bool) -> bool:
    """Whether the month-aware heuristic may guide this search, and is worth it (a goal ring far enough).

    It is consistent only when no step adds fewer keys than the weight it covers: so not for a unit with
    fewer moves than a step may cost (its first step of a month is capped), not with the MOVE-050 step off own
    troops possible (it starts the next month for free: own units on the board and no `ghost`), and not for
    colonists sent into a river (a settled river tile stops crossings over it, so the order would matter).
    """
    net = g.net
    if net.plain or full < net.max_cost or (not ghost and 1 in g.own_mask):
        return False
    if g.colonists and any(g.crossing[i] for i in goals):
        return False
    dq = net.q[start] - net.q[centre]
    dr = net.r[start] - net.r[centre]
    return hex_len(dq, dr) - radius >= _MONTHLY_FROM


def _remember(cache: dict[_K, _T], key: _K, value: _T, kept: int = _WEIGHTS_KEPT) -> _T:
    """Keep `value` under `key`, the oldest entry going when the cache holds `kept`."""
    if len(cache) >= kept:
        del cache[next(iter(cache))]
    cache[key] = value
    return value


def _ring_weights(net: _Net, centre: int, radius: int) -> bytes:
    """Hex distance of every tile to the ring of `radius` around `centre` (0 inside it): the plain A* weights."""
    weights = net.rings.get((centre, radius))
    if weights is None:
        width = net.width
        height = len(net.q) // width
        row = net.r[centre]
        col = centre - row * width
        tables = _ring_tables(net)
        parity = row & 1
        top, left = height - 1 - row, width - 1 - col
        if radius == 0:  # the distance capped at the weight cap, as bytes (the view copied in row order)
            weights = tables[parity][top:top + height, left:left + width].tobytes()
        else:
            d = tables[2 + parity][top:top + height, left:left + width] - radius
            np.maximum(d, 0, out=d)
            np.minimum(d, _WEIGHT_CAP, out=d)
            weights = d.astype(np.uint8).tobytes()
        weights = _remember(net.rings, (centre, radius), weights)
    return weights


def _ring_tables(net: _Net) -> list[np.ndarray]:
    """Hex distances from a centre by offset (rows dr = -(h-1)..h-1, columns dc = -(w-1)..w-1), one table for a
    centre on an even row and one for an odd row (odd-r offset rows: a column's axial q depends on the row's
    parity): capped at the weight cap as uint8, then uncapped as int64. The weights of a ring around any centre
    are a (h, w) window of them: made once per layout (the distance is the same between any two tiles so placed).
    """
    if not net.ring_tables:
        width = net.width
        height = len(net.q) // width
        dr = np.arange(-(height - 1), height, dtype=np.int64)[:, None]
        dc = np.arange(-(width - 1), width, dtype=np.int64)[None, :]
        full = []
        for parity in (0, 1):
            rc = 2 * height + parity  # a centre row of this parity (any will do: the distance is translation-free)
            r = rc + dr
            dq = dc - ((r - (r & 1)) // 2 - (rc - (rc & 1)) // 2)  # axial q of the tile minus the centre's
            full.append(hex_lens(dq, r - rc + 0 * dc))
        net.ring_tables.extend([np.minimum(d, _WEIGHT_CAP).astype(np.uint8) for d in full] + full)
    return net.ring_tables


def _landmark_weights(net: _Net, goals: frozenset[int]) -> bytes:
    """Per tile a lower bound on the weight (move costs, 1 a crossing) still to cover to reach any goal.

    ALT bounds from the landmarks: d(v, g) >= d(L, g) - d(L, v) and d(v, g) >= d(v, L) - d(g, L), for every
    goal g, so the least over the goals; a max of consistent bounds is consistent, and 0 on every goal.
    """
    weights = net.weights.get(goals)
    if weights is None:
        rows = _landmarks(net)  # -d(L, v) and d(v, L) per landmark
        g = np.fromiter(goals, dtype=np.int64, count=len(goals))
        lower = (rows - rows[:, g].max(axis=1)[:, None]).max(axis=0)
        np.maximum(lower, 0, out=lower)  # np.clip(lower, 0, cap), without its Python wrapper
        np.minimum(lower, _WEIGHT_CAP, out=lower)
        weights = _remember(net.weights, goals, lower.astype(np.uint8).tobytes())
    return weights


def _landmarks(net: _Net) -> np.ndarray:
    """Distances from and to a few landmark tiles spread over the map, on a relaxed board: every tile a step may
    enter (at its cost) and every crossing (at 1) is open, whatever stands there. Made once per map.

    Rows -d(L, v) for each landmark L, then d(v, L): the ALT bound for goals G is max over the rows of
    (row[v] - max over G of row[g]).
    """
    if not net.landmarks:
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import dijkstra

        n = len(net.cost)
        cost = net.cost_arr.astype(np.int64)
        nbr = net.nbr_arr
        u = np.repeat(np.arange(n), 6)
        v = nbr.ravel().astype(np.int64)
        on = v >= 0
        u, v = u[on], v[on]
        far = nbr[v, np.tile(np.arange(6), n)[on]].astype(np.int64)  # the tile straight beyond v, seen from u
        step = cost[v] > 0  # a step enters v at its cost
        river = np.frombuffer(net.river, dtype=np.uint8)[v] > 0
        jump = river & (far >= 0) & (cost[np.maximum(far, 0)] > 0)  # a crossing over v lands beyond, at 1
        src = np.concatenate([u[step], u[jump]])
        dst = np.concatenate([v[step], far[jump]])
        weight = np.concatenate([cost[v[step]], np.ones(int(jump.sum()), dtype=np.int64)])
        order = np.lexsort((weight, src * n + dst))  # an edge given twice keeps its cheaper weight
        pair = (src * n + dst)[order]
        keep = order[np.concatenate([[True], pair[1:] != pair[:-1]])]
        graph = csr_matrix((weight[keep].astype(np.float64), (src[keep], dst[keep])), shape=(n, n))
        land = np.flatnonzero(cost > 0)
        picks: list[int] = []
        if land.size:
            picks.append(int(land[np.lexsort((net.q_arr[land], net.r_arr[land]))[0]]))  # lowest (r, q)
            nearest = np.full(n, _FAR, dtype=np.int64)
            while len(picks) < min(_LANDMARKS, land.size):  # each next: the land tile farthest from those picked
                dq = net.q_arr - net.q[picks[-1]]
                dr = net.r_arr - net.r[picks[-1]]
                nearest = np.minimum(nearest, hex_lens(dq, dr))
                far_tile = int(np.argmax(np.where(net.impassable_arr, -1, nearest)))
                if far_tile in picks:
                    break
                picks.append(far_tile)
        if picks:
            # scipy's Dijkstra (compiled) from each landmark, then on the reversed board to it: sums of small
            # integer weights, exact in float64; unreachable tiles (inf) take _FAR
            dist = np.concatenate([-dijkstra(graph, directed=True, indices=picks),
                                   dijkstra(graph.T.tocsr(), directed=True, indices=picks)])
            rows = np.where(np.isinf(dist), np.copysign(_FAR, dist), dist).astype(np.int32)
        else:
            rows = np.zeros((1, n), dtype=np.int32)
        net.landmarks.append(rows)
    return net.landmarks[0]


def _build(g: Ground, start: int, goal: int, parent: list[int], best: list[int], full: int) -> Route:
    """The route to `goal` from the search's parents, each step's kind and month read back from the keys."""
    kk = full + 1
    net = g.net
    nbr, cost, qs, rs = net.nbr, net.cost, net.q, net.r
    crossing = g.crossing
    steps: list[Step] = []
    add = steps.append
    v = goal
    while v != start:
        u = parent[v]
        month, used = divmod(best[v], kk)
        if v not in nbr[u]:  # two tiles apart: a crossing over the river tile between, ending the month
            via = next(j for j in nbr[u] if j >= 0 and j in nbr[v])
            add(_step(v, (qs[v], rs[v]), 1, month - 1, CROSS, via))
        elif used == 0:  # landed as the month ends: the step off own troops, or colonists into a river
            river = bool(crossing[v])
            add(_step(v, (qs[v], rs[v]), cost[v] if river else 0, month - 1, STEP if river else OVERFLOW, -1))
        else:
            add(_step(v, (qs[v], rs[v]), cost[v], month, STEP, -1))
        v = u
    steps.reverse()
    return Route(start, steps)


_SET_STEP = tuple(Step.__dict__[f.name].__set__ for f in fields(Step))  # the slots, in field order
_NEW_STEP = Step.__new__


def _step(idx: int, tile: Tile, cost: int, month: int, kind: str, via: int) -> Step:
    """Step(idx, tile, cost, month, kind, via), filled through its slots (a frozen dataclass's __init__ is slow)."""
    step = _NEW_STEP(Step)
    set_idx, set_tile, set_cost, set_month, set_kind, set_via = _SET_STEP
    set_idx(step, idx)
    set_tile(step, tile)
    set_cost(step, cost)
    set_month(step, month)
    set_kind(step, kind)
    set_via(step, via)
    return step


def find_route(g: Ground, goals: set[int], *, moves_left: float | None = None, centre: int | None = None,
               radius: int = 0, join: int = -1, ghost: bool = False) -> Route | None:
    """The cheapest route (soonest arrival, OPEN-66) from the unit's tile to the nearest of `goals`, or None.

    `centre`/`radius`: every goal lies within `radius` of `centre` (for the heuristic; default: the single
    goal). `join`: a goal tile held by an own unit the march may end on to merge (MOVE-230, MOVE-280).
    `moves_left`: moves the unit has this month (default: its full moves). `ghost`: own units count as absent
    (the ideal route, MOVE-060).
    """
    unit = g.unit
    start = g.index(unit.tile)
    full = unit.spec.moves
    left = full if moves_left is None else max(0, min(full, int(moves_left + 1e-9)))
    if start in goals:
        return Route(start)
    goals = {i for i in goals if 0 <= i < g.n}
    if not goals:
        return None
    if centre is None:
        if len(goals) != 1:
            raise ValueError("several goals need a centre and radius for the search heuristic")
        centre = next(iter(goals))
    wanted = frozenset(goals)
    # the route is a function of the board's arrays, the start, the moves, the goals, join, ghost and colonists
    # (the heuristic, from centre and radius, changes only the work done): kept per net, which lives with its map
    key = (g.board_key(), start, full, left, wanted, join, ghost, g.colonists)
    routes = g.net.routes
    if key in routes:
        route = routes[key]
    else:
        spares = g.net.labels
        found, parent, best, settled, heap = _search(g, start, full, left, wanted, centre, radius, join, ghost,
                                                     spares.pop() if spares else None)
        route = _remember(routes, key, None if found < 0 else _build(g, start, found, parent, best, full),
                          _ROUTES_KEPT)
        _give_back(spares, parent, best, start, settled, heap)
    return None if route is None else Route(route.start, list(route.steps))  # a copy: callers may change it


def _give_back(spares: list[tuple[list[int], list[int]]], parent: list[int], best: list[int], start: int,
               settled: list[int], heap: list[int]) -> None:
    """Reset the entries a search wrote (start, the tiles settled, those left in the heap) and keep the lists as
    spares: a search reaches a few dozen tiles of a map's thousands, so this costs less than two new lists."""
    best[start] = _INF
    parent[start] = -1
    for v in settled:
        best[v] = _INF
        parent[v] = -1
    for code in heap:
        v = code & 0xFFFF
        best[v] = _INF
        parent[v] = -1
    if len(spares) < 2:
        spares.append((best, parent))


def reachable(g: Ground, *, moves_left: float | None = None) -> dict[int, int]:
    """Every tile the unit can reach (flat index -> months to reach, 0 for its own tile)."""
    unit = g.unit
    start = g.index(unit.tile)
    full = unit.spec.moves
    left = full if moves_left is None else max(0, min(full, int(moves_left + 1e-9)))
    kk = full + 1
    _found, parent, best, _settled, _heap = _search(g, start, full, left, frozenset(), start, 0, -1, False)
    out = {start: 0}
    for v, u in enumerate(parent):
        if u >= 0:
            key = best[v]  # arrived at the end of a month (key on a month boundary) or during one
            out[v] = key // kk if key % kk == 0 else key // kk + 1
    return out


def nearest_reachable(g: Ground, target: int, *, moves_left: float | None = None) -> tuple[Tile, int] | None:
    """The endable tile the unit can reach nearest (by hex distance) to `target`, with its months; None if none.

    Ties: fewer months, then lowest r, then lowest q (OPEN-74). For refusal texts ("nearest reachable tile").
    """
    net = g.net
    tq, tr = net.q[target], net.r[target]
    best: tuple[int, int, int, int] | None = None
    pick = -1
    for v, months in reachable(g, moves_left=moves_left).items():
        if not g.endable(v) and v != g.index(g.unit.tile):
            continue
        dq, dr = net.q[v] - tq, net.r[v] - tr
        d = hex_len(dq, dr)
        key = (d, months, net.r[v], net.q[v])
        if best is None or key < best:
            best, pick = key, v
    if pick < 0 or best is None:
        return None
    return g.tile(pick), best[1]


def months_to_reach(state: GameState, unit: Unit, to: Tile, *, moves_left: float | None = None) -> int | None:
    """Months a march of `unit` to `to` takes on the board as it stands (1 = this month), None if unreachable."""
    g = Ground(state, unit)
    i = g.index(to)
    if i < 0:
        return None
    route = find_route(g, {i}, moves_left=moves_left)
    return route.months if route is not None else None


def hexdist_idx(net: _Net, a: int, b: int) -> int:
    """Hex distance between two flat indices (MAP-030)."""
    dq = net.q[a] - net.q[b]
    dr = net.r[a] - net.r[b]
    return hex_len(dq, dr)
