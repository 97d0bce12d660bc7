"""The collector settings of processes that play months (kingdoms.gctune): where they apply and where not.

Each check that changes the collector runs in a child interpreter, so the test process keeps its own settings.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from kingdoms import bench, gctune

ROOT = Path(__file__).resolve().parent.parent


def _child(code: str) -> str:
    """Run `code` in a fresh interpreter and return what it printed."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    return done.stdout.strip()


def test_the_kingdoms_command_tunes_its_process_and_main_does_not() -> None:
    """The console entry (`run`) freezes start-up objects and raises the thresholds before main; `main`, which
    tests and embedders call in their own process, leaves the collector alone."""
    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]["kingdoms"] == "kingdoms.cli:run"
    out = _child("import gc, sys, contextlib, io; from kingdoms import cli; buf = io.StringIO(); "
                 "sys.argv = ['kingdoms', 'info', '/nonexistent/game.sqlite']\n"
                 "with contextlib.redirect_stderr(buf): cli.main(sys.argv[1:])\n"
                 "print(gc.get_threshold(), gc.get_freeze_count() > 0)\n"
                 "with contextlib.redirect_stderr(buf): cli.run()\n"
                 "print(gc.get_threshold(), gc.get_freeze_count() > 0)")
    before, after = out.splitlines()
    assert before == f"{gctune.DEFAULTS} False"
    assert after == f"{gctune.THRESHOLDS} True"


def test_tournament_workers_are_tuned_in_both_executors() -> None:
    """A local pool's initialiser and the Ray task both tune the worker process (it plays whole games)."""
    out = _child("import gc; from kingdoms.tournament import worker; worker._die_with_parent = lambda: None; "
                 "worker.worker_init(); print(gc.get_threshold())")
    assert out == str(gctune.THRESHOLDS)
    from kingdoms.tournament import executors

    assert "cluster_job" in executors.RayExecutor.__init__.__code__.co_names


def test_calibration_runs_under_the_default_thresholds() -> None:
    """bench.calibrate measures the machine: its workload runs under CPython's defaults whatever the process
    set, and the process's own thresholds come back after it."""
    out = _child("import gc; from kingdoms import bench, gctune; seen = []; "
                 "bench._workload = lambda: seen.append(gc.get_threshold()) or 0; gctune.tune_collector(); "
                 "bench.calibrate(rounds=2); print(set(seen), gc.get_threshold())")
    assert out == f"{ {gctune.DEFAULTS} } {gctune.THRESHOLDS}"
    assert bench.calibrate.__doc__ and "default collector" in bench.calibrate.__doc__
