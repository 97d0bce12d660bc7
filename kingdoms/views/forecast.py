"""Forecasts of fights and sieges as one kingdom may make them: the engine's own exchange, run on a copy of its
believed board (engine.belief) with the foreign side taken as the kingdom may know it.

This module sits behind the observation boundary: only views.observation calls it (Observation.fight,
.city_defence, .siege), handing over the believed board and the kingdom's sight; what comes back is plain
numbers. Nothing here is a formula of its own: a field fight is `combat.field_battle` (both sides' quality,
the counters, terrain, fortification, flanking, rout, pursuit and encirclement), a siege month is
`sieges.shoot_city` and `sieges.assault_city` for each troop, then the towers, the walls and the militia
phases, exactly as the month's end runs them; the copy is thrown away.

Fog (INTEL-060, INTEL-070, COMBAT-410, OPEN-30, OPEN-49, OPEN-50): a foreign troop no scout or spy watches is taken as the
attack preview takes it (visibility.estimate_range: its size class's span of men, untrained, full morale, no
general), and the forecast is run at both ends of the span. A foreign city without a spy report from this
month or last is taken as it shows: walls as seen (rounded to 5), its troops' size class as spearmen (held
fortified: a garrison usually is), its militia the span of its size tier — a capital's (the kingdom's first
known city, as anyone would guess) at the capital's floor — and its people the tier's, so that nothing the
kingdom cannot see (true men, people, militia, walls, whether it is really the capital) reaches the numbers.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kingdoms import ruledata as rd
from kingdoms.engine.combat import field_battle
from kingdoms.engine.context import MonthContext, OrderFailed
from kingdoms.engine.pathing import AGENT, Ground, slot_of
from kingdoms.engine.sieges import (
    assault_city,
    fire_towers,
    garrison,
    is_blockaded,
    militia_phase,
    shoot_city,
    standing_militia,
    walls_phase,
)
from kingdoms.engine.sight import Sight
from kingdoms.engine.visibility import (
    estimate_range,
    has_fresh_report,
    militia_estimate,
    shown_walls,
    troops_class,
)
from kingdoms.frozen import record
from kingdoms.hexgrid import Tile, distance, hex_len, ring
from kingdoms.state import City, GameState, Unit

# =============================================================================================================
# What a forecast is asked about and what it answers
# =============================================================================================================


@record
class Troop:
    """A troop that is not on the board, for a forecast: a planned army, or one the kingdom is about to raise.

    `level` is its training level (barracks recruits start at 1), `general` the level of a general leading
    it (0: none).
    """

    type: str
    men: int
    level: int = 0
    morale: float = 100.0
    fortified: bool = False


@record
class Blow:
    """One end of a forecast fight: each side's men before it, the men it loses and how it ends (COMBAT-170 to COMBAT-250)."""

    att_men: int
    att_lost: int
    att_broke: bool
    att_destroyed: bool
    def_men: int
    def_lost: int
    def_broke: bool
    def_destroyed: bool


@record
class FightForecast:
    """A field fight forecast at both ends of what is known of the foreign side (`low` and `high` men); `exact`
    when every side is known to the man (then the two ends are the same)."""

    kind: str  # "melee" | "volley"
    exact: bool
    low: Blow
    high: Blow


@record
class CityDefence:
    """A foreign city's defence as the kingdom may know it: exact with a fresh spy report, else as it shows."""

    city_id: int
    owner: str
    exact: bool
    walls: float
    garrison_type: str | None
    garrison: tuple[int, int]  # men (low, high); (0, 0) when no troops show
    militia: tuple[int, int]  # standing militia (low, high)
    capital: bool  # a kingdom's first city, taken as its capital (CONQ, SIEGE-070)
    tier: str  # its size tier as last seen (OPEN-50)
    seen_month: int  # when its troops were last seen


@record
class SiegeMonth:
    """One month of a forecast siege, after its volleys, assaults, towers and repairs."""

    walls: float
    garrison: int
    militia: int
    lost: int  # the attackers' men lost this month (towers included)
    taken: bool


@record
class SiegeForecast:
    """A siege forecast month by month until the city falls (`taken_in`: 1 = the first month) or `months` run out.

    `placed` is how many of the force found a tile to strike from (melee troops beside the city, shooters
    within range); the others took no part.
    """

    city_id: int
    exact: bool
    months: tuple[SiegeMonth, ...]
    taken_in: int | None
    lost: int
    placed: int


# =============================================================================================================
# The foreign side as the kingdom may know it
# =============================================================================================================


def first_cities(board: GameState, kingdom: str) -> dict[str, int]:
    """Each rival's lowest-numbered city the kingdom knows of: its capital as anyone would guess (the first city
    of a kingdom is the one it landed with)."""
    out: dict[str, int] = {}
    for cid in sorted(board.cities):
        city = board.cities[cid]
        if city.owner != kingdom and city.owner in board.kingdoms:
            out.setdefault(city.owner, cid)
    return out


def city_defence(board: GameState, kingdom: str, sight: Sight, city_id: int, seen: object | None) -> CityDefence:
    """The defence of a foreign city on the believed board as the kingdom may know it (see the module notes).

    `seen` is the view's record of the city (views.kingdom_view.SeenCity) or None (the Ruin out of sight).
    """
    city = board.cities[city_id]
    gm = board.map
    capital = first_cities(board, kingdom).get(city.owner) == city_id
    if has_fresh_report(board, kingdom, city_id):
        gar = garrison(board, city)
        men = gar.men if gar is not None else 0
        mil = standing_militia(board, city)
        return CityDefence(city_id, city.owner, True, float(city.walls), gar.type if gar is not None else None,
                           (men, men), (mil, mil), capital, rd.size_tier(city.people), board.month)
    in_sight = bool(sight.visible[gm.index(city.q, city.r)])
    size = getattr(seen, "troops", None)
    walls = getattr(seen, "walls", None)
    tier = getattr(seen, "size", None)
    month = int(getattr(seen, "month", board.month))
    if city.is_ruin and city.owner == rd.BANDITS and (seen is None or not in_sight):
        # public facts (VIC-130): 1,500 spearmen behind walls 50, 10,000 people
        size = size or troops_class(rd.RUIN_GARRISON)
        walls = rd.RUIN_WALLS if walls is None else walls
        tier = tier or rd.size_tier(rd.RUIN_PEOPLE)
    if in_sight:
        size = troops_class(sum(u.men for u in board.units_at(city.q, city.r)
                                if u.owner == city.owner and u.spec.fighting))
        walls = shown_walls(city)
        tier = rd.size_tier(city.people)
    lo, hi = (estimate_range(size, "troops", True)[:2]) if size else (0, 0)
    m_lo, m_hi = militia_estimate(tier or "village", board.month)
    if capital:
        floor = rd.full_militia(_tier_people(tier or "village"), True, board.month)
        m_lo, m_hi = max(m_lo, floor), max(m_hi, rd.full_militia(_tier_top(tier or "village"), True, board.month))
    if city.is_ruin and city.owner == rd.BANDITS:
        m_lo = m_hi = rd.full_militia(rd.RUIN_PEOPLE, False, board.month)
    return CityDefence(city_id, city.owner, False, float(walls or 0), "spearman" if size else None, (lo, hi),
                       (m_lo, m_hi), capital, tier or "village", month)


def _tier_people(tier: str) -> int:
    """The fewest people of a size tier."""
    return next(floor for floor, name in rd.SIZE_TIERS if name == tier)


def _tier_top(tier: str) -> int:
    """The most people of a size tier (the next tier's floor less one; a great city: 150,000)."""
    floors = sorted(floor for floor, _ in rd.SIZE_TIERS)
    floor = _tier_people(tier)
    above = [f for f in floors if f > floor]
    return above[0] - 1 if above else 150_000


def _at(span: tuple[int, int], end: float) -> int:
    """The point `end` of the way from the low end of a span to its top (0: low, 1: top)."""
    return int(round(span[0] + (span[1] - span[0]) * end))


def _mask_city(board: GameState, kingdom: str, city: City, dfn: CityDefence, end: float) -> None:
    """Make the copy's city what the kingdom may know of it, taken `end` of the way up what it may be (0: the
    low end, 1: the top); nothing to do with a fresh spy report."""
    if dfn.exact:
        return
    city.walls = dfn.walls
    city.people = _at((_tier_people(dfn.tier), _tier_top(dfn.tier)), end)
    kd = board.kingdoms.get(city.owner)
    city.is_capital = dfn.capital
    if kd is not None:
        kd.capital_id = city.id if dfn.capital else (kd.capital_id if kd.capital_id != city.id else -1)
    city.militia = float(_at(dfn.militia, end))
    men = _at(dfn.garrison, end)
    troops = [u for u in board.units_at(city.q, city.r) if u.owner == city.owner and u.spec.fighting]
    for u in troops[1:]:
        del board.units[u.id]
    if men <= 0:
        if troops:
            del board.units[troops[0].id]
        return
    if troops:
        gar = troops[0]
    else:
        gar = Unit(board.new_id(), city.owner, "spearman", city.q, city.r)
        board.units[gar.id] = gar
    gar.type, gar.men, gar.xp, gar.morale, gar.hunger, gar.general_id = "spearman", men, 0.0, 100.0, 0.0, None
    gar.fortified = True


def _mask_unit(board: GameState, kingdom: str, sight: Sight, unit: Unit, high: bool, planned: set[int]) -> bool:
    """Make a foreign troop on the copy what the kingdom may know of it; True when that is exact (watched, own, or
    a planned Troop, whose numbers are the question's)."""
    if unit.owner == kingdom or unit.id in planned:
        return True
    i = board.map.index(unit.q, unit.r)
    watched = bool(sight.spy_eye[i]) if board.city_at(unit.q, unit.r) is not None else bool(sight.watched[i])
    if watched:
        return True
    size = troops_class(unit.men) or "small"
    lo, hi, assumed = estimate_range(size, unit.type, board.city_at(unit.q, unit.r) is not None)
    unit.type, unit.men = assumed, hi if high else lo
    unit.xp, unit.morale, unit.hunger, unit.general_id = 0.0, 100.0, 0.0, None
    return False


def _hypothetical(board: GameState, owner: str, troop: Troop, tile: Tile) -> Unit:
    """A Troop put on the copy as a unit of `owner` on `tile`."""
    xp = float(rd.XP_LEVELS[troop.level - 1]) if troop.level > 0 else 0.0
    unit = Unit(board.new_id(), owner, troop.type, tile[0], tile[1], men=troop.men, xp=xp, morale=troop.morale,
                fortified=troop.fortified, rations=troop.men / 1000.0 * rd.MAX_RATION_MONTHS)
    board.units[unit.id] = unit
    return unit


# =============================================================================================================
# Field fights
# =============================================================================================================


def _local_copy(board: GameState, centre: Tile, keep_units: Iterable[int] = (), radius: int = 4) -> GameState:
    """A copy of the board with only what a fight at `centre` can touch: the cities and units within `radius`
    (and `keep_units`); the phases a forecast runs then loop over a handful of things, not the whole map."""
    keep = set(keep_units)
    q0, r0 = centre  # hex_len of the offsets: no tile tuple made per city and unit of the board it scans
    cities = {cid for cid, c in board.cities.items() if hex_len(c.q - q0, c.r - r0) <= radius}
    units = {uid for uid, u in board.units.items() if uid in keep or hex_len(u.q - q0, u.r - r0) <= radius}
    return board.clone(units=units, cities=cities)  # only what is kept is copied


def _spot(board: GameState, unit: Unit, target: Tile, reach: int, taken: set[Tile],
          shared: Ground | None = None) -> Tile | None:
    """A free tile from which `unit` strikes `target` (melee: beside it; shooters: at their full range, closer
    only if none is free), nearest the unit; None if there is none.

    `shared`: a Ground of another unit of the same owner on this board (_can_share_ground), whose closed land,
    cities, foreign units and river crossings are this unit's too; only its own units' tiles are read anew."""
    g = Ground(board, unit) if shared is None else shared
    here = unit.tile
    hq, hr = here
    gm = board.map
    for d in range(reach, 0, -1):
        tiles = [t for t in ring(target, d) if gm.index(*t) >= 0 and t not in taken]
        tiles.sort(key=lambda t: (hex_len(t[0] - hq, t[1] - hr), t[1], t[0]))  # nearest the unit, then lowest r, q
        for t in tiles:
            if t == here:
                return t
            i = g.index(t)
            if g.endable(i) if shared is None else g.endable_by_any(i) and not _own_slot_at(board, unit, t):
                return t  # a shared Ground: its own_mask read from the board as it stands now
        if reach == 1:
            break
    return None


def _own_slot_at(board: GameState, unit: Unit, tile: Tile) -> bool:
    """Another unit of the unit's owner in its stacking slot stands on `tile` (what Ground.own_mask marks)."""
    slot = slot_of(unit)
    return any(o.owner == unit.owner and o.id != unit.id and slot_of(o) == slot for o in board.units_at(*tile))


def _can_share_ground(unit: Unit) -> bool:
    """A Ground's closed land and blocked tiles are the same for every unit of one owner that takes a stacking slot
    and is not a spy (Ground reads the slot only for agents, the type only for spies); its own_mask is not."""
    return slot_of(unit) != AGENT and unit.type != "spy"


def _blow(battle: object) -> Blow:
    a, d = battle.attacker, battle.defender  # type: ignore[attr-defined]
    return Blow(a.men_before, a.lost, a.broke, a.destroyed, d.men_before, d.lost, d.broke, d.destroyed)


def fight(board: GameState, kingdom: str, sight: Sight, attacker: int | Troop, defender: int | Troop, *,
          at: Tile | None = None, attacker_owner: str | None = None, defender_at: Tile | None = None
          ) -> FightForecast:
    """A field fight on a copy of the believed board: `attacker` strikes `defender` (unit ids, own or foreign in
    sight, or Troops), from `at` (default: where it stands if in reach, else the nearest free tile in reach).

    A Troop attacker belongs to the kingdom (or `attacker_owner`); a Troop defender stands on `defender_at` and
    stands for the bandits (a stand-in for "an enemy": only its numbers count).
    """
    ends: list[Blow] = []
    exact = True
    kind = "melee"
    ids = [x for x in (attacker, defender) if isinstance(x, int)]
    centre = defender_at if defender_at is not None else board.units[defender].tile if isinstance(defender, int) \
        and defender in board.units else at
    for high in (False, True):
        b = _local_copy(board, centre, ids) if centre is not None else board.clone()
        for pair in _war_pairs(b, kingdom):
            if pair not in b.wars:
                b.wars.append(pair)
        planned: set[int] = set()
        a = _side(b, kingdom, attacker, attacker_owner or kingdom, at, planned)
        d = _side(b, kingdom, defender, rd.BANDITS, defender_at, planned)
        exact = _mask_unit(b, kingdom, sight, a, high, planned) & _mask_unit(b, kingdom, sight, d, high, planned)
        reach = a.spec.range if a.spec.shooter else 1
        if at is not None:
            a.q, a.r = at
        elif not 1 <= distance(a.tile, d.tile) <= reach:
            spot = _spot(b, a, d.tile, reach, set())
            if spot is None:
                raise ValueError(f"no free tile to strike ({d.q},{d.r}) from")
            a.q, a.r = spot
        kind = "volley" if a.spec.shooter else "melee"
        ends.append(_blow(field_battle(MonthContext(b, scratch=True), a, d)))
        if exact:
            break
    return FightForecast(kind, exact, ends[0], ends[-1])


def _war_pairs(board: GameState, kingdom: str) -> list[list[str]]:
    """Every pair of the kingdom with another (a forecast fights as if at war: the fight asked about)."""
    return [sorted([kingdom, k]) for k in board.kingdoms if k != kingdom]


def _side(board: GameState, kingdom: str, who: int | Troop, owner: str, tile: Tile | None, planned: set[int]) -> Unit:
    """The unit of one side on the copy: a unit of the board by id, or a Troop put on `tile` (an enemy Troop
    stands for the bandits, at war with everyone: only its numbers count)."""
    if isinstance(who, Troop):
        if tile is None:
            raise ValueError("a Troop needs a tile to stand on")
        unit = _hypothetical(board, owner, who, tile)
        planned.add(unit.id)
        return unit
    known = board.units.get(who)
    if known is None:
        raise KeyError(f"unit #{who} is not known to {kingdom}")
    return known


# =============================================================================================================
# Sieges
# =============================================================================================================


def siege(board: GameState, kingdom: str, sight: Sight, city_id: int, force: Sequence[int | Troop],
          dfn: CityDefence | None, *, months: int = 6, end: float = 1.0, start: Tile | None = None,
          by: str | None = None, garrison_as: Troop | None = None) -> SiegeForecast:
    """A siege of a city on a copy of the believed board: each month every shooter of `force` shoots (engines
    first) and every melee troop assaults (largest first), until the city falls.

    The besieger is the kingdom (`force`: its unit ids, moved to a tile to strike from, or Troops), or, to weigh
    a threat to one of its own cities, another side `by` with Troops only. A foreign city is taken as the
    kingdom may know it (`dfn`, `end` of the way from the low end of what it may be to the top: 1 by default, the
    worst case); an own city is as it is, or with its garrison
    taken as `garrison_as` (a garrison it could raise). Between months the
    towers fire, the walls crumble under a blockade and the militia comes back, as the month's phases do; a
    troop that broke comes back to the walls the next month with its morale recovering.
    """
    ids = [x for x in force if isinstance(x, int)]
    b = _local_copy(board, board.cities[city_id].tile, ids)
    city = b.cities[city_id]
    side = by or kingdom
    if dfn is not None:
        _mask_city(b, kingdom, city, dfn, end)
    elif garrison_as is not None and city.owner == kingdom:
        for u in [u for u in b.units_at(city.q, city.r) if u.owner == kingdom and slot_of(u) == "troop"]:
            del b.units[u.id]
        if garrison_as.men > 0:
            _hypothetical(b, kingdom, garrison_as, city.tile)
    if side in b.kingdoms and city.owner in b.kingdoms:
        pair = sorted([side, city.owner])
        if pair not in b.wars:
            b.wars.append(pair)
    units: list[Unit] = []
    here = start or city.tile
    for who in force:
        if isinstance(who, Troop):
            units.append(_hypothetical(b, side, who, city.tile))
        else:
            own = b.units.get(who)
            if own is None or own.owner != side or side != kingdom:
                raise KeyError(f"unit #{who} is not one of {kingdom}'s units")
            units.append(own)
    shooters = sorted((u for u in units if u.spec.shooter), key=lambda u: (u.type != "catapult", -u.men, u.id))
    melee = sorted((u for u in units if not u.spec.shooter), key=lambda u: (-u.men, u.id))
    taken_tiles: set[Tile] = set()
    placed = 0
    # One Ground for the placing: only the side's own units move or leave the board below, and a Ground's
    # blocked, noend and crossing arrays read the owner, the cities, the other owners' units, the closed land
    # and the river, never the unit's own position, id or (besides agents and spies) type; own_mask is read anew.
    shared: Ground | None = None
    for u in melee + shooters:
        reach = u.spec.range if u.spec.shooter else 1
        if 1 <= distance(u.tile, city.tile) <= reach and (slot_of(u) != "troop" or u.tile not in taken_tiles):
            spot: Tile | None = u.tile
        else:
            u.q, u.r = here  # it comes from this side
            share = _can_share_ground(u)
            if share and shared is None:
                shared = Ground(b, u)
            spot = _spot(b, u, city.tile, reach, taken_tiles if slot_of(u) == "troop" else set(),
                         shared if share else None)
        if spot is None:
            del b.units[u.id]
            continue
        u.q, u.r = spot
        if slot_of(u) == "troop":
            taken_tiles.add(spot)
        placed += 1
    shooters = [u for u in shooters if u.id in b.units]
    melee = [u for u in melee if u.id in b.units]
    posts = {u.id: u.tile for u in shooters + melee}
    out: list[SiegeMonth] = []
    taken_in: int | None = None
    total_lost = 0
    for m in range(months):
        ctx = MonthContext(b, scratch=True, quiet=True)  # the copy is thrown away: no texts, no notes
        before = sum(u.men for u in shooters + melee if u.id in b.units)
        for u in shooters + melee:
            if u.id not in b.units or city.owner == side:
                continue
            if u.tile != posts[u.id]:
                if any(o.id != u.id and slot_of(o) == slot_of(u) for o in b.units_at(*posts[u.id])):
                    continue
                u.q, u.r = posts[u.id]
            try:
                if u.spec.shooter:
                    shoot_city(ctx, u, city)
                else:
                    assault_city(ctx, u, city)
            except OrderFailed:
                continue
        taken = city.owner == side
        if not taken:
            fire_towers(ctx)
            ctx.blockaded = {city.id} if is_blockaded(b, city) else set()
            walls_phase(ctx)
            militia_phase(ctx)
            for u in shooters + melee:
                if u.id in b.units:
                    u.morale = min(100.0, u.morale + rd.MORALE_RECOVERY)
        after = sum(u.men for u in shooters + melee if u.id in b.units)
        lost = before - after
        total_lost += lost
        gar = garrison(b, city) if not taken else None
        out.append(SiegeMonth(float(city.walls), gar.men if gar is not None else 0,
                              standing_militia(b, city) if not taken else 0, lost, taken))
        if taken:
            taken_in = m + 1
            break
        if not any(u.id in b.units for u in shooters + melee):
            break
    return SiegeForecast(city_id, dfn.exact if dfn is not None else True, tuple(out), taken_in, total_lost, placed)


__all__ = [
    "Blow",
    "CityDefence",
    "FightForecast",
    "SiegeForecast",
    "SiegeMonth",
    "Troop",
    "city_defence",
    "fight",
    "first_cities",
    "siege",
]
