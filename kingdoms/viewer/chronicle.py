"""The chronicle: a game told as a history from one audience's Record, deterministic and fog-respecting.

A kingdom's chronicle is written only from its record (its observations, the events told to it, its own order
results and notes); the spectator's from the whole finished game. Chapters follow the game's eras (the
founding, the race for the Ruin, the wars, the endgame); in them the key moments are told in sentences, fights
are gathered into sieges and campaigns named by place and general with their size and outcome, and the rulers'
notes are quoted when they say something new. A closing section gives the final table and how the game was
won. Numbers are written as a reader follows them ("nearly six thousand men"), never unit ids or coordinates.
"""

from __future__ import annotations

import html
import math
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from kingdoms import ruledata as rd
from kingdoms.hexgrid import distance
from kingdoms.viewer.frames import CityMark, Frame, Record, Result, Told
from kingdoms.viewer.moments import city_names, ruin_ids
from kingdoms.viewer.words import about, capital, count, listing, men, number, ordinal

# =============================================================================================================
# The written history
# =============================================================================================================


@dataclass(slots=True)
class Paragraph:
    """A paragraph and the month it starts in (the page shows it beside that month)."""

    month: int
    text: str


@dataclass(slots=True)
class Chapter:
    """A chapter: its title, the months it covers and its paragraphs."""

    title: str
    start: int
    end: int
    paragraphs: list[Paragraph] = field(default_factory=list)


@dataclass(slots=True)
class History:
    """A whole chronicle: title, chapters, and the final table (header row first) shown in the last chapter."""

    title: str
    chapters: list[Chapter]
    table: list[list[str]]

    def to_markdown(self) -> str:
        """The chronicle as Markdown."""
        lines = [f"# {self.title}", ""]
        for n, ch in enumerate(self.chapters):
            lines += [f"## {ch.title}", ""]
            for p in ch.paragraphs:
                lines += [p.text, ""]
            if n == len(self.chapters) - 1 and self.table:
                head, *rows = self.table
                lines.append("| " + " | ".join(head) + " |")
                lines.append("|" + "|".join("---" if k < 3 else "---:" for k in range(len(head))) + "|")
                lines += ["| " + " | ".join(row) + " |" for row in rows]
                lines.append("")
        return "\n".join(lines).rstrip() + "\n"

    def to_html(self) -> str:
        """The chronicle as an HTML fragment (escaped text; the page shows it)."""
        out = [f"<h2>{html.escape(self.title)}</h2>"]
        for n, ch in enumerate(self.chapters):
            out.append(f'<h3 data-start="{ch.start}">{html.escape(ch.title)}</h3>')
            for p in ch.paragraphs:
                out.append(f'<p data-month="{p.month}">{html.escape(p.text)}</p>')
            if n == len(self.chapters) - 1 and self.table:
                head, *rows = self.table
                out.append("<table><thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head)
                           + "</tr></thead><tbody>")
                out += ["<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows]
                out.append("</tbody></table>")
        return "\n".join(out)

    def words(self) -> int:
        """Words in the running text (titles and paragraphs)."""
        text = " ".join([self.title] + [ch.title + " " + " ".join(p.text for p in ch.paragraphs)
                                        for ch in self.chapters])
        return len(re.findall(r"[A-Za-z0-9'’-]+", text))


# =============================================================================================================
# Facts read from the record
# =============================================================================================================

_ORDER_UNIT = re.compile(r"\bunit=(\d+)")
_ORDER_TO = re.compile(r"\bto=(-?\d+),(-?\d+)")
_THEY_LOSE = re.compile(r"(?:they lose|garrison(?: #\d+ [a-z_]+)? loses|militia loses) ([\d,]+)")
_YOU_LOSE = re.compile(r"you lose ([\d,]+)")
_DEFENDER = re.compile(r"(?:attacks|shoots at) #(\d+) ([a-z_]+) \(([\d,]+)\)")
_BREAKS = re.compile(r"#(\d+) breaks")
_DESTROYED = re.compile(r"#(\d+) is destroyed")
_TILE = re.compile(r"\((-?\d+),(-?\d+)\)")
_FIELD_HIT = re.compile(r"^Your #(\d+) [a-z_]+ at \((-?\d+),(-?\d+)\) was (?:attacked|shot at) by ([a-z_]+) of (.+?): "
                        r"you lost ([\d,]+), they lost ([\d,]+)")
_CITY_HIT = re.compile(r"^(.+?) was assaulted by (.+?) ([a-z_]+): the (?:militia|garrison) lost ([\d,]+), "
                       r"the attackers ([\d,]+)")


def _int(text: str) -> int:
    """A number as the engine writes it ('1,234') as an int."""
    return int(text.replace(",", ""))


def plural(kind: str) -> str:
    """A unit type as a plural noun: levies, spearmen, heavy infantry."""
    return {"levy": "levies", "spearman": "spearmen", "archer": "archers", "cavalry": "horsemen",
            "heavy_infantry": "heavy infantry", "catapult": "catapults", "colonists": "colonists",
            "wagon": "wagons", "scout": "scouts", "spy": "spies"}.get(kind, kind.replace("_", " ") + "s")


@dataclass(slots=True)
class Clash:
    """One fight: an attack order carried out (or a blow the audience took), with what the audience knew."""

    month: int
    attacker: str
    defender: str
    tile: tuple[int, int]
    kinds: list[str]
    men: int  # the attacker's men, when known (0: unknown)
    general: str | None
    lost: int  # the attacker's losses
    killed: int  # the defender's losses
    city: CityMark | None  # the city attacked, if any
    taken: bool = False
    broke: bool = False  # the attacker broke
    routed: int = 0  # defending troops broken
    destroyed: int = 0  # defending troops destroyed
    shots: bool = False  # archers or catapults shooting, not closing


@dataclass(slots=True)
class Campaign:
    """Clashes of one attacker against one city, or against one rival in one region, in close months."""

    attacker: str
    defender: str
    place: str
    city: CityMark | None
    clashes: list[Clash] = field(default_factory=list)

    @property
    def start(self) -> int:
        """The month of the first clash."""
        return self.clashes[0].month

    @property
    def end(self) -> int:
        """The month of the last clash."""
        return self.clashes[-1].month

    @property
    def cost(self) -> int:
        """Men lost on both sides: what ranks campaigns."""
        return sum(c.lost + c.killed for c in self.clashes)


@dataclass(slots=True)
class Item:
    """One thing to tell, placed in time: its month, an order key within the month, and its sentence."""

    month: int
    order: int
    text: str
    own_paragraph: bool = False


# =============================================================================================================
# The teller
# =============================================================================================================


class _Teller:
    """Writes one record's history."""

    def __init__(self, record: Record) -> None:
        self.r = record
        self.me = record.audience
        self.names = {s.id: s.name for s in record.sides}
        self.rulers = {s.id: s.ruler for s in record.sides}
        self.by_name = {s.name: s.id for s in record.sides}
        self.by_name.update({"bandits": rd.BANDITS, "the bandits": rd.BANDITS})
        self.ruins = ruin_ids(record)
        self.city_name = city_names(record)
        self.frames = {f.done: f for f in record.frames}
        self.last = record.frames[-1]
        self.end_month = self.last.month
        gm = record.map
        self.centre = ((gm.width - 1) / 2.0, (gm.height - 1) * 0.866 / 2.0)
        self.marks = [(name, kind, [gm.tile(i) for i in tiles]) for name, kind, tiles in gm.landmarks]
        self.mark_at: dict[tuple[int, int], tuple[str, str]] = {}
        for name, kind, tiles in self.marks:
            for t in tiles:
                self.mark_at[t] = (name, kind)
        ruin = next((c for f in record.frames[:1] for c in f.cities if c.ruin), None)
        self.ruin = ruin
        self.quoted: dict[str, set[str]] = defaultdict(set)

    # --- names and places -----------------------------------------------------------------------------------

    def name(self, side: str | None) -> str:
        """A side's name in a sentence."""
        if side is None:
            return "no one"
        if side == rd.BANDITS:
            return "the bandits"
        return self.names.get(side, side)

    def frame_at_start(self, month: int) -> Frame:
        """The frame at the start of `month` (the end of the month before)."""
        return self.frames.get(month - 1) or self.frames.get(month) or self.last

    def frame_after(self, month: int) -> Frame:
        """The frame at the end of `month`."""
        return self.frames.get(month) or self.last

    def compass(self, q: int, r: int) -> str:
        """Where a tile lies on the map: 'the north-west', 'the centre'."""
        x, y = q + r / 2.0, r * 0.866
        dx, dy = x - self.centre[0], y - self.centre[1]
        if math.hypot(dx, dy) < 0.18 * max(self.r.map.width, self.r.map.height):
            return "the heart of the land"
        return "the " + _direction(dx, dy)

    def near_mark(self, tile: tuple[int, int], reach: int = 1) -> tuple[str, str] | None:
        """A landmark on or beside `tile`."""
        if tile in self.mark_at:
            return self.mark_at[tile]
        best = None
        for name, kind, tiles in self.marks:
            d = min((distance(tile, t) for t in tiles), default=99)
            if d <= reach and (best is None or d < best[0]):
                best = (d, (name, kind))
        return best[1] if best else None

    def place(self, tile: tuple[int, int], month: int, *, city_first: bool = True) -> str:
        """A place named for a reader: a city, a landmark, or a direction from the nearest known city."""
        frame = self.frame_at_start(month)
        cities = sorted(frame.cities, key=lambda c: (distance(tile, (c.q, c.r)), c.id))
        if cities and city_first:
            c = cities[0]
            d = distance(tile, (c.q, c.r))
            if d == 0:
                return f"at {city_ref(c.name)}"
            if d <= 2:
                return f"outside {city_ref(c.name)}"
        mark = self.near_mark(tile)
        if mark is not None:
            name, kind = mark
            return {"river": f"on the {name}" if not name.lower().startswith("the ") else f"on {name}",
                    "range": f"in the {name}", "lake": f"by {name}", "sea": f"on the shore of the {name}"}[kind]
        if cities:
            c = cities[0]
            d = distance(tile, (c.q, c.r))
            if d <= 7:
                dx = (tile[0] + tile[1] / 2.0) - (c.q + c.r / 2.0)
                dy = (tile[1] - c.r) * 0.866
                return f"{_direction(dx, dy)} of {c.name}"
        return "in the " + self.compass(*tile).removeprefix("the ")

    def city_place(self, city: CityMark) -> str:
        """Where a city stands: on a landmark, or in a direction from the nearest other city."""
        mark = self.near_mark((city.q, city.r))
        if mark is not None:
            name, kind = mark
            return {"river": f"on the {name}", "range": f"under the {name}", "lake": f"by {name}",
                    "sea": f"on the {name}"}[kind]
        frame = self.frame_after(city.seen or 0)
        others = sorted((c for c in frame.cities if c.id != city.id and c.side == city.side),
                        key=lambda c: (distance((city.q, city.r), (c.q, c.r)), c.id))
        if others:
            o = others[0]
            dx = (city.q + city.r / 2.0) - (o.q + o.r / 2.0)
            return f"{_direction(dx, (city.r - o.r) * 0.866)} of {o.name}"
        return "in " + self.compass(city.q, city.r)

    def city_of(self, city_id: int | None, month: int) -> CityMark | None:
        """A city as the record shows it at the end of `month` (or at its start)."""
        if city_id is None:
            return None
        for f in (self.frame_after(month), self.frame_at_start(month)):
            for c in f.cities:
                if c.id == city_id:
                    return c
        return None

    # --- the clashes ----------------------------------------------------------------------------------------

    def clashes(self) -> list[Clash]:
        """Every fight the record tells of, in month order: its own attacks and the blows it took."""
        out = [c for c in (self._clash(res) for res in self.r.results) if c is not None]
        for e in self.r.events:
            if e.kind in ("field", "city_attacked"):
                c = self._blow(e)
                if c is not None:
                    out.append(c)
        out.sort(key=lambda c: (c.month, c.attacker, c.tile))
        return out

    def _clash(self, res: Result) -> Clash | None:
        """One carried-out attack order as a Clash (None when it only marched): the attacker's size and general
        from its frame, losses and outcome from the result the engine told it."""
        text = res.result
        if not any(w in text for w in (" assaults ", " attacks ", " shoots at ")):
            return None
        mu, mt = _ORDER_UNIT.search(res.order), _ORDER_TO.search(res.order)
        if not mu or not mt:
            return None
        uid, tile = int(mu.group(1)), (int(mt.group(1)), int(mt.group(2)))
        start = self.frame_at_start(res.month)
        unit = next((u for u in start.units if u.id == uid), None)
        city = next((c for c in start.cities if (c.q, c.r) == tile), None)
        defender = city.side if city is not None else None
        dm = _DEFENDER.search(text)
        if defender is None:
            target = next((u for u in start.units if (u.q, u.r) == tile and u.side != res.kingdom), None)
            if dm is not None:
                target = next((u for u in start.units if u.id == int(dm.group(1))), target)
            defender = target.side if target is not None else None
        if defender is None:
            return None
        they = sum(_int(m) for m in _THEY_LOSE.findall(text))
        you = sum(_int(m) for m in _YOU_LOSE.findall(text))
        broke = [int(b) for b in _BREAKS.findall(text)]
        gone = [int(b) for b in _DESTROYED.findall(text)]
        return Clash(
            month=res.month, attacker=res.kingdom, defender=defender, tile=tile,
            kinds=[unit.type] if unit else [], men=(unit.men or 0) if unit else 0,
            general=unit.general if unit else None, lost=you, killed=they, city=city,
            taken=" is taken" in text, broke=uid in broke or "the assault breaks" in text,
            routed=sum(1 for b in broke if b != uid), destroyed=sum(1 for b in gone if b != uid),
            shots=" shoots at " in text and " assaults " not in text and " attacks " not in text,
        )

    def _blow(self, e: Told) -> Clash | None:
        """A blow the audience took (a kingdom's record), or a bandit strike (the spectator's)."""
        if e.kind == "field":
            m = _FIELD_HIT.match(e.text)
            if not m:
                return None
            attacker = self.by_name.get(m.group(5))
            if attacker is None or (self.me is None and attacker != rd.BANDITS):
                return None
            victim = int(m.group(1))
            start = self.frame_at_start(e.month)
            unit = next((u for u in start.units if u.id == victim), None)
            defender = unit.side if unit else (self.me or "")
            if not defender:
                return None
            return Clash(e.month, attacker, defender, (int(m.group(2)), int(m.group(3))), [m.group(4)], 0, None,
                         _int(m.group(7)), _int(m.group(6)), None, routed=1 if f"#{victim} breaks" in e.text else 0,
                         destroyed=1 if f"#{victim} is destroyed" in e.text else 0)
        m = _CITY_HIT.match(e.text)
        if not m:
            return None
        attacker = self.by_name.get(m.group(2))
        if attacker is None or (self.me is None and attacker != rd.BANDITS):
            return None
        city = self.city_of(e.data.get("city_id"), e.month - 1)
        if city is None:
            return None
        return Clash(e.month, attacker, city.side, (city.q, city.r), [m.group(3)], 0, None, _int(m.group(5)),
                     _int(m.group(4)), city)

    def campaigns(self) -> list[Campaign]:
        """Clashes gathered: one attacker against one city, or against one side in one region, within two months."""
        open_: dict[tuple[str, str, str], Campaign] = {}
        done: list[Campaign] = []
        for c in self.clashes():
            if c.city is not None:  # one siege per holder: a city that changes hands starts a new one
                key = (c.attacker, f"city {c.city.id}", c.defender)
                place = c.city.name
            else:
                place = self.place(c.tile, c.month)
                key = (c.attacker, c.defender, place)
            camp = open_.get(key)
            if camp is not None and c.month - camp.end > 2:
                done.append(camp)
                camp = None
            if camp is None:
                camp = open_[key] = Campaign(c.attacker, c.defender, place, c.city)
            camp.clashes.append(c)
        done += open_.values()
        done.sort(key=lambda k: (k.start, k.attacker, k.place))
        return done

    # --- sentences --------------------------------------------------------------------------------------------

    def campaign_text(self, k: Campaign) -> str:
        """A siege or a campaign in two or three sentences: where and against whom, the force, the cost, the end."""
        a, d = self.name(k.attacker), self.name(k.defender)
        fights = len(k.clashes)
        months = sorted({c.month for c in k.clashes})
        when = f"In month {k.start}" if k.start == k.end else f"From month {k.start} to month {k.end}"
        kinds: list[str] = []
        for c in k.clashes:
            for t in c.kinds:
                if plural(t) not in kinds:
                    kinds.append(plural(t))
        strength = max(sum(c.men for c in k.clashes if c.month == m) for m in months)
        generals = sorted({c.general for c in k.clashes if c.general})
        led = (f" under {'General ' + generals[0] if len(generals) == 1 else 'Generals ' + listing(generals)}"
               if generals else "")
        if strength:
            force = f"an army of {about(strength)} {listing(kinds[:3])}{led}"
        elif kinds:
            force = f"its {listing(kinds[:3])}{led}"
        else:
            force = "its troops"
        lost = sum(c.lost for c in k.clashes)
        killed = sum(c.killed for c in k.clashes)
        cost = f", losing {men(lost)} against {men(killed)} of the enemy" if lost or killed else ""
        if k.city is not None:
            city = k.city
            name = city_ref(city.name)
            held = "held by the bandits" if k.defender == rd.BANDITS else f"held by {d}"
            target = f"the Ruin, {name}, {held}" if city.ruin and "Ruin" not in name else f"{name}, {held}"
            shooting = all(c.shots for c in k.clashes)
            verb = "laid siege to" if fights > 1 else ("shot at" if shooting else "assaulted")
            head = f"{when} {a} {verb} {target}."
            how = "shot at it" if shooting else "attacked"
            tries = f" {count(fights, 'time')}" .replace("one time", "once").replace("two times", "twice")
            over = f" in {count(len(months), 'month')}" if len(months) > 1 else ""
            body = f" With {force} it {how}{tries if fights > 1 else ''}{over}{cost}"
            taken = next((c for c in k.clashes if c.taken), None)
            if taken is not None:
                end = f"; in month {taken.month} {name} fell."
            elif any(c.broke for c in k.clashes[-2:]):
                end = f", but the last assault broke and {name} held."
            else:
                end = f", but {name} held."
            return head + body + end
        head = f"{when} {a} fought {d} {k.place}"
        tries = f" in {count(fights, 'clash', 'clashes')}" if fights > 1 else ""
        body = f". With {force} it{cost.replace(', losing', ' lost') if cost else ' fought on'}"
        fate = []
        routed = sum(c.routed for c in k.clashes)
        gone = sum(c.destroyed for c in k.clashes)
        if routed:
            fate.append(f"broke {count(routed, 'troop')} of {d}")
        if gone:
            fate.append(f"destroyed {count(gone, 'troop')}")
        thrown = sum(1 for c in k.clashes if c.broke)
        if thrown:
            fate.append(f"was itself thrown back {count(thrown, 'time')}".replace("one time", "once")
                        .replace("two times", "twice"))
        tail = (", and " + listing(fate)) if fate else ""
        return head + tries + body + tail + "."

    def campaign_items(self, campaigns: list[Campaign], start: int, end: int) -> list[Item]:
        """The chapter's campaigns: the greatest told in full, the rest summed up in one sentence."""
        here = [k for k in campaigns if start <= k.start <= end]
        if not here:
            return []
        ranked = sorted(here, key=lambda k: (-k.cost, k.start))
        big = {id(k) for k in ranked[:7] if k.cost >= 150 or k.city is not None and any(c.taken for c in k.clashes)}
        big |= {id(k) for k in here if any(c.taken for c in k.clashes)}
        items = [Item(k.start, 5, self.campaign_text(k), own_paragraph=True) for k in here if id(k) in big]
        rest = [k for k in here if id(k) not in big]
        if rest:
            cost = sum(k.cost for k in rest)
            sides = sorted({k.attacker for k in rest} | {k.defender for k in rest})
            fights = sum(len(k.clashes) for k in rest)
            text = (f"Besides these, {listing([self.name(s) for s in sides])} met in {count(fights, 'smaller fight')}"
                    f" in these months, which cost {men(cost)} in all.") if fights > 1 else \
                   (f"Besides these there was one smaller fight, between {listing([self.name(s) for s in sides])}, "
                    f"which cost {men(cost)}.")
            items.append(Item(rest[-1].start, 6, text))
        return items

    def quote_items(self, start: int, end: int) -> list[Item]:
        """Rulers' notes that say something new, once each (a note repeated month after month is quoted once);
        the same words written by several rulers in one month are quoted together."""
        said: dict[tuple[int, str], tuple[str, list[str]]] = {}
        order: list[tuple[int, str]] = []
        per_ruler: dict[str, int] = defaultdict(int)
        for note in self.r.notes:
            if not (start <= note.month <= end):
                continue
            new = []
            for sentence in _sentences(note.text):
                fresh = []
                for clause in sentence.split("; "):  # a note of many clauses repeats clause by clause
                    key = _normal(clause)
                    if not key or key in self.quoted[note.kingdom]:
                        continue
                    self.quoted[note.kingdom].add(key)
                    fresh.append(clause)
                if fresh:
                    text = "; ".join(fresh)
                    new.append(text if text[-1] in ".!?" else text + ".")
            if not new or per_ruler[note.kingdom] >= 3:
                continue
            per_ruler[note.kingdom] += 1
            text = " ".join(new)
            slot = (note.month, _normal(text))
            if slot not in said:
                said[slot] = (text, [])
                order.append(slot)
            said[slot][1].append(self.rulers.get(note.kingdom) or self.name(note.kingdom))
        items = []
        for month, key in order:
            text, who = said[(month, key)]
            ruler = listing(who)
            verb = "all wrote" if len(who) > 2 else "both wrote" if len(who) == 2 else "wrote"
            form = (month + len(text)) % 3 if len(who) == 1 else 0
            if form == 0:
                line = f"In month {month} {ruler} {verb}: “{text}”"
            elif form == 1:
                inner = text[:-1] + "," if text.endswith(".") else text
                line = f"“{inner}” {ruler} wrote in month {month}."
            else:
                line = f"{ruler}'s note of month {month} reads: “{text}”"
            items.append(Item(month, 8, line))
        return items

    def event_items(self, start: int, end: int, campaigns: list[Campaign]) -> list[Item]:
        """Foundings, wars, captures, the lead, defections, eliminations: one sentence each, in month order."""
        items: list[Item] = []
        told_capture = {(c.month, c.city.id) for k in campaigns for c in k.clashes if c.taken and c.city}
        first_city: set[str] = set()
        built: dict[str, list[tuple[str, str]]] = defaultdict(list)
        built_month: dict[str, int] = {}
        defected: set[tuple[int, int]] = set()
        for e in self.r.events:
            if e.kind == "city_founded":
                owner = self._founder(e)
                if owner and owner not in first_city and e.month < start:
                    first_city.add(owner)
            if not (start <= e.month <= end):
                continue
            d = e.data
            if e.kind == "city_founded":
                owner = self._founder(e)
                city = self.city_of(d.get("city_id"), e.month)
                if owner is None or city is None:
                    continue
                first = owner not in first_city
                first_city.add(owner)
                lead = f"{self.name(owner)} founded its first new city, " if first else f"{self.name(owner)} founded "
                items.append(Item(e.month, 1, f"In month {e.month} {lead}{city.name}, {self.city_place(city)}."))
            elif e.kind == "military_building":
                owner = d.get("owner")
                if owner:
                    named = re.search(r" in (.+)\.$", e.text)  # the city's name is public with its buildings
                    where = self.city_name.get(int(d.get("city_id", -1))) or (named.group(1) if named else "a city")
                    built[owner].append((str(d.get("item")), city_ref(where)))
                    built_month.setdefault(owner, e.month)
            elif e.kind == "war":
                items.append(Item(e.month, 2, self._war(e)))
            elif e.kind == "city_captured":
                cid = int(d.get("city_id", -1))
                if (e.month, cid) in told_capture:
                    items.append(Item(e.month, 6, self._capture_tail(e)))
                else:
                    items.append(Item(e.month, 6, self._capture(e)))
            elif e.kind == "city_to_bandits":
                lost = self.city_name.get(int(d.get("city_id", -1)), "a city")
                old = d.get("old_owner")
                why = str(d.get("reason") or "")
                items.append(Item(e.month, 6, f"In month {e.month} {lost} was lost to the bandits"
                                  + (f" by {self.name(old)}" if old else "") + (f" ({_reason(why)})" if why else "")
                                  + "."))
            elif e.kind == "city_returned":
                rose = self.city_name.get(int(d.get("city_id", -1)), "a city")
                items.append(Item(e.month, 6, f"In month {e.month} {rose} rose against its masters and went back "
                                  "to the kingdom that founded it."))
            elif e.kind == "kingdom_eliminated":
                k, by = d.get("kingdom"), d.get("by")
                by_text = f" to {self.name(by)}" if by and by != rd.BANDITS else ""
                items.append(Item(e.month, 7, f"In month {e.month} {self.name(k)} fell{by_text}: its capital was "
                                  "taken, its troops melted away and its other cities went over to the bandits."))
            elif e.kind == "lead_started":
                k = d.get("kingdom")
                caps = self.frame_after(e.month).captures
                items.append(Item(e.month, 7, f"With that {self.name(k)} drew ahead on captures "
                                  f"({self._tally(caps)}): {number(rd.LEAD_MONTHS)} months ahead of every rival "
                                  "would win it the game."))
            elif e.kind == "lead_cancelled":
                k = d.get("kingdom")
                items.append(Item(e.month, 7, f"In month {e.month} the lead of {self.name(k)} was undone: a rival "
                                  "had drawn level on captures."))
            elif e.kind == "general_defected":
                gid = int(d.get("general_id", -1))
                if (e.month, gid) in defected:
                    continue
                defected.add((e.month, gid))
                items.append(Item(e.month, 4, self._defection(e)))
        if built:
            told = []
            for owner, things in built.items():
                by_city: dict[str, list[str]] = defaultdict(list)
                for item, place in things:
                    by_city[place].append(("an " if item[0] in "aeiou" else "a ") + item)
                told.append(f"{self.name(owner)} {listing([f'{listing(v)} in {c}' for c, v in by_city.items()])}")
            if len(told) == 1:
                owner = next(iter(built))
                text = f"In these months {told[0].replace(self.name(owner), self.name(owner) + ' built', 1)}."
            else:
                text = f"In these months the kingdoms built their war works: {listing(told)}."
            items.append(Item(min(built_month.values()), 3, text))
        return items

    def affairs_items(self, start: int, end: int) -> list[Item]:
        """Each kingdom's own affairs of the chapter in one sentence: men raised, works built, new generals, troops
        lost to hunger, blockades suffered (from the reports told to it)."""
        raised: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        works: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        generals: dict[str, list[str]] = defaultdict(list)
        starved: dict[str, int] = defaultdict(int)
        blockaded: dict[str, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
        first: dict[str, int] = {}
        for e in self.r.events:
            if not (start <= e.month <= end) or not e.to or len(e.to) != 1:
                continue
            k = e.to[0]
            if self.me is not None and k != self.me:
                continue
            d = e.data
            if e.kind == "recruited" and d.get("item") in rd.FIGHTING_TYPES:
                raised[k][str(d["item"])] += int(d.get("men") or 0)
            elif e.kind == "built" and d.get("item") in _WORKS:
                works[k][str(d["item"])].append(self.city_name.get(int(d.get("city_id", -1)), ""))
            elif e.kind == "general_arrived":
                m = re.match(r"A new general, (.+?) \(", e.text)
                if m:
                    generals[k].append(m.group(1))
            elif e.kind == "troop_starved":
                starved[k] += 1
            elif e.kind == "blockade":
                blockaded[k][self.city_name.get(int(d.get("city_id", -1)), "a city")].add(e.month)
            else:
                continue
            first.setdefault(k, e.month)
        items: list[Item] = []
        for k in [s.id for s in self.r.kingdoms]:
            if k not in first:
                continue
            parts = []
            if raised[k]:
                total = sum(raised[k].values())
                kinds = sorted(raised[k], key=lambda t: -raised[k][t])
                parts.append(f"raised {men(total)}, " + (f"most of them {plural(kinds[0])}" if len(kinds) > 1
                                                         else f"all {plural(kinds[0])}"))
            built, where = [], set()
            for item, cities in works[k].items():
                one, many = _WORKS[item]
                built.append(one if len(cities) == 1 else many if item == "walls" else f"{number(len(cities))} {many}")
                where |= {city_ref(c) for c in cities if c}
            if built:
                at = (f" at {listing(sorted(where))}" if len(where) <= 3 else f" across {count(len(where), 'city')}")
                parts.append("built " + listing(built) + (at if where else ""))
            if generals[k]:
                g = generals[k]
                parts.append(f"took {'a new general' if len(g) == 1 else number(len(g)) + ' new generals'} into "
                             f"its service ({listing(g)})")
            if starved[k]:
                parts.append(f"lost {count(starved[k], 'troop')} to hunger")
            for city, months in blockaded[k].items():
                parts.append(f"saw {city_ref(city)} blockaded for {count(len(months), 'month')}")
            if parts:
                items.append(Item(end, 10, f"In these months {self.name(k)} {listing(parts)}.", own_paragraph=not items))
        return items

    def lead_items(self, start: int, end: int) -> list[Item]:
        """The lead counter when it runs long: two-thirds and five-sixths of the way to a win."""
        items = []
        marks = (rd.LEAD_MONTHS * 2 // 3, rd.LEAD_MONTHS * 5 // 6)
        for f in self.r.frames:
            k, months = f.lead
            if k is None or not (start <= f.done <= end) or months not in marks or f.finished:
                continue
            items.append(Item(f.done, 9, f"By the end of month {f.done} the lead of {self.name(k)} had run "
                              f"{count(months, 'month')}: {number(rd.LEAD_MONTHS - months)} more would win it the "
                              "game."))
        return items

    def _founder(self, e: Told) -> str | None:
        """Who founded the city of a city_founded event."""
        city = self.city_of(e.data.get("city_id"), e.month)
        return city.side if city else self.me

    def _tally(self, caps: dict[str, int]) -> str:
        """'Shu Han two, Cao Wei one, Eastern Wu none'."""
        return ", ".join(f"{self.name(k)} {number(n) if n else 'none'}"
                         for k, n in sorted(caps.items(), key=lambda kv: (-kv[1], list(caps).index(kv[0]))))

    def _war(self, e: Told) -> str:
        """A declaration of war, with what the defender then held."""
        a, d = e.data.get("attacker"), e.data.get("defender")
        frame = self.frame_at_start(e.month)
        why = ""
        if frame.lead[0] == d and d is not None:
            why = ", which then led on captures"
        elif frame.ruin == d and d is not None:
            why = ", which then held the Ruin"
        ruler = self.rulers.get(a or "", "")
        who = f"{ruler} of {self.name(a)}" if ruler else self.name(a)
        return f"In month {e.month} {who} declared war on {self.name(d)}{why}."

    def _capture(self, e: Told) -> str:
        """A city changing hands, with the captor's count of captures."""
        d = e.data
        cid = int(d.get("city_id", -1))
        city = self.city_name.get(cid, "a city")
        captor, loser = d.get("captor"), d.get("loser")
        if cid in self.ruins and "Ruin" not in city:
            text = f"In month {e.month} {self.name(captor)} took the Ruin, {city_ref(city)}, from {self.name(loser)}"
        else:
            text = f"In month {e.month} {self.name(captor)} took {city_ref(city)} from {self.name(loser)}"
        return text + self._count_tail(e) + "." + self._held(e)

    def _held(self, e: Told) -> str:
        """' Eastern Wu had held it for eighty months.' when the Ruin changes hands between kingdoms."""
        d = e.data
        cid, loser = int(d.get("city_id", -1)), d.get("loser")
        if cid not in self.ruins or loser in (None, rd.BANDITS):
            return ""
        since = max((x.month for x in self.r.events if x.kind == "city_captured" and x.month < e.month
                     and int(x.data.get("city_id", -1)) == cid and x.data.get("captor") == loser), default=None)
        return f" {self.name(loser)} had held the Ruin for {count(e.month - since, 'month')}." if since else ""

    def _capture_tail(self, e: Told) -> str:
        """What a capture already told in its siege adds: the count, and how long the Ruin was held."""
        return self._capture_tail_text(e) + self._held(e)

    def _capture_tail_text(self, e: Told) -> str:
        """The captor's count after a capture told in its siege."""
        d = e.data
        captor = d.get("captor")
        caps = self.frame_after(e.month).captures.get(captor or "", 0)
        if not d.get("capture") or not caps:
            return f"{self.name(captor)} now held {self.city_name.get(int(d.get('city_id', -1)), 'it')}."
        return f"It was {self.name(captor)}'s {ordinal(caps)} capture."

    def _count_tail(self, e: Told) -> str:
        """', its second capture' for a capture."""
        d = e.data
        captor = d.get("captor")
        if not d.get("capture"):
            return ""
        caps = self.frame_after(e.month).captures.get(captor or "", 0)
        return f", its {ordinal(caps)} capture" if caps else ""

    def _defection(self, e: Told) -> str:
        """A general captured and gone over to the captor, by place."""
        m = re.match(r"General (.+?) (?:of .+?, )?(?:was )?captured at", e.text)
        who = m.group(1) if m else "a general"
        t = _TILE.search(e.text)
        where = f" {self.place((int(t.group(1)), int(t.group(2))), e.month)}" if t else ""
        if "defected to" in e.text:
            to = e.text.rsplit("defected to ", 1)[-1].rstrip(".")
            return f"In month {e.month} General {who} was captured{where} and went over to {to}."
        loser = re.search(r"of (.+?), captured", e.text)
        return (f"In month {e.month} General {who}" + (f" of {loser.group(1)}" if loser else "")
                + f" was captured{where} and came over to {self.name(self.me)}.")

    # --- the standing of the realms -----------------------------------------------------------------------------

    def standing(self, month: int) -> str:
        """Where the kingdoms stood at the end of `month`: cities, people, men (what the audience knew), captures."""
        f = self.frame_after(month)
        parts = []
        for k in self.r.kingdoms:
            fig = f.figures.get(k.id)
            if k.id in f.eliminated:
                parts.append(f"{k.name} was no more")
            elif fig is not None:
                parts.append(f"{k.name} held {count(fig.cities, 'city')} with {about(fig.people)} people and "
                             f"{men(fig.men)} under arms")
        caps = {k: n for k, n in f.captures.items() if n}
        if caps:
            ranked = sorted(caps.items(), key=lambda kv: -kv[1])
            tally = listing([f"{self.name(k)} had {count(n, 'capture')}" if i == 0 else f"{self.name(k)} {number(n)}"
                             for i, (k, n) in enumerate(ranked)])
            cap_text = tally
        else:
            cap_text = "no kingdom had yet made a capture"
        lead = f.lead
        lead_text = (f"; {self.name(lead[0])} had led for {count(lead[1], 'month')}" if lead[0] else "")
        head = f"At the end of month {month} "
        if not parts:
            return capital(head + cap_text + lead_text + ".")
        return head + "; ".join(parts) + f". {capital(cap_text)}{lead_text}."

    # --- eras -------------------------------------------------------------------------------------------------

    def eras(self, campaigns: list[Campaign]) -> list[tuple[str, int, int]]:
        """(title, first month, last month) of each era with something in it."""
        end = self.end_month
        ruin_tile = (self.ruin.q, self.ruin.r) if self.ruin else None
        at_ruin = [res.month for res in self.r.results if ruin_tile and _ORDER_TO.search(res.order)
                   and tuple(map(int, _ORDER_TO.search(res.order).groups())) == ruin_tile]  # type: ignore[union-attr]
        ruin_taken = [e.month for e in self.r.events if e.kind == "city_captured"
                      and int(e.data.get("city_id", -1)) in self.ruins]
        wars = [e.month for e in self.r.events if e.kind == "war"]
        war_fights = [k.start for k in campaigns if k.attacker != rd.BANDITS and k.defender != rd.BANDITS]
        race = min(at_ruin + ruin_taken) if at_ruin or ruin_taken else None
        war = min(wars + war_fights) if wars or war_fights else None
        endgame = max(2, end - max(12, end // 7) + 1)
        founding_end = min(x for x in (race, war, endgame) if x is not None)
        eras = [("The founding", 1, founding_end - 1)]
        middle = founding_end
        if race is not None and race == founding_end and race < endgame:
            taken = min(ruin_taken) + 1 if ruin_taken else None
            middle = min(x for x in (taken, war, endgame) if x is not None and x > race) if any(
                x is not None and x > race for x in (taken, war, endgame)) else endgame
            eras.append(("The race for the Ruin", race, middle - 1))
        if endgame > middle:
            eras.append(("The wars" if war is not None and war < endgame else "The long peace", middle, endgame - 1))
        eras.append(("The endgame", max(endgame, middle), end))
        return [(t, s, e) for t, s, e in eras if s <= e]

    # --- the chapters -----------------------------------------------------------------------------------------

    def intro(self) -> Chapter:
        """The opening chapter: the kingdoms and their capitals, the Ruin and how the game is won, the land."""
        first = self.r.frames[0]
        kingdoms = self.r.kingdoms
        parts = []
        for k in kingdoms:
            cap = next((c for c in first.cities if c.side == k.id and c.capital), None)
            who = f"{k.name} under {k.ruler}" if k.ruler else k.name
            parts.append(f"{who}, ruling from {city_ref(cap.name)} in {self.compass(cap.q, cap.r)}" if cap else who)
        ps = []
        if self.me is None:
            ps.append(f"{capital(count(len(kingdoms), 'kingdom'))} shared the land: {listing(parts)}.")
        else:
            me = self.r.side(self.me)
            mine = next((p for p, k in zip(parts, kingdoms, strict=True) if k.id == self.me), me.name)
            rivals = [f"{k.name} under {k.ruler}" for k in kingdoms if k.id != self.me]
            ps.append(f"This is the chronicle of {me.name} as {me.ruler} knew it: {mine}. Its rivals were "
                      f"{listing(rivals)}; of them it knew only what its own eyes, its spies and the public news "
                      "told it.")
        if self.ruin is not None:
            where = self.compass(self.ruin.q, self.ruin.r)
            named = city_ref(self.ruin.name) + ("" if "Ruin" in self.ruin.name else ", the Ruin")
            ps.append(f"In {where} lay {named}, held by bandits. Whoever held it counted it as a "
                      "capture, like any city taken from a rival by assault; a kingdom ahead of every rival on "
                      f"captures for {number(rd.LEAD_MONTHS)} months in a row would win, and when the last month "
                      "ended the most captures would decide.")
        rivers = [n for n, k, _ in self.marks if k == "river"]
        ranges = [n for n, k, _ in self.marks if k == "range"]
        waters = [n for n, k, _ in self.marks if k in ("lake", "sea")]
        land = []
        if rivers:
            land.append(f"watered by {listing(['the ' + n for n in rivers])}")
        if ranges:
            land.append(f"walled by {listing(['the ' + n for n in ranges])}")
        if waters:
            land.append(f"bounded by {listing(['the ' + n if n.endswith(('Sea', 'Ocean')) else n for n in waters])}")
        if land:
            known = "The land" if self.me is None else "As far as its scouts ever went, the land"
            ps.append(f"{known} was {listing(land)}.")
        return Chapter("The land and its kingdoms", 0, 0, [Paragraph(0, p) for p in ps])

    def chapters(self) -> list[Chapter]:
        """Every chapter: the opening, one per era, the reckoning."""
        campaigns = self.campaigns()
        chapters = [self.intro()]
        for n, (title, start, end) in enumerate(self.eras(campaigns), 1):
            items = self.event_items(start, end, campaigns) + self.campaign_items(campaigns, start, end)
            items += self.affairs_items(start, end) + self.lead_items(start, end) + self.quote_items(start, end)
            items.sort(key=lambda i: (i.month, i.order))
            ch = Chapter(f"{_roman(n)}. {title} (months {start} to {end})" if start != end
                         else f"{_roman(n)}. {title} (month {start})", start, end, _paragraphs(items))
            if not ch.paragraphs:
                ch.paragraphs.append(Paragraph(start, f"Little is told of months {start} to {end}: the kingdoms kept "
                                                      "to their own land."))
            ch.paragraphs.append(Paragraph(end, self.standing(end)))
            chapters.append(ch)
        chapters.append(self.closing())
        return chapters

    def closing(self) -> Chapter:
        """The reckoning: how the game ended, the places, the cost of the fighting."""
        out = self.r.outcome
        month = self.end_month
        ps: list[str] = []
        if self.r.finished and out:
            ps.append(self._ending(out, month))
            reason = out.get("reason")
            winners = out.get("winners") or []
            if reason == "lead" and winners:
                w = winners[0]
                started = max((e.month for e in self.r.events if e.kind == "lead_started"
                               and e.data.get("kingdom") == w), default=None)
                if started is not None:
                    ps.append(f"{self.name(w)} had gone ahead in month {started} and no rival drew level again for "
                              f"{number(rd.LEAD_MONTHS)} months.")
            elif reason == "time_limit":
                caps = out.get("captures") or {}
                ps.append("When the last month ended the captures stood at "
                          + listing([f"{self.name(k)} {number(int(n)) if int(n) else 'none'}" for k, n in
                                     sorted(caps.items(), key=lambda kv: (-int(kv[1]), kv[0]))]) + ".")
            for e in self.r.events:
                if e.kind == "kingdom_eliminated":
                    ps.append(f"{self.name(e.data.get('kingdom'))} had fallen in month {e.month}.")
            places = out.get("places") or {}
            results = out.get("results") or {}
            by_place: dict[int, list[str]] = defaultdict(list)
            for k in self.r.kingdoms:
                if k.id in places and results.get(k.id) != "win":
                    by_place[int(places[k.id])].append(k.name)
            fates = [f"{listing(names)} shared {ordinal(place)} place" if len(names) > 1
                     else f"{names[0]} finished {ordinal(place)}" for place, names in sorted(by_place.items())]
            if fates:
                ps.append(capital(listing(fates)) + ".")
            fights = sum(len(k.clashes) for k in self.campaigns())
            if fights:
                dead = sum(k.cost for k in self.campaigns())
                seen = "were fought" if self.me is None else f"were fought that {self.name(self.me)} knew of"
                ps.append(f"In all {count(fights, 'fight')} {seen}, and they cost {men(dead)}.")
        elif self.r.finished:
            ps.append(f"The game ended in month {month}.")
        else:
            ps.append(f"The game goes on: this chronicle ends with month {self.last.done}.")
        return Chapter("The reckoning", month, month, [Paragraph(month, p) for p in ps])

    def _ending(self, out: dict, month: int) -> str:
        """How the game ended, in the past tense."""
        winners = [self.name(k) for k in out.get("winners") or []]
        if not winners:
            return f"In month {month} the game ended with no kingdom left standing."
        names = listing(winners)
        if out.get("draw"):
            return f"In month {month} the game ended in a draw between {names}, level on captures."
        why = {"lead": f"by holding the lead on captures for {number(rd.LEAD_MONTHS)} months",
               "last_standing": "as the last kingdom standing",
               "time_limit": "with the most captures when the last month ended"}.get(str(out.get("reason")), "")
        return f"In month {month} {names} won the game {why}.".replace("  ", " ")

    def table(self) -> list[list[str]]:
        """The final table: per kingdom result, place, captures and (where known) cities, people, men."""
        f = self.last
        results = (self.r.outcome.get("results") or {}) if self.r.outcome else {}
        places = (self.r.outcome.get("places") or {}) if self.r.outcome else {}
        rows = [["Kingdom", "Ruler", "Result", "Place", "Captures", "Cities", "People", "Men under arms"]]
        for k in self.r.kingdoms:
            fig = f.figures.get(k.id)
            result = results.get(k.id) or ("fallen" if k.id in f.eliminated else "playing")
            rows.append([k.name, k.ruler, str(result), str(places.get(k.id, "-")), str(f.captures.get(k.id, 0)),
                         f"{fig.cities}" if fig else "?", f"{fig.people:,}" if fig else "?",
                         f"{fig.men:,}" if fig else "?"])
        return rows


# --- small helpers ------------------------------------------------------------------------------------------------


#: City works a chapter tells of, as (one, many).
_WORKS = {"palisade": ("a palisade", "palisades"), "walls": ("stone walls", "stone walls"),
          "granary": ("a granary", "granaries"), "farm": ("a farm", "farms")}


def city_ref(name: str) -> str:
    """A city's name as it reads in a sentence: 'the Ruins of Luoyang', 'Chengdu'."""
    return "the " + name if name.split(" ", 1)[0] in ("Ruins", "Ruin", "Fort", "Pass") else name


def _direction(dx: float, dy: float) -> str:
    """Compass direction of a screen offset (y grows downward)."""
    angle = math.degrees(math.atan2(-dy, dx)) % 360
    names = ("east", "north-east", "north", "north-west", "west", "south-west", "south", "south-east")
    return names[int(((angle + 22.5) % 360) // 45)]


def _roman(n: int) -> str:
    """Chapter numbers: I, II, III..."""
    return ("I", "II", "III", "IV", "V", "VI", "VII", "VIII")[n - 1] if 0 < n <= 8 else str(n)


def _sentences(text: str) -> list[str]:
    """A note cut into sentences (a leading "M12:" month stamp left out)."""
    text = re.sub(r"^M\d+:\s*", "", " ".join(text.split()))  # a month stamp the chronicle gives anyway
    parts = re.split(r"(?<=[.!?])\s+", text)
    return [p.strip() for p in parts if p.strip()]


_FIGURE_WORDS = {"city", "cities", "people", "men", "under", "arms", "and", "capture", "captures", "s"}


def _normal(sentence: str) -> str:
    """A sentence's gist for repeat detection: lower case, numbers as '#'; '' for bare figures ('2 cities, ...')."""
    text = re.sub(r"[\d][\d,.]*", "#", sentence.lower())
    words = re.findall(r"[a-z#']+", text)
    if all(w == "#" or w in _FIGURE_WORDS for w in words):
        return ""
    return " ".join(words)


def _reason(why: str) -> str:
    """A stored reason as a clause: no final stop, lower case."""
    return why.rstrip(".").lower() if why else why


def _paragraphs(items: list[Item]) -> list[Paragraph]:
    """Items grouped into paragraphs: a campaign stands with what follows it that month; others gather by time."""
    out: list[Paragraph] = []
    cur: list[Item] = []

    def flush() -> None:
        """Close the paragraph being gathered."""
        if cur:
            out.append(Paragraph(cur[0].month, " ".join(i.text for i in cur)))
            cur.clear()

    for item in items:
        if cur and (item.own_paragraph or cur[0].own_paragraph and item.month != cur[-1].month
                    or item.month - cur[0].month > 8 or len(cur) >= 4):
            flush()
        cur.append(item)
    flush()
    return out


def write_history(record: Record) -> History:
    """The chronicle of a record (the spectator's or a kingdom's)."""
    teller = _Teller(record)
    who = "" if record.audience is None else f" as {record.side(record.audience).name} knew it"
    title = f"The chronicle of {record.title}{who}"
    return History(title, teller.chapters(), teller.table())


def write_chronicle_file(record: Record, path: Path) -> Path:
    """Write the record's chronicle as Markdown to `path` and return it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(write_history(record).to_markdown(), encoding="utf-8")
    return path


__all__ = ["Chapter", "History", "Paragraph", "write_chronicle_file", "write_history"]
