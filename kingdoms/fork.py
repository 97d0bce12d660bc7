"""`kingdoms fork`: a new game file that shares a game's first N months and plays on from month N with new seats.

The fork holds months 1..N exactly as stored in the original (states and hashes), the orders, results, events,
notes and month ends of months 1..N-1 (so `kingdoms replay --verify` replays it like the original and the
viewer and chronicle tell its history), the original's set-up in its meta, and month N open with new seats and
tokens and nothing queued. With a new seed the months from N on roll their dice from it (meta `reseed`, applied
by the game service when it resolves or replays month N); months 1..N keep their hashes either way.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kingdoms.game import Game, GameError

#: Meta of the original a fork keeps as it is besides its scenario label and deadline (how the game was set up).
KEPT_META = ("setup",)


@dataclass(slots=True)
class Forked:
    """The fork: its game (open), its seats' tokens, its spectator token and the month it opens at."""

    game: Game
    tokens: dict[str, str]
    spectator: str
    month: int


def fork_game(source: Game, month: int, out: Path, controllers: dict[str, str], *, seed: int | None = None) -> Forked:
    """Write the fork of `source` at `month` to `out`; returns it with its new tokens."""
    keys = sorted(source.store.month_hashes())
    if month not in keys:
        raise GameError(f"month {month} is not in {source.store.path}: it holds months {keys[0]} to {keys[-1]}")
    at = source.state(month)
    if at.finished:
        raise GameError(f"the game is already over at month {month}: fork at month {keys[-1] - 1} or earlier")
    first = keys[0]
    hashes = source.store.month_hashes()
    extra: dict[str, Any] = {k: source.meta[k] for k in KEPT_META if k in source.meta}
    extra["forked_from"] = {"game": str(source.store.path), "month": month, "hash": hashes[month]}
    if seed is not None:
        extra["reseed"] = {"month": month, "seed": int(seed)}
    start = source.state(first)
    game, tokens = Game.create(out, start, scenario=str(source.meta.get("scenario") or ""), controllers=controllers,
                               deadline_s=float(source.meta.get("deadline_s", 600.0)), extra_meta=extra)
    try:
        _copy_history(source, game, first, month)
    except BaseException:
        game.close()
        out.unlink(missing_ok=True)
        raise
    spectator = game.new_spectator_token()
    return Forked(game, tokens, spectator, month)


def _copy_history(source: Game, game: Game, first: int, month: int) -> None:
    """Months first+1..month with the results of first..month-1, and the orders, notes and month ends before
    `month`, copied through the store's own writes."""
    src, dst = source.store, game.store
    for m in range(first, month):
        data, digest = src.month_state(m + 1)
        outcomes = []
        for k in source.state(m).kingdoms:
            outcomes += [{key: row[key] for key in ("kingdom", "position", "text", "ok", "result", "code")}
                         for row in src.outcomes(m, k)]
        events = [{"kind": e["kind"], "text": e["text"], "audience": e["audience"], "data": e["data"]}
                  for e in src.events(m)]
        if not dst.commit_resolution(m, data, digest, events, outcomes):
            raise GameError(f"month {m + 1} was already in {dst.path}")
    for kingdom in source.state(first).kingdoms:
        calls: dict[tuple[int, int], list[dict[str, Any]]] = defaultdict(list)
        for row in src.all_orders(kingdom):
            if int(row["month"]) < month:
                calls[(int(row["month"]), int(row["call"]))].append(
                    {key: row[key] for key in ("position", "raw", "parsed", "accepted", "code", "message")})
        for (m, _call), rows in sorted(calls.items()):
            dst.add_orders(m, kingdom, rows)
        for m, how in sorted(src.ended_by(kingdom).items()):
            if m < month:
                dst.mark_ended(m, kingdom, how, src.ended_at(m).get(kingdom, 0.0))
    for note in src.notes():
        if int(note["month"]) < month:
            dst.add_note(int(note["month"]), note["kingdom"], note["kind"], note["text"], float(note["at"]))
