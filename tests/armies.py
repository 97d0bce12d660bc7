"""Hand-built worlds for the armies tests (pathing, movement, combat): open ground, two kingdoms, no cities."""

from __future__ import annotations

from kingdoms.engine.context import MonthContext
from kingdoms.engine.month import run_order
from kingdoms.engine.registry import load_areas
from kingdoms.gamemap import GameMap
from kingdoms.state import GameState, Kingdom, Unit


def kingdom(kid: str, name: str) -> Kingdom:
    return Kingdom(kid, name, f"{name} ruler", (0, 0), [f"{name} {i}" for i in range(1, 31)],
                   [f"{name} general {i}" for i in range(1, 13)])


def rows_with(width: int, height: int, marks: dict[tuple[int, int], str], fill: str = "G") -> list[str]:
    """Rows of `fill` with the letters of `marks` placed on axial tiles (q, r) (odd-r layout); off-map marks skipped."""
    grid = [[fill] * width for _ in range(height)]
    for (q, r), letter in marks.items():
        c = q + (r - (r & 1)) // 2
        if 0 <= r < height and 0 <= c < width:
            grid[r][c] = letter
    return ["".join(row) for row in grid]


def corridor(row: int = 4) -> dict[tuple[int, int], str]:
    """Marks walling in row `row` with mountains above and below: a lane along it."""
    return {(q, r): "M" for r in (row - 1, row + 1) for q in range(-10, 20)}


def world(marks: dict[tuple[int, int], str] | None = None, *, width: int = 12, height: int = 10, war: bool = True,
          fill: str = "G", bridges: list[tuple[int, int]] | None = None) -> GameState:
    """Wei and Shu (at war unless `war` is False) on `fill` ground with `marks`; no cities, no units."""
    load_areas()
    gm = GameMap.from_rows(rows_with(width, height, marks or {}, fill), bridges)
    kingdoms = {"wei": kingdom("wei", "Wei"), "shu": kingdom("shu", "Shu")}
    return GameState(seed=5, month=5, kingdoms=kingdoms, map=gm, rotation=["wei", "shu"],
                     wars=[["shu", "wei"]] if war else [])


def add(state: GameState, owner: str, kind: str, tile: tuple[int, int], men: int = 0, **kw: object) -> Unit:
    """Put a unit on the board (4 months of rations for a fighting troop unless given)."""
    if "rations" not in kw and men:
        kw["rations"] = men / 1000 * 4
    unit = Unit(state.new_id(), owner, kind, tile[0], tile[1], men=men, **kw)  # type: ignore[arg-type]
    state.units[unit.id] = unit
    return unit


def ctx_for(state: GameState, *, scratch: bool = False) -> MonthContext:
    return MonthContext(state, scratch=scratch)


def order(ctx: MonthContext, kingdom_id: str, o: object) -> str:
    """Run one order now, as the month runner does (check, then run)."""
    from kingdoms.engine.registry import VERBS

    VERBS[o.action].check(ctx, kingdom_id, o)  # type: ignore[attr-defined]
    return run_order(ctx, kingdom_id, o)
