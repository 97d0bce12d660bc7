"""The Observation (kingdoms.views.observation): one kingdom's month, the engine services it offers on the believed
board, its events, the game service's cache of it, and the spectator's view of a finished game."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kingdoms import ruledata as rd
from kingdoms.ai import decide_orders
from kingdoms.engine import economy as eco
from kingdoms.engine.month import check_orders, resolve_month
from kingdoms.engine.sight import compute_sight
from kingdoms.engine.visibility import known_city_tile
from kingdoms.game import Game
from kingdoms.orders.syntax import ParsedOrder, parse_orders
from kingdoms.setup import build_state, resolve_scenario
from kingdoms.state import GameState
from kingdoms.views import observe, observe_all
from kingdoms.views.observation import MonthFacts

from .builders import add, add_city, open_world, world


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Game, dict[int, GameState]]:
    """The default scenario played 36 months by standard rulers; the states of months 6, 18 and 36 kept."""
    state = build_state(resolve_scenario("three_kingdoms"), 7)
    game, _ = Game.create(tmp_path_factory.mktemp("obs") / "g.sqlite", state, scenario="three_kingdoms",
                          controllers={k: "ai:standard" for k in state.kingdoms})
    kept: dict[int, GameState] = {}
    while game.month < 36 and not game.finished:
        if game.month in (6, 18, 36):
            kept[game.month] = game.state().clone()
        game.play_ai_seats()
    kept[game.month] = game.state().clone()
    return game, kept


def test_own_city_economy_on_the_believed_board_is_the_true_one(played: tuple[Game, dict[int, GameState]]) -> None:
    """CITY-070/090/230, BUILD-070, RECRUIT-190: the economy of a kingdom's own cities, run on its believed board,
    gives exactly the figures the true state gives (own affairs are never fogged, INTEL-010), under every focus."""
    _, kept = played
    compared = 0
    for state in kept.values():
        board = eco.Board.of(state)
        for kid in state.kingdoms:
            obs = observe(state, kid)
            true_budget = eco.kingdom_budget(state, kid, board=board)
            assert obs.budget == true_budget
            assert obs.upkeep == true_budget.upkeep  # RECRUIT-180: the upkeep alone, as the budget has it
            for c in (c for c in state.cities.values() if c.owner == kid):
                for focus in rd.FOCUSES:
                    assert obs.city_output(c.id, focus) == eco.city_output(state, c, focus, board=board)
                for kind in rd.IMPROVEMENTS:
                    assert obs.free_sites(c.id, kind) == eco.free_sites(state, c, kind, board=board)
                assert obs.city_land(c.id) == frozenset(state.city_tiles(c.id))
                compared += 1
    assert compared >= 9


def test_services_refuse_foreign_cities_and_units(played: tuple[Game, dict[int, GameState]]) -> None:
    """INTEL-040: the economy and route services answer for the kingdom's own cities and units only."""
    _, kept = played
    state = kept[max(kept)]
    kid = next(iter(state.kingdoms))
    obs = observe(state, kid)
    foreign_city = next(c for c in state.cities.values() if c.owner != kid)
    foreign_unit = next(u for u in state.units.values() if u.owner != kid)
    with pytest.raises(KeyError):
        obs.city_output(foreign_city.id)
    with pytest.raises(KeyError):
        obs.free_sites(foreign_city.id, "farm")
    with pytest.raises(KeyError):
        obs.months_to_reach(foreign_unit.id, (0, 0))
    own = next(u for u in state.units.values() if u.owner == kid)
    assert obs.months_to_reach(own.id, own.tile) == 0


def test_turn_050_order_check_matches_the_engine_and_keeps_the_board(played: tuple[Game, dict[int, GameState]]) -> None:
    """TURN-050/170: Observation.check_orders gives the engine's own verdicts (engine.month.check_orders) for an
    AI's month of orders, and leaves the observation's believed board as it was (each check runs on a copy)."""
    _, kept = played
    for state in kept.values():
        for kid in state.kingdoms:
            obs = observe(state, kid)
            text = decide_orders(obs, "ai:standard").orders + "\nmove unit=99999 to=1,1"
            orders = [p.order for p in parse_orders(text) if isinstance(p, ParsedOrder)]
            before = obs.believed.canonical_json()
            assert obs.check_orders([], orders) == check_orders(state, kid, [], orders)
            assert obs.check_orders(orders[:1], orders[1:]) == check_orders(state, kid, orders[:1], orders[1:])
            assert obs.believed.canonical_json() == before


def test_city_450_site_reports_are_those_of_the_believed_board(played: tuple[Game, dict[int, GameState]]) -> None:
    """CITY-450, OPEN-89: every site the observation lists carries the figures economy.site_report gives on the
    kingdom's believed board (a legal site's report is kept per map and must not depend on the board)."""
    _, kept = played
    checked = 0
    for state in kept.values():
        for kid in state.kingdoms:
            obs = observe(state, kid)
            for site in obs.sites(limit=400):
                rep = eco.site_report(obs.believed, *site.tile)
                assert rep.problem is None
                assert (site.water, site.grain_found, site.prod_found, site.grain_full, site.prod_full, site.feeds,
                        site.land) == (rep.water, rep.at_founding.net, rep.at_founding.production, rep.full.net,
                                       rep.full.production, rep.people_fed, rep.land_tiles)
                checked += 1
    assert checked > 50


def test_city_070_conq_040_queue_head_and_hold_down_are_the_figures(played: tuple[Game, dict[int, GameState]]) -> None:
    """CITY-070, CONQ-040: the queue head and the men a restless city needs, asked for one city, are what the whole
    figures show for it (the AI asks them without working out every city's figures), and a city of another
    kingdom has neither; a fresh observation is asked first, so nothing the figures made is reused."""
    _, kept = played
    checked = 0
    for state in kept.values():
        for kid in state.kingdoms:
            for cid in sorted(state.cities):
                alone = observe(state, kid)
                head, hold = alone.queue_head(cid), alone.hold_down(cid)
                fig = observe(state, kid).figures.cities.get(cid)
                if fig is None:
                    assert head is None and hold is None
                    continue
                assert head == fig.head and hold == fig.hold_down
                checked += 1
    # a restless conquest's hold-down, on a copy where one city has turned restless
    state = next(iter(kept.values())).clone()
    city = next(c for c in state.cities.values() if c.owner in state.kingdoms)
    city.restless = True
    obs = observe(state, city.owner)
    assert obs.hold_down(city.id) == obs.figures.cities[city.id].hold_down is not None
    assert checked > 10


def test_conq_040_hold_down_shown_is_the_engines(played: tuple[Game, dict[int, GameState]]) -> None:
    """CONQ-040: the men a restless city is told it needs are the men the engine's unrest check counts, at half
    values too (5,005 people: 10 % is 500.5, which the engine rounds up to 501; banker's rounding said 500)."""
    from kingdoms.engine.conquest import hold_down_needed

    state = next(iter(played[1].values())).clone()
    city = next(c for c in state.cities.values() if c.owner in state.kingdoms)
    city.restless = True
    for people in (5_005, 5_025, 12_345, 40_000):
        city.people = people
        obs = observe(state, city.owner)
        assert obs.hold_down(city.id) == obs.figures.cities[city.id].hold_down == hold_down_needed(city)
    city.people = 5_005
    assert observe(state, city.owner).hold_down(city.id) == 501


def test_diplo_020_picture_costs_and_closed_land_kept_for_the_month_are_the_fresh_ones(
        played: tuple[Game, dict[int, GameState]]) -> None:
    """DIPLO-020: the AI picture's troop costs and land closed to its troops, worked out once a month and read only,
    are what working them out afresh gives (closed land: every tile of a holder, or camp of an owner, at peace)."""
    from kingdoms.ai.common import picture_for

    _, kept = played
    for state in kept.values():
        for kid in state.kingdoms:
            pic = picture_for(observe(state, kid))
            costs, closed = pic.troop_costs(), pic.closed_land()
            assert costs is pic.troop_costs() and closed is pic.closed_land()
            assert not costs.flags.writeable and not closed.flags.writeable
            assert np.array_equal(costs, pic._troop_costs(False))
            want = np.zeros(pic.mi.n, dtype=bool)
            for i, holder in [*pic.foreign_holder.items(), *pic.camp_owner.items()]:
                want[i] |= pic.at_peace_with(holder)
            assert np.array_equal(closed, want)


def test_land_in_sight_names_only_known_cities(played: tuple[Game, dict[int, GameState]]) -> None:
    """INTEL-010/050: the land the observation can tell is held lies in sight (or is its own); it names the city of
    a held tile only when the kingdom knows that city."""
    _, kept = played
    for state in kept.values():
        for kid in state.kingdoms:
            obs = observe(state, kid)
            land = obs.land
            visible = obs.sight.visible
            assert not (land.held & ~visible).any()
            assert set(land.city) <= set(land.holder)
            # holder: the foreign land in sight, tile by tile in map order (the AI's picture reads it so)
            assert list(land.holder) == np.flatnonzero(land.held & (land.own_city < 0)).tolist()
            for i, cid in land.city.items():
                assert known_city_tile(state, kid, cid) is not None and int(state.owner[i]) == cid
            assert ((land.own_city >= 0) <= visible).all()


def test_turn_180_events_are_those_told_to_the_kingdom() -> None:
    """TURN-180: an observation keeps last month's public events and those whose audience names the kingdom."""
    s = open_world()
    events = [
        {"month": 4, "kind": "war", "text": "public", "audience": None, "data": {}},
        {"month": 4, "kind": "built", "text": "to wei", "audience": ["wei"], "data": {}},
        {"month": 4, "kind": "built", "text": "to shu", "audience": ["shu"], "data": {}},
        {"month": 4, "kind": "battle", "text": "to both", "audience": ["shu", "wei"], "data": {}},
    ]
    assert [e["text"] for e in observe(s, "wei", events).events] == ["public", "to wei", "to both"]
    assert [e["text"] for e in observe(s, "shu", events).events] == ["public", "to shu", "to both"]


def test_turn_210_fast_forward_stops_on_an_event_it_was_told_of() -> None:
    """TURN-210, OPEN-91: a battle told to the kingdom stops its fast_forward; one told to another kingdom does not."""
    s = open_world()
    add_city(s, "wei", (2, 2), capital=True)
    ev = [{"month": 4, "kind": "battle", "text": "a battle", "audience": ["shu"], "data": {}}]
    assert observe(s, "wei", ev).fast_forward_stops() == []
    ev[0]["audience"] = ["wei"]
    assert observe(s, "wei", ev).fast_forward_stops() == ["M4: a battle"]


def test_turn_180_game_observations_read_the_months_events_once_and_tell_each_kingdom_its_own(
        tmp_path: Path) -> None:
    """TURN-180: the game service reads a month's stored events once for all its kingdoms (MonthFacts.events) and
    each observation keeps exactly those Game.events_seen_by gives its kingdom; the next month's observations take
    that month's events, not the kept ones."""
    state = build_state(resolve_scenario("three_kingdoms"), 7)
    game, _ = Game.create(tmp_path / "g.sqlite", state, scenario="three_kingdoms",
                          controllers={k: "ai:standard" for k in state.kingdoms})
    kept_back = 0  # events of a month some kingdom was not told of
    for _ in range(8):
        game.play_ai_seats()
        state = game.state()
        for kid in state.kingdoms:
            obs = game.observation(kid)
            facts = game._facts[state.month]
            assert obs.events == game.events_seen_by(kid, state.month - 1)
            assert [dict(e) for e in facts.events] == game.store.events(state.month - 1)
            kept_back += len(facts.events) - len(obs.events)
    assert kept_back > 0


def test_game_service_keeps_one_observation_per_kingdom_month(played: tuple[Game, dict[int, GameState]]) -> None:
    """The game service hands out the same Observation for a kingdom-month until the state it was made of changes
    (a fresh copy of the month, say), so the AI, the briefing and the tools share its work."""
    game, _ = played
    kid = next(iter(game.state().kingdoms))
    first = game.observation(kid)
    assert game.observation(kid) is first and first.of(game.state())
    game._cache.clear()  # the month read afresh from the file: another state object
    again = game.observation(kid)
    assert again is not first and again.of(game.state())
    assert again.view.to_json() == observe(game.state(), kid).view.to_json()


def test_intel_010_month_facts_give_the_observation_made_alone(played: tuple[Game, dict[int, GameState]]) -> None:
    """INTEL-010, VIC-140: the sights and public facts MonthFacts works out once for every kingdom of a state give
    each kingdom the very sight, view and believed board its observation made alone gives; facts of another
    state are refused, and the game service's observations are made with its state's facts."""
    game, kept = played
    for state in kept.values():
        facts = MonthFacts(state)
        for kid in state.kingdoms:
            shared, alone = observe(state, kid, (), facts), observe(state, kid)
            for mask in ("visible", "watched", "spy_eye"):
                assert (getattr(shared.sight, mask) == getattr(alone.sight, mask)).all()
            assert shared.view.to_json() == alone.view.to_json()
            assert shared.believed.state_hash() == alone.believed.state_hash()
            assert (shared.believed.owner == alone.believed.owner).all()
        with pytest.raises(ValueError):
            observe(state.clone(), next(iter(state.kingdoms)), (), facts)
    state = game.state()
    kid = next(iter(state.kingdoms))
    assert game.observation(kid).view.to_json() == observe(state, kid).view.to_json()
    assert game._facts[state.month].of(state)


def test_intel_010_month_end_sights_are_the_next_months_sights(played: tuple[Game, dict[int, GameState]]) -> None:
    """INTEL-010, MAP-190: the sights the memory phase works out on a month's final board (MonthResult.sights, one per
    living kingdom) are exactly compute_sight's of the state the month leaves, fallen kingdoms' left out; MonthFacts
    given them takes them as they are and works out the rest, and the game service's next observations use them
    only for the very state object its resolution made."""
    game, kept = played
    for state in kept.values():
        start = state.clone()
        fallen = next(iter(start.kingdoms))
        start.kingdoms[fallen].eliminated = True
        for board in (state, start):
            result = resolve_month(board, {})
            nxt = result.state
            living = [k for k, kd in nxt.kingdoms.items() if not kd.eliminated]
            assert list(result.sights) == living
            alone = compute_sight(nxt)
            facts = MonthFacts(nxt, result.sights)
            assert list(facts.sights) == list(alone)
            for kid, sight in facts.sights.items():
                if kid in result.sights:
                    assert sight is result.sights[kid]
                for mask in ("visible", "watched", "spy_eye"):
                    assert (getattr(sight, mask) == getattr(alone[kid], mask)).all()
    month = game.month
    if not game.finished:
        game.play_ai_seats()
        state = game.state()
        made = game._month_end
        assert made is not None and made[0] is state
        kid = next(k for k, kd in state.kingdoms.items() if not kd.eliminated)
        assert game.observation(kid).sight is made[1][kid] and game.month == month + 1
        game._cache.clear()  # the same month read afresh: another object, its sights worked out anew
        again = game.observation(kid)
        assert again.sight is not made[1][kid]
        assert (again.sight.visible == made[1][kid].visible).all()


def test_spectator_view_only_of_a_finished_game(tmp_path: Path) -> None:
    """A spectator sees a game whole only once it is over: every side's cities and units in full, the whole map,
    and each kingdom's own view of the same month."""
    s = open_world()
    add_city(s, "wei", (2, 2), capital=True)
    add_city(s, "shu", (16, 11), capital=True)
    add(s, "shu", "levy", (15, 11), men=3000, months=0)
    with pytest.raises(ValueError, match="still running"):
        observe_all(s)
    s.finished, s.end_reason = True, "test"
    seen = observe_all(s)
    assert {k: [c.name for c in v.cities] for k, v in seen.sides.items()} == {
        k: [c.name for c in sorted(s.cities.values(), key=lambda c: c.id) if c.owner == k] for k in s.kingdoms}
    assert [u.men for u in seen.sides["shu"].units] == [3000]
    assert all(" " not in row for row in seen.terrain_rows)
    assert set(seen.views) == set(s.kingdoms) and seen.views["wei"].foreign_units == []
    assert seen.to_dict()["end_reason"] == "test"


def test_intel_050_known_city_ids_are_the_cities_known_city_tile_finds(
        played: tuple[Game, dict[int, GameState]]) -> None:
    """INTEL-050, COMBAT-380, VIC-130: the one-pass set of known cities (the believed board's and the land's) holds
    exactly the cities `known_city_tile` places, in played states and after a spy is stationed, a city is
    remembered out of sight and a memory is forgotten."""
    from kingdoms.engine.sight import sight_of
    from kingdoms.engine.visibility import known_city_ids
    from kingdoms.state import StationedSpy

    def same(state: GameState, kid: str) -> set[int]:
        sight = sight_of(state, kid)
        want = {cid for cid in state.cities if known_city_tile(state, kid, cid, sight) is not None}
        assert known_city_ids(state, kid, sight) == want
        return want

    _, kept = played
    for state in kept.values():
        for kid in state.kingdoms:
            same(state, kid)
    state = max(kept.items())[1].clone()
    kid = sorted(state.kingdoms)[0]
    unknown = [c for c in state.cities.values() if c.owner != kid and c.id not in same(state, kid)]
    assert unknown, "a city the kingdom does not know yet"
    city = unknown[0]
    state.spies.append(StationedSpy(kid, city.id, state.month))
    assert city.id in same(state, kid)
    state.spies.pop()
    memory = state.kingdoms[kid].memory.setdefault("cities", {})
    memory[str(city.id)] = {"id": city.id, "q": city.q, "r": city.r, "owner": city.owner}
    assert city.id in same(state, kid)
    del memory[str(city.id)]
    assert city.id not in same(state, kid)


def test_combat_280_city_110_kept_frames_are_the_fresh_ones_and_follow_a_new_board() -> None:
    """COMBAT-280, CITY-110: the observation's economy board keeps each city's frame once read; asked again it
    gives the same frame, equal to what a fresh economy.Board gives (enemy troop on the land: that tile occupied,
    own troop's men eaten), every focus and the budget read as the uncached economy reads the state, a frame of
    another city object with the id is never handed out, and a later observation where the enemy troop has left
    gives the new answer (the kept frame belongs to the old board)."""
    state = world(war=True)
    city = add_city(state, "wei", (4, 4), people=30_000)
    tile = next(t for t in sorted(state.city_tiles(city.id)) if t != (4, 4))
    enemy = add(state, "shu", "spearman", tile, 2000)
    add(state, "wei", "levy", (4, 4), 1000)

    def check(state: GameState) -> frozenset[int]:
        obs = observe(state, "wei")
        board = obs._economy_board
        mine = obs.believed.cities[city.id]
        first = eco.frame(obs.believed, mine, board)
        assert eco.frame(obs.believed, mine, board) is first
        assert first == eco.frame(obs.believed, mine, eco.Board.of(obs.believed))
        assert first.troop_men == 1000
        twin = obs.believed.clone().cities[city.id]  # same id, another object: read afresh, not the kept frame
        assert eco.frame(obs.believed, twin, board) is not first
        for focus in rd.FOCUSES:
            assert obs.city_output(city.id, focus) == eco.city_output(state, state.cities[city.id], focus)
        assert obs.budget == eco.kingdom_budget(state, "wei")
        assert obs.free_sites(city.id, "farm") == eco.free_sites(state, state.cities[city.id], "farm")
        return first.occupied

    assert check(state)  # the enemy stands on a tile of the city's land
    later = state.clone()
    later.units[enemy.id].q, later.units[enemy.id].r = 11, 9
    assert not check(later)
