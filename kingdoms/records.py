"""The exports of a finished game (TOOLS-490): the full replay of the map month by month, public once the game
is over, and each seat's own record of what it was told and what it did."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from kingdoms.game import Game, captures_of


def _write_json(path: Path, data: Any) -> None:
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    tmp.replace(path)


def write_replay(game: Game) -> Path:
    """Every month's whole map (ownership, cities, units, camps, wars, captures) and its public and private
    events, next to the game file: public once the game is over."""
    path = game.store.path.with_suffix(".replay.json")
    if path.exists() and game.finished:  # a finished game never changes: one replay serves every seat
        return path.resolve()
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
    _write_json(path, data)
    return path.resolve()


def write_record(game: Game, kingdom: str, replay: Path) -> Path:
    """The seat's own record: each month's briefings, calls and replies, orders with verdicts, notes, goals,
    dispatches, the seconds it took to end the month and, for a model seat, each call's usage and cost."""
    store = game.store
    path = store.path.with_suffix(f".{kingdom}.record.json")
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
        "place": kd.place, "end_reason": final.end_reason, "final_month": final.month, "replay": str(replay),
        "usage_totals": store.usage_totals().get(kingdom),
        "months": [months[m] for m in sorted(months)],
    }
    _write_json(path, data)
    return path.resolve()
