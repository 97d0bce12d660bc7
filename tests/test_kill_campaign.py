"""The crash campaign (scripts/kill_campaign.py): its accounting in the normal run, the campaign itself opt-in."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from kingdoms.game import Game

from .conftest import tiny_state

ROOT = Path(__file__).resolve().parent.parent


def _campaign():  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import kill_campaign
    finally:
        sys.path.pop(0)
    return kill_campaign


def test_the_campaign_counts_a_lost_order_and_a_month_ended_behind_a_seat(tmp_game_path: Path) -> None:
    """The campaign's check can fail: an acknowledged order missing from the file is counted lost, and a month
    ended in a seat's name that the seat never asked to end is counted as a month lost."""
    kc = _campaign()
    game, _ = Game.create(tmp_game_path, tiny_state(), scenario="tiny", controllers={"wei": "agent", "shu": "agent"})
    game.issue("wei", "declare_war to=shu")
    game.end_month("wei")
    game.end_month("shu")  # month 1 resolves; wei's order ran
    game.end_month("wei")  # month 2 ended for wei, which (per its log) never asked
    game.close()
    log = tmp_game_path.with_suffix(".wei.log")
    entries = [{"event": "ack", "month": 1, "orders": ["declare_war to=shu"]},
               {"event": "end", "month": 1},
               {"event": "ack", "month": 2, "orders": ["hold unit=2"]}]  # acknowledged, never stored
    log.write_text("".join(json.dumps(e) + "\n" for e in entries))
    res = kc.GameResult("t")
    kc._check(tmp_game_path, {"wei": log}, target=1, res=res)
    assert res.acked_orders == 2 and res.acked_lost == 1 and res.months_lost == 1, res.problems


def test_a_seat_process_plays_its_seat_to_the_last_month(tmp_path: Path) -> None:
    """The campaign's seat process (run here in-process, nobody killing it) plays its seat and keeps the game
    going with the AI seat, logging what it was told, until the target month has resolved; the file replays."""
    kc = _campaign()
    from kingdoms.game import setup_for
    from kingdoms.scenario import load_scenario
    from kingdoms.setup import build_state

    path = tmp_path / "g.sqlite"
    state = build_state(load_scenario("duel"), 3)
    game, _ = Game.create(path, state, scenario="duel", controllers={"wei": "agent", "shu": "ai:passive"},
                          deadline_s=0.2, setup=setup_for("duel"))
    game.close()
    log = tmp_path / "wei.log"
    assert kc.seat_main(str(path), "wei", str(log), 2, seed=1) == 0
    res = kc.GameResult("t")
    kc._check(path, {"wei": log}, target=2, res=res)
    assert res.months == 2 and res.acked_orders > 0 and res.acked_lost == 0 and res.months_lost == 0, res
    assert Game.open(path, readonly=True).replay().ok


@pytest.mark.slow
def test_kill_campaign() -> None:
    """scripts/kill_campaign.py: 50 games, one process per seat, an AI seat, a 0.6 s deadline, seat processes
    killed at random moments: no acknowledged order lost, no month lost, every replay --verify passes (about ten
    minutes on two cores)."""
    assert _campaign().main(["--games", "50", "--months", "10", "--jobs", "3"]) == 0
