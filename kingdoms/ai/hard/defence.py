"""Defence: the hard ruler's garrisons sized to the threat it sees, conquests held down, raiders struck.

`plan(an, strategy) -> DefencePlan`. For every own city:

- the **threat** is the foreign fighting troops seen within four tiles (any rival's: at peace a surprise attack
  is one order away, DIPLO-060), each taken at the top of its size class unless watched. The garrison it needs
  is the smallest the engine's forecast (Observation.threat: the rival's assaults on this city as the engine runs
  them, walls, militia, towers and all) says holds for three months; the difference is recruited at once (an
  urgent build: recruits join the garrison, RECRUIT-110) and the nearest field troops of the garrison's type
  march in;
- a **conquest** still restless needs 10% of its people on its land (CONQ-040): troops are kept there;
- the **Ruin** and any capture are kept with a garrison, for a capture lost ends the lead (VIC-050, VIC-160);
- a garrison strikes an enemy troop beside its city when the forecast says it clearly wins (it strikes from
  the walls and stays, COMBAT-390).

The troops it keeps are `reserved`: the field planner leaves them alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kingdoms import ruledata as rd
from kingdoms.ai.hard.analysis import Analysis, Threat, seen_men
from kingdoms.ai.hard.field import hold_task, move_task
from kingdoms.ai.hard.plan import Build, Proposals, Task
from kingdoms.hexgrid import distance
from kingdoms.orders.models import Attack
from kingdoms.views.forecast import Troop
from kingdoms.views.kingdom_view import OwnCity, OwnUnit

#: Months a city should hold against what it sees.
HOLD_MONTHS = 3
#: Garrison sizes tried against a threat (men).
GARRISON_STEPS = (0, 1000, 2000, 3000, 4500, 6000, 8000, 10000, 13000)


@dataclass(slots=True)
class DefencePlan:
    """What the defence planner proposes and the troops it keeps at home."""

    proposals: Proposals
    reserved: set[int] = field(default_factory=set)
    wanted: dict[int, int] = field(default_factory=dict)  # city id -> garrison men it should have


def garrison_type(an: Analysis, c: OwnCity) -> str:
    """The troop a city's garrison is raised as: its garrison's type if it can raise it, spearmen with a
    barracks (x1.5 against cavalry in a city, COMBAT-120), else levies."""
    have = set(c.buildings) | {imp["kind"] for imp in c.improvements}
    gar = an.garrison.get(c.id)
    if gar is not None:
        need = rd.UNITS[gar.type].requires
        if need is None or need in have:
            return gar.type
    return "spearman" if "barracks" in have else "levy"


def _threat_troops(t: Threat) -> list[Troop]:
    return [Troop(u.type, seen_men(u)) for u in t.units if u.type != "catapult"] + \
        [Troop("catapult", seen_men(u)) for u in t.units if u.type == "catapult"]


def needed_garrison(an: Analysis, c: OwnCity, t: Threat) -> int:
    """The smallest garrison (in GARRISON_STEPS, beyond the one it has) that holds HOLD_MONTHS against the threat,
    by the engine's forecast; the largest step if none does."""
    have = an.garrison.get(c.id)
    have_men = have.men if have is not None else 0
    troops = _threat_troops(t)
    by = t.owners[0]
    start = min(((u.q, u.r) for u in t.units), key=lambda x: (distance(x, (c.q, c.r)), x[1], x[0]))
    base = an.obs.threat(c.id, troops, by, months=HOLD_MONTHS, start=start)
    if base.taken_in is None:
        return have_men
    # The forecast runs on the city as it stands; more garrison is judged by the same fight with a stronger
    # defender, so the extra men are tried as a planned garrison on a copy: the city's own troop grows.
    typ = garrison_type(an, c)

    def holds(extra: int) -> bool:
        got = an.obs.threat(c.id, troops, by, months=HOLD_MONTHS, start=start,
                            garrison=Troop(typ, have_men + extra, fortified=True))
        return got.taken_in is None

    steps = list(GARRISON_STEPS[1:])
    if not holds(steps[-1]):
        return have_men + steps[-1]
    lo, hi = -1, len(steps) - 1  # bisect: the smallest step that holds
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if holds(steps[mid]):
            hi = mid
        else:
            lo = mid
    return have_men + steps[hi]


def baseline(an: Analysis, c: OwnCity) -> int:
    """The garrison a city keeps with no threat in sight."""
    m = an.month
    if c.is_ruin:
        return 2500
    if c.restless:
        return 0  # held down by the troops on its land (below)
    if c.is_capital:
        if m < 12:
            return 0
        return 1500 if not an.enemies else 2500
    if c.captured_by == an.kingdom:
        return 1500
    return 0 if m < 30 else 1000


def plan(an: Analysis) -> DefencePlan:
    """The defence's month (see the module notes)."""
    props = Proposals()
    dp = DefencePlan(props)
    free = sorted((u for u in an.field if u.type not in ("catapult",) and u.men >= 500), key=lambda u: u.id)
    for c in sorted(an.cities, key=lambda c: (not c.is_capital, c.id)):
        gar = an.garrison.get(c.id)
        have = gar.men if gar is not None else 0
        want = baseline(an, c)
        t = an.threats.get(c.id)
        if t is not None and t.men >= 1000:
            want = max(want, needed_garrison(an, c, t))
        # A restless conquest: troops on its land totalling 10% of its people (CONQ-040).
        hold_down = 0
        if c.restless:
            hold_down = an.obs.hold_down(c.id) or 0
            want = max(want, hold_down)
        dp.wanted[c.id] = want
        deficit = want - have
        if gar is not None and want > 0 and gar.men <= want + 1000:
            dp.reserved.add(gar.id)
            task = hold_task(gar, 50.0, f"hold {c.name}")
            if task is not None:
                props.tasks.append(task)
        if deficit < 500:
            continue
        typ = garrison_type(an, c)
        # Field troops near the city march in (their type can join the garrison) or stand on its land.
        for u in sorted(free, key=lambda u: (distance((u.q, u.r), (c.q, c.r)), u.id)):
            if deficit < 500:
                break
            if u.id in dp.reserved or distance((u.q, u.r), (c.q, c.r)) > (4 if t is not None or c.restless else 2):
                continue
            if gar is None or (u.type == gar.type and gar.men + u.men <= rd.MAX_TROOP_MEN):
                task = move_task(u, (c.q, c.r), 55.0, f"reinforce {c.name}")
                dest = (c.q, c.r)
            else:
                spots = an.free_beside((c.q, c.r), "troop", own_land=True)
                if not spots:
                    continue
                dest = spots[0]
                task = move_task(u, dest, 55.0, f"stand by {c.name}")
            if task is None and (u.q, u.r) == dest:
                task = hold_task(u, 55.0, f"stand by {c.name}")
            dp.reserved.add(u.id)
            deficit -= u.men
            if task is not None:
                props.tasks.append(task)
        if deficit >= 500 and not c.restless:
            men = min(deficit, max(0, c.people - rd.MIN_CITY_PEOPLE - 500)) // 500 * 500
            urgent = t is not None and t.nearest <= 3
            if men >= 500:
                props.builds.append(Build(c.id, typ, 90 if urgent else 48, men=int(men), urgent=urgent,
                                          why=f"garrison for {c.name}"))
                if urgent:
                    props.notes.append(f"{c.name} raises {men:,} {typ.replace('_', ' ')} against the troops at "
                                       f"its gates")
        if gar is not None and gar.id in dp.reserved:
            props.tasks += _strike_from_walls(an, c, gar)
    return dp


def _strike_from_walls(an: Analysis, c: OwnCity, gar: OwnUnit) -> list[Task]:
    """The garrison strikes an enemy troop beside the city when the forecast says it clearly wins."""
    for e in sorted(an.foreign_units, key=lambda e: e.id):
        if e.owner not in an.enemies or not rd.UNITS[e.type].fighting or distance((e.q, e.r), (c.q, c.r)) != 1:
            continue
        try:
            f = an.obs.fight(gar.id, e.id)
        except (KeyError, ValueError):
            continue
        w = f.high
        if w.att_destroyed or w.def_lost < 1.5 * max(1, w.att_lost) or w.att_lost > 0.2 * gar.men:
            continue
        return [Task(gar.id, (Attack(unit_id=gar.id, to=(e.q, e.r)),), 65.0, f"{c.name}'s garrison strikes")]
    return []
