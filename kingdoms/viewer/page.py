"""The replay page: records turned into compact JSON and one self-contained HTML file (no network, no CDN).

`page_data(records)` packs one or more audiences' records (the spectator first, then kingdoms) into short-keyed
JSON: the map once, land and fog as a run-length first frame plus per-month changes, cities, troops and camps
as small arrays, the public tally, the known figures, the month's reports, the chronicle and the key moments.
`render_page` puts it with the script and styles (kingdoms/viewer/templates) into one HTML text. Every value
comes from a Record, so a kingdom's page holds nothing its observations did not.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

import jinja2
import numpy as np
from markupsafe import Markup

from kingdoms import ruledata as rd
from kingdoms.viewer.chronicle import History, write_history
from kingdoms.viewer.frames import Frame, Record
from kingdoms.viewer.moments import key_moments

TEMPLATES = Path(__file__).resolve().parent / "templates"

#: Colours of the kingdoms in seat order, then the bandits' grey.
PALETTE = ("#2e8b3e", "#2563b8", "#c62828", "#e08a00", "#7b3fa0", "#0f8f9a")
BANDIT_COLOUR = "#5b5b5b"
UNIT_TYPES = tuple(rd.UNITS)
SIZES = ("small", "medium", "large", "huge")
TIERS = tuple(name for _, name in reversed(rd.SIZE_TIERS))

#: Event kinds shown among a month's reports, each with its class (its colour in the page).
REPORT_KINDS = {
    "war": "war", "city_captured": "capture", "city_taken": "capture", "city_lost": "capture",
    "city_to_bandits": "capture", "city_returned": "capture", "city_settled": "capture",
    "kingdom_eliminated": "end", "game_end": "end", "lead_started": "lead", "lead_cancelled": "lead",
    "city_founded": "found", "military_building": "build", "field": "battle", "city_attacked": "battle",
    "towers": "battle", "blockade": "battle", "pillage": "battle", "sabotage": "battle", "camp_seized": "battle",
    "camp_burned": "battle", "wagon_captured": "battle", "general_defected": "general", "general_lost": "general",
    "desertion": "battle", "troop_starved": "battle", "spy_caught": "other", "spy_unmasked": "other",
}


def _rle(values: np.ndarray) -> list[int]:
    """[value, run, value, run, ...] of a whole array."""
    out: list[int] = []
    if values.size == 0:
        return out
    flat = values.astype(int).tolist()
    cur, run = flat[0], 0
    for v in flat:
        if v == cur:
            run += 1
        else:
            out += [cur, run]
            cur, run = v, 1
    out += [cur, run]
    return out


def _series(arrays: list[np.ndarray]) -> list[list[int]]:
    """The first array run-length encoded, then each later one as [index, value, ...] changes."""
    if not arrays:
        return []
    out = [_rle(arrays[0])]
    for prev, cur in zip(arrays, arrays[1:], strict=False):
        idx = np.flatnonzero(prev != cur)
        pairs = np.empty(idx.size * 2, dtype=int)
        pairs[0::2], pairs[1::2] = idx, cur[idx]
        out.append(pairs.tolist())
    return out


class _Packer:
    """Packs one record's frames into arrays of small integers (indices into shared tables)."""

    def __init__(self, record: Record) -> None:
        self.r = record
        self.side = {s.id: n for n, s in enumerate(record.sides)}
        self.gm = record.map
        self.generals: list[str] = []
        self._gen: dict[str, int] = {}
        self.names: dict[int, str] = {}

    def general(self, name: str | None) -> int:
        """A general's index in the view's table of names (-1 for none)."""
        if not name:
            return -1
        if name not in self._gen:
            self._gen[name] = len(self.generals)
            self.generals.append(name)
        return self._gen[name]

    def frame(self, f: Frame) -> dict[str, Any]:
        """One frame as short arrays: cities, units, camps, the tally, wars and figures."""
        i = self.gm.index
        cities = []
        for c in f.cities:
            self.names[c.id] = c.name
            cities.append([c.id, self.side.get(c.side, -1), i(c.q, c.r), TIERS.index(c.size) if c.size in TIERS else 1,
                           -1 if c.people is None else c.people, -1 if c.walls is None else c.walls,
                           (1 if c.capital else 0) | (2 if c.ruin else 0),
                           SIZES.index(c.troops) if c.troops in SIZES else -1, c.seen or 0])
        units = [[u.id, self.side.get(u.side, -1), UNIT_TYPES.index(u.type), i(u.q, u.r), -1 if u.men is None else u.men,
                  SIZES.index(u.size) if u.size in SIZES else -1, self.general(u.general), u.seen or 0]
                 for u in f.units]
        camps = [[c.id, self.side.get(c.side, -1), i(c.q, c.r), c.seen or 0] for c in f.camps]
        kingdoms = self.r.kingdoms
        tally = [f.captures.get(k.id, 0) for k in kingdoms]
        lead_side, lead_months = f.lead
        elim = sum(1 << n for n, k in enumerate(kingdoms) if k.id in f.eliminated)
        figures = [None if k.id not in f.figures else
                   [f.figures[k.id].cities, f.figures[k.id].people, f.figures[k.id].men] for k in kingdoms]
        return {
            "c": cities, "u": units, "p": camps,
            "t": tally + [self.side.get(lead_side, -1) if lead_side else -1, lead_months,
                          self.side.get(f.ruin, -1) if f.ruin else -1, elim],
            "w": [[self.side.get(a, -1), self.side.get(b, -1)] for a, b in f.wars], "f": figures,
        }


def _view_name(record: Record) -> str:
    """The view's name in the page's selector."""
    if record.audience is None:
        return "Spectator (everything)"
    side = record.side(record.audience)
    return f"{side.name} ({side.ruler})"


def _reports(record: Record, frames: list[Frame]) -> list[list[list[str]]]:
    """Per frame: the reports of the month it closes, as [class, text]."""
    by_month: dict[int, list[list[str]]] = {}
    for e in record.events:
        cls = REPORT_KINDS.get(e.kind)
        if cls is not None:
            by_month.setdefault(e.month, []).append([cls, e.text])
    return [by_month.get(f.done, []) for f in frames]


def view_data(record: Record, history: History | None = None) -> dict[str, Any]:
    """One audience's part of the page data."""
    packer = _Packer(record)
    frames = record.frames
    packed = [packer.frame(f) for f in frames]
    history = history or write_history(record)
    index = {f.done: n for n, f in enumerate(frames)}
    paragraphs, chapters = [], []
    for ch in history.chapters:
        chapters.append([html.escape(ch.title), ch.start, ch.end])
        for p in ch.paragraphs:
            paragraphs.append([p.month, len(chapters) - 1, html.escape(p.text)])
    return {
        "id": record.audience or "spectator", "name": _view_name(record),
        "land": _series([f.land for f in frames]),
        "fog": None if record.audience is None else _series([f.fog for f in frames]),
        "fr": packed, "gen": packer.generals, "names": {str(k): v for k, v in sorted(packer.names.items())},
        "ev": _reports(record, frames),
        "chron": {"title": html.escape(history.title), "html": history.to_html(), "par": paragraphs,
                  "chap": chapters, "words": history.words()},
        "mom": [[index.get(m.month, len(frames) - 1), m.kind, html.escape(m.text)] for m in key_moments(record)],
    }


def page_data(records: list[Record], *, preview: bool = False) -> dict[str, Any]:
    """The whole page's data: the map and sides once (from the first record), every audience's view."""
    first = records[0]
    gm = first.map
    kingdoms = first.kingdoms
    colours = {s.id: PALETTE[n % len(PALETTE)] for n, s in enumerate(kingdoms)}
    return {
        "v": 1, "title": first.title, "scenario": first.scenario, "seed": first.seed, "finished": first.finished,
        "live": first.live, "end": first.end_reason, "preview": preview,
        "map": {"w": gm.width, "h": gm.height, "t": gm.terrain, "b": gm.bridges,
                "lm": [[name, kind, tiles] for name, kind, tiles in gm.landmarks]},
        "sides": [[s.id, s.name, s.ruler, colours.get(s.id, BANDIT_COLOUR)] for s in first.sides],
        "nk": len(kingdoms), "types": list(UNIT_TYPES), "sizes": list(SIZES), "tiers": list(TIERS),
        "frames": [[f.key, f.month, f.done, 1 if f.finished else 0] for f in first.frames],
        "views": [view_data(r) for r in records],
    }


def _script_json(data: Any) -> str:
    """JSON safe inside a <script> element (no '</', no HTML comment openers, no line separators)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def render_page(records: list[Record], *, preview: bool = False, watch: bool = False) -> str:
    """One self-contained HTML page showing `records` (the spectator first when present)."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True,
                             trim_blocks=True, lstrip_blocks=True)
    template = env.get_template("viewer.html.j2")
    first = records[0]
    return template.render(
        title=first.title, data=Markup(_script_json(page_data(records, preview=preview))),
        script=Markup((TEMPLATES / "viewer.js").read_text(encoding="utf-8")),
        style=Markup((TEMPLATES / "viewer.css").read_text(encoding="utf-8")),
        preview=preview, watch=watch,
    )


def write_page(records: list[Record], path: Path, **kw: Any) -> int:
    """Write the page to `path` (atomically); returns its size in bytes."""
    text = render_page(records, **kw)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return len(text.encode("utf-8"))
