"""Texts a seat reads, rendered from its Observation: the briefing, get_city, get_map, inspect_tile, get_sites.

Layout lives in Jinja templates (briefing_templates/*.j2, autoescape off, trim_blocks); this module turns the
kingdom's Observation (views.observation) into short, numbered lines for them: its KingdomView, its own
cities' figures (`OwnFigures`, the economy run on its believed board), its city sites and the tiles as it
knows them. Nothing here reads the game state: what a text may say is what the observation holds.

Written for a model reading cold: compact lines, numbers with units, ids wherever an order needs one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
import numpy as np

from kingdoms import ruledata as rd
from kingdoms.hexgrid import Tile, axial_q, distance, flat_index
from kingdoms.views.common import (  # noqa: F401  (re-exported: the texts' number formats and view lookups)
    BATTLE_KINDS,
    at_war,
    f1,
    idle_agents,
    idle_units,
    kingdom_names,
    num,
    order_counts,
    plural,
    signed,
    strike_threats,
    tile,
)
from kingdoms.views.kingdom_view import KingdomView, OwnCity, OwnUnit, SeenCity, SeenUnit, TileView
from kingdoms.views.observation import (  # noqa: F401  (re-exported for the texts' callers)
    CityFigures,
    Observation,
    OwnFigures,
    QueueHead,
    Site,
    months_to_finish,
)

TEMPLATE_DIR = Path(__file__).resolve().parents[2] / "briefing_templates"

#: Event kinds too routine to list when the briefing is short of room (they are counted instead).
ROUTINE_KINDS = ("land_claimed", "built", "recruited", "wagon_unloaded", "general_moved")
#: Verbs whose accepted orders are routine in a compact reply (TOOLS-400): counted, not listed.
ROUTINE_VERBS = ("move", "hold", "follow", "merge", "split", "set_production", "set_focus", "ship_grain",
                 "build", "assign_general", "disband", "station_spy", "found_city")
#: Words in an accepted order's reply that make it a notice worth listing (TOOLS-410).
NOTICE_WORDS = ("merge", "ration", "short", "warning", "note:", "beyond", "hungry", "outlast", "cannot", "will not",
                "blocked", "waits")
MAX_EVENT_LINES = 24
SITES_IN_BRIEFING = 3
SITE_RADIUS = 7


# =============================================================================================================
# Jinja
# =============================================================================================================


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The template environment: plain text, no escaping, block tags eat their newline."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATE_DIR)), autoescape=False,
                             trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=False,
                             undefined=jinja2.StrictUndefined)
    env.filters["n"] = num
    env.filters["f1"] = f1
    env.filters["signed"] = signed
    return env


def render_template(name: str, **data: Any) -> str:
    """Render one template and tidy it: no trailing spaces, at most one blank line in a row."""
    text = environment().get_template(name).render(**data)
    lines = [line.rstrip() for line in text.splitlines()]
    out: list[str] = []
    for line in lines:
        if not line and (not out or not out[-1]):
            continue
        out.append(line)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out)


# =============================================================================================================
# Names and lookups on the view
# =============================================================================================================


def _index(view: KingdomView, q: int, r: int) -> int:
    return flat_index(q, r, view.width, view.height)


@dataclass(slots=True)
class _Masks:
    explored: np.ndarray
    visible: np.ndarray


def masks(view: KingdomView) -> _Masks:
    from kingdoms.engine.sight import hex_to_mask

    n = view.width * view.height
    return _Masks(hex_to_mask(view.explored, n), hex_to_mask(view.visible, n))


def order_text(standing: dict[str, Any] | None) -> str | None:
    """A standing order in short syntax."""
    if not standing:
        return None
    try:
        from kingdoms.orders.models import ORDER_ADAPTER
        from kingdoms.orders.syntax import format_order

        return format_order(ORDER_ADAPTER.validate_python(standing))
    except Exception:  # an order of an unknown shape: show its verb
        return str(standing.get("action", "order"))


# =============================================================================================================
# Rows: cities, troops, generals, enemies
# =============================================================================================================


def _garrison_text(view: KingdomView, city: OwnCity) -> str:
    units = {u.id: u for u in view.units}
    parts = []
    for uid in city.garrison:
        u = units.get(uid)
        if u is None or not rd.UNITS[u.type].fighting:
            continue
        parts.append(f"#{u.id} {num(u.men)} {u.type}")
    return " + ".join(parts) if parts else "no garrison"


def _walls_text(city: OwnCity) -> str:
    if city.walls_max <= 0 and city.walls <= 0:
        return "no walls"
    if city.walls + 1e-9 >= city.walls_max:
        return f"walls {f1(city.walls)}"
    return f"walls {f1(city.walls)}/{f1(city.walls_max)}"


def _growth_text(look: Any) -> str:
    if look.growth > 0:
        return f"+{num(look.growth)}/mo"
    return f"no growth: {look.no_growth}" if look.no_growth else "+0/mo"


def _building_text(city: OwnCity, fig: CityFigures) -> str:
    h = fig.head
    if h is None:
        return f"queue EMPTY (store {f1(city.store)}/{f1(fig.store_cap)})"
    what = h.item + (f":{num(h.men)}" if h.men and rd.UNITS.get(h.item) and rd.UNITS[h.item].fighting else "")
    if h.tile:
        what += f"@{h.tile[0]},{h.tile[1]}"
    months = "stalled" if h.months is None else f"{h.months} mo"
    troop = bool(rd.UNITS.get(h.item) and rd.UNITS[h.item].fighting)
    paid = f1(city.store) if troop else f1(h.paid)
    more = f" +{len(city.queue) - 1} queued" if len(city.queue) > 1 else ""
    return f"building {what} {paid}/{f1(h.price)}, {months} @ prod {f1(fig.available)}/mo{more}"


def city_row_full(view: KingdomView, city: OwnCity, fig: CityFigures) -> str:
    """The full row (TOOLS-050)."""
    look = fig.outlook
    nxt = f"next at {num(look.next_tile_people)}" if look.next_tile_people else "no more land (91 tiles)"
    tags = []
    if city.is_capital:
        tags.append("capital")
    if city.is_ruin:
        tags.append("the Ruin")
    if city.restless:
        tags.append(f"RESTLESS {city.unrest_months}/{rd.UNREST_MONTHS} mo, hold-down {num(fig.hold_down)} men "
                    f"(on its land {num(fig.own_men_on_land)})")
    tag = f" [{', '.join(tags)}]" if tags else ""
    grain = (f"grain {f1(city.grain)}/{fig.granary_cap} {signed(look.net)}/mo (in {f1(look.harvest)}, "
             f"people {f1(look.people_eat)}, troops {f1(look.troops_eat)})")
    militia = num(city.militia) + (f"/{num(fig.militia_full)}" if city.militia + 0.5 < fig.militia_full else "")
    defence = f"{_garrison_text(view, city)} + militia {militia}, {_walls_text(city)}"
    row = (f"#{city.id} {city.name} {tile((city.q, city.r))}{tag} — {num(city.people)} people "
           f"(land feeds {num(look.capacity)}; {_growth_text(look)}) · {look.land_tiles} land tiles ({nxt}) · "
           f"{_building_text(city, fig)} · {grain} · {defence}")  # its focus: the * of the focus line below
    if fig.alerts:
        row += " · ALERT: " + "; ".join(fig.alerts)
    return row


def focus_line(city: OwnCity, fig: CityFigures) -> str:
    """Output and growth under each focus (CITY-070): production, net grain and new people a month."""
    parts = []
    for focus in rd.FOCUSES:
        o = fig.by_focus[focus]
        mark = "*" if focus == city.focus else ""
        parts.append(f"{focus}{mark} {o.production}/{signed(o.net)}/+{num(o.growth)}")
    return " · ".join(parts)


def city_row_short(view: KingdomView, city: OwnCity, fig: CityFigures) -> str:
    """A short row for months after one the player saw (TOOLS-070)."""
    look = fig.outlook
    h = fig.head
    if h is None:
        build = "queue EMPTY"
    else:
        build = f"{h.item} {'stalled' if h.months is None else str(h.months) + ' mo'}"
    return (f"#{city.id} {city.name} {num(city.people)} ({_growth_text(look)}) · {build} · "
            f"grain {f1(city.grain)} {signed(look.net)}/mo · {_walls_text(city)}")


def city_signature(city: OwnCity) -> tuple[Any, ...]:
    """What makes a city 'changed' since last month for the short briefing: its queue head, focus, land,
    garrison, buildings, walls and unrest (people and grain drift every month and do not count)."""
    head = city.queue[0]["item"] if city.queue else None
    return (head, len(city.queue), city.focus, city.land_tiles, tuple(city.garrison), tuple(city.buildings),
            len(city.improvements), int(city.walls // 5), city.restless)


#: Where a troop eats this month (Observation.supply_of): (kind "camp" | "city" | "rations", id, rations months).
Supply = tuple[str, "int | None", float]


def fed_text(fed: Supply | None, city_names: dict[int, str]) -> str:
    """' · fed by camp #28', ' · fed by Xuchang's land' or ' · on rations 2.5 mo' (SUPPLY-030..090)."""
    if fed is None:
        return ""
    kind, sid, months = fed
    if kind == "camp":
        return f" · fed by camp #{sid}"
    if kind == "city":
        return f" · fed by {city_names.get(sid or -1, 'your')}'s land"
    return f" · on rations {f1(months)} mo"


def troop_row(view: KingdomView, u: OwnUnit, city_names: dict[int, str], fed: Supply | None = None) -> str:
    """A troop row (OPEN-82): #id type men (size) (q,r) · L XP · morale · hunger · where it eats · general · order.

    `fed`: where it eats this month (Observation.supply_of); a troop in its own city eats from its granary and says
    nothing; without `fed` a troop in the field shows its rations."""
    spec = rd.UNITS[u.type]
    where = tile((u.q, u.r))
    if u.in_city is not None:
        where += f" in {city_names.get(u.in_city, 'city')}"
    order = order_text(u.standing)
    if order:
        now = order
    elif u.fortified:
        now = "hold (fortified)"
    elif u.in_city is not None and spec.fighting:
        now = "garrison"
    else:
        now = "no orders"
    if spec.fighting:
        months = u.rations / (u.men / 1000) if u.men > 0 else 0.0
        morale = f" · morale {f1(u.morale)}" if u.morale < 99.95 else ""
        hunger = f" · HUNGER {f1(u.hunger)}" if u.hunger > 0 else ""
        if u.in_city is not None:
            rations = "" if months >= 1 else f" · rations {f1(months)} mo"
        elif fed is not None:
            rations = fed_text(fed, city_names)
        else:
            rations = f" · rations {f1(months)} mo"
        gen = f" · Gen. {u.general} #{u.general_id}" if u.general else ""
        xp = f" XP {f1(u.xp)}" if u.xp > 0 else ""
        return (f"#{u.id} {u.type} {num(u.men)} ({u.size}) {where} · L{u.level}{xp}{morale}{hunger}"
                f"{rations}{gen} · {now}")
    if u.type == "colonists":
        return f"#{u.id} colonists {num(u.men)} {where} · carry {f1(u.cargo)} dan · {now}"
    if u.type == "wagon":
        dest = f" → {tile(u.dest)}" if u.dest else ""
        return f"#{u.id} wagon {where} · {f1(u.cargo)} dan{dest} · {now}"
    return f"#{u.id} {u.type} {where} · {now}"


def general_effect(level: int) -> str:
    """What a general does at his level (GEN-120)."""
    return f"x{1 + rd.GENERAL_FIELD * level:.2g} field, x{1 + rd.GENERAL_CITY * level:.3g} in a city"


def general_row(view: KingdomView, g: Any, city_names: dict[int, str]) -> str:
    nxt = next((t for t in rd.GENERAL_XP_LEVELS if g.xp < t), None)
    lvl = f"L{g.level} XP {g.xp}" + (f" (L{g.level + 1} at {nxt})" if nxt else " (top level)")
    if g.unit_id is not None:
        where = f"leads #{g.unit_id}"
    elif g.city_id is not None:
        where = f"WAITING in {city_names.get(g.city_id, 'a city')} — assign_general general={g.id} unit=ID"
    else:
        where = "without a post"
    return f"#{g.id} {g.name} {lvl}: {general_effect(g.level)}; {where}"


def seen_unit_row(view: KingdomView, u: SeenUnit, names: dict[str, str]) -> str:
    who = names.get(u.owner, u.owner)
    size = f"{num(u.men)} men" if u.men is not None else (u.size or "")
    war = "" if at_war(view, u.owner) else " (at peace)"
    when = "now" if u.in_sight else f"seen M{u.month}"
    cargo = f", {f1(u.cargo)} dan" if u.cargo is not None else ""
    what = ", ".join(x for x in (size, cargo.removeprefix(", ")) if x)
    return " ".join(x for x in (f"#{u.id} {who}{war} {u.type}", what, tile((u.q, u.r)), f"({when})") if x)


def seen_city_row(view: KingdomView, c: SeenCity, names: dict[str, str]) -> str:
    who = names.get(c.owner, c.owner)
    bits = []
    if c.ruin:
        bits.append("the Ruin")  # a city of its own kind: no size name (its 10,000 people are no "village")
    elif c.size:
        bits.append(c.size)
    if c.walls_state:
        bits.append(f"{c.walls_state}" + (f" ({c.walls})" if c.walls else ""))
    if c.troops:
        bits.append(f"troops {c.troops}")
    elif c.in_sight:
        bits.append("no troops seen")
    if c.garrison:
        bits.append("spied: " + ", ".join(f"#{g.id} {g.type} {num(g.men)}" for g in c.garrison))
    when = "now" if c.in_sight else f"seen M{c.month}"
    return f"#{c.id} {c.name} ({who}) {tile((c.q, c.r))}: {', '.join(bits) or 'no details'} ({when})"


# =============================================================================================================
# Sites (CITY-450, get_sites, OPEN-89)
# =============================================================================================================


def site_line(s: Site) -> str:
    dist = f", {s.distance} from {s.from_name}" if s.distance is not None else ""
    return (f"{tile(s.tile)} {s.water}{dist}: grain/prod {signed(s.grain_found)}/{s.prod_found} at first, "
            f"{signed(s.grain_full)}/{s.prod_full} with all {s.land} tiles; feeds {num(s.feeds)}")


# =============================================================================================================
# Results of past months (TURN-180)
# =============================================================================================================


@dataclass(slots=True)
class MonthResults:
    """What a kingdom was told about one resolved month: its orders' outcomes and the events it saw."""

    month: int
    outcomes: list[dict[str, Any]]
    events: list[dict[str, Any]]


def _verb(text: str) -> str:
    """The verb of an order as given: the first word, or the "action" of a JSON object."""
    text = (text or "").strip()
    if text.startswith("{"):
        try:
            import json

            return str(json.loads(text).get("action") or json.loads(text).get("verb") or "")
        except (ValueError, AttributeError):
            return ""
    return text.split(" ", 1)[0].lower() if text else ""


def results_lines(results: list[MonthResults], *, max_events: int = MAX_EVENT_LINES) -> list[str]:
    """Last month's results: order outcomes (failures and battles listed, the rest counted), then events."""
    lines: list[str] = []
    for res in results:
        tag = f"M{res.month}"
        etag = f"{tag} " if len(results) > 1 else ""
        given = [o for o in res.outcomes if o.get("position")]
        standing = [o for o in res.outcomes if not o.get("position")]
        if res.outcomes:
            ended = sum(1 for o in standing if not o.get("ok"))
            done = sum(1 for o in given if o.get("ok"))
            lines.append(f"{tag}: " + order_counts(done, len(given) - done, len(standing) - ended, ended) + ".")
        for o in res.outcomes:
            verb = _verb(o.get("text", ""))
            if not o.get("ok"):
                pos = f"#{o['position']} " if o.get("position") else "standing "
                code = f" [{o['code']}]" if o.get("code") else ""
                lines.append(f"  FAILED {pos}{o.get('text', '')}{code}: {o.get('result', '')}")
            elif verb in ("attack", "pillage", "sabotage", "declare_war", "found_city"):
                pos = f"#{o['position']} " if o.get("position") else ""
                lines.append(f"  {pos}{o.get('text', '')}: {o.get('result', '')}")
        battles = [e for e in res.events if e.get("kind") in BATTLE_KINDS]
        others = [e for e in res.events if e.get("kind") not in BATTLE_KINDS]
        routine = [e for e in others if e.get("kind") in ROUTINE_KINDS]
        notable = [e for e in others if e.get("kind") not in ROUTINE_KINDS]
        shown = battles + notable + routine
        room = max(6, max_events // max(1, len(results)))
        for e in shown[:room]:
            lines.append(f"  {etag}{e.get('text', '')}")
        if len(shown) > room:
            lines.append(f"  ... {len(shown) - room} more events of {tag} (get_history has every reply)")
    return lines


# =============================================================================================================
# Attention items (TURN-210, OPEN-91)
# =============================================================================================================


#: Codes of a standing attack that ended rather than chase its target (attack.CHASE_MONTHS, COMBAT-350).
CHASE_CODES = ("chase_too_long", "chase_outlasts_rations")


def attention_lines(view: KingdomView, figs: OwnFigures, goal_review: bool,
                    results: list[MonthResults] | None = None) -> list[str]:
    """What needs the ruler this month, most urgent first."""
    lines: list[str] = []
    for res in (results or [])[-1:]:
        for o in res.outcomes:
            if not o.get("position") and not o.get("ok") and o.get("code") in CHASE_CODES:
                why = str(o.get("result", "")).removeprefix("standing order ended: ").split(";")[0]
                lines.append(f"ATTACK ENDED ({o['code']}): {o.get('text', '')}: {why}")
    names = kingdom_names(view)
    alerted = [f"#{c.id} {c.name}" for c in view.cities if figs.cities.get(c.id) and figs.cities[c.id].alerts]
    if alerted:
        lines.append("ALERT in " + ", ".join(alerted))
    if figs.upkeep > figs.output + 1e-9:
        gap = figs.upkeep - figs.output
        lines.append(f"UPKEEP {f1(figs.upkeep)} exceeds your production {figs.output}: no city builds and about "
                     f"{num(gap * 1000)} soldiers desert each month — disband troops or grow production")
    for e, u in strike_threats(view):
        size = num(e.men) if e.men is not None else (e.size or "?")
        lines.append(f"{names.get(e.owner, e.owner)} {e.type} #{e.id} ({size}) at {tile((e.q, e.r))} can reach "
                     f"your #{u.id} {u.type} {tile((u.q, u.r))}")
    for u in view.units:
        if u.hunger > 0:
            lines.append(f"#{u.id} {u.type} is HUNGRY (hunger {f1(u.hunger)}): bring it onto your land, a camp or a wagon")
        elif rd.UNITS[u.type].fighting and u.men > 0 and u.in_city is None and u.rations / (u.men / 1000) < 1.0:
            lines.append(f"#{u.id} {u.type} has under a month of rations")
    idle = idle_units(view)
    if idle:
        lines.append("without orders: " + ", ".join(f"#{u.id} {u.type} {tile((u.q, u.r))}" for u in idle))
    agents = idle_agents(view)
    if agents:
        lines.append("idle scouts/spies (fast_forward goes on): "
                     + ", ".join(f"#{u.id} {u.type} {tile((u.q, u.r))}" for u in agents))
    empty = [c for c in view.cities if not c.queue]
    if empty:
        lines.append("queue EMPTY: " + ", ".join(f"#{c.id} {c.name}" for c in empty))
    if goal_review:
        lines.append("GOAL REVIEW due: set goal in your next issue_orders")
    return lines


# =============================================================================================================
# The briefing
# =============================================================================================================


@dataclass(slots=True)
class BriefingInput:
    """Everything a briefing shows besides the view."""

    figures: OwnFigures
    full_rows: bool = True  # False: short rows, unchanged cities by name (TOOLS-070, OPEN-5)
    prev_view: KingdomView | None = None
    goal: str | None = None
    goal_month: int | None = None
    goal_review: str | None = None  # the GOAL REVIEW prompt when due (OPEN-84)
    results: list[MonthResults] = field(default_factory=list)
    sites: list[Site] = field(default_factory=list)
    colonist_sites: list[tuple[OwnUnit, Site | None]] = field(default_factory=list)
    headline: str | None = None  # e.g. "Month 12 has begun." or the game's end
    last_month: int = rd.LAST_MONTH
    waiting_for: list[str] = field(default_factory=list)
    landmarks: list[str] = field(default_factory=list)
    over: bool = False  # the game is over for this kingdom: nothing needs its attention any more
    supply: dict[int, Supply] = field(default_factory=dict)  # own troop id -> where it eats (Observation.supply_of)
    blockading: dict[int, int] = field(default_factory=dict)  # foreign city id -> own men that blockaded it


def spy_line(view: KingdomView, s: Any, names: dict[str, str]) -> str:
    """One stationed spy (INTEL-130, INTEL-140): where, since when, and whether it reported last month; or a
    counter-spy in an own city (INTEL-180)."""
    if s.role != "spy":
        return f"counter-spy in {s.city_name} #{s.city_id} since M{s.since}"
    rep = view.report(s.city_id)
    said = (f"reporting (latest M{rep.month})" if rep is not None and rep.month >= view.month - 1 else
            f"last report M{rep.month}" if rep is not None else "no report yet")
    return f"spy inside {s.city_name} #{s.city_id} ({names.get(s.city_owner, s.city_owner)}) since M{s.since}, {said}"


def briefing_data(obs: Observation, **session: Any) -> BriefingInput:
    """The briefing's input: what the kingdom's Observation gives (figures, city sites near its cities and
    colonists, landmarks, where each troop eats, the blockades it holds), with the session's parts (`session`:
    full_rows, prev_view, goal, results, headline...)."""
    view = obs.view
    colonists = [u for u in view.units if u.type == "colonists"]
    near = [(c.q, c.r) for c in view.cities] + [(u.q, u.r) for u in colonists]
    return BriefingInput(
        figures=obs.figures, sites=obs.sites(near=near, radius=SITE_RADIUS, limit=SITES_IN_BRIEFING),
        colonist_sites=[(u, obs.site(u.q, u.r)) for u in colonists], landmarks=landmark_lines(obs),
        last_month=obs.last_month, blockading=obs.blockading,
        supply={u.id: obs.supply_of(u) for u in view.units if u.in_city is None and rd.UNITS[u.type].fighting},
        **session)


def status_lines(view: KingdomView) -> list[str]:
    names = kingdom_names(view)
    caps = " · ".join(f"{k.name}{' (you)' if k.id == view.kingdom else ''} {k.captures}"
                      + (" (fallen)" if k.eliminated else "") for k in view.kingdoms)
    lead = view.lead or {}
    if lead.get("kingdom"):
        who = names.get(lead["kingdom"], lead["kingdom"])
        lead_text = f"lead: {who} strictly ahead {lead.get('months', 0)}/{rd.LEAD_MONTHS} mo"
    else:
        lead_text = "lead: nobody strictly ahead"
    lines = [f"Captures: {caps} — {lead_text}"]
    if len(view.rotation) > 1:
        order = ", then ".join(names.get(k, k) + (" (you)" if k == view.kingdom else "") for k in view.rotation)
        lines.append(f"Acting first this month: {order}")
    if view.ruin is not None:
        ru = view.ruin
        holder = "you" if ru.holder == view.kingdom else names.get(ru.holder, ru.holder)
        lines.append(f"The Ruin: {ru.name} #{ru.city_id} {tile((ru.q, ru.r))}, held by {holder}")
    if view.wars:
        mine = [b if a == view.kingdom else a for a, b in view.wars if view.kingdom in (a, b)]
        others = [f"{names.get(a, a)} vs {names.get(b, b)}" for a, b in view.wars if view.kingdom not in (a, b)]
        parts = ([f"you vs {', '.join(names.get(k, k) for k in mine)}"] if mine else []) + others
        lines.append("Wars: " + "; ".join(parts) + ("" if mine else " (you are at peace with everyone)"))
    else:
        lines.append("Wars: none (everyone at peace; declare_war or an attack with surprise starts one)")
    return lines


def military_lines(view: KingdomView) -> list[str]:
    names = kingdom_names(view)
    by: dict[str, list[str]] = {}
    for m in view.military_buildings:
        by.setdefault(m.kingdom, []).append(f"{m.city} {'+'.join(m.buildings)}")
    return [f"{names.get(k, k)}: {', '.join(v)}" for k, v in by.items()] or ["none yet"]


def landmark_lines(obs: Observation) -> list[str]:
    """Named rivers, ranges and lakes the kingdom has explored, each with one explored tile (MAP-140)."""
    return [f"{name} ({kind}) e.g. {tile(t)}" for name, kind, t in obs.explored_landmarks()]


def briefing(view: KingdomView, data: BriefingInput) -> str:
    """The monthly briefing (TOOLS-020/030/040, OPEN-5/51/82..84)."""
    figs = data.figures
    city_names = {c.id: c.name for c in view.cities}
    names = kingdom_names(view)
    prev = {c.id: c for c in data.prev_view.cities} if (data.prev_view is not None and not data.full_rows) else {}
    city_rows: list[str] = []
    unchanged: list[str] = []
    for c in view.cities:
        fig = figs.cities.get(c.id)
        if fig is None:
            continue
        if data.full_rows or fig.alerts:
            city_rows.append(city_row_full(view, c, fig))
            city_rows.append("   " + focus_line(c, fig))
        elif c.id in prev and city_signature(prev[c.id]) == city_signature(c):
            unchanged.append(f"#{c.id} {c.name}")
        else:
            city_rows.append(city_row_short(view, c, fig))
    troops = [troop_row(view, u, city_names, data.supply.get(u.id)) for u in view.units if rd.UNITS[u.type].fighting]
    others = [troop_row(view, u, city_names) for u in view.units if not rd.UNITS[u.type].fighting]
    generals = [general_row(view, g, city_names) for g in view.generals]
    enemies = []
    for fc in view.foreign_cities:
        row = seen_city_row(view, fc, names)
        rep = view.report(fc.id)
        if rep is not None:
            row += f"; spy report M{rep.month}: {num(rep.people)} people, militia {num(rep.militia)} (get_city {fc.id})"
        if fc.id in data.blockading:
            row += f" — YOU BLOCKADE IT ({num(data.blockading[fc.id])} of your men on its land)"
        enemies.append(row)
    enemies += [seen_unit_row(view, u, names) for u in view.foreign_units]
    enemies += [f"camp #{c.id} {names.get(c.owner, c.owner)} {tile((c.q, c.r))}"
                + (f" {f1(c.grain)} dan" if c.grain is not None else "")
                + (" (now)" if c.in_sight else f" (seen M{c.month})") for c in view.foreign_camps]
    shown = {c.id for c in view.foreign_cities}
    spies = [spy_line(view, s, names) for s in view.spies]
    reports = [f"#{r.city_id} {r.name} (M{r.month}): {num(r.people)} people, walls {f1(r.walls)}, militia "
               f"{num(r.militia)}, garrison " + (", ".join(_report_unit(g) for g in r.garrison) or "none")
               for r in view.reports if r.city_id not in shown]
    camps = [f"camp #{c.id} {tile((c.q, c.r))} {f1(c.grain)}/{rd.CAMP_CAP} dan" for c in view.camps]
    sites = [f"colonists #{u.id} at {tile((u.q, u.r))}: " + (site_line(s) if s else "no site here")
             for u, s in data.colonist_sites]
    sites += [site_line(s) for s in data.sites]
    attention = [] if data.over else attention_lines(view, figs, data.goal_review is not None, data.results)
    output = f"production {num(figs.output)}/mo, army upkeep {f1(figs.upkeep)}/mo"
    if figs.output > 0:
        output += f" ({figs.upkeep_share:.0%})"
    return render_template(
        "briefing.j2", v=view, d=data, headline=data.headline, status=status_lines(view), output=output,
        city_rows=city_rows, unchanged=unchanged, troops=troops, others=others, generals=generals,
        enemies=enemies, spies=spies, reports=reports, camps=camps, sites=sites,
        military=military_lines(view), landmarks=data.landmarks, attention=attention,
        results=results_lines(data.results), full_rows=data.full_rows,
        results_title=("LAST MONTH" if len(data.results) <= 1 else
                       f"SINCE YOUR LAST BRIEFING (months {data.results[0].month}-{data.results[-1].month})"),
        months_left=max(0, data.last_month - view.month),
    )


# =============================================================================================================
# get_city
# =============================================================================================================


def _build_options(city: OwnCity, fig: CityFigures, free: dict[str, list[Tile]]) -> list[str]:
    """Every item the city could queue now, with its price and months at the current rate (TOOLS-120)."""
    from kingdoms.engine import economy as eco

    has = set(city.buildings)
    imps = {i["kind"] for i in city.improvements}
    lines = []
    for b, cost in rd.BUILDINGS.items():
        if b in has:
            continue
        if b == "walls" and "palisade" not in has:
            note = " (needs the palisade first, or queue palisade,walls)"
        else:
            note = ""
        m = months_to_finish(cost, fig.available)
        lines.append(f"{b} {cost} prod, {m if m is not None else '-'} mo{note}")
    for kind, cost in rd.IMPROVEMENTS.items():
        if kind in rd.UNIQUE_IMPROVEMENTS and kind in imps:
            continue
        sites = free.get(kind) or []
        if not sites:
            continue
        m = months_to_finish(cost, fig.available)
        lines.append(f"{kind} {cost} prod, {m if m is not None else '-'} mo; sites "
                     + " ".join(f"{kind}@{t[0]},{t[1]}" for t in sites[:4]) + (" ..." if len(sites) > 4 else ""))
    cap = rd.drill_cap(city.people)
    for name in rd.FIGHTING_TYPES:
        spec = rd.UNITS[name]
        if spec.requires and spec.requires not in has and spec.requires not in imps:
            lines.append(f"{name}: needs a {spec.requires}")
            continue
        batch = int(min(cap, 1000 if name != "catapult" else 100 * max(1, int(cap // 100))))
        price = eco.item_price(name, 1000)
        m = months_to_finish(price, fig.available)
        lines.append(f"{name} {f1(price)} prod per 1,000 men ({spec.requires or 'no building'}); drill cap "
                     f"{num(cap)}/mo; 1,000 men in {m if m is not None else '-'} mo" if name != "catapult" else
                     f"catapult {f1(price)} prod per 1,000 crew (100 crew = 1 engine); {batch} crew a month at most")
    for name in ("colonists", "scout", "spy"):
        price = eco.item_price(name)
        m = months_to_finish(price, fig.available)
        if name == "colonists":
            m = None if m is None else max(m, rd.COLONIST_MIN_MONTHS)
            lines.append(f"colonists {f1(price)} prod + {num(rd.COLONIST_PEOPLE)} people + {rd.COLONIST_GRAIN} dan, "
                         f"{m if m is not None else '-'} mo (at least {rd.COLONIST_MIN_MONTHS})")
        else:
            lines.append(f"{name} {f1(price)} prod, {m if m is not None else '-'} mo")
    return lines


def own_city_text(obs: Observation, city: OwnCity, fig: CityFigures) -> str:
    """get_city for an own city: the full row, each focus, worked tiles, queue, improvements, options."""
    view = obs.view
    free = {kind: obs.free_sites(city.id, kind) for kind in rd.IMPROVEMENTS}
    queue = []
    for n, e in enumerate(city.queue):
        item = e["item"] + (f":{num(e['men'])}" if e.get("men") else "") + (
            f"@{e['tile'][0]},{e['tile'][1]}" if e.get("tile") else "")
        queue.append(f"{n + 1}. {item}" + (f" (paid {f1(e.get('paid') or 0)})" if e.get("paid") else ""))
    look = fig.outlook
    focus_rows = []
    for focus in rd.FOCUSES:
        o = fig.by_focus[focus]
        mark = " (now)" if focus == city.focus else ""
        focus_rows.append(f"{focus}{mark}: production {o.production}/mo, harvest {f1(o.harvest)}, grain {signed(o.net)}/mo, "
                          f"people +{num(o.growth)}/mo, works {', '.join(tile(t) for t in o.worked) or 'centre only'}")
    units = {u.id: u for u in view.units}
    city_names = {c.id: c.name for c in view.cities}
    here = [troop_row(view, units[uid], city_names, obs.supply_of(units[uid])) for uid in city.garrison if uid in units]
    generals = [general_row(view, g, city_names) for g in view.generals if g.city_id == city.id]
    return render_template(
        "city.j2", c=city, row=city_row_full(view, city, fig), focus_rows=focus_rows, queue=queue,
        improvements=[f"{i['kind']} {tile((i['q'], i['r']))}" for i in city.improvements],
        free={k: " ".join(tile(t) for t in v[:8]) for k, v in free.items() if v},
        options=_build_options(city, fig, free), here=here, generals=generals, look=look, fig=fig,
        waiting=(fig.head.waiting if fig.head else None), water=look.water, reach=look.reach,
        size_bonus=f"{look.size_bonus:.2f}", harvest_mult=f"{look.harvest_multiplier:.2f}",
        drill=num(look.drill_cap), counter_spies=city.counter_spies,
    )


def rival_city_text(view: KingdomView, city: SeenCity) -> str:
    """get_city for a city not ours: what the view knows and the latest spy report."""
    names = kingdom_names(view)
    rep = view.report(city.id)
    report_lines: list[str] = []
    if rep is not None:
        report_lines = [
            f"people {num(rep.people)}, focus {rep.focus}, production {rep.production if rep.production is not None else '?'}/mo",
            f"grain {f1(rep.grain)}" + (f"/{rep.granary_cap}" if rep.granary_cap else "")
            + f", walls {f1(rep.walls)}/{f1(rep.walls_max)}, militia {num(rep.militia)}, counter-spies {rep.counter_spies}",
            "buildings: " + (", ".join(rep.buildings) or "none") + "; improvements: "
            + (", ".join(rep.improvements) or "none"),
            "queue: " + (", ".join(str(q.get("item")) + (f":{num(q.get('men'))}" if q.get("men") else "")
                                   for q in rep.queue) or "empty"),
            "garrison: " + ("; ".join(_report_unit(g) for g in rep.garrison) or "none"),
        ]
        if rep.civilians:
            report_lines.append("also inside: " + "; ".join(_report_unit(g) for g in rep.civilians))
    return render_template("rival_city.j2", c=city, row=seen_city_row(view, city, names),
                           owner=names.get(city.owner, city.owner), war=at_war(view, city.owner), rep=rep,
                           report_lines=report_lines)


def _report_unit(g: dict[str, Any]) -> str:
    bits = [f"#{g.get('id')}" if g.get("id") is not None else "", str(g.get("type", ""))]
    if g.get("men"):
        bits.append(num(g.get("men")))
    if g.get("level") is not None:
        bits.append(f"L{g['level']}")
    for key in ("morale", "hunger"):
        if g.get(key) is not None:
            bits.append(f"{key} {f1(g[key])}")
    if g.get("cargo"):
        bits.append(f"{f1(g['cargo'])} dan")
    if g.get("general"):
        lvl = f" L{g['general_level']}" if g.get("general_level") else ""
        bits.append(f"Gen. {g['general']}{lvl}")
    return " ".join(b for b in bits if b)


# =============================================================================================================
# get_map, inspect_tile, get_sites
# =============================================================================================================


def _initial(name: str, taken: set[str]) -> str:
    for ch in name.upper():
        if ch.isalpha() and ch not in taken and ch not in "GPFHM":
            return ch
    for ch in "ABCDEIJKLNOQRSTUVWXYZ":
        if ch not in taken:
            return ch
    return "?"


#: Keys of the supply layer: own cities' land, then own camps' reach.
CITY_KEYS = "abdeijklnoqstuvwxyz"  # no terrain letter (g p f h m, lower case on rivers), no camp c, no r
CAMP_KEYS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _ruler(q0: int, width: int) -> str:
    """A q ruler over `width` map cells whose first has q = q0: every q divisible by 5 written where its cell
    starts (two characters a cell), so no column has to be counted."""
    chars = [" "] * (2 * width + 4)
    for k in range(width):
        q = q0 + k
        if q % 5 == 0:
            label = str(q)
            pos = 2 * k
            if all(c == " " for c in chars[max(0, pos - 1):pos + len(label) + 1]):
                chars[pos:pos + len(label)] = list(label)
    return "".join(chars).rstrip()


def map_text(view: KingdomView, center: Tile | None = None, radius: int | None = None, *,
             supply: dict[Tile, tuple[str, int]] | None = None) -> str:
    """A text map of explored tiles: two characters a tile (terrain, then a marker), r on every row and a q ruler
    over every pair of rows (rows 2k and 2k+1 share the q of each column, so the rows are drawn unshifted). With `supply` (Observation.supply) the second
    character says which own city's land or camp feeds a troop standing there (the supply layer)."""
    names = kingdom_names(view)
    taken: set[str] = {"R", "B"}
    marks_of: dict[str, str] = {}
    for k in view.kingdoms:
        if k.id == view.kingdom:
            continue
        marks_of[k.id] = _initial(k.name, taken)
        taken.add(marks_of[k.id])
    marker: dict[Tile, str] = {}
    listing: list[str] = []

    def inside(t: Tile) -> bool:
        return center is None or radius is None or distance(center, t) <= radius

    if supply is None:
        for fu in view.foreign_units:
            if inside((fu.q, fu.r)):
                spec = rd.UNITS.get(fu.type)
                marker[(fu.q, fu.r)] = "x" if spec is not None and spec.fighting else "v"
        for fcamp in view.foreign_camps:
            marker.setdefault((fcamp.q, fcamp.r), "k")
        for camp in view.camps:
            marker.setdefault((camp.q, camp.r), "c")
        for u in view.units:
            marker[(u.q, u.r)] = "+" if rd.UNITS[u.type].fighting else "o"
        for fc in view.foreign_cities:
            marker[(fc.q, fc.r)] = "R" if fc.ruin else ("B" if fc.owner == rd.BANDITS else marks_of.get(fc.owner, "?"))
    else:
        city_key = {c.id: CITY_KEYS[n] if n < len(CITY_KEYS) else "?" for n, c in enumerate(view.cities)}
        camp_key = {k.id: CAMP_KEYS[n] if n < len(CAMP_KEYS) else "?" for n, k in enumerate(view.camps)}
        for t, (kind, sid) in supply.items():
            marker[t] = (camp_key if kind == "camp" else city_key).get(sid, "?")
    for c in view.cities:
        marker[(c.q, c.r)] = "*"
    mk = masks(view)
    if center is not None and radius is not None:
        r0, r1 = max(0, center[1] - radius), min(view.height - 1, center[1] + radius)
    else:
        r0, r1 = 0, view.height - 1
    grid: dict[int, list[str]] = {}
    used: list[int] = []
    for r in range(r0, r1 + 1):
        cells = []
        for col in range(view.width):
            t = (axial_q(col, r), r)
            i = r * view.width + col
            if inside(t) and mk.explored[i]:
                cells.append(view.terrain_rows[r][col] + marker.get(t, " "))
                used.append(col)
            else:
                cells.append("  ")
        grid[r] = cells
    rows = []
    if used:
        c0, c1 = min(used), max(used)
        ruled: set[int] = set()
        for r, cells in grid.items():
            body = "".join(cells[c0:c1 + 1]).rstrip()
            if not body.strip():
                continue
            first_q = axial_q(c0, r)  # rows 2k and 2k+1 share the q of each column
            if first_q not in ruled:
                ruled.add(first_q)
                rows.append("    q " + _ruler(first_q, c1 - c0 + 1))
            rows.append(f"r{r:>3}| {body}")
    if supply is not None:
        listing = [f"{city_key[c.id]} land of #{c.id} {c.name}" for c in view.cities]
        listing += [f"{camp_key[k.id]} camp #{k.id} {tile((k.q, k.r))}, {f1(k.grain)} dan"
                    + (" (empty: feeds nobody)" if k.grain <= 1e-9 else "") for k in view.camps]
        return render_template("map.j2", v=view, rows=rows, listing=listing, center=center, radius=radius,
                               legend_kingdoms="", supply=True)
    for c in view.cities:
        if inside((c.q, c.r)):
            listing.append(f"* #{c.id} {c.name} {tile((c.q, c.r))} (yours)")
    for fc in view.foreign_cities:
        if inside((fc.q, fc.r)):
            listing.append(f"{marker[(fc.q, fc.r)]} #{fc.id} {fc.name} {tile((fc.q, fc.r))} ({names.get(fc.owner, fc.owner)})")
    for u in view.units:
        if inside((u.q, u.r)):
            size = f" {num(u.men)}" if u.men else ""
            listing.append(f"{'+' if rd.UNITS[u.type].fighting else 'o'} #{u.id} {u.type}{size} {tile((u.q, u.r))}")
    for fu in view.foreign_units:
        if inside((fu.q, fu.r)):
            size = f" {num(fu.men)}" if fu.men is not None else (f" {fu.size}" if fu.size else "")
            when = "" if fu.in_sight else f" seen M{fu.month}"
            listing.append(f"{marker.get((fu.q, fu.r), 'x')} #{fu.id} {names.get(fu.owner, fu.owner)} {fu.type}{size} "
                           f"{tile((fu.q, fu.r))}{when}")
    legend_kingdoms = ", ".join(f"{m} {names.get(k, k)} city" for k, m in marks_of.items())
    return render_template("map.j2", v=view, rows=rows, listing=listing, center=center, radius=radius,
                           legend_kingdoms=legend_kingdoms, supply=False)


def tile_text(obs: Observation, tv: TileView) -> str:
    """inspect_tile: terrain, yields, defence, holder, units, landmark, and whether a city can stand there."""
    view = obs.view
    names = kingdom_names(view)
    q, r = tv.q, tv.r
    if not tv.explored:
        ru = view.ruin
        if ru is not None and (ru.q, ru.r) == (q, r):  # where it is and who holds it are public (VIC-130)
            holder = "you" if ru.holder == view.kingdom else names.get(ru.holder, ru.holder)
            return (f"Tile {tile((q, r))}: The Ruin, {ru.name} #{ru.city_id}, held by {holder} (known to every "
                    "kingdom); its ground and what stands there you have not seen yet — send a scout or a troop "
                    "within sight of it.")
        return (f"Tile {tile((q, r))}: " + ("off the map." if _index(view, q, r) < 0 else
                                           "unexplored — send a scout or a troop within sight of it."))
    t = next(x for x in rd.TERRAINS if x.name == tv.terrain)
    food = t.food + (rd.RIVER_FOOD_BONUS if tv.river else 0)
    move = "impassable" if t.move is None else (
        "river crossing: one move from bank to far bank, cannot stop here" if tv.river and not tv.bridge
        else f"{t.move} move{'s' if t.move > 1 else ''}")
    lines = [f"Tile {tile((q, r))}: {t.name}{' with a river' if tv.river else ''}{' and an old bridge' if tv.bridge else ''}"
             f" — food {food}, production {t.prod}, {move}, defence +{int(t.defence * 100)}%"]
    if tv.landmark:
        lines.append(f"Landmark: {tv.landmark}")
    own = {c.id: c for c in view.cities}
    if not tv.visible:
        lines.append("Not in sight now: who holds it and what stands there is unknown.")
    elif tv.city_id is not None and tv.city_id in own:
        c = own[tv.city_id]
        lines.append(f"Land of your city #{c.id} {c.name}" + (" (its centre)" if (c.q, c.r) == (q, r) else ""))
        imp = next((i for i in c.improvements if (i["q"], i["r"]) == (q, r)), None)
        if imp:
            lines.append(f"Improvement: {imp['kind']}")
    elif tv.holder is not None:
        known = view.city(tv.city_id) if tv.city_id is not None else None
        cname = f" (city #{known.id} {known.name})" if known is not None else ""
        lines.append(f"Land of {names.get(tv.holder, tv.holder)}{cname}")
    else:
        lines.append("Unclaimed land" if t.code not in (rd.W,) else "Open water")
    units = []
    for uid in tv.units:
        u = view.unit(uid)
        if isinstance(u, OwnUnit):
            units.append(f"your #{u.id} {u.type}" + (f" {num(u.men)}" if u.men else ""))
        elif isinstance(u, SeenUnit):
            size = f" {num(u.men)} men" if u.men is not None else (f" {u.size}" if u.size else "")
            units.append(f"#{u.id} {names.get(u.owner, u.owner)} {u.type}{size}")
    for fc in view.foreign_cities:
        if (fc.q, fc.r) == (q, r):
            lines.append("City: " + seen_city_row(view, fc, names))
    if units:
        lines.append("Units: " + "; ".join(units))
    elif tv.visible:
        lines.append("Units: none seen")
    site = obs.site(q, r)
    if site is not None:
        lines.append("A city can be founded here (as far as you can see): " + site_line(site))
    else:
        lines.append("No city can be founded here" + (
            " (mountain or water)" if t.code in (rd.M, rd.W) else
            " (a city or city land on or beside it, or the Ruin)" if tv.visible else " as far as you know"))
    return "\n".join(lines)


def sites_text(obs: Observation, limit: int) -> str:
    """get_sites: the best `limit` city sites the kingdom knows (OPEN-89)."""
    sites = obs.sites(limit=limit)
    return render_template("sites.j2", v=obs.view, lines=[site_line(s) for s in sites], limit=limit)
