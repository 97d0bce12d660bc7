"""The `kingdoms` command: new, info, replay, play, serve, seat, bench, tournament."""

from __future__ import annotations

import argparse
import json
import secrets
import sys
from pathlib import Path
from typing import Any

from kingdoms.game import Game, GameError
from kingdoms.storage import StorageError


def _build_state(args: argparse.Namespace) -> tuple[Any, str, int]:
    """The starting state from --scenario or --random, with the game seed."""
    from kingdoms.scenario import ScenarioError, build_state, random_scenario, resolve_scenario

    seed = args.seed if args.seed is not None else secrets.randbits(31)
    try:
        if args.random is not None:
            scenario = random_scenario(args.random, args.kingdoms)
            label = f"random:{args.random}:{args.kingdoms}"
        else:
            scenario = resolve_scenario(args.scenario)
            label = scenario.name
        return build_state(scenario, seed), label, seed
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
    state, label, seed = _build_state(args)
    controllers = _controllers(args.seat, list(state.kingdoms), "agent")
    out = Path(args.out) if args.out else _default_out(label, seed)
    try:
        game, tokens = Game.create(out, state, scenario=label, controllers=controllers,
                                   deadline_s=args.deadline)
    except GameError as exc:
        raise SystemExit(f"kingdoms: {exc}") from exc
    seats = [{"kingdom": k, "name": kd.name, "ruler": kd.ruler, "controller": controllers[k], "token": tokens[k]}
             for k, kd in state.kingdoms.items()]
    game.play_ai_seats()
    if args.json:
        print(json.dumps({"game": str(out), "seats": seats}))
    else:
        print(f"game {out}  (scenario {label}, seed {seed}, month {state.month})")
        for s in seats:
            print(f"  {s['kingdom']:<10} {s['name']:<16} {s['ruler']:<14} {s['controller']:<12} token {s['token']}")
        print(f"serve a seat:  KINGDOMS_SEAT=TOKEN kingdoms serve {out}")
    game.close()
    return 0


def cmd_info(args: argparse.Namespace) -> int:
    game = _open(args.game)
    game.apply_deadline()
    game.try_resolve()
    info = game.info()
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
    game.close()
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    game = _open(args.game)
    bad, checked = game.replay()
    game.close()
    if bad is None:
        print(f"replay ok: {checked} months reproduce their stored hashes")
        return 0
    print(f"replay MISMATCH: month {bad} differs from the stored hash (after {checked} months replayed)")
    return 1


def cmd_play(args: argparse.Namespace) -> int:
    from kingdoms.play import play_game

    state, label, seed = _build_state(args)
    controllers = _controllers(args.seat, list(state.kingdoms), "ai:standard" if _has_standard() else "ai")
    if any(c == "agent" for c in controllers.values()):
        raise SystemExit("kingdoms play seats AI rulers only; use `kingdoms new` and `kingdoms serve` for agents")
    out = Path(args.out) if args.out else _default_out(label, seed)
    return play_game(state, label, controllers, out, months=args.months, quiet=args.quiet)


def _has_standard() -> bool:
    from kingdoms.ai import LEVELS

    return "standard" in LEVELS


def cmd_serve(args: argparse.Namespace) -> int:
    from kingdoms.server import serve

    return serve(args)


def cmd_seat(args: argparse.Namespace) -> int:
    from kingdoms.modelseat.seat import cmd_seat as seat_main

    return seat_main(args)


def cmd_bench(args: argparse.Namespace) -> int:
    from kingdoms.bench import main as bench_main

    return bench_main(args)


def _open(path: str) -> Game:
    try:
        return Game.open(path)
    except StorageError as exc:
        raise SystemExit(f"kingdoms: {exc}") from exc


def _add_setup(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group()
    src.add_argument("--scenario", help="scenario name in scenarios/ or a path to a .toml file (default three_kingdoms)")
    src.add_argument("--random", type=int, metavar="SEED", help="a random map made from this map seed")
    p.add_argument("--kingdoms", type=int, default=3, help="kingdoms on a --random map (2-6, default 3)")
    p.add_argument("--seat", action="append", default=[], metavar="KINGDOM=CONTROLLER",
                   help="who rules a kingdom: agent, ai, ai:passive, ai:standard (repeatable)")
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
    p.add_argument("--verify", action="store_true", help="(default) compare each month's hash; exit 1 on a mismatch")
    p.set_defaults(fn=cmd_replay)
    p = sub.add_parser("play", help="play a whole game with AI rulers and print the result")
    _add_setup(p)
    p.add_argument("--months", type=int, help="stop after this many months")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
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
    p = sub.add_parser("bench", help="play fixed-seed games and print speed and size figures")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.add_argument("--quick", action="store_true", help="shorter runs (for smoke tests)")
    p.set_defaults(fn=cmd_bench)
    from kingdoms.tournament.cli import add_parser as add_tournament

    add_tournament(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.fn(args) or 0)
    except GameError as exc:
        print(f"kingdoms: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
