"""Benchmark of the economy's month phases (production, grain, growth) on a big world: `.venv/bin/python scripts/bench_economy.py`.

Builds a seeded 120 x 80 map with 200 cities of 4 kingdoms (people 5,000..60,000, queues of troops, buildings,
improvements and colonists, a troop or two on each city's land) and times the three phases month after month.
Target: under 20 ms a month for 200 cities. Not a test: nothing here is asserted.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from kingdoms import ruledata as rd
from kingdoms.engine import cities
from kingdoms.engine.context import MonthContext
from kingdoms.engine.land import found_city, founding_problem
from kingdoms.gamemap import GameMap
from kingdoms.state import GameState, Kingdom, QueueEntry, Unit

KINGDOMS = ("wei", "shu", "wu", "jin")
QUEUES = (
    [QueueEntry("levy", men=6_000), QueueEntry("palisade")],
    [QueueEntry("barracks"), QueueEntry("spearman", men=3_000)],
    [QueueEntry("colonists")],
    [QueueEntry("farm"), QueueEntry("scout")],
    [],
)


def build_world(n_cities: int = 200, width: int = 120, height: int = 80, seed: int = 5) -> GameState:
    """A seeded world with `n_cities` cities spread over the map."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("GGGGPPPPPFFFHHMWgp"))
    rows = ["".join(rng.choice(letters, width)).replace("W", "~") for _ in range(height)]
    gm = GameMap.from_rows(rows)
    kds = {k: Kingdom(k, k.title(), f"Ruler {k}", (0, 0), [f"{k}{i}" for i in range(400)], ["g"]) for k in KINGDOMS}
    state = GameState(seed=seed, month=1, kingdoms=kds, map=gm, rotation=list(KINGDOMS))
    state.wars = [sorted(("wei", "shu")), sorted(("wu", "jin"))]
    spots = [(int(gm.q_of[i]), int(gm.r_of[i])) for i in rng.permutation(gm.size)]
    made = 0
    for q, r in spots:
        if made >= n_cities:
            break
        if founding_problem(state, q, r) is not None:
            continue
        owner = KINGDOMS[made % len(KINGDOMS)]
        city = found_city(state, owner, q, r, people=int(rng.integers(5_000, 60_000)), grain=float(rng.integers(50, 300)),
                          capital=state.kingdoms[owner].capital_id is None)
        city.focus = rd.FOCUSES[made % 3]
        city.store = float(rng.integers(0, 40))
        city.queue = [QueueEntry(e.item, men=e.men) for e in QUEUES[made % len(QUEUES)]]
        if city.queue and city.queue[0].item == "farm":
            city.queue = [QueueEntry("palisade")]
        for k in range(1 + made % 2):
            uid = state.new_id()
            state.units[uid] = Unit(uid, owner, "levy", q, r, men=3_000, rations=12.0) if k == 0 else \
                Unit(uid, owner, "archer", q + 1, r, men=1_500, rations=6.0)
        made += 1
    return state


def bench(months: int = 20, n_cities: int = 200) -> dict[str, float]:
    """Time the production, grain and growth phases over `months` months; returns ms figures."""
    state = build_world(n_cities)
    per_month: list[float] = []
    per_phase = {"production": 0.0, "grain": 0.0, "growth": 0.0}
    for _ in range(months):
        ctx = MonthContext(state)
        t0 = time.perf_counter()
        for name, fn in (("production", cities.production_phase), ("grain", cities.grain_phase),
                         ("growth", cities.growth_phase)):
            t = time.perf_counter()
            fn(ctx)
            per_phase[name] += time.perf_counter() - t
        per_month.append(time.perf_counter() - t0)
        state.month += 1
    ms = sorted(x * 1000 for x in per_month)
    return {
        "cities": float(len(state.cities)),
        "mean_ms": sum(ms) / len(ms),
        "median_ms": ms[len(ms) // 2],
        "max_ms": ms[-1],
        **{f"{k}_ms": v * 1000 / months for k, v in per_phase.items()},
    }


def main() -> None:
    """Print the benchmark figures."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--months", type=int, default=20)
    ap.add_argument("--cities", type=int, default=200)
    args = ap.parse_args()
    out = bench(args.months, args.cities)
    print(f"economy phases, {out['cities']:.0f} cities, {args.months} months: mean {out['mean_ms']:.1f} ms/month "
          f"(median {out['median_ms']:.1f}, max {out['max_ms']:.1f}); production {out['production_ms']:.1f}, "
          f"grain {out['grain_ms']:.1f}, growth {out['growth_ms']:.1f} ms")


if __name__ == "__main__":
    main()
