"""Victory in the captures mode: captures, the Ruin, the 36-month lead, last standing, month 160 (VIC-*, OPEN-20, OPEN-21).

Worlds come from tests.test_sieges.world; capture counts are set up either by real assaults or, for the
long-running counters, by setting City.captured_by directly and calling the victory phase month after month.
"""

from __future__ import annotations

from kingdoms import ruledata as rd
from kingdoms.engine.context import MonthContext
from kingdoms.engine.land import found_city
from kingdoms.engine.sieges import assault_city
from kingdoms.engine.victory import captures, places, ruin_holder, victory_phase
from kingdoms.setup import found_ruin
from kingdoms.state import City, GameState
from tests.builders import add
from tests.test_sieges import TOWN, WEST, town, world


def take(state: GameState, city: City, by: str, tile: tuple[int, int]) -> None:
    """`by` assaults `city` from `tile` with 3,000 levies against no walls and no militia: it falls."""
    city.walls = 0.0
    city.militia = 0.0
    for u in [u for u in state.units.values() if u.tile == city.tile]:
        del state.units[u.id]
    troop = add(state, by, "levy", tile, 3_000)
    if not state.at_war(by, city.owner):
        state.wars.append(sorted((by, city.owner)))
    assault_city(MonthContext(state), troop, city)
    assert city.owner == by


def month_end(state: GameState) -> MonthContext:
    """Run the victory phase for the current month, then advance the month."""
    ctx = MonthContext(state)
    victory_phase(ctx)
    if not state.finished:
        state.month += 1
    return ctx


def set_captures(state: GameState, counts: dict[str, int]) -> None:
    """Give each kingdom `n` captured cities (fresh cities founded by a rival and marked captured_by)."""
    for c in [c for c in state.cities.values() if c.captured_by is not None]:
        c.captured_by = None
    spots = iter([(5, 0), (9, 0), (13, 0), (5, 4), (11, 4), (16, 6), (5, 11), (10, 11), (14, 9)])
    for kid, n in counts.items():
        mine = [c for c in state.cities.values() if c.owner == kid and c.founder != kid]
        while len(mine) < n:
            q, r = next(spots)
            rival = next(k for k in state.kingdoms if k != kid)
            city = found_city(state, kid, q, r, people=5_000, grain=0, founder=rival, name=f"{kid}-{q}-{r}")
            mine.append(city)
        for c in mine[:n]:
            c.captured_by = kid


# --- what counts (VIC-050..110) -----------------------------------------------------------------------------


def test_vic_050_assault_on_a_rivals_city_is_a_capture():
    """VIC-050: founded by another kingdom, taken by K's own assault from a rival kingdom, held by K."""
    state = world()
    take(state, town(state), "wei", WEST)
    assert captures(state) == {"wei": 1, "shu": 0}
    assert town(state).captured_by == "wei"


def test_vic_050_capture_of_a_city_a_third_kingdom_founded():
    """VIC-050: Wu takes from Wei a city Shu founded: a capture for Wu (Wei's capture of it ends, VIC-060)."""
    state = world(wu=True)
    city = town(state)
    take(state, city, "wei", WEST)
    take(state, city, "wu", (7, 7))
    assert captures(state) == {"wei": 0, "shu": 0, "wu": 1}


def test_vic_060_capture_stops_when_lost_to_bandits():
    """VIC-060: the capture stops counting the moment the city is lost (here: a revolt to the bandits)."""
    from kingdoms.engine.conquest import pass_to_bandits

    state = world()
    take(state, town(state), "wei", WEST)
    pass_to_bandits(MonthContext(state), town(state), "test revolt")
    assert captures(state)["wei"] == 0


def test_vic_070_retaking_your_own_city_is_no_capture():
    """VIC-070: Shu retaking its town ends Wei's capture and gives Shu none."""
    state = world()
    take(state, town(state), "wei", WEST)
    take(state, town(state), "shu", (9, 6))
    assert captures(state) == {"wei": 0, "shu": 0}


def test_vic_080_bandit_city_is_no_capture():
    """VIC-080, BANDIT-070: a city taken from the bandits does not count."""
    state = world()
    city = town(state)
    city.owner = rd.BANDITS
    take(state, city, "wei", WEST)
    assert captures(state)["wei"] == 0 and city.captured_by is None


def test_vic_090_110_the_ruin_counts_for_its_holder():
    """VIC-090, VIC-110: the Ruin (bandits' at start) counts as a capture for whoever holds it, from bandits or a rival."""
    state = world()
    ruin = found_ruin(state, (8, 10))
    assert ruin_holder(state) == rd.BANDITS
    take(state, ruin, "wei", (7, 10))
    assert captures(state)["wei"] == 1 and ruin_holder(state) == "wei"
    take(state, ruin, "shu", (9, 10))
    assert captures(state) == {"wei": 0, "shu": 1}


def test_vic_100_open_70_ruin_garrison_and_walls():
    """VIC-100, OPEN-70: 10,000 people, walls 50 (ceiling 50), 1,500 fortified spearmen, militia 1,000, no founder."""
    state = world()
    ruin = found_ruin(state, (8, 10))
    gar = [u for u in state.units.values() if u.tile == ruin.tile]
    assert [(u.owner, u.type, u.men, u.fortified) for u in gar] == [(rd.BANDITS, "spearman", 1_500, True)]
    assert (ruin.people, ruin.walls, ruin.walls_max, ruin.militia) == (10_000, 50, 50, 1_000)
    assert ruin.founder is None and ruin.is_ruin


def test_vic_120_nobody_founds_on_the_ruin():
    """VIC-120: the Ruin's tile and ring are taken: no city can be founded on or beside it."""
    from kingdoms.engine.land import founding_problem

    state = world()
    found_ruin(state, (8, 10))
    assert founding_problem(state, 8, 10) is not None
    assert founding_problem(state, 9, 10) is not None


def test_vic_140_capture_events_are_public():
    """VIC-140: captures are public: the capture event goes to every kingdom."""
    state = world()
    city = town(state)
    city.militia = 0.0
    troop = add(state, "wei", "levy", WEST, 3_000)
    ctx = MonthContext(state)
    assault_city(ctx, troop, city)
    assert [e.audience for e in ctx.events if e.kind == "city_captured"] == [None]


# --- the lead (VIC-150..170, OPEN-21) -----------------------------------------------------------------------


def test_vic_150_160_lead_of_36_months_wins():
    """VIC-150, VIC-160, OPEN-21: Wei pulls ahead in month 50 (counter 1); at the end of month 85 (the 36th) it wins."""
    state = world(wu=True, month=50)
    set_captures(state, {"wei": 1})
    for m in range(50, 85):
        month_end(state)
        assert state.lead == {"kingdom": "wei", "months": m - 49}
        assert not state.finished
    ctx = month_end(state)  # month 85: 36th month in a row
    assert state.lead["months"] == 36
    assert state.finished and state.end_reason == "lead"
    assert state.kingdoms["wei"].result == "win"
    assert state.kingdoms["shu"].result == "loss" and state.kingdoms["wu"].result == "loss"
    assert [e.audience for e in ctx.events if e.kind == "game_end"] == [None]


def test_vic_170_lead_cancelled_when_a_rival_draws_level_and_restarts():
    """VIC-170: a rival drawing level cancels the count; it restarts from 1 when someone pulls ahead again."""
    state = world(wu=True, month=10)
    set_captures(state, {"wei": 1})
    for _ in range(20):
        month_end(state)
    assert state.lead == {"kingdom": "wei", "months": 20}
    set_captures(state, {"wei": 1, "shu": 1})
    ctx = month_end(state)
    assert state.lead == {"kingdom": None, "months": 0}
    assert any(e.kind == "lead_cancelled" for e in ctx.events)
    set_captures(state, {"wei": 1, "shu": 2})
    month_end(state)
    assert state.lead == {"kingdom": "shu", "months": 1}
    set_captures(state, {"wei": 3, "shu": 2})
    month_end(state)
    assert state.lead == {"kingdom": "wei", "months": 1}  # a new leader starts over


def test_open_21_eliminated_kingdoms_are_not_rivals():
    """OPEN-21: "every rival" means every other living kingdom: a fallen Wu does not stop Wei's lead."""
    state = world(wu=True, month=10)
    set_captures(state, {"wei": 1, "shu": 1})
    month_end(state)
    assert state.lead == {"kingdom": None, "months": 0}  # level with Shu
    state.kingdoms["shu"].eliminated = True
    for c in state.cities.values():
        if c.owner == "shu":
            c.owner, c.captured_by = rd.BANDITS, None
    month_end(state)
    assert state.lead == {"kingdom": "wei", "months": 1}  # 1 against Wu's 0; Shu no longer counts


# --- last standing and the end of month 160 (VIC-040, VIC-180..200, OPEN-20) --------------------------------


def test_vic_040_last_kingdom_standing_wins():
    """VIC-040: when only one kingdom is left it wins at once."""
    state = world()
    capital = state.cities[state.kingdoms["shu"].capital_id]
    take(state, capital, "wei", (13, 2))
    assert state.finished and state.end_reason == "last_standing"
    assert (state.kingdoms["wei"].result, state.kingdoms["shu"].result) == ("win", "loss")
    assert (state.kingdoms["wei"].place, state.kingdoms["shu"].place) == (1, 2)


def test_vic_180_190_month_160_ends_in_a_draw():
    """VIC-180, VIC-190, OPEN-20: at the end of month 160 Wei and Shu hold 2 captures each, Wu 1: Wei and Shu draw
    (sharing first place, VIC-200), Wu loses (third)."""
    state = world(wu=True, month=158)
    set_captures(state, {"wei": 2, "shu": 2, "wu": 1})
    month_end(state)
    month_end(state)
    assert not state.finished and state.month == 160
    month_end(state)
    assert state.finished and state.end_reason == "time_limit" and state.month == 160
    assert {k: kd.result for k, kd in state.kingdoms.items()} == {"wei": "draw", "shu": "draw", "wu": "loss"}
    assert {k: kd.place for k, kd in state.kingdoms.items()} == {"wei": 1, "shu": 1, "wu": 3}


def test_vic_180_a_capture_in_month_160_counts():
    """VIC-180: a city taken in month 160 counts in the final tally: Wei takes the town and wins 1-0."""
    state = world(month=160)
    take(state, town(state), "wei", WEST)
    month_end(state)
    assert state.finished and state.kingdoms["wei"].result == "win" and state.kingdoms["shu"].result == "loss"


def test_vic_020_land_and_people_do_not_count():
    """VIC-020: at the time limit a kingdom with more land and people but equal captures only draws."""
    state = world(month=160)
    found_city(state, "shu", 8, 10, people=40_000, grain=0)
    month_end(state)
    assert {k: kd.result for k, kd in state.kingdoms.items()} == {"wei": "draw", "shu": "draw"}


def test_vic_200_open_20_places_with_eliminated_kingdoms():
    """VIC-200, OPEN-20: eliminated kingdoms lose and come after the living; level kingdoms share a place."""
    state = world(wu=True, month=100)
    set_captures(state, {"wei": 1, "shu": 1})
    state.kingdoms["wu"].eliminated = True
    state.kingdoms["wu"].eliminated_month = 60
    assert places(state) == {"wei": 1, "shu": 1, "wu": 3}


def test_vic_010_every_kingdom_gets_one_result():
    """VIC-010: once the game ends each kingdom has exactly one of win, loss, draw, and a place."""
    state = world(wu=True, month=160)
    set_captures(state, {"shu": 1})
    month_end(state)
    results = {k: kd.result for k, kd in state.kingdoms.items()}
    assert results == {"wei": "loss", "shu": "win", "wu": "loss"}
    assert all(kd.place is not None for kd in state.kingdoms.values())


def test_town_is_at_its_place():
    """Sanity of the test world: the town stands where the tests assault it."""
    state = world()
    assert town(state).tile == TOWN


def test_vic_180_whole_month_160_through_resolve_month():
    """VIC-180, VIC-190: a whole month 160 resolved by the engine (every phase): nobody holds a capture, all three draw."""
    from kingdoms.engine.month import resolve_month

    state = world(wu=True, month=160)
    found_ruin(state, (8, 10))
    result = resolve_month(state, {})
    new = result.state
    assert new.finished and new.end_reason == "time_limit" and new.month == 160
    assert {k: (kd.result, kd.place) for k, kd in new.kingdoms.items()} == {
        "wei": ("draw", 1), "shu": ("draw", 1), "wu": ("draw", 1)}
    assert [e.audience for e in result.events if e.kind == "game_end"] == [None]
    assert not state.finished  # resolve_month is pure: the old state is untouched
