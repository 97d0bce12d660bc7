"""Issue 16, what an LLM ruler needs next: a scripted agent plays through the MCP client and meets each situation.

A refused order keeps the month open (TURN-050), coordinates off the map get the nearest tile and the row's
q range (MAP-010), spies inside cities, blockades and supply are in the briefing (INTEL-130, SIEGE-150,
SUPPLY-030), a chase ends (COMBAT-350), get_rules by section, and the per-seat accounting of the calls made.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kingdoms.game import Game

from .test_server import call, new_game, seat

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_turn_050_a_refused_order_keeps_the_month_open_until_end_turn_again_or_force(tmp_path: Path) -> None:
    """TURN-050: an end_turn call with a refused order does not end the month (nor start fast_forward); the reply
    says so first. Calling end_turn again ends it; force=true ends it in the same call."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path, {"wei": "agent", "shu": "ai:passive"})
    async with seat(path, tokens["wei"], wait_s=5, poll_s=0.02) as c:
        err, reply = await call(c, "issue_orders", {"orders": "set_focus city=1 focus=food; move unit=99 to=1,1",
                                                    "end_turn": True, "fast_forward": 3})
        assert not err
        assert reply.startswith("1 order REFUSED, month 1 NOT ended"), reply
        assert "fast_forward not started" in reply.splitlines()[0]
        assert "[unknown_unit]" in reply and "MONTH 2" not in reply
        game = Game.open(path)
        assert "wei" not in game.store.ended(1) and game.store.fast_forward("wei") == 0
        game.close()
        err, reply = await call(c, "issue_orders", {"end_turn": True})  # the second call ends it
        assert not err and "Month 1 ended for you." in reply and "MONTH 2 of 160" in reply
        err, reply = await call(c, "issue_orders", {"orders": "move unit=99 to=1,1", "end_turn": True,
                                                    "force": True})
        assert not err and "Month 2 ended for you (force: 1 refused order left out)." in reply
        assert "MONTH 3 of 160" in reply
