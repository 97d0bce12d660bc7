#!/usr/bin/env python
"""How strong the scripted rulers are: seeded whole games on a scenario, results in two tables.

1. `standard` against `passive`: one standard ruler and the other seats passive, the standard seat rotating
   over the kingdoms game by game. Target: the standard ruler wins at least 80% of the games.
2. `standard` against `standard`: every seat standard. Target: at least half the games end with a winner
   (a draw is a game whose leaders are level on captures at the end).

Each game is played through the game service (kingdoms.game.Game), AI decisions and month resolution
included, so the timings are those of `kingdoms play`. Usage:

    .venv/bin/python scripts/ai_strength.py [--games 20] [--jobs N] [--scenario three_kingdoms] [--check]

With --check the exit code is 1 when a target is missed (the opt-in slow test uses it).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

BASE_SEED = 1000
TARGET_VS_PASSIVE = 0.8
TARGET_DECISIVE = 0.5


def play_one(scenario: str | None, seed: int, levels: list[str], months: int | None = None) -> dict[str, Any]:
    """Play one game to its end (or `months` months); returns each seat's level, result and captures."""
    from kingdoms.game import Game, captures_of
    from kingdoms.ruledata import FIGHTING_TYPES
    from kingdoms.scenario import build_state, resolve_scenario

    scen = resolve_scenario(scenario)
    state = build_state(scen, seed)
    kingdoms = list(state.kingdoms)
    controllers = {k: f"ai:{levels[n % len(levels)]}" for n, k in enumerate(kingdoms)}
    refused = 0
    with tempfile.TemporaryDirectory() as tmp:
        game, _ = Game.create(Path(tmp) / "game.sqlite", state, scenario=scen.name or "scenario",
                              controllers=controllers)
        issue = game.issue

        def counting_issue(kingdom: str, orders: Any, **kw: Any) -> Any:
            nonlocal refused
            verdicts = issue(kingdom, orders, **kw)
            refused += sum(1 for v in verdicts if not v.ok)
            return verdicts

        game.issue = counting_issue  # type: ignore[method-assign]
        start = game.month
        t0 = time.process_time()  # CPU time of this process: steady however busy the machine is
        while not game.finished and (months is None or game.month < start + months):
            game.play_ai_seats()
        seconds = time.process_time() - t0
        final = game.state()
        played = final.month - start + (1 if final.finished else 0)
        caps = captures_of(final)
        seats = []
        for k in kingdoms:
            kd = final.kingdoms[k]
            men = sum(u.men for u in final.units.values() if u.owner == k and u.type in FIGHTING_TYPES)
            seats.append({"kingdom": k, "name": kd.name, "level": controllers[k].split(":")[1],
                          "result": kd.result or ("eliminated" if kd.eliminated else "-"), "captures": caps.get(k, 0),
                          "cities": sum(1 for c in final.cities.values() if c.owner == k), "men": men})
        game.close()
    return {"seed": seed, "seats": seats, "end_reason": final.end_reason, "month": final.month,
            "finished": final.finished, "months": played, "seconds": seconds, "refused": refused}


def _job(args: tuple[str | None, int, list[str], int | None]) -> dict[str, Any]:
    return play_one(*args)


def run_games(jobs: list[tuple[str | None, int, list[str], int | None]], workers: int) -> list[dict[str, Any]]:
    if workers <= 1:
        return [_job(j) for j in jobs]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(_job, jobs))


def standard_vs_passive(scenario: str | None, games: int, workers: int, months: int | None) -> list[dict[str, Any]]:
    """Games with one standard seat (rotating over the kingdoms) and passive rulers elsewhere."""
    from kingdoms.scenario import resolve_scenario

    n = len(resolve_scenario(scenario).kingdoms)
    jobs = []
    for g in range(games):
        levels = ["passive"] * n
        levels[g % n] = "standard"
        jobs.append((scenario, BASE_SEED + g, levels, months))
    return run_games(jobs, workers)


def standard_vs_standard(scenario: str | None, games: int, workers: int, months: int | None) -> list[dict[str, Any]]:
    jobs = [(scenario, BASE_SEED + 500 + g, ["standard"], months) for g in range(games)]
    return run_games(jobs, workers)


def _seat_text(seat: dict[str, Any]) -> str:
    return f"{seat['name']}({seat['level'][0]}) {seat['result']} c{seat['captures']}"


def table(title: str, rows: list[dict[str, Any]]) -> str:
    lines = [title, f"{'seed':>6} {'end':>5} {'reason':<12} {'refused':>7} {'ms/mo':>6}  seats"]
    for g in rows:
        ms = 1000 * g["seconds"] / max(1, g["months"])
        lines.append(f"{g['seed']:>6} {g['month']:>5} {str(g['end_reason']):<12} {g['refused']:>7} {ms:>6.1f}  "
                     + "; ".join(_seat_text(s) for s in g["seats"]))
    return "\n".join(lines)


def summarise(vs_passive: list[dict[str, Any]], vs_standard: list[dict[str, Any]]) -> dict[str, float]:
    wins = sum(1 for g in vs_passive for s in g["seats"] if s["level"] == "standard" and s["result"] == "win")
    decisive = sum(1 for g in vs_standard if any(s["result"] == "win" for s in g["seats"]))
    all_games = vs_passive + vs_standard
    months = sum(g["months"] for g in all_games)
    seconds = sum(g["seconds"] for g in all_games)
    return {
        "standard_win_rate_vs_passive": wins / len(vs_passive) if vs_passive else 0.0,
        "decisive_rate_standard": decisive / len(vs_standard) if vs_standard else 0.0,
        "ms_per_month": 1000 * seconds / months if months else 0.0,
        "refused": float(sum(g["refused"] for g in all_games)),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=20, help="games per table (default 20)")
    ap.add_argument("--scenario", default=None, help="scenario name or path (default: the default scenario)")
    ap.add_argument("--jobs", type=int, default=min(8, os.cpu_count() or 1), help="games played in parallel")
    ap.add_argument("--months", type=int, default=None, help="stop each game after this many months")
    ap.add_argument("--check", action="store_true", help="exit 1 when a strength target is missed")
    args = ap.parse_args(argv)
    t0 = time.time()
    vs_passive = standard_vs_passive(args.scenario, args.games, args.jobs, args.months)
    print(table("standard (s) against passive (p): one standard seat, rotating", vs_passive))
    print()
    vs_standard = standard_vs_standard(args.scenario, args.games, args.jobs, args.months)
    print(table("standard against standard", vs_standard))
    print()
    summary = summarise(vs_passive, vs_standard)
    print(f"standard wins against passive: {summary['standard_win_rate_vs_passive']:.0%} "
          f"(target {TARGET_VS_PASSIVE:.0%})")
    print(f"standard-vs-standard games with a winner: {summary['decisive_rate_standard']:.0%} "
          f"(target {TARGET_DECISIVE:.0%})")
    print(f"CPU time per month (AI decisions and resolution): {summary['ms_per_month']:.1f} ms; "
          f"refused orders: {int(summary['refused'])}; wall time {time.time() - t0:.0f} s")
    ok = (summary["standard_win_rate_vs_passive"] >= TARGET_VS_PASSIVE
          and summary["decisive_rate_standard"] >= TARGET_DECISIVE)
    return 0 if ok or not args.check else 1


if __name__ == "__main__":
    sys.exit(main())
