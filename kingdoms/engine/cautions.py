"""One-line cautions on orders at issue time: what the rules do quietly that a ruler should hear of.

The issue-time check (engine.month, on the kingdom's believed board) takes a `snapshot` before each new order
and asks `after_order` what changed: an order that leaves a restless own city with fewer men on its land than
it needs to be held down (CONQ-040: it may revolt), or a move aimed at a tile out of the kingdom's
sight (what stands there is learned only on arrival, INTEL-010). Only what the kingdom knows is read: its own
troops and cities and its own sight.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kingdoms.engine.conquest import hold_down_needed, hold_down_present
from kingdoms.engine.context import MonthContext
from kingdoms.engine.sight import SightProbe
from kingdoms.hexgrid import fmt_tile


@dataclass(slots=True)
class Snapshot:
    """The men on each restless own city's land before an order (city id -> men)."""

    held: dict[int, int]


def snapshot(ctx: MonthContext, kingdom: str) -> Snapshot:
    """What `after_order` compares with: the men holding down each restless own city now."""
    state = ctx.state
    return Snapshot({c.id: hold_down_present(state, c) for c in state.cities.values()
                     if c.owner == kingdom and c.restless})


def _sight(ctx: MonthContext, kingdom: str) -> SightProbe:
    """The kingdom's sight on the check's board when first asked, kept for the rest of the check."""
    got = ctx.__dict__.get("caution_sight")
    if got is None:
        got = ctx.__dict__["caution_sight"] = SightProbe(ctx.state, kingdom)
    return got


def after_order(ctx: MonthContext, kingdom: str, before: Snapshot, order: Any) -> str:
    """'; WARNING: ...' lines for what the order just carried out (on the scratch board) did quietly."""
    state = ctx.state
    out: list[str] = []
    for cid, men in sorted(before.held.items()):
        city = state.cities.get(cid)
        if city is None or city.owner != kingdom or not city.restless:
            continue
        need = hold_down_needed(city)
        now = hold_down_present(state, city)
        if now < men and now < need:
            out.append(f"WARNING: it leaves restless {city.name} with {now:,} men on its land, under the {need:,} "
                       "that hold it down: it may revolt (CONQ-040)")
    to = getattr(order, "to", None) if getattr(order, "action", None) == "move" else None  # a miss is slow
    if isinstance(to, (tuple, list)) and len(to) == 2:
        unit = state.units.get(getattr(order, "unit_id", -1))
        gm = state.map
        if unit is not None and unit.type not in ("scout", "spy") and gm.index(to[0], to[1]) >= 0 and \
                not _sight(ctx, kingdom).sees(gm, to[0], to[1]):
            out.append(f"note: {fmt_tile((to[0], to[1]))} is out of your sight: what stands there now is found out "
                       "only on the way")
    return "".join(f"; {line}" for line in out)
