"""What the MCP server offers besides tools: the ruler's prompts, the rules, the map legend, and a finished
game's record and replay, so a remote client needs nothing but MCP.

Prompts `ruler` (prompts/system.md, the system prompt for a model ruler) and `goal_review`
(prompts/goal_review.md). Resources: kingdoms://rules (rules.md), kingdoms://legend (this game's map
legend), kingdoms://replay (the full replay, once the game is over) and kingdoms://record/{kingdom} (a seat's
own record, once the game is over, to that seat only).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError

from kingdoms import ruledata as rd
from kingdoms.records import RECORD_URI, REPLAY_URI
from kingdoms.session import Session, SessionError

ROOT = Path(__file__).resolve().parent.parent
PROMPTS = ROOT / "prompts"
MAP_TEMPLATE = ROOT / "briefing_templates" / "map.j2"
RULES_URI = "kingdoms://rules"
LEGEND_URI = "kingdoms://legend"

NOT_YOURS = "A seat reads only its own record: ask for {mine}, the one get_game_record names."


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise ResourceError(f"{path.name} is missing on this server ({exc.strerror or exc}).") from exc


def map_key() -> str:
    """get_map's own description of its tiles and markers (from its template, so the two never drift apart)."""
    try:
        lines = [x for x in MAP_TEMPLATE.read_text(encoding="utf-8").splitlines()[1:5] if x.strip()]
    except OSError:
        return ""
    return "\n".join(re.sub(r"\{%.*?%\}.*?\{%.*?%\}|\{\{.*?\}\}|\{%.*?%\}", "", line).rstrip(", ") for line in lines)


def legend_text(session: Session) -> str:
    """This game's map legend: scenario, size, months, kingdoms, terrain letters with their numbers, markers."""
    with session.lock:
        game = session.game
        state = game.state()
        seats = game.seats()
        scenario = game.meta.get("scenario") or "unnamed"
        width, height = game.map.width, game.map.height
        start = int(game.meta.get("start_month", 1))
    lines = [f"MAP LEGEND — scenario {scenario}: {width} x {height} tiles, months {start} to {state.last_month}.",
             "Kingdoms: " + "; ".join(f"{s['name']} (ruler {s['ruler']})" for s in seats) + ".",
             "Tiles are pointy-top hexes with axial coordinates (q, r); r grows downward. A tile is written q,r "
             "(e.g. 9,4).",
             "", "TERRAIN (letter: food, production, move cost, defence bonus)"]
    for t in rd.TERRAINS:
        move = "impassable" if t.move is None else f"move {t.move}"
        lines.append(f"  {t.letter} {t.name}: food {t.food}, production {t.prod}, {move}, defence "
                     f"+{round(t.defence * 100)}%")
    lines.append(f"  A lower-case letter is the same terrain with a river: +{rd.RIVER_FOOD_BONUS} food; troops hop "
                 "across an unbridged river and never stop on it.")
    key = map_key()
    if key:
        lines += ["", "get_map:", key, "A rival kingdom's cities show a letter of its name; get_map's Markers line "
                  "names each."]
    return "\n".join(lines)


def add_prompts_and_resources(server: MCPServer, session: Session, kingdom_of: Callable[[Context], str | None],
                              launch_kingdom: str | None = None) -> None:
    """Register the prompts and resources on `server`. `kingdom_of(ctx)` is the caller's seat (None: no seat);
    `launch_kingdom` (stdio) also lists that seat's own record as a resource."""

    @server.prompt(name="ruler", title="Ruler of a Kingdoms kingdom", description=(
        "The system prompt for a model that rules one kingdom: the aim (captures), the monthly loop of tools, "
        "the order syntax, a first-month checklist and key numbers. Use it as the system prompt."))
    def ruler() -> str:
        return _read(PROMPTS / "system.md")

    @server.prompt(name="goal_review", title="Goal review", description=(
        "The short prompt a ruler gets when its long-term goal is due for review (every 20 months, or when it "
        "has none): how to restate it in issue_orders' goal."))
    def goal_review() -> str:
        return _read(PROMPTS / "goal_review.md")

    @server.resource(RULES_URI, name="rules", title="Rules of play", mime_type="text/markdown", description=(
        "The complete rules this server plays by (the text get_rules returns)."))
    def rules() -> str:
        return _read(ROOT / "rules.md")

    @server.resource(LEGEND_URI, name="legend", title="Map legend", mime_type="text/plain", description=(
        "This game's map legend: scenario, map size, months, kingdoms and rulers, terrain letters with their "
        "food, production, move cost and defence, and get_map's markers."))
    def legend() -> str:
        return legend_text(session)

    @server.resource(REPLAY_URI, name="replay", title="Full replay", mime_type="application/json", description=(
        "The whole game month by month (every tile's owner, cities, units, camps, wars, captures, every event). "
        "Readable once the game is over."))
    def replay() -> str:
        try:
            return session.replay_text()
        except SessionError as exc:
            raise ResourceError(str(exc)) from exc

    def own_record(kingdom: str, caller: str | None) -> str:
        if caller is None:
            raise ResourceError("No seat: only a seated ruler reads a record (see get_briefing's refusal for how "
                                "to give the seat token).")
        if caller != kingdom:
            raise ResourceError(NOT_YOURS.format(mine=RECORD_URI.format(kingdom=caller)))
        try:
            return session.record_text(kingdom)
        except SessionError as exc:
            raise ResourceError(str(exc)) from exc

    @server.resource(RECORD_URI, name="record", title="Your game record", mime_type="application/json",
                     description=("Your own record of a finished game: each month's briefings, your calls and the "
                                  "replies, orders with verdicts, notes, goals, reports and the time you took. "
                                  "Only your own kingdom's id works."))
    def record(kingdom: str, ctx: Context) -> str:
        return own_record(kingdom, kingdom_of(ctx))

    if launch_kingdom is not None:
        @server.resource(RECORD_URI.format(kingdom=launch_kingdom), name="your_record", title="Your game record",
                         mime_type="application/json", description=(
                             "Your own record of this game (JSON), readable once the game is over."))
        def launch_record() -> str:
            return own_record(launch_kingdom, launch_kingdom)
