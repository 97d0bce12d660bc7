"""One-line cautions on orders at issue time: what the rules do quietly that a ruler should hear of.

The issue-time check (engine.month, on the kingdom's believed board) takes a `snapshot` before each new order
and asks `after_order` what changed: an order that leaves a restless own city with fewer men on its land than
it needs to be held down (CONQ-040: it may revolt), or a move aimed at a tile out of the kingdom's
sight (what stands there is learned only on arrival, INTEL-010). Only what the kingdom knows is read: its own
troops and cities and its own sight.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from kingdoms import ruledata as rd
from kingdoms.engine.conquest import hold_down_needed, hold_down_present
from kingdoms.engine.context import MonthContext
from kingdoms.engine.sight import _city_kingdom_table, neighbourhood
from kingdoms.gamemap import GameMap
from kingdoms.hexgrid import fmt_tile, hex_len
from kingdoms.state import GameState


@dataclass(slots=True)
class Snapshot:
    """The men on each restless own city's land before an order (city id -> men)."""

    held: dict[int, int]


def snapshot(ctx: MonthContext, kingdom: str) -> Snapshot:
    """What `after_order` compares with: the men holding down each restless own city now."""
    state = ctx.state
    return Snapshot({c.id: hold_down_present(state, c) for c in state.cities.values()
                     if c.owner == kingdom and c.restless})


class SightNow:
    """The tiles in a kingdom's sight on a board as it stands when this is made (sight.compute_sight's `visible`,
    INTEL-010), asked one tile at a time: a check asks of a few tiles, and a whole mask costs more than they do.

    Kept: each own unit's, own city's and stationed spy's tile with its sight radius, and the own land (read at
    once, so later changes of the board change no answer, as a mask made now would not change).
    """

    __slots__ = ("_spots", "_land", "_border")

    def __init__(self, state: GameState, kingdom: str) -> None:
        gm = state.map
        spots: list[tuple[int, int, int]] = []  # (q, r, radius): a tile is in sight within radius of one
        kd = state.kingdoms.get(kingdom)
        alive = kd is not None and not kd.eliminated
        if alive:
            for unit in state.units.values():
                if unit.owner != kingdom or gm.index(unit.q, unit.r) < 0:
                    continue
                kind = unit.type if unit.type in ("scout", "spy") else "troop"
                spots.append((unit.q, unit.r, rd.SIGHT[kind]))
            for city in state.cities.values():
                if city.owner == kingdom:
                    spots.append((*gm.tile(gm.index(city.q, city.r)), rd.SIGHT["troop"]))
            for agent in state.spies:
                inside = state.cities.get(agent.city_id)
                if agent.owner == kingdom and inside is not None and inside.owner != agent.owner:
                    spots.append((*gm.tile(gm.index(inside.q, inside.r)), rd.SIGHT["city"]))
        land = np.zeros(gm.size + 1, dtype=bool)  # the last: where an off-the-map neighbour lands
        if alive:
            land[:-1] = _city_kingdom_table(state, [kingdom])[state.owner] == 0
        self._spots = spots
        self._land = land
        self._border = rd.SIGHT["border"]

    def sees(self, gm: GameMap, q: int, r: int) -> bool:
        """True when tile (q, r) is in sight (Sight.sees)."""
        i = gm.index(q, r)
        if i < 0:
            return False
        if any(hex_len(q - sq, r - sr) <= radius for sq, sr, radius in self._spots):
            return True
        return bool(self._land[neighbourhood(gm, self._border)[i]].any())


def _sight(ctx: MonthContext, kingdom: str) -> SightNow:
    """The kingdom's sight on the check's board when first asked, kept for the rest of the check."""
    got = ctx.__dict__.get("caution_sight")
    if got is None:
        got = ctx.__dict__["caution_sight"] = SightNow(ctx.state, kingdom)
    return got


def after_order(ctx: MonthContext, kingdom: str, before: Snapshot, order: Any) -> str:
    """'; WARNING: ...' lines for what the order just carried out (on the scratch board) did quietly."""
    state = ctx.state
    out: list[str] = []
    for cid, men in sorted(before.held.items()):
        city = state.cities.get(cid)
        if city is None or city.owner != kingdom or not city.restless:
            continue
        need = hold_down_needed(city)
        now = hold_down_present(state, city)
        if now < men and now < need:
            out.append(f"WARNING: it leaves restless {city.name} with {now:,} men on its land, under the {need:,} "
                       "that hold it down: it may revolt (CONQ-040)")
    to = getattr(order, "to", None) if getattr(order, "action", None) == "move" else None  # a miss is slow
    if isinstance(to, (tuple, list)) and len(to) == 2:
        unit = state.units.get(getattr(order, "unit_id", -1))
        gm = state.map
        if unit is not None and unit.type not in ("scout", "spy") and gm.index(to[0], to[1]) >= 0 and \
                not _sight(ctx, kingdom).sees(gm, to[0], to[1]):
            out.append(f"note: {fmt_tile((to[0], to[1]))} is out of your sight: what stands there now is found out "
                       "only on the way")
    return "".join(f"; {line}" for line in out)
