"""City orders: set_production, set_focus, found_city (CITY-030, CITY-320..440, BUILD-010..110, RECRUIT-110, OPEN-80).

Each verb's `check` runs at issue time against the board as it stands (TURN-050) and again when the order is
carried out. A refused queue item refuses the whole set_production order and leaves the old queue as it was;
the message names what would work (the city's free sites, the building it lacks...).
"""

from __future__ import annotations

from typing import Any

from kingdoms import ruledata as rd
from kingdoms.engine import economy as eco
from kingdoms.engine.cities import improvement_problem
from kingdoms.engine.context import MonthContext, OrderFailed
from kingdoms.engine.land import found_city, founding_problem
from kingdoms.engine.registry import verb
from kingdoms.engine.visibility import knows_city, require_own_unit
from kingdoms.hexgrid import Tile, distance, fmt_tile, spiral
from kingdoms.state import City, GameState, QueueEntry

#: What each troop type needs in the raising city (BUILD-040, BUILD-100, OPEN-25).
REQUIRES = {name: spec.requires for name, spec in rd.UNITS.items() if spec.requires}


# --- whose city (INTEL-050) ---------------------------------------------------------------------------------


def own_city(state: GameState, kingdom: str, city_id: int) -> City:
    """The kingdom's city `city_id`; an unknown city and a foreign one it has never seen get the same reply."""
    city = state.cities.get(city_id)
    yours = sorted((c for c in state.cities.values() if c.owner == kingdom), key=lambda c: c.id)
    listing = ", ".join(f"#{c.id} {c.name}" for c in yours) or "none"
    if city is None or (city.owner != kingdom and not knows_city(state, kingdom, city)):
        raise OrderFailed("unknown_city", f"there is no city #{city_id} on your map; your cities: {listing}")
    if city.owner != kingdom:
        raise OrderFailed("not_your_city", f"{city.name} (#{city.id}) is not yours: give city orders to your own "
                                           f"cities ({listing})")
    return city


# --- set_production (OPEN-80) -------------------------------------------------------------------------------


def _sites_text(state: GameState, city: City, kind: str, taken: dict[Tile, str]) -> str:
    """The city's free sites for `kind`, for a refusal message."""
    sites = eco.free_sites(state, city, kind, taken)
    if sites:
        return f"free {kind} sites of {city.name}: " + ", ".join(fmt_tile(t) for t in sites[:8])
    return f"{city.name} has no free site for a {kind} ({eco.IMPROVEMENT_TERRAIN_NAMES[kind]} without an improvement)"


def _no_site_reason(state: GameState, city: City, kind: str, taken: dict[Tile, str]) -> str:
    """Why a city has no free site for `kind`: no such terrain on its land, or every such tile is built on."""
    gm = state.map
    allowed = rd.IMPROVEMENT_TERRAIN[kind]
    tiles = [t for t in state.city_tiles(city.id) if t != city.tile]
    fitting = [t for t in tiles if int(gm.terrain[gm.index(*t)]) in allowed]
    names = eco.IMPROVEMENT_TERRAIN_NAMES[kind]
    if not fitting:
        return (f"{city.name}'s land has no {names} tile, so it cannot have a {kind} (BUILD-110); its land grows "
                "onto new tiles as its people grow")
    existing = {(imp.q, imp.r): imp.kind for imp in city.improvements}
    used = ", ".join(f"{existing.get(t) or taken.get(t)} {fmt_tile(t)}" for t in fitting)
    return f"every {names} tile of {city.name} already holds or awaits an improvement ({used})"


def plan_queue(state: GameState, city: City, items: list[Any], board: eco.Board | None = None) -> list[QueueEntry]:
    """Check every item of a set_production queue and return the entries (named improvements get their tile).

    Refuses the first item that cannot be built (OPEN-80): a building already built or queued twice, walls
    without a palisade, a troop without its building here (or queued before it), a size out of range, an
    improvement off the city's land, on its centre, on a tile with an improvement, on the wrong terrain, a
    second granary or workshop, or a named improvement with no free site. `board`: a kept board of the state as
    it stands (one is made at the first improvement without a tile: nothing here changes what a frame reads).
    """
    have = set(city.buildings)
    kinds = {imp.kind for imp in city.improvements}
    planned: set[str] = set()
    taken: dict[Tile, str] = {}
    entries: list[QueueEntry] = []
    for pos, it in enumerate(items, 1):
        item = it.item
        where = f"item {pos} ({item})"
        if item in rd.BUILDINGS:
            if item in have:
                raise OrderFailed("already_built", f"{where}: {city.name} already has a {item}; drop it from the queue")
            if item in planned:
                raise OrderFailed("duplicate_item", f"{where}: {item} is already in this queue; a city builds "
                                                    "each building once")
            if rd.missing_need(item, have, planned):
                raise OrderFailed("needs_palisade", f"{where}: stone walls are raised on a palisade; queue "
                                                    "palisade before walls")
            planned.add(item)
            entries.append(QueueEntry(item))
        elif item in rd.IMPROVEMENTS:
            if item in rd.UNIQUE_IMPROVEMENTS and (item in kinds or item in taken.values()):
                what = "already has" if item in kinds else "already queues"
                raise OrderFailed("one_per_city", f"{where}: {city.name} {what} a {item}, and a city has at most "
                                                  f"one; queue farms or other items instead")
            tile = tuple(it.tile) if it.tile is not None else None
            if tile is None:
                if board is None:
                    board = eco.Board.kept(state)
                sites = eco.free_sites(state, city, item, taken, board=board)
                if not sites:
                    raise OrderFailed("no_site", f"{where}: {_no_site_reason(state, city, item, taken)}")
                tile = sites[0]
            else:
                problem = improvement_problem(state, city, item, tile, taken)
                if problem is not None:
                    raise OrderFailed("bad_site", f"{where}: {problem}; {_sites_text(state, city, item, taken)} "
                                                  f"(or write {item} alone for the best one)")
            taken[tile] = item
            entries.append(QueueEntry(item, tile=tile))
        elif item in rd.UNITS and rd.UNITS[item].fighting:
            lo = rd.UNITS[item].min_men
            if it.men is None or not lo <= it.men <= rd.MAX_TROOP_MEN:
                raise OrderFailed("bad_size", f"{where}: a {item} order raises {lo:,} to {rd.MAX_TROOP_MEN:,} men, "
                                              f"e.g. {item}:{max(lo, 2000)}")
            need = REQUIRES.get(item)
            if need is not None:
                built = need in kinds if need in rd.IMPROVEMENTS else need in have
                queued = need in taken.values() if need in rd.IMPROVEMENTS else need in planned
                if not built and not queued:
                    raise OrderFailed("needs_building", f"{where}: {item} need a {need} in {city.name}; queue {need} "
                                                        f"before {item}" + (f" ({_sites_text(state, city, need, taken)})"
                                                                            if need in rd.IMPROVEMENTS else ""))
            entries.append(QueueEntry(item, men=int(it.men)))
        elif item in ("colonists", "scout", "spy"):
            entries.append(QueueEntry(item))
        else:
            raise OrderFailed("unknown_item", f"{where}: no such item; items: "
                                              f"{', '.join([*rd.BUILDINGS, *rd.IMPROVEMENTS, *rd.RECRUITABLE])}")
    return entries


def _same_head(old: QueueEntry, new: QueueEntry) -> bool:
    """The same item stays at the head (a troop order of the same type, an improvement on the same tile)."""
    return old.item == new.item and old.tile == new.tile


def _entry_text(e: QueueEntry) -> str:
    """A queue entry in the short syntax with its price."""
    if e.men:
        return f"{e.item}:{e.men} ({eco.item_price(e.item, e.men):g})"
    if e.tile is not None:
        return f"{e.item}@{e.tile[0]},{e.tile[1]} ({eco.item_price(e.item):g})"
    return f"{e.item} ({eco.item_price(e.item):g})"


def _check_set_production(ctx: MonthContext, kingdom: str, order: Any) -> None:
    """Issue-time check of set_production: own city, every item buildable (OPEN-80)."""
    city = own_city(ctx.state, kingdom, order.city_id)
    plan_queue(ctx.state, city, list(order.queue))


#: Share of the kingdom's production past which the upkeep of the troops queued earns a warning (issue-time).
UPKEEP_WARN_SHARE = 0.75


def queued_upkeep(state: GameState, kingdom: str) -> float:
    """Upkeep a month the troops in every own city's queue will add once raised (RECRUIT-180): 1 per 1,000 men
    and 0.5 a troop (a batch that joins a troop already in the city adds less: an upper bound)."""
    extra = 0.0
    for city in state.cities.values():
        if city.owner != kingdom:
            continue
        for e in city.queue:
            spec = rd.UNITS.get(e.item)
            if spec is not None and spec.fighting and e.men:
                extra += rd.UPKEEP_PER_1000 * e.men / 1000 + rd.UPKEEP_PER_TROOP
    return extra


def upkeep_warning(state: GameState, kingdom: str, before: float, budget: eco.KingdomBudget | None = None) -> str:
    """'; WARNING: ...' when the troops now queued would push army upkeep past about three quarters of the
    kingdom's production (RECRUIT-190: upkeep is paid before anything is built), and the order added to them.
    `budget`: the kingdom's budget on the state as it stands, when the caller has it."""
    after = queued_upkeep(state, kingdom)
    if after <= before + eco.EPS:
        return ""
    if budget is None:
        budget = eco.kingdom_budget(state, kingdom)
    total = budget.upkeep + after
    if budget.output <= 0 or total <= UPKEEP_WARN_SHARE * budget.output:
        return ""
    return (f"; WARNING: with the troops queued raised, army upkeep would be about {total:.1f} of your "
            f"{budget.output} production a month ({total / budget.output:.0%}): little would be left to build with")


@verb("set_production", check=_check_set_production)
def run_set_production(ctx: MonthContext, kingdom: str, order: Any) -> str:
    """set_production city=ID queue=...: the new queue replaces the old; progress stays on an unchanged head (OPEN-80)."""
    state = ctx.state
    city = own_city(state, kingdom, order.city_id)
    # One kept board serves the queue's sites and the budget: the order changes only the queue, which no frame reads.
    board = eco.Board.kept(state)
    entries = plan_queue(state, city, list(order.queue), board)
    before = queued_upkeep(state, kingdom)
    old_head = city.queue[0] if city.queue else None
    lost = ""
    if old_head is not None:
        if entries and _same_head(old_head, entries[0]):
            entries[0].paid = old_head.paid
            entries[0].months = old_head.months
        elif old_head.paid > eco.EPS:
            lost = f"; the {old_head.paid:.0f} production put into {old_head.item} is lost"
    city.queue = entries
    kingdom_budget = eco.kingdom_budget(state, kingdom, board=board)
    budget = kingdom_budget.cities.get(city.id)
    per_month = f"{budget.available:.1f}" if budget is not None else "?"
    if not entries:
        return (f"{city.name}'s queue is empty: it stores production up to {rd.STORE_EMPTY_CAP} and turns the rest "
                f"into grain (4 a dan){lost}")
    return (f"{city.name} will build {', '.join(_entry_text(e) for e in entries)}; {per_month} production a month "
            f"after upkeep, {city.store:.1f} in store{lost}" + upkeep_warning(state, kingdom, before, kingdom_budget))


# --- set_focus (CITY-030) -----------------------------------------------------------------------------------


def _check_set_focus(ctx: MonthContext, kingdom: str, order: Any) -> None:
    """Issue-time check of set_focus: own city, a known focus (CITY-030)."""
    own_city(ctx.state, kingdom, order.city_id)
    if order.focus not in rd.FOCUSES:
        raise OrderFailed("bad_focus", f"focus must be one of {', '.join(rd.FOCUSES)}")


@verb("set_focus", check=_check_set_focus)
def run_set_focus(ctx: MonthContext, kingdom: str, order: Any) -> str:
    """set_focus city=ID focus=...: the focus picks worked tiles, growth share and production factor (CITY-030, CITY-060)."""
    _check_set_focus(ctx, kingdom, order)
    state = ctx.state
    city = state.cities[order.city_id]
    city.focus = order.focus
    o = eco.city_output(state, city)
    return (f"{city.name} focus {order.focus}: harvest {o.harvest:.1f} dan, net {o.net:+.1f}/mo, "
            f"production {o.production}/mo, growth +{o.growth:,} people/mo")


# --- found_city (CITY-320..440) -----------------------------------------------------------------------------


def legal_sites_near(state: GameState, tile: Tile, radius: int = 3, limit: int = 4) -> list[Tile]:
    """Tiles near `tile` where a city could be founded now, nearest first (CITY-320)."""
    out = [t for t in spiral(tile, radius) if state.map.contains(*t) and founding_problem(state, *t) is None]
    out.sort(key=lambda t: (distance(tile, t), t[1], t[0]))
    return out[:limit]


def _check_found_city(ctx: MonthContext, kingdom: str, order: Any) -> None:
    """Issue-time check of found_city: own colonists with a move left on a legal site (CITY-320, CITY-420)."""
    state = ctx.state
    unit = require_own_unit(state, kingdom, order.unit_id)
    if unit.type != "colonists":
        raise OrderFailed("not_colonists", f"unit #{unit.id} is a {unit.type}: only colonists found cities "
                                           "(queue colonists in a city with set_production)")
    if ctx.moves(unit) <= eco.EPS:
        raise OrderFailed("no_moves_left", f"colonists #{unit.id} have no move left this month (a full march or a "
                                           "river crossing uses them all): found the city next month, or march them "
                                           "fewer tiles before found_city")
    problem = founding_problem(state, unit.q, unit.r)
    if problem is not None:
        near = legal_sites_near(state, unit.tile)
        hint = ("legal sites nearby: " + ", ".join(fmt_tile(t) for t in near)) if near else \
            "no legal site within 3 tiles: march them farther from other cities' land"
        raise OrderFailed("cannot_found", f"{problem}; {hint}")


@verb("found_city", check=_check_found_city)
def run_found_city(ctx: MonthContext, kingdom: str, order: Any) -> str:
    """found_city unit=ID: the colonists become a city with their people, their grain and its ring (CITY-330, CITY-440)."""
    _check_found_city(ctx, kingdom, order)
    state = ctx.state
    unit = state.units[order.unit_id]
    people = unit.men or rd.COLONIST_PEOPLE
    city = found_city(state, kingdom, unit.q, unit.r, people=people, grain=unit.cargo, founder=kingdom)
    city.happiness = float(rd.HAPPY_START)  # OPEN-58
    state.units.pop(unit.id, None)
    ctx.moves_left.pop(unit.id, None)
    tiles = state.city_tiles(city.id)
    land = eco.land_tile_count(state, [state.map.index(*t) for t in tiles], state.map.index(city.q, city.r))
    o = eco.city_output(state, city)
    ctx.emit("city_founded", f"{city.name} #{city.id} is founded at {fmt_tile(city.tile)}: {people:,} people, "
             f"{city.grain:.0f} dan, {land} land tiles ({o.water} water).", [kingdom], city_id=city.id)
    return (f"founded {city.name} (#{city.id}) at {fmt_tile(city.tile)}: {people:,} people, {city.grain:.0f} dan, "
            f"{land} land tiles; harvest {o.harvest:.1f}, production {o.production}/mo, land feeds {o.capacity:,}")
