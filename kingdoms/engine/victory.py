"""Victory in the captures mode: capture counts, the 36-month lead, last kingdom standing, month 160 (VIC-*).

A city is a capture of kingdom K while K holds it and either it is the Ruin (VIC-110) or `City.captured_by`
is K: sieges.capture_city sets that field only when K's assault took it from a rival kingdom and K did not
found it (VIC-050..080), and every change of hands clears it. Results follow OPEN-20: a sole leader wins,
level leaders draw, everyone else (and every eliminated kingdom) loses; level kingdoms share their place.
"""

from __future__ import annotations

from kingdoms import ruledata as rd
from kingdoms.engine.context import MonthContext
from kingdoms.engine.registry import phase
from kingdoms.state import City, GameState


def counts_as_capture(city: City, kingdom: str) -> bool:
    """True when `city` is one of `kingdom`'s captures right now (VIC-050, VIC-060, VIC-070, VIC-080, VIC-110,
    BANDIT-070): held by it, and the Ruin or taken by its own assault from a rival that founded it."""
    if city.owner != kingdom or kingdom == rd.BANDITS:
        return False
    return city.is_ruin or city.captured_by == kingdom


def captures(state: GameState) -> dict[str, int]:
    """Public capture count of every kingdom, eliminated ones included (VIC-140)."""
    out = {k: 0 for k in state.kingdoms}
    for city in state.cities.values():
        if city.owner in out and counts_as_capture(city, city.owner):
            out[city.owner] += 1
    return out


def ruin_holder(state: GameState) -> str | None:
    """Who holds the Ruin ("bandits" or a kingdom id), None on a map without one (VIC-130)."""
    for city in state.cities.values():
        if city.is_ruin:
            return city.owner
    return None


def sole_leader(state: GameState) -> str | None:
    """The living kingdom holding strictly more captures than every other living kingdom, if any (VIC-150, OPEN-21)."""
    living = state.living()
    if len(living) < 2:
        return None
    count = captures(state)
    best = max(count[k] for k in living)
    leaders = [k for k in living if count[k] == best]
    return leaders[0] if len(leaders) == 1 else None


def places(state: GameState) -> dict[str, int]:
    """Finishing place of every kingdom: living ones by captures, then the eliminated by how long they lasted.

    Kingdoms level on captures (or eliminated in the same month) share a place (VIC-200, OPEN-20); land and
    people never count (VIC-020).
    """
    count = captures(state)
    living = state.living()
    dead = [k for k in state.kingdoms if k not in living]
    keyed = [(0, -count[k], k) for k in living] + [(1, -state.kingdoms[k].eliminated_month, k) for k in dead]
    keyed.sort()
    out: dict[str, int] = {}
    prev: tuple[int, int] | None = None
    place = 0
    for n, (group, score, k) in enumerate(keyed, 1):
        if (group, score) != prev:
            place, prev = n, (group, score)
        out[k] = place
    return out


def finish(ctx: MonthContext, winners: list[str], reason: str, draw: bool = False) -> None:
    """End the game: results on every kingdom, state.finished, end reason, a public event (VIC-010, OPEN-20)."""
    state = ctx.state
    if state.finished:
        return
    state.finished = True
    state.end_reason = reason
    for k, place in places(state).items():
        kd = state.kingdoms[k]
        kd.place = place
        kd.result = ("draw" if draw else "win") if k in winners else "loss"
    listed = [state.kingdoms[k].name for k in winners]
    names = " and ".join(listed) if len(listed) < 3 else ", ".join(listed[:-1]) + " and " + listed[-1]
    others = " every other kingdom loses." if len(winners) < len(state.kingdoms) else ""
    why = {
        "last_standing": "the last kingdom standing",
        "lead": f"holding more captures than every rival for {rd.LEAD_MONTHS} months in a row",
        "time_limit": f"holding the most captures at the end of month {state.last_month}",
    }.get(reason, reason)
    if not winners:
        text = f"THE GAME ENDS in month {ctx.month}: no kingdom is left standing."
    elif draw:
        text = f"THE GAME ENDS in a DRAW (month {ctx.month}): {names} are level on captures.{others}"
    else:
        text = f"THE GAME ENDS (month {ctx.month}): {names} wins, {why}."
    ctx.emit("game_end", text, None, reason=reason, winners=sorted(winners), draw=draw,
             results={k: kd.result for k, kd in state.kingdoms.items()},
             places={k: kd.place for k, kd in state.kingdoms.items()}, captures=captures(state))


def check_last_standing(ctx: MonthContext) -> bool:
    """End the game at once when a single kingdom is left (VIC-040); returns True when it ended."""
    state = ctx.state
    if state.finished or len(state.kingdoms) < 2:
        return state.finished
    living = state.living()
    if len(living) == 1:
        finish(ctx, living, "last_standing")
    elif not living:
        finish(ctx, [], "last_standing")
    return state.finished


def update_lead(ctx: MonthContext) -> None:
    """Advance, start or cancel the lead counter in state.lead (VIC-150, VIC-160, VIC-170, OPEN-21); announce changes."""
    state = ctx.state
    leader = sole_leader(state)
    before = state.lead.get("kingdom")
    if leader is None:
        if before is not None:
            ctx.emit("lead_cancelled", f"The lead of {state.kingdoms[before].name} is cancelled: a rival has drawn "
                     f"level on captures ({_tally(state)}).", None, kingdom=before)
        state.lead = {"kingdom": None, "months": 0}
        return
    if leader == before:
        state.lead = {"kingdom": leader, "months": int(state.lead.get("months", 0)) + 1}
        return
    state.lead = {"kingdom": leader, "months": 1}
    ctx.emit("lead_started", f"{state.kingdoms[leader].name} pulls ahead on captures ({_tally(state)}): "
             f"{rd.LEAD_MONTHS} months in a row ahead of every rival win the game.", None, kingdom=leader)


def _tally(state: GameState) -> str:
    count = captures(state)
    return ", ".join(f"{state.kingdoms[k].name} {count[k]}" for k in state.living())


@phase("victory")
def victory_phase(ctx: MonthContext) -> None:
    """Month-end victory checks: last standing, the lead counter and its 36th month, the month-160 tally taken
    after that month's orders and battles (VIC-180): most captures wins, level leaders draw (VIC-190)."""
    state = ctx.state
    if state.finished or check_last_standing(ctx):
        return
    update_lead(ctx)
    lead = state.lead
    if lead.get("kingdom") is not None and lead.get("months", 0) >= rd.LEAD_MONTHS:
        finish(ctx, [lead["kingdom"]], "lead")
        return
    if ctx.month >= ctx.state.last_month:
        count = captures(state)
        living = state.living()
        best = max(count[k] for k in living)
        leaders = [k for k in living if count[k] == best]
        finish(ctx, leaders, "time_limit", draw=len(leaders) > 1)
