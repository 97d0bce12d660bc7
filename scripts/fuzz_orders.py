#!/usr/bin/env python
"""Fuzz Game.issue (and issue_orders through an in-memory MCP client) with oversized and many-id inputs.

Seeded random calls mix: valid orders, 201+ orders in one call, orders naming 10 to 200,000 unit ids (as text
and as JSON), megabyte-long orders, words and keys, deep and wide JSON, random bytes, unbalanced quotes and
brackets, and valid orders buried among junk. Every call must answer (verdicts, or a clear refusal) without
an exception other than the game's own errors, and never queue more than the limits allow. Prints the number
of calls, crashes (0 expected) and the worst and median time per call, and which input was the slowest.

Usage: .venv/bin/python scripts/fuzz_orders.py [--calls 400] [--seed 1] [--mcp] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

VERBS = ["move", "attack", "hold", "disband", "split", "merge", "set_production", "set_focus", "declare_war",
         "found_city", "station_spy", "sabotage", "ship_grain", "build", "follow", "pillage", "assign_general"]


def _ids(rng: random.Random, n: int) -> list[int]:
    return [rng.randrange(0, 10 ** rng.randint(1, 7)) for _ in range(n)]


def make_inputs(rng: random.Random) -> list[tuple[str, Callable[[], Any]]]:
    """Named generators of one `orders` argument each."""
    many = lambda: rng.choice([10, 199, 200, 201, 1_000, 100_000, 200_000])  # noqa: E731
    return [
        ("valid", lambda: "hold unit=2; move unit=2 to=3,4; set_focus city=1 focus=food"),
        ("201 orders", lambda: "\n".join("hold unit=2" for _ in range(201))),
        ("5000 orders json", lambda: [{"action": "hold", "unit_ids": [2]} for _ in range(5000)]),
        ("many ids json", lambda: [{"action": "hold", "unit_ids": _ids(rng, many())}]),
        ("many ids text", lambda: "hold units=" + ",".join(map(str, _ids(rng, many())))),
        ("many ids as json text", lambda: json.dumps([{"action": "hold", "unit_ids": _ids(rng, many())}])),
        ("1 MB order", lambda: "move unit=2 to=" + "9" * 1_000_000),
        ("1 MB word", lambda: "x" * 1_000_000),
        ("1 MB key", lambda: "move " + "k" * 1_000_000 + "=1"),
        ("1 MB name", lambda: [{"action": "declare_war", "to": "n" * 1_000_000}]),
        ("1 MB queue", lambda: "set_production city=1 queue=" + ",".join(["spearman:2000"] * 80_000)),
        ("deep json", lambda: "[" * 5000 + "]" * 5000),
        ("wide json object", lambda: [{f"k{i}": i for i in range(50_000)} | {"action": "move"}]),
        ("random bytes", lambda: rng.randbytes(rng.randint(1, 200_000)).decode("latin-1")),
        ("unbalanced", lambda: '"' * 10_000 + "[" * 10_000 + "move unit=2 to=1,1"),
        ("junk and orders", lambda: "\n".join(rng.choice(["hold unit=2", "zz" * rng.randint(1, 500), "; ; ;",
                                                           "move unit=2 to=(1, 2)", "{", "```"])
                                              for _ in range(rng.randint(1, 400)))),
        ("random verbs", lambda: "\n".join(f"{rng.choice(VERBS)} unit={rng.randint(0, 99)} to={rng.randint(-5, 40)},"
                                           f"{rng.randint(-5, 40)} city={rng.randint(0, 9)}"
                                           for _ in range(rng.randint(1, 250)))),
        ("mixed list", lambda: [rng.choice(["hold unit=2", {"action": "hold", "unit_ids": _ids(rng, 300)}, 7, None,
                                            ["nested"], {"verb": "move"}]) for _ in range(rng.randint(1, 300))]),
    ]


def fuzz_game(calls: int, seed: int, mcp: bool) -> dict[str, Any]:
    """Run the fuzz; returns the figures."""
    import anyio

    from kingdoms.game import Game, GameError
    from kingdoms.orders import MAX_ORDERS, MAX_UNIT_IDS
    from kingdoms.scenario import load_scenario
    from kingdoms.setup import build_state

    rng = random.Random(seed)
    inputs = make_inputs(rng)
    tmp = Path(tempfile.mkdtemp(prefix="kingdoms-fuzz-"))
    state = build_state(load_scenario("duel"), 7)
    game, tokens = Game.create(tmp / "g.sqlite", state, scenario="duel", controllers={"wei": "agent", "shu": "agent"},
                               deadline_s=1e9)
    times: list[tuple[float, str]] = []
    crashes: list[str] = []
    over_limit = 0
    for i in range(calls):
        name, make = inputs[i % len(inputs)] if i < len(inputs) else rng.choice(inputs)
        orders = make()
        preview = rng.random() < 0.5
        start = time.perf_counter()
        try:
            verdicts = game.issue("wei", orders, preview=preview)
            if len(verdicts) > MAX_ORDERS + 1:
                over_limit += 1
            if any(len(v.text) > 400 for v in verdicts if not v.ok):
                crashes.append(f"{name}: a refused order echoed {max(len(v.text) for v in verdicts)} characters")
        except GameError:
            pass
        except Exception as exc:  # noqa: BLE001 - what the fuzz looks for
            crashes.append(f"{name}: {type(exc).__name__}: {str(exc)[:120]}")
        times.append((time.perf_counter() - start, name))
    over_limit += sum(1 for o in game.queued("wei") if len(getattr(o, "unit_ids", None) or []) > MAX_UNIT_IDS)
    game.close()
    result: dict[str, Any] = {"calls": calls, "crashes": len(crashes), "crash_examples": crashes[:5],
                              "over_limit": over_limit, **_figures(times)}
    if mcp:
        result["mcp"] = anyio.run(_fuzz_mcp, tmp / "g.sqlite", tokens["wei"], inputs, max(40, calls // 5), seed)
    return result


def _figures(times: list[tuple[float, str]]) -> dict[str, Any]:
    worst = max(times)
    return {"worst_s": round(worst[0], 4), "worst_input": worst[1],
            "median_s": round(statistics.median(t for t, _ in times), 5),
            "p95_s": round(sorted(t for t, _ in times)[int(len(times) * 0.95) - 1], 4)}


async def _fuzz_mcp(path: Path, token: str, inputs: list[tuple[str, Callable[[], Any]]], calls: int,
                    seed: int) -> dict[str, Any]:
    """The same inputs through issue_orders on an in-memory MCP client: always an answer, never a crash."""
    import logging

    from mcp import Client

    from kingdoms.server import INTERNAL_ERROR, build_server

    logging.getLogger("mcp").setLevel(logging.CRITICAL)  # the SDK logs every rejected argument in full
    rng = random.Random(seed + 1)
    server = build_server(path, token=token)
    longest = 0
    times: list[tuple[float, str]] = []
    crashes: list[str] = []
    try:
        async with Client(server) as client:
            for i in range(calls):
                name, make = inputs[i % len(inputs)]
                orders = make()
                if not isinstance(orders, (str, list)):
                    orders = str(orders)
                start = time.perf_counter()
                result = await client.call_tool("issue_orders", {"orders": orders, "preview": rng.random() < 0.5})
                times.append((time.perf_counter() - start, name))
                text = "\n".join(getattr(c, "text", "") for c in result.content)
                longest = max(longest, len(text))
                if INTERNAL_ERROR in text or "Traceback" in text:
                    crashes.append(f"{name}: {text[:160]}")
                if len(text) > 150_000:  # 200 refusals of ~600 characters at most
                    crashes.append(f"{name}: a {len(text):,}-character answer")
    finally:
        server.session.close()  # type: ignore[attr-defined]
    return {"calls": calls, "crashes": len(crashes), "crash_examples": crashes[:5], "longest_answer": longest,
            **_figures(times)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mcp", action="store_true", help="also send the inputs through an MCP client")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = fuzz_game(args.calls, args.seed, args.mcp)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"Game.issue: {result['calls']} calls, {result['crashes']} crashes, {result['over_limit']} over the "
              f"limits; worst {result['worst_s']} s ({result['worst_input']}), p95 {result['p95_s']} s, median "
              f"{result['median_s']} s")
        for c in result["crash_examples"]:
            print("  " + c)
        if "mcp" in result:
            m = result["mcp"]
            print(f"issue_orders over MCP: {m['calls']} calls, {m['crashes']} crashes, longest answer "
                  f"{m['longest_answer']:,} characters; worst {m['worst_s']} s "
                  f"({m['worst_input']}), p95 {m['p95_s']} s, median {m['median_s']} s")
            for c in m["crash_examples"]:
                print("  " + c)
    crashed = result["crashes"] or result["over_limit"] or result.get("mcp", {}).get("crashes")
    return 1 if crashed else 0


if __name__ == "__main__":
    sys.exit(main())
