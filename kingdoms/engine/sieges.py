"""Sieges: walls, towers, militia, bombardment, assaults, blockades and the fall of cities (SIEGE-*, CONQ-010, CONQ-020).

- Walls (SIEGE-010..040, OPEN-14): `City.walls` against `City.walls_max` (the economy sets 40/40 for a palisade
  and a 100 ceiling for stone walls); +5 a month toward the ceiling unless the city was blockaded or attacked.
- Militia (SIEGE-050..080, OPEN-22): `City.militia` is what stands now; it comes back at 20% of the full
  militia a month and never exceeds it.
- Towers (SIEGE-100, OPEN-100) and the blockade status (SIEGE-150, OPEN-23) are worked out in the "towers"
  slot, before production, so the economy can read `ctx.blockaded`; the blockade's effects on walls, and
  repairs, come in the "blockade" slot.
- The attack verb calls `assault_city` (melee troops) and `shoot_city` (archers and catapults) when its
  target is a city; both refuse with OrderFailed. One assault is one fight with one defender (OPEN-12);
  the city falls when its walls are down and an assault beats its militia (SIEGE-180); `capture_city`
  then hands it over (CONQ-010..100, OPEN-1, OPEN-60) and eliminates a kingdom whose capital it was.

The fight arithmetic is combat.py's exchange (COMBAT-040..090): `fighter_for` builds each side's quality,
`melee` and `volley` give the losses, `hurt` / `fall_back` / `defeat_shock` do the rest; the militia is a
`Fighter` of its own (quality 0.6 x walls x the city tile's terrain).
"""

from __future__ import annotations

from kingdoms import ruledata as rd
from kingdoms.engine import generals as gen
from kingdoms.engine.combat import (
    Fighter,
    Hurt,
    breaks_on_losses,
    defeat_shock,
    fall_back,
    fighter_for,
    flank_factor,
    hunger_factor,
    hurt,
    melee,
    terrain_bonus,
    volley,
    walls_factor,
)
from kingdoms.engine.conquest import (
    captor_of,
    eliminate,
    on_city_land,
    remove_unit,
    reset_hands,
    units_on,
)
from kingdoms.engine.context import MonthContext, OrderFailed
from kingdoms.engine.economy import round_half_up
from kingdoms.engine.pathing import TROOP, slot_of
from kingdoms.engine.registry import phase
from kingdoms.engine.visibility import note_told_militia
from kingdoms.frozen import record
from kingdoms.hexgrid import Tile, distance, fmt_tile, hex_len
from kingdoms.state import City, GameState, Unit, side_name

# --- lookups ---------------------------------------------------------------------------------------------


def is_garrison_type(unit: Unit) -> bool:
    """A fighting troop that can be a garrison: any but a siege train (MOVE-120)."""
    return slot_of(unit) == TROOP


def garrison(state: GameState, city: City, near: Near | None = None) -> Unit | None:
    """The city's garrison: its owner's troop (not a siege train) standing in it (SIEGE-050). `near`: the board's
    units_near, read instead of every unit when given."""
    here = units_on(state, city.tile, city.owner) if near is None else sorted(
        (u for u in near.by_tile.get(city.tile, ()) if u.owner == city.owner), key=lambda u: u.id)
    for unit in here:
        if is_garrison_type(unit) and unit.men > 0:
            return unit
    return None


def full_militia(state: GameState, city: City, month: int | None = None) -> int:
    """The city's full militia this month (SIEGE-060, SIEGE-070, OPEN-22); bandit and captured capitals are ordinary."""
    capital = city.is_capital and city.owner in state.kingdoms and state.kingdoms[city.owner].capital_id == city.id
    return rd.full_militia(city.people, capital, state.month if month is None else month)


def standing_militia(state: GameState, city: City) -> int:
    """Militia standing now: what is left of it, never more than the full militia (SIEGE-080)."""
    return max(0, min(round_half_up(city.militia), full_militia(state, city)))


def engines(unit: Unit) -> float:
    """Engines a siege train works: one per 100 crew, part-crewed engines counting their share (SIEGE-110)."""
    return unit.men / rd.ENGINE_CREW


def city_terrain(state: GameState, city: City) -> float:
    """Defence bonus of the city tile's terrain, which counts for its garrison and militia (OPEN-98)."""
    return terrain_bonus(state, city.tile)


def militia_quality(state: GameState, city: City, walls: float) -> float:
    """Militia: quality 0.6 x the city tile's terrain x walls (SIEGE-060, OPEN-98); no morale, no training."""
    return rd.MILITIA_QUALITY * (1.0 + city_terrain(state, city)) * walls_factor(walls)


def garrison_fighter(state: GameState, city: City, gar: Unit, vs: Unit, walls: float) -> Fighter:
    """The garrison defending its city at `walls`: terrain, fortified, walls, spearmen x1.5 vs cavalry, its general
    at x(1 + 0.15 x level) (COMBAT-020, COMBAT-120, GEN-110)."""
    return fighter_for(state, gar, "defend", vs, city.tile, in_city_defence=True, walls=walls)


def militia_fighter(state: GameState, city: City, walls: float) -> Fighter:
    """The militia standing now, as one side of an exchange."""
    return Fighter(standing_militia(state, city), militia_quality(state, city, walls))


def _tell_owner(ctx: MonthContext, city: City, owner: str, text: str) -> None:
    if owner in ctx.state.kingdoms:
        ctx.emit("city_attacked", text, [owner], city_id=city.id)


def _check_city_target(state: GameState, unit: Unit, city: City) -> None:
    if city.owner == unit.owner:
        raise OrderFailed("own_city", f"{city.name} {fmt_tile(city.tile)} is your own city: attack an enemy's")
    if not state.at_war(unit.owner, city.owner):
        raise OrderFailed("not_at_war", f"you are at peace with {side_name(state, city.owner)}: declare_war first "
                                        f"(or attack with surprise)")


def _militia_loss(city: City, standing: int, killed: int) -> int:
    """Militia killed comes off the militia and the people, who never fall below 1,000 that way (SIEGE-200, OPEN-59)."""
    killed = max(0, min(killed, standing))
    city.militia = float(standing - killed)
    city.people -= max(0, min(killed, city.people - rd.VOLLEY_PEOPLE_FLOOR))
    return killed


# --- shooting at a city (SIEGE-110, SIEGE-130, OPEN-11, COMBAT-090, COMBAT-100) -----------------------------


def shoot_city(ctx: MonthContext, unit: Unit, city: City) -> str:
    """Archers or catapults shoot at an enemy city from within range; returns the one-line result.

    Catapults: per engine -10 walls and 15 defenders killed, garrison first, then militia (SIEGE-110, OPEN-11,
    OPEN-100). Archers: the 12% formula with x0.5 quality against the garrison, else the militia; they never
    harm walls (SIEGE-130). Return fire in the same exchange (COMBAT-090): garrison archers within their range,
    or a melee garrison (else the militia) from the next tile. The shooter goes on the city's tower list.
    """
    state = ctx.state
    if not unit.spec.fighting or not unit.spec.shooter:
        raise OrderFailed("not_a_shooter", f"#{unit.id} {unit.type} cannot shoot: an assault needs a melee troop")
    _check_city_target(state, unit, city)
    dist = distance(unit.tile, city.tile)
    if dist < 1 or dist > unit.spec.range:
        raise OrderFailed("out_of_range", f"{city.name} {fmt_tile(city.tile)} is {dist} tiles from #{unit.id}; "
                          f"{unit.type} shoot at 1..{unit.spec.range} tiles")
    ctx.cities_attacked.add(city.id)
    ctx.shot_at_city.setdefault(city.id, set()).add(unit.id)
    ctx.attacked.add(unit.id)
    unit.fortified = False
    walls0 = city.walls
    gar = garrison(state, city)
    militia = standing_militia(state, city)
    # The exchange, from both sides' strength before it (COMBAT-040, COMBAT-090).
    if gar is not None:
        target = garrison_fighter(state, city, gar, unit, walls0)
        shooter = fighter_for(state, unit, "shoot", gar, into_city=True)
        reply: Fighter | None = None
        if gar.spec.shooter and dist <= gar.spec.range:
            reply = fighter_for(state, gar, "return_fire", unit, city.tile, in_city_defence=True, walls=walls0)
        elif not gar.spec.shooter and dist == 1:
            reply = target
        strike_back = reply is target
    else:
        target = militia_fighter(state, city, walls0)
        shooter = fighter_for(state, unit, "shoot", "militia", into_city=True)
        reply = target if dist == 1 and militia > 0 else None
        strike_back = True
    res = volley(shooter, target, reply, guard=fighter_for(state, unit, "guard", gar), reply_melee=strike_back)
    parts: list[str] = []
    g_loss = m_loss = 0
    if unit.type == "catapult":
        eng = engines(unit)
        city.walls = max(0.0, walls0 - rd.ENGINE_WALL_DAMAGE * eng)
        kills = round_half_up(rd.ENGINE_KILLS * eng)
        parts.append(f"walls {walls0:.0f} -> {city.walls:.0f}")
        if gar is not None:
            g_loss = min(kills, gar.men)
        m_loss = min(max(0, kills - g_loss), militia)
    elif gar is not None:
        g_loss = res.dfn_loss
    else:
        m_loss = res.dfn_loss
    defender_owner = city.owner
    if gar is not None:
        g = hurt(state, gar, g_loss, can_break=False)
        parts.append(f"garrison loses {g_loss:,}")
        if g.destroyed:
            remove_unit(ctx, gar, captor_of(state, unit.owner), by_unit=unit)
            parts.append("the garrison is destroyed")
    if m_loss:
        _militia_loss(city, militia, m_loss)
        parts.append(f"militia loses {m_loss:,} ({round_half_up(city.militia):,} left)")
        note_told_militia(state, unit.owner, city, round_half_up(city.militia))
    elif gar is None and militia <= 0:
        parts.append("no defender stands to be hit")
    mine = hurt(state, unit, res.att_loss, morale=False, can_break=False)
    if res.att_loss:
        parts.append(f"return fire kills {res.att_loss:,} of #{unit.id}")
    if mine.destroyed:
        remove_unit(ctx, unit, captor_of(state, defender_owner))
        parts.append(f"#{unit.id} is destroyed")
    _tell_owner(ctx, city, defender_owner, f"{city.name} is shot at by {side_name(state, unit.owner)} {unit.type}: "
                + "; ".join(parts) + ".")
    return f"#{unit.id} {unit.type} shoots at {city.name} {fmt_tile(city.tile)}: " + "; ".join(parts)


# --- the assault (SIEGE-120, SIEGE-180..200, OPEN-12, OPEN-13, OPEN-100) ------------------------------------


def batter(unit: Unit) -> float:
    """Walls a melee assault knocks down: 5 per 1,000 men x the hunger factor (SIEGE-120, OPEN-13)."""
    return rd.BATTER_PER_1000 * unit.men / 1000.0 * hunger_factor(unit)


def assault_city(ctx: MonthContext, unit: Unit, city: City) -> str:
    """A melee troop beside an enemy city assaults it; returns the one-line result.

    The assault batters the walls (SIEGE-120), then fights ONE defender (OPEN-12): the garrison if there is one
    (it never breaks, COMBAT-210), else the standing militia (breaks on losses alone). Defenders fight at the
    walls from before the assault (OPEN-13); flanking counts only below walls 40 (COMBAT-140). The city falls
    when the walls are 0 after battering and the assault beat the militia (25%+ lost or none left) without
    breaking itself (SIEGE-180, OPEN-100); the troop then advances into it. A garrison destroyed leaves the
    militia to be beaten by a later assault (SIEGE-190).
    """
    state = ctx.state
    if not unit.spec.fighting or unit.spec.shooter:
        raise OrderFailed("not_melee", f"#{unit.id} {unit.type} cannot assault a city: shoot at it instead")
    _check_city_target(state, unit, city)
    if distance(unit.tile, city.tile) != 1:
        raise OrderFailed("out_of_reach", f"#{unit.id} at {fmt_tile(unit.tile)} is not beside {city.name} "
                          f"{fmt_tile(city.tile)}: a melee assault is made from an adjacent tile")
    ctx.cities_attacked.add(city.id)
    ctx.attacked.add(unit.id)
    unit.fortified = False
    defender_owner = city.owner
    walls0 = city.walls
    city.walls = max(0.0, walls0 - batter(unit))
    quiet = ctx.quiet  # a forecast's month: the same fight, no texts (nobody reads them)
    head = "" if quiet else f"#{unit.id} {unit.type} assaults {city.name} {fmt_tile(city.tile)}"
    if walls0 > 0 and not quiet:
        head += f" (walls {walls0:.0f} -> {city.walls:.0f})"
    gar = garrison(state, city)
    flank = flank_factor(state, unit, city.tile, walls=walls0)
    between_kingdoms = unit.owner in state.kingdoms and defender_owner in state.kingdoms
    if gar is not None:
        res = melee(fighter_for(state, unit, "attack", gar), garrison_fighter(state, city, gar, unit, walls0), flank)
        g = hurt(state, gar, res.dfn_loss, can_break=False)
        a = hurt(state, unit, res.att_loss)
        text = "" if quiet else f"{head}: garrison #{gar.id} {gar.type} loses {res.dfn_loss:,}, you lose {res.att_loss:,}"
        cavalry = gar.type == "cavalry" and not g.destroyed
        if g.destroyed:
            remove_unit(ctx, gar, captor_of(state, unit.owner), by_unit=unit)
            if not quiet:
                text += "; the garrison is destroyed, the townspeople still man the walls"
            if between_kingdoms:
                defeat_shock(state, defender_owner, city.tile, gar.id)
        text += _after_attacker(ctx, unit, a, city, cavalry, gar.id, between_kingdoms)
        if not quiet:
            _tell_owner(ctx, city, defender_owner, f"{city.name} was assaulted by {side_name(state, unit.owner)} "
                        f"{unit.type}: the garrison lost {res.dfn_loss:,}, the attackers {res.att_loss:,}; "
                        f"walls {city.walls:.0f}.")
        return text
    militia = standing_militia(state, city)
    if militia <= 0:
        if city.walls <= 0:
            capture_city(ctx, city, unit.owner, unit)
            return f"{head}: no garrison, no militia, no walls: {city.name} is taken"
        _tell_owner(ctx, city, defender_owner, f"{city.name} was assaulted by {side_name(state, unit.owner)} {unit.type}: "
                    f"no one stood to fight; walls {city.walls:.0f}.")
        return f"{head}: nobody stands to fight, but the walls ({city.walls:.0f}) still stand"
    res = melee(fighter_for(state, unit, "attack", "militia"), militia_fighter(state, city, walls0), flank)
    m_loss = _militia_loss(city, militia, res.dfn_loss)
    beaten = breaks_on_losses(militia, m_loss) or city.militia <= 0
    a = hurt(state, unit, res.att_loss)
    text = "" if quiet else (f"{head}: militia loses {m_loss:,} of {militia:,}" + (" and breaks" if beaten else "")
                             + f", you lose {res.att_loss:,}")
    note_told_militia(state, unit.owner, city, militia - m_loss)
    if beaten and city.walls <= 0 and not a.broke and not a.destroyed:
        capture_city(ctx, city, unit.owner, unit)
        return f"{text}: {city.name} is taken"
    if beaten and city.walls > 0 and not quiet:
        text += f"; the walls ({city.walls:.0f}) still stand"
    text += _after_attacker(ctx, unit, a, city, False, None, between_kingdoms)
    if not quiet:
        _tell_owner(ctx, city, defender_owner, f"{city.name} was assaulted by {side_name(state, unit.owner)} "
                    f"{unit.type}: the militia lost {m_loss:,}, the attackers {res.att_loss:,}; walls {city.walls:.0f}.")
    return text


def _after_attacker(ctx: MonthContext, unit: Unit, res: Hurt, city: City, cavalry: bool, foe_id: int | None,
                    between_kingdoms: bool) -> str:
    """The attacker after the fight: destroyed under 100, or its assault breaks and it falls back (COMBAT-200..250)."""
    state = ctx.state
    if not res.destroyed and not res.broke:
        return ""
    if between_kingdoms:
        defeat_shock(state, unit.owner, unit.tile, unit.id)
    if res.destroyed:
        remove_unit(ctx, unit, captor_of(state, city.owner))
        return f"; #{unit.id} is cut to pieces and scatters"
    return f"; the assault breaks: #{unit.id} " + fall_back(ctx, unit, city.tile, cavalry, foe_owner=city.owner,
                                                             foe_id=foe_id)


# --- the fall and capture (SIEGE-210, CONQ-010..100, OPEN-1, OPEN-60) --------------------------------------


def hungry_capture_warning(state: GameState, city: City) -> str:
    """'; WARNING: ...' when a restless city just taken cannot feed its people from its granary and its halved
    harvest (CONQ-030, CITY-220): it goes short, and troops on its land eat from the same granary unless a
    stocked camp within 2 tiles feeds them first (SUPPLY-040). Empty when it can."""
    from kingdoms.engine.economy import city_output

    if not city.restless:
        return ""
    o = city_output(state, city)
    need = o.people_eat + o.troops_eat
    if city.grain + o.harvest + 1e-9 >= need:
        return ""
    return (f"; WARNING: {city.name} holds {city.grain:.0f} dan and, restless, gets only half its harvest "
            f"({o.harvest:.1f} dan a month) against {need:.1f} eaten (people {o.people_eat:.1f}, troops "
            f"{o.troops_eat:.1f}): it will go short and may revolt unless a stocked camp within {rd.CAMP_REACH} "
            "tiles feeds its garrison or wagons bring grain")


def capture_city(ctx: MonthContext, city: City, captor: str, by_unit: Unit | None) -> None:
    """Hand a fallen city to the captor with its land, improvements and grain; clear its queue and store.

    The store is credited once to the captor's capital (OPEN-1). The loser's spies inside are captured, its
    generals waiting there captured or escape (GEN-090), its siege trains, colonists and agents inside destroyed
    and its wagons taken (OPEN-60). A city the captor did not found becomes restless (CONQ-020, OPEN-17); it is a
    capture when it was taken from a rival kingdom (VIC-050); a city the captor founded is neither restless nor
    a capture (CONQ-070, VIC-070). It keeps its land and improvements (CITY-380, BUILD-130) and its grain
    (SUPPLY-210), loses its queue (BUILD-240) and starts at happiness 100 (CITY-210, CONQ-080). The assaulting
    troop advances into it (COMBAT-150; its moves are left to the attack verb). If it was the loser's capital,
    the loser is eliminated (VIC-030, CONQ-100).
    """
    from kingdoms.engine import intel

    state = ctx.state
    loser = city.owner
    loser_kd = state.kingdoms.get(loser)
    was_capital = loser_kd is not None and not loser_kd.eliminated and loser_kd.capital_id == city.id
    taken: list[str] = []
    for other in units_on(state, city.tile, loser):
        if other.type == "wagon":
            from kingdoms.engine.supply import capture_wagon

            if by_unit is not None:
                capture_wagon(ctx, other, by_unit)
            else:
                other.owner = captor
            taken.append(f"wagon #{other.id} ({other.cargo:.0f} dan) taken")
        else:
            remove_unit(ctx, other, captor, by_unit=by_unit)
            taken.append(f"{other.type} #{other.id} destroyed")
    gen.city_fell(ctx, city, loser, captor)
    credited = city.store
    city.store = 0.0
    reset_hands(city, captor)  # the captor's now: empty queue, not a capital, no unrest
    intel.spies_captured(ctx, city, loser)  # INTEL-200: the loser's spies inside are taken
    city.happiness = float(rd.HAPPY_START)
    founded_by_captor = city.founder == captor
    city.restless = not founded_by_captor
    city.captured_by = captor if (loser in state.kingdoms and loser != captor and not founded_by_captor) else None
    ctx.captured.add(city.id)
    ctx.cities_attacked.add(city.id)
    capital_text = ""
    captor_kd = state.kingdoms.get(captor)
    if captor_kd is not None and credited > 0 and captor_kd.capital_id in state.cities:
        home = state.cities[captor_kd.capital_id]
        if home.owner == captor:
            home.store += credited
            capital_text = f"; its {credited:.0f} stored production goes to {home.name}"
    if by_unit is not None and by_unit.id in state.units and by_unit.owner == captor:
        by_unit.q, by_unit.r = city.q, city.r
        by_unit.fortified = False
    captor_name = side_name(state, captor)
    loser_name = side_name(state, loser)
    what = " (a capture)" if city.captured_by == captor or city.is_ruin else ""
    ctx.emit("city_captured", f"{captor_name} takes {city.name} {fmt_tile(city.tile)} from {loser_name}{what}.", None,
             city_id=city.id, captor=captor, loser=loser, capture=bool(what))
    if captor in state.kingdoms:
        rest = "restless: hold it down with troops on its land" if city.restless else "yours again, not restless"
        ctx.emit("city_taken", f"{city.name} is yours: {rest}; {city.grain:.0f} dan in its granary{capital_text}"
                 + (f"; {', '.join(taken)}" if taken else "") + ("" if ctx.quiet else hungry_capture_warning(state, city))
                 + ".", [captor],
                 city_id=city.id)
    if loser in state.kingdoms:
        ctx.emit("city_lost", f"{city.name} has fallen to {captor_name}" + (f"; {', '.join(taken)}" if taken else "")
                 + ".", [loser], city_id=city.id)
    if was_capital:
        eliminate(ctx, loser, captor)


# --- towers (SIEGE-100, OPEN-100) and blockade status (SIEGE-150, OPEN-23) ----------------------------------


def tower_targets(state: GameState, city: City, shooters: set[int]) -> list[Unit]:
    """Enemy fighting troops beside the city, and troops that shot at it this month (SIEGE-100, DIPLO-110)."""
    out = []
    for unit in state.units.values():
        if not unit.spec.fighting or unit.men <= 0 or not state.at_war(city.owner, unit.owner):
            continue
        if distance(unit.tile, city.tile) == 1 or unit.id in shooters:
            out.append(unit)
    return sorted(out, key=lambda u: u.id)


def fire_towers(ctx: MonthContext) -> None:
    """Every walled city's towers kill 2% x durability/100 of each target, at the walls left after the volleys;
    a city without walls has no towers (SIEGE-040), and they strike only enemies at war or bandits (SIEGE-220)."""
    state = ctx.state
    for city in sorted(state.cities.values(), key=lambda c: c.id):
        if city.walls <= 0:
            continue
        rate = rd.TOWER_RATE * city.walls / 100.0
        for unit in tower_targets(state, city, ctx.shot_at_city.get(city.id, set())):
            if unit.id not in state.units:
                continue
            killed = min(unit.men, round_half_up(unit.men * rate))
            if killed <= 0:
                continue
            unit.men -= killed
            note = f"The towers of {city.name} {fmt_tile(city.tile)} kill {killed:,} of #{unit.id} {unit.type}"
            if unit.men <= 0:
                remove_unit(ctx, unit, captor_of(state, city.owner))
                note += ", the last of them"
            if unit.owner in state.kingdoms:
                ctx.emit("towers", note + ".", [unit.owner], unit_id=unit.id, city_id=city.id, killed=killed)
            if city.owner in state.kingdoms:
                ctx.emit("towers", note + ".", [city.owner], unit_id=unit.id, city_id=city.id, killed=killed)


@record
class Near:
    """The board's units as the siege questions below read them, built once by a phase that asks about every city
    (made after the phase's last change to units): the fighting troops with men with their tiles, and every unit
    by its tile, both in the state's (id) order."""

    fighting: list[tuple[int, int, Unit]]
    by_tile: dict[Tile, list[Unit]]


def units_near(state: GameState) -> Near:
    """Index the state's units now (see Near)."""
    by_tile: dict[Tile, list[Unit]] = {}
    for unit in state.units.values():
        by_tile.setdefault((unit.q, unit.r), []).append(unit)
    return Near([(u.q, u.r, u) for u in state.units.values() if u.men > 0 and u.spec.fighting], by_tile)


def besiegers(state: GameState, city: City, near: Near | None = None) -> list[Unit]:
    """Enemy fighting troops (shooters and siege trains included) on the city's own land within 2 tiles (SIEGE-150).
    `near`: the board's units_near, when the caller asks about many cities of an unchanged board."""
    out = []
    cq, cr, radius = city.q, city.r, rd.BLOCKADE_RADIUS
    # every unit, or only the fighting ones when indexed; the cheap tests first: most units stand far away
    troops = near.fighting if near is not None else ((u.q, u.r, u) for u in state.units.values())
    for q, r, unit in troops:
        dq, dr = q - cq, r - cr
        if (dq == 0 and dr == 0) or hex_len(dq, dr) > radius or unit.men <= 0 or not unit.spec.fighting:
            continue
        if state.at_war(city.owner, unit.owner) and on_city_land(state, city, unit):
            out.append(unit)
    return sorted(out, key=lambda u: u.id)


def besieging_men(state: GameState, city: City, near: Near | None = None) -> int:
    """Men of the besiegers on the city's land within 2 tiles (SIEGE-150)."""
    return sum(u.men for u in besiegers(state, city, near))


def blockade_threshold(state: GameState, city: City, near: Near | None = None) -> int:
    """Men needed to blockade: the garrison plus the militia standing now (OPEN-23)."""
    gar = garrison(state, city, near)
    return (gar.men if gar is not None else 0) + standing_militia(state, city)


def is_blockaded(state: GameState, city: City, near: Near | None = None) -> bool:
    """At least one enemy man, and at least garrison + standing militia, on its land within 2 (SIEGE-150, OPEN-100);
    fewer do nothing to the city itself (SIEGE-170)."""
    men = besieging_men(state, city, near)
    return men >= 1 and men >= blockade_threshold(state, city, near)


@phase("towers")
def towers_phase(ctx: MonthContext) -> None:
    """Towers fire; then the month's blockades are settled into ctx.blockaded for the economy (SIEGE-100, SIEGE-150)."""
    fire_towers(ctx)
    state = ctx.state
    near = units_near(state)  # no unit moves, dies or is made below
    ctx.blockaded = {c.id for c in state.cities.values() if is_blockaded(state, c, near)}
    for city in state.cities.values():
        city.last["blockaded"] = city.id in ctx.blockaded  # this month's status, for readers of the ledger
    for cid in sorted(ctx.blockaded):
        city = state.cities[cid]
        men = besieging_men(state, city, near)
        if city.owner in state.kingdoms:
            ctx.emit("blockade", f"{city.name} {fmt_tile(city.tile)} is BLOCKADED by {men:,} enemy men on its land: no "
                     f"harvest, no growth, no repairs, half production, walls -{rd.BLOCKADE_CRUMBLE} a month.",
                     [city.owner], city_id=cid, men=men)
        by: dict[str, int] = {}
        for unit in besiegers(state, city, near):
            if unit.owner in state.kingdoms:
                by[unit.owner] = by.get(unit.owner, 0) + unit.men
        for kingdom in sorted(by):  # the besiegers are told too (SIEGE-150): they see their own men on its land
            ctx.emit("blockading", f"Your troops blockade {city.name} {fmt_tile(city.tile)}: {by[kingdom]:,} of your "
                     f"men on its land within {rd.BLOCKADE_RADIUS} tiles; it gets no harvest and its walls lose "
                     f"{rd.BLOCKADE_CRUMBLE} a month while they stay.", [kingdom], city_id=cid, men=by[kingdom])


# --- walls: crumbling and repairs (SIEGE-140, SIEGE-160, OPEN-14) -------------------------------------------


@phase("blockade")
def walls_phase(ctx: MonthContext) -> None:
    """Blockaded walls crumble -5; walls not blockaded nor attacked this month rise +5 toward their ceiling."""
    for city in sorted(ctx.state.cities.values(), key=lambda c: c.id):
        if city.id in ctx.blockaded:
            city.walls = max(0.0, city.walls - rd.BLOCKADE_CRUMBLE)
        elif city.id not in ctx.cities_attacked and city.walls < city.walls_max:
            city.walls = min(float(city.walls_max), city.walls + rd.WALL_REPAIR)


# --- militia (SIEGE-060..080) and the notes the briefing shows ---------------------------------------------


@phase("militia")
def militia_phase(ctx: MonthContext) -> None:
    """Militia comes back at 20% of the full militia a month, never above it; notes for the briefing."""
    state = ctx.state
    quiet = ctx.quiet  # a forecast's month: the militia only, not the notes
    near = None if quiet else units_near(state)  # the phase changes cities only
    for city in sorted(state.cities.values(), key=lambda c: c.id):
        full = full_militia(state, city)
        now = min(float(full), max(0.0, city.militia))
        if now < full:
            now = min(float(full), now + round_half_up(rd.MILITIA_REGEN * full))
        city.militia = float(round_half_up(now))
        if quiet:
            continue
        city.last["militia_standing"] = int(city.militia)
        city.last["militia_full"] = full
        city.last["blockaded"] = city.id in ctx.blockaded
        city.last["attacked"] = city.id in ctx.cities_attacked
        city.last["besieging_men"] = besieging_men(state, city, near)
        city.last["blockade_needs"] = blockade_threshold(state, city, near)
