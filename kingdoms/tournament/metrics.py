"""Per-seat figures of one game, read from its game file through the storage layer.

What a tournament table needs about how a seat played, beyond its place: orders given and refused, how
many were right the first time, how long its months took, how much text the game sent it, how many of its
months were ended for it by the deadline, and, for a model seat (kingdoms seat's usage rows), its model
calls, their cost, months lost to provider outages and whether its provider failed.

First try, first-try valid and fixed on the next try are kingdoms.accounting's (the one definition, also behind
`kingdoms info` and the game record): an order is a first try unless an order with the same verb for the same
unit (or city, or general) was refused earlier in the same month for that kingdom.
"""

from __future__ import annotations

from typing import Any

from kingdoms.accounting import intent, order_figures, seat_account
from kingdoms.engine.victory import captures as captures_of
from kingdoms.engine.victory import places as places_of
from kingdoms.state import GameState
from kingdoms.storage import GameStore

__all__ = ["final_standing", "intent", "month_times", "order_figures", "seat_figures"]


def month_times(store: GameStore, last: int | None = None) -> dict[int, dict[str, tuple[str, float]]]:
    """{month: {kingdom: (how, seconds from the month's opening to its end for that seat)}} of every resolved
    month up to `last` (a month still open when play stopped, or played past the months cap, is left out).

    A month opens when the month before it resolved (the last seat's end) or, for the first, when the file
    was created.
    """
    hashes = store.month_hashes()
    opened = float(store.meta_value("created_at", 0.0))
    out: dict[int, dict[str, tuple[str, float]]] = {}
    for month in sorted(hashes):
        if month + 1 not in hashes or (last is not None and month > last):
            break
        how = store.ended(month)
        at = store.ended_at(month)
        out[month] = {k: (how[k], max(0.0, float(at[k]) - opened)) for k in how}
        if at:
            opened = max(float(t) for t in at.values())
    return out


def seat_figures(store: GameStore, kingdom: str, times: dict[int, dict[str, tuple[str, float]]]) -> dict[str, Any]:
    """Every figure the table shows for one seat of one game."""
    acc = seat_account(store, kingdom, set(times))  # the one definition of the order and reply figures
    figs: dict[str, Any] = {k: acc[k] for k in ("orders", "refused", "first_tries", "first_try_ok", "fixed")}
    months = [(how, secs) for per in times.values() for k, (how, secs) in per.items() if k == kingdom]
    figs["months"] = len(months)
    figs["auto_ended"] = sum(1 for how, _ in months if how == "deadline")
    figs["fast_forward"] = sum(1 for how, _ in months if how == "fast_forward")
    figs["seconds"] = round(sum(secs for how, secs in months if how != "fast_forward"), 3)
    figs["timed_months"] = sum(1 for how, _ in months if how != "fast_forward")
    figs["calls"] = acc["calls"]
    figs["reply_chars"] = acc["reply_chars"]
    figs["tokens"] = acc["reply_tokens"]
    usage = [r for r in store.usage(kingdom) if int(r["month"]) in times or r["kind"] == "provider_failed"]
    figs["provider_failures"] = sum(1 for r in usage if r["kind"] == "provider_failed")
    figs["outages"] = len({int(r["month"]) for r in usage if r["kind"] == "outage"})
    figs["harness_ended"] = sum(1 for r in usage if r["kind"] == "month_ended")
    figs["model_calls"] = sum(1 for r in usage if r["kind"] == "call")
    figs["cost_usd"] = round(sum(float(r.get("cost_usd") or 0.0) for r in usage if r["kind"] == "call"), 6)
    return figs


def final_standing(state: GameState) -> dict[str, dict[str, Any]]:
    """Place, result and captures of every kingdom: the game's own when it ended, else from the position at
    the months cap (living kingdoms by captures, a sole leader wins and level leaders draw, as VIC-200)."""
    caps = captures_of(state)
    if state.finished:
        return {k: {"place": kd.place, "result": kd.result, "captures": caps.get(k, 0), "eliminated":
                    bool(kd.eliminated)} for k, kd in state.kingdoms.items()}
    places = places_of(state)
    living = state.living()
    best = max((caps.get(k, 0) for k in living), default=0)
    leaders = [k for k in living if caps.get(k, 0) == best]
    out = {}
    for k, kd in state.kingdoms.items():
        result = ("win" if len(leaders) == 1 else "draw") if k in leaders else "loss"
        out[k] = {"place": places[k], "result": result, "captures": caps.get(k, 0), "eliminated": bool(kd.eliminated)}
    return out
