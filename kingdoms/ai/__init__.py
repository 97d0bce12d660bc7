"""Scripted AI rulers: they read their kingdom's Observation and answer in the order language, like an agent.

`decide_orders(observation, controller)` is the entry point the game service calls for AI seats (with the
seat's Observation of the open month, kingdoms.views.observation); it returns a `Decision`: the month's
orders (short syntax, one a line) and an optional chronicle note. An AI never sees the game state.
Controllers are named "ai:LEVEL" (plain "ai" means the default level, `standard`).

Levels:
- `passive` (kingdoms.ai.passive): grows, walls its cities, keeps a spearman garrison, never attacks.
- `standard` (kingdoms.ai.standard): expands, raises a mixed army, takes the Ruin and rival cities.
- `hard` (kingdoms.ai.hard): planners over the engine's own forecasts; scouts and spies, surprise attacks on
  weak capitals, sieges fed by wagons, garrisons sized to the threat it sees, the race for the lead.
"""

from __future__ import annotations

from collections.abc import Callable

from kingdoms.ai import hard, passive, standard
from kingdoms.ai.common import Decision
from kingdoms.views.observation import Observation

DEFAULT_LEVEL = "standard"

#: AI levels by name: each takes the kingdom's Observation and returns the month's Decision.
LEVELS: dict[str, Callable[[Observation], Decision]] = {
    "passive": passive.decide,
    "standard": standard.decide,
    "hard": hard.decide,
}


def level_of(controller: str) -> str:
    """The AI level named by a seat controller ("ai", "ai:passive" ...); raises ValueError if unknown."""
    _, _, level = controller.partition(":")
    level = level or DEFAULT_LEVEL
    if level not in LEVELS:
        raise ValueError(f"unknown AI level {level!r}; levels: {', '.join(sorted(LEVELS))}")
    return level


def decide_orders(obs: Observation, controller: str) -> Decision:
    """The AI seat's orders (and chronicle note) for the observed month."""
    return LEVELS[level_of(controller)](obs)


__all__ = ["DEFAULT_LEVEL", "LEVELS", "Decision", "decide_orders", "level_of"]
