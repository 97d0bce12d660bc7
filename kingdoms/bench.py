"""`kingdoms bench`: fixed-seed games timed month by month, MCP tool latency, briefing and file sizes.

A benchmark, not a test: it reports figures and never fails on them.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from kingdoms.game import Game
from kingdoms.ruledata import LAST_MONTH

BENCH_SEED = 20261129


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[k]


def time_game(workdir: Path, name: str, *, scenario: str | None = None, random_seed: int | None = None,
              kingdoms: int = 3, months: int = LAST_MONTH, level: str = "ai:standard") -> dict[str, Any]:
    """Play one AI game through the game service, timing every month (AI decisions included)."""
    from kingdoms.ai import LEVELS
    from kingdoms.setup import build_state, random_scenario, resolve_scenario

    if level.split(":")[-1] not in LEVELS:
        level = "ai"
    scen = random_scenario(random_seed, kingdoms) if random_seed is not None else resolve_scenario(scenario)
    state = build_state(scen, BENCH_SEED)
    path = workdir / f"{name}.sqlite"
    game, _ = Game.create(path, state, scenario=scen.name, controllers={k: level for k in state.kingdoms})
    times: list[float] = []
    start = game.month
    while not game.finished and game.month < start + months:
        t0 = time.perf_counter()
        game.play_ai_seats()
        times.append(time.perf_counter() - t0)
    game.close()
    total = sum(times)
    return {"months": len(times), "seconds": total, "months_per_second": len(times) / total if total else 0.0,
            "month_ms_p50": 1000 * _pct(times, 0.5), "month_ms_p95": 1000 * _pct(times, 0.95), "path": path,
            "bytes": path.stat().st_size + sum(p.stat().st_size for p in path.parent.glob(path.name + "-*"))}


def run(quick: bool = False) -> dict[str, Any]:
    """Every figure of the benchmark as one dict."""
    months = 20 if quick else LAST_MONTH
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        main = time_game(work, "default", months=months)
        rnd = time_game(work, "random4", random_seed=BENCH_SEED, kingdoms=4, months=months)
        figures: dict[str, Any] = {
            "months_per_second": round(main["months_per_second"], 2),
            "month_ms_p50": round(main["month_ms_p50"], 2),
            "month_ms_p95": round(main["month_ms_p95"], 2),
            "random4_months_per_second": round(rnd["months_per_second"], 2),
            "game_file_bytes": main["bytes"],
            "months_played": main["months"],
        }
        figures.update(tool_latency(work, months=10 if quick else 50))
    figures["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return figures


def tool_latency(workdir: Path, months: int = 50) -> dict[str, Any]:
    """Seat one kingdom as an agent on the default scenario and time its MCP tools through the in-memory client.

    Each month the agent reads its briefing (get_briefing), gives the orders a standard AI would give
    (issue_orders) and ends the month; AI rulers play the other seats. Also reports the briefing's size at
    months 1 and 50.
    """
    import anyio
    from mcp import Client

    from kingdoms.ai import decide_orders
    from kingdoms.server import build_server
    from kingdoms.setup import build_state, resolve_scenario

    state = build_state(resolve_scenario(None), BENCH_SEED)
    agent = next(iter(state.kingdoms))
    path = workdir / "tools.sqlite"
    game, tokens = Game.create(path, state, scenario="three_kingdoms",
                               controllers={k: ("agent" if k == agent else "ai:standard") for k in state.kingdoms})
    game.play_ai_seats()
    brief_ms: list[float] = []
    orders_ms: list[float] = []
    sizes: dict[int, int] = {}

    async def session() -> None:
        server = build_server(path, token=tokens[agent], wait_s=30, poll_s=0.005)
        try:
            async with Client(server) as client:
                for _ in range(months):
                    month = game.month
                    t0 = time.perf_counter()
                    brief = await client.call_tool("get_briefing", {})
                    brief_ms.append(1000 * (time.perf_counter() - t0))
                    text = "\n".join(getattr(c, "text", "") for c in brief.content)
                    if month in (1, 50):
                        sizes[month] = len(text)
                    decision = decide_orders(game.observation(agent), "ai:standard")
                    orders = decision if isinstance(decision, str) else decision.orders
                    t0 = time.perf_counter()
                    await client.call_tool("issue_orders", {"orders": orders})
                    orders_ms.append(1000 * (time.perf_counter() - t0))
                    await client.call_tool("issue_orders", {"orders": "", "end_turn": True})
                    if game.finished:
                        break
        finally:
            server.session.close()  # type: ignore[attr-defined]

    anyio.run(session)
    game.close()
    return {
        "get_briefing_ms_p50": round(_pct(brief_ms, 0.5), 2), "get_briefing_ms_p95": round(_pct(brief_ms, 0.95), 2),
        "issue_orders_ms_p50": round(_pct(orders_ms, 0.5), 2), "issue_orders_ms_p95": round(_pct(orders_ms, 0.95), 2),
        "briefing_chars_month1": sizes.get(1, 0), "briefing_tokens_month1": sizes.get(1, 0) // 4,
        "briefing_chars_month50": sizes.get(50, 0), "briefing_tokens_month50": sizes.get(50, 0) // 4,
    }


def main(args: argparse.Namespace) -> int:
    figures = run(quick=args.quick)
    if args.json:
        print(json.dumps(figures))
        return 0
    width = max(len(k) for k in figures)
    for key, value in figures.items():
        print(f"{key:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main(argparse.Namespace(json="--json" in sys.argv, quick="--quick" in sys.argv)))
