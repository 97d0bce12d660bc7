"""Sizes and times of the viewer on a whole default game: the replay page (every view, and one kingdom's), and
the chronicles' word counts.

    python scripts/bench_viewer.py [GAME.sqlite] [--seed 4] [--json]

Without a game file it plays the default scenario with standard AI rulers (seed 4 lasts the full 160 months)
into a temporary directory first.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from kingdoms.game import Game
from kingdoms.setup import build_state, resolve_scenario
from kingdoms.viewer import write_chronicle, write_view


def play(path: Path, seed: int) -> float:
    """Play the default scenario to its end with standard rulers; returns the seconds it took."""
    started = time.perf_counter()
    state = build_state(resolve_scenario(None), seed)
    game, _ = Game.create(path, state, scenario="three_kingdoms", controllers={k: "ai:standard" for k in state.kingdoms})
    while not game.finished:
        game.play_ai_seats()
    game.close()
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", nargs="?")
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="kingdoms-viewer-"))
    out: dict[str, object] = {}
    path = Path(args.game) if args.game else tmp / f"default-{args.seed}.sqlite"
    if not args.game:
        out["play_s"] = round(play(path, args.seed), 2)
    game = Game.open(path)
    out["months"] = game.state().month
    whole = write_view(game, tmp / "all.html")
    out["page_bytes"], out["page_s"] = whole.size, round(whole.seconds, 2)
    first = next(iter(game.state().kingdoms))
    mine = write_view(game, tmp / f"{first}.html", first)
    out["kingdom_page_bytes"], out["kingdom_page_s"] = mine.size, round(mine.seconds, 2)
    words = {"spectator": write_chronicle(game, tmp / "all.md").words}
    for k in game.state().kingdoms:
        words[k] = write_chronicle(game, tmp / f"{k}.md", k).words
    out["chronicle_words"] = words
    game.close()
    if args.json:
        print(json.dumps(out))
    else:
        for key, value in out.items():
            print(f"{key:>20}: {value}")
        print(f"{'files':>20}: {tmp}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
