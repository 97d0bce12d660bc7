"""Benchmark of armies in the field: route queries on a 48 x 36 map and a month of 200 troops marching.

A benchmark, not a test: it prints figures and never fails on them. Run: .venv/bin/python scripts/bench_armies.py
Targets: one route across the map under 1 ms (median); a month of 200 troops' orders under 50 ms.

Figures are CPU time (time.process_time: a busy machine slows the wall clock, not the CPU time), medians over
repeated runs; the month figures also give the best wall-clock run. `--json` prints them as one JSON object,
`--profile` adds cProfile's top entries for the 200-troop months.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import statistics
import time

import numpy as np

from kingdoms.engine.context import MonthContext
from kingdoms.engine.month import run_kingdom
from kingdoms.engine.pathing import Ground, _landmarks, find_route, net_of
from kingdoms.engine.registry import load_areas
from kingdoms.gamemap import GameMap
from kingdoms.hexgrid import distance, offset_col
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
    """CPU time of single route queries (Ground + find_route) for random pairs and for west-to-east crossings."""
    rng = np.random.default_rng(seed)
    state = GameState(seed=seed, month=1, kingdoms={"wei": _kingdom("wei")}, map=gm)
    land = _land(gm)
    west = [i for i in land if offset_col(int(gm.q_of[i]), int(gm.r_of[i])) < 3]
    east = [i for i in land if offset_col(int(gm.q_of[i]), int(gm.r_of[i])) >= WIDTH - 3]

    def timed(pairs: list[tuple[int, int]]) -> tuple[list[float], int]:
        times: list[float] = []
        found = 0
        for a, b in pairs:
            unit = Unit(1, "wei", "levy", *gm.tile(a), men=1_000)
            state.units = {1: unit}
            t0 = time.process_time()
            route = find_route(Ground(state, unit), {b})
            times.append(time.process_time() - t0)
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
                repeats: int = 7) -> dict[str, float]:
    """Time the orders part of months in which `troops` troops (two kingdoms at war) march to random tiles.

    Month 1 gives every troop a new move order; later months run their standing marches. `reach` limits the
    destinations to that many tiles from each troop (None: anywhere on the map). Each month is run `repeats`
    times from the same start: `month_K_ms` is the median CPU time, `month_K_wall_ms` the best wall-clock time.
    Every run starts with no goal known to the route search (as new orders), the map's tables already made.
    """
    load_areas()
    from kingdoms.orders.models import Move

    land = _land(gm)
    kinds = ["levy", "spearman", "archer", "cavalry", "heavy_infantry"]
    cpu: dict[int, list[float]] = {m: [] for m in range(months)}
    wall: dict[int, list[float]] = {m: [] for m in range(months)}
    out: dict[str, float] = {}
    for _ in range(repeats):
        _forget_goals(gm)  # each run starts as a new order would: no goal seen before (per-map tables stay)
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
            t0, c0 = time.perf_counter(), time.process_time()
            for kingdom in state.rotation:
                run_kingdom(ctx, kingdom, orders[kingdom] if m == 0 else [])
            cpu[m].append((time.process_time() - c0) * 1e3)
            wall[m].append((time.perf_counter() - t0) * 1e3)
            out[f"month_{m + 1}_orders"] = len(ctx.outcomes)
            out[f"month_{m + 1}_hash"] = state.state_hash()  # the same figures must come from the same moves
            state.month += 1
    for m in range(months):
        out[f"month_{m + 1}_ms"] = statistics.median(cpu[m])
        out[f"month_{m + 1}_wall_ms"] = min(wall[m])
    return out


def _forget_goals(gm: GameMap) -> None:
    """Drop the route search's per-goal heuristic tables (pathing keeps the last few hundred goals per map)."""
    net_of(gm).weights.clear()


def map_tables_ms(seed: int = 1) -> float:
    """CPU time of the route search's per-map tables (landmark distances), made once per map and game."""
    gm = bench_map(seed)
    t0 = time.process_time()
    _landmarks(net_of(gm))
    return (time.process_time() - t0) * 1e3


def profile_month(gm: GameMap, troops: int = 200, top: int = 25) -> str:
    """cProfile's top entries (own time) for the months of `troops` troops marching anywhere on the map."""
    prof = cProfile.Profile()
    prof.enable()
    bench_month(gm, troops, repeats=1)
    prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).strip_dirs().sort_stats("tottime").print_stats(top)
    return buf.getvalue()


def main(argv: list[str] | None = None) -> None:
    """Print the route and month figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--troops", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=7, help="runs of each month (median CPU time; default 7)")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    parser.add_argument("--profile", action="store_true", help="also print cProfile's top entries")
    args = parser.parse_args(argv)
    gm = bench_map(args.seed)
    routes = bench_routes(gm)
    months = {label: bench_month(gm, args.troops, reach=reach, repeats=args.repeats)
              for label, reach in (("anywhere", None), ("within_6", 6))}
    tables_ms = map_tables_ms(args.seed)
    if args.json:
        data = {f"route_{k}": round(v, 4) for k, v in routes.items()}
        data["map_tables_ms"] = round(tables_ms, 2)
        for label, month in months.items():
            data.update({f"{label}_{k}": (round(v, 2) if isinstance(v, float) else v) for k, v in month.items()})
        print(json.dumps(data))
        return
    print(f"map {WIDTH} x {HEIGHT}: one route (Ground + find_route), levy, CPU time")
    print(f"  random pairs:   median {routes['random_median_ms']:.3f} ms, p90 {routes['random_p90_ms']:.3f} ms "
          f"({routes['random_found']:.0f} of 300 reachable)")
    print(f"  west to east:   median {routes['across_median_ms']:.3f} ms, p90 {routes['across_p90_ms']:.3f} ms "
          f"({routes['across_found']:.0f} of 300 reachable)   target < 1 ms median")
    print(f"  the map's route tables (landmark distances, once per map): {tables_ms:.1f} ms")
    for label, month in zip(("destinations anywhere on the map", "destinations within 6 tiles"), months.values(),
                            strict=True):
        print(f"a month of {args.troops} troops marching, {label} (orders only, both kingdoms, median CPU of "
              f"{args.repeats}, best wall):   target < 50 ms")
        for k in range(1, 4):
            print(f"  month {k}: {month[f'month_{k}_ms']:.1f} ms CPU, {month[f'month_{k}_wall_ms']:.1f} ms wall "
                  f"({month[f'month_{k}_orders']:.0f} orders run, state {month[f'month_{k}_hash'][:12]})")
    if args.profile:
        print(profile_month(gm, args.troops))


if __name__ == "__main__":
    main()
