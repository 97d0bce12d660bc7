"""Armies the hard ruler can field and how big they must be: the counter triangle and the engine's siege forecasts.

Pure helpers shared by the planners: which troop types the kingdom can raise (its buildings), the troop that
counters a given defender (COMBAT-110: heavy infantry on spearmen and levies, archers on spearmen and levies,
cavalry on archers and siege trains, spearmen against cavalry), what the kingdom can afford to keep (upkeep
against output), and `size_siege`: the smallest force of the kingdom's army plus planned recruits that the
engine's forecast (Observation.siege) says takes a city in time.
"""

from __future__ import annotations

import math

from kingdoms import ruledata as rd
from kingdoms.ai.hard.analysis import Analysis
from kingdoms.frozen import record
from kingdoms.views.forecast import CityDefence, SiegeForecast, Troop

#: Share of the kingdom's output its army's upkeep may take: growing, and on campaign.
UPKEEP_SHARE_PEACE = 0.6
UPKEEP_SHARE_WAR = 0.95
#: Recruits are planned in steps of this many men, raised as troops of at most TROOP_MEN (each troop assaults
#: once a month: two of 4,000 wear a city down faster than one of 8,000, SIEGE-180).
STEP = 1000
TROOP_MEN = 5000


def can_raise(an: Analysis, unit_type: str) -> bool:
    """The kingdom has (in some city) the building a troop type needs."""
    need = rd.UNITS[unit_type].requires
    return need is None or need in an.buildings


def melee_core(an: Analysis, defender: str | None) -> str:
    """The melee troop to raise against `defender` (a troop type, or None: a city's militia or nothing).

    Heavy infantry cut through spearmen and levies (x1.5, COMBAT-110); against cavalry spearmen hold; otherwise
    the cheapest man who strikes as hard: levies (attack 1 for 5 production) batter walls like any other.
    """
    if defender in ("spearman", "levy") and can_raise(an, "heavy_infantry"):
        return "heavy_infantry"
    if defender == "cavalry" and can_raise(an, "spearman"):
        return "spearman"
    if defender == "archer" and can_raise(an, "cavalry"):
        return "cavalry"
    return "levy"


def counter_to(an: Analysis, enemy: str) -> list[str]:
    """Own troop types best against an enemy troop type in the field, best first (COMBAT-110)."""
    order = {
        "archer": ["cavalry", "heavy_infantry", "spearman", "levy"],
        "catapult": ["cavalry", "heavy_infantry", "spearman", "levy"],
        "spearman": ["heavy_infantry", "archer", "levy", "spearman"],
        "levy": ["heavy_infantry", "archer", "cavalry", "spearman", "levy"],
        "cavalry": ["spearman", "heavy_infantry", "levy"],
        "heavy_infantry": ["heavy_infantry", "cavalry", "spearman", "levy"],
    }
    return [t for t in order.get(enemy, ["heavy_infantry", "spearman", "levy"]) if can_raise(an, t)]


def upkeep_room(an: Analysis, share: float) -> float:
    """Men the kingdom can still afford to keep (upkeep within `share` of its output), queued recruits counted."""
    queued = sum(an.queued_men.values())
    troops = sum(1 for c in an.cities for e in c.queue if e["item"] in rd.FIGHTING_TYPES)
    room = share * an.output - an.upkeep - troops * rd.UPKEEP_PER_TROOP
    return max(0.0, room * 1000.0 / rd.UPKEEP_PER_1000 - queued)


@record
class SiegeSize:
    """A force that takes a city, by the engine's forecast: own troops, recruits to raise, months to take it."""

    city_id: int
    units: tuple[int, ...]
    recruits: tuple[Troop, ...]
    forecast: SiegeForecast
    engines_needed: int
    feasible: bool = True  # False: the most the kingdom can afford, and even that does not take it in time

    @property
    def taken_in(self) -> int | None:
        return self.forecast.taken_in

    @property
    def recruit_men(self) -> int:
        return sum(t.men for t in self.recruits if t.type != "catapult")


def engines_for(an: Analysis, dfn: CityDefence, melee_men: int) -> int:
    """Siege engines worth bringing: stone walls the assaults cannot batter down in a month need engines
    (10 walls each a shot, SIEGE-110; assaults batter 5 per 1,000 men, SIEGE-120)."""
    if not can_raise(an, "catapult"):
        return 0
    batter = rd.BATTER_PER_1000 * melee_men / 1000.0
    if dfn.walls <= batter:
        return 0
    return int(math.ceil((dfn.walls - batter * 0.5) / rd.ENGINE_WALL_DAMAGE))


def queued_troops(an: Analysis) -> list[Troop]:
    """The recruits already queued in the kingdom's cities, as Troops (barracks recruits trained, RECRUIT-150)."""
    out: list[Troop] = []
    for typ in sorted(an.queued_men):
        men = an.queued_men[typ]
        if men >= rd.UNITS[typ].min_men:
            out.append(Troop(typ, men, level=1 if rd.UNITS[typ].requires == "barracks" else 0))
    return out


def size_siege(an: Analysis, city_id: int, units: list[int], *, months: int, cap_men: int,
               start: tuple[int, int] | None = None, coming: list[Troop] | None = None, end: float = 1.0,
               trials: int = 3) -> SiegeSize:
    """The smallest addition of recruits (in steps of 1,000 of the core type, engines for stone walls) to `units`
    and the recruits `coming` (queued already) that takes the city within `months` by the forecast (its top
    end, or `end` of the way up what the city may hold); if even `cap_men` more would not, that most (`feasible`
    False). At most `trials` forecasts."""
    obs = an.obs
    coming = list(coming or [])
    dfn = obs.city_defence(city_id)
    core = melee_core(an, dfn.garrison_type if dfn.garrison[1] > 0 else None)
    have_melee = sum(u.men for u in (an.unit(i) for i in units) if u is not None and not rd.UNITS[u.type].shooter)
    have_melee += sum(t.men for t in coming if not rd.UNITS[t.type].shooter)
    have_engines = sum(u.men for u in (an.unit(i) for i in units) if u is not None and u.type == "catapult") // 100
    have_engines += sum(t.men for t in coming if t.type == "catapult") // 100

    def trial(extra: int) -> tuple[SiegeForecast, tuple[Troop, ...], int]:
        recruits: list[Troop] = []
        melee_total = have_melee + extra
        engines = max(0, engines_for(an, dfn, melee_total) - have_engines)
        if engines:
            recruits.append(Troop("catapult", engines * rd.ENGINE_CREW))
        left = extra
        # archers shoot a garrison from two tiles and take no return fire from melee troops (COMBAT-090): a third
        # of the new men, once the kingdom has a barracks and the city shows troops
        if extra >= 2000 and dfn.garrison[1] > 0 and can_raise(an, "archer"):
            shoot = extra // 3 // 500 * 500
            recruits.append(Troop("archer", shoot, level=1))
            left -= shoot
        while left > 0:
            chunk = min(left, TROOP_MEN)
            recruits.append(Troop(core, chunk, level=1 if rd.UNITS[core].requires == "barracks" else 0))
            left -= chunk
        return (obs.siege(city_id, [*units, *coming, *recruits], months=months, start=start, end=end),
                tuple(recruits), engines)

    fc, recruits, engines = trial(0)
    if fc.taken_in is not None and fc.taken_in <= months:
        return SiegeSize(city_id, tuple(units), recruits, fc, engines)
    top = max(0, cap_men // STEP)
    if top == 0 or trials < 2:
        return SiegeSize(city_id, tuple(units), recruits, fc, engines, feasible=False)
    fc_hi, rec_hi, eng_hi = trial(top * STEP)
    if fc_hi.taken_in is None or fc_hi.taken_in > months:
        return SiegeSize(city_id, tuple(units), rec_hi, fc_hi, eng_hi, feasible=False)
    if top >= 2 and trials >= 3:
        half = (top + 1) // 2  # one look between: enough to size recruits to a thousand or two
        got = trial(half * STEP)
        if got[0].taken_in is not None and got[0].taken_in <= months:
            return SiegeSize(city_id, tuple(units), got[1], got[0], got[2])
    return SiegeSize(city_id, tuple(units), rec_hi, fc_hi, eng_hi)
