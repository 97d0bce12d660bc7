"""`kingdoms bench` smoke runs: the short version of its parts gives every figure issue 21 asks for.

These check that the benchmark runs and reports its keys with sane values; they time nothing (the figures
themselves are read from `kingdoms bench`, never asserted).
"""

from __future__ import annotations

import json

import pytest

from kingdoms import bench
from kingdoms.cli import main as cli_main

#: The keys each quick part must report (issue 21's list, plus the CPU-time twins).
PART_KEYS = {
    "default": ("months_per_second", "month_ms_p50", "month_ms_p95", "months_per_second_cpu", "month_ms_p95_cpu",
                "game_file_bytes"),
    "hard": ("hard_months_per_second", "hard_month_ms_p95", "hard_months_per_second_cpu"),
    "random6": ("random6_months_per_second", "random6_months_per_second_cpu", "random6_map", "mapgen_40x30_ms",
                "mapgen_64x48_ms"),
    "tools": ("get_briefing_ms_p95", "issue_orders_ms_p95", "end_turn_ms_p95", "get_briefing_ms_p95_cpu",
              "issue_orders_ms_p95_cpu"),
    "replay": ("replay_verify_s", "replay_verify_s_cpu", "replay_verify_ok", "long_game_file_bytes"),
}


@pytest.mark.long  # plays short games in spawned processes: out of the inner loop (pyproject markers)
def test_bench_quick_parts_report_their_figures(capsys: pytest.CaptureFixture[str]) -> None:
    """`kingdoms bench --quick --json --only ...` runs each part in its own process and reports its figures,
    the calibration and the peak RSS of each part; the replay of the game it played verifies."""
    parts = ",".join(PART_KEYS)
    assert cli_main(["bench", "--quick", "--json", "--only", parts]) == 0
    figures = json.loads(capsys.readouterr().out)
    for part, keys in PART_KEYS.items():
        for key in keys:
            assert key in figures, f"{part} did not report {key}"
    assert figures["months_per_second"] > 0 and figures["months_per_second_cpu"] > 0
    assert figures["hard_months_per_second"] > 0 and figures["random6_months_per_second"] > 0
    assert figures["random6_map"] == "64x48"
    assert figures["replay_verify_ok"] is True and figures["replay_verify_s"] > 0
    assert figures["issue_orders_per_call"] >= bench.ORDERS_PER_CALL
    assert figures["calibration_ms"] > 0 and len(figures["calibration_ms_range"]) == 2
    assert set(figures["peak_rss_mb_by_part"]) == set(PART_KEYS)
    assert figures["peak_rss_mb"] == max(figures["peak_rss_mb_by_part"].values()) > 0


def test_bench_refuses_an_unknown_part(capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown --only part is refused with the list of parts (exit 2), nothing run."""
    assert cli_main(["bench", "--only", "default,nonesuch"]) == 2
    err = capsys.readouterr().err
    assert "nonesuch" in err and "scaling" in err


def test_fit_line_recovers_a_line() -> None:
    """The scaling fit: points on y = 2 + 0.5 x give intercept 2, slope 0.5, r^2 1; a constant x gives slope 0."""
    a, b, r2 = bench.fit_line([10.0, 20.0, 40.0], [7.0, 12.0, 22.0])
    assert (round(a, 6), round(b, 6), round(r2, 6)) == (2.0, 0.5, 1.0)
    assert bench.fit_line([3.0, 3.0], [1.0, 5.0]) == (3.0, 0.0, 0.0)


def test_fit_board_recovers_a_plane() -> None:
    """The board fit: months on ms = 1 + 0.5 x entities + 2 x tiles/1000 give those terms back with r^2 1."""
    ents = [10.0, 20.0, 10.0, 30.0, 25.0]
    tiles = [768.0, 768.0, 3888.0, 2640.0, 1728.0]
    ys = [1 + 0.5 * e + 2 * t / 1000 for e, t in zip(ents, tiles, strict=True)]
    fit = bench.fit_board(ents, tiles, ys)
    assert fit == {"intercept_ms": 1.0, "ms_per_entity": 0.5, "ms_per_1000_tiles": 2.0, "r2": 1.0}
