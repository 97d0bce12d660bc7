"""Games for the viewer tests: a short finished duel with a canary troop of Shu Han that Cao Wei never sees."""

from __future__ import annotations

from pathlib import Path

from kingdoms.game import Game
from kingdoms.hexgrid import distance
from kingdoms.setup import build_state, resolve_scenario
from kingdoms.state import GameState, Unit
from kingdoms.views.observation import observe

CANARY_ID = 987_654
CANARY_MEN = 977


def hidden_tiles(state: GameState, near: tuple[int, int], far_from: tuple[int, int]) -> list[tuple[int, int]]:
    """Open land tiles two or three steps from `near`, farthest from `far_from` first."""
    gm = state.map
    out = []
    for i in range(gm.size):
        t = gm.tile(i)
        if gm.move_cost[i] > 0 and not gm.river[i] and 2 <= distance(t, near) <= 3 and not state.units_at(*t):
            out.append(t)
    out.sort(key=lambda t: (-distance(t, far_from), t[1], t[0]))
    return out


def canary_game(path: Path, *, months: int = 8, canary_id: int = CANARY_ID, pick: int = 0, seed: int = 5,
                played: int | None = None, wei: str = "ai:passive") -> Game:
    """The duel scenario ending after `months` months, both rulers passive (they never march out), with a Shu Han
    spearman of CANARY_MEN men (id `canary_id`) by Chengdu; played to its end (or for `played` months; `wei`
    may be an agent seat, whose months the caller ends). Returns the open game."""
    state = build_state(resolve_scenario("duel"), seed)
    state.last_month = months
    shu = next(c for c in state.cities.values() if c.owner == "shu" and c.is_capital)
    xuchang = next(c for c in state.cities.values() if c.owner == "wei" and c.is_capital)
    q, r = hidden_tiles(state, shu.tile, xuchang.tile)[pick]
    state.units[canary_id] = Unit(canary_id, "shu", "spearman", q, r, men=CANARY_MEN, rations=12.0, fortified=True)
    game, tokens = Game.create(path, state, scenario="duel", controllers={"wei": wei, "shu": "ai:passive"})
    game.tokens = tokens  # type: ignore[attr-defined]  # the seats' tokens, for the /watch tests
    game.spectator = game.new_spectator_token()  # type: ignore[attr-defined]
    while not game.finished and (played is None or game.month <= played):
        game.play_ai_seats()
        if wei == "agent" and not game.finished:
            game.end_month("wei")
    return game


def canary_tile(game: Game, canary_id: int = CANARY_ID) -> tuple[int, int]:
    """Where the canary stands at the end."""
    return game.state().units[canary_id].tile


def wei_never_sees(game: Game, canary_id: int = CANARY_ID) -> bool:
    """The precondition of the fog tests: in no stored month does Cao Wei's observation hold the canary."""
    for key in sorted(game.store.month_hashes()):
        view = observe(game.state(key), "wei").view
        if view.unit(canary_id) is not None:
            return False
    return True
