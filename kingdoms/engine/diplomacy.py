"""War and peace between kingdoms: declare_war (DIPLO-010..130)."""

from __future__ import annotations

from kingdoms.engine.context import MonthContext, OrderFailed
from kingdoms.engine.registry import verb
from kingdoms.state import GameState


def resolve_kingdom(state: GameState, name: str) -> str | None:
    """Kingdom id named by a ruler, kingdom name or id, case-insensitive (TOOLS-180)."""
    key = name.strip().casefold()
    for kid, kd in state.kingdoms.items():
        if key in (kid.casefold(), kd.name.casefold(), kd.ruler.casefold()):
            return kid
    return None


def start_war(ctx: MonthContext, a: str, b: str, how: str) -> None:
    """Open war between a and b and announce it to every kingdom (DIPLO-050, DIPLO-130)."""
    pair = sorted((a, b))
    if pair in ctx.state.wars:
        return
    ctx.state.wars.append(pair)
    ctx.state.wars.sort()
    ka, kb = ctx.state.kingdoms[a], ctx.state.kingdoms[b]
    ctx.emit("war", f"WAR: {ka.name} ({ka.ruler}) {how} {kb.name} ({kb.ruler}).", None, attacker=a, defender=b)


def _check_declare(ctx: MonthContext, kingdom: str, order) -> None:
    target = resolve_kingdom(ctx.state, order.to)
    names = ", ".join(f"{kd.name} ({kd.ruler})" for k, kd in ctx.state.kingdoms.items() if k != kingdom and not kd.eliminated)
    if target is None:
        raise OrderFailed("unknown_kingdom", f"no kingdom or ruler called {order.to!r}; rivals: {names}")
    if target == kingdom:
        raise OrderFailed("own_kingdom", f"{order.to!r} is your own kingdom; rivals: {names}")
    if ctx.state.kingdoms[target].eliminated:
        raise OrderFailed("eliminated", f"{ctx.state.kingdoms[target].name} has already fallen; rivals: {names}")


@verb("declare_war", check=_check_declare)
def run_declare_war(ctx: MonthContext, kingdom: str, order) -> str:
    """declare_war to=NAME: war at once, announced to all; already at war is a harmless repeat."""
    _check_declare(ctx, kingdom, order)
    target = resolve_kingdom(ctx.state, order.to)
    assert target is not None
    if ctx.state.at_war(kingdom, target):
        return f"already at war with {ctx.state.kingdoms[target].name}"
    start_war(ctx, kingdom, target, "declares war on")
    return f"war declared on {ctx.state.kingdoms[target].name}"
