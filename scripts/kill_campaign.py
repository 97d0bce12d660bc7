#!/usr/bin/env python
"""The crash campaign: games played by one process per seat, killed (SIGKILL) at random moments, then checked.

Each game is a small seeded random map with every seat run by its own process, the way one stdio server per
seat runs a tournament: the process applies the deadline, resolves months and lets AI seats play (as the
servers do, AI play under the shared .ai.lock), and for its own seat gives orders (the standard AI's orders,
as an agent would send them, sometimes in two calls, sometimes too late for the short deadline) bound to the
month it read, then ends that month. One seat of each game is an AI seat that no process owns. A controller
kills seat processes at random moments and starts them again; after every kill it runs `replay --verify` on
the file as it stands.

Every seat process logs, after the call returned, each acknowledged order ("queued" for month M) and, before
the call, each month end it is about to ask for. At the end of a game the campaign counts:
- acknowledged orders lost: an acknowledged order not stored for its month, or its month's results missing it;
- months lost: a month ended in a seat's name ("ended") that the seat never asked to end, or a gap in months;
- replay failures: `replay --verify` (month 1 rebuilt from the scenario and seed) failing after a kill or at the end;
- kills survived: kills after which the game went on to its last month with all of the above clean.

Usage: .venv/bin/python scripts/kill_campaign.py [--games 50] [--months 8] [--deadline 0.6] [--jobs 3]
       [--seed 500] [--json]
Exit status 1 when any order or month is lost or any replay fails.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# --- the seat process ----------------------------------------------------------------------------------------


def seat_main(path: str, kingdom: str, log_path: str, target: int, seed: int) -> int:
    """One seat's process: keep the game moving (deadline, resolution, AI seats) and play `kingdom`."""
    import fcntl

    from kingdoms.game import Game, GameError, MonthClosed, ai_decide

    rng = random.Random(seed)
    started = time.time()
    game = Game.open(path)
    deadline = float(game.meta.get("deadline_s", 1.0))
    log = open(log_path, "a", encoding="utf-8")  # noqa: SIM115 - kept open for the process's life

    def note(**entry: Any) -> None:
        log.write(json.dumps(entry) + "\n")
        log.flush()
        os.fsync(log.fileno())

    def tick() -> None:
        game.apply_deadline(not_before=started)
        game.try_resolve()
        with open(path + ".ai.lock", "a+") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                game.play_ai_seats()
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    note(event="start", pid=os.getpid())
    while True:
        try:
            tick()
            state = game.state()
            if state.finished or state.month > target:
                note(event="done", month=state.month)
                return 0
            m = state.month
            if state.kingdoms[kingdom].eliminated or kingdom in game.store.ended(m):
                time.sleep(rng.uniform(0.02, 0.1))
                continue
            orders = ai_decide(game, kingdom, "ai:standard").orders.splitlines()  # as an agent would send them
            slow = rng.random() < 0.25  # now and then a seat misses the deadline
            time.sleep(rng.uniform(0.0, deadline * (1.6 if slow else 0.4)))
            calls = [orders] if len(orders) < 2 or rng.random() < 0.5 else [orders[: len(orders) // 2],
                                                                               orders[len(orders) // 2:]]
            for part in calls:
                if not part:
                    continue
                verdicts = game.issue(kingdom, "\n".join(part), month=m)
                note(event="ack", month=m, orders=[v.text for v in verdicts if v.ok],
                     refused=[v.text for v in verdicts if not v.ok])
            if rng.random() < 0.85:
                note(event="end", month=m)
                game.end_month(kingdom, month=m)
        except MonthClosed as exc:
            note(event="closed", month=exc.month, open=exc.open_month)
        except GameError as exc:
            note(event="game_error", error=str(exc))
            time.sleep(0.05)


# --- the controller ------------------------------------------------------------------------------------------


@dataclass
class GameResult:
    """What one game of the campaign found."""

    name: str
    months: int = 0
    kills: int = 0
    survived: int = 0
    acked_orders: int = 0
    acked_lost: int = 0
    months_lost: int = 0
    replay_checks: int = 0
    replay_failures: int = 0
    seat_crashes: int = 0
    problems: list[str] = field(default_factory=list)


def _seat_cmd(path: Path, kingdom: str, log: Path, target: int, seed: int) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), "--seat", str(path), kingdom, str(log), str(target),
            str(seed)]


def _replay_ok(path: Path) -> tuple[bool, str]:
    """`kingdoms replay --verify --json` on the file as it is now (read-only, from a fresh process)."""
    proc = subprocess.run([sys.executable, "-m", "kingdoms.cli", "replay", str(path), "--json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    if proc.returncode == 2:
        return False, proc.stderr.strip()
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return False, proc.stdout[:200] + proc.stderr[:200]
    return bool(report["ok"]), json.dumps(report.get("differences", [])[:3])


def play_one(index: int, args: argparse.Namespace, workdir: Path) -> GameResult:
    """Create, play (with kills) and check one game."""
    from kingdoms.game import Game, setup_for
    from kingdoms.setup import build_state, random_scenario

    rng = random.Random(args.seed * 1000 + index)
    n = rng.choice((2, 3))
    map_seed, game_seed = rng.randrange(1, 10_000), rng.randrange(1, 10_000)
    name = f"g{index:03d}-random{map_seed}x{n}-s{game_seed}"
    res = GameResult(name)
    path = workdir / f"{name}.sqlite"
    state = build_state(random_scenario(map_seed, n), game_seed)
    kingdoms = list(state.kingdoms)
    ai_seat = kingdoms[-1]
    controllers = {k: ("ai:standard" if k == ai_seat else "agent") for k in kingdoms}
    game, _ = Game.create(path, state, scenario=f"random:{map_seed}:{n}", controllers=controllers,
                          deadline_s=args.deadline, setup=setup_for(f"random:{map_seed}:{n}"))
    game.close()
    target = state.month + args.months - 1  # play until this month has resolved
    seats = [k for k in kingdoms if k != ai_seat]
    logs = {k: workdir / f"{name}.{k}.log" for k in seats}
    procs: dict[str, subprocess.Popen[bytes]] = {}
    errs: dict[str, Any] = {}

    def start(k: str) -> None:
        errs[k] = open(workdir / f"{name}.{k}.err", "ab")  # noqa: SIM115
        procs[k] = subprocess.Popen(_seat_cmd(path, k, logs[k], target, rng.randrange(1 << 30)), cwd=ROOT,
                                    stdout=subprocess.DEVNULL, stderr=errs[k])

    for k in seats:
        start(k)
    kills_at: list[int] = []
    last_month, kills_this_month = 0, 0
    give_up = time.time() + args.months * (args.deadline * 12 + 20) + 120  # generous: a loaded machine is slow
    next_kill = time.time() + rng.uniform(0.2, 2.0)
    while time.time() < give_up:
        done = [k for k, p in procs.items() if p.poll() is not None]
        for k in done:
            code = procs[k].returncode
            if code == 0:
                continue
            if code != -signal.SIGKILL:
                res.seat_crashes += 1
                res.problems.append(f"seat {k} exited with {code}")
            start(k)
        if all(p.poll() == 0 for p in procs.values()):
            break
        month_now = _latest(path)
        if month_now != last_month:
            last_month, kills_this_month = month_now, 0
        if time.time() >= next_kill and kills_this_month < 2:  # at most two kills a month: the game goes on
            kills_this_month += 1
            k = rng.choice(seats)
            if procs[k].poll() is None:
                procs[k].send_signal(signal.SIGKILL)
                procs[k].wait()
                res.kills += 1
                with contextlib.suppress(Exception):
                    kills_at.append(_latest(path))
                ok, why = _replay_ok(path)
                res.replay_checks += 1
                if not ok:
                    res.replay_failures += 1
                    res.problems.append(f"replay after kill {res.kills} failed: {why}")
                time.sleep(rng.uniform(0.0, 0.5))
                start(k)
            next_kill = time.time() + rng.uniform(0.2, 2.0)
        time.sleep(0.05)
    else:
        res.problems.append("the game did not reach its last month in time")
    for p in procs.values():
        if p.poll() is None:
            p.kill()
            p.wait()
    for fh in errs.values():
        fh.close()
    _check(path, logs, target, res)
    ok, why = _replay_ok(path)
    res.replay_checks += 1
    if not ok:
        res.replay_failures += 1
        res.problems.append(f"final replay failed: {why}")
    clean = res.acked_lost == 0 and res.months_lost == 0 and res.replay_failures == 0 and not res.problems
    res.survived = res.kills if clean else 0
    return res


def _latest(path: Path) -> int:
    from kingdoms.storage import GameStore

    store = GameStore(path, readonly=True)
    try:
        return store.latest_month()
    finally:
        store.close()


def _check(path: Path, logs: dict[str, Path], target: int, res: GameResult) -> None:
    """Compare what the seats were told (their logs) with what the file holds."""
    from kingdoms.game import Game

    game = Game.open(path, readonly=True)
    try:
        hashes = game.store.month_hashes()
        months = sorted(hashes)
        res.months = len(months) - 1
        if months != list(range(months[0], months[-1] + 1)):
            res.months_lost += 1
            res.problems.append(f"months missing: {months}")
        if game.state().month <= target and not game.finished:
            res.problems.append(f"stopped at month {game.state().month}, before {target}")
        latest = game.store.latest_month()
        for kingdom, log in logs.items():
            entries = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
            asked = {e["month"] for e in entries if e["event"] == "end"}
            for e in entries:
                if e["event"] != "ack":
                    continue
                m = e["month"]
                res.acked_orders += len(e["orders"])
                stored = [r["raw"] for r in game.store.accepted_orders(m, kingdom)]
                missing = [o for o in e["orders"] if o not in stored]
                if missing:
                    res.acked_lost += len(missing)
                    res.problems.append(f"{kingdom} month {m}: acknowledged but not stored: {missing[:2]}")
                if m < latest:
                    ran = [o for o in game.store.outcomes(m, kingdom) if o["position"] >= 1]
                    if len(ran) < len(stored):
                        res.acked_lost += len(stored) - len(ran)
                        res.problems.append(f"{kingdom} month {m}: {len(stored)} queued, {len(ran)} carried out")
            for m in months:
                how = game.store.ended(m).get(kingdom)
                if how == "ended" and m not in asked:
                    res.months_lost += 1
                    res.problems.append(f"{kingdom}: month {m} ended in its name without its asking")
    finally:
        game.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--months", type=int, default=8, help="months each game plays")
    parser.add_argument("--deadline", type=float, default=0.6, help="seconds a seat has per month")
    parser.add_argument("--jobs", type=int, default=3, help="games played at once")
    parser.add_argument("--seed", type=int, default=500)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--keep", help="keep the game files in this directory")
    parser.add_argument("--seat", nargs=5, metavar=("GAME", "KINGDOM", "LOG", "TARGET", "SEED"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.seat:
        g, k, log, target, seed = args.seat
        return seat_main(g, k, log, int(target), int(seed))
    started = time.time()
    with contextlib.ExitStack() as stack:
        if args.keep:
            workdir = Path(args.keep)
            workdir.mkdir(parents=True, exist_ok=True)
        else:
            workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="kingdoms-kill-")))
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            results = list(pool.map(lambda i: play_one(i, args, workdir), range(args.games)))
    total = {key: sum(getattr(r, key) for r in results) for key in
             ("months", "kills", "survived", "acked_orders", "acked_lost", "months_lost", "replay_checks",
              "replay_failures", "seat_crashes")}
    total["games"] = len(results)
    total["seconds"] = round(time.time() - started, 1)
    problems = [f"{r.name}: {p}" for r in results for p in r.problems]
    if args.json:
        print(json.dumps({"total": total, "games": [asdict(r) for r in results]}))
    else:
        print(f"{total['games']} games, {total['months']} months resolved, {total['kills']} kills "
              f"({total['survived']} survived), {total['acked_orders']} acknowledged orders, "
              f"{total['acked_lost']} lost; {total['months_lost']} months lost; {total['replay_checks']} replay "
              f"checks, {total['replay_failures']} failed; {total['seat_crashes']} seat crashes; "
              f"{total['seconds']} s")
        for p in problems[:40]:
            print("  " + p)
    bad = total["acked_lost"] or total["months_lost"] or total["replay_failures"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
