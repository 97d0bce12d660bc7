"""Benchmark of armies in the field: route queries on a 48 x 36 map and a month of 200 troops marching.

A benchmark, not a test: it prints figures and never fails on them. Run: python -m kingdoms.engine.bench_armies
Targets: one route across the map under 1 ms (median); a month of 200 troops' orders under 50 ms.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from kingdoms.engine.context import MonthContext
from kingdoms.engine.month import run_kingdom
from kingdoms.engine.pathing import Ground, find_route
from kingdoms.engine.registry import load_areas
from kingdoms.gamemap import GameMap
from kingdoms.hexgrid import distance
from kingdoms.state import GameState, Kingdom, Unit

WIDTH, HEIGHT = 48, 36  # the 4-kingdom map (OPEN-61)
MIX = {"G": 0.30, "P": 0.25, "F": 0.15, "H": 0.12, "M": 0.08, "~": 0.10}  # OPEN-62


def bench_map(seed: int = 1) -> GameMap:
    """A 48 x 36 map with the OPEN-62 terrain mix in patches, and three rivers running north to south."""
    rng = np.random.default_rng(seed)
    letters = np.array(list(MIX))
    coarse = rng.choice(letters, size=(HEIGHT // 3 + 1, WIDTH // 3 + 1), p=list(MIX.values()))
    grid = np.repeat(np.repeat(coarse, 3, axis=0), 3, axis=1)[:HEIGHT, :WIDTH].copy()
    noise = rng.random((HEIGHT, WIDTH)) < 0.25
    grid[noise] = rng.choice(letters, size=int(noise.sum()), p=list(MIX.values()))
    for col in (12, 24, 36):
        c = col
        for r in range(HEIGHT):
            c = int(min(WIDTH - 2, max(1, c + rng.integers(-1, 2) * (r % 2))))
            if grid[r, c] in "GPFH":
                grid[r, c] = grid[r, c].lower()
    return GameMap.from_rows(["".join(row) for row in grid])


def _kingdom(kid: str) -> Kingdom:
    return Kingdom(kid, kid.title(), f"{kid} ruler", (0, 0), [f"{kid} city {i}" for i in range(30)],
                   [f"{kid} general {i}" for i in range(12)])


def _land(gm: GameMap) -> list[int]:
    return [i for i in range(gm.size) if gm.move_cost[i] > 0 and not gm.is_crossing(i)]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def bench_routes(gm: GameMap, n: int = 300, seed: int = 2) -> dict[str, float]:
    """Time single route queries (Ground + find_route) for random pairs and for west-to-east crossings."""
    rng = np.random.default_rng(seed)
    state = GameState(seed=seed, month=1, kingdoms={"wei": _kingdom("wei")}, map=gm)
    land = _land(gm)
    west = [i for i in land if gm.q_of[i] + (gm.r_of[i] - (gm.r_of[i] & 1)) // 2 < 3]
    east = [i for i in land if gm.q_of[i] + (gm.r_of[i] - (gm.r_of[i] & 1)) // 2 >= WIDTH - 3]

    def timed(pairs: list[tuple[int, int]]) -> tuple[list[float], int]:
        times: list[float] = []
        found = 0
        for a, b in pairs:
            unit = Unit(1, "wei", "levy", *gm.tile(a), men=1_000)
            state.units = {1: unit}
            t0 = time.perf_counter()
            route = find_route(Ground(state, unit), {b})
            times.append(time.perf_counter() - t0)
            found += route is not None
        return times, found

    rand_pairs = [(int(rng.choice(land)), int(rng.choice(land))) for _ in range(n)]
    cross_pairs = [(int(rng.choice(west)), int(rng.choice(east))) for _ in range(n)]
    rand, rand_found = timed(rand_pairs)
    cross, cross_found = timed(cross_pairs)
    return {
        "random_median_ms": statistics.median(rand) * 1e3,
        "random_p90_ms": _pct(rand, 0.9) * 1e3,
        "random_found": rand_found,
        "across_median_ms": statistics.median(cross) * 1e3,
        "across_p90_ms": _pct(cross, 0.9) * 1e3,
        "across_found": cross_found,
    }


def bench_month(gm: GameMap, troops: int = 200, seed: int = 3, months: int = 3, reach: int | None = None,
                repeats: int = 3) -> dict[str, float]:
    """Time the orders part of months in which `troops` troops (two kingdoms at war) march to random tiles.

    Month 1 gives every troop a new move order; later months run their standing marches. `reach` limits the
    destinations to that many tiles from each troop (None: anywhere on the map). Best of `repeats` runs.
    """
    load_areas()
    from kingdoms.orders.models import Move

    land = _land(gm)
    kinds = ["levy", "spearman", "archer", "cavalry", "heavy_infantry"]
    best: dict[str, float] = {}
    for _ in range(repeats):
        rng = np.random.default_rng(seed)
        state = GameState(seed=seed, month=1, kingdoms={"wei": _kingdom("wei"), "shu": _kingdom("shu")}, map=gm,
                          rotation=["wei", "shu"], wars=[["shu", "wei"]])
        orders: dict[str, list] = {"wei": [], "shu": []}
        for n, i in enumerate(rng.permutation(land)[:troops]):
            owner = "wei" if n % 2 == 0 else "shu"
            here = gm.tile(int(i))
            unit = Unit(state.new_id(), owner, kinds[n % len(kinds)], *here, men=2_000, rations=8.0)
            state.units[unit.id] = unit
            near = land if reach is None else [j for j in land if distance(gm.tile(j), here) <= reach]
            orders[owner].append(Move(unit_id=unit.id, to=gm.tile(int(rng.choice(near)))))
        for m in range(months):
            ctx = MonthContext(state)
            t0 = time.perf_counter()
            for kingdom in state.rotation:
                run_kingdom(ctx, kingdom, orders[kingdom] if m == 0 else [])
            ms = (time.perf_counter() - t0) * 1e3
            best[f"month_{m + 1}_ms"] = min(ms, best.get(f"month_{m + 1}_ms", ms))
            best[f"month_{m + 1}_orders"] = len(ctx.outcomes)
            state.month += 1
    return best


def main(argv: list[str] | None = None) -> None:
    """Print the route and month figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--troops", type=int, default=200)
    args = parser.parse_args(argv)
    gm = bench_map(args.seed)
    routes = bench_routes(gm)
    print(f"map {WIDTH} x {HEIGHT}: one route (Ground + find_route), levy")
    print(f"  random pairs:   median {routes['random_median_ms']:.3f} ms, p90 {routes['random_p90_ms']:.3f} ms "
          f"({routes['random_found']:.0f} of 300 reachable)")
    print(f"  west to east:   median {routes['across_median_ms']:.3f} ms, p90 {routes['across_p90_ms']:.3f} ms "
          f"({routes['across_found']:.0f} of 300 reachable)   target < 1 ms median")
    for label, reach in (("destinations anywhere on the map", None), ("destinations within 6 tiles", 6)):
        month = bench_month(gm, args.troops, reach=reach)
        print(f"a month of {args.troops} troops marching, {label} (orders only, both kingdoms, best of 3):"
              "   target < 50 ms")
        for k in range(1, 4):
            print(f"  month {k}: {month[f'month_{k}_ms']:.1f} ms ({month[f'month_{k}_orders']:.0f} orders run)")


if __name__ == "__main__":
    main()
