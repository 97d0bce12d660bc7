#!/usr/bin/env python
"""The long fog-of-war leak campaign: many seeded games, whole games (160 months), every seat every month.

Each game is played by scripted rulers (the AI levels plus spies, scouts and a declared war, see
tests/leakcheck.py) through in-memory MCP clients, and every month every kingdom is checked the way
tests/test_leaks.py does it in the normal run, at FULL depth: every tool answer rendered on two canary copies
of the true state that differ only in what that kingdom may not know (compared character for character and
searched for hidden canaries; shown canaries must show), every id probed in every order verb (an unseen one
must be refused like a nonexistent one), every tile inspected every tenth month, sight checked against an
oracle written from the rules, each seat's texts kept from the others, the AI rulers' decisions compared.

Games cycle over random maps with 2, 3 and 4 kingdoms and the default scenario. Usage:

    .venv/bin/python scripts/leak_campaign.py [--games 8] [--months 160] [--jobs N] [--depth full|quick]
                                              [--seed 9000] [--no-ai] [--check]

It prints what was checked (renders, tiles, ids, canaries...) and the findings by surface (read: the reading
tools; orders: previews and refusals; seat: one seat's words or orders reaching another; ai: an AI ruler
reading what its view does not hold). With --check the exit code is 1 when there is any finding.
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

BASE_SEED = 9000


def specs(games: int, months: int, depth: str, seed: int) -> list[Any]:
    """The games: random maps with 2, 3, 4 kingdoms and the default scenario, in turn, each with its own seed."""
    from tests import leakcheck as lc

    d = lc.FULL if depth == "full" else lc.QUICK
    out = []
    for g in range(games):
        s = seed + g
        kind = g % 4
        levels = [["standard"], ["standard", "passive"], ["passive", "standard", "standard"]][g % 3]
        if kind == 3:
            out.append(lc.GameSpec(f"default-{s}", None, s, months, levels, d, war_month=3 + g % 5))
        else:
            n = kind + 2
            out.append(lc.GameSpec(f"random{n}-{s}", f"random:{s}:{n}", s, months, levels, d, war_month=3 + g % 5))
    return out


def _job(args: tuple[Any, bool]) -> tuple[Any, Any, str]:
    from tests import leakcheck as lc

    spec, check_ai = args
    with tempfile.TemporaryDirectory() as tmp:
        counts, findings = lc.run_games([spec], check_ai=check_ai, workdir=Path(tmp))
    return counts, findings, spec.label


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=8, help="games to play (default 8)")
    ap.add_argument("--months", type=int, default=160, help="months per game (default 160: whole games)")
    ap.add_argument("--jobs", type=int, default=min(8, os.cpu_count() or 1), help="games played in parallel")
    ap.add_argument("--depth", choices=("full", "quick"), default="full", help="how much to ask each month")
    ap.add_argument("--seed", type=int, default=BASE_SEED, help="seed of the first game (the others follow)")
    ap.add_argument("--no-ai", action="store_true", help="do not compare the AI rulers' decisions")
    ap.add_argument("--check", action="store_true", help="exit 1 when there is any finding")
    args = ap.parse_args(argv)
    from tests import leakcheck as lc

    t0 = time.time()
    jobs = [(s, not args.no_ai) for s in specs(args.games, args.months, args.depth, args.seed)]
    total = lc.Counts()
    findings = lc.Findings()
    if args.jobs <= 1:
        results = map(_job, jobs)
    else:
        pool = ProcessPoolExecutor(max_workers=args.jobs)
        results = pool.map(_job, jobs)
    for counts, found, label in results:
        total.add(counts)
        findings.items += found.items
        findings.counts.update(found.counts)
        print(f"{label}: {counts.months} months, {counts.observations} kingdom-months, {counts.renders:,} texts, "
              f"{found.total()} findings ({counts.seconds:.0f} s)", flush=True)
    if args.jobs > 1:
        pool.shutdown()
    print()
    print("CHECKED")
    for line in total.lines():
        print(f"  {line}")
    print(f"  wall time {time.time() - t0:.0f} s")
    print()
    for surface in lc.SURFACES:
        print(findings.report(surface, limit=12))
        print()
    return 1 if args.check and findings.total() else 0


if __name__ == "__main__":
    sys.exit(main())
