"""Diplomacy and the endgame: which city the hard ruler's army goes for, and the state of the race for captures.

`plan(obs, an) -> Strategy`. Every known rival city and the Ruin is a candidate. Its worth: a capture (the
Ruin counts for whoever holds it; one a rival holds is worth a capture taken from it too), a rival's capital
much more (taking it eliminates the kingdom and gives its capital, VIC-030), more again from a rival that leads
the race or is close to its 36 months (VIC-160), and everything more as month 160 nears when the kingdom is not
ahead. Its cost: the months to muster what the engine's siege forecast says takes it (forces.size_siege), to
march there, and to take it. Candidates are screened by a rough guess of the men they need (the walls to batter,
the troops and militia to beat) and only the best few are forecast. A target the army is already committed to
(marching on it, standing by it, attacking it) is kept unless another is far better.

War (DIPLO-040 to DIPLO-090): the ruler never declares war in advance. The army marches to a staging tile outside the
owner's land and strikes when it is all there: the declaration is given in the same month, before the attacks
(a surprise: the rival learns of it when the walls are already under attack). Hence no planner here declares;
the siege planner does, the month it strikes.
"""

from __future__ import annotations

from dataclasses import dataclass

from kingdoms import ruledata as rd
from kingdoms.ai.common import INF
from kingdoms.ai.hard.analysis import Analysis
from kingdoms.ai.hard.forces import (
    UPKEEP_SHARE_PEACE,
    UPKEEP_SHARE_WAR,
    SiegeSize,
    can_raise,
    queued_troops,
    size_siege,
    upkeep_room,
)
from kingdoms.frozen import record
from kingdoms.hexgrid import Tile, distance
from kingdoms.views.kingdom_view import SeenCity

#: Months a siege may take, by the forecast, for a target to be worth it: the bandits never get help; a kingdom
#: at war with us has had time to wall and garrison; one at peace must fall at once, before it can answer the
#: surprise (it recruits 1,000-4,000 men a month into its garrison, RECRUIT-110).
SIEGE_MONTHS = 4
RUIN_SIEGE_MONTHS = 6
SURPRISE_MONTHS = 2
#: Candidates forecast in full each month (after the rough screen).
FORECAST_CANDIDATES = 2
#: A committed target is kept unless another scores this many times better.
KEEP_FACTOR = 2.5


@record
class Aim:
    """The city the army goes for, and what the forecast says it takes."""

    city_id: int
    name: str
    owner: str
    tile: Tile
    kind: str  # "capital" | "city" | "ruin"
    value: float
    size: SiegeSize
    months: float  # muster + march + siege, roughly
    score: float
    committed: bool
    horizon: int  # months its siege may take by the forecast


@dataclass(slots=True)
class Strategy:
    """The ruler's aim this month and the standing of the race."""

    aim: Aim | None
    share: float  # share of output the army's upkeep may take
    leader: str | None  # the kingdom strictly ahead on captures, if any
    lead_months: int
    urgent: bool  # a rival's lead is near its 36 months, or the game near its end without a lead of ours
    notes: list[str]
    go_anyway: bool = False  # march on the aim even if the forecast says it may not fall in time


def breaks_lead(an: Analysis, city: SeenCity, kind: str) -> bool:
    """Taking the city ends a rival's lead (VIC-160): it is the leader's, or it brings us level with it."""
    leader = an.leader
    if leader not in an.rivals:
        return False
    lead = an.rivals[leader].captures
    if city.owner == leader and (kind in ("ruin", "capital")):
        return True  # one capture less for it (the Ruin), or it falls altogether (its capital)
    return an.captures + 1 >= lead


def _value(an: Analysis, city: SeenCity, kind: str) -> float:
    """What taking the city is worth to the race for captures."""
    owner = city.owner
    value = 1.0
    rivals = an.rivals
    if kind == "ruin":
        if owner in rivals:
            value += 1.0  # one capture less for its holder
    elif kind == "capital" and owner in rivals:
        value += 2.5  # the kingdom falls with it (VIC-030), its captures with it
        if len(rivals) == 1:
            value += 10.0  # the last rival: the game is won
    if owner in rivals and rivals[owner].captures > an.captures:
        value += 0.5 * (rivals[owner].captures - an.captures)
    if breaks_lead(an, city, kind):
        value += 1.5 + 4.0 * an.lead_months / rd.LEAD_MONTHS  # the nearer its 36 months, the more it is worth
    if not an.leading and an.months_left < 30:
        value += 1.0
    return value


def _rough_men(an: Analysis, city: SeenCity, kind: str) -> float:
    """A rough guess of the men a city needs, for screening only: batter its walls over two months, beat its
    troops twice over and its militia (the forecast then sizes the chosen ones)."""
    walls = float(city.walls if city.walls is not None else (rd.RUIN_WALLS if city.ruin else 40))
    troops = {None: 0, "small": 1500, "medium": 4000, "large": 9000, "huge": 15000}.get(city.troops, 3000)
    if city.ruin and city.owner == rd.BANDITS and not city.in_sight:
        troops = rd.RUIN_GARRISON
    militia = 3000 if kind == "capital" and an.month < rd.YOUNG_REALM_UNTIL else 1000
    batter = walls / rd.BATTER_PER_1000 * 1000 / 2
    if walls > 60 and can_raise(an, "catapult"):
        batter = 2000
    return max(batter, 2.0 * troops + militia + 2000)


def army_units(an: Analysis, reserved: set[int]) -> list:
    """The field army: every fighting troop (siege trains included) the defence does not keep."""
    units = list(an.field) + [u for u in an.garrison.values()]
    return sorted((u for u in units if u.id not in reserved and u.men >= 100), key=lambda u: u.id)


def _army_centre(an: Analysis, army: list) -> Tile:
    """Where the field army stands (its largest troop), else the capital."""
    troops = [u for u in army if u.type != "catapult"]
    if not troops:
        return (an.capital.q, an.capital.r)
    big = max(troops, key=lambda u: (u.men, -u.id))
    return (big.q, big.r)


def _committed(an: Analysis, army: list, tile: Tile) -> bool:
    """The army is set on `tile`: a standing attack on it, a march ending near it, or troops standing by it."""
    for u in army:
        st = u.standing or {}
        to = tuple(st.get("to") or ())
        if st.get("action") == "attack" and to == tile:
            return True
        if st.get("action") == "move" and len(to) == 2 and distance(to, tile) <= 3:
            return True
        if rd.UNITS[u.type].fighting and u.men >= 1000 and distance((u.q, u.r), tile) <= 3:
            return True
    return False


def _candidates(an: Analysis) -> list[tuple[SeenCity, str]]:
    """Known cities worth taking: rival cities, and the Ruin while another holds it."""
    out: list[tuple[SeenCity, str]] = []
    view = an.obs.view
    for c in sorted(view.foreign_cities, key=lambda c: c.id):
        if c.ruin:
            if c.owner != an.kingdom:
                out.append((c, "ruin"))
            continue
        if c.owner not in an.rivals:
            continue
        r = an.rivals[c.owner]
        kind = "capital" if r.capital is not None and r.capital.id == c.id else "city"
        out.append((c, kind))
    ruin = view.ruin
    if ruin is not None and ruin.holder != an.kingdom and not any(k == "ruin" for _, k in out):
        seen = an.obs.known_city(ruin.city_id)
        if isinstance(seen, SeenCity):
            out.append((seen, "ruin"))
    return out


def horizon(an: Analysis, owner: str, desperate: bool = False) -> int:
    """Months a siege of a city of `owner` may take by the forecast (SIEGE_MONTHS and its kin above)."""
    if owner == rd.BANDITS or desperate:
        return RUIN_SIEGE_MONTHS
    return SIEGE_MONTHS if owner in an.enemies else SURPRISE_MONTHS


def _aim(an: Analysis, city: SeenCity, kind: str, size: SiegeSize, months: float, committed: bool, months_ok: int,
         production: float, desperate: bool) -> Aim:
    """A candidate as an Aim, scored: its worth over the months to muster, march and take it."""
    recruit_cost = sum(an.obs.price(t.type, t.men) for t in size.recruits)
    muster = recruit_cost / production + len(size.recruits) * 0.5
    total = months - 2.0 + muster + float(size.taken_in or months_ok)
    value = _value(an, city, kind)
    odds = 1.0 if size.feasible else (0.6 if desperate and breaks_lead(an, city, kind) else 0.3)
    score = value / (total + 3.0) * (KEEP_FACTOR if committed else 1.0) * odds
    return Aim(city.id, city.name, city.owner, (city.q, city.r), kind, value, size, total, score, committed, months_ok)


def siege_months(an: Analysis, aim: Aim) -> int:
    """Months a siege of the aim may take by the forecast."""
    return aim.horizon


def plan(an: Analysis, reserved: set[int]) -> Strategy:
    """The month's aim and the race, from the analysis and the troops the defence keeps (`reserved`)."""
    notes: list[str] = []
    leader = an.leader if an.leader in an.rivals else (an.kingdom if an.leader == an.kingdom else None)
    urgent = (leader in an.rivals and an.lead_months >= 18) or (not an.leading and an.months_left < 30)
    share = UPKEEP_SHARE_WAR
    units = army_units(an, reserved)
    army = [u.id for u in units]
    centre = _army_centre(an, units)
    from_army = an.field_from(centre)
    room = upkeep_room(an, UPKEEP_SHARE_WAR)
    cap_men = int(min(20000, room) // 1000 * 1000)
    production = max(1.0, an.output - an.upkeep)
    coming = queued_troops(an)
    scored: list[tuple[float, int, SeenCity, str, float, bool]] = []
    for city, kind in _candidates(an):
        value = _value(an, city, kind)
        i = an.idx((city.q, city.r))
        cost = float(from_army[i])
        if cost >= INF / 2:
            cost = float(distance(centre, (city.q, city.r))) * 1.6
        march = cost / 3.0
        have = sum(u.men for u in units if not rd.UNITS[u.type].shooter) + sum(t.men for t in coming)
        need = max(0.0, _rough_men(an, city, kind) - have)
        reach = 1.0 if need <= cap_men + 1000 else 0.3
        muster = need / 1000.0 * 8.0 / production
        committed = _committed(an, units, (city.q, city.r))
        months = march + muster + 2.0
        score = value / (months + 3.0) * (KEEP_FACTOR if committed else 1.0) * reach
        scored.append((score, city.id, city, kind, months, committed))
    scored.sort(key=lambda x: (-x[0], x[1]))
    if an.leading:
        # Ahead in the race: hold what we have (VIC-160); go out only for a kingdom's capital or something close
        # and cheap, never a long campaign that leaves our captures open.
        scored = [x for x in scored if x[5] or x[4] <= 5.0 or (x[3] == "capital" and x[4] <= 8.0)]
    desperate = leader in an.rivals and an.lead_months >= 20
    best: Aim | None = None
    # A campaign under way goes on while the forecast still takes its city: at war (the siege begun) at the middle
    # of what the city may hold, over a longer siege; before the strike at the top, over the strike's months.
    held = sorted((x for x in scored if x[5]), key=lambda x: (-x[0], x[1]))
    if held:
        _score, _cid, city, kind, months, _ = held[0]
        begun = city.owner == rd.BANDITS or city.owner in an.enemies
        months_ok = RUIN_SIEGE_MONTHS if begun else horizon(an, city.owner, desperate and breaks_lead(an, city, kind))
        size = size_siege(an, city.id, army, months=months_ok, cap_men=cap_men, start=centre, coming=coming,
                          end=0.5 if begun else 1.0, trials=2)
        if size.feasible:
            best = _aim(an, city, kind, size, months, True, months_ok, production, desperate)
    if best is None:
        for _score, _cid, city, kind, months, committed in scored[:FORECAST_CANDIDATES]:
            months_ok = horizon(an, city.owner, desperate and breaks_lead(an, city, kind))
            size = size_siege(an, city.id, army, months=months_ok, cap_men=cap_men, start=centre, coming=coming)
            aim = _aim(an, city, kind, size, months, committed, months_ok, production, desperate)
            if best is None or (aim.score, -city.id) > (best.score, -best.city_id):
                best = aim
    if leader in an.rivals:
        notes.append(f"{an.rivals[leader].name} leads the race, {an.lead_months} of {rd.LEAD_MONTHS} months")
    elif leader == an.kingdom:
        notes.append(f"we lead the race, {an.lead_months} of {rd.LEAD_MONTHS} months")
    go = best is not None and not best.size.feasible and (
        (desperate and breaks_lead(an, an_city(an, best.city_id), best.kind)) or (not an.leading and an.months_left < 25))
    if best is not None and not best.size.feasible and not go:
        # nothing the army could take in time, even as big as the kingdom can keep it: no more recruits for now,
        # production goes to the cities until a target opens (a spy's report, a rival's army gone elsewhere)
        share = UPKEEP_SHARE_PEACE
    return Strategy(best, share, leader, an.lead_months, urgent, notes, go)


def an_city(an: Analysis, city_id: int) -> SeenCity:
    """The view's record of a known foreign city."""
    c = an.obs.known_city(city_id)
    assert isinstance(c, SeenCity)
    return c


