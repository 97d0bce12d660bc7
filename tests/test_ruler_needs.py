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


def q_at(text: str, r: int, mark: str) -> int:
    """Read the q of the first tile in row r whose marker is `mark` off a get_map text, as an agent would: the q
    ruler above the row's pair gives every fifth q where its tile starts; count whole tiles from the nearest."""
    lines = text.splitlines()
    row = next(n for n, line in enumerate(lines) if line.startswith(f"r{r:>3}| "))
    ruler = next(lines[n] for n in range(row, -1, -1) if lines[n].startswith("    q "))
    body, marks = lines[row][6:], ruler[6:]
    col = body.index(mark) - 1  # the tile starts one character before its marker
    labels = [(m.start(), int(m.group())) for m in __import__("re").finditer(r"-?\d+", marks)]
    pos, q = min(labels, key=lambda x: abs(x[0] - col))
    assert (col - pos) % 2 == 0
    return q + (col - pos) // 2


async def test_map_010_off_map_orders_name_the_nearest_tile_and_the_map_has_a_ruler(tmp_path: Path) -> None:
    """MAP-010: a move off the map is refused with the row's q range and the nearest tile on the map; get_map
    writes r on every row and a q ruler an agent reads without counting columns, in a radius window too."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path, {"wei": "agent", "shu": "ai:passive"})
    async with seat(path, tokens["wei"], wait_s=5, poll_s=0.02) as c:
        err, reply = await call(c, "issue_orders", {"orders": "move unit=2 to=40,3", "preview": True})
        assert not err and "[off_map]" in reply
        assert "(40,3) is off the map (32 x 24 tiles; row r=3 runs q=-1..30); the nearest tile on it is (30,3)" in reply
        err, reply = await call(c, "issue_orders", {"orders": "move unit=2 to=16,-4", "preview": True})
        assert "rows run r=0..23" in reply and "the nearest tile on it is (16,0), in row r=0 of q=0..31" in reply
        for args in ({}, {"center_q": 16, "center_r": 3, "radius": 3}):
            err, text = await call(c, "get_map", args)
            assert not err
            assert q_at(text, 3, "*") == 16  # Xuchang (16,3)
        err, text = await call(c, "get_map", {"layer": "supply"})
        assert not err and "a land of #1 Xuchang" in text and "(supply layer)" in text
        err, text = await call(c, "get_map", {"layer": "roads"})
        assert err and "layer" in text
