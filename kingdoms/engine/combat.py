"""Field combat: the battle arithmetic and what a fight does to the troops in it (COMBAT-020..280, COMBAT-400).

The exchange (reusable by sieges and bandits):

- `fighter_for(state, unit, role, vs, tile)` builds a `Fighter` (men, quality) for one role in one exchange:
  "attack" (melee attacker), "defend" (melee defender, volley target, melee strike-back), "shoot" (shooters'
  ranged quality), "return_fire" (a shooting target firing back) and "guard" (shooters' own defence under
  return fire). Quality = the stat x one field factor (1 + terrain + fortified + camp + spearmen against
  cavalry, summed, OPEN-9) x walls x spearmen-in-city x counters (the side attacking or shooting only,
  OPEN-102) x training x morale x hunger x general (x1.5 archers into a city: x0.5, OPEN-95).
- `melee(att, dfn, flank)` and `volley(shooter, target, reply, guard)` give each side's losses to the man:
  weight = sqrt(men x the smaller side's men) (COMBAT-050); melee losses 20% x the enemy's weight x
  sqrt(enemy quality / own) (COMBAT-070), the target's times the flank factor (COMBAT-130); a volley 12%
  (COMBAT-080) with return fire or a melee strike-back from the next tile (COMBAT-090, OPEN-94, OPEN-96).
  Losses are rounded half-up to whole men (economy.round_half_up, OPEN-45).

After the blow (`hurt`, `fall_back`, `field_battle`): morale -0.75 per 1% lost, rout at 25% lost or morale
<= 20 (shooters never from their own volley, a garrison never in its city), pursuit -20% of what is left,
encirclement, break-up under 100, +1 XP (and the general's), defeat shock within 3 tiles, escorted
civilians lost with their escort, advance into a cleared tile, burning camps (COMBAT-150..260, SUPPLY-290).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from kingdoms import ruledata as rd
from kingdoms.engine import generals as gen
from kingdoms.engine.conquest import captor_of, remove_unit
from kingdoms.engine.context import MonthContext
from kingdoms.engine.economy import occupies, round_half_up
from kingdoms.engine.pathing import AGENT, CIVILIAN, TROOP, Ground, slot_of
from kingdoms.engine.supply import (
    burn_camp,
    capture_wagon,
    drop_excess_rations,
    hunger_strength,
    in_own_camp,
    on_enter_tile,
)
from kingdoms.engine.visibility import note_told_unit
from kingdoms.frozen import record
from kingdoms.hexgrid import Tile, distance, fmt_tile
from kingdoms.state import GameState, Unit, side_name

ROLES = ("attack", "defend", "shoot", "return_fire", "guard")


# --- modifiers (COMBAT-020, OPEN-9, OPEN-10) ----------------------------------------------------------------


def hunger_factor(unit: Unit) -> float:
    """Strength under hunger: x max(0.2, 1 - 0.2 x hunger) (SUPPLY-190)."""
    return hunger_strength(unit.hunger)


def training_factor(unit: Unit) -> float:
    """+6% per level of training (COMBAT-260)."""
    return 1.0 + rd.TRAINING_PER_LEVEL * rd.troop_level(unit.xp)


def morale_factor(unit: Unit) -> float:
    """x(0.5 + morale/200) (COMBAT-020)."""
    return rd.MORALE_FACTOR_BASE + unit.morale / rd.MORALE_FACTOR_DIVISOR


def unit_factor(unit: Unit) -> float:
    """Training x morale x hunger: the modifiers every troop carries into a fight (COMBAT-020)."""
    return training_factor(unit) * morale_factor(unit) * hunger_factor(unit)


def walls_factor(walls: float) -> float:
    """Defenders behind walls fight at x(1 + durability/200) (SIEGE-020)."""
    return 1.0 + max(0.0, walls) / rd.WALLS_FACTOR_DIVISOR


def holds_city(state: GameState, unit: Unit, tile: Tile | None = None) -> bool:
    """The troop is the garrison of a city its kingdom holds: a troop (not a siege train) on its own city (GEN-110)."""
    tile = unit.tile if tile is None else tile
    city = state.city_at(*tile)
    return city is not None and city.owner == unit.owner and slot_of(unit) == TROOP


def terrain_bonus(state: GameState, tile: Tile) -> float:
    """The defence bonus of the tile's terrain (COMBAT-020); a city tile's counts for its garrison and militia (OPEN-98)."""
    return float(state.map.defence[state.map.index(*tile)])


def field_bonus(state: GameState, unit: Unit, tile: Tile, vs_type: str | None) -> float:
    """The summed field defence bonuses on `tile`: terrain + fortified + camp + spearmen against cavalry (OPEN-9)."""
    bonus = terrain_bonus(state, tile)
    if unit.fortified:
        bonus += rd.FORTIFY_BONUS
    if in_own_camp(state, unit, tile):
        bonus += rd.CAMP_BONUS
    if unit.type == "spearman" and vs_type == "cavalry":
        bonus += rd.SPEAR_VS_CAVALRY_FIELD
    return bonus


@record
class Fighter:
    """One side of one exchange: its men and its quality for the role it plays (COMBAT-020, OPEN-10)."""

    men: int
    quality: float


def _counter(unit_type: str, vs_type: str | None) -> float:
    """The counter factor of `unit_type` against `vs_type` (COMBAT-110, COMBAT-120), 1 with no type to counter."""
    return rd.COUNTERS.get((unit_type, vs_type), 1.0) if vs_type is not None else 1.0


def _vs_type(vs: Unit | str | None) -> str | None:
    if vs is None or isinstance(vs, str):
        return vs
    return vs.type


def fighter_for(state: GameState, unit: Unit, role: str, vs: Unit | str | None, tile: Tile | None = None, *,
                in_city_defence: bool = False, walls: float = 0.0, into_city: bool = False) -> Fighter:
    """The unit as a `Fighter` in `role` against `vs` (a unit, a type name such as "militia", or None).

    Roles: "attack" (melee attacker: attack x counter), "defend" (melee defender or volley target: defence x
    field factor, in a city x walls and spearmen x1.5 against cavalry instead of +50%), "shoot" (ranged x
    counter, archers into a city x0.5), "return_fire" (ranged x its terrain and walls only, OPEN-96),
    "guard" (the shooters' own defence, no terrain, fortify, camp or walls, OPEN-94, OPEN-96). Every role takes
    training, morale, hunger and the general (x(1 + 0.15 x level) as garrison of a city it holds, GEN-110).
    A garrison striking out gets no walls on its blow (OPEN-98): walls count only when defending.
    """
    if role not in ROLES:
        raise ValueError(f"unknown fighter role {role!r}; roles: {', '.join(ROLES)}")
    tile = unit.tile if tile is None else tile
    spec = unit.spec
    vs_type = _vs_type(vs)
    holding = in_city_defence or holds_city(state, unit, tile)
    q = unit_factor(unit) * gen.general_bonus(state, unit, holding)
    if role == "attack":  # the attack stat against the defence stat (OPEN-10), counters on attack (COMBAT-110)
        q *= spec.attack * _counter(unit.type, vs_type)
    elif role == "shoot":
        q *= spec.ranged * _counter(unit.type, vs_type)
        if into_city and unit.type == "archer":
            q *= rd.ARCHERS_INTO_CITY
    elif role == "guard":
        q *= spec.defence
    else:
        terrain = terrain_bonus(state, tile)
        if role == "return_fire":
            q *= spec.ranged * (1.0 + terrain)
        elif in_city_defence:
            field_sum = terrain + (rd.FORTIFY_BONUS if unit.fortified else 0.0)
            # spearmen x1.5 against cavalry in a city, on top of the cavalry's x0.75 (COMBAT-120, OPEN-8)
            spear = rd.SPEAR_VS_CAVALRY_CITY if unit.type == "spearman" and vs_type == "cavalry" else 1.0
            q *= spec.defence * (1.0 + field_sum) * spear
        else:
            q *= spec.defence * (1.0 + field_bonus(state, unit, tile, vs_type))
        if in_city_defence:
            q *= walls_factor(walls)
    return Fighter(unit.men, q)


# --- the exchange (COMBAT-040..090) -------------------------------------------------------------------------


@record
class ExchangeResult:
    """Men each side loses in one exchange (both strike at once from their strength before it, COMBAT-040)."""

    att_loss: int
    dfn_loss: int


def weights(a_men: float, b_men: float) -> tuple[float, float]:
    """Weights of two sides: sqrt(men x the smaller side's men) (COMBAT-050)."""
    smaller = min(a_men, b_men)
    return math.sqrt(a_men * smaller), math.sqrt(b_men * smaller)


def melee(att: Fighter, dfn: Fighter, flank: float = 1.0) -> ExchangeResult:
    """One melee: each side loses 20% x the other's weight x sqrt(other's quality / own) (COMBAT-060, COMBAT-070).

    `flank` multiplies the defender's losses only (COMBAT-130). Losses are whole men, at most the men there.
    """
    if att.men <= 0 or dfn.men <= 0 or att.quality <= 0 or dfn.quality <= 0:
        return ExchangeResult(0, 0)
    wa, wd = weights(att.men, dfn.men)
    dfn_loss = rd.MELEE_RATE * wa * math.sqrt(att.quality / dfn.quality) * flank
    att_loss = rd.MELEE_RATE * wd * math.sqrt(dfn.quality / att.quality)
    return ExchangeResult(min(att.men, round_half_up(att_loss)), min(dfn.men, round_half_up(dfn_loss)))


def volley(shooter: Fighter, target: Fighter, reply: Fighter | None = None, *, guard: Fighter | None = None,
           reply_melee: bool = False, extra: float = 1.0) -> ExchangeResult:
    """One volley: the target loses 12% x the shooters' weight x sqrt(ranged quality / its defence) (COMBAT-080).

    `reply` is the target hitting back in the same exchange (COMBAT-090): return fire (12%) from a shooting
    target in range, or a melee strike-back (20%, `reply_melee`) from the next tile; either against `guard`,
    the shooters' own defence (OPEN-94, OPEN-96). No reply: the shooters lose nothing. `att_loss` = shooters' loss.
    `extra` multiplies the target's losses (a burning camp, SUPPLY-290).
    """
    if shooter.men <= 0 or target.men <= 0 or shooter.quality <= 0 or target.quality <= 0:
        return ExchangeResult(0, 0)
    ws, _ = weights(shooter.men, target.men)
    dfn_loss = min(target.men, round_half_up(rd.RANGED_RATE * ws * math.sqrt(shooter.quality / target.quality) * extra))
    att_loss = 0
    if reply is not None and reply.men > 0 and reply.quality > 0:
        guard_q = (guard or shooter).quality
        _, wr = weights(shooter.men, reply.men)
        rate = rd.MELEE_RATE if reply_melee else rd.RANGED_RATE
        att_loss = min(shooter.men, round_half_up(rate * wr * math.sqrt(reply.quality / guard_q)))
    return ExchangeResult(att_loss, dfn_loss)


def melee_losses(a_men: int, a_q: float, d_men: int, d_q: float, flank: float = 1.0) -> tuple[int, int]:
    """(attacker loss, defender loss) of one melee from plain numbers (COMBAT-070): `melee` without Fighters."""
    res = melee(Fighter(a_men, a_q), Fighter(d_men, d_q), flank)
    return res.att_loss, res.dfn_loss


def ranged_loss(s_men: int, s_q: float, t_men: int, t_q: float) -> int:
    """Men the target of a volley loses, from plain numbers (COMBAT-080)."""
    return volley(Fighter(s_men, s_q), Fighter(t_men, t_q)).dfn_loss


def flank_factor(state: GameState, attacker: Unit, target_tile: Tile, *, walls: float | None = None) -> float:
    """1 + 15% per other own fighting troop beside the target (cavalry 25%), at most +50% (COMBAT-130, OPEN-37).

    Siege trains do not flank. With `walls` (a city's defenders) of 40 or more there is no flanking (COMBAT-140).
    """
    if walls is not None and walls >= rd.FLANK_WALLS_MIN:
        return 1.0
    bonus = 0.0
    for other in state.units.values():
        if (other.id != attacker.id and other.owner == attacker.owner and slot_of(other) == TROOP and other.men > 0
                and distance(other.tile, target_tile) == 1):
            bonus += rd.FLANK_PER_CAVALRY if other.type == "cavalry" else rd.FLANK_PER_TROOP
    return 1.0 + min(rd.FLANK_MAX, bonus)


def occupied(state: GameState, q: int, r: int, city_owner: str) -> bool:
    """An enemy fighting troop (at war with `city_owner`, or bandits) stands on (q, r): it yields nothing (COMBAT-280)."""
    return any(occupies(state, u, city_owner) for u in state.units_at(q, r))


# --- what a fight does to a troop (COMBAT-170..260) ---------------------------------------------------------


@dataclass(slots=True)
class Hurt:
    """What one fight's losses did to one troop."""

    lost: int
    broke: bool = False
    destroyed: bool = False


def morale_after(unit: Unit, lost: int) -> float:
    """The troop's morale once it loses `lost` of its men: -0.75 per 1% lost, never below 0 (COMBAT-170)."""
    if unit.men <= 0:
        return unit.morale
    return max(0.0, unit.morale - rd.MORALE_PER_PCT_LOST * 100.0 * lost / unit.men)


def breaks_on_losses(men_before: int, lost: int) -> bool:
    """Losing 25% or more of its men in one fight breaks a side (COMBAT-180); militia breaks on this alone (COMBAT-210)."""
    return lost >= rd.ROUT_LOSS_SHARE * men_before


def routs(men_before: int, lost: int, morale: float) -> bool:
    """A troop breaks when it loses 25% or more of its men in one fight or ends it at morale 20 or less (COMBAT-180)."""
    return breaks_on_losses(men_before, lost) or morale <= rd.ROUT_MORALE


def hurt(state: GameState, unit: Unit, lost: int, *, morale: bool = True, can_break: bool = True) -> Hurt:
    """Apply a fight's losses: men, -0.75 morale per 1% lost, +1 XP (troop and general), break-up under 100.

    COMBAT-170..260. Shooters after their own volley lose no morale and never break (`morale`, `can_break`
    False, COMBAT-190, OPEN-27); a garrison in its own city never breaks (COMBAT-210). Removing a destroyed
    troop and falling back are the caller's.
    """
    before = unit.men
    lost = max(0, min(lost, before))
    if morale:
        unit.morale = morale_after(unit, lost)
    unit.men = before - lost
    drop_excess_rations(unit)  # the fallen men's rations are lost with them (SUPPLY-070)
    unit.xp += 1
    gen.add_general_xp(state, unit)
    destroyed = unit.men < rd.BREAK_UP_BELOW
    broke = can_break and not destroyed and before > 0 and routs(before, lost, unit.morale)
    return Hurt(lost, broke, destroyed)


def defeat_shock(state: GameState, owner: str, tile: Tile, exclude: int | None) -> None:
    """Other troops of a side within 3 tiles lose 10 morale when one of its troops is destroyed or routed (COMBAT-240)."""
    for other in state.units.values():
        if (other.owner == owner and other.id != exclude and other.spec.fighting
                and distance(other.tile, tile) <= rd.DEFEAT_SHOCK_RADIUS):
            other.morale = max(0.0, other.morale - rd.DEFEAT_SHOCK)


def _in_enemy_reach(state: GameState, unit: Unit, tile: Tile, skip: int | None) -> bool:
    """An enemy fighting troop (other than `skip`) can strike `tile` (beside it, or within a shooter's range),
    or an enemy city stands beside it."""
    for other in state.units.values():
        if (other.id != skip and other.owner != unit.owner and other.spec.fighting and other.men > 0
                and state.at_war(unit.owner, other.owner) and distance(other.tile, tile) <= max(1, other.spec.range)):
            return True
    return any(c.owner != unit.owner and state.at_war(unit.owner, c.owner) and distance(c.tile, tile) == 1
               for c in state.cities.values())


def fall_back_tile(state: GameState, unit: Unit, enemy: Tile, skip: int | None = None) -> Tile | None:
    """Where a broken troop falls back (COMBAT-200, OPEN-75), or None when it is encircled (COMBAT-230).

    One tile, not nearer the enemy it fought, free for it and never onto a tile its own troops hold; preferring
    a tile out of other enemies' reach, then the one nearest its own cities and camps, then farther from the
    enemy, then lowest r, then lowest q. `skip` is the enemy troop it fought.
    """
    g = Ground(state, unit)
    here = distance(unit.tile, enemy)
    homes = [c.tile for c in state.cities.values() if c.owner == unit.owner] + \
            [(c.q, c.r) for c in state.camps.values() if c.owner == unit.owner]
    options: list[Tile] = []
    for j in g.free_neighbours(g.index(unit.tile)):
        t = g.tile(j)
        if t == enemy or distance(t, enemy) < here:
            continue
        if any(o.owner == unit.owner and o.spec.fighting for o in state.units_at(*t)):
            continue
        options.append(t)
    if not options:
        return None
    return min(options, key=lambda t: (_in_enemy_reach(state, unit, t, skip),
                                       min((distance(t, h) for h in homes), default=0),
                                       -distance(t, enemy), t[1], t[0]))


def _cavalry_beside(state: GameState, owner: str | None, tile: Tile) -> bool:
    return owner is not None and any(o.owner == owner and o.type == "cavalry" and o.men > 0 and distance(o.tile, tile) == 1
                                     for o in state.units.values())


def fall_back(ctx: MonthContext, unit: Unit, enemy: Tile, pursuer_cavalry: bool = False, *,
              foe_owner: str | None = None, foe_id: int | None = None) -> str:
    """A broken troop flees one tile (COMBAT-200), is pursued (COMBAT-220, OPEN-97) or surrenders (COMBAT-230).

    Pursuit: when `pursuer_cavalry` (the enemy it fought is cavalry) or a cavalry troop of `foe_owner` stands
    beside it, it first loses another 20% of the men it has left; under 100 it scatters. With no tile to flee
    to it is encircled and destroyed. A fled troop has no moves left this month, loses its standing order and
    carries out no further order this month (month.run_order refuses them).
    Returns the tail of a sentence ("falls back to (q,r)", ...).
    """
    state = ctx.state
    dest = fall_back_tile(state, unit, enemy, foe_id)
    captor = captor_of(state, foe_owner)
    if dest is None:
        remove_unit(ctx, unit, captor)
        return "is encircled with nowhere to flee and surrenders"
    note = ""
    if pursuer_cavalry or _cavalry_beside(state, foe_owner, unit.tile):
        chased = round_half_up(unit.men * rd.PURSUIT_LOSS)
        unit.men -= chased
        drop_excess_rations(unit)
        note = f", loses {chased:,} more to pursuing cavalry"
        if unit.men < rd.BREAK_UP_BELOW:
            remove_unit(ctx, unit, captor)
            return f"breaks{note} and scatters"
    unit.q, unit.r = dest
    unit.fortified = False
    unit.standing = None
    unit.standing_meta = None
    ctx.moves_left[unit.id] = 0.0
    ctx.broken.add(unit.id)  # its orders this month no longer run: it is yours to move next month (COMBAT-200)
    return f"breaks{note} and falls back to {fmt_tile(dest)}"


# --- unarmed targets (MOVE-140, COMBAT-400) -----------------------------------------------------------------


def scout_slip_tile(state: GameState, scout: Unit, attacker_tile: Tile) -> Tile | None:
    """A free tile exactly 2 from the scout, reached over a passable tile, farthest from the attacker (OPEN-75)."""
    g = Ground(state, scout)
    start = g.index(scout.tile)
    options: set[int] = set()
    for mid in g.net.nbr[start]:
        if mid < 0 or not g.enterable(mid) or g.crossing[mid]:
            continue
        for j in g.net.nbr[mid]:
            if j >= 0 and g.endable(j) and distance(g.tile(j), scout.tile) == 2:
                options.add(j)
    if not options:
        return None
    pick = min(options, key=lambda j: (-distance(g.tile(j), attacker_tile), g.net.r[j], g.net.q[j]))
    return g.tile(pick)


def scout_attacked(ctx: MonthContext, scout: Unit, attacker: Unit) -> str:
    """An attacked lone scout slips 2 tiles away, save from cavalry or with no tile free to go to (COMBAT-400)."""
    state = ctx.state
    dest = None if attacker.type == "cavalry" else scout_slip_tile(state, scout, attacker.tile)
    where = fmt_tile(scout.tile)
    if dest is None:
        why = "ridden down by cavalry" if attacker.type == "cavalry" else "caught with nowhere to slip away"
        remove_unit(ctx, scout, captor_of(state, attacker.owner), by_unit=attacker)
        _tell(ctx, scout.owner, f"Your scout #{scout.id} at {where} was {why}.", unit_id=scout.id)
        return f"the scout #{scout.id} at {where} is {why}"
    scout.q, scout.r = dest
    scout.standing = None
    _tell(ctx, scout.owner, f"Your scout #{scout.id} was attacked at {where} and slipped away to {fmt_tile(dest)}.",
          unit_id=scout.id)
    return f"the scout #{scout.id} slips away from {where} to {fmt_tile(dest)}"


def civilians_of(state: GameState, tile: Tile, owner: str) -> list[Unit]:
    """`owner`'s civilian units (colonists, wagons) on `tile`, in id order: what falls with a beaten escort (MOVE-130, MOVE-140)."""
    return [o for o in sorted(state.units_at(*tile), key=lambda u: u.id) if o.owner == owner and slot_of(o) == CIVILIAN]


def civilians_lost(ctx: MonthContext, tile: Tile, loser: str, by_unit: Unit) -> list[str]:
    """Unescorted civilians of `loser` on `tile` fall to `by_unit`: colonists destroyed, wagons captured (MOVE-140).
    Escorted ones fall only with their escort (MOVE-130); an escort guards against attacks, not return fire
    on its own siege train (MOVE-160).

    Bandits never take civilians (OPEN-2).
    """
    state = ctx.state
    if by_unit.owner not in state.kingdoms:
        return []
    out: list[str] = []
    for other in civilians_of(state, tile, loser):
        if other.type == "wagon":
            capture_wagon(ctx, other, by_unit)
            out.append(f"wagon #{other.id} captured with {other.cargo:.1f} dan")
        else:
            remove_unit(ctx, other, captor_of(state, by_unit.owner), by_unit=by_unit)
            _tell(ctx, loser, f"Your {other.type} #{other.id} at {fmt_tile(tile)} were destroyed by "
                  f"{side_name(state, by_unit.owner)} #{by_unit.id}.", unit_id=other.id)
            out.append(f"{other.type} #{other.id} destroyed")
    return out


def _tell(ctx: MonthContext, owner: str, text: str, **data: object) -> None:
    if owner in ctx.state.kingdoms:
        ctx.emit("field", text, [owner], **data)


# --- a field battle (COMBAT-040..260) -----------------------------------------------------------------------


@dataclass(slots=True)
class Side:
    """One troop's part in a battle: before and after."""

    unit_id: int
    owner: str
    type: str
    men_before: int
    quality: float
    lost: int = 0
    morale_after: float = 0.0
    broke: bool = False
    destroyed: bool = False
    fate: str = ""  # the tail of the sentence after a rout or destruction


@dataclass(slots=True)
class Battle:
    """A fight in the field: an attack in melee or a volley, and everything that followed it."""

    kind: str  # "melee" | "volley"
    attacker: Side
    defender: Side
    tile: Tile  # where the defender stood
    flank: float = 1.0
    reply: str = ""  # "return fire" | "strike back" | "" for a volley
    burned_camp: bool = False
    advanced_to: Tile | None = None
    spoils: list[str] = field(default_factory=list)  # civilians taken with their escort

    def summary(self) -> str:
        """One line for the attacker's order result."""
        a, d = self.attacker, self.defender
        verb = "attacks" if self.kind == "melee" else "shoots at"
        text = (f"#{a.unit_id} {a.type} ({a.men_before:,}) {verb} #{d.unit_id} {d.type} ({d.men_before:,}) at "
                f"{fmt_tile(self.tile)}: they lose {d.lost:,}, you lose {a.lost:,}")
        if self.flank > 1.0:
            text += f" (flanked x{self.flank:.2f})"
        if self.burned_camp:
            text += "; their camp goes up in flames"
        if d.fate:
            text += f"; #{d.unit_id} {d.fate}"
        if a.fate:
            text += f"; #{a.unit_id} {a.fate}"
        if self.spoils:
            text += "; " + ", ".join(self.spoils)
        if self.advanced_to is not None:
            text += f"; you advance into {fmt_tile(self.advanced_to)}"
        return text

    def told_defender(self, state: GameState) -> str:
        """The defender's news of the fight."""
        a, d = self.attacker, self.defender
        how = "attacked" if self.kind == "melee" else "shot at"
        text = (f"Your #{d.unit_id} {d.type} at {fmt_tile(self.tile)} was {how} by {a.type} of {side_name(state, a.owner)}: "
                f"you lost "
                f"{d.lost:,}, they lost {a.lost:,}")
        if d.fate:
            text += f"; #{d.unit_id} {d.fate}"
        if self.spoils:
            text += "; " + ", ".join(self.spoils)
        return text + "."


def _settle(ctx: MonthContext, unit: Unit, res: Hurt, side: Side, *, foe: Unit, melee_fight: bool,
            between_kingdoms: bool) -> None:
    """Destroy, or make fall back, a troop the fight broke; defeat shock in melee between kingdoms (COMBAT-240)."""
    state = ctx.state
    side.lost, side.broke, side.destroyed = res.lost, res.broke, res.destroyed
    side.morale_after = unit.morale
    where = unit.tile
    if res.destroyed:
        remove_unit(ctx, unit, captor_of(state, foe.owner), by_unit=foe)
        side.fate = "is destroyed, its last men scatter"
    elif res.broke:
        side.fate = fall_back(ctx, unit, foe.tile, foe.type == "cavalry", foe_owner=foe.owner, foe_id=foe.id)
        if unit.id not in state.units:
            side.destroyed = True
    else:
        return
    if melee_fight and between_kingdoms:
        defeat_shock(state, side.owner, where, unit.id)


def _tile_cleared(state: GameState, tile: Tile, attacker: Unit) -> bool:
    """No foreign unit an attacker must still beat stands on `tile` (foreign spies do not count)."""
    return not any(o.owner != attacker.owner and o.type != "spy" and slot_of(o) != AGENT for o in state.units_at(*tile))


def advance_into(ctx: MonthContext, attacker: Unit, tile: Tile) -> Tile | None:
    """A melee attacker that cleared the tile moves into it at no cost; lone scouts there slip away (COMBAT-150)."""
    state = ctx.state
    for scout in [o for o in state.units_at(*tile) if o.owner != attacker.owner and o.type == "scout"]:
        scout_attacked(ctx, scout, attacker)
    if not _tile_cleared(state, tile, attacker) or any(o.owner != attacker.owner and o.type == "scout"
                                                       for o in state.units_at(*tile)):
        return None
    g = Ground(state, attacker)
    if not g.endable(g.index(tile)):
        return None
    attacker.q, attacker.r = tile
    attacker.fortified = False
    on_enter_tile(ctx, attacker)
    return tile


def _camp_to_burn(state: GameState, attacker: Unit, defender: Unit) -> int | None:
    """The defender's own camp on its tile burns when it lies in forest or the attacker is cavalry (SUPPLY-290)."""
    for camp in state.camps.values():
        if (camp.q, camp.r) == defender.tile and camp.owner == defender.owner:
            forest = state.map.terrain_at(camp.q, camp.r).code == rd.F
            if forest or attacker.type == "cavalry":
                return camp.id
    return None


def burn_factor(state: GameState, attacker: Unit, defender: Unit) -> float:
    """Defenders whose camp the attack sets ablaze lose 10% more men (SUPPLY-290), else x1."""
    return 1.0 + rd.CAMP_BURN_EXTRA_LOSS if _camp_to_burn(state, attacker, defender) is not None else 1.0


def melee_exchange(state: GameState, attacker: Unit, defender: Unit) -> tuple[Fighter, Fighter, float, ExchangeResult]:
    """The melee of `attacker` striking `defender` beside it, worked out without changing anything (a dry run):
    both fighters, the flank factor and the losses, a burning camp's extra 10% included (COMBAT-040..130, SUPPLY-290).
    """
    fa = fighter_for(state, attacker, "attack", defender)
    fd = fighter_for(state, defender, "defend", attacker)
    flank = flank_factor(state, attacker, defender.tile)
    return fa, fd, flank, melee(fa, fd, flank * burn_factor(state, attacker, defender))


def field_battle(ctx: MonthContext, attacker: Unit, defender: Unit) -> Battle:
    """Fight one field battle: a melee troop strikes a troop beside it, or shooters shoot at one within range.

    Both strike at once (COMBAT-040). Melee: flanking on the defender's losses (COMBAT-130); a garrison striking
    out of its own city never breaks and stays (COMBAT-150, COMBAT-210). Volley: return fire or a strike-back from
    the next tile; the shooters lose no morale and never break (COMBAT-090, COMBAT-190). Then rout, pursuit,
    encirclement, break-up, defeat shock, escorted civilians, the advance and a burning camp.
    Marks the attacker's one attack (COMBAT-010) and ends its fortification (COMBAT-030).
    """
    state = ctx.state
    tile = defender.tile
    dist = distance(attacker.tile, tile)
    shooting = attacker.spec.shooter
    between_kingdoms = attacker.owner in state.kingdoms and defender.owner in state.kingdoms
    garrison_post = holds_city(state, attacker)
    camp_id = _camp_to_burn(state, attacker, defender)
    if shooting:
        fa = fighter_for(state, attacker, "shoot", defender)
        fd = fighter_for(state, defender, "defend", attacker)
        reply: Fighter | None = None
        reply_kind = ""
        if defender.spec.shooter and dist <= defender.spec.range:
            reply, reply_kind = fighter_for(state, defender, "return_fire", attacker), "return fire"
        elif defender.spec.fighting and not defender.spec.shooter and dist == 1:
            reply, reply_kind = fd, "strike back"
        guard = fighter_for(state, attacker, "guard", defender)
        res = volley(fa, fd, reply, guard=guard, reply_melee=reply_kind == "strike back",
                     extra=burn_factor(state, attacker, defender))
        flank = 1.0
    else:
        fa, fd, flank, res = melee_exchange(state, attacker, defender)
        reply_kind = ""
    d_loss = res.dfn_loss
    battle = Battle("volley" if shooting else "melee",
                    Side(attacker.id, attacker.owner, attacker.type, attacker.men, fa.quality),
                    Side(defender.id, defender.owner, defender.type, defender.men, fd.quality),
                    tile, flank, reply_kind)
    ctx.attacked.add(attacker.id)
    attacker.fortified = False
    if camp_id is not None:
        burn_camp(ctx, state.camps[camp_id], attacker.owner)
        battle.burned_camp = True
    a_res = hurt(state, attacker, res.att_loss, morale=not shooting, can_break=not shooting and not garrison_post)
    d_res = hurt(state, defender, d_loss, can_break=not holds_city(state, defender))
    _settle(ctx, defender, d_res, battle.defender, foe=attacker, melee_fight=not shooting,
            between_kingdoms=between_kingdoms)
    _settle(ctx, attacker, a_res, battle.attacker, foe=defender, melee_fight=not shooting,
            between_kingdoms=between_kingdoms)
    if defender.id not in state.units or defender.tile != tile:
        if attacker.id in state.units:
            battle.spoils = civilians_lost(ctx, tile, defender.owner, attacker)
        if (not shooting and attacker.id in state.units and not a_res.broke and not garrison_post
                and distance(attacker.tile, tile) == 1):
            battle.advanced_to = advance_into(ctx, attacker, tile)
    _tell(ctx, defender.owner, battle.told_defender(state), unit_id=defender.id)
    if defender.id in state.units:  # the report told the attacker its type, its men and its losses
        d = battle.defender
        note_told_unit(state, attacker.owner, defender, max(0, d.men_before - d.lost))
    return battle
