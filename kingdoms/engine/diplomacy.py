"""War and peace between kingdoms: declare_war, closed land at peace and border expulsion (DIPLO-010..130).

While two kingdoms are at peace, neither one's troops, wagons or colonists may enter the other's land
(any tile owned by one of its cities) or its army camps; scouts and spies pass freely (DIPLO-020).
`closed_by` answers whether a tile is closed to a kingdom (movement uses it to stop marches, DIPLO-030);
the "borders" phase moves units left on closed land to the nearest free tile outside it (DIPLO-040, OPEN-76).
"""

from __future__ import annotations

from kingdoms import ruledata as rd
from kingdoms.engine.context import MonthContext, OrderFailed
from kingdoms.engine.land import land_holder
from kingdoms.engine.pathing import Ground
from kingdoms.engine.registry import phase, verb
from kingdoms.hexgrid import Tile, distance, fmt_tile
from kingdoms.state import GameState, Unit


def resolve_kingdom(state: GameState, name: str) -> str | None:
    """Kingdom id named by a ruler, kingdom name or id, case-insensitive (TOOLS-180)."""
    key = name.strip().casefold()
    for kid, kd in state.kingdoms.items():
        if key in (kid.casefold(), kd.name.casefold(), kd.ruler.casefold()):
            return kid
    return None


def start_war(ctx: MonthContext, a: str, b: str, how: str) -> None:
    """Open war between a and b and announce it to every kingdom (DIPLO-050, DIPLO-130).

    Only declare_war and a surprise attack carried out call it (DIPLO-100); nothing ever ends a war (DIPLO-120),
    and kingdoms deal with each other through no other act (DIPLO-140)."""
    pair = sorted((a, b))
    if pair in ctx.state.wars:
        return
    ctx.state.wars.append(pair)
    ctx.state.wars.sort()
    ka, kb = ctx.state.kingdoms[a], ctx.state.kingdoms[b]
    ctx.emit("war", f"WAR: {ka.name} ({ka.ruler}) {how} {kb.name} ({kb.ruler}).", None, attacker=a, defender=b)


def _check_declare(ctx: MonthContext, kingdom: str, order) -> None:
    target = resolve_kingdom(ctx.state, order.to)
    names = ", ".join(f"{kd.name} ({kd.ruler})" for k, kd in ctx.state.kingdoms.items() if k != kingdom and not kd.eliminated)
    if target is None:
        raise OrderFailed("unknown_kingdom", f"no kingdom or ruler called {order.to!r}; rivals: {names}")
    if target == kingdom:
        raise OrderFailed("own_kingdom", f"{order.to!r} is your own kingdom; rivals: {names}")
    if ctx.state.kingdoms[target].eliminated:
        raise OrderFailed("eliminated", f"{ctx.state.kingdoms[target].name} has already fallen; rivals: {names}")


@verb("declare_war", check=_check_declare)
def run_declare_war(ctx: MonthContext, kingdom: str, order) -> str:
    """declare_war to=NAME: war at once, announced to all; already at war is a harmless repeat."""
    _check_declare(ctx, kingdom, order)
    target = resolve_kingdom(ctx.state, order.to)
    assert target is not None
    if ctx.state.at_war(kingdom, target):
        return f"already at war with {ctx.state.kingdoms[target].name}"
    start_war(ctx, kingdom, target, "declares war on")
    return f"war declared on {ctx.state.kingdoms[target].name}"


# --- closed land at peace (DIPLO-020..040) ----------------------------------------------------------------


def closed_by(state: GameState, kingdom: str, q: int, r: int) -> str | None:
    """The kingdom whose land or camp on (q, r) is closed to `kingdom` (at peace with it), else None (DIPLO-020).

    Bandit land is never closed (bandits are at war with everyone); a kingdom's own land is open to it.
    """
    for holder in _holders(state, q, r):
        if holder != kingdom and holder in state.kingdoms and not state.at_war(kingdom, holder):
            return holder
    return None


def _holders(state: GameState, q: int, r: int) -> list[str]:
    """Kingdoms (or bandits) holding (q, r): the owner of the city whose land it is, and of a camp on it."""
    out: list[str] = []
    i = state.map.index(q, r)
    holder = land_holder(state, i) if i >= 0 else None
    if holder is not None:
        out.append(holder)
    out.extend(c.owner for c in state.camps.values() if (c.q, c.r) == (q, r))
    return out


def crosses_borders(unit: Unit) -> bool:
    """Scouts and spies may cross closed borders; troops, wagons and colonists may not (DIPLO-020, INTEL-210)."""
    return unit.spec.kind == "agent"


def expulsion_tile(state: GameState, unit: Unit, closer: str) -> Tile | None:
    """Nearest free tile outside the closed land, reached without crossing other closed land (OPEN-76).

    Breadth-first over passable tiles from the unit, through `closer`'s land and open tiles; among the nearest
    free tiles the one nearest a city of the unit's kingdom, then lowest r, then lowest q. None if there is none.
    A free tile is one a march of the unit may end on (pathing.Ground.endable: passable, no river crossing, no
    foreign city or unit, its stacking slot free, MOVE-110, MOVE-290, OPEN-65, OPEN-67).
    """
    gm = state.map
    ground = Ground(state, unit)
    start = gm.index(unit.q, unit.r)
    own_cities = [c.tile for c in state.cities.values() if c.owner == unit.owner]
    seen = {start}
    frontier = [start]
    while frontier:
        found: list[Tile] = []
        nxt: list[int] = []
        for i in frontier:
            for j in gm.nbr[i]:
                j = int(j)
                if j < 0 or j in seen or gm.move_cost[j] <= 0:
                    continue
                seen.add(j)
                q, r = gm.tile(j)
                holder = closed_by(state, unit.owner, q, r)
                if holder is not None and holder != closer:
                    continue
                nxt.append(j)
                if holder is None and ground.endable(j):
                    found.append((q, r))
        if found:
            return min(found, key=lambda t: (min((distance(t, c) for c in own_cities), default=0), t[1], t[0]))
        frontier = nxt
    return None


@phase("borders")
def expel_from_closed_land(ctx: MonthContext) -> None:
    """Units standing on land (or a camp) closed to them are moved to the nearest free tile outside (DIPLO-040)."""
    state = ctx.state
    for unit in sorted(state.units.values(), key=lambda u: u.id):
        if crosses_borders(unit) or unit.owner not in state.kingdoms:
            continue
        closer = closed_by(state, unit.owner, unit.q, unit.r)
        if closer is None:
            continue
        land = state.kingdoms[closer].name
        dest = expulsion_tile(state, unit, closer)
        if dest is None:
            ctx.emit("border_stuck", f"#{unit.id} {unit.type} stands on land of {land}, with whom you are at peace, "
                     f"and has no free tile outside it to go to.", [unit.owner], unit_id=unit.id)
            continue
        origin = unit.tile
        unit.q, unit.r = dest
        unit.fortified = False
        ctx.emit("border_expelled", f"#{unit.id} {unit.type} was on land of {land}, closed to you at peace: it moves from "
                 f"{fmt_tile(origin)} to {fmt_tile(dest)}, the nearest free tile outside.", [unit.owner],
                 unit_id=unit.id, origin=list(origin), dest=list(dest))


def at_war_with(state: GameState, kingdom: str) -> list[str]:
    """Kingdoms `kingdom` is at war with, sorted (bandits not included)."""
    return sorted(k for k in state.kingdoms if k != kingdom and k != rd.BANDITS and state.at_war(kingdom, k))
