"""The chronicle file `kingdoms play` writes next to its game: the spectator's history (kingdoms.viewer.chronicle).

`kingdoms play` seats AI rulers only, so a game it stopped early (--months) is chronicled whole as well; a game
with agent seats gets the spectator's chronicle only once it is over (`kingdoms chronicle`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from kingdoms.viewer.chronicle import write_history
from kingdoms.viewer.source import build_record

if TYPE_CHECKING:
    from kingdoms.game import Game


def write_chronicle(game: Game, path: Path) -> Path:
    """Write the spectator's chronicle of `game` (played by AI rulers) as Markdown to `path` and return it."""
    history = write_history(build_record(game, None, live=not game.finished))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(history.to_markdown(), encoding="utf-8")
    return path
