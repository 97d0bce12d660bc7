"""Generals: command, reach, swaps, capture and defection, XP and levels, new arrivals (GEN-010..120).

A general either leads one troop (`General.unit_id`, mirrored by `Unit.general_id`) or waits in a city of
his kingdom (`General.city_id`); he moves only with his troop (GEN-020). Other areas call in here:
combat calls `troop_destroyed` and `add_general_xp`, movement calls `release_general` when a merge
drops a general, sieges call `city_fell`, elimination calls `lose_generals`.
"""

from __future__ import annotations

from kingdoms import ruledata as rd
from kingdoms.engine.context import MonthContext, OrderFailed
from kingdoms.engine.pathing import is_armed
from kingdoms.engine.registry import phase, verb
from kingdoms.engine.visibility import own_units_text, require_own_unit
from kingdoms.hexgrid import Tile, distance, fmt_tile
from kingdoms.state import City, GameState, General, Unit, side_name

# --- lookups ----------------------------------------------------------------------------------------------


def general_of(state: GameState, unit: Unit) -> General | None:
    """The general leading `unit`, if any."""
    return state.generals.get(unit.general_id) if unit.general_id is not None else None


def general_position(state: GameState, general: General) -> Tile | None:
    """Where a general is: his troop's tile, or the city he waits in (GEN-020); None if he is nowhere."""
    if general.unit_id is not None:
        unit = state.units.get(general.unit_id)
        if unit is not None:
            return unit.tile
    if general.city_id is not None:
        city = state.cities.get(general.city_id)
        if city is not None:
            return city.tile
    return None


def general_bonus(state: GameState, unit: Unit, holding_city: bool) -> float:
    """Strength factor of a troop's general: x(1 + 0.1 x level), or x(1 + 0.15 x level) holding its city (GEN-110)."""
    general = general_of(state, unit)
    if general is None:
        return 1.0
    per_level = rd.GENERAL_CITY if holding_city else rd.GENERAL_FIELD
    return 1.0 + per_level * general.level


def general_effect(general: General) -> str:
    """One line for the briefing: level, XP, next level and what he does at this level (GEN-120)."""
    level = general.level
    nxt = next((t for t in rd.GENERAL_XP_LEVELS if general.xp < t), None)
    progress = f"level {level + 1} at {nxt} XP" if nxt is not None else "highest level"
    field_f = 1.0 + rd.GENERAL_FIELD * level
    city_f = 1.0 + rd.GENERAL_CITY * level
    return (f"General {general.name}: level {level}, XP {general.xp} ({progress}); his troop fights x{field_f:.2f}, "
            f"x{city_f:.2f} as the garrison of a city it holds")


def _describe_post(state: GameState, general: General) -> str:
    """Where a general is, as a short phrase for texts."""
    if general.unit_id is not None and general.unit_id in state.units:
        unit = state.units[general.unit_id]
        return f"leads #{unit.id} {unit.type} at {fmt_tile(unit.tile)}"
    if general.city_id is not None and general.city_id in state.cities:
        city = state.cities[general.city_id]
        return f"waits in {city.name} {fmt_tile(city.tile)}"
    return "has no post"


def _roster(state: GameState, kingdom: str) -> str:
    """Every general of a kingdom with id, level and post, for refusal texts."""
    gens = sorted((g for g in state.generals.values() if g.owner == kingdom), key=lambda g: g.id)
    if not gens:
        return "you have no generals"
    return "your generals: " + "; ".join(f"#{g.id} {g.name} (L{g.level}, {_describe_post(state, g)})" for g in gens)


def _tile_key(tile: Tile, origin: Tile) -> tuple[int, int, int]:
    """Nearest first, then lowest r, then lowest q (OPEN-74)."""
    return (distance(origin, tile), tile[1], tile[0])


def _leaderless_troops(state: GameState, owner: str, tile: Tile, reach: int | None,
                       exclude: set[int]) -> list[Unit]:
    """Own fighting troops without a general, within `reach` of `tile` (any distance if None), nearest first."""
    found = [u for u in state.units.values()
             if u.owner == owner and u.spec.fighting and u.men > 0 and u.general_id is None and u.id not in exclude
             and (reach is None or distance(tile, u.tile) <= reach)]
    return sorted(found, key=lambda u: (*_tile_key(u.tile, tile), u.id))


def _own_cities(state: GameState, owner: str, tile: Tile, reach: int | None, exclude: set[int]) -> list[City]:
    """Cities of `owner` within `reach` of `tile` (any distance if None), nearest first."""
    found = [c for c in state.cities.values()
             if c.owner == owner and c.id not in exclude and (reach is None or distance(tile, c.tile) <= reach)]
    return sorted(found, key=lambda c: (*_tile_key(c.tile, tile), c.id))


# --- creating and placing generals --------------------------------------------------------------------------


def next_general_name(state: GameState, owner: str) -> str:
    """The next unused name on the kingdom's general list; numbered once the list runs out."""
    kd = state.kingdoms[owner]
    taken = {g.name for g in state.generals.values()}
    while kd.generals_used < len(kd.general_names):
        name = kd.general_names[kd.generals_used]
        kd.generals_used += 1
        if name not in taken:
            return name
    kd.generals_used += 1
    return f"{kd.name} General {kd.generals_used}"


def new_general(state: GameState, owner: str, *, unit_id: int | None = None, city_id: int | None = None,
                name: str | None = None) -> General:
    """Create a level-1 general (0 XP) leading `unit_id` or waiting in `city_id` (GEN-070, GEN-080, OPEN-77)."""
    general = General(id=state.new_id(), owner=owner, name=name or next_general_name(state, owner), xp=0)
    state.generals[general.id] = general
    if unit_id is not None:
        _lead(state, general, state.units[unit_id])
    elif city_id is not None:
        general.city_id = city_id
    return general


def _lead(state: GameState, general: General, unit: Unit) -> None:
    """Put a general at the head of a troop (his old post is left as it is)."""
    general.unit_id = unit.id
    general.city_id = None
    unit.general_id = general.id


def _wait_in(general: General, city: City) -> None:
    general.unit_id = None
    general.city_id = city.id


def _detach(state: GameState, general: General) -> int | None:
    """Take a general off his troop or city; returns the id of the troop he led, if any."""
    old_unit = general.unit_id
    if old_unit is not None:
        unit = state.units.get(old_unit)
        if unit is not None and unit.general_id == general.id:
            unit.general_id = None
    general.unit_id = None
    general.city_id = None
    return old_unit


def _lose(ctx: MonthContext, general: General, why: str) -> str:
    """Remove a general from the game and tell his kingdom."""
    _detach(ctx.state, general)
    ctx.state.generals.pop(general.id, None)
    ctx.emit("general_lost", f"General {general.name} is lost: {why}.", [general.owner], general_id=general.id)
    return "lost"


def release_general(ctx: MonthContext, general_id: int, tile: Tile, *, exclude_unit: int | None = None,
                    exclude_city: int | None = None) -> str:
    """A general leaves his troop or city at `tile` for the nearest own leaderless troop, else city, within 2 (GEN-060).

    With neither in reach he is lost. Returns where he went ("leads #n", "waits in City" or "lost").
    `exclude_unit` / `exclude_city` name a troop or city he may not go to (the one being destroyed or lost).
    """
    state = ctx.state
    general = state.generals.get(general_id)
    if general is None:
        return "lost"
    old_unit = _detach(state, general)
    skip_units = {u for u in (exclude_unit, old_unit) if u is not None}
    skip_cities = {exclude_city} if exclude_city is not None else set()
    troops = _leaderless_troops(state, general.owner, tile, rd.GENERAL_REACH, skip_units)
    if troops:
        _lead(state, general, troops[0])
        text = f"leads #{troops[0].id} {troops[0].type} at {fmt_tile(troops[0].tile)}"
    else:
        cities = _own_cities(state, general.owner, tile, rd.GENERAL_REACH, skip_cities)
        if not cities:
            return _lose(ctx, general, f"no troop without a general and no city of yours within "
                                       f"{rd.GENERAL_REACH} tiles of {fmt_tile(tile)}")
        _wait_in(general, cities[0])
        text = f"waits in {cities[0].name}"
    ctx.emit("general_moved", f"General {general.name} {text}.", [general.owner], general_id=general.id)
    return text


def _defect(ctx: MonthContext, general: General, captor: str, tile: Tile, by_unit: Unit | None,
            fallen: City | None = None) -> str:
    """A captured general joins the captor: the destroying troop, else a leaderless troop within 2, else a city (OPEN-40).

    `fallen` is a city changing hands to the captor right now: it counts as the captor's (its nearest city).
    """
    state = ctx.state
    old_owner = general.owner
    _detach(state, general)
    general.owner = captor
    post: str
    if (by_unit is not None and by_unit.owner == captor and by_unit.id in state.units and by_unit.spec.fighting
            and by_unit.general_id is None):
        _lead(state, general, by_unit)
        post = f"leads #{by_unit.id} {by_unit.type} at {fmt_tile(by_unit.tile)}"
    else:
        troops = _leaderless_troops(state, captor, tile, rd.GENERAL_REACH, set())
        if troops:
            _lead(state, general, troops[0])
            post = f"leads #{troops[0].id} {troops[0].type} at {fmt_tile(troops[0].tile)}"
        else:
            cities = _own_cities(state, captor, tile, None, set())
            if fallen is not None and fallen.id in state.cities:
                cities = sorted({c.id: c for c in [*cities, fallen]}.values(),
                                key=lambda c: (*_tile_key(c.tile, tile), c.id))
            if not cities:
                general.owner = old_owner
                return _lose(ctx, general, f"captured at {fmt_tile(tile)} with nowhere to serve his captors")
            _wait_in(general, cities[0])
            post = f"waits in {cities[0].name}"
    captor_name = side_name(state, captor)
    loser_name = side_name(state, old_owner)
    ctx.emit("general_defected", f"General {general.name} was captured at {fmt_tile(tile)} and defected to {captor_name}.",
             [old_owner], general_id=general.id)
    ctx.emit("general_defected", f"General {general.name} of {loser_name}, captured at {fmt_tile(tile)}, defects to you "
             f"and {post}.", [captor], general_id=general.id)
    return "defected"


def _capturing_kingdom(state: GameState, loser: str, by_kingdom: str | None) -> str | None:
    """The kingdom that may capture a general: another living kingdom, never bandits (OPEN-40)."""
    if by_kingdom is None or by_kingdom == loser or by_kingdom == rd.BANDITS:
        return None
    kd = state.kingdoms.get(by_kingdom)
    if kd is None or kd.eliminated:
        return None
    return by_kingdom


def troop_destroyed(ctx: MonthContext, unit: Unit, by_kingdom: str | None, *, by_unit: Unit | None = None) -> str | None:
    """A troop is destroyed: its general is captured 40% of the time when another kingdom did it, else released.

    GEN-050, GEN-060, OPEN-40: bandits, hunger or desertion never capture. Call before or after removing the unit
    from the state. Returns what became of the general ("defected", "leads #n", "waits in X", "lost") or None.
    """
    general = general_of(ctx.state, unit)
    if general is None:
        return None
    captor = _capturing_kingdom(ctx.state, unit.owner, by_kingdom)
    if captor is not None and ctx.rng("general_capture").random() < rd.GENERAL_DEFECT_CHANCE:
        return _defect(ctx, general, captor, unit.tile, by_unit)
    return release_general(ctx, general.id, unit.tile, exclude_unit=unit.id)


def city_fell(ctx: MonthContext, city: City, old_owner: str, by_kingdom: str | None) -> list[str]:
    """Generals of `old_owner` waiting in a fallen city are captured (40%, defecting) or escape (GEN-090, CONQ-090).

    Call it before or after the city changes owner; `by_kingdom` None (revolt, bandits) means nobody captures.
    A captured general with no leaderless captor troop within 2 tiles waits in the fallen city itself (OPEN-40).
    """
    results: list[str] = []
    waiting = sorted((g for g in ctx.state.generals.values() if g.city_id == city.id and g.owner == old_owner),
                     key=lambda g: g.id)
    captor = _capturing_kingdom(ctx.state, old_owner, by_kingdom)
    for general in waiting:
        if captor is not None and ctx.rng("general_capture").random() < rd.GENERAL_DEFECT_CHANCE:
            results.append(_defect(ctx, general, captor, city.tile, None, city))
        else:
            results.append(release_general(ctx, general.id, city.tile, exclude_city=city.id))
    return results


def lose_generals(ctx: MonthContext, kingdom: str) -> None:
    """Every general of an eliminated kingdom is lost (OPEN-40)."""
    for general in sorted((g for g in ctx.state.generals.values() if g.owner == kingdom), key=lambda g: g.id):
        _lose(ctx, general, "his kingdom has fallen")


def add_general_xp(state: GameState, unit: Unit) -> None:
    """+1 XP to the general of a troop that fought (attacking or attacked) (GEN-100)."""
    general = general_of(state, unit)
    if general is not None:
        general.xp += 1


# --- assign_general (GEN-030, GEN-040) ----------------------------------------------------------------------


def _in_reach_text(state: GameState, general: General, pos: Tile) -> str:
    """The general's own troops within 2 tiles of him, for refusal texts."""
    near = sorted((u for u in state.units.values()
                   if u.owner == general.owner and u.spec.fighting and u.id != general.unit_id
                   and distance(pos, u.tile) <= rd.GENERAL_REACH),
                  key=lambda u: (*_tile_key(u.tile, pos), u.id))
    if not near:
        return f"no troop of yours is within {rd.GENERAL_REACH} tiles of him"
    return "troops within his reach: " + ", ".join(f"#{u.id} {u.type} {fmt_tile(u.tile)}" for u in near)


def _check_assign(ctx: MonthContext, kingdom: str, order) -> None:
    state = ctx.state
    general = state.generals.get(order.general_id)
    if general is None or general.owner != kingdom:
        raise OrderFailed("unknown_general", f"you have no general #{order.general_id}; {_roster(state, kingdom)}")
    pos = general_position(state, general)
    unit = require_own_unit(state, kingdom, order.unit_id, accept=is_armed, near=pos, what="troops")
    if not unit.spec.fighting:
        raise OrderFailed("not_a_troop", f"#{unit.id} is a {unit.type}: generals lead fighting troops only; "
                                         + own_units_text(state, kingdom, accept=is_armed, near=pos, what="troops"))
    if pos is None:
        raise OrderFailed("general_unavailable", f"General {general.name} has no post to leave from; "
                                                 f"{_roster(state, kingdom)}")
    if distance(pos, unit.tile) > rd.GENERAL_REACH:
        raise OrderFailed(
            "out_of_reach",
            f"General {general.name} at {fmt_tile(pos)} is {distance(pos, unit.tile)} tiles from #{unit.id} at "
            f"{fmt_tile(unit.tile)}; he reaches troops within {rd.GENERAL_REACH} tiles ({_in_reach_text(state, general, pos)})"
            f": bring the two closer first")


@verb("assign_general", check=_check_assign)
def run_assign_general(ctx: MonthContext, kingdom: str, order) -> str:
    """assign_general general=ID unit=ID: he takes the troop at once; its old general takes his old post (GEN-030, GEN-040).

    A troop has one general at most (GEN-010)."""
    _check_assign(ctx, kingdom, order)
    state = ctx.state
    general = state.generals[order.general_id]
    unit = state.units[order.unit_id]
    if unit.general_id == general.id:
        return f"General {general.name} already leads #{unit.id}"
    from_unit = state.units.get(general.unit_id) if general.unit_id is not None else None
    from_city = state.cities.get(general.city_id) if general.city_id is not None else None
    old = general_of(state, unit)
    _detach(state, general)
    if old is not None:
        _detach(state, old)
    _lead(state, general, unit)
    text = f"General {general.name} takes command of #{unit.id} {unit.type} at {fmt_tile(unit.tile)}"
    if old is not None:
        if from_unit is not None:
            _lead(state, old, from_unit)
            text += f"; General {old.name} takes his place with #{from_unit.id}"
        elif from_city is not None:
            _wait_in(old, from_city)
            text += f"; General {old.name} takes his place in {from_city.name}"
    return text


# --- new generals (GEN-070, OPEN-77) ---------------------------------------------------------------------


def general_arrives(month: int) -> bool:
    """True when a new general arrives at the start of `month`: months 19, 37, 55... (OPEN-77)."""
    return month > 1 and (month - 1) % rd.NEW_GENERAL_EVERY == 0


@phase("generals")
def new_generals_phase(ctx: MonthContext) -> None:
    """At the end of months 18, 36, 54..., a level-1 general arrives in each living kingdom's capital (GEN-070)."""
    state = ctx.state
    if not general_arrives(state.month + 1):
        return
    for kid in sorted(state.kingdoms):
        kd = state.kingdoms[kid]
        capital = state.cities.get(kd.capital_id) if kd.capital_id is not None else None
        if kd.eliminated or capital is None or capital.owner != kid:
            continue
        general = new_general(state, kid, city_id=capital.id)
        ctx.emit("general_arrived",
                 f"A new general, {general.name} (#{general.id}, level 1), arrives in {capital.name}: "
                 f"assign_general general={general.id} unit=ID puts him at the head of a troop within "
                 f"{rd.GENERAL_REACH} tiles.", [kid], general_id=general.id)
