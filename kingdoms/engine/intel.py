"""Espionage: station_spy and sabotage, counter-spies, catches, spy reports and each kingdom's memory (INTEL-*).

Verbs: `station_spy` (INTEL-110..130; a spy further away marches there as a standing order with the armies'
march, movement.py / pathing.py, slipping past every unit and closed border, INTEL-120, INTEL-210) and `sabotage` (INTEL-160, INTEL-170,
OPEN-39).
Phases: "spies" (lost agents of burned cities or fallen kingdoms; travelling spies caught, INTEL-190 /
OPEN-38; foreign spies unmasked by counter-spies, INTEL-180; monthly reports, INTEL-140, INTEL-100) and "memory"
(the last slot: each kingdom's explored tiles and last-seen foreign cities, troops and camps, MAP-190).
Sieges call `spies_captured` when a city falls (INTEL-200).

Kingdom.memory layout (plain JSON; keys of the dicts are ids as strings):
  explored  hex bitmask of explored tiles (sight.mask_to_hex)
  cities    {id: city record}  last seen foreign cities (visibility.city_record, with "month")
  units     {id: unit record}  last seen foreign field units (visibility.unit_record, with "month")
  camps     {id: camp record}  last seen foreign camps
  reports   {city id: report}  the latest spy report on each city (`city_report`)
  told      {"units": {id: {type, men, month}}, "cities": {id: {militia, month}}}  figures a fight's report told
            (visibility.note_told_unit / note_told_militia): previews start from them (COMBAT-410)
  month     the month the memory was last brought up to date
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kingdoms import ruledata as rd
from kingdoms.engine.context import MonthContext, OrderFailed
from kingdoms.engine.movement import Goal, march
from kingdoms.engine.pathing import Ground, Route, find_route
from kingdoms.engine.registry import phase, verb
from kingdoms.engine.sight import compute_sight, hex_to_mask, mask_to_hex
from kingdoms.engine.visibility import (
    city_troops,
    has_fresh_report,
    known_city_tile,
    own_units_text,
    require_known_city,
    require_own_unit,
    seen_now,
)
from kingdoms.hexgrid import Tile, distance, fmt_tile
from kingdoms.state import City, GameState, StationedSpy, Unit

Json = dict[str, Any]

# --- small lookups ----------------------------------------------------------------------------------------


def _kname(state: GameState, side: str) -> str:
    """Display name of a kingdom (or the bandits)."""
    kd = state.kingdoms.get(side)
    return kd.name if kd is not None else "the bandits"


def stationed(state: GameState, kingdom: str, city_id: int) -> list[StationedSpy]:
    """The kingdom's spies stationed in city `city_id`, oldest first."""
    return [s for s in state.spies if s.owner == kingdom and s.city_id == city_id]


def counter_spies(state: GameState, city: City) -> int:
    """Spies of the city's own owner stationed in it: its counter-spies (INTEL-180)."""
    return sum(1 for s in state.spies if s.city_id == city.id and s.owner == city.owner)


def unmask_chance(counters: int) -> float:
    """Chance that one foreign spy in a city is unmasked this month: 20% per counter-spy, at most 60% (INTEL-180)."""
    return min(rd.SPY_UNMASK_PER_COUNTER * max(counters, 0), rd.SPY_UNMASK_MAX)


def catch_chance(state: GameState, spy: Unit) -> tuple[float, str | None]:
    """(chance, catching kingdom) for a travelling spy this month (INTEL-190, OPEN-38); (0, None) off foreign land.

    1% on land of another kingdom's city (war or peace), +3% when next to (or on) one of that kingdom's troops,
    +5% for every counter-spy posted in one of that kingdom's cities no more than 2 tiles away.
    """
    gm = state.map
    i = gm.index(spy.q, spy.r)
    cid = int(state.owner[i]) if i >= 0 else -1
    land = state.cities.get(cid) if cid >= 0 else None
    if land is None or land.owner == spy.owner or land.owner not in state.kingdoms:
        return 0.0, None
    k = land.owner
    chance = rd.SPY_CATCH_BASE
    if any(u.owner == k and u.spec.fighting and distance(u.tile, spy.tile) <= 1 for u in state.units.values()):
        chance += rd.SPY_CATCH_NEAR_TROOP
    for city in state.cities.values():
        if city.owner == k and distance(city.tile, spy.tile) <= 2:
            chance += rd.SPY_CATCH_PER_COUNTER * counter_spies(state, city)
    return min(chance, 1.0), k


# --- the spy's march (INTEL-110, INTEL-120, INTEL-210) ------------------------------------------------------


def _goal(state: GameState, tile: Tile) -> Goal:
    """Where a spy bound for the city at `tile` can slip in from: the city tile and the tiles beside it."""
    gm = state.map
    centre = gm.index(*tile)
    return Goal({centre} | {int(j) for j in gm.nbr[centre] if j >= 0}, centre, radius=1)


def spy_route(state: GameState, spy: Unit, tile: Tile, moves_left: float) -> Route | None:
    """The spy's quickest route to a tile on or beside the city at `tile`, or None when there is none.

    The board's routing (pathing.py) lets a spy slip past every unit and cross closed borders (INTEL-120, INTEL-210,
    MOVE-320) while paying terrain and river crossings like anyone (MOVE-020, MOVE-270..300, OPEN-65, OPEN-66).
    """
    goal = _goal(state, tile)
    return find_route(Ground(state, spy), goal.tiles, moves_left=moves_left, centre=goal.centre, radius=goal.radius)


def _slip_in(ctx: MonthContext, spy: Unit, city: City) -> str:
    """The travelling spy goes inside `city` and stops being a unit (INTEL-110, INTEL-130)."""
    state = ctx.state
    del state.units[spy.id]
    ctx.moves_left.pop(spy.id, None)
    state.spies.append(StationedSpy(spy.owner, city.id, ctx.month))
    if city.owner == spy.owner:
        return f"spy #{spy.id} enters {city.name} as a counter-spy"
    return f"spy #{spy.id} slips into {city.name} ({_kname(state, city.owner)}); its reports begin this month"


def _is_spy(unit: Unit) -> bool:
    return unit.type == "spy"


def _check_station(ctx: MonthContext, kingdom: str, order: Any) -> None:
    """Issue-time check of station_spy: an own spy, a known city, a route there (INTEL-050, INTEL-110)."""
    state = ctx.state
    sight = compute_sight(state, [kingdom])[kingdom]
    near = known_city_tile(state, kingdom, order.city_id, sight)
    unit = require_own_unit(state, kingdom, order.unit_id, sight, accept=_is_spy, near=near, what="spies")
    if unit.type != "spy":
        spies = own_units_text(state, kingdom, accept=_is_spy, near=near, what="spies")
        if not any(u.owner == kingdom and _is_spy(u) for u in state.units.values()):
            spies += " (train one: add spy to a city's queue, set_production city=ID queue=...,spy)"
        raise OrderFailed("not_a_spy", f"unit #{unit.id} is a {unit.type}: only spies can be stationed in a city; "
                                       f"{spies}")
    tile = require_known_city(state, kingdom, order.city_id, sight, near=unit.tile)
    if distance(unit.tile, tile) > 1 and spy_route(state, unit, tile, ctx.moves(unit)) is None:
        raise OrderFailed("no_route", f"spy #{unit.id} at {fmt_tile(unit.tile)} has no land route to city "
                                      f"#{order.city_id} at {fmt_tile(tile)}")


@verb("station_spy", check=_check_station, standing=True)
def run_station_spy(ctx: MonthContext, kingdom: str, order: Any) -> str:
    """station_spy unit=ID city=ID: slip in from on or beside the city, else march there (INTEL-110..130)."""
    state = ctx.state
    _check_station(ctx, kingdom, order)
    unit = state.units[order.unit_id]
    tile = known_city_tile(state, kingdom, order.city_id)
    assert tile is not None
    city = state.cities.get(order.city_id)
    if city is None and _sees(state, kingdom, tile):
        raise OrderFailed("unknown_city", f"no city stands at {fmt_tile(tile)} any more")
    if distance(unit.tile, tile) <= 1 and city is not None:
        return _slip_in(ctx, unit, city)
    start = unit.tile
    went = march(ctx, unit, _goal(state, tile))  # the armies' march: spies slip past units and borders (MOVE-320)
    if went.route is None:
        raise OrderFailed("no_route", f"spy #{unit.id} has no land route to {fmt_tile(tile)}")
    if distance(unit.tile, tile) <= 1:
        if city is None:
            if ctx.scratch:  # a preview judges by the map as the kingdom knows it (COMBAT-380)
                return f"spy #{unit.id} would reach {fmt_tile(unit.tile)} this month and slip into city #{order.city_id}"
            raise OrderFailed("unknown_city", f"spy #{unit.id} reached {fmt_tile(tile)}: no city stands there any more")
        return _slip_in(ctx, unit, city)
    unit.standing = order.model_dump(mode="json")
    name = city.name if city is not None else f"city #{order.city_id}"
    more = went.route.months - 1
    return (f"spy #{unit.id} marches from {fmt_tile(start)} to {fmt_tile(unit.tile)} toward {name} at {fmt_tile(tile)}; "
            f"about {more} more month{'s' if more != 1 else ''} to slip inside")


def _sees(state: GameState, kingdom: str, tile: Tile) -> bool:
    """True when the kingdom has `tile` in sight now."""
    return compute_sight(state, [kingdom])[kingdom].sees(state.map, *tile)


# --- sabotage (INTEL-160, INTEL-170, OPEN-39) ---------------------------------------------------------------


def _spies_hint(state: GameState, kingdom: str) -> str:
    """Where the kingdom's spies hide in rival cities ("your spies are in: Chengdu #2 (13,7)"), for refusals."""
    where = sorted({s.city_id for s in state.spies if s.owner == kingdom and s.city_id in state.cities
                    and state.cities[s.city_id].owner != kingdom})
    if not where:
        return "you have no spy in a rival city"
    return "your spies are in: " + ", ".join(
        f"{state.cities[cid].name} #{cid} {fmt_tile(state.cities[cid].tile)}" for cid in where)


def _check_sabotage(ctx: MonthContext, kingdom: str, order: Any) -> None:
    """Issue-time check of sabotage: a spy of ours inside that foreign city, one sabotage a month (INTEL-160, INTEL-170)."""
    state = ctx.state
    city = state.cities.get(order.city_id)
    mine = stationed(state, kingdom, order.city_id)
    if not mine and known_city_tile(state, kingdom, order.city_id) is None:
        raise OrderFailed("unknown_city", f"there is no city #{order.city_id} on your map; sabotage needs one of "
                                          f"your spies stationed in the city; {_spies_hint(state, kingdom)}")
    if city is not None and city.owner == kingdom:
        raise OrderFailed("own_city", f"{city.name} is your own city: sabotage is for a rival's city where your spy "
                                      f"hides; {_spies_hint(state, kingdom)}")
    if not mine:  # judged without asking whether a remembered city still stands (COMBAT-380)
        raise OrderFailed("no_spy_in_city", f"you have no spy stationed in city #{order.city_id} (station_spy "
                                            f"first); {_spies_hint(state, kingdom)}")
    if city is None:
        raise OrderFailed("unknown_city", f"city #{order.city_id} is no more: your spy there is lost")
    if city.id in ctx.sabotaged:
        raise OrderFailed("already_sabotaged", f"{city.name} has already been sabotaged this month: one sabotage per "
                                               "city a month; your spy stays hidden")
    if order.target == "panic" and not city_troops(state, city):
        raise OrderFailed("no_garrison", f"{city.name} has no garrison to panic; burn its granary instead")


@verb("sabotage", check=_check_sabotage)
def run_sabotage(ctx: MonthContext, kingdom: str, order: Any) -> str:
    """sabotage city=ID target=granary|panic: a spy inside unmasks itself to burn half the grain or spread panic."""
    _check_sabotage(ctx, kingdom, order)
    state = ctx.state
    city = state.cities[order.city_id]
    spy = stationed(state, kingdom, city.id)[0]
    state.spies.remove(spy)
    ctx.sabotaged.add(city.id)
    if ctx.scratch:
        return _sabotage_preview(state, kingdom, city, order.target)
    me = _kname(state, kingdom)
    if order.target == "granary":
        burned = city.grain * rd.SABOTAGE_GRANARY_SHARE
        city.grain -= burned
        if city.owner in state.kingdoms:
            ctx.emit("sabotage", f"SABOTAGE: a spy of {me} burned half the granary of {city.name} ({burned:.1f} dan lost) "
                     "and was unmasked.", [city.owner], city_id=city.id, target="granary", by=kingdom)
        return f"your spy in {city.name} burned {burned:.1f} dan, half its granary, and is lost"
    lines = []
    for troop in city_troops(state, city):
        deserters = int(troop.men * rd.PANIC_DESERT + 0.5)
        troop.men -= deserters
        troop.morale = max(0.0, troop.morale - rd.PANIC_MORALE)
        lines.append(f"#{troop.id} {troop.type} lost {deserters:,} deserters, morale now {troop.morale:.0f}")
    if city.owner in state.kingdoms:
        ctx.emit("sabotage", f"SABOTAGE: a spy of {me} spread panic in {city.name}: " + "; ".join(lines) + ".",
                 [city.owner], city_id=city.id, target="panic", by=kingdom)
    return f"your spy spread panic in {city.name} and is lost: " + "; ".join(lines)


def _sabotage_preview(state: GameState, kingdom: str, city: City, target: str) -> str:
    """What a sabotage would do, from what the kingdom knows: its spies' last report on the city (INTEL-140, INTEL-160).

    The believed board holds no foreign grain and only estimated garrisons, so the figures come from the report;
    without one the amounts are said to be unknown.
    """
    rep = (state.kingdoms[kingdom].memory.get("reports") or {}).get(str(city.id))
    if target == "granary":
        if rep is None or rep.get("grain") is None:
            return (f"your spy in {city.name} would burn half its granary and be lost (how much grain it holds is "
                    "unknown: you have no spy report on it)")
        grain = float(rep["grain"])
        return (f"your spy in {city.name} would burn half its granary and be lost: about "
                f"{grain * rd.SABOTAGE_GRANARY_SHARE:.1f} dan of the {grain:.1f} your spy reported in M{rep['month']}")
    if rep is None or not has_fresh_report(state, kingdom, city.id):
        return (f"your spy in {city.name} would spread panic and be lost: every troop inside loses "
                f"{rd.PANIC_DESERT:.0%} of its men and {rd.PANIC_MORALE:g} morale (their numbers are unknown without a "
                "fresh spy report)")
    lines = [f"#{g['id']} {g['type']} would lose about {int(int(g['men']) * rd.PANIC_DESERT + 0.5):,} of "
             f"{int(g['men']):,} men" for g in rep.get("garrison") or ()]
    return (f"your spy in {city.name} would spread panic and be lost (by its report of M{rep['month']}): "
            + ("; ".join(lines) or "no troop was inside") + f"; the rest lose {rd.PANIC_MORALE:g} morale")


# --- spies captured when a city falls (INTEL-200) -----------------------------------------------------------


def spies_captured(ctx: MonthContext, city: City, loser: str) -> int:
    """The loser's spies inside a city that falls are captured (INTEL-200); returns how many were taken."""
    state = ctx.state
    taken = [s for s in state.spies if s.city_id == city.id and s.owner == loser]
    if not taken:
        return 0
    state.spies = [s for s in state.spies if not (s.city_id == city.id and s.owner == loser)]
    n = len(taken)
    what = f"{n} spy" if n == 1 else f"{n} spies"
    if loser in state.kingdoms:
        ctx.emit("spies_captured", f"{what} of yours in {city.name} were captured when the city fell.", [loser],
                 city_id=city.id, count=n)
    if city.owner in state.kingdoms and city.owner != loser:
        ctx.emit("spies_captured", f"Taking {city.name}, you captured {what} of {_kname(state, loser)} hiding there.",
                 [city.owner], city_id=city.id, count=n)
    return n


# --- reports (INTEL-140, INTEL-100) -------------------------------------------------------------------------


def _production(state: GameState, city: City) -> tuple[int | None, int | None]:
    """(production a month, granary capacity) of a city as its economy stands now (CITY-240, CITY-100)."""
    from kingdoms.engine import economy

    out = economy.city_output(state, city)
    return int(out.production), int(out.granary_cap)


def city_report(state: GameState, city: City, month: int, source: str) -> Json:
    """A spy's monthly report on one city (INTEL-140): economy, walls, buildings, queue and every unit inside."""
    garrison, civilians = [], []
    for unit in sorted(state.units.values(), key=lambda u: u.id):
        if unit.q != city.q or unit.r != city.r or unit.owner != city.owner or unit.type in ("spy", "scout"):
            continue
        if unit.spec.fighting:
            general = state.generals.get(unit.general_id) if unit.general_id is not None else None
            garrison.append({"id": unit.id, "type": unit.type, "men": unit.men, "morale": round(unit.morale, 1),
                             "hunger": round(unit.hunger, 2), "level": rd.troop_level(unit.xp),
                             "general": general.name if general else None,
                             "general_level": general.level if general else None})
        else:
            civilians.append({"id": unit.id, "type": unit.type, "men": unit.men, "cargo": round(unit.cargo, 1)})
    production, granary_cap = _production(state, city)
    return {
        "month": month,
        "source": source,
        "city_id": city.id,
        "name": city.name,
        "owner": city.owner,
        "q": city.q,
        "r": city.r,
        "people": city.people,
        "focus": city.focus,
        "production": production,
        "grain": round(city.grain, 2),
        "granary_cap": granary_cap,
        "walls": round(city.walls, 1),
        "walls_max": round(city.walls_max, 1),
        "buildings": list(city.buildings),
        "improvements": [imp.kind for imp in city.improvements],
        "queue": [{"item": e.item, "men": e.men, "paid": round(e.paid, 1), "months": e.months} for e in city.queue],
        "garrison": garrison,
        "civilians": civilians,
        "militia": int(round(city.militia)),
        "counter_spies": counter_spies(state, city),
    }


# --- the spies phase ----------------------------------------------------------------------------------------


def _lose_orphans(ctx: MonthContext) -> None:
    """Stationed spies of fallen kingdoms or in cities that are gone are lost."""
    state = ctx.state
    keep: list[StationedSpy] = []
    for s in state.spies:
        kd = state.kingdoms.get(s.owner)
        if kd is None or kd.eliminated:
            continue
        if s.city_id not in state.cities:
            ctx.emit("spy_lost", "Your spy stationed in a city that is no more is lost.", [s.owner], city_id=s.city_id)
            continue
        keep.append(s)
    state.spies = keep


def _catch_travellers(ctx: MonthContext) -> None:
    """Roll for every travelling spy on another kingdom's land (INTEL-190, OPEN-38)."""
    state = ctx.state
    for spy in sorted((u for u in state.units.values() if u.type == "spy"), key=lambda u: u.id):
        chance, catcher = catch_chance(state, spy)
        if catcher is None:
            continue
        if ctx.rng("intel.catch").random() < chance:  # made at the first roll (a month without one makes none)
            del state.units[spy.id]
            where = fmt_tile(spy.tile)
            ctx.emit("spy_caught", f"Your spy #{spy.id} was caught at {where} on the land of {_kname(state, catcher)}.",
                     [spy.owner], tile=list(spy.tile))
            ctx.emit("spy_caught", f"A spy of {_kname(state, spy.owner)} was caught at {where} on your land.",
                     [catcher], tile=list(spy.tile), by=spy.owner)


def _unmask(ctx: MonthContext) -> None:
    """Counter-spies unmask foreign spies in their city: 20% each, at most 60% (INTEL-180)."""
    state = ctx.state
    counters: dict[int, int] = {}
    for city in state.cities.values():
        n = counter_spies(state, city)
        if n:
            counters[city.id] = n
    keep: list[StationedSpy] = []
    for s in state.spies:
        city = state.cities[s.city_id]
        n = counters.get(city.id, 0)
        if s.owner == city.owner or n == 0:
            keep.append(s)
            continue
        if ctx.rng("intel.unmask").random() < unmask_chance(n):
            ctx.emit("spy_unmasked", f"Your spy in {city.name} was unmasked by counter-spies and is lost.", [s.owner],
                     city_id=city.id)
            if city.owner in state.kingdoms:
                ctx.emit("spy_unmasked", f"Counter-spies in {city.name} unmasked a spy of {_kname(state, s.owner)}.",
                         [city.owner], city_id=city.id, by=s.owner)
            continue
        keep.append(s)
    state.spies = keep


def _reports(ctx: MonthContext) -> None:
    """Each kingdom's spies report on the foreign city they hide in or stand beside (INTEL-140, INTEL-100)."""
    state = ctx.state
    sources: dict[str, dict[int, str]] = {}
    for s in state.spies:
        city = state.cities[s.city_id]
        if city.owner != s.owner:
            sources.setdefault(s.owner, {})[city.id] = "stationed"
    spies = [u for u in state.units.values() if u.type == "spy" and u.owner in state.kingdoms]
    if spies:
        for city in state.cities.values():
            for u in spies:
                if u.owner != city.owner and distance(u.tile, city.tile) <= 1:
                    sources.setdefault(u.owner, {}).setdefault(city.id, "travelling spy beside it")
    for kingdom, cities in sources.items():
        kd = state.kingdoms[kingdom]
        if kd.eliminated:
            continue
        reports = kd.memory.setdefault("reports", {})
        for cid in sorted(cities):
            reports[str(cid)] = city_report(state, state.cities[cid], ctx.month, cities[cid])


@phase("spies")
def spies_phase(ctx: MonthContext) -> None:
    """Month-end espionage: lost agents, catches (INTEL-190), unmasking (INTEL-180), reports (INTEL-140, INTEL-100)."""
    _lose_orphans(ctx)
    _catch_travellers(ctx)
    _unmask(ctx)
    _reports(ctx)


# --- memory (MAP-190) ---------------------------------------------------------------------------------------


def update_memory(state: GameState, kingdom: str, sight: Any | None = None) -> None:
    """Bring one kingdom's memory up to date with what it sees now: explored tiles, last-seen foreign things."""
    kd = state.kingdoms[kingdom]
    gm = state.map
    if sight is None:
        sight = compute_sight(state, [kingdom])[kingdom]
    mem = kd.memory
    explored = hex_to_mask(mem.get("explored", ""), gm.size) | sight.visible
    mem["explored"] = mask_to_hex(explored)
    seen = seen_now(state, kingdom, sight)
    month = state.month
    visible = sight.visible

    def in_sight(rec: Json) -> bool:
        i = gm.index(int(rec["q"]), int(rec["r"]))
        return i >= 0 and bool(visible[i])

    cities = {k: v for k, v in (mem.get("cities") or {}).items() if not in_sight(v)}
    for k in list(cities):
        c = state.cities.get(int(k))
        if c is not None and c.owner == kingdom:
            del cities[k]
    for rec in seen.cities:
        cities[str(rec["id"])] = rec
    for k, rec in cities.items():
        c = state.cities.get(int(k))
        if c is not None and c.is_ruin and rec.get("owner") != c.owner:
            cities[k] = {**rec, "owner": c.owner}  # who holds the Ruin is public, in sight or not (VIC-130)
    units = {k: v for k, v in (mem.get("units") or {}).items()
             if not in_sight(v) and month - int(v["month"]) <= rd.UNIT_MEMORY_MONTHS}
    for rec in seen.units:
        units[str(rec["id"])] = rec
    camps = {k: v for k, v in (mem.get("camps") or {}).items() if not in_sight(v)}
    for rec in seen.camps:
        camps[str(rec["id"])] = rec
    mem["cities"] = dict(sorted(cities.items(), key=lambda kv: int(kv[0])))
    mem["units"] = dict(sorted(units.items(), key=lambda kv: int(kv[0])))
    mem["camps"] = dict(sorted(camps.items(), key=lambda kv: int(kv[0])))
    mem.setdefault("reports", {})
    told = mem.get("told")
    if told:  # figures told in fights: troops' are dropped as their sightings are (cities' stay, latest only)
        told["units"] = {k: v for k, v in sorted((told.get("units") or {}).items(), key=lambda kv: int(kv[0]))
                         if month - int(v["month"]) <= rd.UNIT_MEMORY_MONTHS}
        told["cities"] = dict(sorted((told.get("cities") or {}).items(), key=lambda kv: int(kv[0])))
    mem["month"] = month


@phase("memory")
def memory_phase(ctx: MonthContext) -> None:
    """The month's last phase: every living kingdom records what it sees (explored map, last-seen foreigners)."""
    state = ctx.state
    living = [k for k, kd in state.kingdoms.items() if not kd.eliminated]
    sights = ctx.sights = compute_sight(state, living)  # the last phase: the final board's sight, kept for MonthResult
    for kingdom in living:
        update_memory(state, kingdom, sights[kingdom])


def explored_mask(state: GameState, kingdom: str) -> np.ndarray:
    """Boolean mask of the tiles the kingdom has explored (memory), not counting what it sees now."""
    return hex_to_mask(state.kingdoms[kingdom].memory.get("explored", ""), state.map.size)
