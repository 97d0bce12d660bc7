"""The cities' month: production, upkeep and queues; the granary; growth and new land (CITY, BUILD, RECRUIT).

Three phases, in the month's canonical order (OPEN-72):

- "production": each kingdom's army upkeep is taken as the same share of every city's production
  (RECRUIT-190); unpaid soldiers desert (RECRUIT-200, OPEN-32); what is left (halved while blockaded,
  nothing while restless: BUILD-220) runs the city's queue strictly in order — buildings, improvements,
  troops in batches within the drill cap (RECRUIT-110..170, OPEN-34, OPEN-35), colonists (CITY-390..410, OPEN-24),
  scouts and spies (OPEN-88) — and the rest is stored up to the cap or, with an empty queue, turned into
  grain (CITY-270, BUILD-210).
- "grain": per city, in id order (CITY-110): the harvest goes in (half if restless, none if blockaded,
  CITY-220), troops on its land eat what camps did not give them and refill rations from above the 25%
  reserve (OPEN-7, OPEN-99), the people eat; happiness and starvation (CITY-180, CITY-190); revolt (CITY-200).
- "growth": the surplus becomes people (CITY-120..170) and the land follows (CITY-340..380, OPEN-55).

Every figure comes from kingdoms.engine.economy, the calculators the briefing uses. Each city's ledger of
the month is kept in `city.last` (keys in LEDGER_DEFAULTS) for the briefing; every grain, people and
production flow is written there, so the month can be audited (tests check the sums balance).
"""

from __future__ import annotations

from typing import Any

from kingdoms import ruledata as rd
from kingdoms.engine import economy as eco
from kingdoms.engine.conquest import pass_to_bandits, remove_unit
from kingdoms.engine.context import MonthContext
from kingdoms.engine.pathing import CIVILIAN, slot_of, slot_of_type
from kingdoms.engine.registry import phase
from kingdoms.hexgrid import Tile, fmt_tile
from kingdoms.state import City, GameState, Improvement, QueueEntry, Unit, side_name

EPS = eco.EPS

#: The month's ledger of a city (city.last), reset at its first phase each month. Other areas keep their
#: own keys in city.last (e.g. "blockaded", written by the sieges); those are left alone.
LEDGER_DEFAULTS: dict[str, Any] = {
    "month": 0,
    # production (CITY-230, RECRUIT-190, BUILD-210, BUILD-220, CITY-270)
    "production": 0,  # gross production
    "upkeep_share": 0.0,
    "blockade_loss": 0.0,
    "available": 0.0,  # what reached the queue
    "spent": 0.0,  # paid into items and batches
    "store_lost": 0.0,  # beyond the store cap (and the granary, with an empty queue)
    "to_grain_prod": 0.0,  # production turned into grain (BUILD-210)
    "to_grain": 0.0,  # the dan it bought
    "built": [],  # items finished
    "recruited": 0,  # men taken from the people
    "recruit_rations": 0.0,  # dan drawn from the granary as rations of new recruits
    "colonists_people": 0,
    "colonists_grain": 0.0,
    "colonists_done": None,  # the month colonists were finished (no growth that month, OPEN-101)
    "waiting": None,  # why the head of the queue waits
    # grain (CITY-110, CITY-180..220)
    "harvest_full": 0.0,
    "harvest": 0.0,  # what went in: half if restless, none if blockaded
    "harvest_lost": 0.0,  # beyond the granary's capacity
    "troops_need": 0.0,
    "troops_ate": 0.0,  # from this granary
    "rations": 0.0,  # ration refills from this granary
    "people_need": 0.0,
    "people_ate": 0.0,
    "short": 0.0,  # share of the people's ration missing
    "starved": 0,
    "net": 0.0,  # harvest - people - troops
    "revolted": False,
    "grain_burned": 0.0,
    # growth (CITY-120..170, CITY-340..380)
    "surplus": 0.0,
    "capacity": 0,
    "growth": 0,
    "growth_dan": 0.0,
    "no_growth": None,
    "claimed": None,  # the tile claimed this month
    "hemmed_in": False,
}


def ledger(city: City, month: int) -> dict[str, Any]:
    """The city's ledger for `month`, reset to zeros at the first call of the month."""
    last = city.last
    if last.get("month") != month:
        last.update(LEDGER_DEFAULTS)
        last["built"] = []
        last["month"] = month
    return last


# =============================================================================================================
# Production: upkeep, desertion, the queue (RECRUIT-180..200, BUILD-*, CITY-260..270, CITY-390..410)
# =============================================================================================================


@phase("production")
def production_phase(ctx: MonthContext) -> None:
    """Upkeep share, desertion, then every city's queue with what is left (RECRUIT-190, RECRUIT-200, BUILD-220)."""
    state = ctx.state
    board = eco.Board.of(state)
    cities = sorted(state.cities.values(), key=lambda c: c.id)
    for city in cities:
        ledger(city, ctx.month)
    for kingdom in sorted({c.owner for c in cities}):
        kd = state.kingdoms.get(kingdom)
        if kd is None or kd.eliminated:
            continue  # bandit cities never build (OPEN-71)
        budget = eco.kingdom_budget(state, kingdom, board=board, blockaded=ctx.blockaded)
        if budget.shortfall > EPS:
            desert(ctx, kingdom, budget.shortfall)
            board = eco.Board.of(state)  # troops broke up: they occupy nothing now
        for city in cities:
            if city.owner != kingdom:
                continue
            b = budget.cities[city.id]
            led = ledger(city, ctx.month)
            led["production"] = b.gross
            led["upkeep_share"] = b.upkeep_share
            led["blockade_loss"] = b.blockade_loss
            led["available"] = b.available
            run_queue(ctx, city, b.available, b.gross)


def desertion_shares(men: list[int], want: int) -> list[int]:
    """`want` deserters shared over troops of `men` in proportion, by largest remainder, so they add up exactly.

    Each troop first loses the whole part of its share; the men still missing come one each from the troops
    with the largest remainders (ties: the earlier troop in the list) (RECRUIT-200, OPEN-32).
    """
    total = sum(men)
    if total <= 0 or want <= 0:
        return [0] * len(men)
    want = min(want, total)
    shares = [m * want // total for m in men]
    rest = [(m * want) % total for m in men]  # remainders x total, exact in integers
    for k in sorted(range(len(men)), key=lambda k: (-rest[k], k))[:want - sum(shares)]:
        shares[k] += 1
    return shares


def desert(ctx: MonthContext, kingdom: str, shortfall: float) -> int:
    """Upkeep beyond the whole output: shortfall x 1,000 men desert, spread over troops by size (RECRUIT-200, OPEN-32)."""
    state = ctx.state
    troops = sorted((u for u in state.units.values() if u.owner == kingdom and u.spec.fighting and u.men > 0),
                    key=lambda u: u.id)
    total = sum(u.men for u in troops)
    if total <= 0:
        return 0
    want = min(total, eco.round_half_up(shortfall * 1000))
    gone = 0
    parts: list[str] = []
    broken: list[int] = []
    for unit, lose in zip(troops, desertion_shares([u.men for u in troops], want), strict=True):
        if lose <= 0:
            continue
        unit.men -= lose
        gone += lose
        parts.append(f"#{unit.id} {unit.type} -{lose:,}")
        if unit.men < rd.BREAK_UP_BELOW:  # too few to stand as a troop: the rest scatter (COMBAT-250)
            gone += unit.men
            broken.append(unit.id)
            parts[-1] += " (broke up)"
            remove_unit(ctx, unit, None)
    ctx.emit("desertion", f"Your army's upkeep ({shortfall:.1f} more than your kingdom's whole production) went unpaid: "
             f"{gone:,} soldiers deserted or scattered ({', '.join(parts)}). Raise production or disband troops.",
             [kingdom], men=gone, broken=broken)
    return gone


def run_queue(ctx: MonthContext, city: City, available: float, gross: float) -> None:
    """Spend the store and this month's production on the queue, strictly in order, then store the rest (OPEN-34)."""
    led = ledger(city, ctx.month)
    pool = city.store + available
    city.store = 0.0
    cap_left = rd.drill_cap(city.people)
    waiting: str | None = None
    while city.queue:
        entry = city.queue[0]
        entry.months += 1
        spec = rd.UNITS.get(entry.item)
        if spec is not None and spec.fighting:
            pool, cap_left, waiting, done = _recruit(ctx, city, entry, pool, cap_left)
        elif entry.item == "colonists":
            pool, waiting, done = _colonists(ctx, city, entry, pool)
        else:
            price = eco.item_price(entry.item, entry.men)
            put = min(pool, max(0.0, price - entry.paid))
            entry.paid += put
            pool -= put
            led["spent"] += put
            done = entry.paid + EPS >= price
            if done:
                city.queue.pop(0)
                _complete(ctx, city, entry)
        if not done:
            break
    led["waiting"] = waiting
    _store(city, pool, gross, led)


def _store(city: City, pool: float, gross: float, led: dict[str, Any]) -> None:
    """Keep what is left up to the store cap; with nothing queued the rest buys grain at 4 a dan (CITY-270, BUILD-210)."""
    cap = eco.store_cap(city, gross)
    keep = min(pool, cap)
    over = max(0.0, pool - keep)
    if not city.queue and over > EPS:
        room = max(0.0, eco.granary_capacity(city) - city.grain)
        dan = min(over / rd.PROD_PER_DAN, room)
        city.grain += dan
        led["to_grain"] += dan
        led["to_grain_prod"] += dan * rd.PROD_PER_DAN
        over -= dan * rd.PROD_PER_DAN
    city.store = keep
    led["store_lost"] += max(0.0, over)


def _complete(ctx: MonthContext, city: City, entry: QueueEntry) -> None:
    """A building, improvement, scout or spy is finished: its effect, the ledger and the news (BUILD-020..110, BUILD-060)."""
    state = ctx.state
    led = ledger(city, ctx.month)
    item = entry.item
    where = f"{city.name} {fmt_tile(city.tile)}"
    if item in rd.BUILDINGS:
        if item not in city.buildings:
            city.buildings.append(item)
        city.update_walls_max()  # BUILD-020, BUILD-030, SIEGE-030: a palisade 40, stone walls 100
        if item == "palisade":  # walls 40 at once; stone walls only raise the ceiling (repairs +5 a month)
            city.walls = max(city.walls, float(rd.PALISADE_WALLS))
        text = f"{where} has finished its {item}."
    elif item in rd.IMPROVEMENTS:
        tile = entry.tile
        if tile is None:  # queued by name without a tile (e.g. by a scenario): the best free site now
            sites = eco.free_sites(state, city, item)
            tile = sites[0] if sites else None
        problem = improvement_problem(state, city, item, tile)
        if tile is None or problem is not None:
            ctx.emit("build_dropped", f"{where} could not place its {item}: {problem or 'no tile'}; the "
                     f"{entry.paid:.0f} production put in is lost. Queue it again on a free site.",
                     [city.owner], city_id=city.id, item=item)
            return
        city.improvements.append(Improvement(tile[0], tile[1], item))
        text = f"{where} has finished a {item} at {fmt_tile(tile)}."
    else:  # scout or spy (OPEN-88): on the city tile, taking no place there (OPEN-67)
        unit = Unit(id=state.new_id(), owner=city.owner, type=item, q=city.q, r=city.r, home_city=city.id)
        state.units[unit.id] = unit
        text = f"{where} has trained a {item}: #{unit.id} waits in the city."
    led["built"].append(item)
    if item in rd.MILITARY_BUILDINGS:  # BUILD-060: public news
        ctx.emit("military_building", f"{side_name(state, city.owner)} has finished a {item} in {city.name}.",
                 None, city_id=city.id, owner=city.owner, item=item)
    else:
        ctx.emit("built", text, [city.owner], city_id=city.id, item=item)


def improvement_problem(state: GameState, city: City, kind: str, tile: Tile | None,
                        taken: dict[Tile, str] | None = None) -> str | None:
    """Why an improvement of `kind` cannot stand on `tile` of the city (BUILD-070..110), or None when it can."""
    if tile is None:
        return "no tile given"
    gm = state.map
    i = gm.index(*tile)
    if i < 0:
        return gm.off_map_text(*tile)
    if int(state.owner[i]) != city.id:
        return f"{fmt_tile(tile)} is not land of {city.name}"
    if tile == city.tile:
        return f"{fmt_tile(tile)} is the centre of {city.name}: improvements stand outside it"
    existing = {(imp.q, imp.r): imp.kind for imp in city.improvements}
    if kind in rd.UNIQUE_IMPROVEMENTS and kind in existing.values():
        return f"{city.name} already has a {kind} (one per city)"
    if tile in existing:
        return f"{fmt_tile(tile)} already has a {existing[tile]}"
    if taken and tile in taken:
        return f"{fmt_tile(tile)} is already in the queue for a {taken[tile]}"
    terrain = rd.TERRAINS[int(gm.terrain[i])]
    if terrain.code not in rd.IMPROVEMENT_TERRAIN[kind]:
        return f"{fmt_tile(tile)} is {terrain.name}: a {kind} needs {eco.IMPROVEMENT_TERRAIN_NAMES[kind]}"
    return None


# --- recruits (RECRUIT-110..170, BUILD-050, OPEN-25, OPEN-26, OPEN-34, OPEN-35, OPEN-54) --------------------


def ordered_away(ctx: MonthContext, unit: Unit) -> bool:
    """The troop has an order taking it out of the city this month (OPEN-54): a standing march, attack,
    follow or merge, or a new order this month other than hold (a hold fortifies it where it stands)."""
    return unit.standing is not None or (unit.id in ctx.ordered and not unit.fortified)


def _slot_taken(state: GameState, tile: Tile, slot: str) -> bool:
    """Some unit already takes `slot` on `tile`."""
    return any(slot_of(u) == slot for u in state.units_at(*tile))


def _free_for(state: GameState, owner: str, tile: Tile, slot: str) -> bool:
    """A new unit of `owner` taking `slot` may appear on `tile` (passable, not a river crossing, not closed)."""
    gm = state.map
    i = gm.index(*tile)
    if i < 0 or int(gm.move_cost[i]) == 0 or gm.is_crossing(i):
        return False
    if state.city_at(*tile) is not None:
        return False
    holder = state.tile_owner_city(*tile)
    if holder is not None and holder.owner != owner and not state.at_war(owner, holder.owner):
        return False  # a kingdom at peace keeps its land closed (DIPLO)
    if any(c.q == tile[0] and c.r == tile[1] and c.owner != owner for c in state.camps.values()):
        return False
    for u in state.units_at(*tile):
        if u.spec.kind == "agent":
            continue
        if u.owner != owner or slot_of(u) == slot:
            return False
    return True


def beside_city_tile(state: GameState, city: City, slot: str) -> Tile | None:
    """The free tile beside the city with the fewest foreign troops next to it (RECRUIT-150); ties lowest r, q."""
    gm = state.map
    best: tuple[int, int, int] | None = None
    pick: Tile | None = None
    for tile in gm.neighbours(city.q, city.r):
        if not _free_for(state, city.owner, tile, slot):
            continue
        foreign = sum(1 for t in gm.neighbours(*tile) for u in state.units_at(*t)
                      if u.owner != city.owner and u.spec.fighting and u.men > 0)
        key = (foreign, tile[1], tile[0])
        if best is None or key < best:
            best, pick = key, tile
    return pick


def recruit_plan(ctx: MonthContext, city: City, unit_type: str, men: int) -> list[tuple[Unit | Tile, int]] | None:
    """Where a batch goes: joining a same-type troop in the city (up to 20,000), the rest as a new troop in the
    city if it holds none, else beside it (RECRUIT-150, OPEN-35, OPEN-54). None when it has nowhere to go.
    Recruits of its type are one of the two ways a garrison grows (SIEGE-090; merging is the other)."""
    state = ctx.state
    slot = slot_of_type(unit_type)
    here = sorted(state.units_at(city.q, city.r), key=lambda u: u.id)
    plan: list[tuple[Unit | Tile, int]] = []
    rest = men
    joiner = next((u for u in here if u.owner == city.owner and u.type == unit_type and u.men < rd.MAX_TROOP_MEN
                   and not ordered_away(ctx, u)), None)
    if joiner is not None:
        take = min(rest, rd.MAX_TROOP_MEN - joiner.men)
        plan.append((joiner, take))
        rest -= take
    if rest <= 0:
        return plan
    if not any(slot_of(u) == slot for u in here):
        plan.append((city.tile, rest))
        return plan
    tile = beside_city_tile(state, city, slot)
    if tile is None:
        return None
    plan.append((tile, rest))
    return plan


def draw_rations(city: City, want: float, minimum: float) -> float:
    """Rations from the granary: up to `want` from above the 25% reserve, but at least `minimum` even from below
    it (all there is when the granary holds less) (RECRUIT-160, RECRUIT-170, OPEN-26). Returns the dan taken."""
    above = max(0.0, city.grain - eco.ration_reserve(city))
    take = min(want, above)
    if take + EPS < minimum:
        take = min(minimum, city.grain)
    take = max(0.0, take)
    city.grain -= take
    return take


def _recruit(ctx: MonthContext, city: City, entry: QueueEntry, pool: float,
             cap_left: float) -> tuple[float, float, str | None, bool]:
    """Raise the next batch of a troop order if the store covers it, the people allow it and it has a tile (OPEN-34).

    Returns (pool, drill cap left, why it waits, whether the order is done).
    """
    state = ctx.state
    led = ledger(city, ctx.month)
    need = rd.UNITS[entry.item].requires
    if need is not None and not (any(i.kind == need for i in city.improvements) if need in rd.IMPROVEMENTS
                                 else need in city.buildings):
        city.queue.pop(0)  # BUILD-180: a pillaged workshop stops catapults
        ctx.emit("build_dropped", f"{city.name} can no longer raise {entry.item}: it has no {need}; the order for "
                 f"{entry.men:,} is dropped from its queue.", [city.owner], city_id=city.id, item=entry.item)
        return pool, cap_left, None, True
    men = eco.batch_men(city, entry, cap_left)
    if men <= 0:
        return pool, cap_left, f"the drill cap ({rd.drill_cap(city.people):,.0f} a month) is used up this month", False
    price = eco.item_price(entry.item, men)
    if pool + EPS < price:
        return pool, cap_left, (f"{men:,} {entry.item} need {price:.1f} production, {pool:.1f} in store"), False
    if city.people - men < rd.MIN_CITY_PEOPLE:
        return pool, cap_left, (f"{men:,} recruits would leave {city.name} under {rd.MIN_CITY_PEOPLE:,} people "
                                f"(it has {city.people:,})"), False
    plan = recruit_plan(ctx, city, entry.item, men)
    if plan is None:
        return pool, cap_left, f"no free tile beside {city.name} for a new {entry.item} troop", False
    pool -= price
    led["spent"] += price
    city.people -= men
    led["recruited"] += men
    cap_left -= men
    entry.men -= men
    xp = float(rd.XP_LEVELS[0]) if "barracks" in city.buildings else 0.0  # BUILD-050, OPEN-25
    parts: list[str] = []
    for target, n in plan:
        if isinstance(target, Unit):
            dan = draw_rations(city, rd.JOIN_RATION_MONTHS * n / 1000, rd.JOIN_RATION_MONTHS * n / 1000)
            target.xp = (target.xp * target.men + xp * n) / (target.men + n)  # RECRUIT-160: XP averaged by men
            target.men += n
            room = max(0.0, rd.MAX_RATION_MONTHS * target.men / 1000 - target.rations)
            keep = min(dan, room)
            city.grain += dan - keep  # what a full troop cannot carry stays in the granary
            target.rations += keep
            led["recruit_rations"] += keep
            parts.append(f"{n:,} joined #{target.id}")
        else:
            dan = draw_rations(city, rd.MAX_RATION_MONTHS * n / 1000, rd.NEW_TROOP_MIN_RATION_MONTHS * n / 1000)
            unit = Unit(id=state.new_id(), owner=city.owner, type=entry.item, q=target[0], r=target[1], men=n, xp=xp,
                        morale=100.0, rations=dan, home_city=city.id)
            state.units[unit.id] = unit
            led["recruit_rations"] += dan
            parts.append(f"{n:,} formed #{unit.id} at {fmt_tile(target)}")
    done = entry.men <= 0
    if done:
        city.queue.pop(0)
        led["built"].append(entry.item)
    more = "" if done else f"; {entry.men:,} still to raise"
    ctx.emit("recruited", f"{city.name} raised {men:,} {entry.item} for {price:.1f} production: {', '.join(parts)}{more}.",
             [city.owner], city_id=city.id, item=entry.item, men=men)
    return pool, cap_left, None, done


def _colonists(ctx: MonthContext, city: City, entry: QueueEntry, pool: float) -> tuple[float, str | None, bool]:
    """Colonists soak up production to 100 and are ready after 5 months at the head, with 20 dan and 6,500 people
    in the city (CITY-390, CITY-400, CITY-410, OPEN-24, OPEN-101): they take 5,000 people and carry the 20 dan.
    Returns (pool, why they wait, whether they are done)."""
    state = ctx.state
    led = ledger(city, ctx.month)
    price = eco.item_price("colonists")
    put = min(pool, max(0.0, price - entry.paid))
    entry.paid += put
    pool -= put
    led["spent"] += put
    reasons = []
    if entry.months < rd.COLONIST_MIN_MONTHS:
        reasons.append(f"month {entry.months} of at least {rd.COLONIST_MIN_MONTHS}")
    if entry.paid + EPS < price:
        reasons.append(f"{entry.paid:.0f}/{price:.0f} production")
    if city.grain + EPS < rd.COLONIST_GRAIN:
        reasons.append(f"the granary needs {rd.COLONIST_GRAIN} dan (has {city.grain:.1f})")
    if city.people < eco.COLONIST_CITY_PEOPLE:
        reasons.append(f"the city needs {eco.COLONIST_CITY_PEOPLE:,} people (has {city.people:,})")
    if not reasons and _slot_taken(state, city.tile, CIVILIAN):
        reasons.append("another civilian unit stands in the city: move it out")
    if reasons:
        return pool, "colonists: " + "; ".join(reasons), False
    city.queue.pop(0)
    city.people -= rd.COLONIST_PEOPLE
    city.grain -= rd.COLONIST_GRAIN
    led["colonists_people"] += rd.COLONIST_PEOPLE
    led["colonists_grain"] += rd.COLONIST_GRAIN
    led["colonists_done"] = ctx.month
    led["built"].append("colonists")
    unit = Unit(id=state.new_id(), owner=city.owner, type="colonists", q=city.q, r=city.r, men=rd.COLONIST_PEOPLE,
                cargo=float(rd.COLONIST_GRAIN), home_city=city.id)
    state.units[unit.id] = unit
    ctx.emit("colonists_ready", f"{city.name} {fmt_tile(city.tile)} has raised colonists #{unit.id}: "
             f"{rd.COLONIST_PEOPLE:,} people carrying {rd.COLONIST_GRAIN} dan. March them to a site and found_city "
             f"unit={unit.id}.", [city.owner], city_id=city.id, unit_id=unit.id)
    return pool, None, True


# =============================================================================================================
# Grain: harvest, troops, rations, people, happiness, revolt (CITY-110, CITY-180..220)
# =============================================================================================================


def _share_out(needs: dict[int, float], available: float) -> tuple[dict[int, float], float]:
    """Give each need in full, or all in proportion when short (OPEN-99). Returns (given, total given)."""
    total = sum(needs.values())
    if total <= EPS:
        return {k: 0.0 for k in needs}, 0.0
    share = 1.0 if available + EPS >= total else max(0.0, available) / total
    given = {k: v * share for k, v in needs.items()}
    return given, total * share


@phase("grain")
def grain_phase(ctx: MonthContext) -> None:
    """Each city's granary month, in id order (CITY-110): harvest in, troops eat and refill, people eat."""
    state = ctx.state
    board = eco.Board.of(state)
    from_camps = {uid for uid, dan in ctx.fed.items() if dan > EPS}
    frames: dict[int, eco.CityFrame] = {}
    cities = sorted(state.cities.values(), key=lambda c: c.id)
    owners = [c.owner for c in cities]
    for city in cities:
        feed_city(ctx, city, board, from_camps, frames)
    # The growth phase comes next (registry.PHASE_SLOTS) and reads the same board: the grain phase changes no
    # tile's holder, no improvement and no troop's tile or men (only rations), so its board and frames still
    # hold there, unless a city went over to the bandits (its troops lost, its owner changed). A city whose
    # people starved gets a new frame there (grow_city checks the people).
    same = len(state.cities) == len(cities) and all(c.owner == o for c, o in zip(cities, owners, strict=True))
    ctx.after_grain = (board, frames) if same else None


def feed_city(ctx: MonthContext, city: City, board: eco.Board, from_camps: set[int],
              frames: dict[int, eco.CityFrame] | None = None) -> None:
    """One city's grain order (CITY-110): harvest, troops on its land, their rations, its people; then happiness.

    Each city's granary is its own (SUPPLY-020): it feeds only the troops on its land, blockaded or not
    (SUPPLY-300); grain reaches another city only by wagon (SUPPLY-050, supply.py). `frames` keeps the city's
    frame, read at its start, for the growth phase."""
    state = ctx.state
    led = ledger(city, ctx.month)
    f = eco.frame(state, city, board)
    if frames is not None:
        frames[city.id] = f
    full = eco.harvest_of(f, eco.worked_indices(f, city.focus))
    blockaded = eco.is_blockaded(city, ctx.blockaded)
    harvest = 0.0 if blockaded else (full * 0.5 if city.restless else full)  # CITY-220, CONQ-030
    gcap = eco.granary_capacity(city)
    into = min(harvest, max(0.0, gcap - city.grain))
    city.grain += into
    led["harvest_full"] = full
    led["harvest"] = harvest
    led["harvest_lost"] = harvest - into
    # (2) troops on its land eat what camps did not already give them (SUPPLY-030, SUPPLY-040)
    troops = board.own_troops_on_land(city)
    needs = {u.id: max(0.0, u.men / 1000 * rd.SOLDIERS_EAT_PER_1000 - ctx.fed.get(u.id, 0.0)) for u in troops}
    eaten, total = _share_out(needs, city.grain)
    city.grain = max(0.0, city.grain - total)
    for uid, dan in eaten.items():
        if dan > 0:
            ctx.fed[uid] = ctx.fed.get(uid, 0.0) + dan
    led["troops_need"] = sum(needs.values())
    led["troops_ate"] = total
    # (3) rations refilled, a month's worth at most, from above the reserve (SUPPLY-060, OPEN-7); troops a
    # camp fed this month refill there instead
    refill = {u.id: min(u.men / 1000, max(0.0, rd.MAX_RATION_MONTHS * u.men / 1000 - u.rations))
              for u in troops if u.id not in from_camps}
    given, total = _share_out(refill, max(0.0, city.grain - eco.ration_reserve(city)))
    city.grain = max(0.0, city.grain - total)
    for uid, dan in given.items():
        state.units[uid].rations += dan
    led["rations"] = total
    # (4) the people eat; happiness, starvation (CITY-180, CITY-190)
    need = city.people * rd.PEOPLE_EAT_PER_1000 / 1000
    led["people_need"] = need
    if city.grain + EPS >= need:
        city.grain = max(0.0, city.grain - need)
        led["people_ate"] = need
        city.happiness = min(100.0, city.happiness + rd.HAPPY_FED)
    else:
        ate = city.grain
        short = (need - ate) / need
        city.grain = 0.0
        dead = min(city.people, eco.round_half_up(city.people * rd.STARVE_LOSS * short))
        city.people -= dead
        city.happiness = max(0.0, city.happiness - rd.HAPPY_SHORT * short)
        led.update(people_ate=ate, short=short, starved=dead)
        if blockaded or city.restless:  # no harvest, or half of it: the focus can hardly help (CITY-220, CONQ-030)
            why = "Blockaded, it gets no harvest" if blockaded else "Restless, it gets only half its harvest"
            advice = (f"{why}, so its focus cannot help: feed its troops from a stocked camp within "
                      f"{rd.CAMP_REACH} tiles (camps feed first), send grain (ship_grain) or move troops off its land.")
        else:
            advice = "Send grain (ship_grain), set focus food or feed fewer troops there."
        ctx.emit("city_short", f"{city.name} {fmt_tile(city.tile)} went short of grain: {short:.0%} of its people's "
                 f"ration missing, {dead:,} people died or fled, happiness {city.happiness:.0f} (at 20 it revolts). "
                 + advice, [city.owner], city_id=city.id)
    led["net"] = led["harvest"] - led["people_ate"] - led["troops_ate"]
    # revolt (CITY-200, OPEN-15, OPEN-16): at 20 or lower, to the bandits; a capital never revolts
    if city.happiness <= rd.REVOLT_HAPPINESS + EPS and city.owner != rd.BANDITS and not eco.is_court(state, city):
        grain = city.grain
        if pass_to_bandits(ctx, city, f"its people are starving (happiness {city.happiness:.0f})"):
            led["revolted"] = True
            led["grain_burned"] = grain


# =============================================================================================================
# Growth and land (CITY-120..170, CITY-340..380)
# =============================================================================================================


@phase("growth")
def growth_phase(ctx: MonthContext) -> None:
    """The surplus becomes people, then each city may claim one more tile (CITY-130, CITY-340)."""
    state = ctx.state
    kept, ctx.after_grain = ctx.after_grain, None
    if kept is not None and kept[0].state is state:  # the grain phase's, just before (grain_phase says why it holds)
        board, frames = kept
    else:
        board, frames = eco.Board.of(state), {}
    for city in sorted(state.cities.values(), key=lambda c: c.id):
        grow_city(ctx, city, board, frames.get(city.id))


def grow_city(ctx: MonthContext, city: City, board: eco.Board, f: eco.CityFrame | None = None) -> None:
    """Growth from this month's surplus (CITY-120..170, OPEN-56), then land follows people (OPEN-55).

    `f`: the city's frame from the grain phase, used while its people are as they were then."""
    state = ctx.state
    led = ledger(city, ctx.month)
    blockaded = eco.is_blockaded(city, ctx.blockaded)
    if f is None or f.city is not city or f.people != city.people:
        f = eco.frame(state, city, board)
    capacity = eco.capacity_of(f)
    surplus = led["harvest"] - led["people_need"] - led["troops_ate"]  # CITY-120
    led["surplus"] = surplus
    led["capacity"] = capacity
    reason, limit = eco.growth_block(city, blockaded, ctx.month)
    dan = 0.0
    if reason is None:
        dan = eco.growth_dan(city.people, surplus, capacity, city.focus, eco.water_class(state, city),
                             stock=city.grain, people_limit=limit)
        if dan <= EPS:
            reason = "at the people its land feeds" if city.people >= capacity else ("no surplus" if surplus <= EPS
                                                                                      else None)
    grown = eco.people_from_dan(dan)
    city.grain = max(0.0, city.grain - dan)
    city.people += grown
    led.update(growth=grown, growth_dan=dan, no_growth=reason)
    if city.owner == rd.BANDITS or city.restless or blockaded:
        return  # land follows people only in a city that grows (CITY-170)
    claim_land(ctx, city, board)


def claim_land(ctx: MonthContext, city: City, board: eco.Board) -> Tile | None:
    """One more tile when the people reach the next threshold, onto the best free land in reach (CITY-340..370)."""
    state = ctx.state
    led = ledger(city, ctx.month)
    gm = state.map
    centre = gm.index(city.q, city.r)
    tiles = board.land.setdefault(city.id, [centre])
    need = eco.next_tile_at(state, tiles, centre)
    if need is None or city.people < need:
        return None
    pick = eco.claim_pick(state, city, tiles, city.people, city.focus)
    if pick is None:
        led["hemmed_in"] = True
        return None
    state.owner[pick] = city.id
    tiles.append(pick)
    tile = gm.tile(pick)
    led["claimed"] = list(tile)
    terrain = rd.TERRAINS[int(gm.terrain[pick])]
    ctx.emit("land_claimed", f"{city.name} has grown onto {terrain.name} at {fmt_tile(tile)} "
             f"({eco.land_tile_count(state, tiles, centre)} land tiles).", [city.owner], city_id=city.id, tile=list(tile))
    return tile
