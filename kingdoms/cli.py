"""The `kingdoms` command: new, info, replay, tick, play, serve, seat, bench, tournament, view, chronicle,
fork, scenario check.

`info` and `replay` only read: they open the file read-only (it may sit on a read-only file system) and
never apply the deadline. `tick` is the operator's step that does (and resolves, and lets AI seats play);
servers apply the deadline themselves. A file that cannot be used gets one line naming it, what is wrong
and what to do, with exit status 2; a refused file is never written to.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import sqlite3
import sys
from pathlib import Path
from typing import Any

from kingdoms.game import Game, GameError, setup_for
from kingdoms.gctune import tune_collector
from kingdoms.storage import StorageError, remove_game_file

#: How long a command waits for another process's write before saying the file is locked.
CLI_BUSY_TIMEOUT_S = 10.0


class CommandFailed(Exception):
    """One line for the user (printed as `kingdoms COMMAND: ...`, exit status 2)."""


def _build_state(args: argparse.Namespace) -> tuple[Any, str, int, dict[str, Any]]:
    """The starting state from --scenario or --random, with its label, the game seed and its setup."""
    from kingdoms.scenario import ScenarioError
    from kingdoms.setup import build_state, random_scenario, resolve_scenario

    seed = args.seed if args.seed is not None else secrets.randbits(31)
    try:
        if args.random is not None:
            scenario = random_scenario(args.random, args.kingdoms)
            label = f"random:{args.random}:{args.kingdoms}"
        else:
            scenario = resolve_scenario(args.scenario)
            label = scenario.name
        setup = setup_for(label if args.random is not None else args.scenario)
        return build_state(scenario, seed), label, seed, setup
    except ScenarioError as exc:
        raise SystemExit(f"kingdoms: {exc}") from exc


def _controllers(seats: list[str], kingdoms: list[str], default: str) -> dict[str, str]:
    """Parse --seat KINGDOM=agent|ai|ai:LEVEL (kingdom by id, name or ruler, case-insensitive)."""
    from kingdoms.ai import level_of

    out = {k: default for k in kingdoms}
    for item in seats:
        key, sep, ctl = item.partition("=")
        if not sep:
            raise SystemExit(f"kingdoms: --seat {item!r}: write KINGDOM=agent or KINGDOM=ai:standard")
        match = [k for k in kingdoms if k.casefold() == key.strip().casefold()]
        if not match:
            raise SystemExit(f"kingdoms: --seat {item!r}: no kingdom {key!r}; kingdoms: {', '.join(kingdoms)}")
        ctl = ctl.strip().lower()
        if ctl != "agent":
            try:
                level_of(ctl)
            except ValueError as exc:
                raise SystemExit(f"kingdoms: --seat {item!r}: {exc}") from exc
            if ":" not in ctl:
                ctl = f"ai:{level_of(ctl)}"
        out[match[0]] = ctl
    return out


def _default_out(label: str, seed: int) -> Path:
    safe = label.replace(":", "-")
    return Path("games") / f"{safe}-{seed}.sqlite"


def cmd_new(args: argparse.Namespace) -> int:
    state, label, seed, setup = _build_state(args)
    controllers = _controllers(args.seat, list(state.kingdoms), "agent")
    out = Path(args.out) if args.out else _default_out(label, seed)
    if out.exists():
        raise CommandFailed(f"{out} already exists: choose another --out path or delete it")
    try:
        game, tokens = Game.create(out, state, scenario=label, controllers=controllers,
                                   deadline_s=args.deadline, setup=setup)
    except GameError as exc:
        raise SystemExit(f"kingdoms: {exc}") from exc
    try:
        spectator = game.new_spectator_token()
        game.play_ai_seats()
    except BaseException:
        game.close()
        remove_game_file(out)  # all or nothing: no tokens were shown, so the file would be of no use
        raise
    seats = [{"kingdom": k, "name": kd.name, "ruler": kd.ruler, "controller": controllers[k], "token": tokens[k]}
             for k, kd in state.kingdoms.items()]
    if args.json:
        print(json.dumps({"game": str(out), "seats": seats, "spectator_token": spectator}))
    else:
        print(f"game {out}  (scenario {label}, seed {seed}, month {state.month})")
        for s in seats:
            print(f"  {s['kingdom']:<10} {s['name']:<16} {s['ruler']:<14} {s['controller']:<12} token {s['token']}")
        print(f"  spectator token {spectator}  (the /watch page of `kingdoms serve --http`: everything, months over)")
        print(f"serve a seat:  KINGDOMS_SEAT=TOKEN kingdoms serve {out}")
    game.close()
    return 0


def cmd_info(args: argparse.Namespace) -> int:
    """Read-only: what the file says now (the deadline is not applied; `kingdoms tick` does that)."""
    from kingdoms.accounting import account_lines, accounts

    game = _open(args.game, readonly=True)
    try:
        info = game.info()
        acc = accounts(game.store)  # per seat: calls by tool, reply sizes, orders refused and fixed (issue 16)
    finally:
        game.close()
    for s in info["seats"]:
        s["accounting"] = acc.get(s["kingdom"])
    if args.json:
        print(json.dumps(info))
    else:
        state = "finished (" + str(info["end_reason"]) + ")" if info["finished"] else "open"
        print(f"{info['game']}: month {info['month']} {state}; scenario {info['scenario']}, seed {info['seed']}")
        for s in info["seats"]:
            flag = "eliminated" if s["eliminated"] else ("ended" if s["ended"] else "to play")
            res = f" {s['result']} (place {s['place']})" if s["result"] else ""
            print(f"  {s['kingdom']:<10} {s['name']:<16} {s['controller']:<12} captures {s['captures']}  {flag}{res}")
            if s.get("usage"):
                from kingdoms.modelseat.costs import usage_line

                print("  " + " " * 10 + " " + usage_line(s["usage"]))
            for line in account_lines(s["accounting"]) if s.get("accounting") else ():
                print("  " + " " * 10 + " " + line)
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    """Read-only: rebuild month 1 from the scenario and seed, replay every month, compare the hashes."""
    game = _open(args.game, readonly=True)
    try:
        report = game.replay()
    finally:
        game.close()
    if args.json:
        print(json.dumps(report.to_json()))
        return 0 if report.ok else 1
    first = "month 1 rebuilt from the scenario and seed; " if report.rebuilt else (report.note + "; " if report.note
                                                                                 else "")
    if report.ok:
        print(f"replay ok: {first}{report.months} months reproduce their stored hashes")
        return 0
    print(f"replay MISMATCH: month {report.first_mismatch} differs from the stored state "
          f"({first}{report.months} months replayed)")
    for line in report.differences:
        print(f"  {line}")
    return 1


def cmd_tick(args: argparse.Namespace) -> int:
    """The operator's step: apply the deadline, resolve a month every seat has ended, let AI seats play."""
    game = _open(args.game, write=True)
    try:
        done = game.tick()
    finally:
        game.close()
    if args.json:
        print(json.dumps(done))
        return 0
    late = ", ".join(done["deadline"]) or "nobody"
    state = "the game is over" if done["finished"] else f"month {done['now']} is open"
    print(f"{args.game}: month {done['month']}: deadline ended it for {late}; {done['resolved']} month(s) "
          f"resolved; {state}")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    from kingdoms.play import play_game

    state, label, seed, setup = _build_state(args)
    controllers = _controllers(args.seat, list(state.kingdoms), "ai:standard" if _has_standard() else "ai")
    if any(c == "agent" for c in controllers.values()):
        raise SystemExit("kingdoms play seats AI rulers only; use `kingdoms new` and `kingdoms serve` for agents")
    out = Path(args.out) if args.out else _default_out(label, seed)
    return play_game(state, label, controllers, out, months=args.months, quiet=args.quiet or args.json,
                     setup=setup, as_json=args.json)


def _has_standard() -> bool:
    from kingdoms.ai import LEVELS

    return "standard" in LEVELS


def cmd_serve(args: argparse.Namespace) -> int:
    from kingdoms.server import serve

    _open(args.game, write=True).close()  # a bad, damaged, locked or read-only file: one line, nothing written
    return serve(args)


def cmd_seat(args: argparse.Namespace) -> int:
    from kingdoms.modelseat.seat import cmd_seat as seat_main

    return seat_main(args)


def cmd_bench(args: argparse.Namespace) -> int:
    from kingdoms.bench import main as bench_main

    return bench_main(args)


def _kingdom(game: Game, text: str | None) -> str | None:
    """A kingdom named by id, name or ruler (case-insensitive), or None; SystemExit naming the choices."""
    if text is None:
        return None
    state = game.state()
    for kid, kd in state.kingdoms.items():
        if text.strip().casefold() in (kid.casefold(), kd.name.casefold(), kd.ruler.casefold()):
            return kid
    raise SystemExit(f"kingdoms: no kingdom {text!r}; kingdoms: {', '.join(state.kingdoms)}")


def cmd_view(args: argparse.Namespace) -> int:
    """Write the replay page of a game (the spectator's and every kingdom's view, or --kingdom's alone)."""
    from kingdoms.viewer import SpectatorRefused, write_view

    game = _open(args.game, readonly=True)
    try:
        kingdom = _kingdom(game, args.kingdom)
        out = Path(args.out) if args.out else Path(args.game).with_suffix(f".{kingdom}.html" if kingdom else ".html")
        try:
            done = write_view(game, out, kingdom)
        except SpectatorRefused as exc:
            raise SystemExit(f"kingdoms view: {exc} (--kingdom K)") from exc
    finally:
        game.close()
    print(f"replay page: {done.path} ({done.size:,} bytes, {done.seconds:.1f} s)")
    return 0


def cmd_chronicle(args: argparse.Namespace) -> int:
    """Write a chronicle as Markdown: the spectator's of a finished game, or one kingdom's."""
    from kingdoms.viewer import SpectatorRefused, write_chronicle

    game = _open(args.game, readonly=True)
    try:
        kingdom = _kingdom(game, args.kingdom)
        out = Path(args.out) if args.out else Path(args.game).with_suffix(
            f".{kingdom}.chronicle.md" if kingdom else ".chronicle.md")
        try:
            done = write_chronicle(game, out, kingdom)
        except SpectatorRefused as exc:
            raise SystemExit(f"kingdoms chronicle: {exc} (--kingdom K)") from exc
    finally:
        game.close()
    print(f"chronicle: {done.path} ({done.words:,} words)")
    return 0


def cmd_fork(args: argparse.Namespace) -> int:
    """Fork a game at a month: its months up to there, new seats (and seed) from there on."""
    from kingdoms.fork import fork_game

    source = _open(args.game, readonly=True)
    try:
        seats = {s["kingdom"]: s["controller"] for s in source.seats()}
        given = _controllers(args.seat, list(seats), "")
        controllers = {k: given[k] or seats[k] for k in seats}
        forked = fork_game(source, args.month, Path(args.out), controllers, seed=args.seed)
    except GameError as exc:
        raise SystemExit(f"kingdoms fork: {exc}") from exc
    finally:
        source.close()
    game = forked.game
    print(f"fork {args.out} of {args.game} at month {forked.month}" + (f", new seed {args.seed}" if args.seed is not None
                                                                     else ""))
    for s in game.seats():
        print(f"  {s['kingdom']:<10} {s['name']:<16} {s['controller']:<12} token {forked.tokens[s['kingdom']]}")
    print(f"  spectator token {forked.spectator}")
    if args.play:
        if any(not s["controller"].startswith("ai") for s in game.seats()):
            game.close()
            raise SystemExit("kingdoms fork --play: every seat must be an AI; serve agents with `kingdoms serve`")
        from kingdoms.play import play_out

        try:
            return play_out(game, quiet=args.quiet)
        finally:
            game.close()
    game.play_ai_seats()
    game.close()
    print(f"play on:  kingdoms serve {args.out} --http   (or --seat TOKEN)")
    return 0


def cmd_scenario_check(args: argparse.Namespace) -> int:
    """Validate a scenario file and write its month-1 map as a preview page."""
    from kingdoms.scenario import ScenarioError
    from kingdoms.setup import build_state, resolve_scenario
    from kingdoms.viewer import preview_record, write_page

    try:
        scenario = resolve_scenario(args.file)
        state = build_state(scenario, args.seed)
    except ScenarioError as exc:
        print(f"kingdoms scenario check: {exc}", file=sys.stderr)
        return 1
    out = Path(args.out) if args.out else Path(args.file).with_suffix(".preview.html")
    size = write_page([preview_record(state, scenario.name)], out, preview=True)
    gm = state.map
    print(f"scenario ok: {scenario.name}: a {gm.width} by {gm.height} map, {len(state.kingdoms)} kingdoms "
          f"({', '.join(kd.name for kd in state.kingdoms.values())}), {len(state.cities)} cities, "
          f"{len(state.units)} units, {len(gm.landmarks)} landmarks")
    print(f"preview: {out} ({size:,} bytes)")
    return 0


def _open(path: str, *, readonly: bool = False, write: bool = False) -> Game:
    """Open a game file after checking it whole (SQLite's integrity check and the open month's state).

    The check runs on a read-only open, so a refused file is never written to; `write` then opens it for
    writing and takes the write lock once, so a read-only or locked file is refused here, not half-way.
    """
    game = Game.open(path, readonly=True, check=True, busy_timeout=CLI_BUSY_TIMEOUT_S)
    if readonly or not write:
        return game
    game.close()
    game = Game.open(path, busy_timeout=CLI_BUSY_TIMEOUT_S)
    try:
        game.store.probe_write()
    except BaseException:
        game.close()
        raise
    return game


def _add_setup(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group()
    src.add_argument("--scenario", help="scenario name in scenarios/ or a path to a .toml file (default three_kingdoms)")
    src.add_argument("--random", type=int, metavar="SEED", help="a random map made from this map seed")
    p.add_argument("--kingdoms", type=int, default=3, help="kingdoms on a --random map (2-6, default 3)")
    p.add_argument("--seat", action="append", default=[], metavar="KINGDOM=CONTROLLER",
                   help="who rules a kingdom: agent, ai, ai:passive, ai:standard, ai:hard (repeatable)")
    p.add_argument("--seed", type=int, help="game seed for every random roll (default: random)")
    p.add_argument("--out", help="path of the game file to write")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kingdoms", description="Kingdoms: a hex strategy game for LLM rulers.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("new", help="create a game file and print each seat's secret token")
    _add_setup(p)
    p.add_argument("--deadline", type=float, default=600.0, help="seconds a seat has to end a month (default 600)")
    p.add_argument("--json", action="store_true", help="print {game, seats:[{kingdom, ruler, controller, token}]}")
    p.set_defaults(fn=cmd_new)
    p = sub.add_parser("info", help="month, seats, who has ended the month, captures")
    p.add_argument("game")
    p.add_argument("--json", action="store_true")
    p.set_defaults(fn=cmd_info)
    p = sub.add_parser("replay", help="replay the stored orders and check every month's hash")
    p.add_argument("game")
    p.add_argument("--verify", action="store_true", help="(default) rebuild month 1, compare each month's hash; "
                   "exit 1 on a mismatch, naming the month and what differs")
    p.add_argument("--json", action="store_true",
                   help='print {"ok", "months", "first_mismatch", "hashes", "differences", ...}')
    p.set_defaults(fn=cmd_replay)
    p = sub.add_parser("tick", help="operators: apply the deadline, resolve an ended month, let AI seats play")
    p.add_argument("game")
    p.add_argument("--json", action="store_true", help='print {"month", "deadline", "resolved", "now", "finished"}')
    p.set_defaults(fn=cmd_tick)
    p = sub.add_parser("play", help="play a whole game with AI rulers and print the result")
    _add_setup(p)
    p.add_argument("--months", type=int, help="stop after this many months")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the final table as one JSON object (no progress bar)")
    p.set_defaults(fn=cmd_play)
    p = sub.add_parser("serve", help="serve a game over MCP (stdio for one seat, or HTTP for all)")
    p.add_argument("game")
    p.add_argument("--seat", help="seat token for stdio; better set KINGDOMS_SEAT (a flag shows in `ps`)")
    p.add_argument("--http", action="store_true", help="serve every seat over streamable HTTP")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1, this machine only)")
    p.add_argument("--port", type=int, default=8765)
    p.add_argument("--allow-remote", action="store_true",
                   help="allow a --host other than loopback (plain HTTP to other machines; prints a warning)")
    p.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                   help="a host name clients may use in the Host/Origin headers (repeatable)")
    p.set_defaults(fn=cmd_serve)
    p = sub.add_parser("seat", help="put a model (anthropic, openai, openai-compatible) on a seat, through MCP")
    from kingdoms.modelseat.seat import add_arguments as seat_arguments

    seat_arguments(p)
    p.set_defaults(fn=cmd_seat)
    p = sub.add_parser("view", help="write one self-contained HTML replay page of a game")
    p.add_argument("game")
    p.add_argument("--out", metavar="FILE.html", help="where to write it (default: next to the game file)")
    p.add_argument("--kingdom", metavar="K", help="only this kingdom's view (what it saw), for sharing with its player")
    p.set_defaults(fn=cmd_view)
    p = sub.add_parser("chronicle", help="write a game's chronicle as Markdown (the spectator's, or --kingdom's)")
    p.add_argument("game")
    p.add_argument("--out", metavar="FILE.md")
    p.add_argument("--kingdom", metavar="K", help="the chronicle of what this kingdom knew")
    p.set_defaults(fn=cmd_chronicle)
    p = sub.add_parser("fork", help="a new game file sharing a game's months 1..N, with new seats from month N")
    p.add_argument("game")
    p.add_argument("--month", type=int, required=True, metavar="N", help="the month the fork opens at")
    p.add_argument("--out", required=True, metavar="NEW", help="path of the new game file")
    p.add_argument("--seat", action="append", default=[], metavar="KINGDOM=CONTROLLER",
                   help="who rules a kingdom in the fork (default: as in the original; repeatable)")
    p.add_argument("--seed", type=int, help="a new seed for the rolls of month N on (default: the original's)")
    p.add_argument("--play", action="store_true", help="play the fork to its end now (AI seats only)")
    p.add_argument("--quiet", action="store_true", help="with --play: no progress bar")
    p.set_defaults(fn=cmd_fork)
    p = sub.add_parser("scenario", help="scenario tools: check FILE")
    scn = p.add_subparsers(dest="scenario_command", required=True)
    p = scn.add_parser("check", help="validate a scenario and write its month-1 map as a preview page")
    p.add_argument("file", help="a .toml scenario file or a scenario name")
    p.add_argument("--out", metavar="FILE.html", help="where to write the preview (default: FILE.preview.html)")
    p.add_argument("--seed", type=int, default=1, help="seed for the month-1 set-up (default 1)")
    p.set_defaults(fn=cmd_scenario_check)
    p = sub.add_parser("bench", help="play fixed-seed games and print speed and size figures")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.add_argument("--quick", action="store_true", help="shorter runs (for development and smoke tests)")
    p.add_argument("--profile", metavar="FILE", help="instead: profile the default game (cProfile) and write the "
                   "report to FILE")
    p.add_argument("--only", metavar="PARTS", help="only these parts, comma-separated (default, hard, random4, "
                   "random6, tools, replay, scaling, tournament)")
    p.set_defaults(fn=cmd_bench)
    from kingdoms.tournament.cli import add_parser as add_tournament

    add_tournament(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    where = f"kingdoms {args.command}"
    try:
        return int(args.fn(args) or 0)
    except (GameError, StorageError, CommandFailed) as exc:
        print(f"{where}: {_one_line(str(exc))}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader of our output went away (`kingdoms info GAME | head -1`): not the file's fault
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - so the interpreter's final flush stays quiet
        return 0
    except (sqlite3.Error, OSError) as exc:  # not met through the store: still one line
        from kingdoms.storage import sqlite_problem

        name = Path(getattr(args, "game", None) or getattr(args, "out", None) or "the game file")
        print(f"{where}: {_one_line(str(sqlite_problem(name, exc)))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug: one line unless KINGDOMS_DEBUG asks for the traceback
        if os.environ.get("KINGDOMS_DEBUG"):
            raise
        print(f"{where}: unexpected error ({type(exc).__name__}: {_one_line(str(exc))[:300]}); set KINGDOMS_DEBUG=1 "
              "for the traceback and report it", file=sys.stderr)
        return 2


def run() -> int:
    """The `kingdoms` command's entry: this process plays months, so tune its collector (gctune), then main."""
    tune_collector()
    return main()


def _one_line(text: str) -> str:
    return " ".join(text.split())


if __name__ == "__main__":
    sys.exit(run())
