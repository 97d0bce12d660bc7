"""Garbage-collector settings for processes that play months (CLI commands, bench parts, tournament workers).

A month allocates tens of thousands of short-lived containers (state copies, frames, view rows) that reference
counting frees; with CPython's default generation-0 threshold of 700 the cycle collector still ran ~110 times
in a 67-month default game and a full collection walked every imported module's objects (~4 % of the game).
Freezing what start-up built and collecting every 50,000 net allocations keeps cycles bounded (peak memory
was unchanged in the bench games) at a small fraction of that cost. Nothing here changes what a game does.
"""

from __future__ import annotations

import gc

#: Net container allocations between young collections, and how many of each generation trigger the next.
THRESHOLDS = (50_000, 20, 20)
#: CPython's own defaults, restored where a figure must not depend on this module (bench calibration).
DEFAULTS = (700, 10, 10)


def tune_collector() -> None:
    """Freeze the objects built so far (imports, tables: full collections skip them) and raise the thresholds.

    Calling it again freezes what was built since, which is harmless."""
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
