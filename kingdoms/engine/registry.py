"""Where rules areas plug in: verbs (check at issue time, run at month end) and month-end phases.

Each area module registers itself on import; `load_areas` imports them all. The phase slots fix the
month's canonical order (OPEN-72); a slot may hold several functions, run in registration order.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from kingdoms.engine.context import MonthContext
from kingdoms.frozen import record

#: Area modules, imported by `load_areas`; each registers its verbs and phases.
AREA_MODULES: tuple[str, ...] = (
    "kingdoms.engine.diplomacy",
    "kingdoms.engine.generals",
    "kingdoms.engine.supply",
    "kingdoms.engine.cities",
    "kingdoms.engine.production_orders",
    "kingdoms.engine.disband",
    "kingdoms.engine.sieges",
    "kingdoms.engine.conquest",
    "kingdoms.engine.bandits",
    "kingdoms.engine.victory",
    "kingdoms.engine.intel",
    "kingdoms.engine.movement",
    "kingdoms.engine.attack",
)

#: Global month-end phase slots, after every kingdom's orders have run (OPEN-72).
PHASE_SLOTS: tuple[str, ...] = (
    "bandits",
    "towers",
    "production",
    "camps",
    "grain",
    "growth",
    "hunger",
    "blockade",
    "militia",
    "unrest",
    "spies",
    "wagons",
    "borders",
    "folding",
    "morale",
    "generals",
    "victory",
    "memory",
)

PhaseFn = Callable[[MonthContext], None]
CheckFn = Callable[[MonthContext, str, Any], None]  # raises OrderFailed
RunFn = Callable[[MonthContext, str, Any], str]  # returns a one-line result, raises OrderFailed
#: own unit ids an order must wait for (TURN-100), given the kingdom's units by tile when its slot began
WaitsFn = Callable[[MonthContext, str, Any, Mapping[tuple[int, int], list[int]]], set[int]]
#: carries out two orders that wait on each other together (a swap, TURN-110); None when it cannot
SwapFn = Callable[[MonthContext, str, Any, Any], "tuple[str, str] | None"]


@record
class VerbRule:
    """The rules of one verb: `check` at issue time (on a scratch board), `run` at month end.

    `standing` marks verbs whose unfinished orders carry over to next month (TURN-120). `waits` names the
    own units whose orders must run first (TURN-100); `swap` resolves two such orders waiting on each other.
    """

    verb: str
    check: CheckFn
    run: RunFn
    standing: bool = False
    waits: WaitsFn | None = None
    swap: SwapFn | None = None


VERBS: dict[str, VerbRule] = {}
PHASES: dict[str, list[PhaseFn]] = {slot: [] for slot in PHASE_SLOTS}
_loaded = False


def verb(name: str, *, check: CheckFn, standing: bool = False, waits: WaitsFn | None = None,
         swap: SwapFn | None = None) -> Callable[[RunFn], RunFn]:
    """Decorator registering `run` (and `check`) as the rules of verb `name`."""

    def deco(run: RunFn) -> RunFn:
        VERBS[name] = VerbRule(name, check, run, standing, waits, swap)
        return run

    return deco


def phase(slot: str) -> Callable[[PhaseFn], PhaseFn]:
    """Decorator registering a month-end phase function in `slot`."""
    if slot not in PHASES:
        raise KeyError(f"unknown phase slot {slot!r}; slots: {', '.join(PHASE_SLOTS)}")

    def deco(fn: PhaseFn) -> PhaseFn:
        if fn not in PHASES[slot]:
            PHASES[slot].append(fn)
        return fn

    return deco


def load_areas() -> None:
    """Import every area module once so their verbs and phases are registered."""
    global _loaded
    if _loaded:
        return
    for name in AREA_MODULES:
        importlib.import_module(name)
    _loaded = True
