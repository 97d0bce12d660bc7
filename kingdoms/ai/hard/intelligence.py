"""Intelligence: the hard ruler's scouts and spies, and counter-spies at home.

`plan(an, strategy, fp) -> Proposals`:

- **scouts** (INTEL-080): the first looks for the rivals' capitals where the rules put them — about as far from
  the Ruin as the kingdom's own landing, a third of the way round either side — and then watches the target
  from four tiles, so the troops around it are known to the man (exact forecasts, COMBAT-410); a second one
  rides ahead of the army on campaign;
- **spies** (INTEL-100 to INTEL-170): one goes into the target city (station_spy) as soon as the aim is set, for its
  monthly report (garrison, militia, walls: exact siege forecasts, INTEL-220); in a long siege of a blockaded
  city it burns the granary (SABOTAGE: half the grain); the siege planner spends it on panic the month of the
  assault;
- **counter-spies** (INTEL-180): from the second year one sits in the capital (a foreign spy there is unmasked
  20% of months), more once a rival's spy has been caught or has struck at home.
"""

from __future__ import annotations

import numpy as np

from kingdoms.ai.hard.analysis import Analysis
from kingdoms.ai.hard.field import FieldPlan
from kingdoms.ai.hard.plan import Build, Proposals, Task
from kingdoms.ai.hard.strategy import Strategy
from kingdoms.hexgrid import Tile, distance, hex_len, hex_lens, ring
from kingdoms.orders.models import Move, Sabotage, StationSpy
from kingdoms.views.kingdom_view import OwnUnit

#: The scout watches its target from this far.
WATCH = 4


def _rotate(v: Tile, turns: int) -> Tile:
    """An axial vector turned by `turns` sixths of a circle (cube coordinates: (x, y, z) -> (-z, -x, -y))."""
    q, r = v
    for _ in range(turns % 6):
        q, r = -r, q + r
    return q, r


def guessed_capitals(an: Analysis) -> list[Tile]:
    """Where rivals' landings should be (VIC-130: the Ruin about equally far from every landing): the own
    capital's offset from the Ruin turned round the Ruin by equal shares of a circle, one per other kingdom
    (to the nearest sixth: a hex grid turns by sixths), kept on the map."""
    ruin = an.obs.view.ruin
    if ruin is None:
        return []
    n = max(2, len(an.obs.view.kingdoms))
    v = (an.capital.q - ruin.q, an.capital.r - ruin.r)
    turns = sorted({round(6 * k / n) % 6 for k in range(1, n)} - {0})
    out = []
    for turn in turns:
        dq, dr = _rotate(v, turn)
        out.append(_onto_map(an, (ruin.q + dq, ruin.r + dr)))
    return out


def _onto_map(an: Analysis, t: Tile) -> Tile:
    """The passable tile on the map nearest `t` (then lowest r, q)."""
    mi = an.mi
    i = mi.index(t[0], t[1])
    if i >= 0 and mi.passable[i]:
        return mi.tile(i)  # the only tile at distance 0
    dq = mi.q - t[0]
    dr = mi.r - t[1]
    d = hex_lens(dq, dr)
    d = np.where(mi.passable, d, 1 << 20)
    i = int(np.lexsort((mi.q, mi.r, d))[0])
    return mi.tile(i)


def _watch_tile(an: Analysis, target: Tile, toward: Tile) -> Tile | None:
    """A tile a scout can stand on about WATCH from `target`, on the side of `toward` (nearest it, then lowest r, q)."""
    index, can_stop = an.mi.index, an.pic.can_stop
    tq, tr = toward
    best: tuple[int, int, int] | None = None
    for q, r in ring(target, WATCH):
        i = index(q, r)
        if i >= 0 and can_stop(i, "agent", own_ok=True):
            key = (hex_len(q - tq, r - tr), r, q)
            if best is None or key < best:
                best = key
    return (best[2], best[1]) if best is not None else None


def _scout_goals(an: Analysis, strategy: Strategy, fp: FieldPlan) -> list[Tile]:
    """Where scouts are wanted, most needed first."""
    goals: list[Tile] = []
    unknown = [r for r in sorted(an.rivals) if an.rivals[r].capital is None]
    if unknown:
        guesses = guessed_capitals(an)
        known = [(r.capital.q, r.capital.r) for r in an.rivals.values() if r.capital is not None]
        for g in guesses:
            if all(distance(g, k) > 6 for k in known):
                goals.append(g)
    home = (an.capital.q, an.capital.r)
    if strategy.aim is not None:
        w = _watch_tile(an, strategy.aim.tile, home)
        if w is not None:
            goals.append(w)
    for r in sorted(an.rivals):
        cap = an.rivals[r].capital
        if cap is not None and (strategy.aim is None or cap.id != strategy.aim.city_id):
            w = _watch_tile(an, (cap.q, cap.r), home)
            if w is not None:
                goals.append(w)
    return goals


def _explored_near(an: Analysis, t: Tile) -> bool:
    i = an.idx(t)
    return i >= 0 and bool(an.pic.explored[i]) and bool(an.pic.visible[i])


def scout_tasks(an: Analysis, strategy: Strategy, fp: FieldPlan) -> list[Task]:
    """Each scout to the most needed goal no other scout has, nearest first."""
    tasks: list[Task] = []
    goals = _scout_goals(an, strategy, fp)
    free = list(an.scouts)
    for g in goals:
        if not free:
            break
        u = min(free, key=lambda s: (distance((s.q, s.r), g), s.id))
        free.remove(u)
        if (u.q, u.r) == g:
            continue
        st = u.standing or {}
        if st.get("action") == "move" and tuple(st.get("to") or ()) == g:
            continue
        i = an.idx(g)
        if an.pic.explored[i] and not an.pic.can_stop(i, "agent", own_ok=True):
            continue  # (a goal out of the explored map is marched toward: the scout explores on its way)
        tasks.append(Task(u.id, (Move(unit_id=u.id, to=g),), 30.0, "scout"))
    return tasks


def spy_tasks(an: Analysis, strategy: Strategy, fp: FieldPlan) -> tuple[list[Task], list[Sabotage], set[int]]:
    """Spies into the target city (and counter-spies into the capital); a granary burned in a long siege.
    Returns the tasks, sabotage orders and the cities a spy is already going to."""
    tasks: list[Task] = []
    sabotage: list[Sabotage] = []
    view = an.obs.view
    stationed = {s.city_id for s in view.spies if s.role == "spy"}
    counters = sum(1 for s in view.spies if s.role == "counter-spy" and s.city_id == an.capital.id)
    going: dict[int, int] = {}
    for u in an.spies:
        st = u.standing or {}
        if st.get("action") == "station_spy" and st.get("city_id") is not None:
            going[int(st["city_id"])] = u.id
    free: list[OwnUnit] = [u for u in an.spies if u.id not in going.values()]
    for city_id, tile, name in spy_targets(an, strategy):
        if city_id in stationed or city_id in going or not free:
            continue
        u = min(free, key=lambda s: (distance((s.q, s.r), tile), s.id))
        free.remove(u)
        tasks.append(Task(u.id, (StationSpy(unit_id=u.id, city_id=city_id),), 35.0, f"spy into {name}"))
        going[city_id] = u.id
    aim = strategy.aim
    want_counters = counter_spies_wanted(an)
    for u in list(free):
        if counters >= want_counters:
            break
        free.remove(u)
        tasks.append(Task(u.id, (StationSpy(unit_id=u.id, city_id=an.capital.id),), 35.0, "counter-spy at home"))
        counters += 1
    if (aim is not None and aim.city_id in stationed and fp.phase == "siege" and aim.owner in an.enemies
            and aim.city_id in _blockaded(an, aim.city_id)):
        sabotage.append(Sabotage(city_id=aim.city_id, target="granary"))
    return tasks, sabotage, set(going) | stationed


def spy_targets(an: Analysis, strategy: Strategy) -> list[tuple[int, Tile, str]]:
    """Cities a spy should sit in, most needed first: the target, then every rival's capital (its report makes the
    forecast of an attack on it exact, INTEL-220), nearest first."""
    out: list[tuple[int, Tile, str]] = []
    aim = strategy.aim
    if aim is not None:
        out.append((aim.city_id, aim.tile, aim.name))
    home = (an.capital.q, an.capital.r)
    caps = sorted((r.capital for r in an.rivals.values() if r.capital is not None),
                  key=lambda c: (distance((c.q, c.r), home), c.id))
    for c in caps:
        if aim is None or c.id != aim.city_id:
            out.append((c.id, (c.q, c.r), c.name))
    # and, when the target cannot be taken as it shows, the nearest other rival city: its report may show a
    # weaker garrison than its size class allows
    if aim is not None and not aim.size.feasible:
        others = sorted((c for r in an.rivals.values() for c in r.cities if c.id not in {x[0] for x in out}),
                        key=lambda c: (distance((c.q, c.r), home), c.id))
        out += [(c.id, (c.q, c.r), c.name) for c in others[:1]]
    return out


def _blockaded(an: Analysis, city_id: int) -> set[int]:
    """The city is blockaded by us, as far as the kingdom can tell: our men on its land within 2 of it number at
    least its troops' class and militia (SIEGE-150) — judged by the forecast's defence figures."""
    dfn = an.obs.city_defence(city_id)
    city = an.obs.known_city(city_id)
    if city is None:
        return set()
    land = [u for u in an.field if distance((u.q, u.r), (city.q, city.r)) <= 2
            and an.pic.foreign_land[an.idx((u.q, u.r))]]
    men = sum(u.men for u in land)
    return {city_id} if men >= dfn.garrison[1] + dfn.militia[1] and dfn.exact else set()


def counter_spies_wanted(an: Analysis) -> int:
    """Counter-spies the capital should hold: none in the first year, one after, up to three once rival spies
    have been caught or have struck at home."""
    if an.month < 20:
        return 0
    alarms = sum(1 for e in an.obs.events if e.get("kind") in ("spy_unmasked", "sabotage", "spies_captured"))
    return min(3, 1 + alarms)


def builds(an: Analysis, strategy: Strategy, going: set[int]) -> list[Build]:
    """Scouts and spies the kingdom should raise (in its capital)."""
    out: list[Build] = []
    cap = an.capital
    scouts = len(an.scouts) + an.queued_items.get("scout", 0)
    want_scouts = 1 if an.month < 20 and not an.enemies else 2
    if scouts < want_scouts:
        out.append(Build(cap.id, "scout", 60 if scouts == 0 else 25, why="eyes on the rivals"))
    idle = sum(1 for u in an.spies if not u.standing) + an.queued_items.get("spy", 0)
    counters = sum(1 for s in an.obs.view.spies if s.role == "counter-spy")
    want = max(0, counter_spies_wanted(an) - counters)
    want += sum(1 for cid, _, _ in spy_targets(an, strategy) if cid not in going)
    if idle < want and an.month >= 2:
        out.append(Build(cap.id, "spy", 38, why="a spy for the target"))
    return out


def plan(an: Analysis, strategy: Strategy, fp: FieldPlan) -> Proposals:
    """The intelligence's month."""
    props = Proposals()
    props.tasks += scout_tasks(an, strategy, fp)
    tasks, sabotage, going = spy_tasks(an, strategy, fp)
    props.tasks += tasks
    props.kingdom += sabotage
    props.builds += builds(an, strategy, going)
    return props
