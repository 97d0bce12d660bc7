"""Playing one tournament game: the task a worker process (or a Ray task) runs, start to result.

`play_job(job)` creates the game file in the output folder (or reopens it: an interrupted game resumes from
its file), plays it to its end or the months cap, and returns the result read back from the file: every
seat's place, result, captures and figures (kingdoms.tournament.metrics), whether the game is void, and
how long each step took. A game with AI seats only is played in this process. With external seats the
worker serves the game over HTTP (`kingdoms serve GAME --http`) on a free port, launches each `command` or
`model` entrant with its seat's connection in the environment, writes the connection of each `http`
entrant to GAME.connect.json, and keeps the game moving (deadlines, AI seats) until it ends. A seat's
process that exits before the game is over for it fails the game as `crashed` (or `provider_failed` when it
exits with code 4, as `kingdoms seat` does, or its provider failures are stored in the game file); so does a
seat whose provider was out for more than the void share of its months. Such a game is reported, not rated.

A lock file per game makes sure one worker at a time plays it, even when a killed runner's worker is
still finishing it.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kingdoms.game import Game
from kingdoms.gctune import tune_collector
from kingdoms.session import Session
from kingdoms.tournament.metrics import final_standing, month_times, seat_figures
from kingdoms.tournament.schedule import FILL, GameTask

EXIT_PROVIDER_FAILED = 4  # a seat process exits with this when its model provider failed (as kingdoms seat does)
POLL_S = 0.2
SERVER_START_S = 30.0
AGENT_GRACE_S = 10.0  # after the game ends, how long seats may take to finish (final report) before stopping


def _die_with_parent() -> None:
    """Linux: get SIGKILL when the parent dies, so no orphan keeps playing after a killed runner."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def worker_init() -> None:
    """Initialiser of local worker processes: die with the runner, ignore ^C (the runner handles it), and tune
    the collector as the `kingdoms` command does (gctune)."""
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    tune_collector()


def cluster_job(job: dict[str, Any]) -> dict[str, Any]:
    """play_job as a Ray task runs it: in a worker process of the cluster's, tuned as the `kingdoms` command is."""
    tune_collector()
    return play_job(job)


@contextlib.contextmanager
def _game_lock(path: Path) -> Iterator[None]:
    """One worker at a time per game file (blocks until a stale worker of a killed runner is done)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on Linux
        yield
        return
    with open(path, "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _kingdoms_command() -> list[str]:
    """How to run `kingdoms` with the interpreter of this process."""
    script = Path(sys.executable).parent / "kingdoms"
    return [str(script)] if script.exists() else [sys.executable, "-m", "kingdoms.cli"]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _write_private(path: Path, data: Any) -> None:
    """A file only this user can read (it holds seat tokens), written whole."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=2)
    os.replace(tmp, path)


def _remove_sqlite(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            Path(str(path) + suffix).unlink()


def _open_or_create(task: GameTask, job: dict[str, Any], path: Path) -> tuple[Game, dict[str, str], bool]:
    """The game file (made now, or reopened to resume) and its seat tokens; True when it was resumed."""
    from kingdoms.setup import build_state, resolve_scenario

    tokens_path = path.with_name(path.stem + ".tokens.json")
    if path.exists():
        tokens = json.loads(tokens_path.read_text()) if tokens_path.exists() else {}
        return Game.open(path), tokens, True
    part = path.with_name(path.name + ".part")
    _remove_sqlite(part)
    state = build_state(resolve_scenario(task.source), task.seed)
    controllers = {k: _controller(job, e) for k, e in task.seats.items()}
    game, tokens = Game.create(part, state, scenario=task.map_label, controllers=controllers,
                               deadline_s=float(job["deadline_s"]),
                               extra_meta={"tournament_game": task.id, "entrants": task.seats})
    game.close()
    if any(c == "agent" for c in controllers.values()):
        _write_private(tokens_path, tokens)
    os.replace(part, path)
    return Game.open(path), tokens, False


def _controller(job: dict[str, Any], entrant: str) -> str:
    if entrant == FILL:
        fill = str(job["fill"])
        return fill if fill.startswith("ai:") else f"ai:{fill}"
    spec = job["entrants"][entrant]
    return f"ai:{spec['ai']}" if spec.get("ai") else "agent"


def seat_argv(spec: dict[str, Any], url: str) -> list[str]:
    """The process a command or model entrant is started as: its command ({python} = this interpreter), or
    the built-in model seat `python -m kingdoms seat --url URL --model PROVIDER:MODEL [model_args]`."""
    if spec.get("model"):
        return [sys.executable, "-m", "kingdoms", "seat", "--url", url, "--model", spec["model"],
                *spec.get("model_args", [])]
    return [sys.executable if a == "{python}" else a for a in spec["command"]]


def _last_month(game: Game, months: int | None) -> int:
    state = game.state()
    start = int(game.meta.get("start_month", 1))
    return min(state.last_month, start - 1 + months) if months else state.last_month


class _Seats:
    """The external seats of one game: the HTTP server, the launched processes, the connection files."""

    def __init__(self, job: dict[str, Any], task: GameTask, path: Path, tokens: dict[str, str]) -> None:
        self.job, self.task, self.path, self.tokens = job, task, path, tokens
        self.logs = Path(job["out"]) / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.server: subprocess.Popen[bytes] | None = None
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.url = ""

    def _popen(self, argv: list[str], log_name: str, env: dict[str, str], cwd: str | None = None
               ) -> subprocess.Popen[bytes]:
        log = open(self.logs / log_name, "ab")  # noqa: SIM115 - the child keeps it open
        try:
            return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env,
                                    cwd=cwd, start_new_session=True, preexec_fn=_die_with_parent)
        finally:
            log.close()

    def start_server(self) -> None:
        """`kingdoms serve GAME --http --port P` on a free port; waits until it accepts connections."""
        for _ in range(3):
            port = _free_port()
            argv = [*_kingdoms_command(), "serve", str(self.path), "--http", "--host", "127.0.0.1", "--port", str(port)]
            self.server = self._popen(argv, f"{self.task.id}-server.log", dict(os.environ))
            end = time.time() + SERVER_START_S
            while time.time() < end and self.server.poll() is None:
                with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    self.url = f"http://127.0.0.1:{port}/mcp"
                    return
                time.sleep(0.1)
            _stop_all([self.server])
        raise RuntimeError(f"the game server did not start (see {self.logs / (self.task.id + '-server.log')})")

    def launch(self) -> None:
        """Start every command/model entrant's process and announce every http entrant's connection."""
        connect: dict[str, Any] = {}
        for kingdom, name in self.task.seats.items():
            if name == FILL:
                continue
            spec = self.job["entrants"][name]
            if spec.get("ai"):
                continue
            token = self.tokens.get(kingdom)
            if not token:
                raise RuntimeError(f"no seat token for {kingdom} (missing {self.path.stem}.tokens.json)")
            if spec.get("http"):
                connect[kingdom] = {"entrant": name, "url": self.url, "token": token}
                continue
            mcp_path = self.path.with_name(f"{self.path.stem}.{kingdom}.mcp.json")
            _write_private(mcp_path, {"mcpServers": {"kingdoms": {
                "command": _kingdoms_command()[0], "args": [*_kingdoms_command()[1:], "serve", str(self.path)],
                "env": {"KINGDOMS_SEAT": token}}}})
            env = dict(os.environ)
            env.update({"KINGDOMS_URL": self.url, "KINGDOMS_TOKEN": token, "KINGDOMS_SEAT": token,
                        "KINGDOMS_MCP_CONFIG": str(mcp_path), "KINGDOMS_GAME": str(self.path),
                        "KINGDOMS_KINGDOM": kingdom, "KINGDOMS_ENTRANT": name})
            env.update(spec.get("env") or {})
            argv = seat_argv(spec, self.url)
            self.procs[kingdom] = self._popen(argv, f"{self.task.id}-{kingdom}-{name}.log", env, cwd=self.job["base"])
        if connect:  # the tokens go to a file only this user can read, never to a log or a terminal
            connect_path = self.path.with_name(f"{self.path.stem}.connect.json")
            _write_private(connect_path, connect)
            for kingdom, seat in connect.items():
                print(f"kingdoms tournament: game {self.task.id}: entrant {seat['entrant']} plays {kingdom}: "
                      f"connect to {self.url}; its bearer token is in {connect_path}", file=sys.stderr, flush=True)

    def exited(self) -> dict[str, int]:
        """Seats whose process has ended, with its exit code."""
        return {k: p.returncode for k, p in self.procs.items() if p.poll() is not None}

    def stop(self, grace: float = 0.0) -> None:
        """Stop the seats (after up to `grace` seconds for them to finish on their own) and the server."""
        end = time.time() + grace
        while grace and time.time() < end and any(p.poll() is None for p in self.procs.values()):
            time.sleep(POLL_S)
        _stop_all([*self.procs.values(), *([self.server] if self.server is not None else [])])


def _signal_group(proc: subprocess.Popen[bytes], sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


def _stop_all(procs: list[subprocess.Popen[bytes]], wait_s: float = 1.5) -> None:
    """End children's whole process groups at once: TERM, then KILL whatever is left after `wait_s`."""
    live = [p for p in procs if p.poll() is None]
    for p in live:
        _signal_group(p, signal.SIGTERM)
    end = time.time() + wait_s
    while live and time.time() < end:
        time.sleep(0.05)
        live = [p for p in live if p.poll() is None]
    for p in live:
        _signal_group(p, signal.SIGKILL)
        p.wait(timeout=5)


def _play_ai(game: Game, last: int) -> None:
    while not game.finished and game.month <= last:
        game.play_ai_seats()


def _play_external(job: dict[str, Any], task: GameTask, path: Path, game: Game, tokens: dict[str, str],
                   last: int, timings: dict[str, float]) -> list[dict[str, Any]]:
    """Serve the game, launch its seats, keep it moving; returns the failures (crashed seats), if any."""
    t0 = time.time()
    seats = _Seats(job, task, path, tokens)
    failures: list[dict[str, Any]] = []
    session: Session | None = None
    try:
        seats.start_server()
        seats.launch()
        timings["seat"] = time.time() - t0
        session = Session(path)
        while True:
            session.tick()
            state = game.state()
            if state.finished or state.month > last:
                break
            exited = seats.exited()
            if exited:
                state = game.state()  # fresh: the game may have ended just as a seat quit
                if state.finished or state.month > last:
                    break
            for kingdom, code in exited.items():
                if state.kingdoms[kingdom].eliminated:
                    continue
                name = task.seats[kingdom]
                provider = code == EXIT_PROVIDER_FAILED
                failures.append({"kingdom": kingdom, "entrant": name, "month": state.month, "exit_code": code,
                                 "kind": "provider_failed" if provider else "crashed",
                                 "log": str(seats.logs / f"{task.id}-{kingdom}-{name}.log")})
            if failures:
                break
            time.sleep(POLL_S)
        seats.stop(grace=AGENT_GRACE_S if game.finished and not failures else 0.0)
    finally:
        seats.stop()
        if session is not None:
            session.close()
    return failures


def collect(game: Game, task: GameTask, job: dict[str, Any], failures: list[dict[str, Any]], last: int
            ) -> dict[str, Any]:
    """The game's result read back from its file: standings, per-seat figures, validity.

    A game stopped by the months cap is scored on the position after month `last` even when fast seats
    played on for a moment before they were stopped.
    """
    store = game.store
    state = game.state()
    if state.month > last and store.latest_month() > last + 1:
        state = game.state(last + 1)
    standing = final_standing(state)
    times = month_times(store, last)
    failed_seats = {f["kingdom"]: f for f in failures}
    seats = []
    void_reasons = []
    for kingdom, name in task.seats.items():
        figs = seat_figures(store, kingdom, times)
        failure = failed_seats.get(kingdom)
        if failure and failure["kind"] == "crashed" and figs["provider_failures"]:
            failure["kind"] = "provider_failed"
        if not failure and figs["months"] and figs["outages"] / figs["months"] > float(job["void_share"]):
            failure = {"kingdom": kingdom, "entrant": name, "month": state.month, "exit_code": None,
                       "kind": "provider_failed", "log": f"{figs['outages']} of {figs['months']} months lost to "
                       "provider outages"}
            failures.append(failure)
        seat = {"kingdom": kingdom, "entrant": name, **standing[kingdom], "figures": figs,
                "failure": failure["kind"] if failure else None}
        seats.append(seat)
        if figs["months"] and figs["auto_ended"] / figs["months"] > float(job["void_share"]):
            void_reasons.append(f"{name} ({kingdom}) was auto-ended in {figs['auto_ended']} of its {figs['months']} "
                                f"months (over {float(job['void_share']):.0%})")
    status = "failed" if failures else ("void" if void_reasons else "done")
    start = int(game.meta.get("start_month", 1))
    return {"id": task.id, "status": status, "file": str(store.path), "map": task.map_label, "seed": task.seed,
            "round": task.round, "finished": state.finished, "end_reason": state.end_reason,
            "capped": not state.finished, "final_month": state.month,
            "months_played": state.month - start + (1 if state.finished else 0),
            "seats": seats, "void_reasons": void_reasons, "failures": failures}


def play_job(job: dict[str, Any]) -> dict[str, Any]:
    """Play one scheduled game (job: task, out, base, deadline_s, void_share, fill, entrants); never raises.

    Returns {"status": done|void|failed, "result": {...} | None, "error": text | None, "timings": {...}}.
    """
    t0 = time.time()
    timings: dict[str, float] = {"start": 0.0, "seat": 0.0, "play": 0.0, "collect": 0.0}
    task = GameTask.from_dict(job["task"])
    games = Path(job["out"]) / "games"
    games.mkdir(parents=True, exist_ok=True)
    path = games / f"{task.id}.sqlite"
    game: Game | None = None
    try:
        with _game_lock(games / f"{task.id}.lock"):
            game, tokens, resumed = _open_or_create(task, job, path)
            last = _last_month(game, task.months)
            timings["start"] = time.time() - t0
            t1 = time.time()
            external = any(_controller(job, e) == "agent" for e in task.seats.values())
            failures: list[dict[str, Any]] = []
            if not external:
                _play_ai(game, last)
            elif not (game.finished or game.month > last):
                failures = _play_external(job, task, path, game, tokens, last, timings)
            timings["play"] = time.time() - t1 - timings["seat"]
            t2 = time.time()
            result = collect(game, task, job, failures, last)
            result["resumed"] = resumed
            timings["collect"] = time.time() - t2
            timings["total"] = time.time() - t0
            result["timings"] = timings
            error = "; ".join(f"{f['entrant']} ({f['kingdom']}) {f['kind'].replace('_', ' ')} in month {f['month']} "
                              f"(exit code {f['exit_code']}; log {f['log']})" for f in failures) or None
            return {"status": result["status"], "result": result, "error": error, "timings": timings}
    except Exception as exc:  # a bug or a broken file: the game is reported failed with the reason
        timings["total"] = time.time() - t0
        return {"status": "failed", "result": None, "timings": timings,
                "error": f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=6)}"}
    finally:
        if game is not None:
            game.close()
