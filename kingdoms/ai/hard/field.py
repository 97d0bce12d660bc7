"""Field armies and supply: the hard ruler's army musters, marches as one column with its grain, and fights in the field.

`plan(an, strategy, reserved, wanted) -> FieldPlan`. The army is every fighting troop (siege trains included)
the defence planner does not keep (`reserved`); a troop of it standing in a city that wants a garrison
(`wanted`) leaves that many men behind. Its phases, read afresh each month from where the troops stand:

- **muster**: the troops gather on the land of the own city nearest the aim (the rally city), merge with
  troops of their type, and the recruits the siege forecast asks for (forces.size_siege) are queued in the
  cities that can raise them; waiting generals take command;
- **march**: once the forecast says the army as it stands takes the aim and it carries the grain for the
  road and the siege, it marches as one column to a staging tile near the target, outside land closed to it:
  the slowest troop (a siege train, escorted by the largest troop, which shares its tile, MOVE-150) leads, the
  others follow it (MOVE-170); wagons of grain go with it and follow its largest troop once clear of our
  cities, handing out rations every month (SUPPLY-140): a march of eight months outlasts the four months of
  rations a troop carries (SUPPLY-070);
- **siege**: troops within four tiles of the target are the siege planner's (hard.sieges) — unless they run
  out of food there, when the army falls back to eat.

In every phase an enemy troop in sight that a troop of the army clearly beats, by the engine's forecast
(Observation.fight: counter triangle, terrain, flanking, at the top of the enemy's size class), is struck,
the counter troop tried first; cavalry strike and ride back out of reach (hit and run, COMBAT-290), and at war
horse ride on enemy cities' land to pillage (raids).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kingdoms import ruledata as rd
from kingdoms.ai.common import INF
from kingdoms.ai.hard.analysis import Analysis, seen_men
from kingdoms.ai.hard.forces import can_raise, counter_to, upkeep_room
from kingdoms.ai.hard.plan import Build, Proposals, Task
from kingdoms.ai.hard.strategy import Aim, Strategy, army_units, siege_months
from kingdoms.hexgrid import Tile, distance, ring
from kingdoms.orders.models import AssignGeneral, Attack, Follow, Hold, Merge, Move, Pillage, ShipGrain, Split
from kingdoms.views.forecast import Troop
from kingdoms.views.kingdom_view import OwnCity, OwnUnit

#: Troops this close to the target are at the siege.
AT_TARGET = 4
#: The staging tile's distance from the target.
STAGING = 3
#: Troops merge up to this many men: fewer troops pay less upkeep (RECRUIT-180), more troops assault more often
#: (each once a month, SIEGE-180).
MERGE_CAP = 6000


@dataclass(slots=True)
class FieldPlan:
    """The army this month and what the field planner proposes for it."""

    proposals: Proposals
    army: list[OwnUnit]
    rally: OwnCity | None
    staging: Tile | None
    phase: str  # "home" | "muster" | "march" | "siege"
    at_target: list[OwnUnit] = field(default_factory=list)  # troops the siege planner commands


def _slot(u: OwnUnit) -> str:
    return "siege" if u.type == "catapult" else "troop"


def rally_city(an: Analysis, aim: Aim | None) -> OwnCity:
    """Where the army gathers: the own city nearest the aim that can feed it (else the capital)."""
    if aim is None:
        ruin = next((c for c in an.cities if c.is_ruin), None)
        return ruin if ruin is not None and an.leading else an.capital
    best = None
    for c in an.cities:
        if c.restless and not c.is_capital:
            continue
        if not c.is_capital and c.people < 12000:
            continue
        key = (distance((c.q, c.r), aim.tile), c.id)
        if best is None or key < best[0]:
            best = (key, c)
    return best[1] if best else an.capital


def staging_tile(an: Analysis, aim: Aim, origin: Tile) -> Tile | None:
    """A tile near the target a troop can stop on and reach, outside land closed to us, nearest our side: three
    from it at peace (outside its land, for the surprise), two at war (a camp there feeds the troops at the
    walls, SUPPLY-230); None if none is known."""
    mi, pic = an.mi, an.pic
    target = an.idx(aim.tile)
    d_t = mi.dist_from(target)
    reach = pic.reachable_mask(an.idx(origin), "troop")
    from_home = an.field_from(origin)
    near = STAGING - 1 if (aim.owner == rd.BANDITS or aim.owner in an.enemies) else STAGING
    for radius in (near, near + 1, near - 1 if near > 2 else near + 2, near + 2):
        best = None
        for i in np.flatnonzero((d_t == radius) & reach).tolist():
            if an.closed[i] or not pic.can_stop(i, own_ok=True):
                continue
            key = (float(from_home[i]), mi.rs[i], mi.qs[i])
            if best is None or key < best[0]:
                best = (key, i)
        if best is not None:
            return mi.tile(best[1])
    # nothing known that close: the known tile nearest the target (the march explores on its way)
    cands = np.flatnonzero(reach & (d_t >= STAGING - 1)).tolist()
    nearest: tuple[tuple[int, float, int, int], int] | None = None
    for i in cands:
        if an.closed[i] or not pic.can_stop(i, own_ok=True):
            continue
        rank = (int(d_t[i]), float(from_home[i]), mi.rs[i], mi.qs[i])
        if nearest is None or rank < nearest[0]:
            nearest = (rank, i)
    return mi.tile(nearest[1]) if nearest is not None else None


def march_months(an: Analysis, u: OwnUnit, to: Tile) -> float:
    """Months a march of `u` to `to` takes, by the planning field over the known map (move costs of the terrain
    it has seen, rivers and closed land counted; common.distance_field), at the unit's moves a month: a plan's
    figure, cheaper than routing (the order's own check routes it exactly)."""
    cost = float(an.field_from((u.q, u.r))[an.idx(to)])
    if cost >= INF / 2:
        cost = 1.6 * distance((u.q, u.r), to)
    return cost / rd.UNITS[u.type].moves


def _lead(units: list[OwnUnit]) -> OwnUnit:
    """The troop the column forms on: the slowest (a siege train), then the largest."""
    return min(units, key=lambda u: (rd.UNITS[u.type].moves, -u.men, u.id))


def _main(units: list[OwnUnit]) -> OwnUnit | None:
    """The largest troop (no siege train): it escorts the lead siege train and the wagons."""
    troops = [u for u in units if _slot(u) == "troop"]
    return max(troops, key=lambda u: (u.men, -u.id)) if troops else None


def _standing_to(u: OwnUnit) -> Tile | None:
    st = u.standing or {}
    to = st.get("to")
    return (int(to[0]), int(to[1])) if st.get("action") == "move" and to else None


def _following(u: OwnUnit) -> int | None:
    st = u.standing or {}
    return int(st["target_id"]) if st.get("action") == "follow" and st.get("target_id") is not None else None


def move_task(u: OwnUnit, to: Tile, priority: float, why: str) -> Task | None:
    """A march (None when the troop already stands there or already marches there)."""
    if (u.q, u.r) == to or _standing_to(u) == to:
        return None
    return Task(u.id, (Move(unit_id=u.id, to=to),), priority, why)


def hold_task(u: OwnUnit, priority: float, why: str) -> Task | None:
    """Stay fortified (None when it already holds with no standing order)."""
    if u.fortified and u.standing is None:
        return None
    return Task(u.id, (Hold(unit_ids=[u.id]),), priority, why)


def follow_task(u: OwnUnit, target: OwnUnit, priority: float, why: str) -> Task | None:
    if _following(u) == target.id:
        return None
    return Task(u.id, (Follow(unit_id=u.id, target_id=target.id),), priority, why)


def column(an: Analysis, units: list[OwnUnit], to: Tile, priority: float, why: str) -> list[Task]:
    """The army marches as one column to `to`: the lead (slowest) troop marches, the largest troop escorts it
    (sharing its tile when the lead is a siege train), every other troop and wagon follows."""
    if not units:
        return []
    lead = _lead(units)
    main = _main(units)
    tasks: list[Task] = []
    t = move_task(lead, to, priority, why)
    if t is not None:
        tasks.append(t)
    if main is not None and main.id != lead.id:
        t = follow_task(main, lead, priority, why)
        if t is not None:
            tasks.append(t)
    anchor = main or lead
    for u in units:
        if u.id in (lead.id, anchor.id):
            continue
        t = follow_task(u, anchor, priority, why)
        if t is not None:
            tasks.append(t)
    return tasks


def _gather(an: Analysis, units: list[OwnUnit], rally: OwnCity, toward: Tile | None, priority: float,
            why: str) -> list[Task]:
    """Troops gather on the rally city's land around it (on the side facing `toward`); small troops of one type
    merge into the largest of that type standing there."""
    tasks: list[Task] = []
    if not units:
        return tasks
    centre = (rally.q, rally.r)
    by_type: dict[str, list[OwnUnit]] = {}
    for u in units:
        by_type.setdefault(u.type, []).append(u)
    merged: set[int] = set()
    for typ in sorted(by_type):
        group = sorted(by_type[typ], key=lambda u: (-u.men, u.id))
        head = group[0]
        men = head.men  # what the head troop will hold after this month's merges
        for other in group[1:]:
            if (men + other.men <= MERGE_CAP and distance((other.q, other.r), (head.q, head.r)) <= 3
                    and distance((head.q, head.r), centre) <= 2 and not head.standing):
                tasks.append(Task(other.id, (Merge(unit_id=other.id, target_id=head.id),), priority, why))
                merged.add(other.id)
                men += other.men
    spots = an.free_beside(centre, "troop", own_land=True, radius=2)
    if toward is not None:
        spots.sort(key=lambda t: (distance(t, centre) > 1, distance(t, toward), t[1], t[0]))
    used: set[Tile] = set()
    main = _main([u for u in units if u.id not in merged])
    for u in sorted(units, key=lambda u: (-u.men, u.id)):
        if u.id in merged:
            continue
        here = (u.q, u.r)
        if _slot(u) == "siege":
            # a siege train musters with the largest troop, sharing its tile (its escort, MOVE-150)
            if main is not None and not (distance(here, centre) <= 2 and an.pic.own_land[an.idx(here)]):
                t = move_task(u, (main.q, main.r), priority, why)
                if t is not None:
                    tasks.append(t)
            continue
        if distance(here, centre) <= 2 and an.pic.own_land[an.idx(here)] and here not in used:
            used.add(here)
            t = hold_task(u, priority, why)
            if t is not None:
                tasks.append(t)
            continue
        spot = next((s for s in spots if s not in used), None)
        if spot is None:
            continue
        used.add(spot)
        t = move_task(u, spot, priority, why)
        if t is not None:
            tasks.append(t)
    return tasks


def _raiser(an: Analysis, item: str) -> OwnCity | None:
    """The city that raises a troop type: it has the building, the most people, and is not restless."""
    need = rd.UNITS[item].requires
    best = None
    for c in an.cities:
        if c.restless:
            continue
        have = set(c.buildings) | {imp["kind"] for imp in c.improvements}
        if need is not None and need not in have:
            continue
        if c.people < rd.MIN_CITY_PEOPLE + 1000:
            continue
        key = (c.is_capital, c.people, -c.id)
        if best is None or key > best[0]:
            best = (key, c)
    return best[1] if best else None


def recruit_builds(an: Analysis, aim: Aim, priority: float) -> list[Build]:
    """Queue the recruits the siege forecast asks for (less what is already queued)."""
    out: list[Build] = []
    queued = dict(an.queued_men)
    wanted: dict[str, int] = {}
    for t in aim.size.recruits:
        wanted[t.type] = wanted.get(t.type, 0) + t.men
    for typ in sorted(wanted, key=lambda k: (k != "catapult", k)):
        t = Troop(typ, wanted[typ])
        men = t.men + queued.pop(t.type, 0)  # the queued order of this type grows to take them in
        if men < rd.UNITS[t.type].min_men:
            continue
        city = _raiser(an, t.type)
        if city is None:
            continue
        room = max(0, city.people - rd.MIN_CITY_PEOPLE - 500)
        men = min(men, room // 100 * 100 if t.type == "catapult" else room // 500 * 500, rd.MAX_TROOP_MEN)
        if men < rd.UNITS[t.type].min_men:
            continue
        out.append(Build(city.id, t.type, priority, men=int(men), why=f"for {aim.name}"))
    return out


def _granary_cap(c: OwnCity) -> int:
    return rd.GRANARY_CAP_IMPROVED if any(i["kind"] == "granary" for i in c.improvements) else rd.GRANARY_CAP


def _ration_months(an: Analysis, u: OwnUnit) -> float:
    return an.obs.ration_months(u.id)


def _food_months(an: Analysis, units: list[OwnUnit]) -> float:
    """Months the troops can eat where they stand: the rations they carry, the grain of the wagons beside them
    and of the camps within reach (SUPPLY-040 to SUPPLY-140); plenty for troops on their own land."""
    troops = [u for u in units if rd.UNITS[u.type].fighting and u.men > 0]
    off = [u for u in troops if not an.obs.in_supply(u.q, u.r)]
    if not off:
        return 99.0
    need = sum(u.men for u in off) / 1000.0
    food = sum(u.rations for u in off)
    tiles = [(u.q, u.r) for u in off]
    food += sum(w.cargo for w in an.wagons if any(distance((w.q, w.r), t) <= 1 for t in tiles))
    food += sum(c.grain for c in an.obs.view.camps
                if any(distance((c.q, c.r), t) <= rd.CAMP_REACH for t in tiles))
    return food / need if need > 0 else 99.0


def supply(an: Analysis, army: list[OwnUnit], dest: Tile, siege_months: int) -> tuple[list[ShipGrain], list[Task]]:
    """Grain for a campaign longer than the rations the troops carry (SUPPLY-070, SUPPLY-100 to SUPPLY-140): when the army
    sets out, wagons from the cities with grain to spare march to where it goes (the staging tile); once clear of
    our cities (beside one a wagon would pour its grain back into its granary) they follow the army's largest
    troop, sharing its tile (escorted, MOVE-150), and every month hand out rations to the troops beside them;
    more go out when the troops run short."""
    main = _main(army)
    if main is None:
        return [], []
    here = (main.q, main.r)
    tasks: list[Task] = []
    beside_home = {t for c in an.cities for t in [(c.q, c.r), *ring((c.q, c.r), 1)]}
    for w in an.wagons:
        if w.cargo <= 0.5 or _following(w) == main.id or (w.q, w.r) in beside_home:
            continue
        if w.dest is not None and an.pic.own_land[an.idx(w.dest)] and distance(w.dest, dest) > 2:
            continue  # grain on its way to a city of ours
        if distance((w.q, w.r), here) <= 4 and here not in beside_home:
            tasks.append(Task(w.id, (Follow(unit_id=w.id, target_id=main.id),), 30.0, "grain goes with the army"))
    months = march_months(an, main, dest)
    eaters = [u for u in army if u.men > 0]
    per_month = sum(u.men for u in eaters) / 1000.0
    carried = sum(u.rations for u in eaters)
    cargo = sum(w.cargo for w in an.wagons if w.cargo > 0.5 and (
        _following(w) is not None or distance((w.q, w.r), dest) <= 2
        or (w.dest is not None and distance(w.dest, dest) <= 2)))
    camps = sum(c.grain for c in an.obs.view.camps if distance((c.q, c.r), dest) <= 3)
    short = (months + siege_months) * per_month - carried - cargo - camps
    if short <= 8.0 or dest in beside_home:
        return [], tasks
    out: list[ShipGrain] = []
    for c in sorted(an.cities, key=lambda c: (distance((c.q, c.r), dest), c.id)):
        if c.restless or c.id in an.threats:
            continue
        spare = c.grain - rd.RATION_RESERVE_SHARE * _granary_cap(c) - 10
        if spare < 15:
            continue
        dan = int(min(rd.WAGON_CAP, spare, short + 10))
        if dan >= 12:
            out.append(ShipGrain(city_id=c.id, dan=dan, to=dest))
            short -= dan
        if short <= 8.0 or len(out) >= 2:
            break
    return out, tasks


def skirmish(an: Analysis, army: list[OwnUnit], taken: set[int], priority: float) -> tuple[list[Task], list[str]]:
    """Strike enemy troops in sight that a troop of ours clearly beats by the engine's forecast (the worse end
    for us: the enemy at the top of its size class); cavalry strike and ride back (hit and run)."""
    tasks: list[Task] = []
    notes: list[str] = []
    enemies = [e for e in an.foreign_units if e.owner in an.enemies and rd.UNITS[e.type].fighting
               and an.pic.city_at.get(an.idx((e.q, e.r))) is None]
    if not enemies:
        return tasks, notes
    free = [u for u in army if u.id not in taken and u.men >= 500 and u.type != "catapult"]
    for e in sorted(enemies, key=lambda e: (-seen_men(e), e.id)):
        et = (e.q, e.r)
        best = None
        rank = {t: n for n, t in enumerate(counter_to(an, e.type))}  # the counter triangle (COMBAT-110) first
        for u in free:
            if u.id in taken:
                continue
            d = distance((u.q, u.r), et)
            reach = rd.UNITS[u.type].moves + (rd.UNITS[u.type].range or 1)
            if d > reach:
                continue
            try:
                f = an.obs.fight(u.id, e.id)
            except (KeyError, ValueError):
                continue
            worst = f.high
            if worst.att_broke or worst.att_destroyed:
                continue
            ratio = worst.def_lost / max(1, worst.att_lost)
            good = worst.def_broke or worst.def_destroyed or ratio >= 1.8
            if not good:
                continue
            key = (not (worst.def_broke or worst.def_destroyed), rank.get(u.type, 9), -ratio, u.id)
            if best is None or key < best[0]:
                best = (key, u)
        if best is None:
            continue
        u = best[1]
        orders: list = [Attack(unit_id=u.id, to=et)]
        if u.type == "cavalry":
            back = an.free_beside((u.q, u.r), "troop", radius=1)
            back = [t for t in back if distance(t, et) >= 2]
            if back:
                orders.append(Move(unit_id=u.id, to=back[0]))
        tasks.append(Task(u.id, tuple(orders), priority, f"strike {e.type} #{e.id}"))
        taken.add(u.id)
        notes.append(f"{u.general or 'our ' + u.type.replace('_', ' ')} falls on "
                     f"{an.rivals[e.owner].name if e.owner in an.rivals else e.owner}'s {e.type.replace('_', ' ')}")
    return tasks, notes


def _garrisons_stay(an: Analysis, units: list[OwnUnit], wanted: dict[int, int], to: Tile, priority: float,
                    why: str) -> tuple[list[OwnUnit], list[Task]]:
    """An army troop in a city that wants a garrison never leaves it empty: it splits off what the city does not
    need (MOVE-240) toward `to`, or stays whole; returns the troops free to go and the tasks of those in cities."""
    free: list[OwnUnit] = []
    tasks: list[Task] = []
    for u in units:
        keep = wanted.get(u.in_city, 0) if u.in_city is not None else 0
        if keep <= 0:
            free.append(u)
            continue
        men = (u.men - keep) // 500 * 500
        if men >= max(rd.UNITS[u.type].min_men, 1000) and u.men - men >= rd.UNITS[u.type].min_men:
            tasks.append(Task(u.id, (Split(unit_id=u.id, men=int(men), to=to),), priority, why))
        else:
            t = hold_task(u, priority, "garrison the city")
            if t is not None:
                tasks.append(t)
    return free, tasks


def raids(an: Analysis, army: list[OwnUnit], taken: set[int], priority: float) -> tuple[list[Task], list[str]]:
    """Horse raids (BUILD-150 to BUILD-190, COMBAT-290): cavalry at war ride to the land of an enemy city and pillage a
    farm, granary or workshop on or beside its tile — whichever the issue-time check accepts — then ride off
    with the moves a strike leaves them; the city's harvest, its granary or its engines go with it."""
    tasks: list[Task] = []
    notes: list[str] = []
    if not an.enemies:
        return tasks, notes
    targets = [c for r in sorted(an.rivals) if r in an.enemies for c in an.rivals[r].cities]
    if not targets:
        return tasks, notes
    for u in sorted(army, key=lambda u: u.id):
        if u.type != "cavalry" or u.id in taken or u.men < 500:
            continue
        here = (u.q, u.r)
        near = min(targets, key=lambda c: (distance((c.q, c.r), here), c.id))
        ct = (near.q, near.r)
        if distance(here, ct) > 10:
            continue
        if distance(here, ct) <= 3:
            tiles = [here, *[t for t in ring(here, 1) if an.mi.index(*t) >= 0]]
            orders = [Pillage(unit_id=u.id, to=t) for t in tiles]
            results = an.obs.check_orders([], list(orders))
            hit = next((o for o, r in zip(orders, results, strict=True) if r.ok), None)
            if hit is not None:
                back = [t for t in an.free_beside(here, "troop", radius=2) if distance(t, ct) >= 3]
                plan = (hit, Move(unit_id=u.id, to=back[0])) if back else (hit,)
                tasks.append(Task(u.id, plan, priority, f"raid {near.name}"))
                taken.add(u.id)
                notes.append(f"our horse pillage the land of {near.name}")
                continue
        spots = [t for t in ring(ct, 2) if an.mi.index(*t) >= 0 and an.pic.can_stop(an.idx(t), own_ok=False)]
        if not spots:
            continue
        spot = min(spots, key=lambda t: (distance(t, here), t[1], t[0]))
        t = move_task(u, spot, priority, f"ride on {near.name}")
        if t is not None:
            tasks.append(t)
            taken.add(u.id)
    return tasks, notes


def horse_builds(an: Analysis, army: list[OwnUnit], priority: float) -> list[Build]:
    """A troop of horse once at war, for raids and to ride down archers and siege trains (COMBAT-110)."""
    if not an.enemies or not can_raise(an, "cavalry"):
        return []
    if any(u.type == "cavalry" for u in army) or an.queued_men.get("cavalry"):
        return []
    city = _raiser(an, "cavalry")
    return [Build(city.id, "cavalry", priority, men=2000, why="horse for raids")] if city is not None else []


def generals(an: Analysis, priority: float) -> list[Task]:
    """A general waiting in a city takes the largest troop within his reach that has none (GEN-060, GEN-110: x1.1 and
    up in the field), field troops before garrisons; given first, while the two still stand within reach."""
    tasks: list[Task] = []
    led = {g.unit_id for g in an.obs.view.generals if g.unit_id is not None}
    given: set[int] = set()
    for g in sorted(an.obs.view.generals, key=lambda g: g.id):
        if g.city_id is None or g.city_id not in an.city_by_id:
            continue
        c = an.city_by_id[g.city_id]
        cands = [u for u in an.pic.units if rd.UNITS[u.type].fighting and u.type != "catapult" and u.men >= 500
                 and u.id not in led and u.id not in given
                 and distance((u.q, u.r), (c.q, c.r)) <= rd.GENERAL_REACH]
        if not cands:
            continue
        u = max(cands, key=lambda x: (x.in_city is None, x.men, -x.id))
        given.add(u.id)
        tasks.append(Task(u.id, (AssignGeneral(general_id=g.id, unit_id=u.id),), priority,
                          f"General {g.name} takes command"))
    return tasks


def plan(an: Analysis, strategy: Strategy, reserved: set[int], wanted: dict[int, int]) -> FieldPlan:
    """The army's month: muster, march or siege, skirmishes on the way (see the module notes). `reserved`: troops
    the defence keeps; `wanted`: the garrison each city should keep (an army troop in it leaves that behind)."""
    props = Proposals()
    army = army_units(an, reserved)
    aim = strategy.aim
    rally = rally_city(an, aim)
    taken: set[int] = set()
    tasks, notes = skirmish(an, army, taken, 60.0)
    props.tasks += tasks
    props.notes += notes
    tasks, notes = raids(an, army, taken, 45.0)
    props.tasks += tasks
    props.notes += notes
    props.builds += horse_builds(an, army, 40.0)
    props.kingdom += [o for t in generals(an, 90.0) for o in t.orders]
    rest = [u for u in army if u.id not in taken]
    out_of = (rally.q, rally.r) if aim is None else aim.tile
    in_cities = [u for u in rest if u.in_city is not None and wanted.get(u.in_city, 0) > 0
                 and u.in_city != rally.id]
    if in_cities:
        spot = next(iter(an.free_beside((rally.q, rally.r), "troop", own_land=True, radius=2)), (rally.q, rally.r))
        _free, stay = _garrisons_stay(an, in_cities, wanted, spot if aim is None else out_of, 25.0,
                                      "the army leaves a garrison behind")
        props.tasks += stay
        rest = [u for u in rest if u not in in_cities]
    if aim is None:
        props.tasks += _gather(an, rest, rally, None, 20.0, "the army stands by at home")
        return FieldPlan(props, army, rally, None, "home")
    at_target = [u for u in rest if distance((u.q, u.r), aim.tile) <= AT_TARGET]
    away = [u for u in rest if u not in at_target]
    staging = staging_tile(an, aim, (rally.q, rally.r))
    coming = sum(an.queued_men.values())
    enough = not aim.size.recruits or sum(t.men for t in aim.size.recruits) <= 0.15 * sum(u.men for u in army)
    maxed = upkeep_room(an, strategy.share) < 1000  # no more can be kept: go with what there is
    ready = coming <= 1000 and ((aim.size.feasible and enough) or (strategy.go_anyway and (enough or maxed)))
    main = _main(rest)
    home_tile = (rally.q, rally.r)
    aimed = _standing_to(main) if main is not None else None
    going = main is not None and staging is not None and (
        aimed is not None and distance(aimed, staging) <= 2
        or _following(main) is not None and not an.pic.own_land[an.idx((main.q, main.r))])
    falling_back = main is not None and aimed is not None and \
        distance(aimed, home_tile) <= 2 and not an.pic.own_land[an.idx((main.q, main.r))]
    troops = [u for u in rest if _slot(u) == "troop"]
    # Set out with the rations of the march at least (wagons go along for the siege): a troop on its land
    # refills a month of rations a month from its city's granary (SUPPLY-050).
    trip = march_months(an, main, staging) if main is not None and staging is not None else 0.0
    fed = all(_ration_months(an, u) >= min(float(rd.MAX_RATION_MONTHS) - 0.5, trip + 1.0) for u in troops
              if an.pic.own_land[an.idx((u.q, u.r))])
    if fed and main is not None and an.pic.own_land[an.idx((main.q, main.r))]:
        # ... and grain for the siege: what the troops carry and what two wagons could bring from the granaries
        months = float(aim.size.taken_in or siege_months(an, aim))  # the siege the forecast expects
        need = (trip + months) * sum(u.men for u in rest) / 1000.0
        spare = sum(max(0.0, c.grain - rd.RATION_RESERVE_SHARE * _granary_cap(c) - 10) for c in an.cities
                    if not c.restless)
        sent = sum(w.cargo for w in an.wagons if staging is not None and (
            distance((w.q, w.r), staging) <= 2 or (w.dest is not None and distance(w.dest, staging) <= 2)))
        fed = sum(u.rations for u in rest) + sent + min(spare, 2 * rd.WAGON_CAP) >= 0.8 * need
    # out of food before the walls: back to eat, unless the forecast has the city falling within a month or two
    soon = aim.size.taken_in is not None and aim.size.taken_in <= 2
    hungry = _food_months(an, at_target) < (0.0 if soon else 1.0)
    if aim.size.recruits:
        props.builds += recruit_builds(an, aim, 50.0)
    phase = "muster"
    if at_target and not hungry:
        phase = "siege"
    elif at_target:
        phase = "muster"  # starving before the walls: back to eat and refill
        props.notes.append(f"our army falls back from {aim.name} to {rally.name} to eat")
    elif falling_back:
        phase = "muster"
    elif (ready and fed) or going:
        phase = "march"
    if staging is None:
        phase = "siege" if at_target else "muster"
    if phase in ("march", "siege") and away and staging is not None:
        away, splits = _garrisons_stay(an, away, wanted, staging, 30.0, f"march on {aim.name}")
        props.tasks += splits
        props.tasks += column(an, away, staging, 30.0, f"march on {aim.name}")
    if phase in ("march", "siege") and staging is not None:
        ships, wagon_tasks = supply(an, rest, staging, siege_months(an, aim))
        props.kingdom += ships
        props.tasks += wagon_tasks
    elif phase == "muster":
        if main is not None and not an.pic.own_land[an.idx((main.q, main.r))]:
            props.tasks += column(an, rest, home_tile, 20.0, f"back to {rally.name}")
        else:
            props.tasks += _gather(an, rest, rally, aim.tile, 20.0, f"muster for {aim.name}")
        at_target = []
    return FieldPlan(props, army, rally, staging, phase, at_target)
