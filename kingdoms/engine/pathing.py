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
  them (DIPLO-020/030, INTEL-210); a foreign city is never entered by a march (spies slip through);
- armed foreign units block; unarmed ones (wagons, colonists, scouts) are passed on a move order but never
  stopped on, and block an attack's approach (MOVE-080..100); foreign spies are invisible and ignored;
  spies slip past every unit (MOVE-320);
- own units in the unit's stacking slot are passed through but a month's march may not end on them; a march
  whose moves run out on one steps on to the next free tile of its route, ending its move (MOVE-040/050).

`Ground` is the passability of the board for one unit; `find_route` searches it. Both are pure reads.
"""

from __future__ import annotations

import heapq
import weakref
from dataclasses import dataclass, field

import numpy as np

from kingdoms import ruledata as rd
from kingdoms.gamemap import GameMap
from kingdoms.hexgrid import Tile
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


# --- static per-map arrays ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class _Net:
    """The map's arrays as plain Python sequences, for fast scalar access in the search loop."""

    width: int
    nbr: tuple[tuple[int, ...], ...]
    ways: tuple[tuple[tuple[int, int], ...], ...]  # per tile: (neighbour, tile straight beyond it or -1)
    cost: tuple[int, ...]
    q: tuple[int, ...]
    r: tuple[int, ...]
    impassable: bytes
    river: bytes  # unbridged river tiles (before cities are taken off)


_NETS: weakref.WeakKeyDictionary[GameMap, _Net] = weakref.WeakKeyDictionary()


def net_of(gm: GameMap) -> _Net:
    """The cached plain-Python arrays of a map (the map never changes during a game)."""
    net = _NETS.get(gm)
    if net is None:
        nbr = tuple(tuple(int(j) for j in row) for row in gm.nbr)
        net = _Net(
            width=gm.width,
            nbr=nbr,
            ways=tuple(tuple((v, nbr[v][k]) for k, v in enumerate(row) if v >= 0) for row in nbr),
            cost=tuple(int(c) for c in gm.move_cost),
            q=tuple(int(x) for x in gm.q_of),
            r=tuple(int(x) for x in gm.r_of),
            impassable=(gm.move_cost <= 0).astype(np.uint8).tobytes(),
            river=(gm.river & ~gm.bridge).astype(np.uint8).tobytes(),
        )
        _NETS[gm] = net
    return net


# --- the board for one unit -------------------------------------------------------------------------------------


class Ground:
    """Where one unit may go and stop on the board as it stands now.

    `mode` "attack" makes unarmed foreign units block (an attack's approach treats them as targets, MOVE-100).
    `ignore_foreign` treats foreign units as absent (a march blocked by troops walks up to them, TURN-160).
    `own_mask` marks the tiles of the unit's own units in its stacking slot (passed, never stopped on).
    """

    def __init__(self, state: GameState, unit: Unit, *, mode: str = "move", ignore_foreign: bool = False) -> None:
        gm = state.map
        net = net_of(gm)
        self.state = state
        self.unit = unit
        self.net = net
        self.n = n = gm.size
        self.slot = slot = slot_of(unit)
        self.spy = spy = unit.type == "spy"
        self.colonists = unit.type == "colonists"
        self.blocked = blocked = bytearray(net.impassable)
        self.crossing = bytearray(net.river)
        self.noend = noend = bytearray(n)  # foreign units: passed on a move, never stopped on
        self.own_mask = own_mask = bytearray(n)
        owner = unit.owner
        width = net.width
        if slot != AGENT:
            self._close_peace_land(state, owner)
        for city in state.cities.values():
            i = (city.r * width) + city.q + (city.r - (city.r & 1)) // 2
            self.crossing[i] = 0  # a city on a river tile is an ordinary tile (OPEN-65)
            if city.owner != owner:
                if spy:
                    noend[i] = 1
                else:
                    blocked[i] = 1
        attack = mode == "attack"
        skip_foreign = spy or ignore_foreign
        uid = unit.id
        for other in state.units.values():
            kind = other.type
            if other.owner != owner:
                if skip_foreign or kind == "spy":
                    continue
                i = (other.r * width) + other.q + (other.r - (other.r & 1)) // 2
                if attack or kind in _ARMED:
                    blocked[i] = 1
                else:
                    noend[i] = 1
            elif _SLOTS[kind] == slot and slot != AGENT and other.id != uid:
                i = (other.r * width) + other.q + (other.r - (other.r & 1)) // 2
                own_mask[i] = 1

    def _close_peace_land(self, state: GameState, owner: str) -> None:
        """Block the land and camps of every kingdom at peace with `owner` (DIPLO-020)."""
        peace = {k for k in state.kingdoms if k != owner and not state.at_war(owner, k)}
        if not peace:
            return
        ids = [c.id for c in state.cities.values() if c.owner in peace]
        if ids:
            for i in np.flatnonzero(np.isin(state.owner, ids)).tolist():
                self.blocked[i] = 1
        gm = state.map
        for camp in state.camps.values():
            if camp.owner in peace:
                i = gm.index(camp.q, camp.r)
                if i >= 0:
                    self.blocked[i] = 1

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


# --- routes -------------------------------------------------------------------------------------------------------


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


_SHIFT = 16  # heap entries are ints: (f << 40) | (key << 16) | tile, so no tuples are built in the search
_TILE_MASK = (1 << _SHIFT) - 1
_KEY_MASK = (1 << 24) - 1


def _search(g: Ground, start: int, full: int, left: int, goals: frozenset[int], centre: int, radius: int,
            join: int, ghost: bool) -> tuple[int, list[int], list[int]]:
    """A* from `start`; returns (goal reached or -1, parent of each tile (-1 none), best key of each tile).

    Label key = month * (full + 1) + moves used in that month. A crossing, or the step off own troops when the
    moves ran out on them (MOVE-050), ends the month: the next label starts the month after at 0 used; a month
    may not end on a tile the unit only passes (foreign units, own units unless `ghost`). h = hex distance to
    the goal ring, consistent with these keys (a step costs at least 1, a crossing at least 2 for its 2 tiles).
    With no goals the search floods every reachable tile.
    """
    net = g.net
    ways, cost = net.ways, net.cost
    crossing, noend, own = g.crossing, g.noend, g.own_mask
    dead = bytearray(g.blocked)  # blocked, or settled (closed set)
    colonists = g.colonists
    kk = full + 1
    hd = _ring_distance(g, centre, radius) if goals else [0] * g.n
    best = [_INF] * g.n
    parent = [-1] * g.n
    used0 = full - left
    best[start] = used0
    heap = [(used0 << _SHIFT) | start]
    push, pop = heapq.heappush, heapq.heappop
    while heap:
        code = pop(heap)
        u = code & _TILE_MASK
        if dead[u]:
            continue
        dead[u] = 1
        key = (code >> _SHIFT) & _KEY_MASK
        if u in goals and (u == join or (not noend[u] and not own[u] and (not crossing[u] or colonists))):
            return u, parent, best
        if crossing[u]:
            continue  # colonists on a river tile they were not sent to go no further
        m, s = divmod(key, kk)
        room = full - s
        on_own = own[u] and not ghost
        passing = u != start and u != join and (noend[u] or on_own)
        for v, beyond in ways[u]:
            if dead[v]:
                continue
            if crossing[v]:
                if colonists and v in goals:
                    c = cost[v]
                    if c <= room or s == 0:
                        nk = (m + 1) * kk  # colonists stop in the river tile: it ends their move
                    elif passing:
                        continue
                    else:
                        nk = (m + 2) * kk
                    dest = v
                else:
                    dest = beyond
                    if dest < 0 or dead[dest] or crossing[dest] or ((noend[dest] or own[dest]) and dest != join):
                        continue
                    if room >= 1:
                        nk = (m + 1) * kk
                    elif passing:
                        continue
                    else:
                        nk = (m + 2) * kk
            else:
                c = cost[v]
                dest = v
                if c <= room or s == 0:
                    ns = s + c
                    nk = m * kk + (ns if ns < full else full)
                elif passing:
                    if on_own and not noend[v] and not own[v]:
                        nk = (m + 1) * kk  # MOVE-050: one more step off own troops, which ends the move
                    else:
                        continue
                else:
                    nk = (m + 1) * kk + c
            old = best[dest]
            if nk < old:
                best[dest] = nk
                parent[dest] = u
                push(heap, ((nk + hd[dest]) << 40) | (nk << _SHIFT) | dest)
            elif nk == old and u < parent[dest]:
                parent[dest] = u
    return -1, parent, best


def _ring_distance(g: Ground, centre: int, radius: int) -> list[int]:
    """Hex distance of every tile to the ring of `radius` around `centre` (0 inside it): the A* heuristic."""
    gm = g.state.map
    dq = gm.q_of - g.net.q[centre]
    dr = gm.r_of - g.net.r[centre]
    d = (np.abs(dq) + np.abs(dr) + np.abs(dq + dr)) // 2 - radius
    return np.maximum(d, 0).tolist()


def _build(g: Ground, start: int, goal: int, parent: list[int], best: list[int], full: int) -> Route:
    """The route to `goal` from the search's parents, each step's kind and month read back from the keys."""
    kk = full + 1
    net = g.net
    steps: list[Step] = []
    v = goal
    while v != start:
        u = parent[v]
        kv = best[v]
        if hexdist_idx(net, u, v) == 2:  # a crossing: over the river tile between, ending the month
            via = next(j for j in net.nbr[u] if j >= 0 and j in net.nbr[v])
            steps.append(Step(v, g.tile(v), 1, kv // kk - 1, CROSS, via))
        elif kv % kk == 0:  # landed as the month ends: the step off own troops, or colonists into a river
            river = bool(g.crossing[v])
            steps.append(Step(v, g.tile(v), net.cost[v] if river else 0, kv // kk - 1, STEP if river else OVERFLOW))
        else:
            steps.append(Step(v, g.tile(v), net.cost[v], kv // kk))
        v = u
    steps.reverse()
    return Route(start, steps)


def find_route(g: Ground, goals: set[int], *, moves_left: float | None = None, centre: int | None = None,
               radius: int = 0, join: int = -1, ghost: bool = False) -> Route | None:
    """The cheapest route (soonest arrival, OPEN-66) from the unit's tile to the nearest of `goals`, or None.

    `centre`/`radius`: every goal lies within `radius` of `centre` (for the heuristic; default: the single
    goal). `join`: a goal tile held by an own unit the march may end on to merge (MOVE-230/280).
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
    found, parent, best = _search(g, start, full, left, frozenset(goals), centre, radius, join, ghost)
    if found < 0:
        return None
    return _build(g, start, found, parent, best, full)


def reachable(g: Ground, *, moves_left: float | None = None) -> dict[int, int]:
    """Every tile the unit can reach (flat index -> months to reach, 0 for its own tile)."""
    unit = g.unit
    start = g.index(unit.tile)
    full = unit.spec.moves
    left = full if moves_left is None else max(0, min(full, int(moves_left + 1e-9)))
    kk = full + 1
    _found, parent, best = _search(g, start, full, left, frozenset(), start, 0, -1, False)
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
        d = (abs(dq) + abs(dr) + abs(dq + dr)) >> 1
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
    return (abs(dq) + abs(dr) + abs(dq + dr)) >> 1
