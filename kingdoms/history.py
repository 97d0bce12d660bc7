"""A seat's history (OPEN-85): what is stored of each call, and get_history's digest of it.

Stored call arguments are cut the way the tools cut them (a report to a dispatch's length, a note and a goal to
theirs, orders to a bound), so the game file grows by what the game needs, not by what a client sends.
get_history answers within a budget: a compact digest, newest month first, enough to resume a game (the goal,
the last notes, standing orders, one or two lines a month), with `before` to page back and `month` for one
month in full. Everything in it is the seat's own (its calls, orders, verdicts, outcomes and notes) or an event
it was told (Game.events_seen_by).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from kingdoms.game import Game
from kingdoms.views.render import BATTLE_KINDS, ROUTINE_KINDS, order_counts

HISTORY_BUDGET = 12_000  # characters of one get_history answer
NOTE_CHARS = 2_000  # a chronicle note as stored
GOAL_CHARS = 400  # TOOLS-430
DISPATCH_CHARS = 20_000  # a report as stored
CALL_ORDERS = 200  # orders kept of one call's list
CALL_ORDER_CHARS = 300  # characters kept of one order in a list
CALL_ORDERS_CHARS = 6_000  # characters kept of one call's orders
CALL_OTHER_CHARS = 2_000  # any other text argument
ERROR_CHARS = 2_000

#: How many characters of each stored text argument of a call are kept.
ARG_LIMITS = {"report": DISPATCH_CHARS, "note": NOTE_CHARS, "goal": GOAL_CHARS}

_ENDED = {"ended": "you ended it", "deadline": "ended by the deadline", "fast_forward": "skipped by fast_forward",
          "ai": "ended by the AI"}


def cut(text: str, limit: int) -> str:
    """`text`, or its first `limit` characters and a mark saying how long it was."""
    if len(text) <= limit:
        return text
    return text[:limit] + f" …[cut: {len(text):,} characters in all]"


def _cut_orders(orders: Any) -> Any:
    """A call's orders as stored: the first CALL_ORDERS of a list, each order and the whole bounded."""
    if isinstance(orders, str):
        return cut(orders, CALL_ORDERS_CHARS)
    if isinstance(orders, (list, tuple)):
        kept: list[Any] = []
        for item in list(orders)[:CALL_ORDERS]:
            text = item if isinstance(item, str) else json.dumps(item, ensure_ascii=False, default=str)
            kept.append(item if len(text) <= CALL_ORDER_CHARS else cut(text, CALL_ORDER_CHARS))
        if len(orders) > CALL_ORDERS:
            kept.append(f"…[cut: {len(orders):,} orders in all]")
        return kept
    return cut(json.dumps(orders, ensure_ascii=False, default=str), CALL_ORDERS_CHARS)


def call_text(tool: str, args: dict[str, Any]) -> str:
    """The history entry of one tool call: its name and the arguments given, each cut to its bound."""
    shown: dict[str, Any] = {}
    for key, value in args.items():
        if value in (None, False, "", 0) and key != "orders":
            continue
        if key == "orders":
            value = _cut_orders(value)
        elif isinstance(value, str):
            value = cut(value, ARG_LIMITS.get(key, CALL_OTHER_CHARS))
        shown[key] = value
    text = json.dumps(shown, ensure_ascii=False, default=str)
    bound = CALL_ORDERS_CHARS + sum(ARG_LIMITS.values()) + CALL_OTHER_CHARS
    return f"{tool} {cut(text, bound)}"


def reply_size(text: str) -> tuple[int, int]:
    """(characters, estimated tokens) of a reply; about four characters make a token."""
    return len(text), (len(text) + 3) // 4


# =============================================================================================================
# The digest
# =============================================================================================================


@dataclass(slots=True)
class SeatFacts:
    """What the digest's head shows, gathered by the session from the seat's own view and notes."""

    name: str
    month: int  # the open month (or the final one)
    last_month: int
    start: int
    finished: bool
    goal: str | None = None
    goal_month: int | None = None
    standing: list[str] = field(default_factory=list)  # "#5 levy: attack unit=5 to=3,4"


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _codes(counter: Counter[str]) -> str:
    return ", ".join(f"{code} x{n}" if n > 1 else code for code, n in counter.most_common(4))


class _Pages:
    """Lines added while the budget lasts."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.lines: list[str] = []
        self.used = 0

    def fits(self, lines: Iterable[str], reserve: int = 0) -> bool:
        need = sum(len(x) + 1 for x in lines)
        return self.used + need + reserve <= self.budget

    def add(self, *lines: str) -> None:
        for line in lines:
            self.lines.append(line)
            self.used += len(line) + 1

    def text(self) -> str:
        return "\n".join(self.lines)


class _Ledger:
    """The seat's stored orders, notes and month ends, read once and looked up by month."""

    def __init__(self, game: Game, kingdom: str) -> None:
        self.game = game
        self.kingdom = kingdom
        self.orders: dict[int, list[dict[str, Any]]] = {}
        for o in game.store.all_orders(kingdom):
            self.orders.setdefault(int(o["month"]), []).append(o)
        self.notes: dict[int, list[dict[str, Any]]] = {}
        self.all_notes = game.store.notes(kingdom)
        for n in self.all_notes:
            self.notes.setdefault(int(n["month"]), []).append(n)
        self.ended = game.store.ended_by(kingdom)

    def month_lines(self, m: int, open_month: int, finished: bool) -> list[str]:
        """One to three lines for month `m`: orders and how it ended, what was carried out, notes, key events."""
        given = self.orders.get(m, [])
        refused = Counter(o["code"] or "refused" for o in given if not o["accepted"])
        parts = []
        if given:
            parts.append(f"{len(given)} order{'s' if len(given) != 1 else ''} given"
                         + (f", {sum(refused.values())} refused ({_codes(refused)})" if refused else ""))
        else:
            parts.append("no orders")
        resolved = m < open_month or finished
        how = self.ended.get(m)
        if how:
            parts.append(_ENDED.get(how, f"ended ({how})"))
        elif not resolved:
            parts.append("open now")
        if resolved:
            outcomes = self.game.store.outcomes(m, self.kingdom)
            mine = [o for o in outcomes if o["position"]]  # the orders given; standing ones are counted apart
            standing = [o for o in outcomes if not o["position"]]
            if mine or standing:
                failed = Counter(o["code"] or "failed" for o in mine if not o["ok"])
                ended = sum(1 for o in standing if not o["ok"])
                parts.append(order_counts(len(mine) - sum(failed.values()), sum(failed.values()),
                                          len(standing) - ended, ended, _codes(failed)))
        lines = [f"M{m}: " + "; ".join(parts) + "."]
        said = []
        for n in self.notes.get(m, []):
            label = {"note": "note", "goal": "goal set", "final": "final report"}.get(n["kind"], "report")
            said.append(f"{label}: {_one_line(n['text'], 160)}")
        if said:
            lines.append("  " + _one_line(" | ".join(said), 320))
        if resolved:
            events = self.game.events_seen_by(self.kingdom, m)
            key = [e for e in events if e["kind"] in BATTLE_KINDS]
            key += [e for e in events if e["kind"] not in BATTLE_KINDS and e["kind"] not in ROUTINE_KINDS]
            if key:
                shown = " | ".join(_one_line(e["text"], 110) for e in key[:2])
                more = f" (+{len(key) - 2} more: month={m})" if len(key) > 2 else ""
                lines.append(f"  seen: {shown}{more}")
        return lines


def digest(game: Game, kingdom: str, facts: SeatFacts, *, before: int | None = None,
           budget: int = HISTORY_BUDGET) -> str:
    """get_history: the head (goal, last notes, standing orders, this month's queue), then one to three lines a
    month, newest first, while `budget` characters last; `before` starts the months below that month."""
    ledger = _Ledger(game, kingdom)
    out = _Pages(budget)
    state_word = "the game is over" if facts.finished else f"month {facts.month} of {facts.last_month} is open"
    if before is None:
        out.add(f"HISTORY of {facts.name}: {state_word}. A digest, newest month first, within {budget:,} "
                "characters: get_history before=N pages back to the months before N, month=N shows one month in "
                "full (the game's texts and your calls).")
        out.add(f"GOAL (set M{facts.goal_month}): {_one_line(facts.goal, 400)}" if facts.goal else "GOAL: none set.")
        notes = [n for n in ledger.all_notes if n["kind"] == "note"][-3:]
        if notes:
            out.add("LAST NOTES: " + " | ".join(f"M{n['month']}: {_one_line(n['text'], 200)}"
                                                for n in reversed(notes)))
        reports = [n for n in ledger.all_notes if n["kind"] in ("dispatch", "final")]
        if reports:
            out.add(f"LAST REPORT (M{reports[-1]['month']}): {_one_line(reports[-1]['text'], 300)}")
        if facts.standing:
            shown = facts.standing[:12]
            out.add(f"STANDING ORDERS ({len(facts.standing)}): " + "; ".join(shown)
                    + (f"; +{len(facts.standing) - 12} more (get_briefing)" if len(facts.standing) > 12 else ""))
        else:
            out.add("STANDING ORDERS: none.")
        queued = [o for o in ledger.orders.get(facts.month, []) if o["accepted"]]
        if queued and not facts.finished:
            out.add(f"QUEUED FOR MONTH {facts.month} ({len(queued)}): "
                    + _one_line("; ".join(o["raw"] for o in queued), 600))
        first = facts.month
    else:
        first = min(facts.month, before - 1)
        out.add(f"HISTORY of {facts.name}, months before M{before}, newest first ({state_word}); within "
                f"{budget:,} characters.")
    out.add("--- month by month ---")
    m = first
    footer_room = 160
    while m >= facts.start:
        lines = ledger.month_lines(m, facts.month, facts.finished)
        if not out.fits(lines, footer_room):
            break
        out.add(*lines)
        m -= 1
    if m >= facts.start:
        out.add(f"Older: months M{facts.start}-M{m} not shown; get_history before={m + 1} goes on from there.")
    else:
        out.add(f"That is every month since M{facts.start}.")
    return out.text()


def month_in_full(game: Game, kingdom: str, facts: SeatFacts, month: int, *, budget: int = HISTORY_BUDGET) -> str:
    """get_history month=N: that month's line of the digest, then every call and answer of the month in order;
    the game's latest texts in full while the budget lasts, earlier ones as their first line."""
    ledger = _Ledger(game, kingdom)
    rows = game.store.history_of_month(kingdom, month)
    head = [f"HISTORY of {facts.name}, month {month} in full: {len(rows)} entries, oldest first.",
            *ledger.month_lines(month, facts.month, facts.finished)]
    if month < facts.month or facts.finished:
        events = game.events_seen_by(kingdom, month)
        if events:
            head.append(f"  everything seen in M{month} ({len(events)}):")
            room = budget // 3  # the events take at most a third of the answer
            for n, e in enumerate(events):
                line = f"    {_one_line(e['text'], 240)}"
                if len(line) + 1 > room:
                    head.append(f"    ... {len(events) - n} more")
                    break
                head.append(line)
                room -= len(line) + 1
    entries: list[tuple[str, str]] = []  # (kind, text) in order
    for row in rows:
        stamp = time.strftime("%H:%M:%S", time.gmtime(float(row["at"])))
        kind, text = row["kind"], row["text"] or ""
        if kind == "call":
            entries.append(("you", f"--- {stamp} you: {cut(text, 1_500)}"))
        elif kind in ("briefing", "reply"):
            label = "briefing" if kind == "briefing" else "reply"
            first_line = text.strip().splitlines()[0][:120] if text.strip() else ""
            entries.append(("game", f"--- {stamp} game, {label}:\n{text}"))
            entries.append(("short", f"--- {stamp} game, {label} ({len(text):,} chars, omitted): {first_line}"))
        else:
            entries.append(("you", f"--- {stamp} {kind}: {cut(text, ERROR_CHARS)}"))
    # Choose, newest first, which of the game's texts fit in full.
    fixed = sum(len(x) + 1 for x in head) + 200
    fixed += sum(len(t) + 1 for k, t in entries if k == "you")
    fixed += sum(len(t) + 1 for k, t in entries if k == "short")
    full: set[int] = set()
    spare = budget - fixed
    for i in range(len(entries) - 1, -1, -1):
        kind, text = entries[i]
        if kind == "game":
            extra = len(text) - len(entries[i + 1][1])
            if extra <= spare:
                full.add(i)
                spare -= extra
    out = _Pages(budget)
    out.add(*head)
    skipped = 0
    for i, (kind, text) in enumerate(entries):
        if kind == "game" and i not in full:
            continue
        if kind == "short" and i - 1 in full:
            continue
        if not out.fits([text], 120):
            skipped += 1
            continue
        out.add(text)
    if skipped:
        out.add(f"... {skipped} more entries of M{month} left out to stay within {budget:,} characters.")
    return out.text()
