"""Sieges: when the hard ruler's army strikes its target, with what, and how it keeps the siege fed.

`plan(an, strategy, fp) -> Proposals`, for the troops the field planner has brought within four tiles of the
target (FieldPlan.at_target). Each month it asks the engine's forecast (Observation.siege) what the troops able
to strike this month would do — the march a declaration of war would open counted (Observation.months_to) — and:

- strikes when the forecast says the city falls in time: at peace only when it falls within two months at the
  top of what it may hold (a surprise, DIPLO-060 to DIPLO-090: the declaration is given first, the same month, so the
  rival learns of the war when its walls are already under attack); once at war (the siege begun, or the
  bandits' Ruin) when it falls within six at the middle of what it may hold, and against the bandits whenever
  an assault costs them a third of what it costs us (they never get help); Engines shoot first
  (walls, SIEGE-110), then archers, then the melee troops assault, largest first (SIEGE-120, SIEGE-180). A spy in the
  city spreads panic first when a garrison stands (INTEL-170: 12% desert, the rest -20 morale);
- otherwise waits at the staging tile, fortified, for the rest of the army (and the recruits on their way);
- pitches a camp (SUPPLY-220) beside the staging tile when the siege will outlast a month off its own land, so
  wagons have somewhere to unload and the troops around it eat and refill there.
"""

from __future__ import annotations

from kingdoms import ruledata as rd
from kingdoms.ai.hard.analysis import Analysis
from kingdoms.ai.hard.field import FieldPlan, column, hold_task, move_task
from kingdoms.ai.hard.plan import Proposals, Task
from kingdoms.ai.hard.strategy import RUIN_SIEGE_MONTHS, Strategy, siege_months
from kingdoms.hexgrid import Tile, distance, ring
from kingdoms.orders.models import Attack, Build, DeclareWar, Sabotage


def strikers(an: Analysis, units: list, city_tile: Tile, owner: str) -> list:
    """The troops that can strike the city this month (a melee troop: reach a tile beside it; a shooter: stand
    within its range with a move left), as if at war with its owner."""
    out = []
    war = [owner] if owner in an.rivals else []
    beside = ring(city_tile, 1)
    for u in units:
        spec = rd.UNITS[u.type]
        d = distance((u.q, u.r), city_tile)
        if spec.shooter:
            if 1 <= d <= spec.range:
                out.append(u)
                continue
            tiles = [t for k in range(1, spec.range + 1) for t in ring(city_tile, k)]
            months = an.obs.months_to(u.id, tiles, at_war_with=war)
            if months == 1 and d - spec.range < spec.moves:
                out.append(u)
            continue
        if d == 1:
            out.append(u)
            continue
        months = an.obs.months_to(u.id, beside, at_war_with=war)
        if months == 1:
            out.append(u)
    return out


def plan(an: Analysis, strategy: Strategy, fp: FieldPlan) -> Proposals:
    """The siege's month (see the module notes)."""
    props = Proposals()
    aim = strategy.aim
    if aim is None or fp.phase != "siege" or not fp.at_target:
        return props
    owner = aim.owner
    at_war = owner == rd.BANDITS or owner in an.enemies
    units = sorted(fp.at_target, key=lambda u: u.id)
    hitting = strikers(an, units, aim.tile, owner)
    horizon = RUIN_SIEGE_MONTHS if at_war else siege_months(an, aim)
    fc = an.obs.siege(aim.city_id, [u.id for u in hitting], months=horizon, end=0.5 if at_war else 1.0) \
        if hitting else None
    limit = horizon
    waiting = [u for u in fp.army if u not in units and distance((u.q, u.r), aim.tile) <= 12]
    strike = fc is not None and fc.taken_in is not None and fc.taken_in <= limit
    if not strike and fc is not None and owner == rd.BANDITS and fc.months:
        # the bandits never reinforce: every assault that costs them more than a third of what it costs us is
        # progress that stays
        first = fc.months[0]
        dfn = an.obs.city_defence(aim.city_id)
        hurt = (dfn.garrison[1] - first.garrison) + (dfn.militia[1] - first.militia)
        strike = first.lost > 0 and hurt >= 0.35 * first.lost
    if strike and not at_war and waiting and fc is not None and fc.taken_in is not None and fc.taken_in > 1:
        strike = False  # the rest of the army is coming: strike once, all together
    if not strike:
        # wait for troops on their way here; at war keep the blockade; with nothing coming at peace, go home
        coming = [u for u in waiting if _heading_for(u, fp, aim.tile)]
        if coming or at_war:
            props.tasks += _wait(an, units, fp, aim.tile, at_war=at_war)
            props.notes.append(f"our army waits before {aim.name} for " + ("the rest of the army" if coming
                                                                            else "its moment"))
        elif fp.rally is not None:
            spots = an.free_beside((fp.rally.q, fp.rally.r), "troop", own_land=True, radius=2)
            home = spots[0] if spots else (fp.rally.q, fp.rally.r)
            props.tasks += column(an, units, home, 40.0, f"back to {fp.rally.name}")
            props.notes.append(f"{aim.name} stands too strong for now: our army turns back to {fp.rally.name}")
        return props
    if not at_war:
        props.kingdom.append(DeclareWar(to=an.rivals[owner].name))
        props.notes.append(f"we declare war on {an.rivals[owner].name} and fall on {aim.name}")
    dfn = an.obs.city_defence(aim.city_id)
    if dfn.garrison[1] > 0 and any(s.city_id == aim.city_id and s.role == "spy" for s in an.obs.view.spies):
        props.kingdom.append(Sabotage(city_id=aim.city_id, target="panic"))
        props.notes.append(f"our spy spreads panic in {aim.name}")
    order = sorted(hitting, key=lambda u: (u.type != "catapult", not rd.UNITS[u.type].shooter, -u.men, u.id))
    for n, u in enumerate(order):
        props.tasks.append(Task(u.id, (Attack(unit_id=u.id, to=aim.tile),), 70.0 - n * 0.01, f"strike {aim.name}"))
    rest = [u for u in units if u not in hitting]
    props.tasks += _wait(an, rest, fp, aim.tile, at_war=True)
    if fc is not None and (fc.taken_in or horizon) > 1 and fp.staging is not None:
        # a siege of months off our land: the first month the largest troop by the staging tile pitches the camp
        # the wagons stock (its strike waits a month), unless one stands there already
        props.tasks += _camp(an, [u for u in units if distance((u.q, u.r), fp.staging) <= 1], aim.tile)
    props.notes.append((f"{aim.name} should fall in {fc.taken_in} month" + ("s" if fc.taken_in != 1 else ""))
                          if fc is not None else "")
    return props


def _blockade_spots(an: Analysis, target: Tile) -> list[Tile]:
    """Free tiles of the city's own land two from it: troops there count toward its blockade (SIEGE-150: no
    harvest, no repairs, walls -5 a month) and stay out of its towers' reach (SIEGE-100)."""
    owner_land = an.pic.foreign_land
    out = []
    for t in ring(target, 2):
        i = an.mi.index(*t)
        if i < 0 or not owner_land[i] or an.closed[i] or not an.pic.can_stop(i, own_ok=True):
            continue
        out.append(t)
    return sorted(out, key=lambda t: (t[1], t[0]))


def _heading_for(u, fp: FieldPlan, target: Tile) -> bool:
    """A troop on its way to the target: marching (or following a troop) toward the staging tile."""
    st = u.standing or {}
    to = st.get("to")
    if st.get("action") == "move" and to and fp.staging is not None and distance((to[0], to[1]), fp.staging) <= 2:
        return True
    return st.get("action") == "follow"


def _wait(an: Analysis, units: list, fp: FieldPlan, target: Tile, at_war: bool = False) -> list[Task]:
    """Troops not striking stand fortified: at war on the city's land two from it (a blockade), else around the
    staging tile."""
    tasks: list[Task] = []
    if fp.staging is None:
        return [t for u in units if (t := hold_task(u, 40.0, "wait for the army")) is not None]
    ring_spots = _blockade_spots(an, target) if at_war else []
    spots = ring_spots + [fp.staging] + an.free_beside(fp.staging, "troop", radius=1)
    near = set(spots)
    used: set[Tile] = set()
    for u in sorted(units, key=lambda u: (-u.men, u.id)):
        here = (u.q, u.r)
        if u.type == "catapult":
            t = hold_task(u, 40.0, "wait for the army")
            if t is not None:
                tasks.append(t)
            continue
        if here in near and here not in used and not an.closed[an.idx(here)]:
            used.add(here)
            t = hold_task(u, 40.0, "wait for the army")
        else:
            spot = next((s for s in spots if s not in used and s != here), None)
            if spot is None:
                t = hold_task(u, 40.0, "wait for the army")
            else:
                used.add(spot)
                t = move_task(u, spot, 40.0, "close up before the target")
        if t is not None:
            tasks.append(t)
    return tasks


def _camp(an: Analysis, units: list, target: Tile) -> list[Task]:
    """A camp where a troop of 500+ not on its own land stands, if the rules allow one there (SUPPLY-220, SUPPLY-270)."""
    if any(distance((c.q, c.r), target) <= 4 for c in an.obs.view.camps):
        return []
    limit = len(an.cities) + 1
    if len(an.obs.view.camps) >= limit:
        return []
    others = [(c.q, c.r) for c in an.obs.view.camps] + [(c.q, c.r) for c in an.obs.view.foreign_camps]
    for u in sorted(units, key=lambda u: (-u.men, u.id)):
        here = (u.q, u.r)
        i = an.idx(here)
        if u.men < rd.CAMP_MIN_MEN or an.pic.own_land[i] or an.mi.gm.river[i] or i in an.pic.city_at:
            continue
        if u.type == "catapult" or any(distance(here, o) < rd.CAMP_SPACING for o in others):
            continue
        return [Task(u.id, (Build(unit_id=u.id, what="camp"),), 75.0, "camp for the siege")]
    return []
