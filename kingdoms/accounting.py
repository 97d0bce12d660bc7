"""Per-seat accounting of a game, read from its file through the storage layer: the one definition of it.

What a seat did with its calls, for `kingdoms info`, the game record and the tournament tables
(kingdoms.tournament.metrics): tool calls by tool, the characters (and estimated tokens) of the replies it got
each month, orders given, refused (by code), first-try valid, fixed on the next try, and months ended for it.

An order is about a (month, verb, subject) intent: its verb and the unit (or city, or general) it names.
- First try: no order with the same intent was refused earlier in that month; a first try accepted is
  "first-try valid".
- Fixed on the next try: an intent refused and then accepted by a later order of the same month (counted once
  however many tries it took).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from kingdoms.history import reply_size
from kingdoms.orders.syntax import ParsedOrder, parse_orders
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


def order_figures(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """From one seat's stored orders (id order): orders given, refused (and by code), first tries, first tries
    accepted, and refused orders fixed on a later try in the same month."""
    keys = [(int(r["month"]), *intent(r.get("raw") or "", r.get("parsed") or "")) for r in rows]
    refused_before: set[tuple[int, str, str]] = set()
    accepted_after: dict[tuple[int, str, str], int] = {}  # intent -> index of its last accepted order
    for n, (row, key) in enumerate(zip(rows, keys, strict=True)):
        if row["accepted"]:
            accepted_after[key] = n
    given = first = first_ok = 0
    codes: Counter[str] = Counter()
    first_refusal: dict[tuple[int, str, str], int] = {}
    for n, (row, key) in enumerate(zip(rows, keys, strict=True)):
        given += 1
        ok = bool(row["accepted"])
        if key not in refused_before:
            first += 1
            first_ok += int(ok)
        if not ok:
            codes[row.get("code") or "refused"] += 1
            refused_before.add(key)
            first_refusal.setdefault(key, n)
    fixed = sum(1 for key, n in first_refusal.items() if accepted_after.get(key, -1) > n)
    return {"orders": given, "refused": sum(codes.values()), "first_tries": first, "first_try_ok": first_ok,
            "fixed": fixed, "refused_by_code": dict(sorted(codes.items()))}


def seat_account(store: GameStore, kingdom: str, months: set[int] | None = None) -> dict[str, Any]:
    """One seat's accounting, over `months` (default: every month stored): calls by tool, reply characters and
    tokens (in all and per month), the order figures, and how its months ended (by the deadline, fast_forward)."""
    rows = [h for h in store.history(kingdom) if months is None or int(h["month"]) in months]
    calls = [h for h in rows if h["kind"] == "call"]
    by_tool = Counter((h["text"] or "").split(" ", 1)[0] for h in calls)
    per_month: dict[int, int] = {}
    chars = tokens = 0
    if any(h.get("reply_chars") is not None for h in calls):  # the store keeps each call's whole reply size
        for h in calls:
            if h.get("reply_chars") is not None:
                per_month[int(h["month"])] = per_month.get(int(h["month"]), 0) + int(h["reply_chars"])
                chars += int(h["reply_chars"])
                tokens += int(h.get("reply_tokens") or 0)
    else:  # files written before reply sizes were kept: the texts the seat was sent
        for h in rows:
            if h["kind"] in _REPLY_KINDS:
                c, t = reply_size(h["text"] or "")
                per_month[int(h["month"])] = per_month.get(int(h["month"]), 0) + c
                chars, tokens = chars + c, tokens + t
    out: dict[str, Any] = {"calls": len(calls), "calls_by_tool": dict(sorted(by_tool.items())),
                           "reply_chars": chars, "reply_tokens": tokens,
                           "reply_chars_by_month": {str(m): n for m, n in sorted(per_month.items())}}  # JSON keys
    out.update(order_figures([r for r in store.all_orders(kingdom) if months is None or int(r["month"]) in months]))
    ended = {m: how for m, how in store.ended_by(kingdom).items() if months is None or m in months}
    out["months_ended"] = len(ended)
    out["auto_ended"] = sum(1 for how in ended.values() if how == "deadline")
    out["fast_forward"] = sum(1 for how in ended.values() if how == "fast_forward")
    return out


def accounts(store: GameStore) -> dict[str, dict[str, Any]]:
    """Every seat's accounting, by kingdom."""
    return {s["kingdom"]: seat_account(store, s["kingdom"]) for s in store.seats()}


def account_lines(acc: dict[str, Any]) -> list[str]:
    """The accounting of one seat in two or three short lines (kingdoms info)."""
    tools = ", ".join(f"{t} {n}" for t, n in acc["calls_by_tool"].items()) or "none"
    months = acc["reply_chars_by_month"]
    avg = round(acc["reply_chars"] / len(months)) if months else 0
    lines = [f"calls {acc['calls']} ({tools}); replies {acc['reply_chars']:,} chars (~{acc['reply_tokens']:,} "
             f"tokens), {avg:,} a month over {len(months)} months"]
    codes = ", ".join(f"{c} {n}" for c, n in acc["refused_by_code"].items())
    lines.append(f"orders {acc['orders']}, refused {acc['refused']}" + (f" ({codes})" if codes else "")
                 + f", first-try valid {acc['first_try_ok']}/{acc['first_tries']}, fixed on the next try "
                 f"{acc['fixed']}; months ended {acc['months_ended']} (by the deadline {acc['auto_ended']}, by "
                 f"fast_forward {acc['fast_forward']})")
    return lines
