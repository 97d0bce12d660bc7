"""The chronicle file `kingdoms play` writes next to its game: the spectator's history (kingdoms.viewer.chronicle).

`kingdoms play` seats AI rulers only, so a game it stopped early (--months) is chronicled whole as well; a game
with agent seats gets the spectator's chronicle only once it is over (`kingdoms chronicle`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from kingdoms.viewer.source import write_chronicle as _write

if TYPE_CHECKING:
    from kingdoms.game import Game


def write_chronicle(game: Game, path: Path) -> Path:
    """Write the spectator's chronicle of `game` (played by AI rulers) as Markdown to `path` and return it."""
    return _write(game, path, None, live=not game.finished).path
