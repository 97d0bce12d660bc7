"""Economy and expansion: the hard ruler's cities — focus, buildings, improvements and colonists.

`plan(an, strategy) -> Proposals`. Every figure comes from the observation's economy services, run by the
engine on the believed board (Observation.outlooks, .free_sites, .sites, .price):

- **focus** (CITY-070): the focus worth most now — production a month against the people it would add (worth
  less as the game ages), never one that leaves the city short of grain;
- **buildings**, by need: a palisade everywhere (walls 40 at once for 10), a barracks in the capital early
  (trained spearmen and archers), a granary (grain for wagons and sieges), farms on worked grass and plains,
  a workshop once engines are wanted (stone walls seen), a forge once the kingdom can pay for heavy infantry, a
  stable for a few horse, stone walls once rivals can reach it;
- **colonists** (CITY-390 to CITY-450): once the capital has people to spare, to the best site the observation reports
  (its people fed and production at full land), near home or toward the Ruin — at most a few cities, since
  every city is one a rival could capture.
"""

from __future__ import annotations

import numpy as np

from kingdoms import ruledata as rd
from kingdoms.ai.hard.analysis import Analysis
from kingdoms.ai.hard.plan import Build, Proposals, Task
from kingdoms.ai.hard.strategy import Strategy
from kingdoms.hexgrid import Tile, distance
from kingdoms.orders.models import FoundCity, Move, SetFocus
from kingdoms.views.kingdom_view import OwnCity

#: Cities the ruler aims to hold (its own foundations, the Ruin and conquests aside).
FOUNDED_CITIES = 3
#: People a city keeps when it raises colonists, and what it needs to start.
COLONY_FROM = 17_000


def _have(c: OwnCity) -> set[str]:
    return set(c.buildings) | {imp["kind"] for imp in c.improvements}


def focus_for(an: Analysis, c: OwnCity) -> rd.Focus | None:
    """The focus worth most this month (production now against people gained), None to keep the current one.
    Weighed every third month (staggered by city), or at once when the city's grain runs short."""
    if (an.month + c.id) % 3 and an.obs.city_output(c.id).net >= 0.3:
        return None
    looks = an.obs.outlooks(c.id)
    weight = max(0.0, 2.5 * (1.0 - an.month / 120.0))
    if not c.is_capital and c.people < 9000:
        weight *= 2.0
    best: tuple[tuple[float, bool, str], rd.Focus] | None = None
    for focus in rd.FOCUSES:
        o = looks[focus]
        value = o.production + weight * o.growth / 1000.0 + (0.2 if focus == c.focus else 0.0)
        if o.net < 0.3:
            value -= 100.0 + 10.0 * max(0.0, -o.net)
        key = (value, focus == c.focus, focus)
        if best is None or key > best[0]:
            best = (key, focus)
    if best is None or best[1] == c.focus:
        return None
    return best[1]


def builds_for(an: Analysis, c: OwnCity, strategy: Strategy) -> list[Build]:
    """What a city should build, by need (the arbiter orders and trims them)."""
    out: list[Build] = []
    have = _have(c)
    m = an.month
    cap = c.is_capital
    threatened = c.id in an.threats or bool(an.enemies)
    farms = an.obs.free_sites(c.id, "farm")
    worked = set(an.obs.city_output(c.id).worked)
    if "palisade" not in have:
        out.append(Build(c.id, "palisade", 45 if (cap or threatened or c.is_ruin) else 30, why="walls 40 at once"))
    if cap and "barracks" not in have and m >= 2:
        out.append(Build(c.id, "barracks", 34, why="trained spearmen and archers"))
    if "granary" not in have and farms and (cap or c.people >= 9000):
        out.append(Build(c.id, "granary", 28, why="grain for the army"))
    worked_farms = [t for t in farms if t in worked]
    if worked_farms:
        out.append(Build(c.id, "farm", 24, tile=worked_farms[0], why="food on a worked tile"))
    wants_engines = any(f.walls is not None and f.walls > 55 for f in an.obs.view.foreign_cities if not f.ruin)
    if "workshop" not in have and cap and an.obs.free_sites(c.id, "workshop") and (wants_engines or m >= 24):
        out.append(Build(c.id, "workshop", 32, why="siege engines for stone walls"))
    if cap and "forge" not in have and "barracks" in have and m >= 14 and an.output >= 13:
        out.append(Build(c.id, "forge", 26, why="heavy infantry against pike lines"))
    if cap and "stable" not in have and "barracks" in have and (an.enemies or m >= 30) and an.output >= 14:
        out.append(Build(c.id, "stable", 18, why="horse to ride down archers and siege trains"))
    if "walls" not in have and ("palisade" in have) and (
            threatened or (cap and m >= 14) or c.is_ruin or c.captured_by == an.kingdom or m >= 40):
        out.append(Build(c.id, "walls", 40 if (threatened or c.is_ruin) else 22, why="stone walls"))
    if len(worked_farms) > 1:
        out.append(Build(c.id, "farm", 12, tile=worked_farms[1], why="more food"))
    return out


def colonist_builds(an: Analysis, strategy: Strategy) -> list[Build]:
    """Colonists from a big, productive city when a good site is known and the kingdom is not short of troops."""
    founded = [c for c in an.cities if c.founder == an.kingdom and not c.is_ruin]
    if an.colonists or an.queued_items.get("colonists") or len(founded) >= FOUNDED_CITIES:
        return []
    if an.month < 6 or (strategy.aim is not None and strategy.aim.size.recruits and an.month < 40):
        return []
    best = None
    for c in an.cities:
        if c.restless or c.people < COLONY_FROM or c.id in an.threats:
            continue
        if (an.month + c.id) % 4:
            continue  # weighed every fourth month
        o = an.obs.city_output(c.id)
        key = (o.production, c.people, -c.id)
        if best is None or key > best[0]:
            best = (key, c)
    if best is None or choose_site(an, (best[1].q, best[1].r)) is None:
        return []
    return [Build(best[1].id, "colonists", 20, why="a new city")]


#: Sites weighed at most, nearest first (each is an engine site report).
SITES_WEIGHED = 12


def choose_site(an: Analysis, origin: Tile) -> Tile | None:
    """The best site to found a city near home, by the engine's site report (CITY-450: the people its land feeds,
    its production at full land, its water): the nearest free explored tiles within seven of `origin` are
    weighed, away from rivals and the Ruin."""
    mi = an.mi
    held = an.obs.land.held | an.pic.own_land | an.pic.foreign_land
    ext = np.append(held, False)
    near_held = held | ext[mi.nbr].any(axis=1)
    d = mi.dist_from(an.idx(origin))
    ok = an.pic.explored & mi.land & mi.passable & ~near_held & (d >= 3) & (d <= 7)
    rivals = [(c.q, c.r) for r in an.rivals.values() for c in r.cities]
    ruin = an.obs.view.ruin
    cands = sorted(np.flatnonzero(ok).tolist(), key=lambda i: (int(d[i]), mi.rs[i], mi.qs[i]))
    best = None
    weighed = 0
    for i in cands:
        t = mi.tile(i)
        if any(distance(t, r) <= 5 for r in rivals) or (ruin is not None and distance(t, (ruin.q, ruin.r)) <= 3):
            continue
        site = an.obs.site(*t)
        if site is None:
            continue
        weighed += 1
        if site.water != "dry":
            score = site.feeds / 1000.0 + 1.5 * site.prod_full - 1.2 * distance(t, origin)
            key = (-score, t[1], t[0])
            if best is None or key < best[0]:
                best = (key, t)
        if weighed >= SITES_WEIGHED:
            break
    return best[1] if best else None


def colonist_tasks(an: Analysis) -> list[Task]:
    """Colonists march to their site and found the city there (a move and found_city in one month when they
    arrive with a move left, CITY-420)."""
    tasks: list[Task] = []
    for u in an.colonists:
        site = choose_site(an, (u.q, u.r))
        if site is None:
            continue
        here = (u.q, u.r)
        if here == site:
            tasks.append(Task(u.id, (FoundCity(unit_id=u.id),), 80.0, "found a city"))
            continue
        months = an.obs.months_to(u.id, [site])
        if months is None:
            continue
        orders: tuple = (Move(unit_id=u.id, to=site),)
        if months == 1 and distance(here, site) <= 2:
            orders = (Move(unit_id=u.id, to=site), FoundCity(unit_id=u.id))
        st = u.standing or {}
        if months > 1 and st.get("action") == "move" and tuple(st.get("to") or ()) == site:
            continue
        tasks.append(Task(u.id, orders, 80.0, "colonists to their site"))
    return tasks


def plan(an: Analysis, strategy: Strategy) -> Proposals:
    """The cities' month."""
    props = Proposals()
    for c in an.cities:
        if c.restless:
            continue
        focus = focus_for(an, c)
        if focus is not None:
            props.kingdom.append(SetFocus(city_id=c.id, focus=focus))
        props.builds += builds_for(an, c, strategy)
    props.builds += colonist_builds(an, strategy)
    props.tasks += colonist_tasks(an)
    return props
