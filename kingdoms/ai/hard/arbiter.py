"""The arbiter: it settles every planner's proposals into the month's orders, checks them, and writes them.

`settle(an, share, proposals) -> list of orders`:

- **units**: each unit gets the one task of highest priority (ties: the planner listed first);
- **upkeep**: recruits are kept, highest priority first, while the kingdom's upkeep (what it pays now, what is
  queued, and the new troops) stays within `share` of its output (RECRUIT-180); an urgent garrison always;
- **queues**: each city's builds, highest priority first, behind the item it is working on (so its progress
  stays) unless an urgent build must go first; buildings it has or queues are left out, a troop whose building
  the city lacks is dropped, and an unchanged queue is not ordered again;
- **order**: declarations first (an attack the same month needs the war, DIPLO-090), then sabotage, then
  generals taking command (before their troops move off), then the units' orders (the siege's volleys before
  its assaults), then grain, production and focus;
- **check**: the whole list goes through the issue-time check on the believed board (Observation.check_orders);
  a refused order is dropped and the rest checked again, so no order given is ever refused.

Orders are order models (kingdoms.orders.models); the text is written by orders.syntax.format_order.
"""

from __future__ import annotations

from kingdoms import ruledata as rd
from kingdoms.ai.hard.analysis import Analysis
from kingdoms.ai.hard.plan import Build, Proposals, Task
from kingdoms.orders.models import AssignGeneral, DeclareWar, OrderModel, QueueItem, Sabotage, SetProduction
from kingdoms.views.kingdom_view import OwnCity

#: Items a queue holds ahead.
QUEUE_AHEAD = 4
#: Checks of the order list (each drops what the one before refused).
CHECK_ROUNDS = 3


def pick_tasks(tasks: list[Task]) -> list[Task]:
    """One task per unit: the highest priority; ties go to the task proposed first."""
    best: dict[int, tuple[float, int, Task]] = {}
    for n, t in enumerate(tasks):
        cur = best.get(t.unit_id)
        if cur is None or t.priority > cur[0]:
            best[t.unit_id] = (t.priority, n, t)
    return [t for _, _, t in sorted(best.values(), key=lambda x: (-x[0], x[1]))]


def _entry(e: dict) -> QueueItem:
    """An own city's queue entry as a queue item (what is left of a troop order never under the minimum)."""
    item = e["item"]
    if e.get("tile"):
        return QueueItem(item=item, tile=(int(e["tile"][0]), int(e["tile"][1])))
    if item in rd.UNITS and rd.UNITS[item].fighting:
        return QueueItem(item=item, men=max(int(e.get("men") or 0), rd.UNITS[item].min_men))
    return QueueItem(item=item)


def _item(b: Build) -> QueueItem:
    if b.men is not None:
        return QueueItem(item=b.item, men=b.men)
    if b.tile is not None:
        return QueueItem(item=b.item, tile=b.tile)
    return QueueItem(item=b.item)


def _same(a: QueueItem, b: QueueItem) -> bool:
    return a.item == b.item and a.tile == b.tile and a.men == b.men


#: Priority of an item already queued that no planner asks for this month: recruits under way keep theirs high
#: (the forecasts count them as coming), anything else low.
KEPT_PRIORITY = 15.0
KEPT_TROOPS = 45.0
#: A queue never grows beyond this many items.
QUEUE_MAX = 6


def city_queue(an: Analysis, c: OwnCity, builds: list[Build]) -> SetProduction | None:
    """The city's new queue from its builds (see the module notes), or None to leave it as it is.

    What is queued stays, at the priority a planner gives it this month (else KEPT_PRIORITY); new builds join
    it by priority; the head stays first while it is being worked on, unless an urgent build comes.
    """
    current = [_entry(e) for e in c.queue]
    have = set(c.buildings)
    kinds = {imp["kind"] for imp in c.improvements}
    wanted = sorted(builds, key=lambda b: (-b.priority, b.item, b.men or 0))
    ranked: list[tuple[float, int, QueueItem, bool]] = []  # (priority, order, item, urgent)
    used: set[int] = set()
    for n, it in enumerate(current):
        match = next((k for k, b in enumerate(wanted) if k not in used and b.item == it.item
                      and (b.tile is None or b.tile == it.tile)), None)
        pr = KEPT_TROOPS if it.item in rd.FIGHTING_TYPES else KEPT_PRIORITY
        urgent = False
        if match is not None:
            used.add(match)
            want = wanted[match]
            pr, urgent = max(pr, want.priority), want.urgent
            if want.men is not None and it.men is not None and want.men > it.men:
                it = QueueItem(item=it.item, men=min(rd.MAX_TROOP_MEN, want.men))
        if n == 0 and (float(c.queue[0].get("paid") or 0.0) > 0.5 or it.item in rd.FIGHTING_TYPES):
            pr += 1000.0  # the work in progress keeps its place
        ranked.append((pr, n, it, urgent))
    planned = {it.item for _, _, it, _ in ranked}
    tiles = {it.tile for _, _, it, _ in ranked if it.tile is not None}
    for k, b in enumerate(wanted):
        if k in used:
            continue
        it = _item(b)
        name = it.item
        if name in rd.BUILDINGS:
            if name in have or name in planned:
                continue
            if rd.missing_need(name, have, planned):
                continue
        elif name in rd.IMPROVEMENTS:
            if name in rd.UNIQUE_IMPROVEMENTS and (name in kinds or name in planned):
                continue
            if it.tile is not None and it.tile in tiles:
                continue
            if it.tile is None and not an.obs.free_sites(c.id, name):
                continue
        elif name in rd.UNITS and rd.UNITS[name].fighting:
            need = rd.UNITS[name].requires
            if need is not None and need not in have and need not in kinds and need not in planned:
                continue
            if name in planned:
                continue
        elif name in ("scout", "spy", "colonists") and name in planned:
            continue
        ranked.append((b.priority + (2000.0 if b.urgent else 0.0), 100 + k, it, b.urgent))
        planned.add(name)
        if it.tile is not None:
            tiles.add(it.tile)
    ranked.sort(key=lambda x: (-x[0], x[1]))
    kept = [r for r in ranked if r[1] < 100]
    new = [r for r in ranked if r[1] >= 100][:max(0, QUEUE_AHEAD - len(kept))]
    keep_ids = {id(r) for r in kept + new}
    out = [it for r in ranked if id(r) in keep_ids for it in (r[2],)][:QUEUE_MAX]
    out = _prerequisites_first(out, have, kinds)
    if not out:
        return None
    if len(current) == len(out) and all(_same(a, b) for a, b in zip(current, out, strict=True)):
        return None
    if current and len(out) <= len(current) and all(_same(a, b) for a, b in zip(out, current, strict=False)):
        return None  # only the tail was cut: leave the queue be
    return SetProduction(city_id=c.id, queue=out)


def _prerequisites_first(items: list[QueueItem], have: set[str], kinds: set[str]) -> list[QueueItem]:
    """Drop what the queue check would refuse: walls before their palisade, a troop before its building."""
    out: list[QueueItem] = []
    done = set(have) | set(kinds)
    for it in items:
        name = it.item
        if name == "walls" and "palisade" not in done:
            continue
        if name in rd.UNITS and rd.UNITS[name].fighting:
            need = rd.UNITS[name].requires
            if need is not None and need not in done:
                continue
        out.append(it)
        done.add(name)
    return out


def budget_builds(an: Analysis, share: float, builds: list[Build]) -> list[Build]:
    """Drop recruits the kingdom's upkeep could not carry (highest priority kept first; urgent ones always)."""
    room = share * an.output - an.upkeep
    room -= sum(rd.UPKEEP_PER_1000 * m / 1000 for m in an.queued_men.values())
    kept: list[Build] = []
    for b in sorted(builds, key=lambda b: (-b.priority, b.city_id, b.item)):
        if b.item in rd.FIGHTING_TYPES and b.men:
            cost = rd.UPKEEP_PER_1000 * b.men / 1000 + rd.UPKEEP_PER_TROOP
            if cost > room and not b.urgent:
                men = int((room - rd.UPKEEP_PER_TROOP) * 1000 // 500 * 500)
                if men < rd.UNITS[b.item].min_men:
                    continue
                b = Build(b.city_id, b.item, b.priority, men=men, tile=b.tile, urgent=b.urgent, why=b.why)
                cost = rd.UPKEEP_PER_1000 * men / 1000 + rd.UPKEEP_PER_TROOP
            room -= cost
        kept.append(b)
    return kept


def settle(an: Analysis, share: float, props: Proposals) -> list[OrderModel]:
    """The month's orders from every planner's proposals, checked (see the module notes)."""
    tasks = pick_tasks(props.tasks)
    builds = budget_builds(an, share, props.builds)
    by_city: dict[int, list[Build]] = {}
    for b in builds:
        by_city.setdefault(b.city_id, []).append(b)
    declares = [o for o in props.kingdom if isinstance(o, DeclareWar)]
    sabotage = [o for o in props.kingdom if isinstance(o, Sabotage)]
    seen_sab: set[int] = set()
    first_sab: list[Sabotage] = []
    for s in sabotage:  # one sabotage a city: the first proposed
        if s.city_id not in seen_sab:
            seen_sab.add(s.city_id)
            first_sab.append(s)
    sabotage = first_sab
    assign = [o for o in props.kingdom if isinstance(o, AssignGeneral)]
    other = [o for o in props.kingdom if not isinstance(o, (DeclareWar, Sabotage, AssignGeneral))]
    orders: list[OrderModel] = []
    names: set[str] = set()
    for d in declares:
        if d.to not in names:
            names.add(d.to)
            orders.append(d)
    orders += sabotage
    orders += assign  # before any troop moves: a general joins a troop within 2 tiles of him (GEN-060)
    for t in tasks:
        orders += list(t.orders)
    orders += other
    for c in an.cities:
        if c.restless:
            continue
        q = city_queue(an, c, by_city.get(c.id, []))
        if q is not None:
            orders.append(q)
    return checked(an, orders)


def checked(an: Analysis, orders: list[OrderModel]) -> list[OrderModel]:
    """The orders the issue-time check accepts, checked again once refused ones are dropped."""
    for _ in range(CHECK_ROUNDS):
        if not orders:
            return orders
        results = an.obs.check_orders([], list(orders))
        ok = [o for o, r in zip(orders, results, strict=True) if r.ok]
        if len(ok) == len(orders):
            return orders
        orders = ok
    results = an.obs.check_orders([], list(orders))
    return [o for o, r in zip(orders, results, strict=True) if r.ok]
