"""Resolving a month and checking orders at issue time, over the verbs and phases in the registry.

`resolve_month` is the whole month end (TURN-030/040, OPEN-72): each kingdom in the month's rotation
runs its new orders in written order, then its standing orders; then the global phases run in their
slots; then the month advances and the rotation shifts by one (OPEN-73).
`check_orders` is the issue-time check (TURN-050, TURN-170): it runs the kingdom's queued orders and the
new ones on a scratch copy, so each new order is judged against the board the earlier ones leave.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kingdoms.engine.context import Event, MonthContext, OrderFailed, OrderOutcome
from kingdoms.engine.registry import PHASE_SLOTS, PHASES, VERBS, load_areas
from kingdoms.state import GameState


@dataclass(slots=True)
class MonthResult:
    """The state at the start of the next month, with what happened and how each order fared."""

    state: GameState
    events: list[Event]
    outcomes: list[OrderOutcome]


@dataclass(slots=True)
class CheckResult:
    """Issue-time verdict on one order: accepted (`ok`) with what it would do, or refused with a code."""

    position: int
    ok: bool
    message: str
    code: str | None = None


def order_units(order: Any) -> list[int]:
    """Ids of the units an order commands (empty for city and kingdom orders)."""
    if getattr(order, "action", None) == "assign_general":
        return []
    uid = getattr(order, "unit_id", None)
    if uid is not None:
        return [uid]
    return list(getattr(order, "unit_ids", None) or [])


def run_order(ctx: MonthContext, kingdom: str, order: Any) -> str:
    """Carry out one order now; returns its one-line result or raises OrderFailed."""
    rule = VERBS.get(order.action)
    if rule is None:
        raise OrderFailed("not_available", f"{order.action} is not part of this game yet")
    for uid in order_units(order):
        ctx.ordered.add(uid)
        unit = ctx.state.units.get(uid)
        if unit is not None and unit.owner == kingdom and order.action != "split":
            unit.standing = None  # a new order replaces a standing one; a split does not (TURN-130/140)
    return rule.run(ctx, kingdom, order)


def _standing_order(data: dict) -> Any:
    from kingdoms.orders.models import ORDER_ADAPTER

    return ORDER_ADAPTER.validate_python(data)


def run_kingdom(ctx: MonthContext, kingdom: str, orders: list[Any]) -> None:
    """A kingdom's slot in the month: its new orders in written order, then its standing orders."""
    ctx.acting = kingdom
    for pos, order in enumerate(orders, 1):
        text = _describe(order)
        try:
            result = run_order(ctx, kingdom, order)
            ctx.outcomes.append(OrderOutcome(kingdom, pos, text, True, result))
        except OrderFailed as exc:
            ctx.outcomes.append(OrderOutcome(kingdom, pos, text, False, exc.message, exc.code))
    for unit in sorted(ctx.state.units.values(), key=lambda u: u.id):
        if unit.owner != kingdom or unit.standing is None or unit.id in ctx.ordered:
            continue
        order = _standing_order(unit.standing)
        rule = VERBS.get(order.action)
        if rule is None:
            unit.standing = None
            continue
        try:
            result = rule.run(ctx, kingdom, order)
            ctx.outcomes.append(OrderOutcome(kingdom, 0, _describe(order), True, f"standing: {result}"))
        except OrderFailed as exc:
            unit.standing = None
            ctx.outcomes.append(OrderOutcome(kingdom, 0, _describe(order), False, f"standing order ended: {exc.message}",
                                             exc.code))
    ctx.acting = None


def resolve_month(state: GameState, orders: dict[str, list[Any]]) -> MonthResult:
    """Carry out one month: every kingdom's orders in rotation, then the global phases (pure function)."""
    load_areas()
    new = state.clone()
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
    return MonthResult(new, ctx.events, ctx.outcomes)


def check_orders(state: GameState, kingdom: str, queued: list[Any], new: list[Any]) -> list[CheckResult]:
    """Judge each new order on a scratch board after the queued ones (and the earlier new ones) ran.

    Nothing is changed in `state`. Accepted orders report what they would do (the preview text).
    """
    load_areas()
    scratch = state.clone()
    ctx = MonthContext(scratch, scratch=True)
    ctx.acting = kingdom
    for order in queued:
        try:
            run_order(ctx, kingdom, order)
        except OrderFailed:
            pass
    results: list[CheckResult] = []
    for pos, order in enumerate(new, 1):
        rule = VERBS.get(order.action)
        try:
            if rule is None:
                raise OrderFailed("not_available", f"{order.action} cannot be used in this game yet")
            rule.check(ctx, kingdom, order)
            results.append(CheckResult(pos, True, run_order(ctx, kingdom, order)))
        except OrderFailed as exc:
            results.append(CheckResult(pos, False, exc.message, exc.code))
    return results


def _describe(order: Any) -> str:
    from kingdoms.orders.syntax import format_order

    return format_order(order)
