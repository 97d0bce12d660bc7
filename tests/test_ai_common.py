"""The AI's shared map analysis (kingdoms.ai.common): areas a march can cover, checked against a plain flood fill,
and planning distance fields, checked against a plain Dijkstra."""

from __future__ import annotations

import heapq
from collections import deque

import numpy as np

from kingdoms import ruledata as rd
from kingdoms.ai.common import INF, MapInfo, components, distance_field, map_info
from kingdoms.mapgen import generate
from kingdoms.setup import build_state


def flood_labels(mi: MapInfo, open_: np.ndarray) -> np.ndarray:
    """Reference labels: breadth-first search over steps and river hops (MOVE-270 crossings), each area labelled by
    its smallest flat index, -1 off the open non-crossing tiles."""
    n = mi.n
    nodes = open_ & ~mi.crossing
    out = np.full(n, -1, dtype=np.int64)
    for start in range(n):
        if not nodes[start] or out[start] >= 0:
            continue
        out[start] = start
        todo = deque([start])
        while todo:
            i = todo.popleft()
            for k in range(6):
                j, via = int(mi.hop[i, k]), int(mi.via[i, k])
                if j < n and nodes[j] and out[j] < 0 and (via == n or open_[via]):
                    out[j] = start
                    todo.append(j)
    return out


def test_components_match_a_flood_fill_on_random_and_explored_masks() -> None:
    """MOVE-270: the numpy labelling gives every tile the smallest index of the area it can march over, as a flood
    fill does, on scattered masks and on blobs of explored ground, on a small and a large map."""
    for seed, kingdoms, size in ((5, 3, (40, 30)), (20261129, 6, (64, 48))):
        mi = map_info(build_state(generate(seed, kingdoms, size=size), 1).map)
        rng = np.random.default_rng(seed)
        for trial in range(12):
            if trial % 2:
                open_ = (rng.random(mi.n) < rng.uniform(0.3, 1.0)) & mi.passable
            else:
                centre, radius = int(rng.integers(mi.n)), int(rng.integers(3, 40))
                open_ = (mi.dist_from(centre) <= radius) & mi.passable & (rng.random(mi.n) < 0.97)
            got = components(mi, open_)
            assert np.array_equal(got, flood_labels(mi, open_)), (seed, trial)
    assert (components(mi, np.zeros(mi.n, dtype=bool)) == -1).all()


def test_components_started_from_earlier_areas_give_the_fresh_labels() -> None:
    """MOVE-270: labels started from the areas of a smaller open mask (last month's, as Picture.area keeps them) are
    the labels worked out afresh; a start that is not a subset (tiles closed since) is not used, and still right."""
    for seed, kingdoms, size in ((5, 3, (40, 30)), (20261129, 6, (64, 48))):
        mi = map_info(build_state(generate(seed, kingdoms, size=size), 1).map)
        rng = np.random.default_rng(seed + 1)
        for trial in range(10):
            centre, radius = int(rng.integers(mi.n)), int(rng.integers(3, 30))
            before = (mi.dist_from(centre) <= radius) & mi.passable & (rng.random(mi.n) < 0.95)
            grown = before | ((mi.dist_from(centre) <= radius + int(rng.integers(1, 8))) & mi.passable
                              & (rng.random(mi.n) < 0.9))
            if trial % 3 == 2:  # some tiles closed since: not a subset any more
                grown &= rng.random(mi.n) < 0.9
            prior = (before, components(mi, before))
            assert np.array_equal(components(mi, grown, prior), components(mi, grown)), (seed, trial)
            assert np.array_equal(components(mi, grown, prior), flood_labels(mi, grown)), (seed, trial)
            assert np.array_equal(components(mi, before, prior), prior[1]), (seed, trial)
            # only river tiles opened since: the hops over them are the new edges (each joining two old areas)
            shut = grown & ~(mi.crossing & (rng.random(mi.n) < 0.7))
            prior = (shut, components(mi, shut))
            assert np.array_equal(components(mi, grown, prior), flood_labels(mi, grown)), (seed, trial)


def test_site_ceilings_are_never_below_the_site_report() -> None:
    """CITY-450: on every tile, the ceilings the standard ruler prunes its site search with are at least the site
    report's people fed (CITY-150) and full production (CITY-230), under each focus, and equal to them where the
    founding ring (CITY-330) is the whole neighbourhood; also with land held around (rings cut short) and on the
    believed maps of kingdoms that know little."""
    from kingdoms.engine import economy as eco
    from kingdoms.setup import resolve_scenario
    from kingdoms.views import observe

    for scen in (resolve_scenario(None), generate(8, 4)):
        state = build_state(scen, 1)
        rng = np.random.default_rng(3)
        held = rng.random(state.map.size) < 0.15  # scattered held tiles: many rings short of their neighbours
        state.owner[held & (state.owner < 0)] = next(iter(state.cities))
        boards = [state] + [observe(state, k).believed for k in list(state.kingdoms)[:2]]
        exact = short = 0
        for board in boards:
            gm = board.map
            whole = 1 + (gm.nbr >= 0).sum(axis=1)
            for focus in rd.FOCUSES:
                feeds, prod = eco.site_ceilings(gm, focus)
                some = np.flatnonzero(rng.random(gm.size) < 0.3)  # the ceilings of some tiles: theirs in full
                for got, whole_map in zip(eco.site_ceilings(gm, focus, at=some), (feeds, prod), strict=True):
                    assert np.array_equal(got, whole_map[some])
                for i in range(0, gm.size, 1 if focus == "balanced" else 7):
                    rep = eco.site_report(board, *gm.tile(i), focus=focus)
                    assert rep.people_fed <= feeds[i] and rep.full.production <= prod[i], (scen.name, focus, i)
                    if len(rep.ring) == whole[i]:
                        exact += 1
                        assert (rep.people_fed, rep.full.production) == (feeds[i], prod[i]), (scen.name, focus, i)
                    else:
                        short += 1
        assert exact > 1000 and short > 1000, (exact, short)


def dijkstra_reference(mi: MapInfo, sources: list[int], cost: np.ndarray, limit: float) -> np.ndarray:
    """Reference field: a heap Dijkstra over the six neighbours, entering a tile costing its cost (INF blocks),
    tiles beyond `limit` unreached."""
    out = np.full(mi.n, INF)
    todo = [(0.0, s) for s in sources]
    for s in sources:
        out[s] = 0.0
    while todo:
        d, i = heapq.heappop(todo)
        if d > out[i]:
            continue
        for j in mi.nbr_list[i]:
            nd = d + float(cost[j])
            if cost[j] < INF and nd <= limit and nd < out[j]:
                out[j] = nd
                heapq.heappush(todo, (nd, j))
    return out


def test_distance_field_matches_a_plain_dijkstra() -> None:
    """The planning field is the exact cheapest cost from the nearest source, as a heap Dijkstra finds it, on
    half-integer costs (the AIs' troop costs) with blocked tiles, one source or several, with and without a limit."""
    for seed, kingdoms, size in ((5, 3, (40, 30)), (20261129, 6, (64, 48))):
        mi = map_info(build_state(generate(seed, kingdoms, size=size), 1).map)
        rng = np.random.default_rng(seed)
        for trial in range(6):
            cost = rng.integers(2, 9, mi.n) / 2.0
            cost[rng.random(mi.n) < 0.15 * (trial % 3)] = INF
            sources = [int(i) for i in rng.choice(mi.n, size=1 + trial % 4, replace=False)]
            limit = INF if trial < 3 else 12.5
            got = distance_field(mi, sources, cost, limit)
            assert np.array_equal(got, dijkstra_reference(mi, sources, cost, limit)), (seed, trial)
            assert got is distance_field(mi, list(reversed(sources)), cost.copy(), limit)  # memoised on its inputs


def test_distance_field_graph_kept_per_costs_gives_the_uncached_field() -> None:
    """The step graph kept per enter costs (a copy of the map's template with those weights) gives, for other sources
    over the same costs and after the costs change, the field a fresh analysis (nothing kept) gives, and the plain
    Dijkstra's; the template keeps its unit weights."""
    gm = build_state(generate(7, 3, size=(40, 30)), 1).map
    mi = map_info(gm)
    rng = np.random.default_rng(3)
    cost = rng.integers(2, 9, mi.n) / 2.0
    cost[rng.random(mi.n) < 0.1] = INF
    for step in range(6):
        if step == 3:  # new costs: a new graph, never the old one
            cost = cost.copy()
            cost[rng.choice(mi.n, size=40, replace=False)] = INF
        sources = [int(i) for i in rng.choice(mi.n, size=1 + step % 3, replace=False)]
        got = distance_field(mi, sources, cost)
        fresh = MapInfo(**{f: getattr(mi, f) for f in MapInfo.__dataclass_fields__ if not f.startswith("_")})
        assert np.array_equal(got, distance_field(fresh, sources, cost)), step
        assert np.array_equal(got, dijkstra_reference(mi, sources, cost, INF)), step
        # each graph is a copy of the map's unit-weight template: the template itself never takes a field's weights
        assert (mi.steps.data == 1.0).all() and np.array_equal(mi.steps.indices, mi.edge_to), step


def test_distance_field_of_integer_costs_is_the_float_costs_field() -> None:
    """Enter costs held as integers give the field of the same costs as floats (the step weights are float64 and
    read per step from MapInfo.edge_take whatever the costs' type), blocked tiles included."""
    mi = map_info(build_state(generate(11, 3, size=(40, 30)), 1).map)
    rng = np.random.default_rng(11)
    whole = rng.integers(1, 5, mi.n)
    floats = whole.astype(float)
    floats[rng.random(mi.n) < 0.1] = INF
    ints = np.where(floats >= INF, int(INF), whole).astype(np.int64)
    sources = [int(i) for i in rng.choice(mi.n, size=2, replace=False)]
    got = distance_field(mi, sources, ints)
    assert got.dtype == np.float64 and np.array_equal(mi.edge_take, mi.edge_to)
    assert np.array_equal(got, distance_field(mi, sources, floats))
    assert np.array_equal(got, dijkstra_reference(mi, sources, floats, INF))


def test_member_mask_is_np_isin() -> None:
    """engine.belief.member_mask answers as np.isin does, for land codes (holder codes below -1, FREE, city ids)
    against id lists empty, small and out of the values' span."""
    from kingdoms.engine.belief import member_mask

    rng = np.random.default_rng(11)
    for trial in range(40):
        values = rng.integers(-6, 60, size=int(rng.integers(0, 300))).astype(np.int32)
        ids = rng.integers(-3, 90, size=int(rng.integers(0, 8))).astype(np.int32)
        assert np.array_equal(member_mask(values, ids), np.isin(values, ids)), trial


def test_within_small_radii_from_the_neighbourhood_table_is_the_distance_mask() -> None:
    """MAP-030: the tiles within a small radius, read from the sight neighbourhood table, are those the hex distance
    puts there, in map order, on every tile of a small map (edges and corners included) and for radius 0 to 5."""
    mi = map_info(build_state(generate(5, 3, size=(40, 30)), 1).map)
    for i in range(mi.n):
        for radius in range(6):
            got = mi.within(i, radius)
            want = np.flatnonzero(mi.dist_from(i) <= radius)
            assert got.dtype == want.dtype and np.array_equal(got, want), (i, radius)
    # asked again (the disc is cached per map: maps never change), the same tiles, read only; a fresh analysis of
    # the map (nothing kept) gives them too
    fresh = MapInfo(**{f: getattr(mi, f) for f in MapInfo.__dataclass_fields__ if not f.startswith("_")})
    for i in range(0, mi.n, 7):
        for radius in range(6):
            got = mi.within(i, radius)
            assert got is mi.within(i, radius) and not got.flags.writeable
            assert np.array_equal(got, fresh.within(i, radius)), (i, radius)


def test_map_info_tile_and_dist_agree_with_the_map() -> None:
    """MAP-030: MapInfo.tile and MapInfo.dist (read from Python ints) give the map's own tile and the hex distance
    that dist_from gives, on every tile of a small map, as Python ints."""
    mi = map_info(build_state(generate(5, 3, size=(40, 30)), 1).map)
    for i in range(mi.n):
        assert mi.tile(i) == mi.gm.tile(i) and all(type(x) is int for x in mi.tile(i))
    for a in range(0, mi.n, 37):
        want = mi.dist_from(a)
        got = [mi.dist(a, b) for b in range(mi.n)]
        assert got == want.tolist() and all(type(x) is int for x in got), a
