"""Shared test fixtures: the tiny two-kingdom world (built with the kit, tests/builders.py) and a game path."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kingdoms.state import GameState
from tests.builders import add, add_city, kingdom, world

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


def tiny_state(seed: int = 7) -> GameState:
    """Two kingdoms at peace with a capital and a 3,000-levy troop (4 months' rations) each, on the tiny map."""
    names = {"cities": "{name} City {i}", "generals": "{ruler} General {i}"}
    state = world(rows=TINY_ROWS, seed=seed, month=1, war=False, kingdoms=[
        kingdom("wei", "Cao Wei", "Cao Cao", (1, 1), **names), kingdom("shu", "Shu Han", "Liu Bei", (6, 6), **names)])
    for kid, kd in state.kingdoms.items():
        city = add_city(state, kid, kd.landing, capital=True)
        add(state, kid, "levy", city.tile, 3_000)
    return state


#: Markers whose tests run only when the -m expression names them (pyproject.toml [tool.pytest.ini_options]).
OPT_IN = ("slow", "inspector")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave out the opt-in tests (slow, inspector) unless -m names their marker; everything else runs by default."""
    named = set(re.findall(r"[A-Za-z_]\w*", config.getoption("markexpr") or ""))
    left_out = {m for m in OPT_IN if m not in named}
    keep = [item for item in items if not left_out & {mark.name for mark in item.iter_markers()}]
    if len(keep) < len(items):
        config.hook.pytest_deselected(items=[item for item in items if item not in keep])
        items[:] = keep


@pytest.fixture
def state() -> GameState:
    return tiny_state()


@pytest.fixture
def tmp_game_path(tmp_path: Path) -> Path:
    return tmp_path / "game.sqlite"
