"""Play a fixed set of seeded AI games and write or compare their month-by-month state hashes.

A refactor that must not change behaviour is checked with it: write the hashes before the change, compare
after. Besides the states, each game's records (every order as given with its verdict and message, the
outcomes, the events and the AI's notes) are digested into one more entry, so a change in what the game
says is caught too. `python scripts/hash_check.py --write /tmp/before.json`, then `--compare /tmp/before.json`
(exit 1 on the first differing month of any game).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path

from kingdoms.game import Game
from kingdoms.setup import build_state, random_scenario, resolve_scenario

#: (label, scenario or None, random map seed or None, kingdoms, game seed, months, controller)
GAMES = [
    ("three_kingdoms-1", "three_kingdoms", None, 3, 1, 90, "ai:standard"),
    ("three_kingdoms-7", "three_kingdoms", None, 3, 7, 90, "ai:standard"),
    ("duel-3", "duel", None, 2, 3, 60, "ai:standard"),
    ("random-11-4", None, 11, 4, 11, 60, "ai:standard"),
    ("three_kingdoms-5-passive", "three_kingdoms", None, 3, 5, 40, "ai:passive"),
    ("three_kingdoms-2-hard", "three_kingdoms", None, 3, 2, 90, "ai:hard"),
    ("three_kingdoms-9-hard", "three_kingdoms", None, 3, 9, 90, "ai:hard"),
    ("random-13-4-hard", None, 13, 4, 13, 60, "ai:hard"),
    ("random-17-6", None, 17, 6, 17, 50, "ai:standard"),
]


def play(workdir: Path, label: str, scenario: str | None, map_seed: int | None, kingdoms: int, seed: int,
         months: int, controller: str) -> list[str]:
    """Hashes of every stored month of one game, in month order."""
    scen = random_scenario(map_seed, kingdoms) if map_seed is not None else resolve_scenario(scenario)
    state = build_state(scen, seed)
    game, _ = Game.create(workdir / f"{label}.sqlite", state, scenario=scen.name,
                          controllers={k: controller for k in state.kingdoms})
    while not game.finished and game.month < state.month + months:
        game.play_ai_seats()
    hashes = game.store.month_hashes()
    records = records_digest(game)
    game.close()
    return [hashes[m] for m in sorted(hashes)] + [f"records:{records}"]


def records_digest(game: Game) -> str:
    """One digest of what the game recorded besides its states (wall-clock times left out)."""
    queries = ("SELECT month, kingdom, call, position, raw, parsed, accepted, code, message FROM orders ORDER BY id",
               "SELECT month, kingdom, position, text, ok, result, code FROM outcomes ORDER BY rowid",
               "SELECT month, kind, text, audience, data FROM events ORDER BY id",
               "SELECT month, kingdom, kind, text FROM notes ORDER BY rowid")
    digest = hashlib.sha256()
    for query in queries:
        for row in game.store.db.execute(query):
            digest.update(json.dumps(list(row)).encode())
    return digest.hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", metavar="FILE")
    group.add_argument("--compare", metavar="FILE")
    parser.add_argument("--only", help="play only the game with this label")
    args = parser.parse_args(argv)
    games = [g for g in GAMES if args.only in (None, g[0])]
    with tempfile.TemporaryDirectory() as tmp:
        got = {g[0]: play(Path(tmp), *g) for g in games}
    if args.write:
        Path(args.write).write_text(json.dumps(got, indent=1))
        print(f"wrote hashes of {len(got)} games ({sum(map(len, got.values())) - len(got)} months and their records) "
              f"to {args.write}")
        return 0
    want = json.loads(Path(args.compare).read_text())
    bad = 0
    for label, hashes in got.items():
        old = want.get(label)
        if old is None:
            print(f"{label}: not in {args.compare}")
            continue
        diff = next((m for m, (a, b) in enumerate(zip(old, hashes, strict=False), 1) if a != b), None)
        if diff is None and len(old) != len(hashes):
            diff = min(len(old), len(hashes)) + 1
        if diff is None:
            print(f"{label}: {len(hashes) - 1} months and the records identical")
        else:
            bad += 1
            print(f"{label}: DIFFERS from stored month index {diff} ({len(old)} stored, {len(hashes)} now)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
