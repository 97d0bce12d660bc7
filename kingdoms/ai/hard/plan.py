"""What the hard ruler's planners hand the arbiter: proposals, as plain data.

A planner is a function (observation, analysis, and the plans it is given) -> `Proposals`. It never writes
order text and never changes what another planner sees: the arbiter (hard.arbiter) settles the proposals of
all planners, one task per unit, the production each city can pay for and the upkeep the kingdom can carry,
and writes the month's orders.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kingdoms.frozen import record
from kingdoms.orders.models import OrderModel


@record
class Task:
    """Orders for one unit (in the order they run), with the planner's priority (higher first) and why."""

    unit_id: int
    orders: tuple[OrderModel, ...]
    priority: float
    why: str = ""


@record
class Build:
    """A city should build `item` (a troop: `men` men; an improvement: on `tile`), at `priority` (higher first).

    `urgent` puts it at the head of the queue even over work in progress (a garrison against a threat).
    """

    city_id: int
    item: str
    priority: float
    men: int | None = None
    tile: tuple[int, int] | None = None
    urgent: bool = False
    why: str = ""


@dataclass(slots=True)
class Proposals:
    """One planner's month: unit tasks, builds, kingdom orders (declarations), notes for the chronicle."""

    tasks: list[Task] = field(default_factory=list)
    builds: list[Build] = field(default_factory=list)
    kingdom: list[OrderModel] = field(default_factory=list)  # declare_war, set_focus, sabotage... in order
    notes: list[str] = field(default_factory=list)

    def extend(self, other: Proposals) -> None:
        """Add another planner's proposals to these."""
        self.tasks += other.tasks
        self.builds += other.builds
        self.kingdom += other.kingdom
        self.notes += other.notes
