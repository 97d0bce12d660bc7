"""The passive AI: grows its cities, walls them, keeps a garrison; it never attacks.

It reads only its own cities (its own affairs are never fogged) and speaks the order language.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kingdoms.game import Game

#: What a passive city builds, in order, when its queue runs dry.
PLAN = ("palisade", "farm", "barracks", "walls", "granary", "farm", "spearman:1000", "farm")


def decide(game: Game, kingdom: str) -> str:
    """Refill empty build queues from the plan; leave everything else standing."""
    state = game.state()
    orders: list[str] = []
    for city in sorted(state.cities.values(), key=lambda c: c.id):
        if city.owner != kingdom or city.queue or city.restless:
            continue
        built = set(city.buildings) | {imp.kind for imp in city.improvements}
        for item in PLAN:
            name = item.split(":")[0]
            if name in ("palisade", "barracks", "walls", "granary") and name in built:
                continue
            orders.append(f"set_production city={city.id} queue={item}")
            break
    return "\n".join(orders)
