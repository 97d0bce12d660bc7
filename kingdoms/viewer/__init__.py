"""Watching and retelling a game: the HTML replay page, the chronicle and the live /watch page (issue 20).

Layers: `source` reads a game file and makes each audience's `Record` from observations (the spectator's only
once the game is over); `frames` holds the view models; `chronicle` and `moments` write the history from a
record; `page` packs records into one self-contained HTML page; `watch` serves it live over HTTP.
"""

from __future__ import annotations

from kingdoms.viewer.chronicle import History, write_history
from kingdoms.viewer.page import render_page, write_page
from kingdoms.viewer.source import (
    SpectatorRefused,
    Written,
    build_record,
    build_records,
    preview_record,
    write_chronicle,
    write_view,
)

__all__ = ["History", "SpectatorRefused", "Written", "build_record", "build_records", "preview_record",
           "render_page", "write_chronicle", "write_history", "write_page", "write_view"]
