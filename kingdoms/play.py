"""`kingdoms play`: a whole game between AI rulers, a rich progress bar, the final table and the chronicle file."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from kingdoms.chronicle import write_chronicle
from kingdoms.game import Game, captures_of
from kingdoms.ruledata import FIGHTING_TYPES
from kingdoms.state import GameState


def _console(stream: Any) -> Console:
    """A console on `stream`; wide enough for the table when it is not a terminal (a pipe, a test)."""
    tty = bool(getattr(stream, "isatty", lambda: False)())
    return Console(file=stream, width=None if tty else 110, highlight=False, soft_wrap=not tty)


def play_game(state: GameState, label: str, controllers: dict[str, str], out: Path, *, months: int | None = None,
              quiet: bool = False, setup: dict[str, Any] | None = None, as_json: bool = False) -> int:
    """Play until the game ends or `months` months have been resolved; print the table and file paths (with
    `as_json`, one JSON object instead: `result_json`).

    `setup` (game.setup_for) is stored so `kingdoms replay --verify` can rebuild the first month."""
    game, _ = Game.create(out, state, scenario=label, controllers=controllers, setup=setup)
    try:
        return play_out(game, months=months, quiet=quiet, as_json=as_json)
    finally:
        game.close()


def play_out(game: Game, *, months: int | None = None, quiet: bool = False, as_json: bool = False) -> int:
    """Let the AI seats of an open game play on (to its end or for `months` months) with a progress bar; print
    the final table (with `as_json`: one JSON object, `result_json`), write the spectator's chronicle and print
    where the files are."""
    out = game.store.path
    state = game.state()
    start = game.month
    last = min(state.last_month, start - 1 + months) if months else state.last_month
    total = last - start + 1
    started = time.time()
    err = _console(sys.stderr)
    if quiet:
        while not game.finished and game.month <= last:
            game.play_ai_seats()
    elif err.is_terminal:
        columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("{task.fields[rate]:5.1f} months/s"), TimeElapsedColumn())
        with Progress(*columns, console=err, transient=False) as bar:
            task = bar.add_task("months", total=total, rate=0.0)
            while not game.finished and game.month <= last:
                game.play_ai_seats()
                done = min(game.month - start + (1 if game.finished else 0), total)
                bar.update(task, completed=done, rate=done / max(time.time() - started, 1e-6))
    else:  # not a terminal: a plain line every twenty months
        while not game.finished and game.month <= last:
            game.play_ai_seats()
            done = min(game.month - start, total)
            if done % 20 == 0 or done == total or game.finished:
                err.print(f"month {done}/{total}  {done / max(time.time() - started, 1e-6):5.1f} months/s")
    final = game.state()
    elapsed = time.time() - started
    chronicle = write_chronicle(game, out.with_suffix(".chronicle.md"))
    played = final.month - start + (1 if final.finished else 0)
    if as_json:
        controllers = {seat["kingdom"]: seat["controller"] for seat in game.seats()}
        print(json.dumps(result_json(final, controllers, label=str(game.meta.get("scenario") or ""),
                                     months_played=played, seconds=elapsed, game_file=out, chronicle=chronicle)))
        return 0
    con = _console(sys.stdout)
    con.print(summary_table(final))
    con.print(f"\n{played} months in {elapsed:.1f} s. "
              f"{'Game over: ' + str(final.end_reason) if final.finished else 'Game stopped at month ' + str(final.month)}.")
    con.print(f"game file: {out}", soft_wrap=True)
    con.print(f"chronicle: {chronicle}", soft_wrap=True)
    con.print(f"replay page: kingdoms view {out}", soft_wrap=True)
    return 0


def result_json(state: GameState, controllers: dict[str, str], *, label: str, months_played: int, seconds: float,
                game_file: Path, chronicle: Path) -> dict[str, Any]:
    """The final table as one JSON object, for scripts: the end (reason, month, finished) and per kingdom its
    controller, result, place, captures, cities, people, troops and men under arms."""
    kingdoms = []
    for kid, row in zip(state.kingdoms, kingdom_rows(state), strict=True):
        kingdoms.append({"id": kid, "name": row["kingdom"], "ruler": row["ruler"], "controller": controllers.get(kid),
                         "result": row["result"] if row["result"] != "-" else None, "place": row["place"] if row["place"] != "-" else None,
                         "captures": row["captures"], "cities": row["cities"], "people": row["people"],
                         "troops": row["troops"], "men": row["men"]})
    return {"scenario": label, "seed": int(state.seed), "finished": state.finished, "end_reason": state.end_reason,
            "month": state.month, "months_played": months_played, "seconds": round(seconds, 2),
            "game_file": str(game_file), "chronicle": str(chronicle), "kingdoms": kingdoms}


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


def summary_table(state: GameState) -> Table:
    """The final table: one row per kingdom (a rich Table)."""
    table = Table(title=None if not state.finished else f"The end, month {state.month} ({state.end_reason})")
    for name, right in (("kingdom", False), ("ruler", False), ("result", False), ("place", True), ("captures", True),
                        ("cities", True), ("people", True), ("troops", True), ("men", True)):
        table.add_column(name, justify="right" if right else "left", no_wrap=True)
    for r in kingdom_rows(state):
        style = "bold green" if r["result"] == "win" else ("yellow" if r["result"] == "draw" else None)
        table.add_row(r["kingdom"], r["ruler"], str(r["result"]), str(r["place"]), str(r["captures"]),
                      str(r["cities"]), f"{r['people']:,}", str(r["troops"]), f"{r['men']:,}", style=style)
    return table
