"""Watching and retelling a game: the HTML replay page, the chronicle and the live /watch page (issue 20).

Layers: `source` reads a game file and makes each audience's `Record` from observations (the spectator's only
once the game is over); `frames` holds the view models; `chronicle` and `moments` write the history from a
record; `page` packs records into one self-contained HTML page; `watch` serves it live over HTTP.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kingdoms.viewer.chronicle import History, write_history
from kingdoms.viewer.page import render_page, write_page
from kingdoms.viewer.source import SpectatorRefused, build_record, build_records, preview_record

if TYPE_CHECKING:
    from kingdoms.game import Game


@dataclass(slots=True)
class Written:
    """A file the viewer wrote: its path, its size in bytes, the seconds it took, and words for a chronicle."""

    path: Path
    size: int
    seconds: float
    words: int = 0


def write_view(game: Game, out: Path, kingdom: str | None = None) -> Written:
    """`kingdoms view`: the replay page of a game. Without `kingdom` the spectator's view and every kingdom's
    (a finished game only: SpectatorRefused before the end); with it that kingdom's view alone."""
    started = time.perf_counter()
    audiences: list[str | None] = [kingdom] if kingdom else [None, *game.state().kingdoms]
    records = build_records(game, audiences)
    size = write_page(records, out)
    return Written(out, size, time.perf_counter() - started)


def write_chronicle(game: Game, out: Path, kingdom: str | None = None) -> Written:
    """A chronicle as Markdown: the spectator's (a finished game only) or one kingdom's."""
    started = time.perf_counter()
    history = write_history(build_record(game, kingdom))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(history.to_markdown(), encoding="utf-8")
    return Written(out, out.stat().st_size, time.perf_counter() - started, history.words())


__all__ = ["History", "SpectatorRefused", "Written", "build_record", "build_records", "preview_record",
           "render_page", "write_chronicle", "write_history", "write_page", "write_view"]
