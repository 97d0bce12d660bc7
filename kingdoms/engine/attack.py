"""The attack and pillage verbs: reaching the target, striking it, standing attack orders (COMBAT-010, 290..410).

An attack names a tile. Its target is what stood there when the month began (ctx.start_tiles): a troop
first, then a siege train, then a civilian, then a scout (OPEN-52); a foreign city on the tile is attacked as
a city (sieges.assault_city / shoot_city, COMBAT-360); an undefended camp is burned or walked into.
A target troop that moved first is followed while still in sight, unless it went into a city or under an
escort (COMBAT-320/330). A target in reach is struck now; one the troop can reach this month is marched to
(the nearest free tile beside it, or at the shooters' full range) and struck (COMBAT-300/310); one farther
away is marched toward, and the order stands (COMBAT-350), aimed at the target's latest tile.
With hold, or as a garrison without pursue, it strikes only from where it stands (COMBAT-340/390).
At peace an attack needs surprise and a target struck from outside the other's land; it starts the war when
carried out (DIPLO-060..090). Cavalry spend 2 moves on an attack, others all (COMBAT-290, OPEN-29).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kingdoms import ruledata as rd
from kingdoms.engine.combat import (
    Battle,
    advance_into,
    civilians_lost,
    field_battle,
    holds_city,
    scout_attacked,
)
from kingdoms.engine.context import MonthContext, OrderFailed
from kingdoms.engine.movement import Goal, march
from kingdoms.engine.pathing import AGENT, CIVILIAN, SIEGE, TROOP, Ground, slot_of
from kingdoms.engine.registry import verb
from kingdoms.engine.sight import sight_of
from kingdoms.engine.visibility import can_see_unit, knows_city, require_own_unit
from kingdoms.hexgrid import Tile, distance, fmt_tile, ring
from kingdoms.state import Camp, City, GameState, Unit

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

    def name(self) -> str:
        if self.unit is not None:
            return f"#{self.unit.id} {self.unit.type} at {fmt_tile(self.tile)}"
        if self.city is not None:
            return f"{self.city.name} {fmt_tile(self.tile)}"
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


def _owner_name(state: GameState, owner: str) -> str:
    kd = state.kingdoms.get(owner)
    return kd.name if kd is not None else owner


def resolve_target(ctx: MonthContext, kingdom: str, to: Tile) -> Target:
    """The target of an attack on `to` as it stands now, or OrderFailed (COMBAT-320..380, INTEL-050, OPEN-52)."""
    state = ctx.state
    if state.map.index(*to) < 0:
        raise OrderFailed("off_map", f"{fmt_tile(to)} is off the map: attack a tile on it")
    city = state.city_at(*to)
    if city is not None:
        if city.owner == kingdom:
            raise OrderFailed("own_target", f"{city.name} {fmt_tile(to)} is your own city: attack an enemy")
        if knows_city(state, kingdom, city, sight_of(state, kingdom)):
            return Target("city", to, city.owner, city=city)
    was_there = [u for u in state.units.values()
                 if ctx.start_tiles.get(u.id) == to and u.owner != kingdom and u.type != "spy"]
    first = first_hit(was_there)
    sight = sight_of(state, kingdom)
    if first is not None and first.tile != to:
        haven = state.city_at(*first.tile)
        if haven is not None and haven.owner == first.owner and sight.sees(state.map, *haven.tile):
            raise OrderFailed("target_escaped", f"#{first.id} {first.type} moved into {haven.name} "
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
        raise OrderFailed("target_lost", f"#{first.id} {first.type} left {fmt_tile(to)} and is out of sight: the "
                                         "attack order ends")
    for camp in state.camps.values():
        if (camp.q, camp.r) == to and camp.owner != kingdom:
            return Target("camp", to, camp.owner, camp=camp)
    own = [u for u in state.units_at(*to) if u.owner == kingdom]
    if own:
        raise OrderFailed("own_target", f"{fmt_tile(to)} holds your own #{own[0].id} {own[0].type}: attack an enemy")
    raise OrderFailed("no_target", f"there is nothing you can see at {fmt_tile(to)} to attack")


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


# --- the verb ----------------------------------------------------------------------------------------------------


def _attacker(ctx: MonthContext, kingdom: str, order: Any) -> Unit:
    unit = require_own_unit(ctx.state, kingdom, order.unit_id)
    if not unit.spec.fighting:
        raise OrderFailed("not_a_fighter", f"#{unit.id} is a {unit.type}: only fighting troops attack")
    if unit.id in ctx.attacked:
        raise OrderFailed("already_attacked", f"#{unit.id} has made its one attack this month (a pillage or a "
                                              "captured wagon counts): attack again next month")
    return unit


def _check_peace(ctx: MonthContext, kingdom: str, target: Target, order: Any) -> bool:
    """True when the attack is a surprise on a kingdom at peace; refuses one without surprise (DIPLO-060)."""
    state = ctx.state
    if state.at_war(kingdom, target.owner):
        return False
    who = _owner_name(state, target.owner)
    if not order.surprise:
        raise OrderFailed("at_peace", f"{target.name()} belongs to {who}, at peace with you: declare_war first "
                                      "(listed before the attack), or attack with surprise")
    return True


def _prepare(ctx: MonthContext, kingdom: str, order: Any) -> tuple[Unit, Target, bool]:
    """The attacker, its target and whether it is a surprise attack; refuses what cannot be attacked."""
    unit = _attacker(ctx, kingdom, order)
    target = resolve_target(ctx, kingdom, (order.to[0], order.to[1]))
    if target.owner == kingdom:
        raise OrderFailed("own_target", f"{target.name()} is yours: attack an enemy")
    surprise = _check_peace(ctx, kingdom, target, order)
    if target.kind == "camp" and unit.spec.shooter:
        raise OrderFailed("no_target", f"{target.name()} has no troop in it to shoot at: a melee troop walks in "
                                       "and seizes it (cavalry burn it)")
    return unit, target, surprise


def _check_attack(ctx: MonthContext, kingdom: str, order: Any) -> None:
    _prepare(ctx, kingdom, order)


@verb("attack", check=_check_attack, standing=True)
def run_attack(ctx: MonthContext, kingdom: str, order: Any) -> str:
    """attack unit=ID to=q,r [hold] [pursue] [surprise]: strike what stands on the tile, marching to it if needed."""
    state = ctx.state
    unit, target, surprise = _prepare(ctx, kingdom, order)
    reach = reach_of(unit, target)
    dist = distance(unit.tile, target.tile)
    garrison = holds_city(state, unit)
    if dist <= reach:
        if ctx.moves(unit) <= 0:
            raise OrderFailed("no_moves", f"#{unit.id} has no moves left this month to attack (moves spent on an "
                                          "earlier order): attack first, or next month")
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
    origin = unit.tile
    res = march(ctx, unit, goal, mode="attack")
    if res.route is None:
        raise OrderFailed("no_route", f"#{unit.id} at {fmt_tile(origin)} has no route to strike {target.name()}"
                          + (" from outside its kingdom's land (closed until the war starts)" if surprise else ""))
    arrived = distance(unit.tile, target.tile) <= reach
    if arrived and (not unit.spec.shooter or ctx.moves(unit) > 0):
        return f"#{unit.id} marches {fmt_tile(origin)} -> {fmt_tile(unit.tile)} and " + _strike(ctx, unit, target,
                                                                                                surprise)
    if surprise:
        raise OrderFailed("surprise_out_of_reach", f"a surprise attack must strike this month, and {target.name()} is "
                          f"{res.route.months} months' march from #{unit.id}: declare_war to march on it")
    unit.standing = order.model_copy(update={"to": target.tile}).model_dump(mode="json")
    ahead = res.route.months - 1
    why = "in reach, it shoots next month (no move left)" if arrived else \
        (res.held or ("in reach next month" if ahead <= 1 else f"in reach in {ahead} months"))
    return (f"#{unit.id} {unit.type} marches {fmt_tile(origin)} -> {fmt_tile(unit.tile)} on {target.name()}: {why}; "
            "the attack order stands")


def _strike(ctx: MonthContext, unit: Unit, target: Target, surprise: bool) -> str:
    """Make the attack now, from where the troop stands: spend its moves, then fight (COMBAT-010, COMBAT-290)."""
    from kingdoms.engine.diplomacy import start_war

    left = ctx.moves(unit)
    ctx.moves_left[unit.id] = max(0.0, left - rd.CAVALRY_ATTACK_MOVES) if unit.type == "cavalry" else 0.0
    unit.standing = None
    if surprise:
        start_war(ctx, unit.owner, target.owner, "launches a surprise attack on")
    try:
        battle, text = _hit(ctx, unit, target)
    except OrderFailed:
        ctx.moves_left[unit.id] = left
        raise
    ctx.attacked.add(unit.id)
    unit.fortified = False
    if ctx.scratch:
        return describe_attack_preview(ctx, unit, target, battle, text)
    return text


def _hit(ctx: MonthContext, unit: Unit, target: Target) -> tuple[Battle | None, str]:
    """Strike the target: a city (sieges), a camp, an unarmed unit or a troop in the field."""
    if target.city is not None:
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
        spoils = civilians_lost(ctx, tile, victim.owner, unit)
        text = f"#{unit.id} {unit.type} falls on {fmt_tile(tile)}: " + ", ".join(spoils or ["nothing to take"])
        return None, text + _advance_text(ctx, unit, tile)
    if victim.type == "scout":
        tile = victim.tile
        text = f"#{unit.id} {unit.type} attacks: " + scout_attacked(ctx, victim, unit)
        return None, text + _advance_text(ctx, unit, tile)
    battle = field_battle(ctx, unit, victim)
    return battle, battle.summary()


def _advance_text(ctx: MonthContext, unit: Unit, tile: Tile) -> str:
    """A melee troop moves into the tile it cleared of civilians or a scout (COMBAT-150)."""
    if unit.spec.shooter or holds_city(ctx.state, unit) or distance(unit.tile, tile) != 1:
        return ""
    dest = advance_into(ctx, unit, tile)
    return f"; advances into {fmt_tile(dest)}" if dest is not None else ""


def _hit_camp(ctx: MonthContext, unit: Unit, camp: Camp) -> str:
    """An undefended enemy camp: cavalry, or a camp in forest, burns; others walk in and seize it (SUPPLY-280/290)."""
    from kingdoms.engine.supply import burn_camp

    state = ctx.state
    tile = (camp.q, camp.r)
    if unit.type == "cavalry" or state.map.terrain_at(*tile).code == rd.F:
        burn_camp(ctx, camp, unit.owner)
        return f"#{unit.id} {unit.type} sets the camp at {fmt_tile(tile)} ablaze ({camp.grain:.1f} dan burned)"
    return f"#{unit.id} {unit.type} falls on the undefended camp at {fmt_tile(tile)}" + _advance_text(ctx, unit, tile)


def describe_attack_preview(ctx: MonthContext, attacker: Unit, target: Target, battle: Battle | None, text: str) -> str:
    """What a previewed attack would do (COMBAT-410/420, TURN-170), run on the scratch board.

    The single hook for the preview's figures: today they are exact (a dry run on the true state, which later
    previewed attacks build on); a target the kingdom does not watch should be shown as a range (INTEL-060).
    COMBAT-160: an advance off the troop's land warns what its rations allow.
    """
    from kingdoms.engine.supply import in_supply, ration_months_left

    out = f"would: {text}"
    if battle is not None and battle.advanced_to is not None and attacker.id in ctx.state.units:
        if not in_supply(ctx.state, attacker.owner, battle.advanced_to):
            months = ration_months_left(attacker)
            out += (f"; the advance leaves it out of supply at {fmt_tile(battle.advanced_to)} with rations for "
                    f"{months:.1f} month(s)" + (" — it would go SHORT" if months < 1 else ""))
    return out


# --- pillage (BUILD-150..190) ---------------------------------------------------------------------------------------


def _improvement_at(state: GameState, tile: Tile) -> tuple[City, Any] | None:
    for city in state.cities.values():
        for imp in city.improvements:
            if (imp.q, imp.r) == tile:
                return city, imp
    return None


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
        raise OrderFailed("no_improvement", f"there is no farm, granary or workshop at {fmt_tile(to)} to pillage")
    city, imp = found
    if city.owner == kingdom:
        raise OrderFailed("own_improvement", f"the {imp.kind} at {fmt_tile(to)} belongs to your own {city.name}")
    if not state.at_war(kingdom, city.owner):
        raise OrderFailed("at_peace", f"the {imp.kind} at {fmt_tile(to)} belongs to {city.name} of "
                                      f"{_owner_name(state, city.owner)}, at peace with you: pillage needs war "
                                      "(declare_war first)")
    guards = [u for u in state.units_at(*to) if u.owner == city.owner and u.spec.fighting]
    if guards:
        raise OrderFailed("guarded", f"#{guards[0].id} {guards[0].type} of {_owner_name(state, city.owner)} guards "
                                     f"{fmt_tile(to)}: win the tile by an attack first")
    if ctx.moves(unit) <= 0:
        raise OrderFailed("no_moves", f"#{unit.id} has no moves left this month to pillage: pillage first, or next "
                                      "month")
    return unit, city, imp


def _check_pillage_order(ctx: MonthContext, kingdom: str, order: Any) -> None:
    _check_pillage(ctx, kingdom, order)


@verb("pillage", check=_check_pillage_order)
def run_pillage(ctx: MonthContext, kingdom: str, order: Any) -> str:
    """pillage unit=ID to=q,r: destroy an enemy improvement here or beside; it is the troop's attack (BUILD-150..190)."""
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
                 f"{_owner_name(ctx.state, unit.owner)} {unit.type}{lost}.", [city.owner], city_id=city.id,
                 improvement=imp.kind, tile=list(tile))
    return f"#{unit.id} {unit.type} pillages the {imp.kind} of {city.name} at {fmt_tile(tile)}{lost}"

