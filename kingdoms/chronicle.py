"""The war chronicle of a game: rulers' notes and dispatches, battles, wars, captures and the end, month by month."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kingdoms.game import Game

#: Event kinds that make the chronicle (routine economy and logistics events are left out).
CHRONICLE_KINDS = frozenset({"war", "city_founded", "city_captured", "city_to_bandits", "city_returned",
                             "city_settled", "kingdom_eliminated", "lead_started", "lead_cancelled", "game_end",
                             "military_building", "general_defected", "pillage", "blockade", "camp_burned",
                             "camp_seized", "sabotage"})


def write_chronicle(game: Game, path: Path) -> Path:
    """Write the chronicle as Markdown next to the game file and return its path."""
    state = game.state()
    names = {k: kd.name for k, kd in state.kingdoms.items()}
    by_month: dict[int, list[str]] = defaultdict(list)
    for note in game.store.notes():
        if note["kind"] in ("note", "dispatch", "final"):
            who = names.get(note["kingdom"], note["kingdom"])
            by_month[note["month"]].append(f"- *{who}*: {note['text']}")
    for ev in game.store.events():
        if ev["kind"] in CHRONICLE_KINDS:
            by_month[ev["month"]].append(f"- {ev['text']}")
    for kingdom, name in names.items():  # battles, as each attacker's order results tell them
        for month, text in game.store.battles(kingdom):
            by_month[month].append(f"- *{name}* {text}")
    lines = [f"# Chronicle of {game.meta.get('scenario')} (seed {game.meta.get('seed')})", ""]
    lines.append("Kingdoms: " + "; ".join(f"{kd.name} under {kd.ruler}" for kd in state.kingdoms.values()) + ".")
    lines.append("")
    for month in sorted(by_month):
        lines.append(f"## Month {month}")
        lines.extend(dict.fromkeys(by_month[month]))
        lines.append("")
    if state.finished:
        lines.append(f"## The end (month {state.month})")
        for kd in state.kingdoms.values():
            lines.append(f"- {kd.name}: {kd.result or '-'} (place {kd.place or '-'})")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
