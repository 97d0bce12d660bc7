"""Resolving a month and checking orders at issue time, over the verbs and phases in the registry.

`resolve_month` is the whole month end (TURN-020, TURN-030, TURN-040, OPEN-72): each kingdom in the month's rotation
runs its new orders in written order, then its standing orders; then the global phases run in their
slots; then the month advances and the rotation shifts by one (OPEN-73).
`check_orders` is the issue-time check (TURN-050, TURN-170): it runs the kingdom's queued orders and the
new ones on a scratch copy, so each new order is judged against the board the earlier ones leave.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kingdoms.engine import cautions
from kingdoms.engine.belief import believed_state
from kingdoms.engine.context import Event, MonthContext, OrderFailed, OrderOutcome
from kingdoms.engine.registry import PHASE_SLOTS, PHASES, VERBS, load_areas
from kingdoms.orders.models import ORDER_ADAPTER
from kingdoms.orders.syntax import format_order
from kingdoms.state import GameState


@dataclass(slots=True)
class MonthResult:
    """The state at the start of the next month, with what happened and how each order fared."""

    state: GameState
    events: list[Event]
    outcomes: list[OrderOutcome]
    #: each living kingdom's sight of `state` (the memory phase, the month's last, works it out on this very board;
    #: the next month's observations take it instead of working it out again: MonthFacts)
    sights: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class CheckResult:
    """Issue-time verdict on one order: accepted (`ok`) with what it would do, or refused with a code."""

    position: int
    ok: bool
    message: str
    code: str | None = None


def order_units(order: Any) -> list[int]:
    """Ids of the units an order commands (empty for city and kingdom orders)."""
    fields = getattr(order, "__dict__", None)  # an order model's fields (a getattr miss on a model is slow)
    if fields is None:
        fields = {k: getattr(order, k, None) for k in ("action", "unit_id", "unit_ids")}
    if fields.get("action") == "assign_general":
        return []
    uid = fields.get("unit_id")
    if uid is not None:
        return [uid]
    return list(fields.get("unit_ids") or [])


def run_order(ctx: MonthContext, kingdom: str, order: Any) -> str:
    """Carry out one order now; returns its one-line result or raises OrderFailed.

    A unit may take several orders a month, each with the moves left (TURN-080, TURN-090); a later one ends any
    standing order an earlier one left (TURN-150) — nothing takes a queued order back (OPEN-79)."""
    rule = VERBS.get(order.action)
    if rule is None:
        raise OrderFailed("not_available", f"{order.action} is not part of this game yet")
    uids = order_units(order)
    broken = [uid for uid in uids if uid in ctx.broken]
    if broken and order.action != "disband" and not ctx.scratch:  # a preview's fight is only an estimate
        raise OrderFailed("broken", f"#{broken[0]} broke in a fight earlier this month and fell back: it carries out "
                                    "no more orders this month and is yours to move again next month")
    for uid in uids:
        ctx.ordered.add(uid)
        unit = ctx.state.units.get(uid)
        if unit is not None and unit.owner == kingdom and order.action != "split":
            unit.standing = None  # a new order replaces a standing one; a split does not (TURN-130, TURN-140)
    return rule.run(ctx, kingdom, order)


def _standing_order(data: dict) -> Any:
    return ORDER_ADAPTER.validate_python(data)


#: The kinds of item in a kingdom's slot: a new order, a unit's standing order, and (in an issue-time check
#: only) an order queued by an earlier call, run quietly before the new ones are judged.
NEW, STANDING, QUEUED = "new", "standing", "queued"


@dataclass(slots=True)
class _Item:
    """One order in a kingdom's slot: a new order (`pos` >= 1), a unit's standing order (`pos` 0), or a queued one."""

    pos: int
    order: Any
    units: tuple[int, ...]
    kind: str = NEW
    waits: frozenset[int] = frozenset()


class _Slot:
    """The orders of one kingdom's slot and how they fare: the month end records outcomes, a check verdicts.

    Both run the same schedule (`_schedule`): between different units the written order does not matter
    (TURN-100), so the issue-time check waits exactly as the month end does.
    """

    def __init__(self, ctx: MonthContext, kingdom: str, *, checking: bool = False) -> None:
        self.ctx = ctx
        self.kingdom = kingdom
        self.checking = checking
        self.verdicts: dict[int, CheckResult] = {}

    def run(self, item: _Item) -> None:
        """Carry out one item and record how it fared; a failed standing order ends (TURN-060)."""
        ctx, kingdom = self.ctx, self.kingdom
        if item.kind == QUEUED:
            try:
                run_order(ctx, kingdom, item.order)
            except OrderFailed:
                pass
            return
        if item.kind == NEW:
            rule = VERBS.get(item.order.action)
            try:
                if self.checking:
                    if rule is None:
                        raise OrderFailed("not_available", f"{item.order.action} cannot be used in this game yet")
                    rule.check(ctx, kingdom, item.order)
                    before = cautions.snapshot(ctx, kingdom)
                result = run_order(ctx, kingdom, item.order)
                if self.checking:
                    result += cautions.after_order(ctx, kingdom, before, item.order)
            except OrderFailed as exc:
                self._record(item, False, exc.message, exc.code)
                return
            self._record(item, True, result)
            return
        unit = ctx.state.units.get(item.units[0])
        if unit is None or unit.owner != kingdom or unit.standing is None:
            return
        order = _standing_order(unit.standing)
        rule = VERBS.get(order.action)
        if rule is None:
            unit.standing = None
            return
        try:
            result = rule.run(ctx, kingdom, order)
        except OrderFailed as exc:
            unit.standing = None
            self._record(_Item(0, order, item.units, STANDING), False, f"standing order ended: {exc.message}",
                         exc.code)
            return
        self._record(_Item(0, order, item.units, STANDING), True, f"standing: {result}")

    def swapped(self, item: _Item, result: str) -> None:
        """Record one of two orders carried out together as a swap (TURN-110)."""
        if item.kind == QUEUED:
            return
        self._record(item, True, result if item.kind == NEW else f"standing: {result}")

    def _record(self, item: _Item, ok: bool, result: str, code: str | None = None) -> None:
        if self.checking:
            if item.kind == NEW:
                self.verdicts[item.pos] = CheckResult(item.pos, ok, result, code)
            return
        self.ctx.outcomes.append(OrderOutcome(self.kingdom, item.pos, _describe(item.order), ok, result, code))


def _slot_items(ctx: MonthContext, kingdom: str, orders: list[tuple[str, int, Any]]) -> tuple[list[_Item], set[int]]:
    """The slot's items: the orders given (kind, position, order) in written order, then the standing orders of
    units given none (TURN-120; a split aside, TURN-140). Also returns the units given an order."""
    state = ctx.state
    fresh = {uid for _k, _p, o in orders if getattr(o, "action", None) != "split" for uid in order_units(o)}
    items = [_Item(pos, order, tuple(order_units(order)), kind) for kind, pos, order in orders]
    for unit in sorted(state.units.values(), key=lambda u: u.id):
        if unit.owner == kingdom and unit.standing is not None and unit.id not in fresh:
            items.append(_Item(0, _standing_order(unit.standing), (unit.id,), STANDING))
    holders: dict[tuple[int, int], list[int]] = {}
    for unit in state.units.values():
        if unit.owner == kingdom:
            holders.setdefault((unit.q, unit.r), []).append(unit.id)
    for item in items:
        rule = VERBS.get(item.order.action)
        if rule is not None and rule.waits is not None:
            item.waits = frozenset(rule.waits(ctx, kingdom, item.order, holders)) - set(item.units)
    return items, fresh


def _schedule(slot: _Slot, items: list[_Item]) -> None:
    """Run the items: each once every order of the units it waits for has run (TURN-100); one unit's orders in
    their written order (TURN-080); orders all waiting on each other swap or run the earliest (TURN-110)."""
    pending: dict[int, int] = {}
    for item in items:
        for uid in item.units:
            pending[uid] = pending.get(uid, 0) + 1
    todo = items
    while todo:
        later: list[_Item] = []
        held: set[int] = set()  # units with an earlier order still waiting: theirs wait too (TURN-080)
        for item in todo:
            if held.intersection(item.units) or any(pending.get(w) for w in item.waits):
                later.append(item)
                held.update(item.units)
                continue
            _run_item(slot, item, pending)
        if len(later) == len(todo):
            later = _unlock(slot, later, pending)
        todo = later


def run_kingdom(ctx: MonthContext, kingdom: str, orders: list[Any]) -> None:
    """A kingdom's slot in the month: its new orders in written order, then its standing orders.

    Between different units the written order does not matter (TURN-100): an order a verb says `waits` for
    other own units (a move onto a tile they stand on, a follow or merge for its target) runs once their
    orders have run; one unit's orders keep their written order (TURN-080). Two orders waiting on each
    other are resolved by the verb's `swap` (TURN-110), else the earlier runs first. A unit given a new
    order (a split aside, TURN-140) runs no standing order this month (TURN-120).
    """
    ctx.acting = kingdom
    state = ctx.state
    slot = _Slot(ctx, kingdom)
    items, fresh = _slot_items(ctx, kingdom, [(NEW, pos, order) for pos, order in enumerate(orders, 1)])
    _schedule(slot, items)
    ran = {item.units[0] for item in items if item.kind == STANDING}
    for unit in sorted(state.units.values(), key=lambda u: u.id):  # units made this month (a new wagon)
        if (unit.owner == kingdom and unit.standing is not None and unit.id not in fresh
                and unit.id not in ctx.ordered and unit.id not in ran):
            _run_item(slot, _Item(0, _standing_order(unit.standing), (unit.id,), STANDING), {})
    ctx.acting = None


def _run_item(slot: _Slot, item: _Item, pending: dict[int, int]) -> None:
    """Carry out one item, counting it off the orders its units still have to run."""
    for uid in item.units:
        pending[uid] = pending.get(uid, 1) - 1
    slot.run(item)


def _unlock(slot: _Slot, stuck: list[_Item], pending: dict[int, int]) -> list[_Item]:
    """Orders all waiting on each other: swap the first pair that can (TURN-110), else run the earliest."""
    ctx, kingdom = slot.ctx, slot.kingdom
    first: dict[int, _Item] = {}
    for item in stuck:
        for uid in item.units:
            first.setdefault(uid, item)
    heads = [item for item in stuck if all(first[uid] is item for uid in item.units)]
    for a in heads:
        rule = VERBS.get(a.order.action)
        if rule is None or rule.swap is None:
            continue
        for b in heads:
            if b is a or b.order.action != a.order.action or not (a.waits & set(b.units)) or not (
                    b.waits & set(a.units)):
                continue
            swapped = rule.swap(ctx, kingdom, a.order, b.order)
            if swapped is None:
                continue
            for item, result in zip((a, b), swapped, strict=True):
                for uid in item.units:
                    pending[uid] = pending.get(uid, 1) - 1
                slot.swapped(item, result)
            return [item for item in stuck if item is not a and item is not b]
    _run_item(slot, heads[0], pending)
    return [item for item in stuck if item is not heads[0]]


def resolve_month(state: GameState, orders: dict[str, list[Any]]) -> MonthResult:
    """Carry out one month: every kingdom's orders in rotation, then the global phases (pure function)."""
    load_areas()
    new = state.clone().sort_ids()  # one iteration order however the state was built or loaded
    ctx = MonthContext(new)
    for kingdom in list(new.rotation):
        kd = new.kingdoms.get(kingdom)
        if kd is None or kd.eliminated or new.finished:
            continue
        run_kingdom(ctx, kingdom, orders.get(kingdom, []))
    for slot in PHASE_SLOTS:
        for fn in PHASES[slot]:
            fn(ctx)
    if not new.finished:
        new.month += 1
        if new.rotation:
            new.rotation = new.rotation[1:] + new.rotation[:1]
    return MonthResult(new, ctx.events, ctx.outcomes, ctx.sights)


def check_orders(state: GameState, kingdom: str, queued: list[Any], new: list[Any]) -> list[CheckResult]:
    """Judge each new order on a scratch board, scheduled with the queued ones as the month end will run them.

    Nothing is changed in `state`. The scratch board is the kingdom's believed board (engine.belief): every
    verdict and preview is built from what it may know. The queued orders and the new ones (after them in
    written order) run through the month end's own schedule (TURN-100: a move onto a tile an own troop is
    leaving waits for that troop's orders, whichever was written first or in whichever call), so a verdict
    never depends on the order orders are written in. Standing orders of other units run only where an order
    waits for them. Accepted orders report what they would do.
    """
    return check_orders_on(believed_state(state, kingdom), kingdom, queued, new)


def check_orders_on(scratch: GameState, kingdom: str, queued: list[Any], new: list[Any]) -> list[CheckResult]:
    """`check_orders` on a believed board the caller hands over to be used up (a fresh one, or a clone of one
    it keeps: views.observation checks every order of a kingdom-month on clones of its one believed board)."""
    load_areas()
    ctx = MonthContext(scratch, scratch=True)
    ctx.acting = kingdom
    slot = _Slot(ctx, kingdom, checking=True)
    given = [(QUEUED, 0, o) for o in queued] + [(NEW, pos, o) for pos, o in enumerate(new, 1)]
    items, _fresh = _slot_items(ctx, kingdom, given)
    _schedule(slot, _needed(items))
    return [slot.verdicts[pos] for pos in range(1, len(new) + 1)]


def _needed(items: list[_Item]) -> list[_Item]:
    """The orders given, and the standing orders some of them wait for (directly or through others): the rest
    run after every order given and change no verdict."""
    keep = [item for item in items if item.kind != STANDING]
    standing = {item.units[0]: item for item in items if item.kind == STANDING}
    wanted: set[int] = set()
    frontier = [w for item in keep for w in item.waits]
    while frontier:
        uid = frontier.pop()
        if uid in wanted:
            continue
        wanted.add(uid)
        if uid in standing:
            frontier.extend(standing[uid].waits)
    return keep + [standing[uid] for uid in sorted(standing) if uid in wanted]


def _describe(order: Any) -> str:
    return format_order(order)
