"""Conquest and its aftermath: restless cities, holding them down, settling, revolts, elimination (CONQ-*, VIC-030).

A city taken by assault that the taker did not found is RESTLESS (CONQ-020, OPEN-17): the economy reads
`City.restless` (no production, no growth, half harvest). Each month the unrest phase counts the owner's
fighting troops on the city's land against `hold_down_needed`: met, a month of unrest passes and the
sixth settles the city (half its people leave); not met, a 15% revolt roll (rng "unrest") sends it back to
its founder or, with no living founder, to the bandits (CONQ-060, OPEN-16). The month a city changes hands
counts neither way. `pass_to_bandits` is shared with the economy's unhappiness revolts (CITY-200), and
`eliminate` carries out the fall of a kingdom whose capital was taken (VIC-030).
"""

from __future__ import annotations

from collections.abc import Iterable

from kingdoms import ruledata as rd
from kingdoms.engine import generals as gen
from kingdoms.engine.context import MonthContext
from kingdoms.engine.registry import phase
from kingdoms.engine.victory import check_last_standing
from kingdoms.hexgrid import fmt_tile
from kingdoms.state import City, GameState, Unit, side_name

# --- hold-down arithmetic (CONQ-040) ---------------------------------------------------------------------


def hold_down_needed(city: City) -> int:
    """Men a restless city needs on its land: 10% of its population, clamped to 500..3,000 (CONQ-040)."""
    share = int(city.people * rd.HOLD_DOWN_SHARE + 0.5)
    return max(rd.HOLD_DOWN_MIN, min(rd.HOLD_DOWN_MAX, share))


def on_city_land(state: GameState, city: City, unit: Unit) -> bool:
    """True when the unit stands on the city's land (its centre or any tile it owns)."""
    i = state.map.index(unit.q, unit.r)
    return i >= 0 and int(state.owner[i]) == city.id


def hold_down_present(state: GameState, city: City) -> int:
    """Men of the owner's fighting troops (siege trains included, OPEN-42) standing on the city's land."""
    return sum(u.men for u in state.units.values()
               if u.owner == city.owner and u.spec.fighting and u.men > 0 and on_city_land(state, city, u))


# --- removing units --------------------------------------------------------------------------------------


def captor_of(state: GameState, owner: str | None) -> str | None:
    """The kingdom that may capture a destroyed troop's general: a kingdom, never bandits (GEN-050, OPEN-40)."""
    return owner if owner in state.kingdoms else None


def remove_unit(ctx: MonthContext, unit: Unit, by_kingdom: str | None, *, by_unit: Unit | None = None) -> None:
    """Take a unit off the board; its general is captured (when a kingdom did it) or relocates (GEN-050, GEN-060)."""
    if unit.id not in ctx.state.units:
        return
    gen.troop_destroyed(ctx, unit, by_kingdom, by_unit=by_unit)
    ctx.state.units.pop(unit.id, None)
    ctx.moves_left.pop(unit.id, None)


def units_on(state: GameState, tile: tuple[int, int], owner: str | None = None) -> list[Unit]:
    """Units on a tile (of one owner when given), in id order."""
    return sorted((u for u in state.units.values() if u.tile == tile and (owner is None or u.owner == owner)),
                  key=lambda u: u.id)


def _lose_units_in(ctx: MonthContext, city: City, owner: str) -> list[Unit]:
    """The owner's units inside a city that changes hands without a fight are lost (CITY-200, OPEN-16)."""
    lost = units_on(ctx.state, city.tile, owner)
    for unit in lost:
        remove_unit(ctx, unit, None)
    return lost


def _release_waiting_generals(ctx: MonthContext, city: City, owner: str) -> None:
    """Generals of the old owner waiting in the city leave it (GEN-060); nobody captures them."""
    gen.city_fell(ctx, city, owner, None)


def reset_hands(city: City, owner: str) -> None:
    """Bookkeeping common to every change of hands: owner, no capture, no unrest, empty queue, not a capital."""
    city.owner = owner
    city.captured_by = None
    city.restless = False
    city.unrest_months = 0
    city.queue = []
    city.is_capital = False


def _hand_over(ctx: MonthContext, city: City, old: str, new: str) -> list[Unit]:
    """A city changes hands without a fight: the old owner's units inside are lost, its waiting generals leave,
    and the city passes to `new` (CITY-200, CONQ-060, OPEN-16). Returns the units lost."""
    lost = _lose_units_in(ctx, city, old)
    _release_waiting_generals(ctx, city, old)
    reset_hands(city, new)
    return lost


# --- revolts and returns (CITY-200, CONQ-060, OPEN-16, OPEN-17, OPEN-19) ------------------------------------


def pass_to_bandits(ctx: MonthContext, city: City, reason: str) -> bool:
    """The city goes over to the bandits: its owner's troops inside are lost, grain and store burn (OPEN-19, BANDIT-080).

    Returns False (and changes nothing) for a city the bandits already hold or a living kingdom's capital,
    which never revolts (CITY-200). `reason` completes the sentence "... goes over to the bandits: <reason>".
    """
    state = ctx.state
    old = city.owner
    if old == rd.BANDITS:
        return False
    kd = state.kingdoms.get(old)
    if kd is not None and not kd.eliminated and kd.capital_id == city.id:
        return False
    lost = _hand_over(ctx, city, old, rd.BANDITS)
    burned_grain, burned_store = city.grain, city.store
    city.grain = 0.0
    city.store = 0.0
    city.happiness = float(rd.HAPPY_START)
    ctx.captured.add(city.id)
    old_name = side_name(state, old)
    text = f"{city.name} {fmt_tile(city.tile)} of {old_name} goes over to the bandits: {reason}."
    ctx.emit("city_to_bandits", text, None, city_id=city.id, old_owner=old, reason=reason)
    if lost or burned_grain or burned_store:
        ctx.emit("city_lost", f"Lost with {city.name}: {_lost_text(lost)}; the bandits burn {burned_grain:.0f} dan of "
                 f"grain and {burned_store:.0f} stored production.", [old], city_id=city.id)
    return True


def return_to_founder(ctx: MonthContext, city: City, reason: str) -> bool:
    """The city revolts back to the kingdom that founded it: not restless, not a capture (CONQ-060, OPEN-16).

    The holder's troops inside are lost; the queue and store are cleared, the grain stays with the city.
    Falls back to `pass_to_bandits` when the founder is gone (or the city is the Ruin). Returns True if it moved.
    """
    state = ctx.state
    founder = city.founder
    fkd = state.kingdoms.get(founder) if founder is not None else None
    if founder is None or city.is_ruin or fkd is None or fkd.eliminated:
        return pass_to_bandits(ctx, city, reason)
    old = city.owner
    if old == founder:
        return False
    lost = _hand_over(ctx, city, old, founder)
    city.store = 0.0
    ctx.captured.add(city.id)
    old_name = side_name(state, old)
    ctx.emit("city_returned", f"{city.name} {fmt_tile(city.tile)} rises against {old_name} and returns to its founder "
             f"{fkd.name}: {reason}.", None, city_id=city.id, old_owner=old, new_owner=founder, reason=reason)
    if lost:
        ctx.emit("city_lost", f"Lost in {city.name}: {_lost_text(lost)}.", [old], city_id=city.id)
    return True


def _lost_text(units: Iterable[Unit]) -> str:
    parts = [f"#{u.id} {u.type} {u.men:,}" if u.men else f"#{u.id} {u.type}" for u in units]
    return ", ".join(parts) if parts else "no troops"


def revolt(ctx: MonthContext, city: City) -> bool:
    """An unrest revolt: back to the founder, or to the bandits when it has none living (CONQ-060, OPEN-16, OPEN-17)."""
    return return_to_founder(ctx, city, "unrest, with too few troops on its land to hold it down")


# --- the unrest phase (CONQ-030..060) --------------------------------------------------------------------


def settle(ctx: MonthContext, city: City) -> int:
    """The city accepts its new ruler: no longer restless, and half its people leave (CONQ-050). Returns who left."""
    leave = int(city.people * rd.SETTLE_LEAVE_SHARE + 0.5)
    city.people -= leave
    city.restless = False
    city.unrest_months = 0
    ctx.emit("city_settled", f"{city.name} {fmt_tile(city.tile)} accepts your rule after {rd.UNREST_MONTHS} months of "
             f"unrest: {leave:,} of its people leave it ({city.people:,} stay); it produces and grows again.",
             [city.owner], city_id=city.id, left=leave)
    return leave


@phase("unrest")
def unrest_phase(ctx: MonthContext) -> None:
    """Each restless city: a month of unrest passes if held down, else a 15% revolt roll (rng "unrest")."""
    state = ctx.state
    for city in sorted(state.cities.values(), key=lambda c: c.id):
        if city.owner == rd.BANDITS or city.owner not in state.kingdoms:
            city.restless = False
            continue
        if not city.restless:
            continue
        need = hold_down_needed(city)
        have = hold_down_present(state, city)
        city.last["hold_down_needed"] = need
        city.last["hold_down_present"] = have
        if city.id in ctx.captured:
            city.last["unrest_months"] = city.unrest_months
            continue
        if have >= need:
            city.unrest_months += 1
            city.last["unrest_months"] = city.unrest_months
            if city.unrest_months >= rd.UNREST_MONTHS:
                settle(ctx, city)
            continue
        city.last["unrest_months"] = city.unrest_months
        if ctx.rng("unrest").random() < rd.UNREST_REVOLT_CHANCE:  # made at the first roll, kept for the month
            revolt(ctx, city)
        else:
            ctx.emit("city_restless", f"{city.name} {fmt_tile(city.tile)} is restless and not held down: {have:,} men "
                     f"on its land, {need:,} needed; it may revolt ({rd.UNREST_REVOLT_CHANCE:.0%} a month).",
                     [city.owner], city_id=city.id, needed=need, present=have)


# --- elimination (VIC-030) -------------------------------------------------------------------------------


def _end_standing_attacks(state: GameState, targets: set[tuple[int, int]]) -> None:
    """Standing attack orders aimed at a fallen kingdom's troops and cities end (OPEN-3)."""
    for unit in state.units.values():
        order = unit.standing
        if not order or order.get("action") != "attack":
            continue
        to = order.get("to")
        if isinstance(to, str):
            parts = to.replace("(", "").replace(")", "").split(",")
            to = (int(parts[0]), int(parts[1])) if len(parts) == 2 else None
        if to is not None and (int(to[0]), int(to[1])) in targets:
            unit.standing = None


def eliminate(ctx: MonthContext, kingdom: str, by: str | None) -> None:
    """The kingdom falls: troops disband, generals are lost, its other cities pass to the bandits (VIC-030).

    Called once its capital has changed hands. Ends the game at once if one kingdom is left (VIC-040).
    """
    state = ctx.state
    kd = state.kingdoms.get(kingdom)
    if kd is None or kd.eliminated:
        return
    kd.eliminated = True
    kd.eliminated_month = ctx.month
    kd.capital_id = None
    mine = [u for u in state.units.values() if u.owner == kingdom]
    cities = sorted((c for c in state.cities.values() if c.owner == kingdom), key=lambda c: c.id)
    _end_standing_attacks(state, {u.tile for u in mine} | {c.tile for c in cities})
    gen.lose_generals(ctx, kingdom)
    for unit in mine:
        unit.general_id = None
        state.units.pop(unit.id, None)
        ctx.moves_left.pop(unit.id, None)
    state.spies = [s for s in state.spies if s.owner != kingdom]
    for key in [k for k, c in state.camps.items() if c.owner == kingdom]:
        del state.camps[key]
    for city in cities:
        pass_to_bandits(ctx, city, f"{kd.name} has fallen")
    by_text = f" to {state.kingdoms[by].name}" if by in state.kingdoms else ""
    ctx.emit("kingdom_eliminated", f"{kd.name} ({kd.ruler}) has fallen{by_text}: its capital is taken, its troops "
             f"disband, its generals are lost and its other cities ({len(cities)}) go over to the bandits.", None,
             kingdom=kingdom, by=by)
    check_last_standing(ctx)
