"""Tournament throughput: games per hour of an AI-only tournament, the runner's overhead per game, and the
cost of resuming a half-finished tournament.

    .venv/bin/python scripts/bench_tournament.py [--rounds 10] [--jobs 2] [--json]

1. Throughput: the default scenario, ai:standard x 3, full games, `--jobs` workers: games per hour (wall),
   CPU seconds per game, and the mean of each step a worker times (start, play, collect).
2. Overhead: the same tournament with games capped at one month, so a game is almost nothing but the
   runner's and worker's own work (create the file, seat, play one month, collect, record).
3. Resume: a tournament stopped after half its games (`max_games`), then run again: the time from the
   call until the first remaining game starts (reading the folder, checking the schedule, recovering).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from kingdoms.bench import TOURNAMENT_CONFIG as CONFIG  # the same tournament `kingdoms bench` times
from kingdoms.tournament.runner import run
from kingdoms.tournament.store import TournamentStore


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _tournament(folder: Path, rounds: int, jobs: int, months: int | None, max_games: int | None = None
                ) -> dict[str, Any]:
    folder.mkdir(parents=True, exist_ok=True)
    cfg = folder / "bench.toml"
    cfg.write_text(CONFIG.format(rounds=rounds, months=f"months = {months}" if months else ""), encoding="utf-8")
    cpu0 = _children_cpu()
    t0 = time.time()
    run(cfg, out=folder / "out", jobs=jobs, quiet=True, max_games=max_games)
    wall = time.time() - t0
    cpu = _children_cpu() - cpu0
    store = TournamentStore(folder / "out")
    games = [g for g in store.games() if g["status"] == "done"]
    store.close()
    timings = [g["result"]["timings"] for g in games]
    steps = {f"worker_{k}_s": round(statistics.mean(t[k] for t in timings), 4) for k in ("start", "play", "collect")
             } if timings else {}
    return {
        "games": len(games), "wall_s": round(wall, 2), "games_per_hour": round(len(games) / wall * 3600),
        "cpu_s_per_game": round(cpu / max(1, len(games)), 3),
        "months_per_game": round(statistics.mean(g["result"]["months_played"] for g in games), 1) if games else 0,
        "runner_s_per_game": round(statistics.mean(g["finished_at"] - g["started_at"] for g in games), 3)
        if games else 0,
        **steps,
    }


def _resume(folder: Path, rounds: int, jobs: int) -> dict[str, Any]:
    folder.mkdir(parents=True, exist_ok=True)
    cfg = folder / "bench.toml"
    cfg.write_text(CONFIG.format(rounds=rounds, months=""), encoding="utf-8")
    total = rounds * 3
    run(cfg, out=folder / "out", jobs=jobs, quiet=True, max_games=total // 2)
    t0 = time.time()
    run(cfg, out=folder / "out", jobs=jobs, quiet=True)
    wall = time.time() - t0
    store = TournamentStore(folder / "out")
    starts = [t["at"] for t in store.transitions() if t["status"] == "running" and t["at"] >= t0]
    done = store.counts()["done"]
    store.close()
    return {"games": total, "left_at_resume": total - total // 2, "done_after": done,
            "until_first_start_s": round(min(starts) - t0, 3) if starts else None, "resumed_run_wall_s": round(wall, 2)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=10, help="rounds of 3 games each (default 10)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        out["throughput"] = _tournament(Path(tmp) / "full", args.rounds, args.jobs, None)
        out["overhead"] = _tournament(Path(tmp) / "one_month", args.rounds, args.jobs, 1)
        out["resume"] = _resume(Path(tmp) / "resume", max(2, args.rounds // 2), args.jobs)
    if args.json:
        print(json.dumps(out))
    else:
        for name, figs in out.items():
            print(name + ": " + ", ".join(f"{k} {v}" for k, v in figs.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
