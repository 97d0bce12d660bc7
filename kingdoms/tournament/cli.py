"""The `kingdoms tournament` subcommand: its arguments (the work is in kingdoms.tournament.runner)."""

from __future__ import annotations

from typing import Any


def _verb(name: str) -> Any:
    """A command function imported only when the verb runs (keeps `kingdoms --help` light)."""

    def call(args: Any) -> int:
        from kingdoms.tournament import runner

        return int(getattr(runner, name)(args))

    return call


def add_parser(sub: Any) -> None:
    """The `tournament` subcommand and its three verbs (called by kingdoms.cli)."""
    p = sub.add_parser("tournament", help="run a tournament of agents and AI rulers, follow it, print its table")
    verbs = p.add_subparsers(dest="verb", required=True)
    r = verbs.add_parser("run", help="start a tournament from a .toml file, or resume one (file or folder)")
    r.add_argument("config", help="the tournament file (see tournaments/README.md), or an existing output folder")
    r.add_argument("--jobs", type=int, help="games at once (local default 2; ray default: the cluster's CPUs)")
    r.add_argument("--executor", choices=("local", "ray"), default="local",
                   help="local worker processes (default) or Ray tasks (pip install -e '.[cluster]')")
    r.add_argument("--address", help="Ray cluster address (e.g. auto, or HOST:6379); default: a local Ray instance")
    r.add_argument("--out", help="output folder (default games/tournaments/NAME)")
    r.add_argument("--retry-failed", action="store_true", help="play failed games again (from their files)")
    r.add_argument("--max-games", type=int, help="start at most this many games in this run, then stop")
    r.add_argument("--quiet", action="store_true", help="no progress and no final table")
    r.set_defaults(fn=_verb("cmd_run"))
    s = verbs.add_parser("status", help="games done, running and left; void and failed games")
    s.add_argument("folder")
    s.add_argument("--json", action="store_true")
    s.set_defaults(fn=_verb("cmd_status"))
    t = verbs.add_parser("table", help="the rated table (also writes table.html, table.csv, table.json)")
    t.add_argument("folder")
    t.add_argument("--json", action="store_true", help="print the table as one JSON object")
    t.set_defaults(fn=_verb("cmd_table"))
