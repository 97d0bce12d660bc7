"""A scripted agent plays a whole (short) game against an AI seat using only the MCP tools, as an LLM would."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kingdoms.game import Game
from kingdoms.scenario import load_scenario
from kingdoms.setup import build_state

from .test_server import call, seat

pytestmark = pytest.mark.anyio

LAST = 14


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_scripted_agent_plays_a_whole_game_to_a_result(tmp_path: Path) -> None:
    """TOOLS-010..490 end to end: briefing, orders from what the briefing says, end_turn until the game ends.

    The duel is shortened to 14 months (a scenario's `months`), so the game ends at the time limit with a
    result for both kingdoms (VIC-010, VIC-180).
    """
    state = build_state(load_scenario("duel"), 11)
    state.last_month = LAST
    path = tmp_path / "g.sqlite"
    game, tokens = Game.create(path, state, scenario="duel", controllers={"wei": "agent", "shu": "ai:passive"})
    game.play_ai_seats()
    game.close()
    plan = iter(["palisade", "barracks", "spearman:1000", "farm", "walls", "granary", "archer:1000"] * 3)
    async with seat(path, tokens["wei"], wait_s=20, poll_s=0.02) as c:
        err, brief = await call(c, "get_briefing")
        assert not err
        err, rules = await call(c, "get_rules", {"section": "all"})
        assert not err and len(rules) > 10_000
        months = 0
        while "THE GAME IS OVER" not in brief:
            months += 1
            assert months <= LAST, "the game should have ended"
            city_ids = re.findall(r"#(\d+) \w+ \(\d+,\d+\) —", brief)
            orders = [f"set_production city={cid} queue={next(plan)}" for cid in city_ids
                      if "queue EMPTY" in brief or months == 1]
            err, brief = await call(c, "issue_orders", {"orders": "; ".join(orders), "end_turn": True,
                                                        "note": f"Month {months}: building up the capital."})
            assert not err, brief
            if "Still waiting" in brief:
                err, brief = await call(c, "wait_for_turn")
        err, record = await call(c, "get_game_record")
        assert not err and "kingdoms://record/" in record
    game = Game.open(path)
    final = game.state()
    assert final.finished and final.end_reason
    assert {kd.result for kd in final.kingdoms.values()} <= {"win", "loss", "draw"}
    assert all(kd.result for kd in final.kingdoms.values())
    assert game.replay().first_mismatch is None
    game.close()
