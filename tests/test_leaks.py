"""Leak tests of "Intelligence and fog of war": FOG IS A SECURITY BOUNDARY (INTEL-010..220, OPEN-30, OPEN-49, OPEN-50, OPEN-51, OPEN-90).

1. A played campaign (tests/leakcheck.py has the method): two random maps (2 and 4 kingdoms) and the default
   scenario, 25-35 months each, scripted rulers (the AI levels plus spies, scouts and a war), every kingdom
   checked every month — every tool answer rendered on two canary copies of the true state that differ only
   in what that kingdom may not know, compared character for character, searched for hidden canaries, with
   shown canaries that must appear, unseen ids answered like nonexistent ones, sight against an oracle
   written from the rules, and each seat's texts kept from the others. Its findings are split by surface:
   the reading tools, the order previews and refusals, the seats, the AI rulers.
2. A planted leak the harness must catch, so the campaign cannot pass for the wrong reason.
3. Precise tests, on hand-made worlds, of every leak the campaign found (each docstring quotes what leaked,
   where, before the fix: 0a72f1d attack estimates, 5636400 checks on the believed board) and of the rules it
   relies on.
4. Cross-seat security: a seat's token never reads or acts for another seat (in memory and over HTTP).
5. The observation boundary, by structure: no view or AI module but views.observation (and the view builder
   it calls) imports the true-state types or the game service, nor reads an Observation's private state.
"""

from __future__ import annotations

import ast
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from kingdoms.game import Game
from kingdoms.server import build_server
from kingdoms.session import Session
from kingdoms.state import GameState

from . import leakcheck as lc
from .builders import add, add_city, open_world

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> tuple[lc.Counts, lc.Findings]:
    """Three played games, every kingdom checked every month (about a minute): a random map of 2 kingdoms for
    35 months, one of 4 kingdoms for 25, the default scenario for 30."""
    specs = [
        lc.GameSpec("random2", "random:4242:2", 4242, 35, ["standard"]),
        lc.GameSpec("random4", "random:777:4", 777, 25, ["standard", "passive"]),
        lc.GameSpec("default", None, 20260, 30, ["standard", "passive", "standard"]),
    ]
    counts, findings = lc.run_games(specs, workdir=tmp_path_factory.mktemp("leaks"))
    print("\nLEAK CAMPAIGN (normal run):\n  " + "\n  ".join(counts.lines()))
    return counts, findings


def _clean(findings: lc.Findings, surface: str) -> None:
    assert findings.total(surface=surface) == 0, findings.report(surface)


# =============================================================================================================
# 1. The campaign
# =============================================================================================================


@pytest.mark.campaign
def test_campaign_checked_what_it_claims(campaign: tuple[lc.Counts, lc.Findings]) -> None:
    """The campaign is not vacuous: every month of every game, every seat, thousands of texts, both kinds of
    canary, foreign units of every visibility class, every order verb (INTEL-010..220)."""
    counts, _ = campaign
    assert counts.games == 3 and counts.months >= 80
    assert counts.observations >= 2 * 35 + 4 * 25 + 3 * 30 - 10  # every kingdom every month (a fallen one too)
    assert counts.renders > 20_000 and counts.text_pairs > 10_000
    assert counts.city_ids > 5_000 and counts.tiles > 10_000 and counts.orders > 40_000
    assert counts.committed_refusals > 1_000
    assert counts.hidden_canaries > 3_000 and counts.canary_searches > 500_000
    assert counts.shown_canaries > 100  # watched troops' exact men, cities in sight, ids in sight
    assert counts.unseen_vs_nonexistent > 10_000
    assert counts.deleted["units"] > 100 and counts.deleted["stationed spies"] > 50
    assert counts.unit_classes[lc.HIDDEN] > 100 and counts.unit_classes[lc.EXACT] > 10
    assert counts.unit_classes[lc.INSIDE] + counts.unit_classes[lc.CLASS] > 5
    assert counts.ai_decisions > 100 and counts.mcp_calls > 200 and counts.foreign_texts > 500


@pytest.mark.campaign
def test_campaign_reading_tools_leak_nothing(campaign: tuple[lc.Counts, lc.Findings]) -> None:
    """get_briefing, get_city (every id: own, rival, unknown, nonexistent), get_map (whole and windows),
    inspect_tile, get_sites, wait_for_turn, get_history, get_game_record: identical on both canary copies, no
    hidden canary, every shown canary shown, an unseen city answered exactly like a nonexistent one, the
    engine's sight equal to the rules' (INTEL-010..150, OPEN-30, OPEN-49, OPEN-50, OPEN-51, OPEN-90, MAP-190)."""
    _clean(campaign[1], "read")


@pytest.mark.campaign
def test_campaign_orders_leak_nothing(campaign: tuple[lc.Counts, lc.Findings]) -> None:
    """issue_orders previews and refusals naming every id in every verb, and attacks, marches and pillage
    aimed at every foreign thing's tile: identical on both canary copies and an unseen id refused exactly like a
    nonexistent one (INTEL-050, INTEL-060, COMBAT-380, COMBAT-410, TURN-170). (Before 5636400 this found move and attack
    checks and previews reading the true board: the precise tests below.)"""
    _clean(campaign[1], "orders")


@pytest.mark.campaign
def test_campaign_seats_stay_apart(campaign: tuple[lc.Counts, lc.Findings]) -> None:
    """Each seat plays through its own MCP client and token: no other seat's note, goal, event or order result
    reaches it, and no order it sends for a unit or city not its own is ever queued."""
    _clean(campaign[1], "seat")


@pytest.mark.campaign
def test_campaign_ai_rulers_use_only_their_view(campaign: tuple[lc.Counts, lc.Findings]) -> None:
    """An AI ruler's orders are the same on both canary copies: it decides from its kingdom's view alone."""
    _clean(campaign[1], "ai")


# =============================================================================================================
# 2. The harness catches a planted leak
# =============================================================================================================


def test_harness_catches_planted_leaks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Four deliberate leaks, each of a different kind, must each be reported: a briefing line built from the true
    state (every city's name and the total of all troops), get_city telling an unknown city from a missing id,
    order refusals telling an unseen unit from a missing one, and a scout that sees 5 tiles instead of 4."""
    import re

    from kingdoms import ruledata as rd
    from kingdoms.game import Game as RealGame

    real_briefing = Session.briefing_text

    def leaky_briefing(self: Any, kingdom: str, **kw: Any) -> str:
        state = self.game.state()
        extra = "\nSECRETS: " + ", ".join(c.name for c in state.cities.values()) + \
            f"; all troops {sum(u.men for u in state.units.values()):,}"
        return real_briefing(self, kingdom, **kw) + extra

    real_get_city = Session.get_city

    def leaky_get_city(self: Any, kingdom: str, city_id: int) -> str:
        if city_id in self.game.state().cities:
            return f"City #{city_id} is out of your sight."
        return real_get_city(self, kingdom, city_id)

    real_issue = RealGame.issue

    def leaky_issue(self: Any, kingdom: str, orders: Any, **kw: Any) -> Any:
        verdicts = real_issue(self, kingdom, orders, **kw)
        for v in verdicts:
            m = re.search(r"no unit #(\d+)", v.message)
            if v.code == "unknown_unit" and m and int(m.group(1)) in self.state().units:
                v.message = f"unit #{m.group(1)} is out of your sight"
        return verdicts

    monkeypatch.setattr(Session, "briefing_text", leaky_briefing)
    monkeypatch.setattr(Session, "get_city", leaky_get_city)
    monkeypatch.setattr(RealGame, "issue", leaky_issue)
    monkeypatch.setitem(rd.SIGHT, "scout", 5)
    spec = lc.GameSpec("planted", "random:5:2", 5, 4, ["standard"])
    counts, findings = lc.run_games([spec], workdir=tmp_path, check_ai=False)
    assert counts.observations == 8
    assert any("name of unknown city" in f.detail for f in findings.of("canary", surface="read"))
    assert any("get_briefing" in f.where for f in findings.of("diff", surface="read"))
    assert findings.total("unseen", surface="read") > 0  # get_city
    assert findings.total("unseen", surface="orders") > 0  # the refusals
    assert findings.total("sight") > 0


# =============================================================================================================
# 3. Precise tests on hand-made worlds
# =============================================================================================================


class Seats:
    """Game files made from hand-made states, and a Session (what the MCP server serves) on each."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.n = 0
        self.desks: list[Session] = []
        self.tokens: dict[Path, dict[str, str]] = {}

    def desk(self, state: GameState) -> Session:
        self.n += 1
        path = self.tmp / f"w{self.n}.sqlite"
        game, self.tokens[path] = Game.create(path, state, scenario="test",
                                              controllers={k: "agent" for k in state.kingdoms}, deadline_s=1e9)
        game.close()
        d = Session(path)
        self.desks.append(d)
        return d

    def preview(self, state: GameState, kingdom: str, orders: str) -> list[str]:
        """The per-order answers of a preview (the text after each order's position)."""
        d = self.desk(state)
        reply = d.issue(kingdom, orders, note=None, goal=None, verbose=True, preview=True, end_turn=False,
                        fast_forward=0)[0]
        return [body for _, body in sorted(lc.split_reply(reply).items())]

    def close(self) -> None:
        for d in self.desks:
            d.close()


@pytest.fixture
def seats(tmp_path: Path) -> Any:
    s = Seats(tmp_path)
    yield s
    s.close()


def two_kingdoms(*, war: bool = False) -> tuple[GameState, int]:
    """wei's capital at (2,2) and a 3,000 levy #L at (3,5); shu's capital far off at (16,11); a 20 x 14 open map.
    wei sees 2 tiles around its troop and city and one beyond its land: nothing east of q=6 on row 5."""
    s = open_world()
    add_city(s, "wei", (2, 2), capital=True)
    add_city(s, "shu", (16, 11), capital=True)
    lev = add(s, "wei", "levy", (3, 5), men=3000, rations=12.0)
    if war:
        s.wars.append(["shu", "wei"])
    return s, lev.id


def _unseen(state: GameState, kingdom: str, q: int, r: int) -> bool:
    from kingdoms.engine.sight import sight_of

    return not sight_of(state, kingdom).sees(state.map, q, r)


@pytest.mark.parametrize("kind", ["levy", "scout", "wagon", "colonists"])
def test_intel_050_move_onto_an_unseen_unit_answers_as_if_none_stood_there(seats: Seats, kind: str) -> None:
    """INTEL-050, COMBAT-380: a move to a tile out of sight is judged by the map as the kingdom knows it; an unseen
    foreign unit there must change nothing in the answer.

    Leaked before 5636400 (kingdoms/engine/movement.py move_goal, on the true board): a troop there gave
    `occupied: (11,5) is held by a foreign levy` (its presence and type); a scout, wagon or colonists gave the
    note `a foreign unit stands on (11,5): the march stops beside it` — from pathing.Ground's blocked/noend
    marks for every foreign unit."""
    clear, lev = two_kingdoms()
    hidden, _ = two_kingdoms()
    add(hidden, "shu", kind, (11, 5), men=3000 if kind in ("levy", "colonists") else 0, cargo=10.0, months=0)
    assert _unseen(hidden, "wei", 11, 5)
    assert seats.preview(hidden, "wei", f"move unit={lev} to=11,5") == \
        seats.preview(clear, "wei", f"move unit={lev} to=11,5")


def test_intel_050_move_onto_an_unknown_city_does_not_name_it(seats: Seats) -> None:
    """INTEL-030, INTEL-050: a city the kingdom has never seen is unknown: an order toward its tile must not name it or
    its owner.

    Leaked before 5636400 (kingdoms/engine/movement.py:178-182, move_goal): `foreign_city: (11,5) is <name>, a
    city of Shu Han: attack it to take it`, from state.city_at on the true board."""
    s, lev = two_kingdoms()
    hidden = add_city(s, "shu", (11, 5), name="Qxhiddencity")
    assert _unseen(s, "wei", 11, 5)
    (answer,) = seats.preview(s, "wei", f"move unit={lev} to=11,5")
    assert hidden.name not in answer and "Shu Han" not in answer, answer


def test_intel_010_move_into_unseen_foreign_land_does_not_tell_whose_it_is(seats: Seats) -> None:
    """INTEL-010: a kingdom sees its own land and one tile beyond; whose land lies out of sight is unknown, so a
    move into it is answered as a move into free land (the march meets the border when it gets there, MOVE-320).

    Leaked before 5636400 (movement.py move_goal `closed_border`, pathing.Ground._close_peace_land): `(13,5) is
    land of Shu Han, at peace with you and closed to your troops`, from the true tile ownership."""
    clear, lev = two_kingdoms()
    held, _ = two_kingdoms()
    add_city(held, "shu", (14, 5))
    assert _unseen(held, "wei", 13, 5) and int(held.owner[held.map.index(13, 5)]) >= 0
    assert seats.preview(held, "wei", f"move unit={lev} to=13,5") == \
        seats.preview(clear, "wei", f"move unit={lev} to=13,5")


def test_intel_050_a_march_is_planned_on_the_known_map(seats: Seats) -> None:
    """COMBAT-380, TURN-170: the route a preview shows is planned on the map as the kingdom knows it; troops out of
    sight on the way change nothing in it (they stop the march when it meets them, at month end).

    Leaked before 5636400 (movement.py:117 and pathing.Ground): `blocked by foreign troops on the way; waits and
    marches on next month` — the route is found on the true board."""
    clear, lev = two_kingdoms()
    walled, _ = two_kingdoms()
    for r in range(0, 14):
        add(walled, "shu", "levy", (8, r), men=2500, months=0)
    assert all(_unseen(walled, "wei", 8, r) for r in range(0, 14))
    assert seats.preview(walled, "wei", f"move unit={lev} to=12,5") == \
        seats.preview(clear, "wei", f"move unit={lev} to=12,5")


@pytest.mark.parametrize("war", [False, True], ids=["peace", "war"])
def test_turn_170_a_previewed_march_does_not_scout_for_free(seats: Seats, war: bool) -> None:
    """TURN-170, INTEL-050: orders are checked against the board after the ones before them, but what a troop
    would see at the end of a previewed march is not seen now: an attack on a tile out of sight is refused
    alike whether or not a unit stands there.

    Leaked before 5636400 (kingdoms/engine/month.py check_orders: the scratch board was a copy of the TRUE
    state, and attack.resolve_target recomputed sight on it after the previewed move): with a shu levy at (8,5)
    the second order answered `at_peace: #N levy at (8,5) belongs to Shu Han` (at war: marches on `#N levy`)."""
    clear, lev = two_kingdoms(war=war)
    hidden, _ = two_kingdoms(war=war)
    add(hidden, "shu", "levy", (8, 5), men=3000, months=0)
    assert _unseen(hidden, "wei", 8, 5)
    orders = f"move unit={lev} to=6,5\nattack unit={lev} to=8,5"
    assert seats.preview(hidden, "wei", orders) == seats.preview(clear, "wei", orders)


def test_intel_060_attack_preview_on_an_unwatched_troop_is_an_estimate(seats: Seats) -> None:
    """INTEL-060, COMBAT-410, INTEL-220: a troop no scout or spy watches is known only by type and size class, so a
    preview against it is an estimate from the class (untrained, full morale, no general) and cannot depend on
    its exact men, morale or XP.

    Leaked before 0a72f1d (attack.py describe_attack_preview, a dry run on the true state): `#3 levy (3,000)
    attacks #4 levy (5,500) at (5,5): they lose 671, you lose 727` — the exact men of a troop seen as `medium`."""
    answers = []
    for men, morale, xp in ((3000, 100.0, 0.0), (5500, 61.5, 35.0)):
        s, lev = two_kingdoms(war=True)
        add(s, "shu", "levy", (5, 5), men=men, morale=morale, xp=xp, months=0)
        answers.append(seats.preview(s, "wei", f"attack unit={lev} to=5,5"))
    assert "5,500" not in answers[1][0], answers[1][0]
    assert answers[0] == answers[1]


def test_combat_410_city_preview_without_a_fresh_report_is_an_estimate(seats: Seats) -> None:
    """COMBAT-410, INTEL-030, INTEL-220, OPEN-30: without a spy report from this month or last, a preview of shooting at and
    assaulting a rival city in sight knows only what the city shows (name, size tier, walls rounded to 5 and their
    state, its troops' size class): its garrison's men, its militia, its people and its exact walls change
    nothing."""
    answers = []
    for garrison, militia, walls, people in ((3000, 2500.0, 31.0, 16000), (5400, 4100.0, 32.2, 31000)):
        s = open_world()
        add_city(s, "wei", (2, 2), capital=True)
        c = add_city(s, "shu", (8, 5), capital=True)
        c.walls_max, c.walls, c.militia, c.people = 40.0, walls, militia, people
        c.buildings.append("palisade")
        add(s, "shu", "spearman", (8, 5), men=garrison, months=0)
        infantry = add(s, "wei", "heavy_infantry", (6, 5), men=6000, rations=12.0)
        engines = add(s, "wei", "catapult", (5, 5), men=600, rations=12.0)
        s.wars.append(["shu", "wei"])
        answers.append(seats.preview(s, "wei", f"attack unit={engines.id} to=8,5\nattack unit={infantry.id} to=8,5"))
    assert answers[0] == answers[1]


def test_intel_050_attack_on_an_unseen_tile_is_refused_like_an_empty_one(seats: Seats) -> None:
    """INTEL-050, COMBAT-380: an attack aimed at a tile out of sight is refused the same whether a unit, a camp or
    nothing stands there (war and peace alike)."""
    for war in (False, True):
        clear, lev = two_kingdoms(war=war)
        hidden, _ = two_kingdoms(war=war)
        add(hidden, "shu", "levy", (11, 5), men=3000, months=0)
        add(hidden, "shu", "wagon", (12, 5), cargo=30.0)
        orders = "\n".join(f"attack unit={lev} to={q},5{flag}" for q in (11, 12) for flag in ("", " hold", " surprise"))
        assert seats.preview(hidden, "wei", orders) == seats.preview(clear, "wei", orders)


def test_intel_050_every_verb_refuses_an_unseen_unit_like_a_missing_one(seats: Seats) -> None:
    """INTEL-050, ARCHITECTURE: a unit the kingdom cannot see is refused exactly like one that does not exist, in
    every slot of every verb that names a unit, city or general (texts compared with the id normalised)."""
    s, lev = two_kingdoms(war=True)
    hidden = add(s, "shu", "levy", (11, 5), men=3000, months=0)
    spy = add(s, "shu", "spy", (3, 4))  # next to wei's troop: spies are never seen (INTEL-090)
    inside = add(s, "shu", "spearman", (16, 11), men=2000, months=0)  # in shu's capital, unseen
    gen = s.new_id()
    from kingdoms.state import General

    s.generals[gen] = General(gen, "shu", "Qxgeneral", unit_id=hidden.id)
    hidden.general_id = gen
    shu_cap = next(c.id for c in s.cities.values() if c.owner == "shu")
    missing = s.next_id + 50
    plan = lc.Plan(ids=[], nx=missing, home=(2, 2), near=(3, 3), troops=[lev], actor=lev, spy=missing + 1,
                   general=missing + 2, known_city=next(c.id for c in s.cities.values() if c.owner == "wei"),
                   windows=[], tiles=[], attack_tiles=[], templates=[])
    ids = [hidden.id, spy.id, inside.id, gen, shu_cap, missing]
    desk = seats.desk(s)
    compared = 0
    for name, _kind, tpl in lc.probe_templates(plan):
        lines = [tpl.format(i=i) for i in ids]
        reply = desk.issue("wei", "\n".join(lines), note=None, goal=None, verbose=True, preview=True,
                           end_turn=False, fast_forward=0)[0]
        answers = lc.split_reply(reply)
        ref = lc.normalise(answers[len(ids)], missing)
        for pos, ident in enumerate(ids[:-1], 1):
            assert lc.normalise(answers[pos], ident) == ref, (name, ident, answers[pos], answers[len(ids)])
            compared += 1
    assert compared == 18 * 5


def test_map_190_sites_tiles_and_map_ignore_a_city_founded_out_of_sight(seats: Seats) -> None:
    """MAP-190, CITY-450, OPEN-89: a rival city founded where the kingdom looked once but cannot see now is not on
    its map: get_sites, inspect_tile beside it, get_map and the briefing read exactly as without it."""
    from .builders import reveal

    texts = []
    for hidden in (False, True):
        s, _ = two_kingdoms()
        reveal(s, "wei")  # wei once saw the whole board as it stood
        if hidden:
            add_city(s, "shu", (11, 8), name="Qxnewtown")
        assert _unseen(s, "wei", 11, 8)
        d = seats.desk(s)
        texts.append([d.get_sites("wei", 200), d.inspect_tile("wei", 11, 7), d.inspect_tile("wei", 12, 9),
                      d.inspect_tile("wei", 11, 8), d.get_map("wei", None, None), d.get_briefing("wei")[0]])
    assert texts[0] == texts[1]


def test_canary_search_reads_numbers_in_every_format() -> None:
    """The canary search finds a number with or without thousands separators, rounded or with its decimal, and
    never inside another number or a coordinate."""
    keys = lc.number_keys(4817.63)
    for text in ("men 4,817", "men 4817 ", "grain 4,817.6 dan", "4818 dan", "(4,817.63)"):
        assert keys & lc.number_tokens(text), text
    for text in ("14,817", "48,170", "(48,17)", "4,81", "48.17", "4,8170"):
        assert not keys & lc.number_tokens(text), text
    assert lc.name_tokens("a city Qxcity12A, and Qxgen7B.") == {"Qxcity12A", "Qxgen7B"}
    assert lc.normalise("move unit=13 to=13,2: no unit #13; #130 dan=13 city=13", 13) == \
        "move unit=ID to=13,2: no unit #ID; #130 dan=13 city=ID"


@pytest.mark.anyio
async def test_intel_050_get_city_of_an_unknown_city_answers_like_a_missing_one(seats: Seats) -> None:
    """TOOLS-120, INTEL-050 through the MCP client: get_city of a rival city never seen is the same tool error as
    get_city of an id that exists nowhere, and names nothing of it."""
    s, _ = two_kingdoms()
    shu_cap = next(c for c in s.cities.values() if c.owner == "shu")
    desk = seats.desk(s)
    server = build_server(desk.path, token=seats.tokens[desk.path]["wei"])
    try:
        async with Client(server) as c:
            r1 = await c.call_tool("get_city", {"city_id": shu_cap.id})
            r2 = await c.call_tool("get_city", {"city_id": 999})
    finally:
        server.session.close()  # type: ignore[attr-defined]
    t1 = "\n".join(x.text for x in r1.content)
    t2 = "\n".join(x.text for x in r2.content)
    assert r1.is_error and r2.is_error
    assert lc.normalise(t1, shu_cap.id) == lc.normalise(t2, 999)
    assert shu_cap.name not in t1 and "Shu Han" not in t1


# =============================================================================================================
# 4. Cross-seat security
# =============================================================================================================


def _duel_game(path: Path) -> dict[str, str]:
    from kingdoms.scenario import load_scenario
    from kingdoms.setup import build_state

    state = build_state(load_scenario("duel"), 7)
    game, tokens = Game.create(path, state, scenario="duel", controllers={"wei": "agent", "shu": "agent"},
                               deadline_s=1e9)
    game.close()
    return tokens


async def _call(c: Client, tool: str, args: dict[str, Any] | None = None) -> tuple[bool, str]:
    r = await c.call_tool(tool, args or {})
    return bool(r.is_error), "\n".join(getattr(x, "text", "") for x in r.content)


@pytest.mark.anyio
async def test_a_seat_never_acts_for_another_in_memory(tmp_path: Path) -> None:
    """A server built for wei's token: every verb aimed at shu's units and cities is refused (shu's capital and
    levy are out of wei's sight: `unknown_unit` / `unknown_city`, exactly as for ids that exist nowhere);
    nothing is queued for either seat; wei ending its month does not end shu's; shu's troops and queue are
    untouched after the month resolves."""
    path = tmp_path / "g.sqlite"
    tokens = _duel_game(path)
    game = Game.open(path)
    st = game.state()
    shu_unit = next(u.id for u in st.units.values() if u.owner == "shu")
    shu_city = next(c.id for c in st.cities.values() if c.owner == "shu")
    shu_gen = next(g.id for g in st.generals.values() if g.owner == "shu")
    wei_unit = next(u.id for u in st.units.values() if u.owner == "wei")
    before = {u.id: (u.q, u.r, u.men) for u in st.units.values() if u.owner == "shu"}
    game.close()
    def orders_for(u: int, c: int, g: int) -> list[str]:
        return [f"move unit={u} to=4,20", f"hold unit={u}", f"disband unit={u}", f"split unit={u} men=100 to=4,20",
                f"build unit={u} what=camp", f"attack unit={u} to=16,3", f"set_focus city={c} focus=production",
                f"set_production city={c} queue=palisade", f"ship_grain city={c} dan=5 to=16,3",
                f"assign_general general={g} unit={wei_unit}", f"follow unit={wei_unit} target={u}",
                f"merge unit={wei_unit} target={u}"]

    real, ghost = (shu_unit, shu_city, shu_gen), (990, 991, 992)
    server = build_server(path, token=tokens["wei"], wait_s=0.2, poll_s=0.05)
    try:
        async with Client(server) as c:
            answers = []
            for ids in (real, ghost):
                err, reply = await _call(c, "issue_orders", {"orders": "\n".join(orders_for(*ids)), "verbose": True})
                assert not err and "Month 1: 0 of 12 orders queued, 12 REFUSED" in reply, reply
                answers.append(lc.split_reply(reply))
            assert "[unknown_unit]" in answers[0][1] and "[unknown_city]" in answers[0][7]
            assert not any("not_your" in a for a in answers[0].values())  # out of sight: not even whose it is
            for pos in answers[0]:  # id for id, the same as for ids that exist nowhere
                a, b = answers[0][pos], answers[1][pos]
                for x, y in zip(real, ghost, strict=True):
                    a, b = lc.normalise(a, x), lc.normalise(b, y)
                assert a == b, (pos, a, b)
            err, text = await _call(c, "issue_orders", {"orders": "", "end_turn": True})
            assert not err and "Still waiting" in text
    finally:
        server.session.close()  # type: ignore[attr-defined]
    game = Game.open(path)
    assert game.queued("wei", 1) == [] and game.queued("shu", 1) == []
    assert game.store.ended(1) == {"wei": "ended"} and game.waiting_for() == ["shu"]
    assert game.end_month("shu")
    after = {u.id: (u.q, u.r, u.men) for u in game.state().units.values() if u.owner == "shu"}
    assert after == before and game.state().cities[shu_city].queue == []
    game.close()


@pytest.mark.anyio
async def test_a_seat_never_reads_another_seats_words(tmp_path: Path) -> None:
    """Notes, goals, dispatches, calls and replies of one seat never reach the other: not in get_history, not in
    a briefing, not in the game record written for it (OPEN-85, TOOLS-430, TOOLS-480, TOOLS-490)."""
    from kingdoms import ruledata as rd
    from kingdoms.scenario import load_scenario
    from kingdoms.setup import build_state

    path = tmp_path / "g.sqlite"
    state = build_state(load_scenario("duel"), 7)
    state.month = rd.LAST_MONTH - 1
    game, tokens = Game.create(path, state, scenario="duel", controllers={"wei": "agent", "shu": "agent"},
                               deadline_s=1e9)
    game.close()
    secret = {"wei": "QxWeiSecretPlan", "shu": "QxShuSecretPlan"}
    servers = {k: build_server(path, token=tokens[k], wait_s=0, poll_s=0) for k in tokens}
    texts: dict[str, list[str]] = {"wei": [], "shu": []}
    try:
        async with Client(servers["wei"]) as wei, Client(servers["shu"]) as shu:
            clients = {"wei": wei, "shu": shu}
            own = {"wei": "hold unit=2\nset_focus city=1 focus=food", "shu": "hold unit=5\nset_focus city=4 focus=food"}
            for month in (1, 2):
                for k, c in clients.items():
                    await _call(c, "submit_dispatch", {"report": f"{secret[k]} dispatch {month}", "final": False})
                    for tool, args in (("get_briefing", {}),
                                       ("issue_orders", {"orders": own[k], "note": f"{secret[k]} note",
                                                         "goal": f"{secret[k]} goal", "end_turn": True}),
                                       ("wait_for_turn", {}), ("get_history", {})):
                        texts[k].append((await _call(c, tool, args))[1])
            for k, c in clients.items():
                await _call(c, "submit_dispatch", {"report": f"{secret[k]} final", "final": True})
                err, rec = await _call(c, "get_game_record", {})
                assert not err and "The game is over" in rec, rec
                texts[k].append(rec)
                record = path.with_suffix(f".{k}.record.json")
                texts[k].append(record.read_text(encoding="utf-8"))
                texts[k].append((await _call(c, "get_history", {}))[1])
    finally:
        for s in servers.values():
            s.session.close()  # type: ignore[attr-defined]
    for k, other in (("wei", "shu"), ("shu", "wei")):
        mine = "\n".join(texts[k])
        assert secret[k] in mine  # its own words are there...
        assert secret[other] not in mine  # ...the other's never
    game = Game.open(path)
    assert all(h["kingdom"] == "wei" for h in game.store.history("wei"))
    game.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@asynccontextmanager
async def _http(url: str, headers: dict[str, str]) -> AsyncIterator[tuple[Client, Any]]:
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async with create_mcp_http_client(headers=headers) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            yield client, http


@pytest.mark.long
@pytest.mark.anyio
async def test_http_the_seat_follows_the_token_not_the_session(tmp_path: Path) -> None:
    """Over streamable HTTP every request is seated by its own `Authorization: Bearer` token: within ONE open MCP
    connection, switching the header switches the seat, dropping it or forging it is refused (HTTP 401) before
    any tool runs, with no data; the scheme is case-insensitive, the token is not, and only the whole token
    counts. Each seat's history holds only its own calls. (A 2025-era session id is bound to the seat that
    opened it: tests/test_mcp_edges.py.)"""
    import anyio

    path = tmp_path / "g.sqlite"
    tokens = _duel_game(path)
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "kingdoms.cli", "serve", str(path), "--http", "--port", str(port)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.time() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                if time.time() > deadline or proc.poll() is not None:
                    raise AssertionError(proc.stderr.read().decode() if proc.stderr else "no server") from None
                await anyio.sleep(0.1)
        url = f"http://127.0.0.1:{port}/mcp"
        with anyio.fail_after(60):
            async with _http(url, {"Authorization": f"Bearer {tokens['wei']}"}) as (c, http):
                err, text = await _call(c, "get_briefing")
                assert not err and "== Cao Wei (" in text and "#4 Chengdu" not in text
                err, text = await _call(c, "issue_orders", {"orders": "set_focus city=1 focus=food", "note": "QxWeiNote"})
                assert not err and "1 of 1 order queued" in text, text
                http.headers["Authorization"] = f"bearer {tokens['shu']}"  # same session, the other seat
                err, text = await _call(c, "get_briefing")
                assert not err and "== Shu Han (" in text and "#1 Xuchang" not in text
                err, text = await _call(c, "get_history")
                assert "QxWeiNote" not in text and "set_focus city=1" not in text
                for bad in ("", "Bearer", f"Basic {tokens['shu']}", f"Bearer {tokens['shu'].upper()}",
                            f"Bearer {tokens['shu'][:-1]}", f"Bearer {tokens['shu']}x",
                            f"Bearer {tokens['wei']}{tokens['shu']}", f"Token {tokens['wei']}"):
                    if bad:
                        http.headers["Authorization"] = bad
                    else:
                        http.headers.pop("Authorization", None)
                    for tool, args in (("get_briefing", {}), ("get_history", {}),
                                       ("issue_orders", {"orders": "hold unit=2", "end_turn": True})):
                        with pytest.raises(MCPError) as refused:  # HTTP 401 before any tool runs
                            await _call(c, tool, args)
                        assert "Cao Wei" not in str(refused.value) and "Shu Han" not in str(refused.value)
                http.headers["Authorization"] = f"Bearer  {tokens['wei']}"
                err, text = await _call(c, "get_history")
                assert not err and "QxWeiNote" in text
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    game = Game.open(path)
    assert [o.action for o in game.queued("wei")] == ["set_focus"] and game.queued("shu") == []
    assert game.store.ended(1) == {}
    assert all("QxWeiNote" not in h["text"] for h in game.store.history("shu"))
    game.close()


# =============================================================================================================
# 5. The observation boundary
# =============================================================================================================

#: Modules that hold or hand out the true state: only views.observation (and kingdom_view, the view builder it
#: calls, and forecast, the fights it runs on a copy of the believed board) may import them among the views and
#: the AI rulers.
TRUE_STATE_MODULES = ("kingdoms.state", "kingdoms.game", "kingdoms.storage", "kingdoms.session", "kingdoms.server")
#: The view modules allowed to read the true state: the boundary itself.
BOUNDARY = ("observation.py", "kingdom_view.py", "forecast.py")


def boundary_breaches(source: str) -> list[str]:
    """Every import of a true-state module (anywhere: module level, a function, a TYPE_CHECKING block) and every
    read of an Observation's private `_state` in a module's source, as "line: what"."""
    found = []
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Attribute) and node.attr == "_state":
            found.append(f"{node.lineno}: reads ._state")
        for name in names:
            if any(name == m or name.startswith(m + ".") for m in TRUE_STATE_MODULES):
                found.append(f"{node.lineno}: imports {name}")
                break
    return found


def test_boundary_check_finds_every_kind_of_breach() -> None:
    """The structural check below is not vacuous: it finds a module-level, a from-, a deferred and a type-only
    import of the state or the game, and a read of an Observation's private state."""
    source = (
        "from typing import TYPE_CHECKING\nimport kingdoms.state\nfrom kingdoms import ruledata\n"
        "from kingdoms import game\nif TYPE_CHECKING:\n    from kingdoms.state import GameState\n"
        "def f(obs):\n    from kingdoms.game import Game\n    return obs._state\n"
    )
    assert [b.split(":")[0] for b in boundary_breaches(source)] == ["2", "4", "6", "8", "9"]
    assert boundary_breaches("from kingdoms.views.observation import Observation\nimport kingdoms.gamemap\n") == []


def test_views_and_ai_read_only_the_observation() -> None:
    """INTEL-010, issue 15: no module under kingdoms/views (but the observation and its view builder) and none under
    kingdoms/ai imports the true-state types or the game service, or reads an Observation's private state: what a
    seat, an AI or a viewer is shown can only come through the Observation."""
    pkg = ROOT / "kingdoms"
    checked = 0
    breaches: dict[str, list[str]] = {}
    for path in sorted((pkg / "views").glob("*.py")) + sorted((pkg / "ai").rglob("*.py")):
        if path.parent.name == "views" and path.name in BOUNDARY:
            continue
        checked += 1
        got = boundary_breaches(path.read_text(encoding="utf-8"))
        if got:
            breaches[str(path.relative_to(ROOT))] = got
    assert checked >= 6  # views: __init__, common, render; ai: __init__, common, passive, standard
    assert breaches == {}


def test_city_450_held_land_in_sight_blocks_a_site_without_naming_its_city() -> None:
    """CITY-450, INTEL-010: land in sight held by a city the kingdom does not know (its centre out of sight, never
    seen) still blocks a site beside it, and the observation tells whose land it is but not which city's."""
    from kingdoms.views import observe, render

    s = open_world()
    add_city(s, "wei", (2, 2), capital=True)
    shu = add_city(s, "shu", (7, 5), name="Qxhidden")
    add(s, "wei", "levy", (4, 5), men=3000, rations=12.0)
    assert not _unseen(s, "wei", 6, 5) and _unseen(s, "wei", 7, 5)
    obs = observe(s, "wei")
    i = s.map.index(6, 5)
    assert obs.land.held[i] and obs.land.holder[i] == "shu" and i not in obs.land.city
    assert obs.known_city(shu.id) is None
    assert obs.site(5, 5) is None and obs.founding_problem(5, 5) is not None
    assert obs.site(4, 3) is not None  # open land, nothing held on or beside it
    text = render.tile_text(obs, obs.tile(6, 5))
    assert "Land of Shu Han" in text and "Qxhidden" not in text and f"#{shu.id}" not in text


# =============================================================================================================
# 6. The long campaign (opt-in: pytest -m slow)
# =============================================================================================================


@pytest.mark.slow
def test_leak_campaign_whole_games() -> None:
    """scripts/leak_campaign.py: eight whole games (160 months, or to their end) on random maps of 2-4 kingdoms and
    the default scenario, every seat every month: no finding on any surface (about ten minutes on two cores;
    the script's default depth, full, asks more each month)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import leak_campaign
    finally:
        sys.path.pop(0)
    assert leak_campaign.main(["--games", "8", "--months", "160", "--depth", "quick", "--check"]) == 0
