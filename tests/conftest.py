"""Shared test fixtures: small hand-made worlds built straight from the world model."""

from __future__ import annotations

from pathlib import Path

import pytest

from kingdoms.engine.land import found_city
from kingdoms.gamemap import GameMap
from kingdoms.state import GameState, Kingdom, Unit

#: A 12 x 8 map: grass and plains with a forest belt, hills, a river and a lake.
TINY_ROWS = [
    "GGPPFFGGPPGG",
    "GGPgPFFGPPGG",
    "GPPgGFHHGPGG",
    "GPPPgGH~~GGP",
    "GGPPgGG~PPGG",
    "PGGPgPFFGGPP",
    "PPGGgGGFGPPG",
    "GGGPgPPPGGGG",
]


def make_kingdom(kid: str, name: str, ruler: str, landing: tuple[int, int]) -> Kingdom:
    return Kingdom(kid, name, ruler, landing, [f"{name} City {i}" for i in range(1, 31)],
                   [f"{ruler} General {i}" for i in range(1, 13)])


def tiny_state(seed: int = 7) -> GameState:
    """Two kingdoms with a capital and a 3,000-levy troop each, on the tiny map."""
    gm = GameMap.from_rows(TINY_ROWS)
    kingdoms = {"wei": make_kingdom("wei", "Cao Wei", "Cao Cao", (1, 1)),
                "shu": make_kingdom("shu", "Shu Han", "Liu Bei", (6, 6))}
    state = GameState(seed=seed, month=1, kingdoms=kingdoms, map=gm, rotation=["wei", "shu"])
    for kid, kd in kingdoms.items():
        city = found_city(state, kid, *kd.landing, people=15_000, grain=150, capital=True)
        uid = state.new_id()
        state.units[uid] = Unit(uid, kid, "levy", city.q, city.r, men=3_000, rations=12.0)
    return state


@pytest.fixture
def state() -> GameState:
    return tiny_state()


@pytest.fixture
def tmp_game_path(tmp_path: Path) -> Path:
    return tmp_path / "game.sqlite"
