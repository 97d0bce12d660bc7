"""Issue 16, what an LLM ruler needs next: a scripted agent plays through the MCP client and meets each situation.

A refused order keeps the month open (TURN-050), coordinates off the map get the nearest tile and the row's
q range (MAP-010), spies inside cities, blockades and supply are in the briefing (INTEL-130, SIEGE-150,
SUPPLY-030), a chase ends (COMBAT-350), get_rules by section, and the per-seat accounting of the calls made.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kingdoms.game import Game

from .test_server import call, new_game, seat

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_turn_050_a_refused_order_keeps_the_month_open_until_end_turn_again_or_force(tmp_path: Path) -> None:
    """TURN-050: an end_turn call with a refused order does not end the month (nor start fast_forward); the reply
    says so first. Calling end_turn again ends it; force=true ends it in the same call."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path, {"wei": "agent", "shu": "ai:passive"})
    async with seat(path, tokens["wei"], wait_s=5, poll_s=0.02) as c:
        err, reply = await call(c, "issue_orders", {"orders": "set_focus city=1 focus=food; move unit=99 to=1,1",
                                                    "end_turn": True, "fast_forward": 3})
        assert not err
        assert reply.startswith("1 order REFUSED, month 1 NOT ended"), reply
        assert "fast_forward not started" in reply.splitlines()[0]
        assert "[unknown_unit]" in reply and "MONTH 2" not in reply
        game = Game.open(path)
        assert "wei" not in game.store.ended(1) and game.store.fast_forward("wei") == 0
        game.close()
        err, reply = await call(c, "issue_orders", {"end_turn": True})  # the second call ends it
        assert not err and "Month 1 ended for you." in reply and "MONTH 2 of 160" in reply
        err, reply = await call(c, "issue_orders", {"orders": "move unit=99 to=1,1", "end_turn": True,
                                                    "force": True})
        assert not err and "Month 2 ended for you (force: 1 refused order left out)." in reply
        assert "MONTH 3 of 160" in reply


def q_at(text: str, r: int, mark: str) -> int:
    """Read the q of the first tile in row r whose marker is `mark` off a get_map text, as an agent would: the q
    ruler above the row's pair gives every fifth q where its tile starts; count whole tiles from the nearest."""
    lines = text.splitlines()
    row = next(n for n, line in enumerate(lines) if line.startswith(f"r{r:>3}| "))
    ruler = next(lines[n] for n in range(row, -1, -1) if lines[n].startswith("    q "))
    body, marks = lines[row][6:], ruler[6:]
    col = body.index(mark) - 1  # the tile starts one character before its marker
    labels = [(m.start(), int(m.group())) for m in __import__("re").finditer(r"-?\d+", marks)]
    pos, q = min(labels, key=lambda x: abs(x[0] - col))
    assert (col - pos) % 2 == 0
    return q + (col - pos) // 2


async def test_map_010_off_map_orders_name_the_nearest_tile_and_the_map_has_a_ruler(tmp_path: Path) -> None:
    """MAP-010: a move off the map is refused with the row's q range and the nearest tile on the map; get_map
    writes r on every row and a q ruler an agent reads without counting columns, in a radius window too."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path, {"wei": "agent", "shu": "ai:passive"})
    async with seat(path, tokens["wei"], wait_s=5, poll_s=0.02) as c:
        err, reply = await call(c, "issue_orders", {"orders": "move unit=2 to=40,3", "preview": True})
        assert not err and "[off_map]" in reply
        assert "(40,3) is off the map (32 x 24 tiles; row r=3 runs q=-1..30); the nearest tile on it is (30,3)" in reply
        err, reply = await call(c, "issue_orders", {"orders": "move unit=2 to=16,-4", "preview": True})
        assert "rows run r=0..23" in reply and "the nearest tile on it is (16,0), in row r=0 of q=0..31" in reply
        for args in ({}, {"center_q": 16, "center_r": 3, "radius": 3}):
            err, text = await call(c, "get_map", args)
            assert not err
            assert q_at(text, 3, "*") == 16  # Xuchang (16,3)
        err, text = await call(c, "get_map", {"layer": "supply"})
        assert not err and "a land of #1 Xuchang" in text and "(supply layer)" in text
        err, text = await call(c, "get_map", {"layer": "roads"})
        assert err and "layer" in text


def _ruler_game(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A game file of tests/ruler_world.py's month 5, both seats agents; returns its path and the seat tokens."""
    from .ruler_world import ruler_world

    path = tmp_path / "w.sqlite"
    game, tokens = Game.create(path, ruler_world(), scenario="test", controllers={"wei": "agent", "shu": "agent"})
    game.close()
    return path, tokens


def _shu_ends(path: Path) -> None:
    """Shu ends its month with no orders (the month then resolves once Wei has ended it too)."""
    game = Game.open(path)
    game.end_month("shu")
    game.close()


async def test_intel_130_siege_150_supply_030_combat_350_spies_blockades_supply_and_a_chase_in_the_briefing(
        tmp_path: Path) -> None:
    """INTEL-130, INTEL-140: the spy inside Jiangling is listed with its reports. SIEGE-150: the blockade shows on
    Jiangling's row for Shu and as "YOU BLOCKADE IT" for Wei. SUPPLY-030, SUPPLY-040: each troop row says what feeds
    it (Xuchang's land, the camp, its rations). COMBAT-350: an attack on a troop 4 months away is accepted with a
    warning, and the standing attack ends a month later with a NEEDS ATTENTION line saying why."""
    path, tokens = _ruler_game(tmp_path)
    async with seat(path, tokens["wei"], wait_s=2, poll_s=0.02) as wei, \
            seat(path, tokens["shu"], wait_s=2, poll_s=0.02) as shu:
        err, brief = await call(wei, "get_briefing")
        assert not err
        assert "YOUR SPIES: spy inside Jiangling #3 (Shu) since M3, no report yet" in brief
        assert "#6 levy 1,000 (small) (3,4) · L0 · fed by Xuchang's land · no orders" in brief
        assert "#7 archer 1,000 (small) (9,4) · L0 · fed by camp #8 · no orders" in brief
        assert "#5 spearman 2,000 (medium) (15,9) · L0 · on rations 4 mo · no orders" in brief
        assert "Acting first this month: Wei (you), then Shu" in brief
        assert "idle scouts/spies (fast_forward goes on): #10 scout (11,12)" in brief
        err, reply = await call(wei, "issue_orders", {"orders": "attack unit=9 to=13,13"})
        assert not err and "WARNING: after this month's march it is still 3 months from #11 levy" in reply
        _shu_ends(path)
        err, brief = await call(wei, "issue_orders", {"end_turn": True})
        assert not err and "MONTH 6 of 160" in brief, brief
        assert "spy inside Jiangling #3 (Shu) since M3, reporting (latest M5)" in brief
        assert "— YOU BLOCKADE IT (2,000 of your men on its land)" in brief
        err, theirs = await call(shu, "get_briefing")
        jiangling = next(line for line in theirs.splitlines() if line.startswith("#3 Jiangling"))
        assert "ALERT: BLOCKADED (enemy men on its land within 2 tiles" in jiangling
        _shu_ends(path)
        err, brief = await call(wei, "issue_orders", {"end_turn": True})
        assert not err and "MONTH 7 of 160" in brief
        assert ("- ATTACK ENDED (chase_too_long): attack unit=9 to=13,13: #9 levy: it is 3 months from #11 levy at "
                "(13,13), more than 2: the attack ends rather than chase it") in brief
        assert "#9 levy 813 (small) (4,13) · L0 · on rations 2.9 mo · no orders" in brief


async def test_tools_130_the_per_seat_accounting_matches_the_calls_made(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """TOOLS-130, OPEN-85: calls by tool, reply characters per month, orders given and refused by code, fixed on the
    next try and months ended are what the agent did; `kingdoms info` and the game record show them."""
    import json

    from kingdoms import accounting, records
    from kingdoms.cli import main

    path = tmp_path / "g.sqlite"
    tokens = new_game(path, {"wei": "agent", "shu": "ai:passive"})
    sent: dict[int, int] = {}

    async def counted(c: object, month: int, tool: str, args: dict | None = None) -> str:
        err, text = await call(c, tool, args)  # type: ignore[arg-type]
        sent[month] = sent.get(month, 0) + len(text)
        return text

    async with seat(path, tokens["wei"], wait_s=5, poll_s=0.02) as c:
        await counted(c, 1, "get_briefing")
        await counted(c, 1, "get_rules")
        await counted(c, 1, "get_map", {"center_q": 16, "center_r": 3, "radius": 2})
        await counted(c, 1, "issue_orders", {"orders": "set_focus city=1 focus=fish; move unit=99 to=1,1",
                                             "end_turn": True})  # two refused, the month stays open
        await counted(c, 1, "issue_orders", {"orders": "set_focus city=1 focus=food", "end_turn": True})  # fixed
        await counted(c, 2, "issue_orders", {"orders": "set_production city=1 queue=palisade", "end_turn": True})
        await counted(c, 3, "get_history")
    game = Game.open(path)
    acc = accounting.seat_account(game.store, "wei")
    assert acc["calls_by_tool"] == {"get_briefing": 1, "get_history": 1, "get_map": 1, "get_rules": 1,
                                    "issue_orders": 3}
    assert acc["calls"] == 7
    # a month-ending call's reply carries the next month's briefing; the call is kept under the month it was made
    assert acc["reply_chars_by_month"] == {str(m): n for m, n in sent.items()} and acc["reply_chars"] == sum(sent.values())
    assert (acc["orders"], acc["refused"], acc["refused_by_code"]) == (4, 2, {"bad_value": 1, "unknown_unit": 1})
    assert (acc["first_tries"], acc["first_try_ok"], acc["fixed"]) == (3, 1, 1)
    assert (acc["months_ended"], acc["auto_ended"], acc["fast_forward"]) == (2, 0, 0)
    game.close()
    assert main(["info", str(path), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert next(s for s in info["seats"] if s["kingdom"] == "wei")["accounting"] == acc
    assert main(["info", str(path)]) == 0
    text = capsys.readouterr().out
    assert "calls 7 (get_briefing 1, get_history 1, get_map 1, get_rules 1, issue_orders 3)" in text
    assert "refused 2 (bad_value 1, unknown_unit 1), first-try valid 1/3, fixed on the next try 1" in text
    game = Game.open(path)
    assert records.record_data(game, "wei")["accounting"] == acc
    game.close()


def test_combat_410_previews_start_from_the_latest_reported_figures(tmp_path: Path) -> None:
    """COMBAT-410, INTEL-060: after a volley report ("militia loses N (M left)") and a field battle's report, next
    month's previews take the militia and the troop's men as reported, saying how old the report is, instead of
    the size class's range."""
    from kingdoms.engine.land import found_city

    from .builders import add, world

    state = world(width=16, height=12)
    found_city(state, "wei", 1, 1, 20_000, 300, capital=True, name="Xuchang", founder="wei")
    found_city(state, "shu", 13, 10, 40_000, 300, capital=True, name="Chengdu", founder="shu")  # pays its upkeep
    city = found_city(state, "shu", 10, 4, 6_000, 100, name="Jiangling", founder="shu")
    city.militia = 600.0
    shooter = add(state, "wei", "archer", (8, 4), 2_000)
    melee = add(state, "wei", "spearman", (9, 5), 3_000)
    field_shooter = add(state, "wei", "archer", (4, 8), 2_000)
    foe = add(state, "shu", "levy", (4, 10), 4_000, fortified=True)
    game, _ = Game.create(tmp_path / "g.sqlite", state, scenario="test", controllers={"wei": "agent", "shu": "agent"})
    before = game.issue("wei", f"attack unit={melee.id} to=10,4", preview=True)[0]
    assert "its militia taken as" in before.message and "as last reported" not in before.message
    verdicts = game.issue("wei", f"attack unit={shooter.id} to=10,4; attack unit={field_shooter.id} to=4,10")
    assert all(v.ok for v in verdicts), verdicts
    assert "each volley trains what it hits" in verdicts[1].message
    game.end_month("wei")
    game.end_month("shu")
    assert game.month == 6
    left = int(game.state().cities[city.id].militia)
    men = game.state().units[foe.id].men
    city_preview = game.issue("wei", f"attack unit={melee.id} to=10,4", preview=True)[0]
    assert left > 480  # it regrew since the report, as the preview warns
    assert "its militia taken as 480 as last reported in M5 (1 month old; it regrows" in city_preview.message, \
        city_preview.message
    troop_preview = game.issue("wei", f"attack unit={field_shooter.id} to=4,10", preview=True)[0]
    assert f"ESTIMATED from your battle report of M5 (1 month old; no scout or spy watches it now): {men:,} men" \
        in troop_preview.message, troop_preview.message
    game.close()


def test_conq_040_move_120_siege_180_cautions_said_in_one_line(tmp_path: Path) -> None:
    """The rules' quiet effects, one line each: CONQ-040 an order leaving a restless city under its hold-down;
    MOVE-120 a troop of another type kept out of a garrisoned city; INTEL-010 a move or an attack aimed at a tile
    out of sight;
    RECRUIT-190 troops queued past three quarters of production; CONQ-030, SIEGE-180 a city taken whose halved
    harvest and granary cannot feed its people (the capture's alert). OPEN-52: a spy, never attacked, raises no
    reach alert."""
    from kingdoms.engine.land import found_city
    from kingdoms.session import Session

    from .builders import add, world

    state = world(width=20, height=14)
    found_city(state, "wei", 2, 2, 30_000, 300, capital=True, name="Xuchang", founder="wei")
    xinye = found_city(state, "wei", 6, 8, 12_000, 200, name="Xinye", founder="shu")
    xinye.restless, xinye.captured_by = True, "wei"
    found_city(state, "shu", 17, 2, 30_000, 300, capital=True, name="Chengdu", founder="shu")
    jiangling = found_city(state, "shu", 12, 8, 6_000, 0, name="Jiangling", founder="shu")
    jiangling.militia = 0.0
    add(state, "wei", "levy", (2, 2), 2_000)
    holder = add(state, "wei", "spearman", (6, 8), 1_500)
    outside = add(state, "wei", "spearman", (3, 3), 1_000)
    assault = add(state, "wei", "spearman", (11, 8), 3_000)
    spy = add(state, "wei", "spy", (14, 5))
    add(state, "shu", "levy", (15, 5), 1_000)
    path = tmp_path / "g.sqlite"
    game, _ = Game.create(path, state, scenario="test", controllers={"wei": "agent", "shu": "agent"})
    v = game.issue("wei", f"move unit={holder.id} to=9,11; move unit={outside.id} to=2,2; "
                          f"move unit={outside.id} to=0,12; set_production city=1 queue=levy:20000", preview=True)
    assert all(x.ok for x in v), v
    assert "WARNING: it leaves restless Xinye with 0 men on its land, under the 1,200 that hold it down" in v[0].message
    assert "WARNING: Xuchang is garrisoned by" in v[1].message and "a troop of another type cannot enter" in v[1].message
    assert "note: (0,12) is out of your sight" in v[2].message
    assert "WARNING: with the troops queued raised, army upkeep would be about" in v[3].message
    blind = game.issue("wei", f"attack unit={assault.id} to=0,12", preview=True)[0]
    assert blind.code == "no_target" and "(0,12) is out of your sight" in blind.message
    session = Session(path)
    try:
        brief = session.get_briefing("wei")[0]
        assert f"your #{spy.id} spy" not in brief  # OPEN-52: no alert about a spy that nothing can attack
    finally:
        session.close()
    game.issue("wei", f"attack unit={assault.id} to=12,8")
    game.end_month("wei")
    game.end_month("shu")
    taken = [e for e in game.store.events(5) if e["kind"] == "city_taken"]
    assert taken and "WARNING: Jiangling holds 0 dan and, restless, gets only half its harvest" in taken[0]["text"]
    game.close()
