"""The exports of a finished game (TOOLS-490): the full replay of the map month by month, public once the game
is over, and each seat's own record of what it was told and what it did.

Both are JSON texts a seat reads over MCP (the resources kingdoms://replay and kingdoms://record/KINGDOM);
copies are written next to the game file for its operator, readable by the owner only (they hold every
seat's briefings)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from kingdoms.accounting import seat_account
from kingdoms.game import Game, captures_of

REPLAY_URI = "kingdoms://replay"
RECORD_URI = "kingdoms://record/{kingdom}"


def to_json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _write_private(path: Path, text: str) -> None:
    """Write a file readable and writable by its owner only (0600), atomically."""
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.chmod(tmp, 0o600)  # in case the file was left by an earlier run with wider bits
    tmp.replace(path)


def replay_path(game: Game) -> Path:
    return game.store.path.with_suffix(".replay.json")


def replay_text(game: Game) -> str:
    """The replay as JSON text; a finished game's is written once and read back from its file after that."""
    path = replay_path(game)
    if game.finished and path.exists():  # a finished game never changes: one replay serves every seat
        return path.read_text(encoding="utf-8")
    text = to_json(replay_data(game))
    if game.finished:
        _write_private(path, text)
    return text


def write_replay(game: Game) -> Path:
    """The replay's file next to the game file."""
    path = replay_path(game)
    text = replay_text(game)
    if not game.finished:
        _write_private(path, text)
    return path.resolve()


def replay_data(game: Game) -> dict[str, Any]:
    """Every month's whole map (ownership, cities, units, camps, wars, captures) and its public and private
    events: public once the game is over."""
    hashes = game.store.month_hashes()
    months = []
    for m in sorted(hashes):
        s = game.state(m)
        months.append({
            "month": m, "hash": hashes[m], "owner": s.owner.tolist(),
            "cities": [{"id": c.id, "name": c.name, "owner": c.owner, "founder": c.founder, "q": c.q, "r": c.r,
                        "people": c.people, "walls": round(c.walls, 1), "capital": c.is_capital, "ruin": c.is_ruin,
                        "restless": c.restless, "buildings": list(c.buildings)}
                       for c in sorted(s.cities.values(), key=lambda c: c.id)],
            "units": [{"id": u.id, "owner": u.owner, "type": u.type, "q": u.q, "r": u.r, "men": u.men,
                       "general": u.general_id} for u in sorted(s.units.values(), key=lambda u: u.id)],
            "camps": [{"id": c.id, "owner": c.owner, "q": c.q, "r": c.r, "grain": round(c.grain, 1)}
                      for c in s.camps.values()],
            "wars": s.wars, "captures": captures_of(s), "lead": s.lead,
            "events": [{"kind": e["kind"], "text": e["text"], "audience": e["audience"]}
                       for e in game.store.events(m)],
        })
    final = game.state()
    data = {
        "game": game.store.path.name, "scenario": game.meta.get("scenario"), "seed": game.meta.get("seed"),
        "rules_version": game.meta.get("rules_version"), "map": game.meta.get("map"),
        "kingdoms": [{"id": k, "name": kd.name, "ruler": kd.ruler, "result": kd.result, "place": kd.place}
                     for k, kd in final.kingdoms.items()],
        "end_reason": final.end_reason, "months": months,
    }
    return data


def write_record(game: Game, kingdom: str) -> Path:
    """The seat's record's file next to the game file."""
    path = game.store.path.with_suffix(f".{kingdom}.record.json")
    _write_private(path, to_json(record_data(game, kingdom)))
    return path.resolve()


def record_data(game: Game, kingdom: str) -> dict[str, Any]:
    """The seat's own record: each month's briefings, calls and replies, orders with verdicts, notes, goals,
    dispatches, the seconds it took to end the month and, for a model seat, each call's usage and cost."""
    store = game.store
    final = game.state()
    kd = final.kingdoms[kingdom]
    months: dict[int, dict[str, Any]] = {}

    def month(m: int) -> dict[str, Any]:
        return months.setdefault(m, {"month": m, "briefings": [], "calls": [], "replies": [], "orders": [],
                                     "notes": [], "goals": [], "dispatches": [], "seconds": None,
                                     "usage": []})

    for h in store.history(kingdom):
        slot = {"briefing": "briefings", "call": "calls", "reply": "replies"}.get(h["kind"], "replies")
        month(int(h["month"]))[slot].append({"at": h["at"], "text": h["text"]})
    for o in store.all_orders(kingdom):
        month(int(o["month"]))["orders"].append({"call": o["call"], "position": o["position"], "order": o["raw"],
                                                  "accepted": bool(o["accepted"]), "code": o["code"] or None,
                                                  "message": o["message"]})
    for n in store.notes(kingdom):
        slot = {"note": "notes", "goal": "goals"}.get(n["kind"], "dispatches")
        month(int(n["month"]))[slot].append({"kind": n["kind"], "text": n["text"], "at": n["at"]})
    for u in store.usage(kingdom):  # what a model seat's calls cost (kingdoms.modelseat)
        month(int(u["month"]))["usage"].append({k: v for k, v in u.items() if k not in ("id", "month", "kingdom")})
    hashes = store.month_hashes()
    opened = float(game.meta.get("created_at", 0.0))
    for m in sorted(hashes):
        ends = store.ended_at(m)
        if kingdom in ends and opened:
            month(m)["seconds"] = round(ends[kingdom] - opened, 1)
        if ends:
            opened = max(ends.values())
    data = {
        "game": store.path.name, "kingdom": kingdom, "name": kd.name, "ruler": kd.ruler, "result": kd.result,
        "place": kd.place, "end_reason": final.end_reason, "final_month": final.month, "replay": REPLAY_URI,
        "usage_totals": store.usage_totals().get(kingdom),
        "accounting": seat_account(store, kingdom),
        "months": [months[m] for m in sorted(months)],
    }
    return data
