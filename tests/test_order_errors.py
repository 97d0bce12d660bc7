"""Refusals through the game service (TURN-050, TOOLS-150, TOOLS-410, ARCHITECTURE "A refusal"): every refused order is
named by its position and text, carries a stable code and one sentence saying what is wrong AND what would work
(own ids, the nearest reachable tile, moves, sizes, sites, merge candidates, the closest spelling...); refused
orders are not queued and the others are; a malformed call gets one clear error and changes nothing; and no
input at all makes Game.issue raise or change the state.

A refusal whose message lacks the "what would work" part is an xfail(strict=True) naming the gap: the verb's
module owns the message, these tests only hold it to the rule.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kingdoms.engine.generals import new_general
from kingdoms.engine.land import found_city
from kingdoms.engine.sight import mask_to_hex
from kingdoms.game import Game
from kingdoms.orders.models import VERBS
from kingdoms.setup import found_ruin
from kingdoms.state import Camp, GameState, Improvement, StationedSpy
from tests.builders import add, world

# --- the board ----------------------------------------------------------------------------------------------
#
# 20 x 12 grass. Mountains at (8,1) and around a pocket at (16,2) (no way in); lakes at (9,1), (10,1); a river
# tile at (5,9). Wei: Ye #ye (2,2), capital, 15,000 people, 40 dan, a barracks and a farm at (3,2), General #G
# waiting in it; a camp at (9,9) and one at (18,0) (two: the most its one city allows). Shu: Chengdu #cd (13,7),
# a farm at (12,7), a Wei spy stationed inside, no garrison. The Ruin #ruin (9,7), held by bandits. Wei has
# explored every tile (it knows the terrain, not what stands out of sight).


def board(war: bool = False) -> tuple[GameState, dict[str, int]]:
    marks = {(8, 1): "M", (9, 1): "~", (10, 1): "~", (5, 9): "g"}
    marks.update({t: "M" for t in [(17, 2), (15, 2), (17, 1), (16, 1), (16, 3), (15, 3)]})
    state = world(marks, width=20, height=12, war=war)
    ye = found_city(state, "wei", 2, 2, people=15_000, grain=40, name="Ye", capital=True)
    state.kingdoms["wei"].capital_id = ye.id
    ye.buildings.append("barracks")
    ye.improvements.append(Improvement(3, 2, "farm"))
    cd = found_city(state, "shu", 13, 7, people=15_000, grain=100, name="Chengdu", capital=True)
    state.kingdoms["shu"].capital_id = cd.id
    cd.improvements.append(Improvement(12, 7, "farm"))
    ruin = found_ruin(state, (9, 7), "The Ruin")
    ids = {"ye": ye.id, "cd": cd.id, "ruin": ruin.id}
    units = {
        "L": ("wei", "levy", (4, 4), 3_000),
        "S": ("wei", "spearman", (5, 4), 2_000),
        "L2": ("wei", "levy", (4, 6), 19_500),
        "C": ("wei", "cavalry", (3, 5), 1_000),
        "col": ("wei", "colonists", (1, 7), 5_000),
        "col2": ("wei", "colonists", (3, 3), 5_000),  # beside Ye's land: no city here
        "spy": ("wei", "spy", (6, 6), 0),
        "A": ("wei", "archer", (2, 3), 1_000),  # beside Ye's own farm (3,2)
        "G1": ("wei", "spearman", (2, 2), 1_500),  # Ye's garrison
        "P": ("wei", "levy", (11, 7), 2_000),  # beside Chengdu's farm (12,7)
        "tiny": ("wei", "levy", (0, 10), 400),
        "R": ("wei", "levy", (5, 9), 1_000),  # on the river tile
        "K": ("wei", "levy", (9, 10), 1_000),  # beside its camp (9,9)
        "E1": ("shu", "levy", (7, 4), 2_000),  # in Wei's sight
        "E2": ("shu", "levy", (17, 10), 2_000),  # out of Wei's sight
    }
    for name, (owner, kind, tile, men) in units.items():
        ids[name] = add(state, owner, kind, tile, men).id
    for tile in [(9, 9), (18, 0)]:
        cid = state.new_id()
        state.camps[cid] = Camp(cid, "wei", *tile, grain=5.0)
    state.spies.append(StationedSpy("wei", cd.id, state.month))
    ids["G"] = new_general(state, "wei", city_id=ye.id).id
    # Wei has explored the whole map (its terrain; not what stands out of sight): refusals may name terrain
    state.kingdoms["wei"].memory["explored"] = mask_to_hex(np.ones(state.map.size, bool))
    return state, ids


@pytest.fixture
def games(tmp_path: Path) -> Iterator[Any]:
    """Makes game files of the board (at peace or at war); closes them afterwards."""
    made: list[Game] = []

    def make(war: bool = False) -> tuple[Game, dict[str, int]]:
        state, ids = board(war)
        game, _ = Game.create(tmp_path / f"g{len(made)}.sqlite", state, scenario="test",
                              controllers={"wei": "agent", "shu": "agent"})
        made.append(game)
        return game, ids

    yield make
    for game in made:
        game.close()


def snapshot(game: Game, kingdom: str = "wei") -> tuple[str, list[Any], int]:
    """What an order could change: the state hash, the accepted queue, the accepted rows in the file."""
    return (game.state().state_hash(), game.queued(kingdom), len(game.store.accepted_orders(game.month, kingdom)))


# --- every verb's common refusals ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One refusal: the orders (the last one is refused, any before it accepted), its code, what the message
    must offer, and whether the board is at war."""

    orders: str
    code: str
    needles: tuple[str, ...]
    war: bool = False


def case(orders: str, code: str, *needles: str, war: bool = False, gap: str | None = None) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=gap)] if gap else []
    return pytest.param(Case(orders, code, needles, war), id=f"{orders.split()[0]}-{code}", marks=marks)


CASES = [
    # move (TOOLS-220, MOVE-*)
    case("move unit=99 to=3,3", "unknown_unit", "#{L}"),
    case("move unit={E2} to=3,3", "unknown_unit", "#{L}"),  # unseen = unknown (INTEL-050)
    case("move unit={E1} to=3,3", "not_your_unit", "#{L}"),
    case("move unit={L} to=40,40", "off_map", "20 x 12 tiles"),
    case("move unit={L} to=8,1", "impassable", "mountain", "nearest tile you can reach is (7,1) (this month)"),
    case("move unit={L} to=13,7", "foreign_city", "Chengdu", "attack it"),
    case("move unit={L} to=13,6", "closed_border", "declare_war first", "nearest tile you can reach is ("),
    case("move unit={S} to=7,4", "occupied", "attack it, or move beside it"),
    case("move unit={L} to=16,2", "no_route", "nearest tile you can reach is (16,0) (4 months)"),
    case("move unit={L} to=4,6", "over_cap", "split first", "at most 500 can join"),
    # attack (TOOLS-230, COMBAT-*)
    case("attack unit=99 to=7,4", "unknown_unit", "#{L}"),
    case("attack unit={col} to=7,4", "not_a_fighter", "only fighting troops attack", "your troops: #{S} spearman (5,4)"),
    case("attack unit={L} to=10,4", "no_target", "#{E1}"),
    case("attack unit={L} to=5,4", "own_target", "your own #{S}", "attack an enemy", "#{E1} levy (Shu) at (7,4)"),
    case("attack unit={L} to=7,4", "at_peace", "declare_war first", "surprise"),
    case("attack unit={L} to=7,4 hold", "out_of_reach", "3 tiles", "reach of 1", "with hold", war=True),
    case("attack unit={S} to=7,4; attack unit={S} to=7,4", "already_attacked", "attack again next month", war=True),
    case("move unit={L} to=7,3; attack unit={L} to=7,4", "no_moves", "attack first, or next month", war=True),
    # pillage (TOOLS-240, BUILD-150..190)
    case("pillage unit={L} to=12,7", "out_of_reach", "11 tiles", "move next to it first"),
    case("pillage unit={P} to=11,6", "no_improvement", "(12,7)", war=True),
    case("pillage unit={P} to=12,7", "at_peace", "declare_war first"),
    case("pillage unit={A} to=3,2", "own_improvement", "your own Ye", "no foreign farm, granary or workshop"),
    # hold, merge, follow, split, disband (TOOLS-250..290)
    case("hold units={L},99", "unknown_unit", "#{L2}"),
    case("merge unit={L} target={S}", "not_same_type", "could merge with: #{L2} at (4,6)"),
    case("merge unit={L} target={L2}", "over_cap", "22,500 men", "split first", "at most 500 can join"),
    case("merge unit={L} target={L}", "same_unit", "another troop of yours"),
    case("follow unit={L} target={L}", "same_unit", "another unit of yours"),
    case("follow unit={L} target=99", "unknown_unit", "#{L2}"),
    case("split unit={L} men=100 to=4,5", "split_too_small", "split off 500..2,500 men"),
    case("split unit={col} men=1000 to=4,5", "not_a_troop", "only fighting troops split"),
    case("disband unit=99", "unknown_unit", "#{L}"),
    case("disband unit={col}", "not_a_troop", "needs no upkeep"),
    # build (TOOLS-300, SUPPLY-220..270)
    case("build unit=99 what=camp", "unknown_unit", "#{L}"),
    case("build unit={col} what=camp", "not_a_troop", "fighting troop of 500+ men"),
    case("build unit={tiny} what=camp", "too_few_men", "at least 500", "merge it with another first"),
    case("build unit={G1} what=camp", "in_city", "pitch the camp on a tile outside the city"),
    case("build unit={R} what=camp", "river_tile", "on a bank beside it"),
    case("build unit={K} what=camp", "camp_too_close", "(9,9) is 1 tile away", "at least 3 tiles apart"),
    case("build unit={L} what=camp", "camp_limit", "2 camps", "found or take a city first"),
    # assign_general (TOOLS-310, GEN-030, GEN-040)
    case("assign_general general=99 unit={L}", "unknown_general", "your generals: #{G}"),
    case("assign_general general={G} unit={C}", "out_of_reach", "4 tiles", "within his reach: #{G1} spearman (2,2)"),
    case("assign_general general={G} unit=99", "unknown_unit", "#{L}"),
    case("assign_general general={G} unit={col}", "not_a_troop", "fighting troops only"),
    # set_production, set_focus (TOOLS-320, TOOLS-330, OPEN-80)
    case("set_production city=99 queue=palisade", "unknown_city", "your cities: #{ye} Ye"),
    case("set_production city={cd} queue=palisade", "not_your_city", "#{ye} Ye"),
    case("set_production city={ye} queue=walls", "needs_palisade", "queue palisade before walls"),
    case("set_production city={ye} queue=palisade,palisade", "duplicate_item", "item 2 (palisade)"),
    case("set_production city={ye} queue=barracks", "already_built", "drop it from the queue"),
    case("set_production city={ye} queue=cavalry:1000", "needs_building", "queue stable before cavalry"),
    case("set_production city={ye} queue=farm@9,9", "bad_site", "free farm sites of Ye: (2,1)", "write farm alone"),
    case("set_production city={ye} queue=granary,granary", "one_per_city", "item 2 (granary)", "queue farms"),
    case("set_production city={ye} queue=workshop", "no_site", "no forest or hills tile"),
    case("set_focus city=99 focus=food", "unknown_city", "your cities: #{ye} Ye"),
    # ship_grain (TOOLS-340, SUPPLY-100)
    case("ship_grain city=99 dan=5 to=4,4", "unknown_city", "#{ye} Ye"),
    case("ship_grain city={ye} dan=50 to=4,4", "not_enough_grain", "40.0 dan", "ship at most dan=40"),
    case("ship_grain city={ye} dan=5 to=8,1", "impassable", "send the wagon to a land tile",
         "the nearest you know is (8,0)"),
    case("ship_grain city={ye} dan=5 to=50,50", "off_map", "a tile on the map"),
    # found_city (TOOLS-350, CITY-320..440)
    case("found_city unit={L}", "not_colonists", "queue colonists"),
    case("found_city unit={col2}", "cannot_found", "legal sites nearby: (4,3)"),
    case("move unit={col} to=1,10; found_city unit={col}", "no_moves_left", "found the city next month"),
    # station_spy, sabotage (TOOLS-360, TOOLS-370, INTEL-*)
    case("station_spy unit={L} city={ruin}", "not_a_spy", "#{spy}"),
    case("station_spy unit={spy} city=99", "unknown_city", "#{ruin} The Ruin (9,7)", "#{cd} Chengdu (13,7)"),
    case("sabotage city={ruin} target=granary", "no_spy_in_city", "station_spy first", "your spies are in: Chengdu"),
    case("sabotage city={cd} target=panic", "no_garrison", "burn its granary instead"),
    case("sabotage city=99 target=granary", "unknown_city", "Chengdu"),
    case("sabotage city={ye} target=granary", "own_city", "Chengdu"),
    # declare_war (TOOLS-380, DIPLO-*)
    case("declare_war to=Nobody", "unknown_kingdom", "rivals: Shu (Shu ruler)"),
    case("declare_war to=wei", "own_kingdom", "rivals: Shu"),
    # the order language (TOOLS-140..210): the closest spelling
    case("mvoe unit={L} to=2,2", "unknown_verb", 'did you mean "move"'),
    case("move unti={L} to=2,2", "unknown_key", 'did you mean "unit"', "move unit=ID to=q,r"),
    case("set_production city={ye} queue=spearmn:1000", "unknown_item", 'did you mean "spearman"'),
    case("set_focus city={ye} focus=foood", "bad_value", 'did you mean "food"'),
    case("move unit={L}", "missing_key", "to=q,r", "e.g. move unit=12 to=5,7"),
    case("move unit={L} to=abc", "bad_tile", "to=q,r"),
    case("set_production city={ye} queue=spearman:100", "bad_men", "500 to 20,000 men"),
    case("ship_grain city={ye} dan=100 to=4,4", "bad_value", "1 to 60"),
]


@pytest.mark.parametrize("c", CASES)
def test_refusal_names_the_order_a_stable_code_and_what_would_work(games: Any, c: Case) -> None:
    """TURN-050, TOOLS-150, TOOLS-410: the refusal comes back at its position with its text, a stable code and a
    sentence holding what would work; the orders before it in the call are queued, it is not."""
    game, ids = games(c.war)
    orders = c.orders.format(**ids)
    parts = [p.strip() for p in orders.split(";")]
    call = [f"set_focus city={ids['ye']} focus=food", *parts]  # a good order first: positions must count it
    before_hash = game.state().state_hash()
    verdicts = game.issue("wei", "; ".join(call))
    assert [v.position for v in verdicts] == list(range(1, len(call) + 1))
    *good, refused = verdicts
    assert all(v.ok for v in good), [(v.text, v.code, v.message) for v in good]
    assert not refused.ok
    assert refused.code == c.code, (refused.code, refused.message)
    assert refused.text == parts[-1] and refused.position == len(call)
    assert len(refused.message) > 20 and refused.message == refused.message.strip()
    assert len(game.queued("wei")) == len(good), "the refused order is not queued, the others are"
    assert game.state().state_hash() == before_hash
    for needle in c.needles:
        assert needle.format(**ids) in refused.message, refused.message


def test_every_verb_has_refusals_checked_here() -> None:
    """The table above drives at least one refusal of every verb of the order language."""
    covered = {p.values[0].orders.split(";")[-1].split()[0] for p in CASES}
    assert set(VERBS) <= covered, set(VERBS) - covered


def test_a_visible_foreign_unit_gets_the_same_code_from_every_verb(games: Any) -> None:
    """Codes are stable: one situation gets one code whatever the verb (ARCHITECTURE 'A refusal')."""
    game, ids = games()
    e1 = ids["E1"]
    orders = [f"move unit={e1} to=3,3", f"hold unit={e1}", f"split unit={e1} men=500 to=7,5", f"disband unit={e1}",
              f"build unit={e1} what=camp", f"assign_general general={ids['G']} unit={e1}"]
    codes = {o.split()[0]: v.code for o, v in zip(orders, game.issue("wei", "\n".join(orders)), strict=True)}
    assert set(codes.values()) == {"not_your_unit"}, codes


def test_an_unseen_unit_gets_the_text_of_a_missing_one_from_every_verb(games: Any) -> None:
    """INTEL-050: an unseen foreign unit and an id that exists nowhere get the same code and, id for id, the same
    text, whatever the verb; the text names only the kingdom's own units."""
    game, ids = games()

    def orders(u: int) -> list[str]:
        return [f"move unit={u} to=3,3", f"attack unit={u} to=7,4", f"disband unit={u}", f"build unit={u} what=camp",
                f"assign_general general={ids['G']} unit={u}", f"station_spy unit={u} city={ids['ruin']}"]

    unseen = game.issue("wei", "\n".join(orders(ids["E2"])))
    missing = game.issue("wei", "\n".join(orders(99)))
    for a, b in zip(unseen, missing, strict=True):
        assert a.code == b.code == "unknown_unit", (a.code, b.code)
        assert a.message.replace(f"#{ids['E2']} ", "#99 ") == b.message, (a.message, b.message)
        assert f"#{ids['E1']} " not in a.message and f"#{ids['E2']} " not in a.message.replace(
            f"no unit #{ids['E2']} ", "")


# --- what a good order tells: price and store, moves left ---------------------------------------------------


def test_accepted_orders_say_what_they_will_do_with_prices_store_and_moves(games: Any) -> None:
    """TURN-170, TOOLS-410: accepted city orders show each item's price and the city's store; marches show the
    moves left and the supply notice."""
    game, ids = games()
    verdicts = game.issue("wei", f"set_production city={ids['ye']} queue=palisade,spearman:2000\n"
                                 f"move unit={ids['L']} to=6,4")
    assert all(v.ok for v in verdicts)
    assert "palisade (10)" in verdicts[0].message and "spearman:2000 (16)" in verdicts[0].message
    assert "in store" in verdicts[0].message
    assert "1 of 3 moves left" in verdicts[1].message


# --- a call's refused orders are not queued, the rest are ---------------------------------------------------


def test_mixed_call_queues_exactly_the_accepted_orders_in_order(games: Any) -> None:
    """TOOLS-150: refused orders (syntax or board) are not queued; the accepted ones are, in the order given;
    JSON objects and text mix in one array."""
    game, ids = games()
    call = [f"hold unit={ids['S']}", "mvoe unit=1 to=2,2", {"action": "move", "unit_id": ids["L"], "q": 5, "r": 5},
            {"action": "move", "unit_id": 99, "to": [1, 1]}, f"set_focus city={ids['ye']} focus=production; "
            f"disband unit={ids['col']}", 17]
    verdicts = game.issue("wei", call)
    assert [(v.position, v.ok, v.code) for v in verdicts] == [
        (1, True, None), (2, False, "unknown_verb"), (3, True, None), (4, False, "unknown_unit"), (5, True, None),
        (6, False, "not_a_troop"), (7, False, "bad_json")]
    assert json.loads(verdicts[3].text) == {"action": "move", "unit_id": 99, "to": [1, 1]}
    assert [o.action for o in game.queued("wei")] == ["hold", "move", "set_focus"]
    rows = game.store.all_orders("wei")
    assert [r["accepted"] for r in rows] == [1, 0, 1, 0, 1, 0, 0], "every order is recorded with its verdict"


def test_a_later_call_is_judged_after_the_queued_orders(games: Any) -> None:
    """TURN-170, TOOLS-150: a unit disbanded by a queued order is unknown to a later call's orders."""
    game, ids = games()
    assert game.issue("wei", f"disband unit={ids['L']}")[0].ok
    [v] = game.issue("wei", f"move unit={ids['L']} to=5,5")
    assert not v.ok and v.code == "unknown_unit"
    assert [o.action for o in game.queued("wei")] == ["disband"]


# --- malformed calls ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("orders", [None, 42, 3.5, True, b"move unit=3 to=5,5",
                                    {"action": "move", "unit_id": 3, "q": 5, "r": 5}, {1, 2}, object()],
                         ids=["none", "int", "float", "bool", "bytes", "bare-object", "set", "object"])
@pytest.mark.parametrize("preview", [False, True])
def test_a_malformed_call_gets_one_clear_error_and_changes_nothing(games: Any, orders: Any, preview: bool) -> None:
    """TOOLS-140: orders that are neither text nor an array get one error (position 0, malformed_call) showing
    both accepted forms; nothing is queued and the state is unchanged."""
    game, _ = games()
    before = snapshot(game)
    verdicts = game.issue("wei", orders, preview=preview)
    assert len(verdicts) == 1
    [v] = verdicts
    assert (v.position, v.ok, v.code) == (0, False, "malformed_call")
    assert "move unit=12 to=5,7" in v.message and '"action": "move"' in v.message
    assert snapshot(game) == before


def test_wrong_types_inside_the_array_are_refused_one_by_one(games: Any) -> None:
    """TOOLS-140, TOOLS-390: an array item that is neither an object nor a string, or an object with wrong field types,
    is refused at its position; the good items still queue."""
    game, ids = games()
    verdicts = game.issue("wei", [None, [1, 2], {"action": "move", "unit_id": "abc", "to": [1, 1]},
                                  {"action": "hold", "unit_ids": ids["L"]},
                                  {"action": "move", "unit_id": ids["L"], "to": "5,x"}, {"action": 7}])
    assert [(v.position, v.ok) for v in verdicts] == [(1, False), (2, False), (3, False), (4, True), (5, False),
                                                       (6, False)]
    assert [v.code for v in verdicts if not v.ok] == ["bad_json", "bad_json", "bad_value", "bad_tile", "unknown_verb"]
    assert all(v.message for v in verdicts)
    assert [o.action for o in game.queued("wei")] == ["hold"]


# --- fuzz: nothing raises, a refused order changes nothing --------------------------------------------------

_WORDS = [*VERBS, "unit=3", "units=3,4", "to=5,5", "to=-1,99", "city=1", "target=4", "men=1000", "dan=5",
          "queue=palisade,spearman:2000", "focus=food", "what=camp", "general=21", "hold", "surprise", "pursue",
          "target=granary", ";", "\n", "=", ",", "#", "\"", "'", "[", "{", "}", "]", "99999999999999999999999"]
_TEXT = st.one_of(
    st.text(max_size=80),
    st.lists(st.sampled_from(_WORDS), max_size=12).map(" ".join),
)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 2**64) | st.floats(allow_nan=True) | st.text(max_size=12)
    | st.sampled_from(_WORDS),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["action", "verb", "unit_id", "unit_ids", "to", "q", "r", "city_id", "queue", "men", "item",
                         "target_id", "focus", "dan", "what", "x"]) | st.text(max_size=5), inner, max_size=5),
    max_leaves=12,
)


@pytest.fixture(scope="module")
def fuzz_game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Game, dict[str, int]]]:
    state, ids = board(war=True)
    game, _ = Game.create(tmp_path_factory.mktemp("fuzz") / "g.sqlite", state, scenario="test",
                          controllers={"wei": "agent", "shu": "agent"})
    yield game, ids
    game.close()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(orders=st.one_of(_TEXT, _JSON, st.lists(st.one_of(_TEXT, _JSON), max_size=4)), preview=st.booleans())
def test_fuzz_issue_never_raises_and_queues_only_what_it_accepts(fuzz_game: tuple[Game, dict[str, int]],
                                                                 orders: Any, preview: bool) -> None:
    """Arbitrary text and JSON: Game.issue answers with verdicts (never an exception); the state never changes;
    the queue grows by exactly the accepted orders (none for a preview); every refusal has a code and a reason."""
    game, _ = fuzz_game
    hash0, queue0, _ = snapshot(game)
    verdicts = game.issue("wei", orders, preview=preview)
    assert game.state().state_hash() == hash0
    for v in verdicts:
        assert isinstance(v.position, int) and isinstance(v.text, str) and v.message
        assert v.ok or (v.code and v.code.islower())
    queue = game.queued("wei")
    added = 0 if preview else sum(v.ok for v in verdicts)
    assert queue[:len(queue0)] == queue0 and len(queue) == len(queue0) + added
