"""Disbanding a troop: home as people where a city's land has room, else scattered (RECRUIT-210, OPEN-33)."""

from __future__ import annotations

from kingdoms.engine.context import MonthContext, OrderFailed
from kingdoms.engine.economy import carrying_capacity
from kingdoms.engine.generals import release_general
from kingdoms.engine.pathing import is_armed
from kingdoms.engine.registry import verb
from kingdoms.engine.visibility import require_own_unit
from kingdoms.hexgrid import distance, fmt_tile
from kingdoms.state import City, GameState, Unit


def headroom(state: GameState, city: City) -> int:
    """People the city can still take in: max(0, carrying capacity (CITY-150) - people) (OPEN-33)."""
    return max(0, carrying_capacity(state, city) - city.people)


def home_city(state: GameState, unit: Unit) -> City | None:
    """The own city a disbanded troop goes home to: the one it stands in, else the adjacent one with most headroom (OPEN-33)."""
    here = state.city_at(*unit.tile)
    if here is not None and here.owner == unit.owner:
        return here
    near = [c for c in state.cities.values() if c.owner == unit.owner and distance(c.tile, unit.tile) == 1]
    if not near:
        return None
    return min(near, key=lambda c: (-headroom(state, c), c.r, c.q, c.id))


def _check_disband(ctx: MonthContext, kingdom: str, order) -> None:
    unit = require_own_unit(ctx.state, kingdom, order.unit_id, accept=is_armed, what="troops")
    if not unit.spec.fighting:
        raise OrderFailed("not_a_troop", f"#{unit.id} is a {unit.type}: only fighting troops are disbanded "
                                         f"(a {unit.type} needs no upkeep)")


@verb("disband", check=_check_disband)
def run_disband(ctx: MonthContext, kingdom: str, order) -> str:
    """disband unit=ID: in or beside an own city the men its land can feed go home as people; the rest scatter (RECRUIT-210)."""
    _check_disband(ctx, kingdom, order)
    state = ctx.state
    unit = state.units[order.unit_id]
    city = home_city(state, unit)
    home = min(unit.men, headroom(state, city)) if city is not None else 0
    scattered = unit.men - home
    if city is not None:
        city.people += home
    general_id = unit.general_id
    state.units.pop(unit.id, None)
    ctx.moves_left.pop(unit.id, None)
    text = f"#{unit.id} {unit.type} disbanded at {fmt_tile(unit.tile)}: "
    if city is not None:
        text += f"{home} men go home to {city.name}, {scattered} scatter"
    else:
        text += f"all {scattered} men scatter (no city of yours on or beside the tile)"
    if general_id is not None:
        general = state.generals.get(general_id)
        name = general.name if general is not None else f"#{general_id}"
        text += f"; General {name} {release_general(ctx, general_id, unit.tile, exclude_unit=unit.id)}"
    return text
