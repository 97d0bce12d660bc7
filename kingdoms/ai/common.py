"""What every scripted ruler stands on: its kingdom's picture of the world, map analysis and order writing.

An AI sees only what its kingdom may see: `Picture` is built from the kingdom's Observation
(kingdoms.views.observation) alone — its view (own cities and units in full, foreign things only as seen or
remembered, terrain only where explored), the land it can tell is held, and the economy of its own cities
run on its believed board. It never reads the game state.

Static map facts (neighbours, terrain arrays) are analysed once per map and cached; everything else is worked
out afresh each month from the observation, so the same observation always gives the same orders (no memory,
no clock, no unseeded randomness).
"""

from __future__ import annotations

import copy
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from kingdoms import ruledata as rd
from kingdoms.engine.pathing import slot_of_type
from kingdoms.engine.sight import neighbourhood
from kingdoms.gamemap import GameMap, smallest_roots
from kingdoms.hexgrid import Tile, flat_index, hex_len, hex_lens
from kingdoms.orders.models import Order, QueueItem
from kingdoms.orders.syntax import format_order, format_queue_item
from kingdoms.views.kingdom_view import OwnCity, OwnUnit, SeenCity, SeenUnit
from kingdoms.views.observation import Observation

INF = 1.0e9


# --- the result of a ruler's month --------------------------------------------------------------------------------


@dataclass(slots=True)
class Decision:
    """A ruler's month: orders in the short syntax (one a line), an optional chronicle note, and the orders as the
    models the text was written from (`parsed`, when the ruler has them: the game service queues them without
    reading its own ruler's text back)."""

    orders: str
    note: str | None = None
    parsed: tuple[Order, ...] = ()

    @classmethod
    def of(cls, orders: Iterable[Order], note: str | None = None) -> Decision:
        """A ruler's month from its order models: the text written from them by format_order, one a line."""
        parsed = tuple(orders)
        return cls("\n".join(format_order(o) for o in parsed), note, parsed)


# --- verbs the engine offers ---------------------------------------------------------------------------------------


def available_verbs() -> frozenset[str]:
    """The verbs the engine carries out (public game facts: an order for a missing verb would only be refused)."""
    from kingdoms.engine.registry import VERBS, load_areas

    load_areas()
    return frozenset(VERBS)


# --- static map analysis (cached per map) --------------------------------------------------------------------------


@dataclass(eq=False)
class MapInfo:
    """The immutable map as arrays an AI reads fast: neighbours with a sentinel, yields, costs, distances."""

    gm: GameMap
    n: int
    width: int
    height: int
    q: np.ndarray
    r: np.ndarray
    qs: tuple[int, ...]  # q and r again as Python ints, for reading one tile's (no numpy scalars)
    rs: tuple[int, ...]
    nbr: np.ndarray  # (n, 6), off-map = n (the sentinel)
    nbr_list: tuple[tuple[int, ...], ...]  # off-map dropped
    terrain: np.ndarray
    food: np.ndarray
    prod: np.ndarray
    move_cost: np.ndarray
    crossing: np.ndarray  # unbridged river tiles
    passable: np.ndarray
    land: np.ndarray
    water_class: np.ndarray
    nbr_cols: tuple[np.ndarray, ...]  # the six columns of `nbr`, each contiguous
    hop: np.ndarray  # (n, 6): the tile a step in each direction lands on (across an unbridged river), n if none
    via: np.ndarray  # (n, 6): the river tile hopped over, n for a plain step
    edge_to: np.ndarray  # every step u -> v between neighbours, grouped by u (a CSR graph's column indices)
    edge_start: np.ndarray  # (n + 1,): where each tile's steps begin in `edge_to` (the CSR row pointer)
    edge_take: np.ndarray  # edge_to as intp: np.take reads a cost per step with it (no cast of the indices)
    # every step or hop a -> b with b < a, once (the march relation is symmetric), and the river tile hopped over
    # (n for a plain step): the edge list `components` filters
    pair_from: np.ndarray
    pair_to: np.ndarray
    pair_via: np.ndarray
    pair_at: np.ndarray  # (n, k): per tile, the pairs (indices into pair_from...) it ends or is the river tile of,
    # padded with len(pair_from)
    steps: csr_matrix  # the step graph (edge_to, edge_start) with unit weights: distance_field's template
    _dist: dict[int, np.ndarray] = field(default_factory=dict)
    _within: dict[tuple[int, int], np.ndarray] = field(default_factory=dict)
    _fields: dict[tuple, np.ndarray] = field(default_factory=dict)
    _graphs: dict[int, csr_matrix] = field(default_factory=dict)  # distance_field's graphs by enter-cost hash
    # each kingdom's last march areas by slot: (open tiles, labels), where the next month's labelling starts
    # (Picture.area; only a start: components gives the labels of the tiles it is asked about whatever it is)
    _areas: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)

    def index(self, q: int, r: int) -> int:
        """GameMap.index, one call fewer (the AIs ask it tens of thousands of times a game)."""
        return flat_index(q, r, self.width, self.height)

    def tile(self, i: int) -> Tile:
        return self.qs[i], self.rs[i]

    def dist_from(self, i: int) -> np.ndarray:
        """Hex distance from flat index i to every tile (cached)."""
        d = self._dist.get(i)
        if d is None:
            dq = self.q - self.q[i]
            dr = self.r - self.r[i]
            d = hex_lens(dq, dr).astype(np.int32)
            d.flags.writeable = False
            if len(self._dist) > 4000:
                self._dist.clear()
            self._dist[i] = d
        return d

    def dist(self, a: int, b: int) -> int:
        """Hex distance between flat indices a and b (read from Python ints, not numpy scalars)."""
        return hex_len(self.qs[a] - self.qs[b], self.rs[a] - self.rs[b])

    def within(self, i: int, radius: int) -> np.ndarray:
        """Flat indices within `radius` of i (i included), in map order (small radii: from the sight
        neighbourhood table, a row of it, not a pass over the whole map); read only, cached (the map never
        changes, and the AIs ask for the same few discs all game)."""
        key = (i, radius)
        got = self._within.get(key)
        if got is None:
            if 0 <= radius <= 4:
                row = neighbourhood(self.gm, radius)[i]
                got = np.sort(row[row < self.n]).astype(np.int64)
            else:
                got = np.flatnonzero(self.dist_from(i) <= radius)
            got.flags.writeable = False
            if len(self._within) > 8000:
                self._within.clear()
            self._within[key] = got
        return got


_MAPS: weakref.WeakKeyDictionary[GameMap, MapInfo] = weakref.WeakKeyDictionary()


def map_info(gm: GameMap) -> MapInfo:
    """The cached analysis of a map (maps never change during a game)."""
    mi = _MAPS.get(gm)
    if mi is None:
        n = gm.size
        nbr = np.where(gm.nbr < 0, n, gm.nbr).astype(np.int64)
        crossing = gm.river & ~gm.bridge
        hop = nbr.copy()
        via = np.full_like(nbr, n)
        cross_ext = np.append(crossing, False)
        for k in range(6):
            v = nbr[:, k]
            over = cross_ext[v]
            land = np.where(v < n, nbr[np.minimum(v, n - 1), k], n)
            land = np.where(cross_ext[land], n, land)
            hop[over, k] = land[over]
            via[over, k] = v[over]
        on_map = nbr < n
        hop_from, hop_dir = np.nonzero(hop < n)
        hop_to = hop[hop_from, hop_dir]
        once = hop_to < hop_from
        edge_start = np.concatenate(([0], np.cumsum(on_map.sum(axis=1)))).astype(np.int32)
        edge_to = nbr[on_map].astype(np.int32)
        pair_from, pair_to, pair_via = hop_from[once], hop_to[once], via[hop_from, hop_dir][once]
        # per tile, the pairs it ends or is the river tile of: a row each, padded with the count of pairs
        n_pairs = pair_from.size
        hopped = np.flatnonzero(pair_via < n)
        tile_of = np.concatenate((pair_from, pair_to, pair_via[hopped]))
        pair_of = np.concatenate((np.arange(n_pairs), np.arange(n_pairs), hopped))
        order = np.argsort(tile_of, kind="stable")
        tile_of, pair_of = tile_of[order], pair_of[order]
        first = np.searchsorted(tile_of, np.arange(n))
        column = np.arange(tile_of.size) - first[tile_of]
        pair_at = np.full((n, int(column.max(initial=-1)) + 1), n_pairs, dtype=np.int64)
        pair_at[tile_of, column] = pair_of
        mi = MapInfo(
            gm=gm, n=n, width=gm.width, height=gm.height, q=gm.q_of.astype(np.int32), r=gm.r_of.astype(np.int32),
            qs=tuple(gm.q_of.tolist()), rs=tuple(gm.r_of.tolist()),
            nbr=nbr, nbr_list=tuple(tuple(j for j in row if j >= 0) for row in gm.nbr.tolist()),
            terrain=gm.terrain, food=gm.food.astype(np.int32), prod=gm.prod.astype(np.int32),
            move_cost=gm.move_cost.astype(np.int32), crossing=(gm.river & ~gm.bridge), passable=gm.move_cost > 0,
            land=gm.is_land, water_class=gm.water_class, hop=hop, via=via,
            nbr_cols=tuple(np.ascontiguousarray(nbr[:, k]) for k in range(6)),
            edge_to=edge_to, edge_start=edge_start, edge_take=edge_to.astype(np.intp),
            pair_from=pair_from, pair_to=pair_to, pair_via=pair_via, pair_at=pair_at,
            steps=csr_matrix((np.ones(len(edge_to)), edge_to, edge_start), shape=(n, n)),
        )
        _MAPS[gm] = mi
    return mi


def distance_field(mi: MapInfo, sources: Iterable[int], enter_cost: np.ndarray, limit: float = INF) -> np.ndarray:
    """Cheapest cost to reach every tile from the nearest source, entering a tile costing `enter_cost` (INF blocks).

    Dijkstra (scipy's, compiled) over the neighbour graph, a step onto a tile weighing what entering it costs:
    exact, and for the half-integer costs of the AIs' plans the same in any summation order. Memoised on its
    inputs (a pure function of them), so an unchanged picture costs nothing the next month.
    """
    n = mi.n
    src = sorted({i for i in sources if 0 <= i < n})
    costs = hash(enter_cost.tobytes())
    key = (tuple(src), costs, limit)
    got = mi._fields.get(key)
    if got is not None:
        return got
    if not src:
        return np.full(n, INF)
    graph = mi._graphs.get(costs)
    if graph is None:  # the step graph of these costs, shared by every field over them (a month's few costs)
        # a blocked tile is never entered (inf), marked once a tile rather than once a step onto it
        # (np.where gives float64 whatever the costs' type; take, cheaper than fancy indexing, reads one a step)
        weight = np.where(enter_cost >= INF / 2, np.inf, enter_cost).take(mi.edge_take)
        # the map's step graph with these weights: a shallow copy of its structure (checked once, when built)
        graph = copy.copy(mi.steps)
        graph.data = weight
        if len(mi._graphs) >= 8:
            del mi._graphs[next(iter(mi._graphs))]
        mi._graphs[costs] = graph
    out = dijkstra(graph, directed=True, indices=src, min_only=True, limit=np.inf if limit >= INF else limit)
    out[out >= INF / 2] = INF  # unreachable (inf) and blocked alike
    out.flags.writeable = False
    if len(mi._fields) > 256:
        mi._fields.clear()
    mi._fields[key] = out
    return out


def components(mi: MapInfo, open_: np.ndarray, prior: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Label every tile by the area a march can cover over `open_` tiles (river hops included); -1 where closed.

    A tile's label is the smallest flat index of its area: two tiles share it when a unit can march from one to
    the other (steps and hops work both ways, so the areas are symmetric). Found by gamemap.smallest_roots over the
    edge list (numpy union-find). `prior`: (open tiles, their labels) from an earlier call; when those open tiles
    are a subset of `open_` (the usual month: explored ground only grows), the union-find starts from their areas,
    which every edge of theirs is still in, and only new edges join anything (the same labels): those are the
    edges touching a newly opened tile (mi.pair_at), joined over the areas they meet (_grown).
    """
    n = mi.n
    nodes = open_ & ~mi.crossing
    if prior is not None and not (prior[0] & ~open_).any():
        return _grown(mi, open_, nodes, prior[0], prior[1])
    open_ext = np.append(open_, False)  # a plain step's via (n) reads False
    src, dst, via = mi.pair_from, mi.pair_to, mi.pair_via
    edge = nodes[src] & nodes[dst] & ((via == n) | open_ext[via])
    parent = smallest_roots(n, src[edge], dst[edge])
    return np.where(nodes, parent, -1)


def _grown(mi: MapInfo, open_: np.ndarray, nodes: np.ndarray, old_open: np.ndarray, old: np.ndarray) -> np.ndarray:
    """components of `open_` from the labels `old` of its subset `old_open`. An edge open now and not then touches
    a newly opened tile (an end or its river tile), so only those few are read: the old areas and the new tiles
    they join are merged by smallest_roots over just those parts, each part's label its smallest member (the
    labels components gives: an area's smallest tile)."""
    n = mi.n
    fresh = np.flatnonzero(open_ & ~old_open)
    if not fresh.size:
        return old
    cand = mi.pair_at[fresh].ravel()
    cand = cand[cand < mi.pair_from.size]  # (a pair touching two new tiles comes twice: the same edge twice)
    src, dst, via = mi.pair_from[cand], mi.pair_to[cand], mi.pair_via[cand]
    edge = nodes[src] & nodes[dst] & ((via == n) | open_[np.minimum(via, n - 1)])
    out = old.copy()
    new_nodes = fresh[nodes[fresh]]
    out[new_nodes] = new_nodes  # a newly opened tile starts as an area of its own
    src, dst = src[edge], dst[edge]
    if src.size:
        parts, ends = np.unique(out[np.concatenate((src, dst))], return_inverse=True)  # the areas the edges meet
        joined = smallest_roots(parts.size, ends[:src.size], ends[src.size:])  # parts sorted: smallest = smallest
        if (joined != np.arange(parts.size)).any():
            relabel = np.arange(n + 1)
            relabel[n] = -1  # a closed tile's -1 reads the last slot
            relabel[parts] = parts[joined]
            out = relabel[out]
    return out


# --- the kingdom's picture of the world -----------------------------------------------------------------------------


class Picture:
    """One kingdom's knowledge this month, from its Observation; the only input of an AI's choices."""

    def __init__(self, obs: Observation) -> None:
        view = obs.view
        self.obs = obs
        self.view = view
        self.kingdom = view.kingdom
        self.month = view.month
        self.seed = obs.seed  # the game's public seed: a source of variety that every seat may use
        self.mi = mi = map_info(obs.map)
        # the view's explored and visible masks (view.explored, view.visible), as the observation holds them
        self.explored = obs.explored.copy()
        self.visible = obs.sight.visible.copy()
        self.cities: list[OwnCity] = list(view.cities)
        self.city_by_id = {c.id: c for c in self.cities}
        self.units: list[OwnUnit] = list(view.units)
        self.unit_by_id = {u.id: u for u in self.units}
        land = obs.land
        self.own_land = land.own_city >= 0
        self.land_city = land.own_city
        # Foreign land: what is in sight now, plus a ring around each remembered foreign city.
        self.foreign_land = land.held & ~self.own_land
        city_owner = {c.id: c.owner for c in view.foreign_cities}
        known = land.city
        # land.holder holds the foreign land in sight, tile by tile in map order (the tiles of foreign_land): per
        # tile the owner as the kingdom's map records the city, else the holder the tile shows
        self.foreign_holder: dict[int, str] = {i: city_owner.get(known.get(i, -1)) or holder
                                               for i, holder in land.holder.items()}
        # Foreign camps (in sight or remembered): a camp of a kingdom at peace is closed like its land, even one
        # standing on land that has since become ours (DIPLO-020).
        self.camp_owner: dict[int, str] = {}
        for camp in view.foreign_camps:
            j = mi.index(camp.q, camp.r)
            if j >= 0:
                self.camp_owner[j] = camp.owner
        self.foreign_cities: list[SeenCity] = list(view.foreign_cities)
        ring = {"village": 2, "town": 2, "city": 3, "great city": 3}
        for c in self.foreign_cities:
            ci = mi.index(c.q, c.r)
            # out of sight, a city's land is taken to reach as far as a city of its size may claim (OPEN-55)
            near = mi.within(ci, ring.get(c.size or "", 1) if not c.ruin else 1)
            near = near[~self.own_land[near] & ~self.visible[near]]
            self.foreign_land[near] = True
            for j in near.tolist():
                self.foreign_holder[j] = c.owner
        self.foreign_units: list[SeenUnit] = [u for u in view.foreign_units if u.in_sight]
        self.remembered_units: list[SeenUnit] = [u for u in view.foreign_units if not u.in_sight]
        self.wars = {tuple(p) for p in view.wars}
        self.enemies = {b if a == self.kingdom else a for a, b in self.wars if self.kingdom in (a, b)}
        self.names = {k.id: k for k in view.kingdoms}
        self.living_rivals = [k.id for k in view.kingdoms if k.id != self.kingdom and not k.eliminated]
        self.captures = {k.id: k.captures for k in view.kingdoms}
        self.capital = self.city_by_id.get(view.capital_id) if view.capital_id is not None else None
        self.unit_at: dict[int, list[OwnUnit]] = {}
        for u in self.units:
            self.unit_at.setdefault(mi.index(u.q, u.r), []).append(u)
        self.foreign_at: dict[int, list[SeenUnit]] = {}
        for fu in self.foreign_units:
            self.foreign_at.setdefault(mi.index(fu.q, fu.r), []).append(fu)
        # Where foreign units were last seen (out of sight now): no place to send a march to.
        self.remembered_at: set[int] = {mi.index(u.q, u.r) for u in self.remembered_units}
        self.city_at: dict[int, OwnCity | SeenCity] = {}
        for fc in self.foreign_cities:
            self.city_at[mi.index(fc.q, fc.r)] = fc
        for oc in self.cities:
            self.city_at[mi.index(oc.q, oc.r)] = oc
        self._outputs: dict[object, object] = {}

    # --- own cities through the economy calculators (the observation's, on the believed board) -----------------

    def output(self, city_id: int, focus: str | None = None):  # -> economy.CityOutlook
        """The month of an own city under a focus (harvest, production, growth...): Observation.city_output."""
        return self.obs.city_output(city_id, focus)

    def free_sites(self, city_id: int, kind: str) -> list[Tile]:
        """Improvement sites of an own city, best first: Observation.free_sites."""
        return self.obs.free_sites(city_id, kind)

    def upkeep(self) -> float:
        """The kingdom's army upkeep a month: the engine's budget on the believed board (RECRUIT-180)."""
        return self.obs.upkeep

    def output_total(self) -> int:
        return sum(self.output(c.id).production for c in self.cities)

    # --- tiles -----------------------------------------------------------------------------------------------

    def idx(self, q: int, r: int) -> int:
        return self.mi.index(q, r)

    def at_peace_with(self, other: str) -> bool:
        return other != rd.BANDITS and other != self.kingdom and other not in self.enemies

    def closed_land(self) -> np.ndarray:
        """Tiles known to belong to kingdoms at peace with us (closed to our troops); read only, once a month."""
        got = self._outputs.get("closed")
        if got is None:
            out = np.zeros(self.mi.n, dtype=bool)
            peace = {h: self.at_peace_with(h) for h in {*self.foreign_holder.values(), *self.camp_owner.values()}}
            out[[i for i, holder in self.foreign_holder.items() if peace[holder]]] = True
            out[[i for i, holder in self.camp_owner.items() if peace[holder]]] = True
            out.flags.writeable = False
            got = self._outputs["closed"] = out
        return got  # type: ignore[return-value]

    def settled_closed(self) -> np.ndarray:
        """A steady outline of the land closed to our troops: the founding rings of the known cities of kingdoms
        at peace with us. It changes only when a city is found or a war starts, so the planning fields built on
        it are worked out once and reused (`closed_land` is the exact picture, for choosing where to stop)."""
        key = "settled_closed"
        got = self._outputs.get(key)
        if got is None:
            mi = self.mi
            got = np.zeros(mi.n, dtype=bool)
            for c in self.foreign_cities:
                if self.at_peace_with(c.owner):
                    got[mi.within(mi.index(c.q, c.r), 1)] = True
            self._outputs[key] = got
        return got  # type: ignore[return-value]

    def troop_costs(self, *, through_enemy_cities: bool = False) -> np.ndarray:
        """Move cost of entering each tile for a troop, as known (INF where it cannot go); read only, worked out
        once a month (the picture does not change)."""
        key = f"costs:{through_enemy_cities}"
        got = self._outputs.get(key)
        if got is None:
            got = self._outputs[key] = self._troop_costs(through_enemy_cities)
            got.flags.writeable = False
        return got  # type: ignore[return-value]

    def _troop_costs(self, through_enemy_cities: bool) -> np.ndarray:
        mi = self.mi
        cost = np.where(self.explored, mi.move_cost.astype(float), 1.5)
        cost[self.explored & ~mi.passable] = INF
        cost[self.settled_closed()] = INF
        if not through_enemy_cities:
            for c in self.foreign_cities:
                cost[mi.index(c.q, c.r)] = INF
        cost[self.explored & mi.crossing] += 1.0
        return cost

    def open_tiles(self, slot: str = "troop") -> np.ndarray:
        """Explored tiles a unit of `slot` may cross as far as the kingdom knows (cached per slot)."""
        key = f"open:{slot}"
        got = self._outputs.get(key)
        if got is None:
            mi = self.mi
            got = self.explored & mi.passable
            if slot != "agent":
                got &= ~self.settled_closed()
            for c in self.foreign_cities:
                got[mi.index(c.q, c.r)] = False
            self._outputs[key] = got
        return got  # type: ignore[return-value]

    def area(self, slot: str = "troop") -> np.ndarray:
        """Component labels of the ground a unit of `slot` can march over (cached per month)."""
        key = f"area:{'agent' if slot == 'agent' else 'troop'}"
        got = self._outputs.get(key)
        if got is None:
            open_ = self.open_tiles(slot)
            memo = (hash(open_.tobytes()), "components")
            mi = self.mi
            got = mi._fields.get(memo)
            if got is None:
                # the kingdom's last areas of this slot start the labelling (components: the same labels)
                last = (self.kingdom, key)
                got = mi._fields[memo] = components(mi, open_, mi._areas.get(last))
                got.flags.writeable = False
                mi._areas[last] = (open_.copy(), got)
            self._outputs[key] = got
        return got  # type: ignore[return-value]

    def reach_labels(self, start: int, slot: str = "troop") -> set[int]:
        """Area labels a unit standing on `start` can march into (its own tile's, or its open neighbours')."""
        lab = self.area(slot)
        if lab[start] >= 0:
            return {int(lab[start])}
        mi = self.mi
        out = set()
        for k in range(6):
            j = int(mi.hop[start, k])
            if j < mi.n and lab[j] >= 0:
                out.add(int(lab[j]))
        return out

    def reachable_mask(self, start: int, slot: str = "troop") -> np.ndarray:
        labels = self.reach_labels(start, slot)
        if not labels:
            return np.zeros(self.mi.n, dtype=bool)
        if len(labels) == 1:  # the usual case, and many times cheaper than isin
            return self.area(slot) == next(iter(labels))
        return np.isin(self.area(slot), list(labels))

    def can_stop(self, i: int, slot: str = "troop", *, me: int | None = None, own_ok: bool = False) -> bool:
        """A march may end on flat index i as far as we know: explored, passable, no river crossing, not closed,
        no foreign unit seen, no foreign city, not taken by an own unit of the same slot (other than `me`; any,
        with `own_ok`: a place for the army, whoever of it stands there now)."""
        mi = self.mi
        if i < 0 or i >= mi.n or not self.explored[i] or not mi.passable[i] or mi.crossing[i]:
            return False
        if i in self.foreign_at or i in self.remembered_at:
            return False
        c = self.city_at.get(i)
        if c is not None and isinstance(c, SeenCity):
            return False
        if slot != "agent" and self.foreign_land[i] and self.at_peace_with(self.foreign_holder.get(i, rd.BANDITS)):
            return False
        if slot != "agent" and i in self.camp_owner and self.at_peace_with(self.camp_owner[i]):
            return False
        if own_ok:
            return True
        for u in self.unit_at.get(i, ()):
            if u.id != me and slot_of_type(u.type) == slot:
                return False
        return True


def picture_for(obs: Observation) -> Picture:
    """The kingdom's picture at the observed month."""
    return Picture(obs)


# --- writing orders ------------------------------------------------------------------------------------------------


def entry_item(entry: dict) -> QueueItem:
    """A queue entry of an own city as a queue item (it keeps its tile or men; what is left of a troop order
    raised in batches may be under the smallest order one can give, so it is given at least that)."""
    item = entry["item"]
    if entry.get("tile"):
        return QueueItem(item=item, tile=(int(entry["tile"][0]), int(entry["tile"][1])))
    if entry.get("men"):
        return QueueItem(item=item, men=max(int(entry["men"]), rd.UNITS[item].min_men if item in rd.UNITS else 0))
    return QueueItem(item=item)


def spec_key(it: QueueItem) -> str:
    """A sort key for queue items: their text in a queue (orders.syntax.format_queue_item)."""
    return format_queue_item(it)


def ration_months(u: OwnUnit) -> float:
    """Months of food a troop carries."""
    return u.rations / (u.men / 1000) if u.men > 0 else 99.0


def size_men(size: str | None, men: int | None = None) -> int:
    """A foreign troop's strength for planning: exact men when watched, else the middle of its size class
    (a small one reckoned at 1,500)."""
    if men is not None:
        return int(men)
    if size is None:
        return 3000
    lo, hi = rd.SIZE_CLASS_RANGE.get(size, (1, 1999))
    return int(0.5 * lo + 0.5 * hi) if size != "small" else 1500
