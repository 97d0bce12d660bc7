"""The attack and pillage verbs: reaching the target, striking it, standing attack orders (COMBAT-010, 290..410).

An attack names a tile. Its target is what stood there when the month began (ctx.start_tiles): a troop
first, then a siege train, then a civilian, then a scout (OPEN-52); a foreign city on the tile is attacked as
a city (sieges.assault_city / shoot_city, COMBAT-360); an undefended camp is burned or walked into.
A target troop that moved first is followed while still in sight, unless it went into a city or under an
escort (COMBAT-320, COMBAT-330). A target in reach is struck now; one the troop can reach this month is marched to
(the nearest free tile beside it, or at the shooters' full range) and struck (COMBAT-300, COMBAT-310); one farther
away is marched toward, and the order stands (COMBAT-350), aimed at the target's latest tile.
With hold, or as a garrison without pursue, it strikes only from where it stands (COMBAT-340, COMBAT-390).
At peace an attack needs surprise and a target struck from outside the other's land; it starts the war when
carried out (DIPLO-060..090). Cavalry spend 2 moves on an attack, others all (COMBAT-290, OPEN-29).

A standing order remembers what it is aimed at in `Unit.standing_meta`: the unit (followed while in sight, ended
out of sight or gone), or the city and its owner when ordered (ended once the city is seen gone or in other
hands: it never strikes the new owner, COMBAT-370, COMBAT-380).
Previews (issue-time checks, `ctx.scratch`) are exact only when a scout or spy watches the target troop, or,
for a city, with a spy report from this month or last; otherwise a RANGE over the size class's men (OPEN-49),
the target taken as untrained, at full morale, with no general (spearmen in a city), against the attacker's
true strength; later previewed attacks build on the top of the range (COMBAT-410, COMBAT-420, INTEL-060, INTEL-070, INTEL-220).
The month-end run is always exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kingdoms import ruledata as rd
from kingdoms.engine.combat import (
    Battle,
    advance_into,
    civilians_lost,
    civilians_of,
    field_battle,
    holds_city,
    scout_attacked,
)
from kingdoms.engine.context import MonthContext, OrderFailed
from kingdoms.engine.movement import Goal, march
from kingdoms.engine.pathing import AGENT, CIVILIAN, SIEGE, TROOP, Ground, is_armed, slot_of
from kingdoms.engine.registry import verb
from kingdoms.engine.sight import Sight, sight_of
from kingdoms.engine.visibility import (
    can_see_unit,
    city_troops,
    estimate_range,
    has_fresh_report,
    knows_city,
    militia_estimate,
    own_units_text,
    reported_city,
    reported_troop,
    require_own_unit,
    seen_now,
    shown_walls,
    troops_class,
    watches_unit,
)
from kingdoms.hexgrid import Tile, distance, fmt_tile, ring, spiral
from kingdoms.state import Camp, City, GameState, Unit, side_name

#: Which unit on a tile an attack hits first (OPEN-52); spies are never hit.
HIT_ORDER = {TROOP: 0, SIEGE: 1, CIVILIAN: 2, AGENT: 3}


@dataclass(slots=True)
class Target:
    """What an attack is aimed at: a unit, a city or an undefended camp, on `tile`, of `owner`."""

    kind: str  # "unit" | "city" | "camp"
    tile: Tile
    owner: str
    unit: Unit | None = None
    city: City | None = None
    camp: Camp | None = None
    label: str = ""  # a city aimed at by a standing order: its name as the kingdom knows it (perhaps out of sight)
    city_id: int | None = None  # ... and its id (`city` is None when it is gone)

    def name(self) -> str:
        if self.unit is not None:
            return f"#{self.unit.id} {self.unit.type} at {fmt_tile(self.tile)}"
        if self.kind == "city":
            return f"{self.label or (self.city.name if self.city is not None else 'the city')} {fmt_tile(self.tile)}"
        return f"the camp at {fmt_tile(self.tile)}"

    @property
    def contact(self) -> bool:
        """Civilians, scouts and camps are taken by contact: every attacker must stand beside them."""
        return self.kind == "camp" or (self.unit is not None and not self.unit.spec.fighting)


def _hit_key(unit: Unit) -> tuple[int, int]:
    return HIT_ORDER[slot_of(unit)], unit.id


def first_hit(units: list[Unit]) -> Unit | None:
    """The unit an attack on a tile strikes: troop, then siege train, then civilian, then scout (OPEN-52)."""
    pool = [u for u in units if u.type != "spy"]
    return min(pool, key=_hit_key) if pool else None


#: How many targets in sight a refusal names (nearest first).
TARGETS_SHOWN = 6


def targets_in_sight(state: GameState, kingdom: str, origin: Tile, sight: Sight | None = None) -> str:
    """What the kingdom could attack, as it sees it now: the foreign troops, cities and camps in sight nearest
    `origin` with their tiles, for refusal texts (INTEL-020..090: only what `seen_now` shows)."""
    seen = seen_now(state, kingdom, sight)
    found: list[tuple[int, int, int, str]] = []
    for rec in seen.units:
        tile = (int(rec["q"]), int(rec["r"]))
        found.append((distance(origin, tile), tile[1], tile[0],
                      f"#{rec['id']} {rec['type']} ({side_name(state, rec['owner'])}) at {fmt_tile(tile)}"))
    for rec in seen.cities:
        tile = (int(rec["q"]), int(rec["r"]))
        found.append((distance(origin, tile), tile[1], tile[0],
                      f"{rec['name']} ({side_name(state, rec['owner'])}) at {fmt_tile(tile)}"))
    for rec in seen.camps:
        tile = (int(rec["q"]), int(rec["r"]))
        found.append((distance(origin, tile), tile[1], tile[0],
                      f"a camp ({side_name(state, rec['owner'])}) at {fmt_tile(tile)}"))
    if not found:
        return "you see no foreign troop, city or camp to attack: scout ahead or march toward your enemy"
    found.sort()
    return (f"in sight, nearest {fmt_tile(origin)} first: " + ", ".join(f[3] for f in found[:TARGETS_SHOWN])
            + (f" and {len(found) - TARGETS_SHOWN} more (see your briefing)" if len(found) > TARGETS_SHOWN else ""))


def resolve_target(ctx: MonthContext, kingdom: str, to: Tile, aim: dict | None = None,
                   origin: Tile | None = None) -> Target:
    """The target of an attack on `to` as it stands now, or OrderFailed (COMBAT-320..380, INTEL-050, OPEN-52).

    `aim` is what a standing order was aimed at (`Unit.standing_meta`): that unit or city is judged, not
    whatever stands on `to` now. `origin` (the attacker's tile) orders the targets a refusal offers instead.
    """
    if aim is not None:
        kind = aim.get("kind")
        if kind == "unit":
            return _aimed_unit(ctx, kingdom, aim)
        if kind == "city":
            return _aimed_city(ctx, kingdom, to, aim)
        if kind == "camp":
            return _aimed_camp(ctx, kingdom, to, aim)
    state = ctx.state
    if state.map.index(*to) < 0:
        raise OrderFailed("off_map", state.map.off_map_text(*to) + ": attack a tile on it")
    sight = sight_of(state, kingdom)
    city = state.city_at(*to)
    if city is not None and city.owner == kingdom:
        raise OrderFailed("own_target", f"{city.name} {fmt_tile(to)} is your own city: attack an enemy; "
                                        f"{targets_in_sight(state, kingdom, origin or to, sight)}")
    if city is not None and city.is_ruin and not sight.sees(state.map, *to):
        return Target("city", to, city.owner, city=city)  # where it is and who holds it are public (VIC-130)
    if not sight.sees(state.map, *to):
        rec = _remembered_city(state, kingdom, to)
        if rec is not None:  # out of sight: the city as the map last showed it (COMBAT-380)
            cid = int(rec["id"])
            real = state.cities.get(cid)
            return Target("city", to, str(rec.get("owner")), city=real if real is not None and real.tile == to else None,
                          label=str(rec.get("name") or "the city"), city_id=cid)
    if city is not None and knows_city(state, kingdom, city, sight):
        return Target("city", to, city.owner, city=city)
    was_there = [u for u in state.units.values()
                 if ctx.start_tiles.get(u.id) == to and u.owner != kingdom and u.type != "spy"]
    first = first_hit(was_there)
    if first is not None and first.tile != to:
        haven = state.city_at(*first.tile)
        if haven is not None and haven.owner == first.owner and sight.sees(state.map, *haven.tile):
            raise OrderFailed("target_escaped", f"the troop on {fmt_tile(to)} moved into {haven.name} "
                              f"{fmt_tile(haven.tile)}: striking it there is an assault on the city, not the fight "
                              "ordered")
    if first is not None and first.tile != to and can_see_unit(state, kingdom, first, sight):
        moved_to = first.tile
        cover = first_hit([u for u in state.units_at(*moved_to) if u.owner == first.owner])
        if cover is not None and cover.id != first.id:
            raise OrderFailed("target_escaped", f"#{first.id} {first.type} moved to {fmt_tile(moved_to)} under the "
                              f"cover of #{cover.id} {cover.type}: the attack is called off")
        return Target("unit", moved_to, first.owner, unit=first)
    here = first_hit([u for u in state.units_at(*to) if u.owner != kingdom and can_see_unit(state, kingdom, u, sight)])
    if here is not None:
        return Target("unit", to, here.owner, unit=here)
    if first is not None and first.tile != to:
        # it may never have been seen (it stood there unseen): name neither its number nor its type
        raise OrderFailed("target_lost", f"what stood on {fmt_tile(to)} left it and is out of sight: the attack "
                                         "order ends")
    if sight.sees(state.map, *to):  # a camp out of sight is not known to be there (INTEL-050)
        for camp in state.camps.values():
            if (camp.q, camp.r) == to and camp.owner != kingdom:
                return Target("camp", to, camp.owner, camp=camp)
    own = [u for u in state.units_at(*to) if u.owner == kingdom]
    offer = targets_in_sight(state, kingdom, origin or to, sight)
    if own:
        raise OrderFailed("own_target", f"{fmt_tile(to)} holds your own #{own[0].id} {own[0].type}: attack an enemy; "
                                        f"{offer}")
    if not sight.sees(state.map, *to):  # say so: the order was aimed where the kingdom cannot see (issue 16)
        raise OrderFailed("no_target", f"{fmt_tile(to)} is out of your sight, so you cannot see anything there to "
                                       f"attack (scout it first); {offer}")
    raise OrderFailed("no_target", f"there is nothing you can see at {fmt_tile(to)} to attack; {offer}")


def _remembered_city(state: GameState, kingdom: str, to: Tile) -> dict | None:
    """The kingdom's last record of a foreign city on `to` (its map memory, MAP-190), latest first."""
    kd = state.kingdoms.get(kingdom)
    records = (kd.memory.get("cities") or {}).values() if kd is not None else ()
    found = [r for r in records if (int(r.get("q", -1)), int(r.get("r", -1))) == to and r.get("owner") != kingdom]
    return max(found, key=lambda r: int(r.get("month", 0))) if found else None


# --- what a standing order is aimed at (COMBAT-320, COMBAT-350, COMBAT-370, COMBAT-380) ---------------------


def aim_of(target: Target) -> dict:
    """What a standing attack remembers of its target besides the tile (`Unit.standing_meta`)."""
    aim: dict[str, Any] = {"to": list(target.tile), "owner": target.owner}
    if target.unit is not None:
        aim.update(kind="unit", unit_id=target.unit.id, type=target.unit.type)
    elif target.kind == "city":
        aim.update(kind="city", city_id=target.city.id if target.city is not None else target.city_id,
                   name=target.label or (target.city.name if target.city is not None else ""))
    elif target.camp is not None:
        aim.update(kind="camp", camp_id=target.camp.id)
    return aim


def standing_aim(unit: Unit, order: Any) -> dict | None:
    """The aim of the standing order now running for `unit` (None for a new order or a stale record).

    A new order is run with `unit.standing` cleared (month.run_order); a standing one with it still set.
    """
    meta = unit.standing_meta
    if unit.standing is None:
        unit.standing_meta = None  # left over from an order that ended elsewhere
        return None
    if not meta or unit.standing.get("action") != "attack" or getattr(order, "action", None) != "attack":
        return None
    if [int(x) for x in meta.get("to", [])] != [int(order.to[0]), int(order.to[1])]:
        return None
    return meta


def _stand(unit: Unit, order: Any, target: Target) -> None:
    """Leave the attack standing, aimed at the target's latest tile and at the target itself (COMBAT-350)."""
    unit.standing = order.model_copy(update={"to": target.tile}).model_dump(mode="json")
    unit.standing_meta = aim_of(target)


def _aimed_unit(ctx: MonthContext, kingdom: str, aim: dict) -> Target:
    """The unit a standing attack follows while it stays in sight (COMBAT-320, COMBAT-350, COMBAT-370)."""
    state = ctx.state
    uid = int(aim["unit_id"])
    what = f"#{uid} {aim.get('type', 'unit')}"
    sight = sight_of(state, kingdom)
    unit = state.units.get(uid)
    if unit is None or unit.owner != aim.get("owner") or not can_see_unit(state, kingdom, unit, sight):
        raise OrderFailed("target_lost", f"{what} is no longer in sight: the attack order ends")
    haven = state.city_at(*unit.tile)
    if haven is not None and haven.owner == unit.owner:
        raise OrderFailed("target_escaped", f"{what} moved into {haven.name} {fmt_tile(haven.tile)}: striking it "
                                            "there is an assault on the city, not the fight ordered")
    cover = first_hit([u for u in state.units_at(*unit.tile) if u.owner == unit.owner])
    if cover is not None and cover.id != unit.id:
        raise OrderFailed("target_escaped", f"{what} at {fmt_tile(unit.tile)} is under the cover of #{cover.id} "
                                            f"{cover.type}: the attack is called off")
    return Target("unit", unit.tile, unit.owner, unit=unit)


def _aimed_city(ctx: MonthContext, kingdom: str, to: Tile, aim: dict) -> Target:
    """The city a standing attack marches on: as the map shows it while out of sight (COMBAT-380)."""
    state = ctx.state
    cid = aim.get("city_id")
    city = state.cities.get(int(cid)) if cid is not None else None
    if city is not None and city.tile != to:
        city = None
    name = aim.get("name") or (city.name if city is not None else "the city")
    target = Target("city", to, str(aim.get("owner")), city=city, label=name,
                    city_id=int(cid) if cid is not None else None)
    if not sight_of(state, kingdom).sees(state.map, *to) and not (city is not None and city.is_ruin):
        return target  # whether it changed hands or is gone is judged when it is seen again (the Ruin's holder
        # is public: judged at once, VIC-130)
    return judge_city(state, kingdom, target)


def judge_city(state: GameState, kingdom: str, target: Target) -> Target:
    """A city aimed at, now seen (or struck): gone, or in other hands, ends the order (COMBAT-370)."""
    city = target.city
    if city is None or city.tile != target.tile or city.id not in state.cities:
        raise OrderFailed("target_lost", f"{target.name()} is gone: the attack order ends")
    if city.owner == kingdom:
        raise OrderFailed("own_target", f"{target.name()} is your own city now: the attack order ends")
    if city.owner != target.owner:
        raise OrderFailed("target_changed_hands", f"{target.name()} now belongs to {side_name(state, city.owner)}, "
                          f"no longer {side_name(state, target.owner)}: the attack order ends (it never attacks "
                          "the new owner; give a new attack order to strike it)")
    return target


def _aimed_camp(ctx: MonthContext, kingdom: str, to: Tile, aim: dict) -> Target:
    """An undefended camp aimed at: out of sight, gone, or defended by troops now, the order ends (COMBAT-370)."""
    state = ctx.state
    camp = state.camps.get(int(aim.get("camp_id", -1)))
    if not sight_of(state, kingdom).sees(state.map, *to):
        raise OrderFailed("target_lost", f"the camp at {fmt_tile(to)} is no longer in sight: the attack order ends")
    if camp is None or (camp.q, camp.r) != to or camp.owner != aim.get("owner"):
        raise OrderFailed("target_lost", f"the camp at {fmt_tile(to)} is gone: the attack order ends")
    guards = [u for u in state.units_at(*to) if u.owner != kingdom and u.type != "spy"]
    if guards:
        raise OrderFailed("target_escaped", f"the camp at {fmt_tile(to)} is no longer undefended: the attack order "
                                            "ends")
    return Target("camp", to, camp.owner, camp=camp)


def reach_of(attacker: Unit, target: Target) -> int:
    """How far the attacker strikes this target from: beside it, or a shooter's range (COMBAT-300, OPEN-28)."""
    if target.contact or not attacker.spec.shooter:
        return 1
    return attacker.spec.range


def approach_goal(g: Ground, attacker: Unit, target: Target) -> Goal:
    """Free tiles to strike from: beside the target, or at the shooters' full range, closer only if none is free."""
    ti = g.index(target.tile)
    reach = reach_of(attacker, target)
    for radius in range(reach, 0, -1):
        tiles = {j for j in (g.index(t) for t in ring(target.tile, radius)) if j >= 0 and g.endable(j)}
        if tiles:
            return Goal(tiles, ti, radius)
    return Goal(set(), ti, reach)


# --- the verb -----------------------------------------------------------------------------------------------


def _attacker(ctx: MonthContext, kingdom: str, order: Any) -> Unit:
    to = (order.to[0], order.to[1])
    unit = require_own_unit(ctx.state, kingdom, order.unit_id, accept=is_armed, near=to, what="troops")
    if not unit.spec.fighting:
        raise OrderFailed("not_a_fighter", f"#{unit.id} is a {unit.type}: only fighting troops attack; send one of "
                          + own_units_text(ctx.state, kingdom, accept=is_armed, near=to, what="troops"))
    if unit.id in ctx.attacked:
        raise OrderFailed("already_attacked", f"#{unit.id} has made its one attack this month (a pillage or a "
                                              "captured wagon counts): attack again next month")
    return unit


def _check_peace(ctx: MonthContext, kingdom: str, target: Target, order: Any) -> bool:
    """True when the attack is a surprise on a kingdom at peace; refuses one without surprise (DIPLO-060).

    Until it is carried out the target's land stays closed (DIPLO-070: its approach runs outside it), unless a
    declare_war listed before it ran first (DIPLO-080)."""
    state = ctx.state
    if state.at_war(kingdom, target.owner):
        return False
    who = side_name(state, target.owner)
    if not order.surprise:
        raise OrderFailed("at_peace", f"{target.name()} belongs to {who}, at peace with you: declare_war first "
                                      "(listed before the attack), or attack with surprise")
    return True


def _prepare(ctx: MonthContext, kingdom: str, order: Any, aim: dict | None = None) -> tuple[Unit, Target, bool]:
    """The attacker, its target and whether it is a surprise attack; refuses what cannot be attacked."""
    unit = _attacker(ctx, kingdom, order)
    target = resolve_target(ctx, kingdom, (order.to[0], order.to[1]), aim, origin=unit.tile)
    if target.owner == kingdom:
        raise OrderFailed("own_target", f"{target.name()} is yours: attack an enemy; "
                                        f"{targets_in_sight(ctx.state, kingdom, unit.tile)}")
    surprise = _check_peace(ctx, kingdom, target, order)
    if target.kind == "camp" and unit.spec.shooter:
        raise OrderFailed("no_target", f"{target.name()} has no troop in it to shoot at: a melee troop walks in "
                                       "and seizes it (cavalry burn it)")
    return unit, target, surprise


#: Refusals that, in a preview, may only mean an earlier previewed attack took or cleared the target (COMBAT-420).
CLEARED_CODES = frozenset({"no_target", "own_target", "target_lost", "target_escaped"})


def _struck(ctx: MonthContext) -> set[Tile]:
    """Tiles an earlier attack in this check struck (its target's tile), for COMBAT-420's "still queued"."""
    struck = ctx.__dict__.get("preview_struck")
    if struck is None:
        struck = ctx.__dict__["preview_struck"] = set()
    return struck


def _cleared_before(ctx: MonthContext, order: Any, exc: OrderFailed) -> bool:
    """In a preview: the target on the order's tile was taken or cleared by an earlier previewed attack."""
    return ctx.scratch and exc.code in CLEARED_CODES and (order.to[0], order.to[1]) in _struck(ctx)


def _check_attack(ctx: MonthContext, kingdom: str, order: Any) -> None:
    try:
        _prepare(ctx, kingdom, order)
    except OrderFailed as exc:
        if not _cleared_before(ctx, order, exc):
            raise


@verb("attack", check=_check_attack, standing=True)
def run_attack(ctx: MonthContext, kingdom: str, order: Any) -> str:
    """attack unit=ID to=q,r [hold] [pursue] [surprise]: strike what stands on the tile, marching to it if needed."""
    state = ctx.state
    mine = state.units.get(order.unit_id)
    aim = standing_aim(mine, order) if mine is not None and mine.owner == kingdom else None
    try:
        unit, target, surprise = _prepare(ctx, kingdom, order, aim)
    except OrderFailed as exc:
        if not _cleared_before(ctx, order, exc):
            raise
        return (f"would: nothing is left to strike at {fmt_tile((order.to[0], order.to[1]))} after the attacks before "
                f"this one ({exc.message}); it stays queued in case they fail")
    reach = reach_of(unit, target)
    dist = distance(unit.tile, target.tile)
    garrison = holds_city(state, unit)
    if dist <= reach:
        if ctx.moves(unit) <= 0:
            raise OrderFailed("no_moves", f"#{unit.id} has no moves left this month to attack (moves spent on an "
                                          "earlier order): attack first, or next month")
        if target.kind == "city":
            target = judge_city(state, kingdom, target)  # in reach it is struck only as the city it was (COMBAT-370)
        return _strike(ctx, unit, target, surprise)
    if order.hold or (garrison and not order.pursue):
        why = "with hold it strikes only from where it stands" if order.hold else \
            "as a garrison it strikes only what it can reach from inside its city (add pursue to march out)"
        raise OrderFailed("out_of_reach", f"{target.name()} is {dist} tiles from #{unit.id} at {fmt_tile(unit.tile)}, "
                                          f"beyond its reach of {reach}: {why}")
    g = Ground(state, unit, mode="attack")
    goal = approach_goal(g, unit, target)
    if not goal.tiles:
        raise OrderFailed("no_room", f"no free tile within reach of {target.name()} for #{unit.id} to strike from"
                          + (": its land is closed to you until the war starts" if surprise else ""))
    # a new order marches this month first: it is warned when the chase would end next month (COMBAT-350)
    chase = chase_problem(ctx, unit, g, goal, target, first=aim is None) if target.unit is not None else None
    if chase is not None and aim is not None:  # a standing attack ends rather than chase (COMBAT-350)
        raise OrderFailed(chase.code, f"#{unit.id} {unit.type}: {chase.message}: the attack ends rather than chase "
                                      f"it; move toward it (or hold ground it must pass) and attack once it is "
                                      f"within {CHASE_MONTHS} months")
    origin = unit.tile
    res = march(ctx, unit, goal, mode="attack")
    if res.route is None:
        raise OrderFailed("no_route", f"#{unit.id} at {fmt_tile(origin)} has no route to strike {target.name()}"
                          + (" from outside its kingdom's land (closed until the war starts)" if surprise else ""))
    arrived = distance(unit.tile, target.tile) <= reach
    if target.kind == "city" and sight_of(state, kingdom).sees(state.map, *target.tile):
        target = judge_city(state, kingdom, target)  # seen again on the march (COMBAT-380)
    if arrived and (not unit.spec.shooter or ctx.moves(unit) > 0):
        return f"#{unit.id} marches {fmt_tile(origin)} -> {fmt_tile(unit.tile)} and " + _strike(ctx, unit, target,
                                                                                                surprise)
    if surprise:
        raise OrderFailed("surprise_out_of_reach", f"a surprise attack must strike this month, and {target.name()} is "
                          f"{res.route.months} months' march from #{unit.id}: declare_war to march on it")
    _stand(unit, order, target)
    ahead = res.route.months - 1
    why = "in reach, it shoots next month (no move left)" if arrived else \
        (res.held or ("in reach next month" if ahead <= 1 else f"in reach in {ahead} months"))
    warn = (f"; WARNING: {chase.message}: the standing attack will end next month unless it comes nearer"
            if chase is not None else "")
    return (f"#{unit.id} {unit.type} marches {fmt_tile(origin)} -> {fmt_tile(unit.tile)} on {target.name()}: {why}; "
            f"the attack order stands{warn}")


#: Months of march past which an attack on a unit ends rather than chase it (COMBAT-350, issue 16).
CHASE_MONTHS = 2


def chase_problem(ctx: MonthContext, unit: Unit, g: Ground, goal: Goal, target: Target, *,
                  first: bool = False) -> OrderFailed | None:
    """Why an attack on a unit it cannot strike this month must not stand (COMBAT-350, SUPPLY-090): reaching the
    unit takes more than two months' march, or keeps the attacker out of supply longer than its rations last.
    `first`: a new order, which marches this month before it stands, so the limit applies from next month on.
    The route is planned without moving; None when the chase may go on."""
    from kingdoms.engine.pathing import find_route
    from kingdoms.engine.supply import in_supply, march_outlasts_rations, ration_months_left

    route = find_route(g, goal.tiles, moves_left=ctx.moves(unit), centre=goal.centre, radius=goal.radius,
                       ghost=True)
    if route is None or route.months <= 1:
        return None  # no route (the march says so) or a strike this month
    where = f"#{unit.id} at {fmt_tile(unit.tile)}"
    months = route.months - 1 if first else route.months
    if months > CHASE_MONTHS:
        when = "after this month's march it is still" if first else "it is"
        return OrderFailed("chase_too_long", f"{when} {months} months from {target.name()}, more than {CHASE_MONTHS}")
    gm = ctx.state.map
    out = sum(1 for i in route.month_ends() if not in_supply(ctx.state, unit.owner, gm.tile(i)))
    if out and march_outlasts_rations(unit, out):
        return OrderFailed("chase_outlasts_rations", f"reaching {target.name()} keeps {where} {out} month-end(s) out "
                                                     f"of supply but its rations last {ration_months_left(unit):.1f}")
    return None


def _strike(ctx: MonthContext, unit: Unit, target: Target, surprise: bool) -> str:
    """Make the attack now, from where the troop stands: spend its moves, then fight (COMBAT-010, COMBAT-290).

    A surprise attack starts the war here, when carried out, never when given (DIPLO-090)."""
    from kingdoms.engine.diplomacy import start_war

    left = ctx.moves(unit)
    ctx.moves_left[unit.id] = max(0.0, left - rd.CAVALRY_ATTACK_MOVES) if unit.type == "cavalry" else 0.0
    unit.standing = None
    unit.standing_meta = None
    if surprise:
        start_war(ctx, unit.owner, target.owner, "launches a surprise attack on")
    try:
        if ctx.scratch:
            struck = _struck(ctx)
            struck.add(target.tile)
            if target.unit is not None and target.unit.id in ctx.start_tiles:
                struck.add(ctx.start_tiles[target.unit.id])
            text = preview_strike(ctx, unit, target)
        else:
            _battle, text = _hit(ctx, unit, target)
    except OrderFailed:
        ctx.moves_left[unit.id] = left
        raise
    ctx.attacked.add(unit.id)
    unit.fortified = False
    return text


def _hit(ctx: MonthContext, unit: Unit, target: Target) -> tuple[Battle | None, str]:
    """Strike the target: a city (sieges), a camp, an unarmed unit or a troop in the field."""
    if target.kind == "city":
        if target.city is None:
            raise OrderFailed("target_lost", f"{target.name()} is gone: the attack order ends")
        try:
            from kingdoms.engine import sieges
        except ImportError as exc:  # the sieges area is not part of this build
            raise OrderFailed("not_available", "attacks on cities are not part of this game yet") from exc
        if unit.spec.shooter:
            return None, sieges.shoot_city(ctx, unit, target.city)
        return None, sieges.assault_city(ctx, unit, target.city)
    if target.camp is not None:
        return None, _hit_camp(ctx, unit, target.camp)
    victim = target.unit
    assert victim is not None
    if slot_of(victim) == CIVILIAN:
        tile = victim.tile
        shown = _civilians_seen(ctx, tile, victim.owner, unit.owner) if ctx.scratch else None
        spoils = civilians_lost(ctx, tile, victim.owner, unit)
        if shown is not None and spoils:
            spoils = shown
        text = f"#{unit.id} {unit.type} falls on {fmt_tile(tile)}: " + ", ".join(spoils or ["nothing to take"])
        return None, text + _advance_text(ctx, unit, tile)
    if victim.type == "scout":
        tile = victim.tile
        vague = ctx.scratch and unit.type != "cavalry" and not _all_in_sight(ctx.state, unit.owner, tile, 2)
        told = scout_attacked(ctx, victim, unit)
        if vague:  # where it slips to turns on tiles the kingdom does not see
            told = f"the scout #{victim.id} at {fmt_tile(tile)} slips 2 tiles away from you (caught only if it " \
                   "has nowhere to go)"
        return None, f"#{unit.id} {unit.type} attacks: " + told + _advance_text(ctx, unit, tile)
    battle = field_battle(ctx, unit, victim)
    return battle, battle.summary()


def _civilians_seen(ctx: MonthContext, tile: Tile, loser: str, kingdom: str) -> list[str]:
    """What an attack on `tile` takes of `loser`'s civilians, as the kingdom sees them: cargo only when watched."""
    state = ctx.state
    if kingdom not in state.kingdoms:
        return []
    sight = sight_of(state, kingdom)
    out: list[str] = []
    for other in civilians_of(state, tile, loser):
        if other.type == "wagon":
            cargo = f" with {other.cargo:.1f} dan" if watches_unit(state, kingdom, other, sight) else ""
            out.append(f"wagon #{other.id} captured{cargo}")
        else:
            out.append(f"{other.type} #{other.id} destroyed")
    return out


def _all_in_sight(state: GameState, kingdom: str, centre: Tile, radius: int) -> bool:
    sight = sight_of(state, kingdom)
    gm = state.map
    return all(gm.index(*t) < 0 or sight.sees(gm, *t) for t in spiral(centre, radius))


def _advance_text(ctx: MonthContext, unit: Unit, tile: Tile) -> str:
    """A melee troop moves into the tile it cleared of civilians or a scout (COMBAT-150)."""
    if unit.spec.shooter or holds_city(ctx.state, unit) or distance(unit.tile, tile) != 1:
        return ""
    dest = advance_into(ctx, unit, tile)
    return f"; advances into {fmt_tile(dest)}" if dest is not None else ""


def _hit_camp(ctx: MonthContext, unit: Unit, camp: Camp) -> str:
    """An undefended enemy camp: cavalry, or a camp in forest, burns; others walk in and seize it (SUPPLY-280, SUPPLY-290)."""
    from kingdoms.engine.supply import burn_camp

    state = ctx.state
    tile = (camp.q, camp.r)
    if unit.type == "cavalry" or state.map.terrain_at(*tile).code == rd.F:
        grain = camp.grain
        burn_camp(ctx, camp, unit.owner)
        if ctx.scratch and not sight_of(state, unit.owner).watches(state.map, *tile):
            return f"#{unit.id} {unit.type} sets the camp at {fmt_tile(tile)} ablaze (its grain burns)"
        return f"#{unit.id} {unit.type} sets the camp at {fmt_tile(tile)} ablaze ({grain:.1f} dan burned)"
    return f"#{unit.id} {unit.type} falls on the undefended camp at {fmt_tile(tile)}" + _advance_text(ctx, unit, tile)


def describe_attack_preview(ctx: MonthContext, attacker: Unit, target: Target, battle: Battle | None, text: str) -> str:
    """What a previewed attack would do (COMBAT-410, COMBAT-420, TURN-170), as worked out on the scratch board.

    `text` is the exact result (a watched target) or the estimate (`preview_strike`); `battle` the fight that
    was run on the scratch board (for an estimate: the top of the range). COMBAT-160: an advance off the
    troop's land warns what its rations allow.
    """
    from kingdoms.engine.supply import in_supply, ration_months_left

    out = f"would: {text}"
    if attacker.spec.shooter and (target.unit is not None and target.unit.spec.fighting or target.kind == "city"):
        out += ("; note: like any fight, each volley trains what it hits (+1 XP to the troop and to its general, "
                "GEN-100)")
    if battle is not None and battle.advanced_to is not None and attacker.id in ctx.state.units:
        if not in_supply(ctx.state, attacker.owner, battle.advanced_to):
            months = ration_months_left(attacker)
            out += (f"; the advance leaves it out of supply at {fmt_tile(battle.advanced_to)} with rations for "
                    f"{months:.1f} month(s)" + (" — it would go SHORT" if months < 1 else ""))
    return out


# --- previews: exact when watched, else a range (COMBAT-410, COMBAT-420, INTEL-040..070, INTEL-220) ---------


@dataclass(slots=True)
class Outcome:
    """What one attack did, measured on a board (the scratch one, or a copy of it for the other end of a range)."""

    att_men: int = 0
    att_lost: int = 0
    att_fate: str = ""  # "" | "breaks" | "is destroyed"
    dfn_lost: int = 0
    dfn_fate: str = ""  # "" | "breaks" | "is destroyed"
    walls: float | None = None
    taken: bool = False
    advanced: Tile | None = None
    burned_camp: bool = False
    spoils: bool = False
    battle: Battle | None = None


def _chain(ctx: MonthContext) -> dict[tuple[str, int], dict[str, Any]]:
    """Targets an earlier previewed attack in this check already took at the top of their range (COMBAT-420).

    Kept on the context of the check (per-check scratch), keyed ("unit", id) or ("city", id).
    """
    chain = ctx.__dict__.get("preview_chain")
    if chain is None:
        chain = ctx.__dict__["preview_chain"] = {}
    return chain


def estimated(ctx: MonthContext, kingdom: str, target: Target) -> bool:
    """True when a preview of an attack on `target` must be an estimate: a troop no scout or spy watches
    (INTEL-070, INTEL-080), a city without a spy report from this month or last (COMBAT-410, INTEL-220), or one an
    earlier previewed attack already took at the top of its range."""
    state = ctx.state
    if target.city is not None:
        return ("city", target.city.id) in _chain(ctx) or not has_fresh_report(state, kingdom, target.city.id)
    victim = target.unit
    if victim is None or not victim.spec.fighting:
        return False  # civilians, scouts and camps: nothing to estimate (their texts hide cargo and grain)
    return ("unit", victim.id) in _chain(ctx) or not watches_unit(state, kingdom, victim)


def preview_strike(ctx: MonthContext, unit: Unit, target: Target) -> str:
    """The previewed strike: run on the scratch board; exact when seen, else a range built on its top end."""
    if not estimated(ctx, unit.owner, target):
        battle, text = _hit(ctx, unit, target)
        return describe_attack_preview(ctx, unit, target, battle, text)
    if target.city is not None:
        text, battle = _estimate_city(ctx, unit, target)
    else:
        text, battle = _estimate_troop(ctx, unit, target)
    return describe_attack_preview(ctx, unit, target, battle, text)


def _take_as(unit: Unit, men: int, unit_type: str) -> None:
    """Make `unit` the troop an estimate assumes: `men` untrained men of `unit_type`, full morale, fed, no general."""
    unit.type = unit_type
    unit.men = men
    unit.xp = 0.0
    unit.morale = 100.0
    unit.hunger = 0.0
    unit.general_id = None
    unit.fortified = False


def _sub_context(ctx: MonthContext, state: GameState) -> MonthContext:
    """A context for a copy of the scratch board with the check's per-month records."""
    sub = MonthContext(state, scratch=True)
    sub.moves_left = dict(ctx.moves_left)
    sub.attacked = set(ctx.attacked)
    sub.ordered = set(ctx.ordered)
    sub.cities_attacked = set(ctx.cities_attacked)
    sub.shot_at_city = {k: set(v) for k, v in ctx.shot_at_city.items()}
    sub.start_tiles = dict(ctx.start_tiles)
    sub.acting = ctx.acting
    return sub


def _rebind(state: GameState, target: Target) -> Target:
    """The same target on a copy of the board."""
    return Target(target.kind, target.tile, target.owner,
                  unit=state.units.get(target.unit.id) if target.unit is not None else None,
                  city=state.cities.get(target.city.id) if target.city is not None else None,
                  camp=state.camps.get(target.camp.id) if target.camp is not None else None,
                  label=target.label, city_id=target.city_id)


def _routs(men: int, lost: int, morale: float) -> bool:
    """COMBAT-180: 25% of its men lost in one fight, or morale 20 or less, breaks a troop."""
    return lost >= rd.ROUT_LOSS_SHARE * men or morale <= rd.ROUT_MORALE


def _measure(ctx: MonthContext, unit: Unit, target: Target) -> Outcome:
    """Strike on `ctx`'s board and measure what it did, by the numbers (never by where anyone fled to)."""
    from kingdoms.engine.sieges import garrison, standing_militia

    state = ctx.state
    out = Outcome(att_men=unit.men)
    if target.city is None:
        battle, _text = _hit(ctx, unit, target)
        assert battle is not None
        a, d = battle.attacker, battle.defender
        out.att_lost, out.dfn_lost = a.lost, d.lost
        # a rout is told as such, whether the flight then ends in surrender (that turns on unseen tiles)
        out.att_fate = "breaks" if a.broke else ("is destroyed" if a.destroyed else "")
        out.dfn_fate = "breaks" if d.broke else ("is destroyed" if d.destroyed else "")
        out.advanced, out.burned_camp, out.spoils = battle.advanced_to, battle.burned_camp, bool(battle.spoils)
        out.battle = battle
        return out
    city = target.city
    gar = garrison(state, city)
    g_men = gar.men if gar is not None else 0
    militia = standing_militia(state, city)
    _hit(ctx, unit, target)
    out.att_lost = out.att_men - unit.men
    left = unit.men
    if left < rd.BREAK_UP_BELOW:
        out.att_fate = "is destroyed"
    elif not unit.spec.shooter and _routs(out.att_men, out.att_lost, unit.morale) and city.owner != unit.owner:
        out.att_fate = "breaks"
    g_left = gar.men if gar is not None and gar.id in state.units else 0
    out.dfn_lost = (g_men - g_left) + max(0, militia - int(round(city.militia)))
    if gar is not None and gar.id not in state.units:
        out.dfn_fate = "is destroyed"
    out.walls = city.walls
    out.taken = city.owner == unit.owner
    return out


def _span(a: int, b: int) -> str:
    lo, hi = min(a, b), max(a, b)
    return f"{lo:,}" if lo == hi else f"{lo:,}-{hi:,}"


def _fates(best: Outcome, worst: Outcome, lo: int, hi: int, who: str, what: str) -> str:
    """"; with 2,000 men they hold, with 5,999 they break" - only when either end is not a plain hold."""
    fb, fw = best.dfn_fate if who == "they" else best.att_fate, worst.dfn_fate if who == "they" else worst.att_fate
    if not fb and not fw:
        return ""
    plural = {"": "hold", "breaks": "break", "is destroyed": "are destroyed"}
    if fb == fw:
        return f"; {who} {plural[fb]} either way"
    return f"; {what} {lo:,} {who} {plural[fb]}, {what} {hi:,} {who} {plural[fw]}"


def _estimate_troop(ctx: MonthContext, unit: Unit, target: Target) -> tuple[str, Battle | None]:
    """A troop no scout or spy watches: the fight at both ends of its size class (INTEL-060, COMBAT-410, COMBAT-420).

    The low end is fought on a copy of the board; the top end on the scratch board itself, so later previewed
    attacks meet what it leaves (COMBAT-420). Only what the kingdom sees goes into the text: the size class, the
    type seen, the span of men, the losses at both ends.
    """
    state = ctx.state
    victim = target.unit
    assert victim is not None
    chain = _chain(ctx)
    key = ("unit", victim.id)
    rec = chain.get(key)
    if rec is None:
        size = troops_class(victim.men) or "small"
        lo, hi, assumed = estimate_range(size, victim.type, False)
        told = reported_troop(state, unit.owner, victim)
        if told is not None:  # the latest battle report still fits what is seen: start from its figures
            lo = hi = int(told["men"])
        rec = {"size": size, "type": assumed, "span": (lo, hi), "lo": lo, "told": told}
        top = hi
    else:
        top = victim.men
    low = max(min(1, top), min(int(rec["lo"]), top))  # a troop the low end already broke up is taken at 1 man
    copy = state.clone()
    copy_unit = copy.units[victim.id]
    if key not in chain:
        _take_as(copy_unit, low, rec["type"])
    else:
        copy_unit.men = low
    best = _measure(_sub_context(ctx, copy), copy.units[unit.id], _rebind(copy, target))
    if key not in chain:
        _take_as(victim, top, rec["type"])
        chain[key] = rec
    worst = _measure(ctx, unit, target)
    rec["lo"] = max(0, low - best.dfn_lost)
    lo0, hi0 = rec["span"]
    verb_ = "shoots at" if unit.spec.shooter else "attacks"
    told = rec.get("told")
    basis = (f"ESTIMATED from your {told['source']} of M{told['month']} ({_age(state.month, told['month'])}; no scout "
             f"or spy watches it now): {lo0:,} men then" if told else
             f"ESTIMATED (no scout or spy watches it): a {rec['size']} troop of {lo0:,}-{hi0:,} men")
    text = (f"#{unit.id} {unit.type} ({worst.att_men:,}) {verb_} #{victim.id} {rec['type']} at {fmt_tile(target.tile)}, "
            + basis)
    if (low, top) != (lo0, hi0):
        text += f" ({low:,}-{top:,} after the attacks before this one)"
    text += (f", taken as untrained {rec['type']} at full morale with no general: they lose "
             f"{_span(best.dfn_lost, worst.dfn_lost)}, you lose {_span(best.att_lost, worst.att_lost)}")
    text += _fates(best, worst, low, top, "they", "with")
    text += _fates(best, worst, low, top, "you", "against")
    if worst.burned_camp:
        text += "; their camp goes up in flames"
    if worst.spoils or best.spoils:
        text += "; the civilians they escort fall to you if they are beaten off"
    if worst.advanced is not None:
        text += f"; you advance into {fmt_tile(worst.advanced)}"
    elif best.advanced is not None:
        text += f"; at the low end you advance into {fmt_tile(best.advanced)}"
    text += "; a veteran troop, or one with a general, can do better than the worst end"
    return text, worst.battle


def _estimate_city(ctx: MonthContext, unit: Unit, target: Target) -> tuple[str, Battle | None]:
    """A city without a fresh spy report: its troops, shown only as a size class, are taken as a garrison of
    spearmen over the class's men, untrained, full morale, no general, behind the walls as seen (rounded to 5);
    with no troops seen, the militia a city of its size tier has at full strength (INTEL-060, INTEL-070, OPEN-30)."""
    from kingdoms.engine.sieges import garrison

    state = ctx.state
    city = target.city
    assert city is not None
    chain = _chain(ctx)
    key = ("city", city.id)
    rec = chain.get(key)
    first = rec is None
    if rec is None:
        troops = city_troops(state, city)
        size = troops_class(sum(u.men for u in troops))
        tier = rd.size_tier(city.people)
        m_lo, m_hi = militia_estimate(tier, state.month)
        gar = garrison(state, city) or (troops[0] if troops else None)
        lo, hi = (estimate_range(size, "troops", True)[:2]) if size is not None else (0, 0)
        told = reported_city(state, unit.owner, city)
        gtype, g_told, m_told = "spearman", None, None
        if "militia" in told:  # the latest report of its militia (a volley, an assault, a spy)
            m_lo = m_hi = int(told["militia"])
            m_told = int(told["militia_month"])
        held = [g for g in told.get("garrison", ()) if g.get("men") and g.get("type") != "catapult"
                and rd.UNITS.get(str(g.get("type"))) is not None and rd.UNITS[str(g["type"])].fighting]
        if size is not None and held and troops_class(int(held[0]["men"])) == size:
            lo = hi = int(held[0]["men"])  # a spy's older report of the garrison still fits its size class
            gtype, g_told = str(held[0]["type"]), int(told["garrison_month"])
        rec = {"size": size, "tier": tier, "span": (lo, hi), "militia": (m_lo, m_hi), "walls": float(shown_walls(city)),
               "gar": gar.id if gar is not None and size is not None else None, "lo": lo, "mil_lo": m_lo,
               "people": max(_tier_floor(tier), 10 * m_hi), "gtype": gtype, "g_told": g_told, "m_told": m_told}
    gar_id = rec["gar"]

    def take(board: GameState, men: int | None, militia: int) -> None:
        c = board.cities[city.id]
        if first:
            c.walls = rec["walls"]
            c.people = int(rec["people"])  # so the militia standing is the one assumed, whatever the true people
            if gar_id is not None and gar_id in board.units:
                _take_as(board.units[gar_id], int(men or 0), str(rec["gtype"]))
        elif gar_id is not None and gar_id in board.units and men is not None:
            board.units[gar_id].men = men
        c.militia = float(militia)

    g_now = state.units[gar_id].men if (not first and gar_id is not None and gar_id in state.units) else None
    top = rec["span"][1] if first else g_now
    low = min(int(rec["lo"]), top) if top is not None else None
    m_top = rec["militia"][1] if first else int(round(city.militia))
    m_low = min(int(rec["mil_lo"]), m_top)
    copy = state.clone()
    take(copy, low, m_low)
    best = _measure(_sub_context(ctx, copy), copy.units[unit.id], _rebind(copy, target))
    take(state, top, m_top)
    chain[key] = rec
    walls0 = city.walls
    worst = _measure(ctx, unit, target)
    if low is not None:
        rec["lo"] = max(0, low - best.dfn_lost)
    rec["mil_lo"] = max(0, m_low - (best.dfn_lost if low is None else 0))
    verb_ = "shoots at" if unit.spec.shooter else "assaults"
    text = (f"#{unit.id} {unit.type} ({worst.att_men:,}) {verb_} {city.name} {fmt_tile(city.tile)}, ESTIMATED (no spy "
            "report on it from this month or last)")
    if walls0 > 0 or (worst.walls or 0) > 0:
        text += f": walls about {walls0:.0f}" + (f" -> {worst.walls:.0f}" if worst.walls != walls0 else "")
    else:
        text += ": no walls"
    now = state.month
    if rec["size"] is not None and top is not None:
        lo0, hi0 = rec["span"]
        if rec["g_told"] is not None:
            text += (f"; its troops ({rec['size']}) taken as the garrison your spy report of M{rec['g_told']} "
                     f"({_age(now, rec['g_told'])}) gave: {lo0:,} {rec['gtype']}")
        else:
            text += f"; its troops ({rec['size']}) taken as a garrison of {lo0:,}-{hi0:,} spearmen"
        if (low, top) != (lo0, hi0):
            text += f" ({low:,}-{top:,} after the attacks before this one)"
        text += (f", untrained, at full morale, with no general: they lose {_span(best.dfn_lost, worst.dfn_lost)}, "
                 f"you lose {_span(best.att_lost, worst.att_lost)}")
        text += _fates(best, worst, low or 0, top, "they", "with")
        text += _fates(best, worst, low or 0, top, "you", "against")
        text += "; a veteran troop, a general or a different troop type can do better than the worst end"
    else:
        what = "no troops seen" if rec["size"] is None else "its garrison beaten"
        if rec["m_told"] is not None:
            text += (f"; {what}, its militia taken as {_span(*rec['militia'])} as last reported in M{rec['m_told']} "
                     f"({_age(now, rec['m_told'])}; it regrows a fifth of its full strength a month)")
        else:
            text += (f"; {what}, its militia taken as {_span(*rec['militia'])} (full strength for a {rec['tier']} "
                     "that is no capital; fewer if worn down, more in a capital)")
        if (m_low, m_top) != tuple(rec["militia"]):
            text += f" ({_span(m_low, m_top)} after the attacks before this one)"
        text += (f": it loses {_span(best.dfn_lost, worst.dfn_lost)}, you lose "
                 f"{_span(best.att_lost, worst.att_lost)}")
        text += _fates(best, worst, m_low, m_top, "you", "against")
    if worst.taken:
        text += f"; {city.name} is taken"
    elif best.taken:
        text += f"; at the low end {city.name} is taken"
    return text, worst.battle


def _age(month: int, told: int) -> str:
    """How old a report is: 'this month', '1 month old', '3 months old'."""
    n = month - told
    return "this month" if n <= 0 else f"{n} month{'s' if n != 1 else ''} old"


def _tier_floor(tier: str) -> int:
    return next((floor for floor, name in rd.SIZE_TIERS if name == tier), 0)


# --- pillage (BUILD-150..190) -------------------------------------------------------------------------------


def _improvement_at(state: GameState, tile: Tile) -> tuple[City, Any] | None:
    for city in state.cities.values():
        for imp in city.improvements:
            if (imp.q, imp.r) == tile:
                return city, imp
    return None


def _pillage_sites(state: GameState, kingdom: str, unit: Unit) -> str:
    """The foreign improvements in sight on or beside the troop's tile: what it could pillage (BUILD-150)."""
    sight = sight_of(state, kingdom)
    found = [((imp.q, imp.r), imp.kind, city) for city in state.cities.values() if city.owner != kingdom
             for imp in city.improvements
             if distance(unit.tile, (imp.q, imp.r)) <= 1 and sight.sees(state.map, imp.q, imp.r)]
    if not found:
        return (f"no foreign farm, granary or workshop is on or beside #{unit.id} at {fmt_tile(unit.tile)}: move "
                "beside one first")
    found.sort(key=lambda f: (f[0][1], f[0][0]))
    return f"within reach of #{unit.id}: " + ", ".join(
        f"the {kind} of {city.name} ({side_name(state, city.owner)}) at {fmt_tile(tile)}" for tile, kind, city in found)


def _check_pillage(ctx: MonthContext, kingdom: str, order: Any) -> tuple[Unit, City, Any]:
    state = ctx.state
    unit = _attacker(ctx, kingdom, order)
    to = (order.to[0], order.to[1])
    if distance(unit.tile, to) > 1:
        raise OrderFailed("out_of_reach", f"{fmt_tile(to)} is {distance(unit.tile, to)} tiles from #{unit.id} at "
                                          f"{fmt_tile(unit.tile)}: a troop pillages its own tile or one beside it; "
                                          "move next to it first")
    found = _improvement_at(state, to)
    if found is None:
        raise OrderFailed("no_improvement", f"there is no farm, granary or workshop at {fmt_tile(to)} to pillage; "
                                            f"{_pillage_sites(state, kingdom, unit)}")
    city, imp = found
    if city.owner == kingdom:
        raise OrderFailed("own_improvement", f"the {imp.kind} at {fmt_tile(to)} belongs to your own {city.name}; "
                                             f"{_pillage_sites(state, kingdom, unit)}")
    if not state.at_war(kingdom, city.owner):
        raise OrderFailed("at_peace", f"the {imp.kind} at {fmt_tile(to)} belongs to {city.name} of "
                                      f"{side_name(state, city.owner)}, at peace with you: pillage needs war "
                                      "(declare_war first)")
    guards = [u for u in state.units_at(*to) if u.owner == city.owner and u.spec.fighting]
    if guards:
        raise OrderFailed("guarded", f"#{guards[0].id} {guards[0].type} of {side_name(state, city.owner)} guards "
                                     f"{fmt_tile(to)}: win the tile by an attack first")
    if ctx.moves(unit) <= 0:
        raise OrderFailed("no_moves", f"#{unit.id} has no moves left this month to pillage: pillage first, or next "
                                      "month")
    return unit, city, imp


def _check_pillage_order(ctx: MonthContext, kingdom: str, order: Any) -> None:
    _check_pillage(ctx, kingdom, order)


@verb("pillage", check=_check_pillage_order)
def run_pillage(ctx: MonthContext, kingdom: str, order: Any) -> str:
    """pillage unit=ID to=q,r: destroy an enemy improvement here or beside, on a tile the owner does not guard
    (BUILD-160), at war only (DIPLO-150); it is the troop's one attack and takes nothing (BUILD-170); the owner
    is told at once (BUILD-190)."""
    unit, city, imp = _check_pillage(ctx, kingdom, order)
    tile = (imp.q, imp.r)
    city.improvements.remove(imp)
    lost = ""
    if imp.kind == "granary" and city.grain > rd.GRANARY_CAP:
        lost = f"; {city.grain - rd.GRANARY_CAP:.1f} dan above the 300 the granary held are lost"
        city.grain = float(rd.GRANARY_CAP)
    if imp.kind == "workshop":
        before = len(city.queue)
        city.queue = [e for e in city.queue if e.item != "catapult"]
        if len(city.queue) < before:
            lost += "; its queued catapults are dropped"
    left = ctx.moves(unit)
    ctx.moves_left[unit.id] = max(0.0, left - rd.CAVALRY_ATTACK_MOVES) if unit.type == "cavalry" else 0.0
    ctx.attacked.add(unit.id)
    unit.fortified = False
    if city.owner in ctx.state.kingdoms:
        ctx.emit("pillage", f"The {imp.kind} of {city.name} at {fmt_tile(tile)} was pillaged by "
                 f"{side_name(ctx.state, unit.owner)} {unit.type}{lost}.", [city.owner], city_id=city.id,
                 improvement=imp.kind, tile=list(tile))
    return f"#{unit.id} {unit.type} pillages the {imp.kind} of {city.name} at {fmt_tile(tile)}{lost}"

