"""Number formats and lookups on a KingdomView, shared by the observation (its alerts and stops) and the texts.

Everything here reads a view or plain numbers only, never the game state.
"""

from __future__ import annotations

from collections.abc import Sequence

from kingdoms import ruledata as rd
from kingdoms.hexgrid import distance
from kingdoms.views.kingdom_view import KingdomView, OwnUnit, SeenUnit

#: Event kinds that are battles or blows (listed first among last month's events; they stop a fast_forward).
BATTLE_KINDS = ("field", "battle", "assault", "siege", "volley", "city_attacked", "bandit_strike", "towers", "rout",
                "pillage", "pillaged", "city_captured", "city_taken", "city_lost", "kingdom_eliminated", "war",
                "sabotage", "camp_seized", "camp_burned", "wagon_captured", "general_defected", "troop_destroyed")


# --- number formats -------------------------------------------------------------------------------------------


def num(x: float | int | None) -> str:
    """A whole number with thousands separators (people, men)."""
    if x is None:
        return "?"
    return f"{int(round(x)):,}"


def f1(x: float | None) -> str:
    """A decimal to one place, trailing .0 dropped (grain, production)."""
    if x is None:
        return "?"
    v = round(float(x), 1)
    if v == int(v):
        return f"{int(v):,}"
    return f"{v:,.1f}"


def signed(x: float) -> str:
    """A change with its sign: +3.5, -2, +0."""
    v = round(float(x), 1)
    body = f1(abs(v))
    return f"-{body}" if v < 0 else f"+{body}"


def tile(t: Sequence[int]) -> str:
    """A tile as the order syntax writes it: (q,r)."""
    return f"({t[0]},{t[1]})"


def plural(n: int, word: str) -> str:
    """'1 order', '2 orders'."""
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def order_counts(done: int, failed: int, standing_on: int, standing_ended: int, failed_codes: str = "") -> str:
    """How a month's orders fared, the orders given counted apart from the standing orders that ran on or
    ended: '2 orders carried out, 1 failed; 1 standing order ran on' (never more carried out than given)."""
    parts = []
    if done or failed:
        parts.append(f"{plural(done, 'order')} carried out" + (f", {failed} failed" if failed else "")
                     + (f" ({failed_codes})" if failed and failed_codes else ""))
    if standing_on or standing_ended:
        ran = f"{plural(standing_on, 'standing order')} ran on" if standing_on else ""
        end = (f"{plural(standing_ended, 'standing order')} ended" if not standing_on
               else f"{standing_ended} ended") if standing_ended else ""
        parts.append(", ".join(x for x in (ran, end) if x))
    return "; ".join(parts) if parts else "no orders ran"


# --- lookups on the view --------------------------------------------------------------------------------------


def kingdom_names(view: KingdomView) -> dict[str, str]:
    """Display name of every kingdom the view knows, and of the bandits."""
    names = {k.id: k.name for k in view.kingdoms}
    names[rd.BANDITS] = "bandits"
    return names


def at_war(view: KingdomView, other: str) -> bool:
    """True when the view's kingdom fights `other` (bandits always)."""
    if other == view.kingdom:
        return False
    if other == rd.BANDITS:
        return True
    return sorted((view.kingdom, other)) in [sorted(p) for p in view.wars]


def idle_units(view: KingdomView) -> list[OwnUnit]:
    """Field troops with no standing order that are not holding, and colonists with no march (OPEN-91)."""
    out = []
    for u in view.units:
        spec = rd.UNITS[u.type]
        if u.standing:
            continue
        if spec.fighting and u.in_city is None and not u.fortified:
            out.append(u)
        elif u.type == "colonists":
            out.append(u)
    return out


def idle_agents(view: KingdomView) -> list[OwnUnit]:
    """Scouts and spies with no order: listed for the ruler, but they never stop a fast_forward (OPEN-91)."""
    return [u for u in view.units if u.type in ("scout", "spy") and not u.standing]


def strike_threats(view: KingdomView) -> list[tuple[SeenUnit, OwnUnit]]:
    """Enemy troops in sight close enough to strike one of the kingdom's units next month (spies aside: no
    attack ever hits a spy, OPEN-52)."""
    out = []
    for e in view.foreign_units:
        spec = rd.UNITS.get(e.type)
        if not e.in_sight or spec is None or not spec.fighting or not at_war(view, e.owner):
            continue
        reach = spec.moves + max(1, spec.range)
        near = [(distance((e.q, e.r), (u.q, u.r)), u.id, u) for u in view.units
                if u.type != "spy" and distance((e.q, e.r), (u.q, u.r)) <= reach]  # spies are never attacked
        if near:
            out.append((e, min(near, key=lambda x: (x[0], x[1]))[2]))
    return out
