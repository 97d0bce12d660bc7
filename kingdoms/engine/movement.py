"""Armies on the march: move, hold, follow, merge, split, swaps, folding (MOVE-010..320, TURN-080..160).

Each verb checks at issue time (against the board as it stands then, TURN-050) and again when carried out.
A march takes the month's share of its route (pathing.find_route) and, unfinished, stands as the unit's
standing order (`Unit.standing` = the order's dump) to go on next month (TURN-120, TURN-160, MOVE-030). Own units
never block but a month's march may not end on one: it steps on to the next free tile of its route or waits
behind them, and takes a detour round them only when that costs at most a month more (MOVE-040..060).

Between troops of one kingdom the written order does not matter (TURN-100, TURN-110): the month runner asks each
verb what it `waits` for (a move onto a tile an own troop is leaving waits for that troop's orders; a follow
or a merge for its target's) and lets two troops moved onto each other's tiles `swap` (OPEN-41).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kingdoms import ruledata as rd
from kingdoms.engine.context import MonthContext, OrderFailed
from kingdoms.engine.generals import release_general
from kingdoms.engine.pathing import (
    AGENT,
    CROSS,
    OVERFLOW,
    Ground,
    Route,
    find_route,
    nearest_reachable,
    slot_of,
)
from kingdoms.engine.registry import phase, verb
from kingdoms.engine.supply import (
    drop_excess_rations,
    in_supply,
    march_outlasts_rations,
    on_enter_tile,
    ration_months_left,
)
from kingdoms.engine.visibility import require_own_unit
from kingdoms.hexgrid import Tile, distance, fmt_tile
from kingdoms.orders.models import Move
from kingdoms.state import GameState, Unit

# --- marching -----------------------------------------------------------------------------------------------


@dataclass(slots=True)
class Goal:
    """Where a march is going: goal tiles (flat indices), the ring they lie in, an own troop it may join."""

    tiles: set[int]
    centre: int
    radius: int = 0
    join: int = -1
    note: str = ""
    wait: bool = False  # arriving does not end the order: it waits there for the tile to clear (TURN-160)


@dataclass(slots=True)
class March:
    """What a month's march did: tiles entered, whether it arrived, months the whole route takes, why it stopped."""

    route: Route | None
    moved: list[Tile] = field(default_factory=list)
    arrived: bool = False
    held: str = ""  # why it stopped short of its month's march ("" when it did not)
    border: int = -1  # the closed tile (land at peace) it stopped before this month, else -1 (DIPLO-030)


def _walk(ctx: MonthContext, unit: Unit, route: Route, upto: int) -> list[Tile]:
    """Take the route's first `upto` steps now: move, spend moves, end fortification, seize camps (SUPPLY-280)."""
    moved: list[Tile] = []
    gm = ctx.state.map
    for step in route.steps[:upto]:
        unit.q, unit.r = step.tile
        unit.fortified = False
        if step.kind in (CROSS, OVERFLOW) or gm.is_crossing(step.idx):
            ctx.moves_left[unit.id] = 0.0  # a crossing, or the step off own troops, ends the move (MOVE-050, MOVE-300)
        else:
            ctx.spend(unit, step.cost)
        moved.append(step.tile)
        on_enter_tile(ctx, unit)
    return moved


def _last_stop(g: Ground, route: Route, upto: int) -> int:
    """How many of the route's first `upto` steps to take so the march ends on a tile it may stop on."""
    for k in range(upto, 0, -1):
        if g.endable(route.steps[k - 1].idx):
            return k
    return 0


def march(ctx: MonthContext, unit: Unit, goal: Goal, *, mode: str = "move", ground: Ground | None = None) -> March:
    """March `unit` toward `goal` with the moves it has left this month (MOVE-020..070, TURN-160, MOVE-310).

    The ideal route ignores own units (MOVE-040); if its month ends on one, the march steps on to the next free
    tile of the route (MOVE-050) or, held up, takes the best route round own troops when that costs at most a
    month more, else waits at the last free tile before them (MOVE-060). With no route past foreign troops it
    walks up to them and waits (TURN-160). `route` is None when no route exists at all. `ground`: the board
    for this unit in this `mode`, if the caller already built it.
    """
    state = ctx.state
    here = state.map.index(unit.q, unit.r)
    if here in goal.tiles:
        return March(Route(here), arrived=True)
    left = ctx.moves(unit)
    g = ground or Ground(state, unit, mode=mode)
    route = find_route(g, goal.tiles, moves_left=left, centre=goal.centre, radius=goal.radius, join=goal.join,
                       ghost=True)
    if route is None:
        loose = Ground(state, unit, mode=mode, ignore_foreign=True)
        around = find_route(loose, goal.tiles, moves_left=left, centre=goal.centre, radius=goal.radius,
                            join=goal.join, ghost=True)
        opened = False
        if around is None and not ctx.scratch and mode == "move":
            # the only way runs through land closed at peace, which the order could not know of when given:
            # march on up to the border and stop there (DIPLO-030)
            loose = Ground(state, unit, mode=mode, ignore_foreign=True, open_borders=True)
            around = find_route(loose, goal.tiles, moves_left=left, centre=goal.centre, radius=goal.radius,
                                join=goal.join, ghost=True)
            opened = True
        if around is None:
            return March(None)
        now = len(around.this_month())
        upto = 0
        while upto < now and g.enterable(around.steps[upto].idx) and not (
                around.steps[upto].via >= 0 and not g.enterable(around.steps[upto].via)):
            upto += 1
        moved = _walk(ctx, unit, around, _last_stop(g, around, upto))
        if opened and upto < now:
            step = around.steps[upto]
            for i in (step.via, step.idx):
                if i >= 0 and not g.enterable(i) and _closed_land_at(state, unit, i):
                    return March(around, moved, False, "stopped at a closed border", i)
        if opened and upto == now:
            return March(around, moved, False)  # the border is still ahead: it marches on next month
        return March(around, moved, False, "blocked by foreign troops on the way")
    now = len(route.this_month())
    if route.months <= 1:
        moved = _walk(ctx, unit, route, now)
        return March(route, moved, True)
    stop = route.steps[now - 1].idx if now else here
    if stop == here or not g.own_mask[stop]:
        return March(route, _walk(ctx, unit, route, now))
    nxt = route.steps[now]
    if nxt.kind == "step" and g.endable(nxt.idx):
        moved = _walk(ctx, unit, route, now + 1)  # its moves ran out on own troops: one more step (MOVE-050),
        ctx.moves_left[unit.id] = 0.0  # which ends its move
        return March(route, moved, False)
    detour = find_route(g, goal.tiles, moves_left=left, centre=goal.centre, radius=goal.radius, join=goal.join)
    if detour is not None and detour.months <= route.months + 1:
        k = len(detour.this_month())
        return March(detour, _walk(ctx, unit, detour, k), detour.months <= 1)
    moved = _walk(ctx, unit, route, _last_stop(g, route, now))
    return March(route, moved, False, "held up behind your own troops")


def _closed_land_at(state: GameState, unit: Unit, i: int) -> bool:
    """Flat index i is land or a camp closed to the unit's kingdom at peace, and no foreign troop holds it."""
    from kingdoms.engine.diplomacy import closed_by

    q, r = state.map.tile(i)
    if any(o.owner != unit.owner and o.type != "spy" for o in state.units_at(q, r)):
        return False
    return closed_by(state, unit.owner, q, r) is not None


# --- goals of a move (MOVE-070, MOVE-080, MOVE-230) ---------------------------------------------------------


def _own_at(state: GameState, unit: Unit, tile: Tile) -> Unit | None:
    """The unit's own unit in its stacking slot on `tile`, if any."""
    slot = slot_of(unit)
    if slot == AGENT:
        return None
    for other in state.units_at(*tile):
        if other.id != unit.id and other.owner == unit.owner and slot_of(other) == slot:
            return other
    return None


def can_join(unit: Unit, other: Unit) -> bool:
    """Two own troops of one type whose men together stay within 20,000 (MOVE-190, MOVE-230)."""
    return (other.owner == unit.owner and other.type == unit.type and unit.spec.fighting
            and unit.men + other.men <= rd.MAX_TROOP_MEN)


def beside(g: Ground, i: int) -> Goal:
    """Goal: the free tiles beside flat index i (MOVE-070)."""
    return Goal(set(g.free_neighbours(i)), i, 1)


def move_goal(ctx: MonthContext, unit: Unit, to: Tile, g: Ground | None = None) -> Goal:
    """The goal of a move to `to`, or OrderFailed with what would work (MOVE-070, MOVE-080, MOVE-230, MOVE-290, DIPLO-030).

    `g`: the unit's board for a move, if already built.
    """
    state = ctx.state
    gm = state.map
    g = g or Ground(state, unit)
    i = gm.index(*to)
    if i < 0:
        near = gm.index(*gm.nearest_on_map(*to))
        reach = _nearest_text(g, near, row=False) if gm.move_cost[near] <= 0 or not g.endable(near) else ""
        raise OrderFailed("off_map", gm.off_map_text(*to) + reach)
    if gm.move_cost[i] <= 0:
        raise OrderFailed("impassable", f"{fmt_tile(to)} is {gm.terrain_at(*to).name}, which no unit can enter"
                          + _nearest_text(g, i))
    city = state.city_at(*to)
    if city is not None and city.owner != unit.owner:
        hint = "station_spy puts a spy inside it" if unit.type == "spy" else "attack it to take it"
        raise OrderFailed("foreign_city", f"{fmt_tile(to)} is {city.name}, a city of {_name(state, city.owner)}: "
                                          f"{hint}")
    if g.blocked[i]:
        armed = [o for o in state.units_at(*to) if o.owner != unit.owner and o.spec.fighting and o.type != "spy"]
        if armed and unit.type != "spy":
            if ctx.scratch:
                raise OrderFailed("occupied", f"{fmt_tile(to)} is held by a foreign {armed[0].type}: attack it, or "
                                              "move beside it")
            return Goal(set(g.free_neighbours(i)), i, 1, note=f"{fmt_tile(to)} is held by foreign troops",
                        wait=True)
        if not ctx.scratch and unit.type != "spy":
            return Goal({i}, i)  # land it could not see closed when ordered: it marches to the border (DIPLO-030)
        raise OrderFailed("closed_border", f"{fmt_tile(to)} is land of {_closer(state, unit, to)}, at peace with you "
                                           "and closed to your troops: declare_war first" + _nearest_text(g, i))
    if g.crossing[i] and unit.type != "colonists":
        banks = {j for j in g.net.nbr[i] if j >= 0 and g.endable(j)}
        return Goal(banks, i, 1, note=f"{fmt_tile(to)} is an unbridged river tile: the march ends on its nearest free "
                                      "bank")
    if g.noend[i] == 1:
        return Goal(set(g.free_neighbours(i)), i, 1, note=f"a foreign unit stands on {fmt_tile(to)}: the march stops "
                                                           "beside it")
    other = _own_at(state, unit, to) if g.own_mask[i] else None  # own_mask: own units of its slot, itself aside
    if other is not None:
        if other.type == unit.type and unit.spec.fighting:
            if can_join(unit, other):
                return Goal({i}, i, 0, join=i, note=f"joins #{other.id}")
            if ctx.scratch:
                raise OrderFailed("over_cap", f"#{other.id} on {fmt_tile(to)} has {other.men:,} men and #{unit.id} "
                                              f"{unit.men:,}: together over {rd.MAX_TROOP_MEN:,}; split first "
                                              f"(at most {max(0, rd.MAX_TROOP_MEN - other.men):,} can join)")
        city = state.city_at(*to)
        if city is not None and city.owner == unit.owner and unit.spec.fighting and other.spec.fighting:
            return Goal(set(g.free_neighbours(i)), i, 1, note=(
                f"WARNING: {city.name} is garrisoned by #{other.id} {other.type} and a troop of another type cannot "
                f"enter it (one troop a city, MOVE-120): the march ends beside it"))
        return Goal(set(g.free_neighbours(i)), i, 1, note=f"#{other.id} {other.type} holds {fmt_tile(to)}: the march "
                                                           "ends beside it")
    return Goal({i}, i)


def _closer(state: GameState, unit: Unit, to: Tile) -> str:
    from kingdoms.engine.diplomacy import closed_by

    holder = closed_by(state, unit.owner, *to)
    return _name(state, holder) if holder else "another kingdom"


def _name(state: GameState, owner: str | None) -> str:
    if owner is None:
        return "nobody"
    kd = state.kingdoms.get(owner)
    return kd.name if kd is not None else owner


def _nearest_text(g: Ground, i: int, *, row: bool = True) -> str:
    """'; the nearest tile you can reach is (q,r) (2 months); row r=5 runs q=-2..29' for a refusal naming tile i."""
    near = nearest_reachable(g, i, moves_left=None)
    gm = g.state.map
    where = f"; {gm.row_text(gm.tile(i)[1])}" if row else ""
    if near is None:
        return where
    tile, months = near
    return f"; the nearest tile you can reach is {fmt_tile(tile)} ({_months(months)}){where}"


def _months(n: int) -> str:
    if n <= 0:
        return "where it stands"
    return "this month" if n == 1 else f"{n} months"


def _supply_note(state: GameState, unit: Unit, route: Route | None) -> str:
    """SUPPLY-090: the reply says when a march keeps the troop out of supply longer than its rations last."""
    if route is None or not route.steps or not unit.spec.fighting or unit.men <= 0:
        return ""
    gm = state.map
    ends = route.month_ends()
    out = [k for k, i in enumerate(ends) if not in_supply(state, unit.owner, gm.tile(i))]
    if not out:
        return ""
    last = gm.tile(ends[-1])
    months_out = len(out)
    rations = ration_months_left(unit)
    if march_outlasts_rations(unit, months_out):
        return (f"; WARNING: {months_out} month-end(s) out of supply on the way but rations for only "
                f"{rations:.1f} month(s): it goes hungry")
    if out[-1] == len(ends) - 1:  # the last month-end (its tile is `last`) is out of supply
        return f"; out of supply at {fmt_tile(last)} (rations for {rations:.1f} months)"
    return ""


# --- move (MOVE-010..320, TURN-120, TURN-160) ---------------------------------------------------------------


def _check_move(ctx: MonthContext, kingdom: str, order: Any) -> None:
    require_own_unit(ctx.state, kingdom, order.unit_id)


def march_to(ctx: MonthContext, unit: Unit, to: Tile, order: Any | None = None) -> str:
    """March `unit` toward `to` for this month; unfinished, `order` (or a move order) stands for next month."""
    state = ctx.state
    if unit.tile == to:
        unit.standing = None
        return f"#{unit.id} stays at {fmt_tile(to)}"
    g = Ground(state, unit)
    goal = move_goal(ctx, unit, to, g)
    if unit.type == "wagon":
        unit.dest = to  # the city at or beside the new tile becomes its destination (SUPPLY-150)
    origin = unit.tile
    res = march(ctx, unit, goal, ground=g)
    if res.route is None:
        raise OrderFailed("no_route", f"#{unit.id} {unit.type} at {fmt_tile(origin)} has no route to {fmt_tile(to)}"
                          + (f" ({goal.note})" if goal.note else "") + _nearest_text(g, state.map.index(*to)))
    head = f"#{unit.id} {unit.type} {fmt_tile(origin)} -> {fmt_tile(unit.tile)}"
    note = f" ({goal.note})" if goal.note and goal.join < 0 else ""
    if res.arrived and goal.wait:
        unit.standing = (order or Move(unit_id=unit.id, to=to)).model_dump(mode="json")
        return f"{head}: waits beside {fmt_tile(to)} ({goal.note}) and marches on when it clears"
    if res.arrived:
        unit.standing = None
        if goal.join >= 0:
            target = _own_at(state, unit, unit.tile)
            if target is not None and target.id != unit.id:
                return f"{head}: arrives and " + merge_units(ctx, unit, target)
        left = ctx.moves(unit)
        said = f"; {goal.note}" if goal.note else ""
        return (f"{head}: arrives{said} ({left:g} of {unit.spec.moves} moves left)"
                + _supply_note(state, unit, res.route))
    if res.border >= 0 and res.held:
        unit.standing = None
        bq, br = state.map.tile(res.border)
        return (f"{head}: stops at the border: {fmt_tile((bq, br))} ahead is land of {_closer(state, unit, (bq, br))}, "
                f"at peace with you and closed to your troops; the march to {fmt_tile(to)} ends here (declare_war to "
                "go on)")
    unit.standing = (order or Move(unit_id=unit.id, to=to)).model_dump(mode="json")
    if res.held:
        return (f"{head}: {res.held}; waits and marches on next month to {fmt_tile(to)}{note}"
                + _supply_note(state, unit, res.route))
    return (f"{head}: marching to {fmt_tile(to)}{note}, {_months(res.route.months)} in all, "
            f"{ctx.moves(unit):g} of {unit.spec.moves} moves left" + _supply_note(state, unit, res.route))


def move_waits(ctx: MonthContext, kingdom: str, order: Any, holders: Mapping[Tile, list[int]]) -> set[int]:
    """A move onto a tile own troops are leaving waits for their orders (TURN-100)."""
    return set(holders.get((order.to[0], order.to[1]), ())) - {order.unit_id}


def swap_moves(ctx: MonthContext, kingdom: str, a_order: Any, b_order: Any) -> tuple[str, str] | None:
    """Two adjacent own troops ordered onto one another's tiles swap, each paying for its own step (TURN-110).

    Same-type troops swap rather than merge (OPEN-41). None when it is not such a pair or a step is not affordable.
    """
    state = ctx.state
    if getattr(a_order, "action", None) != "move" or getattr(b_order, "action", None) != "move":
        return None
    a = state.units.get(a_order.unit_id)
    b = state.units.get(b_order.unit_id)
    if a is None or b is None or a.owner != kingdom or b.owner != kingdom:
        return None
    if (a_order.to[0], a_order.to[1]) != b.tile or (b_order.to[0], b_order.to[1]) != a.tile:
        return None
    if distance(a.tile, b.tile) != 1:
        return None
    gm = state.map
    costs = []
    for mover, other in ((a, b), (b, a)):
        i = gm.index(*other.tile)
        cost = int(gm.move_cost[i])
        left = ctx.moves(mover)
        if not (left >= cost or left >= mover.spec.moves):
            return None
        g = Ground(state, mover)
        if not g.enterable(i):
            return None
        costs.append(cost)
    ta, tb = a.tile, b.tile
    for mover, dest, cost in ((a, tb, costs[0]), (b, ta, costs[1])):
        mover.q, mover.r = dest
        mover.fortified = False
        mover.standing = None
        ctx.spend(mover, cost)
        ctx.ordered.add(mover.id)
    return (f"#{a.id} {a.type} swaps places with #{b.id}: now at {fmt_tile(tb)}",
            f"#{b.id} {b.type} swaps places with #{a.id}: now at {fmt_tile(ta)}")


@verb("move", check=_check_move, standing=True, waits=move_waits, swap=swap_moves)
def run_move(ctx: MonthContext, kingdom: str, order: Any) -> str:
    """move unit=ID to=q,r: march there, over months if needed; ends beside own troops of another type."""
    unit = require_own_unit(ctx.state, kingdom, order.unit_id)
    return march_to(ctx, unit, (order.to[0], order.to[1]), order)


# --- hold (RECRUIT-220, COMBAT-030) -------------------------------------------------------------------------


def _check_hold(ctx: MonthContext, kingdom: str, order: Any) -> None:
    for uid in order.unit_ids:
        require_own_unit(ctx.state, kingdom, uid)


@verb("hold", check=_check_hold)
def run_hold(ctx: MonthContext, kingdom: str, order: Any) -> str:
    """hold unit=ID: a fighting troop stays and fortifies (+25% defence); others just stay (RECRUIT-220)."""
    parts = []
    for uid in order.unit_ids:
        unit = require_own_unit(ctx.state, kingdom, uid)
        unit.standing = None
        if unit.spec.fighting:
            unit.fortified = True
            parts.append(f"#{unit.id} {unit.type} holds {fmt_tile(unit.tile)}, fortified (+25% defence)")
        else:
            parts.append(f"#{unit.id} {unit.type} stays at {fmt_tile(unit.tile)}")
    return "; ".join(parts)


# --- merge (MOVE-180..230, OPEN-4, OPEN-53) -----------------------------------------------------------------


def merge_units(ctx: MonthContext, unit: Unit, target: Unit) -> str:
    """`unit` joins `target`: men add up, XP, morale and hunger average by men (MOVE-220), rations add up
    (MOVE-180..220).

    The joined troop keeps its general (MOVE-210); the joiner's leaves for the nearest post (GEN-060) unless the joined
    troop has none. The merged troop moves and strikes no further this month (OPEN-4) and counts as having
    attacked if either had (MOVE-200).
    """
    state = ctx.state
    total = unit.men + target.men
    if total > 0:
        target.xp = (unit.xp * unit.men + target.xp * target.men) / total
        target.morale = (unit.morale * unit.men + target.morale * target.men) / total
        target.hunger = (unit.hunger * unit.men + target.hunger * target.men) / total
    target.men = total
    target.rations += unit.rations
    drop_excess_rations(target)  # at most 4 months of the merged men (SUPPLY-070)
    note = ""
    if unit.general_id is not None:
        gid = unit.general_id
        if target.general_id is None:
            general = state.generals.get(gid)
            if general is not None:
                general.unit_id = target.id
                target.general_id = gid
                note = f"; General {general.name} takes command"
            unit.general_id = None
        else:
            note = "; its general " + release_general(ctx, gid, target.tile, exclude_unit=unit.id)
    if unit.id in ctx.attacked:
        ctx.attacked.add(target.id)
    ctx.moves_left[target.id] = 0.0
    state.units.pop(unit.id, None)
    ctx.moves_left.pop(unit.id, None)
    return (f"merges into #{target.id} {target.type} at {fmt_tile(target.tile)}: {total:,} men, "
            f"level {rd.troop_level(target.xp)}{note}")


def _merge_pair(ctx: MonthContext, kingdom: str, order: Any) -> tuple[Unit, Unit]:
    state = ctx.state
    unit = require_own_unit(state, kingdom, order.unit_id)
    target = require_own_unit(state, kingdom, order.target_id)
    if unit.id == target.id:
        raise OrderFailed("same_unit", f"#{unit.id} cannot merge with itself: give another troop of yours as target")
    if not unit.spec.fighting or target.type != unit.type:
        same = sorted((u for u in state.units.values() if u.owner == kingdom and u.type == unit.type
                       and u.id != unit.id and unit.spec.fighting),
                      key=lambda u: (distance(u.tile, unit.tile), u.id))[:5]
        hint = ("; your troops it could merge with: " + ", ".join(f"#{u.id} at {fmt_tile(u.tile)}" for u in same)
                if same else "")
        raise OrderFailed("not_same_type", f"#{unit.id} is {unit.type} and #{target.id} is {target.type}: only troops "
                                           f"of one type merge{hint}")
    if unit.men + target.men > rd.MAX_TROOP_MEN:
        raise OrderFailed("over_cap", f"#{unit.id} ({unit.men:,}) and #{target.id} ({target.men:,}) would make "
                                      f"{unit.men + target.men:,} men, over {rd.MAX_TROOP_MEN:,}: split first (at most "
                                      f"{max(0, rd.MAX_TROOP_MEN - target.men):,} can join #{target.id})")
    return unit, target


def _check_merge(ctx: MonthContext, kingdom: str, order: Any) -> None:
    _merge_pair(ctx, kingdom, order)


def target_waits(ctx: MonthContext, kingdom: str, order: Any, holders: Mapping[Tile, list[int]]) -> set[int]:
    """A follow or a merge waits for its target's orders: it goes where the target ends up (MOVE-170, MOVE-180)."""
    return {order.target_id} - {order.unit_id}


@verb("merge", check=_check_merge, standing=True, waits=target_waits)
def run_merge(ctx: MonthContext, kingdom: str, order: Any) -> str:
    """merge unit=ID target=ID: march to the other troop (following it) and join it on arrival (MOVE-180)."""
    state = ctx.state
    unit, target = _merge_pair(ctx, kingdom, order)
    gm = state.map
    ti = gm.index(*target.tile)
    if distance(unit.tile, target.tile) > 1:
        g = Ground(state, unit)
        goal = Goal(set(g.free_neighbours(ti)) | {ti}, ti, 1, join=ti)
        res = march(ctx, unit, goal)
        if res.route is None:
            raise OrderFailed("no_route", f"#{unit.id} has no route to #{target.id} at {fmt_tile(target.tile)}"
                              + _nearest_text(g, ti))
        if unit.tile == target.tile:
            unit.standing = None
            return f"#{unit.id} reaches #{target.id} and " + merge_units(ctx, unit, target)
    if distance(unit.tile, target.tile) <= 1 and ctx.moves(unit) >= 1:
        unit.standing = None
        return f"#{unit.id} " + merge_units(ctx, unit, target)
    unit.standing = order.model_dump(mode="json")
    return (f"#{unit.id} {unit.type} at {fmt_tile(unit.tile)} marches to join #{target.id} at {fmt_tile(target.tile)}: "
            "it joins on arrival with a move left")


# --- follow (MOVE-170) --------------------------------------------------------------------------------------


def _check_follow(ctx: MonthContext, kingdom: str, order: Any) -> None:
    unit = require_own_unit(ctx.state, kingdom, order.unit_id)
    target = require_own_unit(ctx.state, kingdom, order.target_id)
    if unit.id == target.id:
        raise OrderFailed("same_unit", f"#{unit.id} cannot follow itself: give another unit of yours as target")


@verb("follow", check=_check_follow, standing=True, waits=target_waits)
def run_follow(ctx: MonthContext, kingdom: str, order: Any) -> str:
    """follow unit=ID target=ID: every month, after the target moved, march to it and share its tile (MOVE-170).

    Two troops cannot share a tile, nor a troop a river tile: then it stops beside. A new order ends it.
    """
    _check_follow(ctx, kingdom, order)
    state = ctx.state
    unit = state.units[order.unit_id]
    target = state.units[order.target_id]
    unit.standing = order.model_dump(mode="json")
    g = Ground(state, unit)
    ti = g.index(target.tile)
    share = g.endable(ti)
    if unit.tile == target.tile or (not share and distance(unit.tile, target.tile) == 1):
        return f"#{unit.id} {unit.type} stays with #{target.id} at {fmt_tile(unit.tile)}"
    goal = Goal({ti}, ti) if share else beside(g, ti)
    origin = unit.tile
    res = march(ctx, unit, goal)
    if res.route is None:
        raise OrderFailed("no_route", f"#{unit.id} has no route to #{target.id} at {fmt_tile(target.tile)}"
                          + _nearest_text(g, ti))
    where = "with" if unit.tile == target.tile else ("beside" if distance(unit.tile, target.tile) == 1 else "toward")
    return f"#{unit.id} {unit.type} follows #{target.id}: {fmt_tile(origin)} -> {fmt_tile(unit.tile)} ({where} it)"


# --- split (MOVE-240, MOVE-250, TURN-140) -------------------------------------------------------------------


def _check_split(ctx: MonthContext, kingdom: str, order: Any) -> None:
    unit = require_own_unit(ctx.state, kingdom, order.unit_id)
    if not unit.spec.fighting:
        raise OrderFailed("not_a_troop", f"#{unit.id} is a {unit.type}: only fighting troops split")
    low = unit.spec.min_men
    if order.men < low or unit.men - order.men < low:
        most = unit.men - low
        raise OrderFailed("split_too_small",
                          f"#{unit.id} has {unit.men:,} men and both parts must keep at least {low:,}: "
                          + (f"split off {low:,}..{most:,} men" if most >= low else "it is too small to split"))


def _split_tile(g: Ground, unit: Unit, to: Tile) -> Tile | None:
    """The free tile beside the troop the new troop splits onto: `to` itself, else the one nearest it (MOVE-240)."""
    here = g.index(unit.tile)
    free = [g.tile(j) for j in g.free_neighbours(here)]
    if not free:
        return None
    if to in free:
        return to
    return min(free, key=lambda t: (distance(t, to), t[1], t[0]))


@verb("split", check=_check_split)
def run_split(ctx: MonthContext, kingdom: str, order: Any) -> str:
    """split unit=ID men=N to=q,r: N men form a new troop beside it, which marches on to the tile (MOVE-240, MOVE-250).

    Both keep the XP (COMBAT-270); rations go with the men; the general stays; the troop split from keeps any
    standing order (TURN-140). The new troop has the moves the old one had left.
    """
    _check_split(ctx, kingdom, order)
    state = ctx.state
    unit = state.units[order.unit_id]
    to = (order.to[0], order.to[1])
    g = Ground(state, unit)
    spot = _split_tile(g, unit, to)
    if spot is None:
        raise OrderFailed("no_room", f"every tile beside #{unit.id} at {fmt_tile(unit.tile)} is taken or impassable: "
                                     "move it to open ground first")
    share = order.men / unit.men
    new = Unit(id=state.new_id(), owner=unit.owner, type=unit.type, q=spot[0], r=spot[1], men=order.men, xp=unit.xp,
               morale=unit.morale, hunger=unit.hunger, rations=unit.rations * share, home_city=unit.home_city)
    unit.men -= order.men
    unit.rations -= new.rations
    state.units[new.id] = new
    ctx.moves_left[new.id] = ctx.moves(unit)
    ctx.ordered.add(new.id)
    if unit.id in ctx.attacked:
        ctx.attacked.add(new.id)
    ident = "a new troop (its number is given when the split is carried out)" if ctx.scratch else f"#{new.id}"
    text = f"#{unit.id} splits {order.men:,} men off as {ident} at {fmt_tile(spot)} ({unit.men:,} stay)"
    if spot != to:
        try:
            onward = march_to(ctx, new, to, Move(unit_id=new.id, to=to))
        except OrderFailed as exc:
            onward = f"it stays there: {exc.message}"
        text += "; " + (onward.replace(f"#{new.id} ", "the new troop ") if ctx.scratch else onward)
    return text


# --- folding (MOVE-260) -------------------------------------------------------------------------------------


@phase("folding")
def fold_small_troops(ctx: MonthContext) -> None:
    """A troop under 300 men outside a city, beside an own troop of its type, is folded into it (MOVE-260).

    The receiver: the biggest such troop within the 20,000 cap, then lowest r, q (OPEN-74).
    """
    state = ctx.state
    for unit in sorted(state.units.values(), key=lambda u: u.id):
        if unit.id not in state.units or not unit.spec.fighting or unit.men <= 0 or unit.men >= rd.FOLD_BELOW:
            continue
        if state.city_at(*unit.tile) is not None:
            continue
        mates = [o for o in state.units.values()
                 if o.id != unit.id and o.owner == unit.owner and o.type == unit.type and o.men > 0
                 and distance(o.tile, unit.tile) == 1 and o.men + unit.men <= rd.MAX_TROOP_MEN]
        if not mates:
            continue
        into = min(mates, key=lambda o: (-o.men, o.r, o.q, o.id))
        men = unit.men
        text = merge_units(ctx, unit, into)
        if unit.owner in state.kingdoms:
            ctx.emit("folded", f"#{unit.id} {unit.type} ({men:,} men, worn down) folds into #{into.id}: {text}.",
                     [unit.owner], unit_id=unit.id, into=into.id)
