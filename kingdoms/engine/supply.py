"""Army supply: camps, carried rations, hunger, morale recovery and supply wagons (SUPPLY-010..300).

Feeding from a city's granary (CITY-110, SUPPLY-030, SUPPLY-060) is the economy's "grain" phase; this module
feeds from camps before it ("camps" slot), then lets every troop still short eat its carried rations and
applies hunger ("hunger" slot), unloads wagons ("wagons") and restores morale ("morale"). What each troop
ate this month, from any source, is the ledger `ctx.fed[unit_id]` (dan).

Hooks for other areas: `on_enter_tile` (movement: a troop walking into an undefended enemy camp seizes
it), `seize_camp` / `burn_camp` (combat), `capture_wagon` (combat, sieges), `in_own_camp` (combat's +25%),
`ration_months_left` / `march_outlasts_rations` / `rations_warning` / `in_supply` (SUPPLY-090 warnings).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from kingdoms import ruledata as rd
from kingdoms.engine.conquest import remove_unit
from kingdoms.engine.context import MonthContext, OrderFailed
from kingdoms.engine.economy import granary_capacity, round_half_up
from kingdoms.engine.pathing import Ground
from kingdoms.engine.production_orders import own_city
from kingdoms.engine.registry import phase, verb
from kingdoms.engine.sight import hex_to_mask, sight_of
from kingdoms.engine.visibility import require_own_unit
from kingdoms.hexgrid import Tile, distance, fmt_tile, spiral
from kingdoms.state import Camp, City, GameState, Unit, side_name

EPS = 1e-9

# --- rations and needs (SUPPLY-010, SUPPLY-070, SUPPLY-090) -----------------------------------------------


def eats(unit: Unit) -> bool:
    """Fighting troops eat; wagons, colonists, scouts and spies do not (OPEN-44, OPEN-88)."""
    return unit.spec.fighting and unit.men > 0


def monthly_need(unit: Unit) -> float:
    """Dan a troop eats in a month: 1 per 1,000 soldiers (SUPPLY-010)."""
    return unit.men / 1000.0 if eats(unit) else 0.0


def ration_cap(unit: Unit) -> float:
    """Most rations a troop can carry: 4 months' worth (SUPPLY-070)."""
    return rd.MAX_RATION_MONTHS * monthly_need(unit)


def ration_months_left(unit: Unit) -> float:
    """Months the troop's carried rations last out of supply, never more than 4 (inf for units that eat nothing)."""
    need = monthly_need(unit)
    return min(float(rd.MAX_RATION_MONTHS), unit.rations / need) if need > 0 else math.inf


def drop_excess_rations(unit: Unit) -> float:
    """Bring carried rations back to at most 4 months of the troop's men; returns the dan lost (SUPPLY-070).

    After losses (battle, hunger, desertion) or a merge the men left cannot carry more: what is beyond their
    4 months is lost (left behind with the fallen), never kept for later.
    """
    cap = ration_cap(unit) if unit.spec.fighting else unit.rations
    if unit.rations <= cap + EPS:
        return 0.0
    lost = unit.rations - cap
    unit.rations = cap
    return lost


def march_outlasts_rations(unit: Unit, months: float) -> bool:
    """True when `months` out of supply is longer than the troop's rations last (the SUPPLY-090 warning)."""
    return months > ration_months_left(unit) + EPS


def rations_warning(unit: Unit, months_out: float) -> str | None:
    """The SUPPLY-090 sentence for an order keeping a troop out of supply `months_out` months, or None if rations last."""
    if not march_outlasts_rations(unit, months_out):
        return None
    return (f"warning: #{unit.id} will be out of supply for about {months_out:g} months but its {unit.rations:.1f} dan "
            f"of rations last {ration_months_left(unit):.1f}; it will go hungry unless it reaches a camp or your land "
            f"(or grain reaches it by ship_grain)")


def _nearest_key(tile: Tile, origin: Tile) -> tuple[int, int, int]:
    """Nearest first, then lowest r, then lowest q (OPEN-74)."""
    return (distance(origin, tile), tile[1], tile[0])


# --- camps: lookups ----------------------------------------------------------------------------------------


def camp_at(state: GameState, tile: Tile) -> Camp | None:
    """The camp standing on `tile`, if any."""
    for camp in state.camps.values():
        if (camp.q, camp.r) == tile:
            return camp
    return None


def camps_of(state: GameState, owner: str) -> list[Camp]:
    """A kingdom's camps, by id."""
    return sorted((c for c in state.camps.values() if c.owner == owner), key=lambda c: c.id)


def camp_limit(state: GameState, owner: str) -> int:
    """Camps a kingdom may hold: one per city it holds, plus one (SUPPLY-270)."""
    return sum(1 for c in state.cities.values() if c.owner == owner) + 1


def supplying_camps(state: GameState, owner: str, tile: Tile) -> list[Camp]:
    """Stocked camps of `owner` within 2 tiles of `tile`, nearest first (SUPPLY-040)."""
    found = [c for c in state.camps.values()
             if c.owner == owner and c.grain > EPS and distance(tile, (c.q, c.r)) <= rd.CAMP_REACH]
    return sorted(found, key=lambda c: (*_nearest_key((c.q, c.r), tile), c.id))


def in_own_camp(state: GameState, unit: Unit, tile: Tile | None = None) -> bool:
    """A camp of the troop's own kingdom stands on `tile` (default: where it stands): +25% defence, faster
    morale (SUPPLY-250)."""
    camp = camp_at(state, unit.tile if tile is None else tile)
    return camp is not None and camp.owner == unit.owner


def in_supply(state: GameState, owner: str, tile: Tile) -> bool:
    """A troop of `owner` on `tile` is in supply: on its own land or within 2 tiles of a stocked own camp (SUPPLY-080)."""
    city = state.tile_owner_city(*tile)
    if city is not None and city.owner == owner:
        return True
    return bool(supplying_camps(state, owner, tile))


# --- camps: feeding (SUPPLY-040, SUPPLY-060, SUPPLY-250, OPEN-43) -------------------------------------------


def _draw_from_camps(state: GameState, units: dict[int, Unit], wants: dict[int, float]) -> dict[int, float]:
    """Give each unit what it wants from its nearest stocked own camp in reach; a short camp shares in proportion.

    A unit whose camp runs dry draws on its next camp in reach. Camp grain has no reserve (OPEN-43).
    """
    got: dict[int, float] = {uid: 0.0 for uid in wants}
    left = {uid: w for uid, w in wants.items() if w > EPS}
    while left:
        groups: dict[int, list[int]] = {}
        for uid in sorted(left):
            camps = supplying_camps(state, units[uid].owner, units[uid].tile)
            if camps:
                groups.setdefault(camps[0].id, []).append(uid)
        if not groups:
            break
        for cid in sorted(groups):
            camp = state.camps[cid]
            total = sum(left[uid] for uid in groups[cid])
            share = 1.0 if camp.grain >= total - EPS else camp.grain / total
            for uid in groups[cid]:
                take = left[uid] * share
                got[uid] += take
                left[uid] -= take
            camp.grain = max(0.0, camp.grain - total * share)
            if camp.grain < EPS:
                camp.grain = 0.0
        left = {uid: w for uid, w in left.items() if w > EPS}
    return got


@phase("camps")
def camps_phase(ctx: MonthContext) -> None:
    """Troops within 2 tiles of a stocked own camp eat from it first, then refill up to a month of rations (SUPPLY-040, SUPPLY-060, SUPPLY-250)."""
    state = ctx.state
    troops = {u.id: u for u in state.units.values() if eats(u) and supplying_camps(state, u.owner, u.tile)}
    if not troops:
        return
    stocked = {c.id for c in state.camps.values() if c.grain > EPS}
    wants = {uid: max(0.0, monthly_need(u) - ctx.fed.get(uid, 0.0)) for uid, u in troops.items()}
    eaten = _draw_from_camps(state, troops, wants)
    for uid, dan in eaten.items():
        if dan > 0:
            ctx.fed[uid] = ctx.fed.get(uid, 0.0) + dan
    room = {uid: min(monthly_need(u), max(0.0, ration_cap(u) - u.rations)) for uid, u in troops.items()}
    refilled = _draw_from_camps(state, troops, room)
    for uid, dan in refilled.items():
        troops[uid].rations += dan
    for camp in sorted(state.camps.values(), key=lambda c: c.id):
        if camp.id in stocked and camp.grain <= EPS:
            ctx.emit("camp_empty", f"Your camp at {fmt_tile((camp.q, camp.r))} has run out of grain: stock it with "
                     f"ship_grain city=ID dan=N to={camp.q},{camp.r}.", [camp.owner], camp_id=camp.id)


# --- hunger (SUPPLY-080, SUPPLY-180..200, OPEN-93) ----------------------------------------------------------


def hunger_strength(hunger: float) -> float:
    """Strength factor of a hungry troop: 1 - 0.2 x hunger, never below 0.2 (SUPPLY-190)."""
    return max(rd.HUNGER_STRENGTH_MIN, 1.0 - rd.HUNGER_STRENGTH * hunger)


@phase("hunger")
def hunger_phase(ctx: MonthContext) -> None:
    """Troops not fully fed by camp or granary eat their rations; whatever is still missing makes them hungry
    (with no food at all a troop is gone in 3-4 months, SUPPLY-200).

    SUPPLY-080, OPEN-93: carried rations cover the shortfall. SUPPLY-180, SUPPLY-190: hunger rises by the share
    missing (back to 0 when fed in full), morale -15 x share, 10% x hunger of the men desert or die.
    A troop left under 100 men breaks up (COMBAT-250 applied to hunger).
    """
    state = ctx.state
    for unit in sorted((u for u in state.units.values() if eats(u)), key=lambda u: u.id):
        need = monthly_need(unit)
        fed = min(ctx.fed.get(unit.id, 0.0), need)
        short = need - fed
        if short > EPS and unit.rations > EPS:
            take = min(short, unit.rations)
            unit.rations = max(0.0, unit.rations - take)
            fed += take
            ctx.fed[unit.id] = ctx.fed.get(unit.id, 0.0) + take
        missing = max(0.0, need - fed) / need
        if missing <= EPS:
            unit.hunger = 0.0
        else:
            _starve(ctx, unit, missing)
    for unit in state.units.values():  # the month's losses so far: no troop carries more than 4 months (SUPPLY-070)
        if unit.spec.fighting:
            drop_excess_rations(unit)


def _starve(ctx: MonthContext, unit: Unit, missing: float) -> None:
    """One hungry month for a troop missing `missing` of its ration (SUPPLY-180, SUPPLY-190)."""
    unit.hunger += missing
    unit.morale = max(0.0, unit.morale - rd.HUNGER_MORALE * missing)
    lost = min(unit.men, round_half_up(unit.men * rd.HUNGER_DESERT * unit.hunger))
    unit.men -= lost
    where = fmt_tile(unit.tile)
    if unit.men < rd.BREAK_UP_BELOW:
        ctx.emit("troop_starved", f"Your troop #{unit.id} {unit.type} at {where} has starved away: the last "
                 f"{unit.men + lost} men deserted or died.", [unit.owner], unit_id=unit.id)
        remove_unit(ctx, unit, None)
        return
    ctx.emit("troop_hungry",
             f"Your troop #{unit.id} {unit.type} at {where} went hungry ({missing:.0%} of its ration missing): "
             f"hunger {unit.hunger:.1f} (strength x{hunger_strength(unit.hunger):.2f}), {lost} men deserted or died, "
             f"morale {unit.morale:.0f}. Bring it into supply or send grain (ship_grain).",
             [unit.owner], unit_id=unit.id, lost=lost, hunger=unit.hunger)


# --- morale recovery (OPEN-36) ------------------------------------------------------------------------------


@phase("morale")
def morale_phase(ctx: MonthContext) -> None:
    """Fed troops recover 10 morale, 20 in an own camp; hungry troops recover nothing; never above 100 (OPEN-36)."""
    state = ctx.state
    for unit in sorted((u for u in state.units.values() if eats(u)), key=lambda u: u.id):
        if unit.hunger > EPS:
            continue
        gain = rd.MORALE_RECOVERY_CAMP if in_own_camp(state, unit) else rd.MORALE_RECOVERY
        unit.morale = min(100.0, unit.morale + gain)


# --- pitching camps (SUPPLY-220..270) -----------------------------------------------------------------------


def _can_pitch(unit: Unit) -> bool:
    """A troop big enough to pitch a camp (SUPPLY-220)."""
    return unit.spec.fighting and unit.men >= rd.CAMP_MIN_MEN


def camp_problem(state: GameState, unit: Unit) -> tuple[str, str] | None:
    """Why `unit` cannot pitch a camp where it stands, as (code, message), or None (SUPPLY-220, SUPPLY-270, OPEN-43)."""
    tile = unit.tile
    if not unit.spec.fighting:
        return "not_a_troop", f"#{unit.id} is a {unit.type}: only a fighting troop of {rd.CAMP_MIN_MEN}+ men pitches a camp"
    if unit.men < rd.CAMP_MIN_MEN:
        return "too_few_men", (f"#{unit.id} has {unit.men} men; a camp needs a troop of at least {rd.CAMP_MIN_MEN} "
                               f"(merge it with another first)")
    city = state.city_at(*tile)
    if city is not None:
        return "in_city", (f"#{unit.id} stands in {city.name}: a city stores grain in its granary; pitch the camp on "
                           f"a tile outside the city")
    i = state.map.index(*tile)
    if i >= 0 and bool(state.map.river[i]):
        return "river_tile", f"{fmt_tile(tile)} is a river tile: pitch the camp on a bank beside it"
    other = _too_close(state, tile)
    if other is not None:
        whose = "your" if other.owner == unit.owner else "a rival"
        d = distance(tile, (other.q, other.r))
        away = "stands on this very tile" if d == 0 else f"is {d} tile{'s' if d != 1 else ''} away"
        return "camp_too_close", (f"{whose} camp at {fmt_tile((other.q, other.r))} {away}; camps must be at least "
                                  f"{rd.CAMP_SPACING} tiles apart")
    held, limit = len(camps_of(state, unit.owner)), camp_limit(state, unit.owner)
    if held >= limit:
        cities = f"{limit - 1} cit{'y' if limit - 1 == 1 else 'ies'}"
        return "camp_limit", (f"you hold {held} camp{'s' if held != 1 else ''}, the most you may hold with {cities} "
                              f"(one per city, plus one); found or take a city first")
    return None


def _too_close(state: GameState, tile: Tile) -> Camp | None:
    """The nearest camp closer than the camp spacing to `tile` (then lowest r, q, id), if any (SUPPLY-270)."""
    near = [c for c in state.camps.values() if distance(tile, (c.q, c.r)) < rd.CAMP_SPACING]
    return min(near, key=lambda c: (*_nearest_key((c.q, c.r), tile), c.id)) if near else None


def _check_build(ctx: MonthContext, kingdom: str, order) -> None:
    unit = require_own_unit(ctx.state, kingdom, order.unit_id, accept=_can_pitch,
                            what=f"troops of {rd.CAMP_MIN_MEN}+ men")
    if order.what != "camp":
        raise OrderFailed("unknown_building", f"a troop can build only a camp (build unit={unit.id} what=camp)")
    problem = camp_problem(ctx.state, unit)
    if problem is None:
        return
    code, message = problem
    other = _too_close(ctx.state, unit.tile) if code == "camp_too_close" and not ctx.scratch else None
    if other is not None and other.owner != kingdom:
        # checked again when carried out (TURN-060): say why the issue-time check could not know of it
        new = other.id not in ctx.start_camps
        if new or str(other.id) not in (ctx.state.kingdoms[kingdom].memory.get("camps") or {}):
            message += (" (that camp was not in your sight when you gave the order"
                        + (": it was pitched this month" if new else "")
                        + "; orders are checked again when carried out)")
    raise OrderFailed(code, message)


@verb("build", check=_check_build)
def run_build(ctx: MonthContext, kingdom: str, order) -> str:
    """build unit=ID what=camp: a camp at once where the troop stands, stocked with half its rations; its move ends (SUPPLY-230)."""
    _check_build(ctx, kingdom, order)
    state = ctx.state
    unit = state.units[order.unit_id]
    stock = min(float(rd.CAMP_CAP), unit.rations / 2.0)
    unit.rations -= stock
    camp = Camp(id=state.new_id(), owner=kingdom, q=unit.q, r=unit.r, grain=stock)
    state.camps[camp.id] = camp
    ctx.spend(unit, ctx.moves(unit))
    return (f"#{unit.id} pitches camp #{camp.id} at {fmt_tile(unit.tile)} with {stock:.1f} dan (half its rations); "
            f"its move ends for the month")


# --- seizing and burning camps (SUPPLY-280, SUPPLY-290, OPEN-43) --------------------------------------------


def camp_defended(state: GameState, camp: Camp) -> bool:
    """A troop of the camp's owner stands on it (OPEN-43: otherwise it is undefended)."""
    return any(u.owner == camp.owner and u.spec.fighting and u.men > 0 for u in state.units_at(camp.q, camp.r))


def seize_camp(ctx: MonthContext, camp: Camp, unit: Unit) -> None:
    """`unit`'s kingdom takes the camp and its grain; it counts toward the seizer's limit (SUPPLY-280)."""
    state = ctx.state
    loser = camp.owner
    camp.owner = unit.owner
    where = fmt_tile((camp.q, camp.r))
    taker = side_name(state, unit.owner)
    ctx.emit("camp_seized", f"Your camp at {where} was seized by {taker} with its {camp.grain:.1f} dan.", [loser],
             camp_id=camp.id)
    ctx.emit("camp_seized", f"Your troop #{unit.id} seized the camp at {where} with {camp.grain:.1f} dan.",
             [unit.owner], camp_id=camp.id)


def burn_camp(ctx: MonthContext, camp: Camp, by_kingdom: str | None = None) -> None:
    """The camp goes up in flames: its grain is destroyed and the camp removed (SUPPLY-290, OPEN-43).

    The defenders' extra 10% losses (rd.CAMP_BURN_EXTRA_LOSS) are the combat code's.
    """
    state = ctx.state
    state.camps.pop(camp.id, None)
    where = fmt_tile((camp.q, camp.r))
    ctx.emit("camp_burned", f"Your camp at {where} was set ablaze: its {camp.grain:.1f} dan are lost.", [camp.owner],
             camp_id=camp.id)
    if by_kingdom is not None and by_kingdom != camp.owner:
        ctx.emit("camp_burned", f"Your troops set the camp at {where} ablaze.", [by_kingdom], camp_id=camp.id)


def on_enter_tile(ctx: MonthContext, unit: Unit) -> Camp | None:
    """Movement calls this each time a unit steps onto a tile: a fighting troop walking into an undefended camp of
    an empire at war with it seizes it (SUPPLY-280). Returns the seized camp, else None."""
    if not unit.spec.fighting or unit.men <= 0:
        return None
    camp = camp_at(ctx.state, unit.tile)
    if camp is None or camp.owner == unit.owner or not ctx.state.at_war(camp.owner, unit.owner):
        return None
    if camp_defended(ctx.state, camp):
        return None
    seize_camp(ctx, camp, unit)
    return camp


# --- wagons (SUPPLY-100..170, OPEN-44) ----------------------------------------------------------------------


def _wagon_tile(state: GameState, city: City, to: Tile) -> Tile | None:
    """Where a new wagon appears: the city tile, else a free neighbour nearest the destination (OPEN-44).

    Free: a tile a wagon of the city's owner may stand on (pathing.Ground.endable: passable, not a river
    crossing, not closed at peace, no foreign city or unit, no civilian of its own, MOVE-110, DIPLO-020).
    """
    ground = Ground(state, Unit(-1, city.owner, "wagon", city.q, city.r))
    free = [t for t in [city.tile, *state.map.neighbours(*city.tile)] if ground.endable(ground.index(t))]
    if not free:
        return None
    if free[0] == city.tile:
        return city.tile
    return min(free, key=lambda t: _nearest_key(t, to))


def _nearest_land(state: GameState, kingdom: str, to: Tile, radius: int = 8) -> Tile | None:
    """The land tile nearest `to` that a wagon may stop on (passable, no river crossing), among the tiles the
    kingdom has explored or sees (its map, MAP-190): lowest r, then q, on a tie (OPEN-74)."""
    gm = state.map
    kd = state.kingdoms.get(kingdom)
    known = sight_of(state, kingdom).visible.copy()
    if kd is not None:
        known |= hex_to_mask(kd.memory.get("explored", ""), gm.size)
    found = [t for t in spiral(to, radius) if (i := gm.index(*t)) >= 0 and known[i] and gm.move_cost[i] > 0
             and not gm.is_crossing(i)]
    return min(found, key=lambda t: _nearest_key(t, to)) if found else None


def _check_ship(ctx: MonthContext, kingdom: str, order) -> None:
    state = ctx.state
    city = own_city(state, kingdom, order.city_id)
    if not 1 <= order.dan <= rd.WAGON_CAP:
        raise OrderFailed("bad_amount", f"a wagon carries 1..{rd.WAGON_CAP} dan; send dan=1..{rd.WAGON_CAP}")
    if order.dan > city.grain + EPS:
        most = int(city.grain + EPS)
        hint = f"ship at most dan={most}" if most >= 1 else "wait for its harvest or ship from another city"
        raise OrderFailed("not_enough_grain", f"{city.name} holds {city.grain:.1f} dan; {hint}")
    to = (order.to[0], order.to[1])
    i = state.map.index(*to)
    if i < 0:
        raise OrderFailed("off_map", state.map.off_map_text(*to) + ": send the wagon to a tile on the map")
    if state.map.move_cost[i] <= 0:
        land = _nearest_land(state, kingdom, to)
        hint = f"; the nearest you know is {fmt_tile(land)}" if land is not None else ""
        hint += f"; {state.map.row_text(to[1])}"
        raise OrderFailed("impassable", f"{fmt_tile(to)} is {state.map.terrain_at(*to).name}: send the wagon to a land "
                                        f"tile (a city, a camp or a troop's tile){hint}")
    if _wagon_tile(state, city, to) is None:
        raise OrderFailed("no_room", f"{city.name} and every tile beside it already hold a civilian unit: move one "
                                     f"away first")


@verb("ship_grain", check=_check_ship)
def run_ship_grain(ctx: MonthContext, kingdom: str, order) -> str:
    """ship_grain city=ID dan=N to=q,r: the grain leaves the granary at once on a wagon that marches this month (SUPPLY-100)."""
    _check_ship(ctx, kingdom, order)
    state = ctx.state
    city = state.cities[order.city_id]
    to = (order.to[0], order.to[1])
    tile = _wagon_tile(state, city, to)
    assert tile is not None
    city.grain -= order.dan
    wagon = Unit(id=state.new_id(), owner=kingdom, type="wagon", q=tile[0], r=tile[1], cargo=float(order.dan),
                 dest=to, home_city=city.id)
    if tile != to:
        wagon.standing = {"action": "move", "unit_id": wagon.id, "to": [to[0], to[1]]}
    state.units[wagon.id] = wagon
    return (f"wagon #{wagon.id} leaves {city.name} with {order.dan} dan for {fmt_tile(to)} "
            f"({city.grain:.1f} dan left in the granary)")


def capture_wagon(ctx: MonthContext, wagon: Unit, by_unit: Unit) -> None:
    """An unescorted wagon caught by an enemy troop changes hands with all its grain and stops (SUPPLY-170)."""
    loser = wagon.owner
    wagon.owner = by_unit.owner
    wagon.standing = None
    wagon.dest = None
    wagon.home_city = None
    where = fmt_tile(wagon.tile)
    ctx.emit("wagon_captured", f"Your wagon #{wagon.id} at {where} was captured with {wagon.cargo:.1f} dan.", [loser],
             unit_id=wagon.id)
    ctx.emit("wagon_captured", f"Your troop #{by_unit.id} captured a wagon (#{wagon.id}) at {where} with "
             f"{wagon.cargo:.1f} dan.", [by_unit.owner], unit_id=wagon.id)


def wagon_march_left(ctx: MonthContext, wagon: Unit) -> bool:
    """The wagon still has a march to make (SUPPLY-110): a standing move elsewhere that moved it this month.

    A wagon that stood still all month with a march ahead is held up in front of a blocked tile: it unloads.
    """
    order = wagon.standing
    if not order or order.get("action") != "move":
        return False
    to = order.get("to")
    if to is None or (to[0], to[1]) == wagon.tile:
        return False
    return ctx.moves(wagon) < wagon.spec.moves - EPS


def _dest_city(state: GameState, wagon: Unit) -> City | None:
    """The own city a wagon was sent to: on its destination tile or beside it (SUPPLY-120)."""
    if wagon.dest is None:
        return None
    here = state.city_at(*wagon.dest)
    if here is not None:
        return here if here.owner == wagon.owner else None
    near = [c for c in state.cities.values() if c.owner == wagon.owner and distance(c.tile, wagon.dest) == 1]
    return min(near, key=lambda c: (c.r, c.q, c.id)) if near else None


def _fill_city(city: City, cargo: float) -> float:
    """Pour up to `cargo` into the city's granary; returns what went in."""
    put = min(cargo, max(0.0, granary_capacity(city) - city.grain))
    city.grain += put
    return put


def _fill_camp(camp: Camp, cargo: float) -> float:
    """Put up to `cargo` dan into the camp, never above its 80 (SUPPLY-240); returns what went in."""
    put = min(cargo, max(0.0, rd.CAMP_CAP - camp.grain))
    camp.grain += put
    return put


def _near_camp(state: GameState, wagon: Unit) -> Camp | None:
    """An own camp within 1 tile of the wagon, nearest first."""
    near = [c for c in state.camps.values() if c.owner == wagon.owner and distance((c.q, c.r), wagon.tile) <= 1]
    return min(near, key=lambda c: (*_nearest_key((c.q, c.r), wagon.tile), c.id)) if near else None


def _near_city(state: GameState, wagon: Unit) -> City | None:
    """An own city on or beside the wagon, nearest first."""
    near = [c for c in state.cities.values() if c.owner == wagon.owner and distance(c.tile, wagon.tile) <= 1]
    return min(near, key=lambda c: (*_nearest_key(c.tile, wagon.tile), c.id)) if near else None


def _hand_out(troops: Iterable[Unit], cargo: float) -> dict[int, float]:
    """Share `cargo` as rations among troops up to their 4-month caps, in proportion to their room (SUPPLY-140)."""
    room = {u.id: max(0.0, ration_cap(u) - u.rations) for u in troops}
    total = sum(room.values())
    if total <= EPS:
        return {}
    share = min(1.0, cargo / total)
    return {uid: r * share for uid, r in room.items() if r * share > EPS}


def unload_wagon(ctx: MonthContext, wagon: Unit) -> list[str]:
    """Unload a wagon where it stands (SUPPLY-120, SUPPLY-130, SUPPLY-140, OPEN-44); returns what went where.

    Sent to a camp's tile it stocks the camp (SUPPLY-260)."""
    state = ctx.state
    parts: list[str] = []
    dest_city = _dest_city(state, wagon)
    if dest_city is not None and distance(dest_city.tile, wagon.tile) <= 1:
        order: list[City | Camp | None] = [dest_city, _near_camp(state, wagon)]
    else:
        order = [_near_camp(state, wagon), _near_city(state, wagon)]
    for place in order:
        if place is None or wagon.cargo <= EPS:
            continue
        if isinstance(place, City):
            put = _fill_city(place, wagon.cargo)
            label = place.name
        else:
            put = _fill_camp(place, wagon.cargo)
            label = f"the camp at {fmt_tile((place.q, place.r))}"
        if put > EPS:
            wagon.cargo -= put
            parts.append(f"{put:.1f} dan into {label}")
    if wagon.cargo > EPS:
        troops = [u for u in state.units.values()
                  if u.owner == wagon.owner and eats(u) and distance(u.tile, wagon.tile) <= 1]
        for uid, dan in sorted(_hand_out(troops, wagon.cargo).items()):
            state.units[uid].rations += dan
            wagon.cargo -= dan
            parts.append(f"{dan:.1f} dan of rations to #{uid}")
    if wagon.cargo < 1e-6:
        wagon.cargo = 0.0
    return parts


@phase("wagons")
def wagons_phase(ctx: MonthContext) -> None:
    """Wagons with no march left unload: city or camp first by destination, then rations; emptied wagons vanish
    (SUPPLY-110..160); several may unload into one place in a month (SUPPLY-160)."""
    state = ctx.state
    for wagon in sorted((u for u in state.units.values() if u.type == "wagon"), key=lambda u: u.id):
        order = wagon.standing
        if order and order.get("action") == "move" and order.get("to") is not None:
            wagon.dest = (order["to"][0], order["to"][1])  # SUPPLY-150: a move redirects the wagon
        if wagon_march_left(ctx, wagon):
            continue
        parts = unload_wagon(ctx, wagon) if wagon.cargo > EPS else []
        where = fmt_tile(wagon.tile)
        if wagon.cargo <= EPS:
            state.units.pop(wagon.id, None)
            if parts:
                ctx.emit("wagon_unloaded", f"Wagon #{wagon.id} at {where} unloaded: {'; '.join(parts)}.",
                         [wagon.owner], unit_id=wagon.id)
        elif parts:
            ctx.emit("wagon_unloaded", f"Wagon #{wagon.id} at {where} unloaded {'; '.join(parts)} and waits with "
                     f"{wagon.cargo:.1f} dan.", [wagon.owner], unit_id=wagon.id)
