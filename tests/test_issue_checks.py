"""The issue-time check's shortcuts give what the general code gives (TURN-050): the caution's sight (INTEL-010)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kingdoms.engine.belief import believed_state
from kingdoms.engine.sight import SightProbe, sight_of
from kingdoms.game import Game
from kingdoms.setup import build_state, resolve_scenario
from kingdoms.state import GameState, StationedSpy
from tests.builders import add, add_city, open_world


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> list[GameState]:
    """The default scenario's states at months 1, 8 and 16 of a game of standard rulers."""
    state = build_state(resolve_scenario("three_kingdoms"), 11)
    game, _ = Game.create(tmp_path_factory.mktemp("checks") / "g.sqlite", state, scenario="three_kingdoms",
                          controllers={k: "ai:standard" for k in state.kingdoms})
    kept = []
    try:
        while game.month <= 16 and not game.finished:
            if game.month in (1, 8, 16):
                kept.append(game.state().clone())
            game.play_ai_seats()
    finally:
        game.close()
    return kept


def _same_sight(state: GameState, kingdom: str) -> None:
    """SightProbe answers every tile (and tiles off the map) as the kingdom's sight mask does."""
    mask = sight_of(state, kingdom)
    now = SightProbe(state, kingdom)
    gm = state.map
    for i in range(gm.size):
        q, r = gm.tile(i)
        assert now.sees(gm, q, r) == mask.sees(gm, q, r), (kingdom, q, r)
    assert not now.sees(gm, -50, -50)


def test_intel_010_caution_sight_is_the_sight_mask_on_a_hand_made_board() -> None:
    """INTEL-010: troops, scouts, a travelling spy, cities, own land and a spy stationed in a rival city."""
    s = open_world()
    add_city(s, "wei", (3, 6))
    rival = add_city(s, "shu", (14, 6))
    add(s, "wei", "levy", (8, 2), 1_000)
    add(s, "wei", "scout", (9, 10))
    add(s, "wei", "spy", (12, 3))
    add(s, "shu", "levy", (11, 8), 1_000)
    s.spies.append(StationedSpy("wei", rival.id, s.month))
    for kingdom in ("wei", "shu"):
        _same_sight(s, kingdom)


def test_intel_010_caution_sight_is_the_sight_mask_on_believed_boards(played: list[GameState]) -> None:
    """INTEL-010: on the believed boards the check runs on (land seen with holder codes) and on true ones."""
    for state in played:
        for kingdom in state.kingdoms:
            _same_sight(state, kingdom)
            _same_sight(believed_state(state, kingdom), kingdom)


def test_intel_010_caution_sight_keeps_the_board_it_was_made_on() -> None:
    """INTEL-010: moving a unit after the sight is made changes none of its answers (a mask made then would not)."""
    s = open_world()
    levy = add(s, "wei", "levy", (3, 6), 1_000)
    now = SightProbe(s, "wei")
    before = sight_of(s, "wei")
    levy.q, levy.r = 15, 6
    gm = s.map
    assert all(now.sees(gm, *gm.tile(i)) == before.sees(gm, *gm.tile(i)) for i in range(gm.size))


def test_intel_010_caution_sight_keeps_the_land_it_was_made_on() -> None:
    """INTEL-010: the own land (worked out only when a tile no troop sees is asked of) is the land when the sight
    was made: taking the city's land away, or the city itself, afterwards changes no answer."""
    s = open_world()
    city = add_city(s, "wei", (3, 6))
    gm = s.map
    s.owner[gm.index(10, 6)] = city.id  # a tile of its land far from it: seen through the land alone
    before = sight_of(s, "wei")
    for change in ("owner", "city"):
        now = SightProbe(s, "wei")
        if change == "owner":
            held = s.owner.copy()
            s.owner[:] = -1
        else:
            city.owner = "shu"
        assert all(now.sees(gm, *gm.tile(i)) == before.sees(gm, *gm.tile(i)) for i in range(gm.size))
        if change == "owner":
            s.owner[:] = held
        else:
            city.owner = "wei"
    assert before.sees(gm, 11, 6) and not SightProbe(s, "wei").sees(gm, 13, 6)


def test_check_caution_notes_out_of_sight_unchanged(tmp_path: Path) -> None:
    """INTEL-010: a move to a tile out of sight still carries its note (the caution reads the sight above)."""
    s = open_world()
    levy = add(s, "wei", "levy", (2, 6), 1_000)
    game, _ = Game.create(tmp_path / "g.sqlite", s, scenario="test", controllers={"wei": "agent", "shu": "agent"})
    try:
        far, near = game.issue("wei", f"move unit={levy.id} to=12,6; move unit={levy.id} to=3,6", preview=True)
    finally:
        game.close()
    assert far.ok and "note: (12,6) is out of your sight" in far.message
    assert near.ok and "out of your sight" not in near.message
