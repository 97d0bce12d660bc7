"""Per-seat figures of one game, read from its game file through the storage layer.

What a tournament table needs about how a seat played, beyond its place: orders given and refused, how
many were right the first time, how long its months took, how much text the game sent it, how many of its
months were ended for it by the deadline, and, for a model seat (kingdoms seat's usage rows), its model
calls, their cost, months lost to provider outages and whether its provider failed.

First try: an order is a first try unless an order with the same verb for the same unit (or city, or
general) was refused earlier in the same month for that kingdom; a refused order fixed on a later try
therefore counts once, as not first-try valid.
"""

from __future__ import annotations

import json
import re
from typing import Any

from kingdoms.engine.victory import captures as captures_of
from kingdoms.engine.victory import places as places_of
from kingdoms.history import reply_size
from kingdoms.orders.syntax import ParsedOrder, parse_orders
from kingdoms.state import GameState
from kingdoms.storage import GameStore

SUBJECT_KEYS = ("unit_id", "unit_ids", "city_id", "general_id")
_REPLY_KINDS = ("reply", "briefing", "error")
_KEY_RE = re.compile(r"\b(unit_id|unit_ids|units|unit|city_id|city|general_id|general)\s*[=:]\s*#?(\d+)", re.I)


def intent(raw: str, parsed: str) -> tuple[str, str]:
    """(verb, subject) an order is about, from its stored parse or, for an unparsable one, its text."""
    data: dict[str, Any] | None = None
    if parsed:
        try:
            data = json.loads(parsed)
        except ValueError:
            data = None
    if data is None:
        results = parse_orders(raw)
        if len(results) == 1 and isinstance(results[0], ParsedOrder):
            data = results[0].order.model_dump(mode="json")
    if data is not None:
        verb = str(data.get("action", ""))
        for key in SUBJECT_KEYS:
            if data.get(key) not in (None, [], ""):
                value = data[key]
                return verb, str(value[0] if isinstance(value, list) else value)
        return verb, ""
    text = raw.strip().lstrip("-*0123456789. `").lower()
    words = re.split(r"[\s{(\"]+", text, maxsplit=1)
    verb = re.sub(r"[^a-z_]", "", words[0].replace("-", "_")) if words else ""
    match = _KEY_RE.search(raw)
    return verb, match.group(2) if match else ""


def order_figures(rows: list[dict[str, Any]]) -> dict[str, int]:
    """Orders given, refused, first tries and first tries accepted, from one seat's stored orders (id order)."""
    refused_before: set[tuple[int, str, str]] = set()
    given = refused = first = first_ok = 0
    for row in rows:
        given += 1
        key = (int(row["month"]), *intent(row.get("raw") or "", row.get("parsed") or ""))
        ok = bool(row["accepted"])
        if not ok:
            refused += 1
        if key not in refused_before:
            first += 1
            first_ok += int(ok)
        if not ok:
            refused_before.add(key)
    return {"orders": given, "refused": refused, "first_tries": first, "first_try_ok": first_ok}


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
    figs: dict[str, Any] = order_figures([r for r in store.all_orders(kingdom) if int(r["month"]) in times])
    months = [(how, secs) for per in times.values() for k, (how, secs) in per.items() if k == kingdom]
    figs["months"] = len(months)
    figs["auto_ended"] = sum(1 for how, _ in months if how == "deadline")
    figs["fast_forward"] = sum(1 for how, _ in months if how == "fast_forward")
    figs["seconds"] = round(sum(secs for how, secs in months if how != "fast_forward"), 3)
    figs["timed_months"] = sum(1 for how, _ in months if how != "fast_forward")
    rows = [h for h in store.history(kingdom) if int(h["month"]) in times]
    calls = [h for h in rows if h["kind"] == "call"]
    sized = [h for h in calls if h.get("reply_chars") is not None]
    if sized:  # the store keeps the size of each call's whole reply
        chars = sum(int(h["reply_chars"]) for h in sized)
        tokens = sum(int(h.get("reply_tokens") or 0) for h in sized)
    else:  # files written before reply sizes were kept: the texts the seat was sent
        sizes = [reply_size(h["text"] or "") for h in rows if h["kind"] in _REPLY_KINDS]
        chars, tokens = sum(c for c, _ in sizes), sum(t for _, t in sizes)
    figs["calls"] = len(calls)
    figs["reply_chars"] = chars
    figs["tokens"] = tokens
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
