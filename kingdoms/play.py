"""`kingdoms play`: a whole game between AI rulers, a progress bar, the final table and a chronicle file."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from kingdoms.chronicle import write_chronicle
from kingdoms.game import Game, captures_of
from kingdoms.ruledata import FIGHTING_TYPES
from kingdoms.state import GameState


def _bar(month: int, last: int, started: float, width: int = 30) -> str:
    done = min(1.0, month / last)
    fill = int(done * width)
    rate = month / max(time.time() - started, 1e-6)
    return f"[{'#' * fill}{'.' * (width - fill)}] month {month:>3}/{last}  {rate:5.1f} months/s"


def play_game(state: GameState, label: str, controllers: dict[str, str], out: Path, *, months: int | None = None,
              quiet: bool = False) -> int:
    """Play until the game ends or `months` months have been resolved; print the table and file paths."""
    game, _ = Game.create(out, state, scenario=label, controllers=controllers)
    start = game.month
    last = min(state.last_month, start - 1 + months) if months else state.last_month
    started = time.time()
    tty = sys.stderr.isatty()
    total = last - start + 1
    while not game.finished and game.month <= last:
        game.play_ai_seats()
        done = min(game.month - start, total)
        if not quiet and (tty or done % 20 == 0 or game.finished):
            sys.stderr.write(("\r" if tty else "") + _bar(done, total, started) + ("" if tty else "\n"))
            sys.stderr.flush()
    if not quiet and tty:
        sys.stderr.write("\n")
    final = game.state()
    elapsed = time.time() - started
    print(summary_table(final))
    chronicle = write_chronicle(game, out.with_suffix(".chronicle.md"))
    played = final.month - start + (1 if final.finished else 0)
    print(f"\n{played} months in {elapsed:.1f} s. "
          f"{'Game over: ' + str(final.end_reason) if final.finished else 'Game stopped at month ' + str(final.month)}.")
    print(f"game file: {out}")
    print(f"chronicle: {chronicle}")
    game.close()
    return 0


def kingdom_rows(state: GameState) -> list[dict[str, Any]]:
    """Per kingdom: result, place, captures, cities, people and men under arms."""
    caps = captures_of(state)
    rows = []
    for kid, kd in state.kingdoms.items():
        cities = [c for c in state.cities.values() if c.owner == kid]
        troops = [u for u in state.units.values() if u.owner == kid and u.type in FIGHTING_TYPES]
        rows.append({"kingdom": kd.name, "ruler": kd.ruler, "result": kd.result or ("eliminated" if kd.eliminated else "-"),
                     "place": kd.place or "-", "captures": caps.get(kid, 0), "cities": len(cities),
                     "people": sum(c.people for c in cities), "troops": len(troops),
                     "men": sum(u.men for u in troops)})
    return rows


def summary_table(state: GameState) -> str:
    rows = kingdom_rows(state)
    head = f"{'kingdom':<16} {'ruler':<12} {'result':<10} {'place':>5} {'captures':>8} {'cities':>6} {'people':>9} {'troops':>6} {'men':>7}"
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(f"{r['kingdom']:<16} {r['ruler']:<12} {r['result']:<10} {r['place']!s:>5} {r['captures']:>8} "
                     f"{r['cities']:>6} {r['people']:>9,} {r['troops']:>6} {r['men']:>7,}")
    return "\n".join(lines)
