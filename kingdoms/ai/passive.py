"""The passive AI: it grows its cities, walls them and keeps a garrison of spearmen; it never attacks.

Each month, from its kingdom's observation only: a food focus while a city is well below what its land feeds
(balanced once near it); queues refilled in a fixed order of need — palisade, granary, farms on worked tiles,
barracks, stone walls, a spearman garrison sized to the city (and to what production can pay in upkeep), more
farms; the starting levies give way to spearmen once there are enough; troops hold (fortified). It never
declares war, never marches out and founds no cities.
"""

from __future__ import annotations

from kingdoms import ruledata as rd
from kingdoms.ai.common import Decision, Picture, available_verbs, entry_item, picture_for
from kingdoms.orders.models import Disband, Hold, Move, OrderModel, QueueItem, SetFocus, SetProduction
from kingdoms.views.kingdom_view import OwnUnit
from kingdoms.views.observation import Observation

#: Queue length kept ahead.
QUEUE_AHEAD = 3


def garrison_target(pic: Picture, city_id: int) -> int:
    """Spearmen a passive city keeps: 1,500 plus 5% of its people, at most 5,000 (a capital: at least 2,500)."""
    c = pic.city_by_id[city_id]
    want = 1500 + c.people // 20
    if c.is_capital:
        want = max(want, 2500)
    return int(min(5000, want) // 500 * 500)


def city_focus(pic: Picture, city_id: int) -> rd.Focus | None:
    """Food while the city is well below what its land feeds, balanced near it (with some hysteresis)."""
    c = pic.city_by_id[city_id]
    o = pic.output(city_id)
    if o.capacity <= 0:
        return None
    ratio = c.people / o.capacity
    if c.focus != "food" and ratio < 0.7:
        return "food"
    if c.focus != "balanced" and ratio >= 0.85:
        return "balanced"
    return None


def desired_queue(pic: Picture, city_id: int, spear_room: int) -> list[QueueItem]:
    """The items a passive city wants next, in order (what is already built is left out)."""
    c = pic.city_by_id[city_id]
    have = set(c.buildings) | {imp["kind"] for imp in c.improvements}
    gp_sites = len(pic.free_sites(city_id, "farm"))  # farms and granaries share grass and plains tiles
    farm_sites = pic.free_sites(city_id, "farm")
    worked = set(pic.output(city_id).worked)
    items: list[QueueItem] = []
    used_gp = 0
    if "palisade" not in have:
        items.append(QueueItem(item="palisade"))
    if "granary" not in have and used_gp < gp_sites:
        items.append(QueueItem(item="granary"))
        used_gp += 1
    worked_farms = [t for t in farm_sites if t in worked]
    if worked_farms and used_gp < gp_sites:
        items.append(QueueItem(item="farm"))
        used_gp += 1
    if "barracks" not in have:
        items.append(QueueItem(item="barracks"))
    if "walls" not in have:
        items.append(QueueItem(item="walls"))
    garrison = sum(u.men for u in pic.units if u.type == "spearman" and pic.mi.dist(
        pic.idx(u.q, u.r), pic.idx(c.q, c.r)) <= 1)
    need = garrison_target(pic, city_id) - garrison
    if need >= 500 and spear_room >= 500:
        items.append(QueueItem(item="spearman", men=min(need, spear_room) // 500 * 500))
    while used_gp < gp_sites and len(items) < QUEUE_AHEAD + 1:
        items.append(QueueItem(item="farm"))
        used_gp += 1
    return items


def refill(pic: Picture, city_id: int, desired: list[QueueItem]) -> SetProduction | None:
    """A set_production order when the city's queue runs low or its head should change; None to leave it."""
    c = pic.city_by_id[city_id]
    current = [entry_item(e) for e in c.queue]
    if len(current) >= 2 or not desired:
        return None
    queue = keep_head(current, desired)[:QUEUE_AHEAD]
    if queue == current:
        return None
    return SetProduction(city_id=c.id, queue=queue)


def keep_head(current: list[QueueItem], desired: list[QueueItem]) -> list[QueueItem]:
    """`desired` behind the current head item (kept as it is, so its progress stays), without repeating it."""
    if not current:
        return list(desired)
    head = current[0]
    rest = list(desired)
    names = [d.item for d in rest]
    if head.item in names:
        rest.pop(names.index(head.item))
    return [head, *rest]


def troop_orders(pic: Picture, verbs: frozenset[str]) -> list[OrderModel]:
    """Garrisons hold; spearmen raised beside a city take over from its levies and move in."""
    orders: list[OrderModel] = []
    mi = pic.mi
    cities = {mi.index(c.q, c.r): c for c in pic.cities}
    garrison_of: dict[int, OwnUnit] = {}
    for u in pic.units:
        if u.in_city is not None and rd.UNITS[u.type].fighting and u.type != "catapult":
            garrison_of[u.in_city] = u
    for u in sorted(pic.units, key=lambda x: x.id):
        if not rd.UNITS[u.type].fighting:
            continue
        i = mi.index(u.q, u.r)
        if u.in_city is None and u.standing is None and "move" in verbs:
            near = [cities[j] for j in mi.nbr_list[i] if j in cities]
            near.sort(key=lambda c: c.id)
            moved = False
            for city in near:
                gar = garrison_of.get(city.id)
                if gar is None:
                    orders.append(Move(unit_id=u.id, to=(city.q, city.r)))
                    garrison_of[city.id] = u
                    moved = True
                elif gar.type == u.type and gar.id != u.id and gar.men + u.men <= rd.MAX_TROOP_MEN:
                    orders.append(Move(unit_id=u.id, to=(city.q, city.r)))
                    moved = True
                elif (gar.type == "levy" and u.type == "spearman" and u.men >= 1000 and "disband" in verbs
                      and gar.standing is None):
                    orders.append(Disband(unit_id=gar.id))
                    orders.append(Move(unit_id=u.id, to=(city.q, city.r)))
                    garrison_of[city.id] = u
                    moved = True
                if moved:
                    break
            if moved:
                continue
        if not u.fortified and u.standing is None and "hold" in verbs:
            orders.append(Hold(unit_ids=[u.id]))
    return orders


def decide(obs: Observation) -> Decision:
    """The passive ruler's month, from its kingdom's observation."""
    return decide_picture(picture_for(obs))


def decide_picture(pic: Picture) -> Decision:
    verbs = available_verbs()
    orders: list[OrderModel] = []
    output = pic.output_total()
    upkeep = pic.upkeep()
    queued_men = sum(e.get("men", 0) for c in pic.cities for e in c.queue if e["item"] in rd.FIGHTING_TYPES)
    # Upkeep of everything raised and queued should stay within half the kingdom's output.
    spear_room = int(max(0.0, 0.5 * output - upkeep - 0.5) * 1000) - queued_men
    for c in sorted(pic.cities, key=lambda x: x.id):
        if c.restless:
            continue
        focus = city_focus(pic, c.id)
        if focus is not None:
            orders.append(SetFocus(city_id=c.id, focus=focus))
        want = desired_queue(pic, c.id, spear_room)
        order = refill(pic, c.id, want)
        if order is not None:
            orders.append(order)
            spear_room -= sum(x.men or 0 for x in want[:QUEUE_AHEAD] if x.item in rd.FIGHTING_TYPES)
    orders += troop_orders(pic, verbs)
    return Decision.of(orders)
