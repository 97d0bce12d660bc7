"""`kingdoms bench`: fixed-seed games timed month by month, MCP tool latency, replay, scaling, tournaments, sizes.

A benchmark, not a test: it reports figures and never fails on them. Every timing is wall-clock on this
machine; `calibration_ms` is the time of a fixed pure-Python workload run in the same process, so a figure
divided by it compares across machines and runs. `--quick` runs short versions (for development), `--only
PARTS` some of the parts (comma-separated: default, hard, random4, random6, tools, replay, scaling,
tournament); `--profile FILE` writes a cProfile text report of the default game (where the time goes).

Figures (keys of `--json`):
- default scenario, three ai:standard, a whole game: `months_per_second`, `month_ms_p50`, `month_ms_p95`
  (a month = every AI decision, the issue-time checks of their orders, the resolution and its storage);
- three ai:hard on the default scenario: `hard_months_per_second`, `hard_month_ms_p95`;
- a random map: 4 kingdoms (48 x 36) `random4_months_per_second`, 6 kingdoms (64 x 48, the issue's size)
  `random6_months_per_second`, ai:standard; map generation `mapgen_40x30_ms` (3 kingdoms, mean of 20) and
  `mapgen_64x48_ms` (the random6 map);
- one seat played over MCP (the in-memory client) while AI rulers play the others: `get_briefing_ms_*` (the
  month is already resolved: the end of the previous month, resolution and the AI seats' next month included,
  is timed apart as `end_turn_ms_*`), `issue_orders_ms_*` (one call of 30 orders a month), briefing sizes;
- `replay_verify_s`: `kingdoms replay --verify` of a 160-month game (the default scenario with seed 1 runs
  to the time limit), with its `long_game_file_bytes`;
- `scaling`: ms per month against the entities on the board (cities + units) for 2, 4 and 6 kingdoms on two
  map sizes, each point a game's months, and the least-squares line through every month (`slope_ms_per_entity`),
  with `board_fit` splitting a month's cost between entities and tiles (ms per entity, ms per 1,000 tiles, r^2);
- `tournament_games_per_hour`: a small AI-only tournament through the tournament runner (kingdoms.tournament);
- `peak_rss_mb`: the largest peak RSS of the parts, each run in a fresh process (`peak_rss_mb_by_part`);
  `tournament_worker_peak_rss_mb` of the tournament's worker processes; `game_file_bytes` of the default game;
- `calibration_ms`: the median of the calibration each part measures just before its timings (and the range);
- `*_cpu` twins of the main timings (months per CPU second, CPU ms, CPU s): the process's own CPU time, which
  another program on a shared machine slows much less than the wall clock.
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from kingdoms.game import Game
from kingdoms.gctune import DEFAULTS, tune_collector
from kingdoms.ruledata import LAST_MONTH

BENCH_SEED = 20261129
#: The default scenario with this game seed is played to the time limit by three ai:standard rulers.
LONG_GAME_SEED = 1
#: Orders in the timed issue_orders call of each month.
ORDERS_PER_CALL = 30
#: (kingdoms, map width, map height) of the scaling runs: each kingdom count on its own map size and on a larger
#: one (random maps are made for their size by kingdoms.mapgen).
SCALING = ((2, 32, 24), (2, 48, 36), (4, 48, 36), (4, 60, 44), (6, 60, 44), (6, 72, 54))
#: The map size of the random 6-kingdom game (issue 21's target is set on 64 x 48).
RANDOM6_SIZE = (64, 48)


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[k]


def _workload() -> int:
    """A fixed pure-Python workload of the kinds of work a month does: dict and list churn, small objects,
    sorting with keys, integer arithmetic and calls (no numpy, no I/O)."""
    table: dict[int, list[int]] = {}
    total = 0
    for i in range(60_000):
        key = (i * 2654435761) & 0x3FFF
        row = table.get(key)
        if row is None:
            row = table[key] = []
        row.append(i % 97)
        total += len(row)
    ranked = sorted(table.items(), key=lambda kv: (sum(kv[1]) % 101, -len(kv[1]), kv[0]))
    grid = [[(r * 31 + c * 17) % 23 for c in range(80)] for r in range(60)]
    for _ in range(6):
        grid = [[min(row[c], row[c - 1] + 1, row[(c + 1) % 80] + 1) for c in range(80)] for row in grid]
    return total + len(ranked) + sum(map(sum, grid))


def calibrate(rounds: int = 7) -> float:
    """Milliseconds of `_workload` in this process (the median of `rounds` runs, after one warm-up).

    Run under CPython's default collector thresholds, so the figure measures the machine, not gctune."""
    kept = gc.get_threshold()
    gc.set_threshold(*DEFAULTS)
    try:
        _workload()
        times = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            _workload()
            times.append(time.perf_counter() - t0)
    finally:
        gc.set_threshold(*kept)
    return 1000 * statistics.median(times)


def _warm_imports() -> None:
    """Import what a game loads on first use (the AI levels, the engine areas), so no timing pays for it."""
    import kingdoms.ai
    import kingdoms.ai.hard
    import kingdoms.setup  # noqa: F401  (time_game's set-up: without it, --profile's report starts with an import)
    from kingdoms.engine.registry import load_areas

    load_areas()


def _scenario(random_seed: int | None, kingdoms: int, size: tuple[int, int] | None, scenario: str | None) -> Any:
    from kingdoms.setup import random_scenario, resolve_scenario

    if random_seed is None:
        return resolve_scenario(scenario)
    if size is None:
        return random_scenario(random_seed, kingdoms)
    from kingdoms.mapgen import generate

    return generate(random_seed, kingdoms, size=size)


def time_game(workdir: Path, name: str, *, scenario: str | None = None, random_seed: int | None = None,
              kingdoms: int = 3, months: int = LAST_MONTH, level: str = "ai:standard", seed: int = BENCH_SEED,
              size: tuple[int, int] | None = None) -> dict[str, Any]:
    """Play one AI game through the game service, timing every month (AI decisions included).

    Returns months, seconds, months per second, the month p50/p95 (ms), their CPU-time twins, the file and its
    size, and per month the entities on the board (cities + units) at its start with its time, for the scaling fit.
    """
    from kingdoms.ai import LEVELS
    from kingdoms.setup import build_state

    _warm_imports()
    if level.split(":")[-1] not in LEVELS:
        level = "ai"
    scen = _scenario(random_seed, kingdoms, size, scenario)
    state = build_state(scen, seed)
    path = workdir / f"{name}.sqlite"
    game, _ = Game.create(path, state, scenario=scen.name, controllers={k: level for k in state.kingdoms})
    times: list[float] = []
    cpu: list[float] = []
    entities: list[int] = []
    start = game.month
    while not game.finished and game.month < start + months:
        now = game.state()
        entities.append(len(now.cities) + len(now.units))
        t0, c0 = time.perf_counter(), time.process_time()
        game.play_ai_seats()
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    game.close()
    total, total_cpu = sum(times), sum(cpu)
    return {"months": len(times), "seconds": total, "months_per_second": len(times) / total if total else 0.0,
            "month_ms_p50": 1000 * _pct(times, 0.5), "month_ms_p95": 1000 * _pct(times, 0.95),
            "cpu_seconds": total_cpu, "months_per_cpu_second": len(cpu) / total_cpu if total_cpu else 0.0,
            "month_cpu_ms_p95": 1000 * _pct(cpu, 0.95), "path": path,
            "bytes": file_bytes(path), "month_ms": [1000 * t for t in times], "entities": entities,
            "tiles": state.map.size}


def mapgen_time(maps: int) -> dict[str, float]:
    """Mean milliseconds to generate a random map: `maps` 3-kingdom 40x30 maps (seeds 500 on) and one 6-kingdom
    64x48 map (the random6 game's), as `kingdoms new --random` would."""
    from kingdoms.mapgen import generate

    t0 = time.perf_counter()
    for seed in range(500, 500 + maps):
        generate(seed, 3)
    small = (time.perf_counter() - t0) / maps
    t0 = time.perf_counter()
    generate(BENCH_SEED, 6, size=RANDOM6_SIZE)
    large = time.perf_counter() - t0
    return {"mapgen_40x30_ms": round(1000 * small, 2), "mapgen_64x48_ms": round(1000 * large, 2)}


def file_bytes(path: Path) -> int:
    """A game file's size with its -wal and -shm."""
    return path.stat().st_size + sum(p.stat().st_size for p in path.parent.glob(path.name + "-*"))


def replay_verify(path: Path) -> dict[str, Any]:
    """Time what `kingdoms replay --verify` does with a game file: open it read-only after checking it whole,
    rebuild month 1, replay every month and compare its hash (through the game service, as the command does)."""
    _warm_imports()
    t0, c0 = time.perf_counter(), time.process_time()
    game = Game.open(path, readonly=True, check=True)
    try:
        report = game.replay()
    finally:
        game.close()
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"seconds": seconds, "cpu_seconds": cpu, "ok": bool(report.ok), "months": report.months}


def _least_squares(columns: list[list[float]], ys: list[float]) -> tuple[list[float], float]:
    """numpy's least squares of y on an intercept and `columns`: (intercept and one coefficient a column, r^2)."""
    x = np.column_stack([np.ones(len(ys)), *columns])
    y = np.asarray(ys, dtype=float)
    coef, *_ = np.linalg.lstsq(x, y, rcond=None)
    ss = float(((y - y.mean()) ** 2).sum())
    r2 = 1.0 - float(((y - x @ coef) ** 2).sum()) / ss if ss else 0.0
    return [float(c) for c in coef], r2


def fit_line(xs: list[float], ys: list[float]) -> tuple[float, float, float]:
    """Least-squares line y = a + b x through the points: (a, b, r^2); (mean y, 0, 0) when x does not vary."""
    if len(xs) < 2:
        return (ys[0] if ys else 0.0), 0.0, 0.0
    if min(xs) == max(xs):
        return statistics.fmean(ys), 0.0, 0.0
    (a, b), r2 = _least_squares([xs], ys)
    return a, b, r2


def fit_board(entities: list[float], tiles: list[float], ys: list[float]) -> dict[str, float]:
    """Least squares ms = intercept + a x entities + b x (tiles / 1000): how a month's cost splits between what is
    on the board and the board's size, with r^2; a plane through linear growth in both."""
    (c, a, b), r2 = _least_squares([entities, [t / 1000.0 for t in tiles]], ys)
    return {"intercept_ms": round(c, 2), "ms_per_entity": round(a, 4), "ms_per_1000_tiles": round(b, 3),
            "r2": round(r2, 3)}


def scaling(workdir: Path, months: int) -> dict[str, Any]:
    """ms per month against entities (cities + units) at 2, 4 and 6 kingdoms on two map sizes (SCALING).

    Each point is one game's first `months` months: mean entities, mean ms per month, tiles. The fit is over
    every month of every game (ms = intercept + slope x entities), and `board_fit` adds the map's tiles as a
    second term (a month's cost linear in both)."""
    points = []
    xs: list[float] = []
    ts: list[float] = []
    ys: list[float] = []
    for kingdoms, width, height in SCALING:
        got = time_game(workdir, f"scale-{kingdoms}-{width}x{height}", random_seed=BENCH_SEED, kingdoms=kingdoms,
                        months=months, size=(width, height))
        xs.extend(got["entities"])
        ts.extend([got["tiles"]] * len(got["entities"]))
        ys.extend(got["month_ms"])
        points.append({"kingdoms": kingdoms, "map": f"{width}x{height}", "tiles": got["tiles"],
                       "months": got["months"], "entities_mean": round(statistics.mean(got["entities"]), 1),
                       "ms_per_month": round(statistics.mean(got["month_ms"]), 2),
                       "ms_per_entity": round(statistics.mean(got["month_ms"]) / statistics.mean(got["entities"]), 3)})
    a, b, r2 = fit_line(xs, ys)
    return {"points": points, "slope_ms_per_entity": round(b, 4), "intercept_ms": round(a, 2), "r2": round(r2, 3),
            "months_fitted": len(xs), "board_fit": fit_board(xs, ts, ys)}


TOURNAMENT_CONFIG = """
name = "bench"
seed = 9
rounds = {rounds}
{months}
[[entrants]]
name = "std_a"
ai = "standard"
[[entrants]]
name = "std_b"
ai = "standard"
[[entrants]]
name = "std_c"
ai = "standard"
[[scenarios]]
name = "three_kingdoms"
"""


def tournament(workdir: Path, rounds: int, jobs: int, months: int | None) -> dict[str, Any]:
    """Games per hour of an AI-only tournament (three ai:standard on the default scenario, `rounds` rounds of
    3 games) run by the tournament runner with `jobs` worker processes."""
    from kingdoms.tournament.runner import run as run_tournament
    from kingdoms.tournament.store import TournamentStore

    folder = workdir / "tournament"
    folder.mkdir(parents=True, exist_ok=True)
    cfg = folder / "bench.toml"
    cfg.write_text(TOURNAMENT_CONFIG.format(rounds=rounds, months=f"months = {months}" if months else ""),
                   encoding="utf-8")
    t0 = time.perf_counter()
    run_tournament(cfg, out=folder / "out", jobs=jobs, quiet=True)
    wall = time.perf_counter() - t0
    store = TournamentStore(folder / "out")
    games = [g for g in store.games() if g["status"] == "done"]
    store.close()
    played = [g["result"]["months_played"] for g in games]
    return {"games": len(games), "wall_s": wall, "games_per_hour": len(games) / wall * 3600 if wall else 0.0,
            "months_per_game": statistics.mean(played) if played else 0.0, "jobs": jobs}


def tool_latency(workdir: Path, months: int = 50) -> dict[str, Any]:
    """Seat one kingdom as an agent on the default scenario and time its MCP tools through the in-memory client.

    Each month the agent reads its briefing (get_briefing, the month already resolved), gives one issue_orders
    call of 30 orders (the orders a standard AI would give, after padding orders that change nothing the AI's
    orders do not: a hold for each of its units, its cities' focus as it is) and ends the month in a call of
    its own (end_turn: resolution and the AI seats' next month, timed apart). AI rulers play the other seats.
    Also reports the briefing's size at months 1 and 50.
    """
    import anyio
    from mcp import Client

    from kingdoms.ai import decide_orders
    from kingdoms.server import build_server
    from kingdoms.setup import build_state, resolve_scenario

    _warm_imports()
    state = build_state(resolve_scenario(None), BENCH_SEED)
    agent = next(iter(state.kingdoms))
    path = workdir / "tools.sqlite"
    game, tokens = Game.create(path, state, scenario="three_kingdoms",
                               controllers={k: ("agent" if k == agent else "ai:standard") for k in state.kingdoms})
    game.play_ai_seats()
    brief_ms: list[float] = []
    orders_ms: list[float] = []
    end_ms: list[float] = []
    brief_cpu: list[float] = []
    orders_cpu: list[float] = []
    sizes: dict[int, int] = {}
    counts: list[int] = []

    async def session() -> None:
        server = build_server(path, token=tokens[agent], wait_s=30, poll_s=0.005)
        try:
            async with Client(server) as client:
                for _ in range(months):
                    month = game.month
                    t0, c0 = time.perf_counter(), time.process_time()
                    brief = await client.call_tool("get_briefing", {})
                    brief_ms.append(1000 * (time.perf_counter() - t0))
                    brief_cpu.append(1000 * (time.process_time() - c0))
                    text = "\n".join(getattr(c, "text", "") for c in brief.content)
                    if month in (1, 50):
                        sizes[month] = len(text)
                    obs = game.observation(agent)
                    decision = decide_orders(obs, "ai:standard")
                    orders = _thirty_orders(obs, decision if isinstance(decision, str) else decision.orders)
                    counts.append(len(orders))
                    t0, c0 = time.perf_counter(), time.process_time()
                    await client.call_tool("issue_orders", {"orders": "\n".join(orders)})
                    orders_ms.append(1000 * (time.perf_counter() - t0))
                    orders_cpu.append(1000 * (time.process_time() - c0))
                    t0 = time.perf_counter()
                    await client.call_tool("issue_orders", {"end_turn": True, "force": True})
                    end_ms.append(1000 * (time.perf_counter() - t0))
                    if game.finished:
                        break
        finally:
            server.session.close()  # type: ignore[attr-defined]

    anyio.run(session)
    game.close()
    return {
        "get_briefing_ms_p50": round(_pct(brief_ms, 0.5), 2), "get_briefing_ms_p95": round(_pct(brief_ms, 0.95), 2),
        "issue_orders_ms_p50": round(_pct(orders_ms, 0.5), 2), "issue_orders_ms_p95": round(_pct(orders_ms, 0.95), 2),
        "get_briefing_ms_p95_cpu": round(_pct(brief_cpu, 0.95), 2),
        "issue_orders_ms_p95_cpu": round(_pct(orders_cpu, 0.95), 2),
        "issue_orders_per_call": round(statistics.mean(counts), 1) if counts else 0,
        "end_turn_ms_p50": round(_pct(end_ms, 0.5), 2), "end_turn_ms_p95": round(_pct(end_ms, 0.95), 2),
        "briefing_chars_month1": sizes.get(1, 0), "briefing_tokens_month1": sizes.get(1, 0) // 4,
        "briefing_chars_month50": sizes.get(50, 0), "briefing_tokens_month50": sizes.get(50, 0) // 4,
    }


def _thirty_orders(obs: Any, ai_orders: str) -> list[str]:
    """ORDERS_PER_CALL order lines: padding first (hold for each own unit, each own city's focus as it is,
    round and round), then the AI's orders, which come last so they are what the month carries out."""
    given = [line for line in ai_orders.splitlines() if line.strip()]
    pad = [f"hold unit={u.id}" for u in obs.own_units] + [f"set_focus city={c.id} focus={c.focus}"
                                                            for c in obs.own_cities]
    lines: list[str] = []
    while pad and len(lines) + len(given) < ORDERS_PER_CALL:
        lines.append(pad[len(lines) % len(pad)])
    return lines + given


def _part(name: str, quick: bool) -> dict[str, Any]:
    """One part of the benchmark in this process: its figures, the calibration measured just before them and the
    process's peak RSS (run in a fresh process each, so a part's memory and caches are its own)."""
    months = 20 if quick else LAST_MONTH
    calibration = calibrate()
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if name == "default":
            main = time_game(work, "default", months=months)
            figures.update({"months_per_second": round(main["months_per_second"], 2),
                            "month_ms_p50": round(main["month_ms_p50"], 2),
                            "month_ms_p95": round(main["month_ms_p95"], 2), "months_played": main["months"],
                            "months_per_second_cpu": round(main["months_per_cpu_second"], 2),
                            "month_ms_p95_cpu": round(main["month_cpu_ms_p95"], 2),
                            "game_file_bytes": main["bytes"]})
        elif name == "hard":
            hard = time_game(work, "hard", months=months, level="ai:hard")
            figures.update({"hard_months_per_second": round(hard["months_per_second"], 2),
                            "hard_month_ms_p95": round(hard["month_ms_p95"], 2), "hard_months_played": hard["months"],
                            "hard_months_per_second_cpu": round(hard["months_per_cpu_second"], 2)})
        elif name == "random4":
            rnd = time_game(work, "random4", random_seed=BENCH_SEED, kingdoms=4, months=months)
            figures.update({"random4_months_per_second": round(rnd["months_per_second"], 2),
                            "random4_months_per_second_cpu": round(rnd["months_per_cpu_second"], 2)})
        elif name == "random6":
            rnd6 = time_game(work, "random6", random_seed=BENCH_SEED, kingdoms=6, months=months, size=RANDOM6_SIZE)
            figures.update(mapgen_time(3 if quick else 20))
            figures.update({"random6_months_per_second": round(rnd6["months_per_second"], 2),
                            "random6_month_ms_p95": round(rnd6["month_ms_p95"], 2),
                            "random6_months_played": rnd6["months"], "random6_map": "x".join(map(str, RANDOM6_SIZE)),
                            "random6_months_per_second_cpu": round(rnd6["months_per_cpu_second"], 2)})
        elif name == "tools":
            figures.update(tool_latency(work, months=10 if quick else 50))
        elif name == "replay":
            long = time_game(work, "long", months=30 if quick else LAST_MONTH, seed=LONG_GAME_SEED)
            verify = replay_verify(long["path"])
            figures.update({"replay_verify_s": round(verify["seconds"], 3), "replay_verify_ok": verify["ok"],
                            "replay_verify_s_cpu": round(verify["cpu_seconds"], 3),
                            "replay_verify_months": long["months"], "long_game_file_bytes": long["bytes"],
                            "long_game_months_per_second": round(long["months_per_second"], 2)})
        elif name == "scaling":
            figures["scaling"] = scaling(work, 8 if quick else 40)
        elif name == "tournament":
            trn = tournament(work, rounds=1, jobs=1, months=10 if quick else None)
            figures.update({"tournament_games_per_hour": round(trn["games_per_hour"]),
                            "tournament_games": trn["games"], "tournament_jobs": trn["jobs"],
                            "tournament_months_per_game": round(trn["months_per_game"], 1),
                            "tournament_worker_peak_rss_mb": round(
                                resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)})
        else:
            raise ValueError(f"no bench part {name!r}")
    figures["_calibration_ms"] = calibration
    figures["_peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return figures


def _part_child(conn: Any, name: str, quick: bool) -> None:
    """A spawned process running one part: sends {"figures": ...} or {"error": ...} back."""
    tune_collector()  # as the `kingdoms` command's own processes do
    try:
        conn.send({"figures": _part(name, quick)})
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which names the part
        conn.send({"error": f"{type(exc).__name__}: {exc}"})
    finally:
        conn.close()


PARTS = ("default", "hard", "random4", "random6", "tools", "replay", "scaling", "tournament")


def run(quick: bool = False, parts: tuple[str, ...] = PARTS) -> dict[str, Any]:
    """Every figure of the benchmark as one dict; each part runs in a fresh process (spawned), one at a time."""
    import multiprocessing

    figures: dict[str, Any] = {}
    calibrations: list[float] = []
    rss: dict[str, float] = {}
    ctx = multiprocessing.get_context("spawn")
    for name in parts:
        receive, send = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_part_child, args=(send, name, quick))  # not a daemon: the tournament forks
        proc.start()
        send.close()
        try:
            answer = receive.recv()
        except EOFError:
            answer = {"error": f"the {name} part's process died (exit code {proc.exitcode})"}
        proc.join()
        if "error" in answer:
            raise RuntimeError(f"bench part {name}: {answer['error']}")
        got = answer["figures"]
        calibrations.append(got.pop("_calibration_ms"))
        rss[name] = got.pop("_peak_rss_mb")
        figures.update(got)
    figures["calibration_ms"] = round(statistics.median(calibrations), 2)
    figures["calibration_ms_range"] = [round(min(calibrations), 2), round(max(calibrations), 2)]
    figures["peak_rss_mb"] = max(rss.values())
    figures["peak_rss_mb_by_part"] = rss
    return figures


def profile(out: Path, quick: bool = False) -> str:
    """Profile the default game (cProfile) and write a text report to `out`: the calls with the most time of
    their own, and the most time including what they call. Returns the report's first lines."""
    import cProfile
    import io
    import pstats

    _warm_imports()
    with tempfile.TemporaryDirectory() as tmp:
        prof = cProfile.Profile()
        prof.enable()
        got = time_game(Path(tmp), "profiled", months=20 if quick else LAST_MONTH)
        prof.disable()
    text = io.StringIO()
    text.write(f"kingdoms bench --profile: the default scenario, three ai:standard, {got['months']} months in "
               f"{got['seconds']:.2f} s under cProfile (its overhead included)\n\n")
    stats = pstats.Stats(prof, stream=text)
    stats.strip_dirs()
    text.write("=== by time of their own (tottime) ===\n")
    stats.sort_stats("tottime").print_stats(60)
    text.write("\n=== by time including callees (cumtime) ===\n")
    stats.sort_stats("cumulative").print_stats(80)
    out.write_text(text.getvalue(), encoding="utf-8")
    return f"wrote the profile of {got['months']} months to {out}"


def main(args: argparse.Namespace) -> int:
    if getattr(args, "profile", None):
        print(profile(Path(args.profile), quick=args.quick))
        return 0
    only = tuple(p.strip() for p in (getattr(args, "only", None) or "").split(",") if p.strip())
    unknown = [p for p in only if p not in PARTS]
    if unknown:
        print(f"kingdoms bench: no part {unknown[0]!r}; the parts are {', '.join(PARTS)}", file=sys.stderr)
        return 2
    figures = run(quick=args.quick, parts=only or PARTS)
    if args.json:
        print(json.dumps(figures))
        return 0
    width = max(len(k) for k in figures)
    for key, value in figures.items():
        if key == "scaling" and isinstance(value, dict):
            print(f"{'scaling':<{width}}  slope {value['slope_ms_per_entity']} ms/entity, intercept "
                  f"{value['intercept_ms']} ms, r2 {value['r2']}")
            for p in value["points"]:
                print(f"{'':<{width}}    {p['kingdoms']} kingdoms {p['map']}: {p['entities_mean']} entities, "
                      f"{p['ms_per_month']} ms/month")
            continue
        print(f"{key:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--profile", metavar="FILE")
    ap.add_argument("--only", metavar="PARTS")
    sys.exit(main(ap.parse_args()))
