"""Scripted AI rulers: they read their kingdom's own affairs and answer in the order language, like an agent.

`decide_orders(game, kingdom, controller)` is the entry point the game service calls for AI seats;
controllers are named "ai:LEVEL" (plain "ai" means the default level).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from kingdoms.ai import passive

if TYPE_CHECKING:
    from kingdoms.game import Game

DEFAULT_LEVEL = "passive"

#: AI levels by name: each takes (game, kingdom id) and returns orders in the short syntax.
LEVELS: dict[str, Callable[[Game, str], str]] = {
    "passive": passive.decide,
}


def level_of(controller: str) -> str:
    """The AI level named by a seat controller ("ai", "ai:passive" ...); raises ValueError if unknown."""
    _, _, level = controller.partition(":")
    level = level or DEFAULT_LEVEL
    if level not in LEVELS:
        raise ValueError(f"unknown AI level {level!r}; levels: {', '.join(sorted(LEVELS))}")
    return level


def decide_orders(game: Game, kingdom: str, controller: str) -> str:
    """Orders text for an AI seat this month."""
    return LEVELS[level_of(controller)](game, kingdom)
