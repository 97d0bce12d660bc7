"""Founding cities and the land they hold: legality, the founding ring, names (CITY-320..440).

Shared by game set-up (capitals, the Ruin) and the found_city order, so a scenario's capital and a
colonists' city are made by the same code.
"""

from __future__ import annotations

from kingdoms import ruledata as rd
from kingdoms.state import City, GameState

#: `GameState.owner` holds a city id per tile, or FREE. A kingdom's believed board (engine/belief.py) may also
#: hold a HOLDER CODE (below -1): land it sees whose city it does not know, marked with the holder it sees.
FREE = -1


def _holders_in_order(state: GameState) -> list[str]:
    return [*sorted(state.kingdoms), rd.BANDITS]


def holder_code(state: GameState, holder: str) -> int:
    """The code (below -1) marking, on a believed board, land of `holder` whose city the kingdom does not know."""
    return -2 - _holders_in_order(state).index(holder)


def holder_codes(state: GameState, holders: list[str]) -> list[int]:
    """`holder_code` of each of `holders`, in their order (the holders' order made once)."""
    names = _holders_in_order(state)
    return [-2 - names.index(holder) for holder in holders]


def land_holder(state: GameState, i: int) -> str | None:
    """Who holds flat index i: the owner of the city whose land it is, or the holder a believed board marks it
    with (a kingdom id or "bandits"); None when free or unknown (CITY-280)."""
    cid = int(state.owner[i])
    if cid >= 0:
        city = state.cities.get(cid)
        return city.owner if city is not None else None
    if cid == FREE:
        return None
    names = _holders_in_order(state)
    k = -2 - cid
    return names[k] if 0 <= k < len(names) else None


def _land_name(state: GameState, i: int) -> str:
    """'Chengdu', or the holder's name for land whose city the board does not know, for refusals."""
    cid = int(state.owner[i])
    city = state.cities.get(cid) if cid >= 0 else None
    if city is not None:
        return city.name
    holder = land_holder(state, i)
    kd = state.kingdoms.get(holder) if holder is not None else None
    return f"a city of {kd.name if kd is not None else holder}" if holder is not None else "another city"


def founding_problem(state: GameState, q: int, r: int) -> str | None:
    """Why a city cannot be founded on (q, r), or None when it can (CITY-320, VIC-120, OPEN-64)."""
    gm = state.map
    i = gm.index(q, r)
    if i < 0:
        return gm.off_map_text(q, r)
    terrain = rd.TERRAINS[int(gm.terrain[i])]
    if terrain.code in (rd.M, rd.W):
        return f"({q},{r}) is {terrain.name}: cities stand on grassland, plains, forest or hills"
    if state.owner[i] != FREE:
        return f"({q},{r}) is land of {_land_name(state, i)}: found on unclaimed land"
    for j in gm.nbr[i]:
        if j >= 0 and state.owner[j] != FREE:
            return (f"({q},{r}) touches land of {_land_name(state, int(j))} at {gm.tile(int(j))}: none of the 6 tiles "
                    "around may belong to a city")
    return None


def founding_ring(state: GameState, q: int, r: int) -> list[int]:
    """Flat indices a city founded on (q, r) would take: centre, free neighbouring land and shore (CITY-330)."""
    gm = state.map
    i = gm.index(q, r)
    ring = [i]
    for j in gm.nbr[i]:
        if j >= 0 and state.owner[j] == FREE:
            ring.append(int(j))
    return ring


def found_city(state: GameState, owner: str, q: int, r: int, people: int, grain: float, *,
               name: str | None = None, founder: str | None = None, capital: bool = False) -> City:
    """Create a city on (q, r) with its founding ring; the name comes from the owner's list when not given.

    A new city has no walls (SIEGE-010): durability 0 until a palisade is built."""
    kd = state.kingdoms.get(owner)
    if name is None:
        if kd is None:
            raise ValueError("a city without a kingdom needs a name")
        name = next_city_name(state, owner)
    city = City(id=state.new_id(), name=name, owner=owner, founder=founder if founder is not None else (
        owner if kd is not None else None), q=q, r=r, people=people, grain=float(grain), is_capital=capital,
        founded_month=state.month)
    city.militia = float(rd.full_militia(people, capital, state.month))  # a new city's militia stands full (SIEGE-060)
    state.cities[city.id] = city
    for j in founding_ring(state, q, r):
        state.owner[j] = city.id
    if capital and kd is not None:
        kd.capital_id = city.id
    return city


def next_city_name(state: GameState, owner: str) -> str:
    """The next unused name on the kingdom's list (CITY-430); numbered once the list runs out."""
    kd = state.kingdoms[owner]
    taken = {c.name for c in state.cities.values()}
    while kd.names_used < len(kd.city_names):
        name = kd.city_names[kd.names_used]
        kd.names_used += 1
        if name not in taken:
            return name
    kd.names_used += 1
    return f"{kd.name} {kd.names_used}"
