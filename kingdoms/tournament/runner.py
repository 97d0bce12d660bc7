"""`kingdoms tournament run|status|table`: start or resume a tournament, watch it, print its table.

The runner owns the tournament file: it writes the schedule once, starts games as workers free up (never
more at once per entrant than its `max_concurrent`), records each outcome in one transaction and keeps a
live view (games done / running / left, games per hour, the top of the live ratings). One runner at a
time per folder (a lock file); games a killed runner left running go back to pending and resume from
their game files, finished ones are never played or counted again.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kingdoms.tournament.config import ConfigError, TournamentConfig, config_from_text, load_config
from kingdoms.tournament.ratings import LiveRatings
from kingdoms.tournament.report import build_table, placings, text_table, write_reports
from kingdoms.tournament.schedule import FILL, build_schedule, schedule_digest
from kingdoms.tournament.store import FILE_NAME, TournamentStore, TournamentStoreError

LOCK_NAME = "runner.lock"
MAX_ATTEMPTS = 3  # a game whose worker dies this often is recorded failed
TOP = 5


class RunnerError(Exception):
    """The tournament cannot run as asked; the message says why and what to do."""


@contextlib.contextmanager
def runner_lock(folder: Path) -> Iterator[None]:
    """Exclusive use of a tournament folder by one runner."""
    import fcntl

    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / LOCK_NAME, "a+") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RunnerError(f"another runner is working on {folder}; wait for it or stop it first") from None
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def entrant_dicts(cfg: TournamentConfig) -> list[dict[str, Any]]:
    return [{**e.model_dump(), "kind": e.kind} for e in cfg.entrants]


def open_config(target: str | Path) -> tuple[TournamentConfig, str, Path | None]:
    """The config from a .toml file, or the one stored in an existing tournament folder."""
    path = Path(target)
    if path.is_dir():
        if not (path / FILE_NAME).exists():
            raise RunnerError(f"{path} is a folder without {FILE_NAME}: give a tournament .toml file")
        store = TournamentStore(path)
        meta = store.meta()
        store.close()
        cfg = config_from_text(meta["config_text"], source=meta["config_source"], base=Path(meta["base"]))
        return cfg, meta["config_text"], path
    cfg = load_config(path)
    return cfg, path.read_text(encoding="utf-8"), None


class Progress:
    """What the runner shows while it works: counts, rate, the live top; rich on a terminal, lines elsewhere."""

    def __init__(self, store: TournamentStore, executor_text: str, quiet: bool) -> None:
        self.store = store
        self.quiet = quiet
        self.executor_text = executor_text
        self.started = time.time()
        self.finished_here = 0
        entrants = store.entrants()
        self.anchors = {e["name"]: float(e["anchor"]) for e in entrants if e.get("anchor") is not None}
        self.live = LiveRatings(self.anchors)
        for placing in placings(store.games()):
            self.live.update(placing)
        self._live_view: Any = None
        self.tty = sys.stderr.isatty()

    def __enter__(self) -> Progress:
        if not self.quiet and self.tty:
            from rich.console import Console
            from rich.live import Live

            self._live_view = Live(self.render(), console=Console(stderr=True), refresh_per_second=2, transient=False)
            self._live_view.__enter__()
        elif not self.quiet:
            print(f"kingdoms tournament: {self.summary()} ({self.executor_text})", file=sys.stderr, flush=True)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._live_view is not None:
            self._live_view.update(self.render())
            self._live_view.__exit__(*exc)

    def rate(self) -> float:
        hours = (time.time() - self.started) / 3600
        return self.finished_here / hours if hours > 0 else 0.0

    def summary(self) -> str:
        c = self.store.counts()
        done = c["done"] + c["void"] + c["failed"]
        return (f"{done}/{sum(c.values())} games done ({c['void']} void, {c['failed']} failed), {c['running']} running, "
                f"{c['pending']} left · {self.rate():,.0f} games/hour")

    def top(self) -> list[tuple[str, float, float]]:
        rows = [(n, r.points, r.points_sigma) for n, r in self.live.ratings.items() if n != FILL]
        rows.sort(key=lambda x: -x[1])
        return rows[:TOP]

    def render(self) -> Any:
        from rich.console import Group
        from rich.table import Table
        from rich.text import Text

        t = Table(title="live ratings (openskill Plackett-Luce)", title_justify="left")
        t.add_column("entrant")
        t.add_column("rating", justify="right")
        t.add_column("games", justify="right")
        for name, pts, sd in self.top():
            t.add_row(name, f"{pts:.0f} ±{sd:.0f}", str(self.live.ratings[name].games))
        return Group(Text(f"{self.summary()} · {self.executor_text}"), t)

    def game_done(self, game: str, status: str, result: dict[str, Any] | None, error: str | None) -> None:
        self.finished_here += 1
        if status == "done" and result:
            self.live.update([(s["entrant"], int(s["place"])) for s in result["seats"] if s["entrant"] != FILL])
        if self._live_view is not None:
            self._live_view.update(self.render())
        elif not self.quiet:
            what = status
            if result and status == "done":
                what = ", ".join(f"{s['entrant']} {s['result']}" for s in sorted(result["seats"], key=lambda s: s["place"]))
            elif error:
                what = f"{status}: {error.splitlines()[0]}"
            top = " ".join(f"{n} {p:.0f}" for n, p, _ in self.top())
            print(f"  {game} {what} · {self.summary()} · top: {top}", file=sys.stderr, flush=True)

    def tick(self) -> None:
        if self._live_view is not None:
            self._live_view.update(self.render())


def _make_executor(kind: Any, jobs: int | None, address: str | None, cfg: TournamentConfig) -> Any:
    """The executor named by --executor (or one made by the caller, passed as is)."""
    from kingdoms.tournament.executors import LocalExecutor, RayExecutor

    if not isinstance(kind, str):
        return kind
    limits = {e.name: e.max_concurrent for e in cfg.entrants if e.max_concurrent}
    if kind == "ray":
        return RayExecutor(address, jobs, limits)  # type: ignore[arg-type]
    if address:
        raise RunnerError("--address goes with --executor ray")
    return LocalExecutor(jobs or 2)


def run(target: str | Path, *, out: str | Path | None = None, jobs: int | None = None, executor: Any = "local",
        address: str | None = None, quiet: bool = False, retry_failed: bool = False,
        max_games: int | None = None) -> dict[str, Any]:
    """Run (or resume) a tournament until every game has a result; returns the final table's data.

    `executor` is "local", "ray" or an executor object (kingdoms.tournament.executors); `max_games` stops
    starting games after that many (for benchmarks of a half-finished tournament).
    """
    cfg, text, folder = open_config(target)
    out_dir = Path(out) if out else (folder or Path("games") / "tournaments" / cfg.name)
    tasks = build_schedule(cfg)
    digest = schedule_digest(tasks)
    with runner_lock(out_dir):
        store = TournamentStore(out_dir, create=True)
        try:
            meta = store.meta()
            if "digest" in meta and meta["digest"] != digest:
                raise RunnerError(f"{out_dir} holds another tournament ({meta.get('name')}, from "
                                  f"{meta.get('config_source')}); its schedule differs from this config's. Use "
                                  "another --out folder, or resume it with `kingdoms tournament run "
                                  f"{out_dir}`")
            store.initialise(config_text=text, config_source=cfg.source, base=str(cfg.base), digest=digest,
                             name=cfg.name, entrants=entrant_dicts(cfg), tasks=tasks)
            store.update_entrants(entrant_dicts(cfg))
            store.set_meta(seed=cfg.seed, bootstrap=cfg.bootstrap)
            store.recover()
            if retry_failed:
                store.retry_failed()
            _run_games(store, cfg, out_dir, jobs, executor, address, quiet, max_games)
            data = build_table(store)
            write_reports(store, data)
            return data
        finally:
            store.close()


def _run_games(store: TournamentStore, cfg: TournamentConfig, out_dir: Path, jobs: int | None, executor: Any,
               address: str | None, quiet: bool, max_games: int | None) -> None:
    pending = store.games("pending")
    if not pending:
        return
    ex = _make_executor(executor, jobs, address, cfg)
    limits = {e.name: e.max_concurrent for e in cfg.entrants if e.max_concurrent}
    entrants = {e["name"]: e for e in entrant_dicts(cfg)}
    running: dict[str, tuple[int, list[str]]] = {}  # game -> (attempt, entrants)
    started = 0
    queue = [g for g in pending]
    try:
        with Progress(store, ex.describe(), quiet) as progress:
            while queue or running:
                while len(running) < ex.capacity and queue and (max_games is None or started < max_games):
                    busy: dict[str, int] = {}
                    for _, names in running.values():
                        for n in names:
                            busy[n] = busy.get(n, 0) + 1
                    pick = next((g for g in queue if all(busy.get(n, 0) < limits.get(n, 10**9)
                                                         for n in set(_names(g)))), None)
                    if pick is None:
                        break
                    queue.remove(pick)
                    attempt = store.start(pick["id"])
                    if attempt is None:
                        continue
                    task = store.task(pick)
                    job = {"task": task.to_dict(), "out": str(out_dir.resolve()), "base": str(cfg.base),
                           "deadline_s": cfg.deadline_s, "void_share": cfg.void_share, "fill": cfg.fill,
                           "entrants": entrants, "attempt": attempt}
                    ex.submit(pick["id"], job, _names(pick))
                    running[pick["id"]] = (attempt, _names(pick))
                    started += 1
                if not running:
                    break
                for game, outcome in ex.wait(0.5):
                    attempt, _ = running.pop(game)
                    status = outcome.get("status")
                    if status == "lost":
                        if attempt >= MAX_ATTEMPTS:
                            store.finish(game, attempt, "failed", None, outcome.get("error"))
                        elif store.give_back(game, attempt, str(outcome.get("error"))):
                            queue.append(next(g for g in store.games("pending") if g["id"] == game))
                        progress.tick()
                        continue
                    store.finish(game, attempt, status, outcome.get("result"), outcome.get("error"))
                    progress.game_done(game, status, outcome.get("result"), outcome.get("error"))
                progress.tick()
    except BaseException:
        ex.close(kill=True)
        for game, (attempt, _) in running.items():
            store.give_back(game, attempt, "the runner was stopped")
        raise
    ex.close()


def _names(game: dict[str, Any]) -> list[str]:
    return [n for n in game["seats"].values() if n != FILL]


def status(folder: str | Path) -> dict[str, Any]:
    """Counts, the games running now and the void/failed ones, from the tournament file alone."""
    store = TournamentStore(folder)
    try:
        meta = store.meta()
        games = store.games()
        return {"tournament": meta.get("name"), "config": meta.get("config_source"), "folder": str(store.folder),
                "counts": store.counts(), "total": len(games),
                "running": [{"game": g["id"], "map": g["map"], "seats": g["seats"], "attempt": g["attempt"],
                             "since": g["started_at"]} for g in games if g["status"] == "running"],
                "problems": [{"game": g["id"], "status": g["status"], "error": (g["error"] or "").splitlines()[:1],
                              "void": (g["result"] or {}).get("void_reasons", [])}
                             for g in games if g["status"] in ("void", "failed")]}
    finally:
        store.close()


# --- the command ----------------------------------------------------------------------------------------


def _stop_on_term(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def cmd_run(args: Any) -> int:
    import signal

    signal.signal(signal.SIGTERM, _stop_on_term)  # `kill` stops as cleanly as ^C: running games go back to pending
    try:
        data = run(args.config, out=args.out, jobs=args.jobs, executor=args.executor, address=args.address,
                   quiet=args.quiet, retry_failed=args.retry_failed, max_games=args.max_games)
    except (ConfigError, RunnerError, TournamentStoreError, RuntimeError) as exc:
        print(f"kingdoms tournament: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("kingdoms tournament: stopped; run the same command again to finish the remaining games",
              file=sys.stderr)
        return 130
    if not args.quiet:
        print(text_table(data))
        folder = Path(data["folder"])
        print(f"table: {folder / 'table.html'} · {folder / 'table.csv'} · {folder / 'table.json'}")
    return 0


def cmd_status(args: Any) -> int:
    try:
        info = status(args.folder)
    except TournamentStoreError as exc:
        print(f"kingdoms tournament: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(info))
        return 0
    c = info["counts"]
    print(f"{info['tournament']} ({info['folder']}): {c['done']} done, {c['void']} void, {c['failed']} failed, "
          f"{c['running']} running, {c['pending']} pending of {info['total']}")
    for r in info["running"]:
        print(f"  running {r['game']} on {r['map']} (attempt {r['attempt']}): "
              + ", ".join(f"{k}={v}" for k, v in r["seats"].items()))
    for p in info["problems"]:
        why = "; ".join(p["void"]) if p["status"] == "void" else " ".join(p["error"])
        print(f"  {p['status']} {p['game']}: {why}")
    return 0


def cmd_table(args: Any) -> int:
    try:
        store = TournamentStore(args.folder)
    except TournamentStoreError as exc:
        print(f"kingdoms tournament: {exc}", file=sys.stderr)
        return 2
    try:
        data = build_table(store)
        paths = write_reports(store, data)
    finally:
        store.close()
    if args.json:
        print(json.dumps(data))
    else:
        print(text_table(data))
        print(f"table: {paths['html']} · {paths['csv']} · {paths['json']}")
    return 0
