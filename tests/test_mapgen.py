"""The random map generator (MAP-130, OPEN-61..63, VIC-090): invariants over 200 seeds, determinism, sizes.

The checks here re-measure every map with code of their own (a small Dijkstra, disk sums) rather than
trusting the generator's own fairness check.
"""

from __future__ import annotations

import heapq
import math

import numpy as np
import pytest

from kingdoms import ruledata as rd
from kingdoms.gamemap import GameMap
from kingdoms.hexgrid import Tile, distance, spiral
from kingdoms.mapgen import MapGenError, fairness_problems, generate
from kingdoms.scenario import Scenario
from kingdoms.setup import build_state

# 200 seeds spread over 2, 3 and 4 kingdoms.
SEEDS = [(2, s) for s in range(80)] + [(3, s) for s in range(70)] + [(4, s) for s in range(50)]
MIX = {"G": 0.30, "P": 0.25, "F": 0.15, "H": 0.12, "M": 0.08, "~": 0.10}  # OPEN-62


@pytest.fixture(scope="module")
def maps() -> dict[tuple[int, int], Scenario]:
    """The 200 generated scenarios, made once for the module."""
    return {(n, s): generate(s, n) for n, s in SEEDS}


def _march(gm: GameMap, goal: Tile) -> dict[Tile, float]:
    """March cost from every reachable tile to `goal`: entering costs the tile's move, a river tile 1."""
    def enter(t: Tile) -> float:
        i = gm.index(*t)
        if int(gm.terrain[i]) in (rd.M, rd.W):
            return math.inf
        return 1.0 if gm.river[i] and not gm.bridge[i] else float(rd.TERRAINS[int(gm.terrain[i])].move)

    best = {goal: 0.0}
    heap = [(0.0, goal)]
    while heap:
        d, t = heapq.heappop(heap)
        if d > best[t]:
            continue
        for n in gm.neighbours(*t):
            nd = d + enter(t)
            if math.isfinite(enter(n)) and nd < best.get(n, math.inf):
                best[n] = nd
                heapq.heappush(heap, (nd, n))
    return best


def _near(gm: GameMap, t: Tile) -> list[int]:
    return [gm.index(*x) for x in spiral(t, 4) if gm.index(*x) >= 0]


@pytest.mark.long
def test_open_61_sizes(maps: dict[tuple[int, int], Scenario]) -> None:
    """OPEN-61: 32x24 for 2 kingdoms, 40x30 for 3, 48x36 for 4."""
    sizes = {2: (32, 24), 3: (40, 30), 4: (48, 36)}
    for (n, s), scn in maps.items():
        gm = scn.game_map()
        assert (gm.width, gm.height) == sizes[n], (n, s)
        assert len(scn.kingdoms) == n


@pytest.mark.long
def test_vic_090_ruin_central_and_marches_equal(maps: dict[tuple[int, int], Scenario]) -> None:
    """VIC-090, MAP-180: the Ruin is on land near the centre; every landing's march to it is within 10% of the mean."""
    for key, scn in maps.items():
        gm = scn.game_map()
        ruin = tuple(scn.map.ruin)
        i = gm.index(*ruin)
        assert gm.is_land[i] and gm.terrain[i] != rd.M, key
        assert distance(ruin, gm.centre()) <= 3, key
        cost = _march(gm, ruin)
        marches = [cost.get(tuple(k.landing), math.inf) for k in scn.kingdoms]
        assert all(math.isfinite(m) for m in marches), key  # all reach the Ruin, hence each other
        mean = sum(marches) / len(marches)
        assert all(abs(m - mean) <= 0.10 * mean + 1e-9 for m in marches), (key, marches)


def test_open_62_landings_legal_wet_and_apart(maps: dict[tuple[int, int], Scenario]) -> None:
    """OPEN-62, MAP-160: landings on G/P/F/H, not on a river tile, fresh or coast, at least 12 tiles apart."""
    for key, scn in maps.items():
        gm = scn.game_map()
        lands = scn.landings()
        for t in lands:
            i = gm.index(*t)
            assert i >= 0 and int(gm.terrain[i]) in (rd.G, rd.P, rd.F, rd.H), key
            assert not gm.river[i], key
            assert gm.water_class_at(*t) in ("fresh", "coast"), key
        assert all(distance(a, b) >= 12 for k, a in enumerate(lands) for b in lands[k + 1:]), key


def test_landing_food_production_and_land_comparable(maps: dict[tuple[int, int], Scenario]) -> None:
    """Fairness: within 4 tiles of each landing, food and production within 15% of the mean, usable land within 20%."""
    for key, scn in maps.items():
        gm = scn.game_map()
        usable = gm.is_land & (gm.terrain != rd.M)
        sums = []
        for t in scn.landings():
            idx = _near(gm, t)
            sums.append((int(gm.food[idx].sum()), int(gm.prod[idx].sum()), int(usable[idx].sum())))
        for col, tol in ((0, 0.15), (1, 0.15), (2, 0.20)):
            vals = [x[col] for x in sums]
            mean = sum(vals) / len(vals)
            assert all(abs(v - mean) <= tol * mean + 1e-9 for v in vals), (key, col, vals)
        assert fairness_problems(gm, scn.landings(), tuple(scn.map.ruin)) == []


def test_map_120_no_bridges_on_random_maps(maps: dict[tuple[int, int], Scenario]) -> None:
    """MAP-120: random maps have no bridges."""
    for key, scn in maps.items():
        assert scn.map.bridges == [] and not scn.game_map().bridge.any(), key


def test_open_62_named_rivers_run_from_hills_to_water_or_edge(maps: dict[tuple[int, int], Scenario]) -> None:
    """OPEN-62, MAP-100: 2-4 named rivers, each a connected path of river tiles from hill country downstream."""
    for key, scn in maps.items():
        gm = scn.game_map()
        rivers = [m for m in scn.landmarks if m.kind == "river"]
        assert 2 <= len(rivers) <= 4, key
        named: set[Tile] = set()
        for m in rivers:
            tiles = [tuple(t) for t in m.tiles]
            assert len(tiles) >= 5, key
            assert all(gm.river[gm.index(*t)] for t in tiles), key
            assert all(distance(a, b) == 1 for a, b in zip(tiles, tiles[1:], strict=False)), key
            src, mouth = tiles[0], tiles[-1]
            hilly = gm.terrain_at(*src).code == rd.H or any(gm.terrain_at(*n).code == rd.M for n in gm.neighbours(*src))
            assert hilly, (key, m.name)
            outlet = (len(gm.neighbours(*mouth)) < 6
                      or any(not gm.is_land[gm.index(*n)] for n in gm.neighbours(*mouth))
                      or any(n in named or (gm.river[gm.index(*n)] and n not in tiles) for n in gm.neighbours(*mouth)))
            assert outlet, (key, m.name)
            named |= set(tiles)
        assert named == {gm.tile(int(i)) for i in np.flatnonzero(gm.river)}, key


def test_open_63_named_lakes_and_ranges(maps: dict[tuple[int, int], Scenario]) -> None:
    """OPEN-62, OPEN-63, MAP-140: 1-3 named lakes (bodies of <= 12 tiles off the edge) and 1-3 named mountain ranges."""
    for key, scn in maps.items():
        gm = scn.game_map()
        lakes = [m for m in scn.landmarks if m.kind == "lake"]
        ranges = [m for m in scn.landmarks if m.kind == "range"]
        assert 1 <= len(lakes) <= 3 and 1 <= len(ranges) <= 3, key
        for m in lakes:
            body = {int(gm.body[gm.index(*t)]) for t in m.tiles}
            assert len(body) == 1 and gm.body_is_lake[body.pop()], key
            assert len(m.tiles) <= rd.LAKE_MAX_TILES, key
        lake_bodies = sum(gm.body_is_lake)
        assert lake_bodies == len(lakes), key  # every lake is named
        for m in ranges:
            assert all(gm.terrain_at(*t).code == rd.M for t in m.tiles), key
        assert sum(len(m.tiles) for m in ranges) == int((gm.terrain == rd.M).sum()), key
        names = [m.name for m in scn.landmarks]
        assert len(names) == len(set(names)), key


def test_open_62_terrain_mix(maps: dict[tuple[int, int], Scenario]) -> None:
    """OPEN-62: terrain about G 30%, P 25%, F 15%, H 12%, M 8%, water 10% (mean within 3 points, each map within 6)."""
    shares = []
    for scn in maps.values():
        gm = scn.game_map()
        counts = np.bincount(gm.terrain, minlength=6) / gm.size
        shares.append(counts)
        for k, letter in enumerate("GPFHM~"):
            assert abs(counts[k] - MIX[letter]) <= 0.06, (letter, counts[k])
    mean = np.mean(shares, axis=0)
    for k, letter in enumerate("GPFHM~"):
        assert abs(mean[k] - MIX[letter]) <= 0.03, (letter, mean[k])


def test_same_seed_same_map() -> None:
    """Seeded for reproducibility (OPEN-62): the same seed and kingdom count give the same map."""
    a, b = generate(1234, 3), generate(1234, 3)
    assert a.map.rows == b.map.rows
    assert a.landings() == b.landings()
    assert [m.model_dump() for m in a.landmarks] == [m.model_dump() for m in b.landmarks]
    assert [k.id for k in a.kingdoms] == [k.id for k in b.kingdoms]
    assert generate(1235, 3).map.rows != a.map.rows
    assert generate(1234, 2).map.rows != a.map.rows


@pytest.mark.parametrize("n", [5, 6])
def test_five_and_six_kingdoms(n: int) -> None:
    """5 and 6 kingdoms work: 54x40 and 60x44 maps that pass every fairness check and build a state."""
    sizes = {5: (54, 40), 6: (60, 44)}
    for seed in range(3):
        scn = generate(seed, n)
        gm = scn.game_map()
        assert (gm.width, gm.height) == sizes[n]
        assert len(scn.kingdoms) == n and len({k.id for k in scn.kingdoms}) == n
        assert fairness_problems(gm, scn.landings(), tuple(scn.map.ruin)) == []
        state = build_state(scn, seed=seed)
        assert len(state.cities) == n + 1


def test_kingdom_count_out_of_range_refused() -> None:
    """Random maps take 2 to 6 kingdoms; other counts raise a clear error."""
    for n in (1, 7):
        with pytest.raises(MapGenError, match="2 to 6 kingdoms"):
            generate(3, n)


def test_random_kingdoms_have_names_for_a_whole_game() -> None:
    """OPEN-68: random kingdoms come with 30+ city names and 12+ general names, all distinct."""
    scn = generate(8, 6)
    cities = [c for k in scn.kingdoms for c in k.city_names]
    generals = [g for k in scn.kingdoms for g in k.general_names]
    assert all(len(k.city_names) >= 30 and len(k.general_names) >= 12 for k in scn.kingdoms)
    assert len(cities) == len(set(cities)) and len(generals) == len(set(generals))
