"""Conquest, unrest, revolts, elimination and closed borders (CONQ-*, VIC-030, DIPLO-*, OPEN-3, OPEN-16..19/39/76).

Worlds come from tests.test_sieges.world (20 x 12 plains, capitals of Wei (2,2), Shu (14,2), Wu (3,9), a
Shu town "Xiangyang" of 15,000 on (8,6)); every figure is worked from the rules in a comment.
"""

from __future__ import annotations

import numpy as np
import pytest

from kingdoms import ruledata as rd
from kingdoms.engine.conquest import (
    hold_down_needed,
    hold_down_present,
    pass_to_bandits,
    return_to_founder,
    unrest_phase,
)
from kingdoms.engine.context import MonthContext
from kingdoms.engine.diplomacy import closed_by, crosses_borders, expel_from_closed_land, run_declare_war
from kingdoms.engine.generals import new_general
from kingdoms.engine.land import found_city
from kingdoms.engine.registry import VERBS, load_areas
from kingdoms.engine.sieges import assault_city, capture_city, full_militia, militia_phase
from kingdoms.engine.victory import captures
from kingdoms.orders.models import DeclareWar
from kingdoms.state import Camp, QueueEntry, StationedSpy
from tests.builders import add
from tests.test_sieges import TOWN, WEST, town, world


class FixedRoll:
    """A stand-in for ctx.rng("unrest") that always rolls the same number."""

    def __init__(self, value: float) -> None:
        self.value = value

    def random(self) -> float:
        return self.value


def taken_town(month: int = 50):
    """Wei takes Shu's town by assault (no walls, no militia standing): returns (state, city, the Wei troop)."""
    state = world(month=month)
    city = town(state)
    city.militia = 0.0
    troop = add(state, "wei", "levy", WEST, 2_000)
    assault_city(MonthContext(state), troop, city)
    assert city.owner == "wei"
    return state, city, troop


def unrest_month(state, roll: float = 0.99) -> MonthContext:
    ctx = MonthContext(state)
    ctx._rngs["unrest"] = FixedRoll(roll)  # the only draw the unrest phase makes
    unrest_phase(ctx)
    state.month += 1
    return ctx


# --- capture (CONQ-010..100) --------------------------------------------------------------------------------


def test_conq_010_city_passes_with_land_improvements_and_granary():
    """CONQ-010, CONQ-100, CITY-380, BUILD-130, SUPPLY-210: the captor takes the city, its land, farms and grain."""
    state = world()
    city = town(state)
    land = state.city_tiles(city.id)
    from kingdoms.state import Improvement

    city.improvements.append(Improvement(9, 6, "farm"))
    city.militia = 0.0
    troop = add(state, "wei", "levy", WEST, 2_000)
    assault_city(MonthContext(state), troop, city)
    assert city.owner == "wei"
    assert state.city_tiles(city.id) == land and len(land) == 7  # centre + 6 neighbours
    assert [i.kind for i in city.improvements] == ["farm"]
    assert city.grain == 200


def test_conq_020_queue_and_store_cleared_city_restless():
    """CONQ-020, BUILD-240, OPEN-1: the queue and store are cleared (store credited once to the captor's capital)."""
    state = world()
    city = town(state)
    city.queue = [QueueEntry("barracks", paid=10.0)]
    city.store = 12.5
    city.militia = 0.0
    troop = add(state, "wei", "levy", WEST, 2_000)
    capital = state.cities[state.kingdoms["wei"].capital_id]
    assault_city(MonthContext(state), troop, city)
    assert city.queue == [] and city.store == 0
    assert capital.store == 12.5
    assert city.restless and city.unrest_months == 0


def test_conq_030_restless_city_flag_read_by_the_economy():
    """CONQ-030: a restless city is flagged for the economy (no production, no growth, 50% harvest)."""
    _, city, _ = taken_town()
    assert city.restless


def test_conq_040_hold_down_needed():
    """CONQ-040: 10% of its population, clamped to 500..3,000: 4,000 -> 500; 12,000 -> 1,200; 40,000 -> 3,000."""
    state = world()
    city = town(state)
    for people, need in ((4_000, 500), (12_000, 1_200), (40_000, 3_000), (15_000, 1_500)):
        city.people = people
        assert hold_down_needed(city) == need


def test_open_42_hold_down_counts_fighting_troops_on_its_land():
    """CONQ-040, OPEN-42: fighting troops (siege trains included) on the city's land count; wagons do not."""
    state, city, troop = taken_town()
    assert hold_down_present(state, city) == 2_000  # the levies that took it stand in it
    add(state, "wei", "catapult", (9, 6), 300)
    add(state, "wei", "wagon", (9, 5), 0, cargo=10)
    add(state, "wei", "levy", (5, 6), 3_000)  # 3 tiles away: not its land
    assert hold_down_present(state, city) == 2_300


def test_conq_050_six_held_months_settle_and_half_leave():
    """CONQ-050: each held month a month of unrest passes; after 6 the city settles and 50% of its people leave.

    The month it was taken does not count. 15,000 people need 1,500; 2,000 levies stand in it.
    After 6 held months: 15,000 x 50% = 7,500 leave, 7,500 stay.
    """
    state, city, _ = taken_town()
    ctx = MonthContext(state)
    ctx.captured.add(city.id)
    unrest_phase(ctx)  # the month of capture
    assert city.unrest_months == 0
    for n in range(1, 6):
        unrest_month(state, roll=0.0)  # a roll of 0 would revolt: held down, no roll is made
        assert city.unrest_months == n and city.restless
    unrest_month(state, roll=0.0)
    assert not city.restless
    assert city.people == 7_500
    assert city.owner == "wei"


def test_conq_060_not_held_no_unrest_passes_and_15_percent_revolt():
    """CONQ-060: not held down, the count freezes and a 15% roll sends it back to its founder."""
    state, city, troop = taken_town()
    unrest_month(state, roll=0.0)
    assert city.unrest_months == 1
    troop.q, troop.r = (5, 6)  # off its land: 0 < 1,500
    unrest_month(state, roll=0.15)  # 0.15 is not below 15%: no revolt
    assert city.owner == "wei" and city.unrest_months == 1
    unrest_month(state, roll=0.1499)
    assert city.owner == "shu"  # back to its founder
    assert not city.restless and city.captured_by is None


def test_open_16_revolt_loses_the_holders_troops_inside():
    """OPEN-16: on an unrest revolt the holder's troops in the city are lost; its generals there leave."""
    state, city, troop = taken_town()
    troop.men = 1_000  # 1,000 < 1,500 needed
    general = new_general(state, "wei", unit_id=troop.id)
    unrest_month(state, roll=0.01)
    assert city.owner == "shu"
    assert troop.id not in state.units
    assert general.id not in state.generals or state.generals[general.id].owner == "wei"


def test_conq_060_open_16_founder_fallen_goes_to_bandits():
    """CONQ-060, OPEN-16: with its founder eliminated a revolting city goes to the bandits."""
    state, city, troop = taken_town()
    state.kingdoms["shu"].eliminated = True
    troop.q, troop.r = (5, 6)
    unrest_month(state, roll=0.0)
    assert city.owner == rd.BANDITS
    assert city.grain == 0 and city.store == 0  # OPEN-19: the bandits burn grain and store


def test_open_17_ruin_is_restless_and_revolts_back_to_bandits():
    """OPEN-17: a city taken from the bandits (the Ruin too) is restless; its revolt always goes to the bandits."""
    from kingdoms.setup import found_ruin

    state = world()
    ruin = found_ruin(state, (8, 10))
    for uid in [u.id for u in state.units.values() if u.tile == ruin.tile]:
        del state.units[uid]
    ruin.walls = 0.0
    ruin.militia = 0.0
    troop = add(state, "wei", "levy", (7, 10), 2_000)
    assault_city(MonthContext(state), troop, ruin)
    assert ruin.owner == "wei" and ruin.restless
    troop.q, troop.r = (4, 10)
    unrest_month(state, roll=0.0)
    assert ruin.owner == rd.BANDITS


def test_conq_070_retaking_your_own_city_brings_no_unrest():
    """CONQ-070, VIC-070: Shu winning back its own town is not restless and not a capture."""
    state, city, troop = taken_town()
    assert captures(state)["wei"] == 1
    del state.units[troop.id]
    city.militia = 0.0
    shu = add(state, "shu", "levy", WEST, 2_000)
    assault_city(MonthContext(state), shu, city)
    assert city.owner == "shu"
    assert not city.restless
    assert captures(state) == {"wei": 0, "shu": 0}


def test_conq_080_captured_city_happiness_100():
    """CONQ-080, CITY-210: a captured city starts at happiness 100."""
    state = world()
    city = town(state)
    city.happiness = 35.0
    city.militia = 0.0
    troop = add(state, "wei", "levy", WEST, 2_000)
    assault_city(MonthContext(state), troop, city)
    assert city.happiness == 100


def test_conq_090_spies_and_waiting_general_in_a_falling_city():
    """CONQ-090, INTEL-200, GEN-090: the loser's spies inside are captured; a general waiting there is
    captured (defects) or escapes to a troop or city of his within 2 tiles, else is lost."""
    state = world()
    city = town(state)
    state.spies.append(StationedSpy("shu", city.id, 2))
    general = new_general(state, "shu", city_id=city.id)
    city.militia = 0.0
    troop = add(state, "wei", "levy", WEST, 2_000)
    assault_city(MonthContext(state), troop, city)
    assert not [s for s in state.spies if s.city_id == city.id]
    g = state.generals.get(general.id)
    # No Shu troop or city within 2 tiles of the town: either he defected to Wei or he is lost.
    assert g is None or (g.owner == "wei" and (g.unit_id == troop.id or g.city_id is not None))


def test_conq_100_open_18_taking_a_capital_eliminates_and_it_becomes_ordinary():
    """CONQ-100, VIC-030, OPEN-18: taking Shu's capital eliminates Shu; the capital is an ordinary Wei city."""
    state = world(wu=True)
    capital = state.cities[state.kingdoms["shu"].capital_id]
    capital.militia = 0.0
    troop = add(state, "wei", "levy", (13, 2), 2_000)
    assault_city(MonthContext(state), troop, capital)
    assert capital.owner == "wei" and not capital.is_capital
    assert state.kingdoms["shu"].eliminated
    assert full_militia(state, capital) == 1_000  # 10% of 15,000 capped at 1,000, no longer 20%/1,500
    assert capital.restless
    assert captures(state)["wei"] == 1  # a capital counts as a capture


# --- unhappiness revolts and bandits (CITY-200, OPEN-16, OPEN-19) -------------------------------------------


def test_city_200_open_16_pass_to_bandits_loses_troops_and_burns():
    """CITY-200, OPEN-16, OPEN-19: an unhappy city goes to the bandits; the owner's troops in it are lost,
    its grain and stored production burn; a capital never revolts."""
    state = world()
    city = town(state)
    city.store = 30.0
    gar = add(state, "shu", "spearman", TOWN, 1_500)
    ctx = MonthContext(state)
    assert pass_to_bandits(ctx, city, "its people starve")
    assert city.owner == rd.BANDITS
    assert gar.id not in state.units
    assert city.grain == 0 and city.store == 0
    assert any(e.kind == "city_to_bandits" and e.audience is None for e in ctx.events)
    capital = state.cities[state.kingdoms["shu"].capital_id]
    assert not pass_to_bandits(ctx, capital, "hunger")
    assert capital.owner == "shu"


def test_return_to_founder_keeps_grain_clears_queue():
    """OPEN-16: a city returned to its founder keeps its grain; the holder's queue and store go; not restless."""
    state, city, troop = taken_town()
    city.queue = [QueueEntry("palisade")]
    city.store = 5.0
    assert return_to_founder(MonthContext(state), city, "test")
    assert city.owner == "shu" and city.grain == 200 and city.queue == [] and city.store == 0
    assert troop.id not in state.units


# --- elimination (VIC-030, OPEN-3) --------------------------------------------------------------------------


def test_vic_030_elimination_disbands_troops_and_gives_cities_to_bandits():
    """VIC-030, OPEN-3, OPEN-40: Shu's troops disband, its other cities go to the bandits, its generals are lost;
    standing attacks aimed at it end."""
    state = world(wu=True)
    shu_levy = add(state, "shu", "levy", (12, 4), 3_000)
    general = new_general(state, "shu", unit_id=shu_levy.id)
    cid = state.new_id()
    state.camps[cid] = Camp(cid, "shu", 12, 6, 30.0)
    hunter = add(state, "wei", "cavalry", (6, 4), 1_000)
    hunter.standing = {"action": "attack", "unit_id": hunter.id, "to": [12, 4]}
    capital = state.cities[state.kingdoms["shu"].capital_id]
    capital.militia = 0.0
    troop = add(state, "wei", "levy", (13, 2), 2_000)
    ctx = MonthContext(state)
    assault_city(ctx, troop, capital)
    assert state.kingdoms["shu"].eliminated
    assert not [u for u in state.units.values() if u.owner == "shu"]
    assert general.id not in state.generals
    assert town(state).owner == rd.BANDITS
    assert not [c for c in state.camps.values() if c.owner == "shu"]
    assert hunter.standing is None
    assert not state.finished  # Wei and Wu still stand
    assert any(e.kind == "kingdom_eliminated" and e.audience is None for e in ctx.events)


def test_vic_030_040_scripted_campaign_eliminates_shu_and_wu():
    """VIC-030, VIC-040: Wei takes Shu's capital over three months of assaults, then Wu's: Wei wins, last standing.

    Shu's capital (15,000, month 50): full militia 20% of 15,000 capped at 1,500, no walls, no garrison.
    Month 1: 3,000 levies vs 1,500 militia (0.6): weights sqrt(3,000 x 1,500) = 2,121.3 vs 1,500;
      militia loses 0.2 x 2,121.3 x sqrt(1 / 0.6) = 424.26 x 1.290994 = 547.7 -> 548 (36.5%: beaten) -> the
      capital falls at once (no walls): Shu is eliminated, its town passes to the bandits.
    Then Wu's capital: walls 50 (x1.25), full militia 1,500 (0.6 x 1.25 = 0.75); 8,000 fresh levies.
      Month 2: battering 5 x 8 = 40 -> walls 10. weights sqrt(8,000 x 1,500) = 3,464.1 vs 1,500.
        militia loses 0.2 x 3,464.1 x sqrt(1 / 0.75) = 692.82 x 1.154701 = 800.0 -> 800 (beaten, but walls stand);
        levies lose 0.2 x 1,500 x sqrt(0.75) = 259.8 -> 260 -> 7,740 (morale 100 - 0.75 x 3.25 = 97.56).
        Month end: militia 700 + 20% x 1,500 = 1,000.
      Month 3: battering 5 x 7.74 = 38.7 -> walls 0; defenders at walls 10 (x1.05): militia 0.63;
        levies 1 x (0.5 + 97.56/200) = 0.98781. weights sqrt(7,740 x 1,000) = 2,782.1 vs 1,000.
        militia loses 0.2 x 2,782.1 x sqrt(0.98781 / 0.63) = 556.42 x 1.252175 = 696.7 -> 697 (beaten), walls 0:
        Wu falls; Wei is the last kingdom standing and wins at once (VIC-040).
    """
    state = world(wu=True)
    shu_capital = state.cities[state.kingdoms["shu"].capital_id]
    shu_capital.militia = float(full_militia(state, shu_capital))
    assert shu_capital.militia == 1_500
    army = add(state, "wei", "levy", (13, 2), 3_000)
    state.wars.append(["wei", "wu"])
    ctx = MonthContext(state)
    assault_city(ctx, army, shu_capital)
    assert shu_capital.owner == "wei" and state.kingdoms["shu"].eliminated
    assert town(state).owner == rd.BANDITS
    assert shu_capital.militia == 1_500 - 548
    wu_capital = state.cities[state.kingdoms["wu"].capital_id]
    wu_capital.walls, wu_capital.walls_max = 50.0, 50.0
    army2 = add(state, "wei", "levy", (4, 9), 8_000)
    walls_seen = []
    for _ in range(3):
        ctx = MonthContext(state)
        assault_city(ctx, army2, wu_capital)
        militia_phase(ctx)
        walls_seen.append(wu_capital.walls)
        state.month += 1
        if wu_capital.owner == "wei":
            break
    assert walls_seen == [10, 0]
    assert army2.men == 7_740 - 160  # month 3: 0.2 x 1,000 x sqrt(0.63 / 0.98781) = 200 x 0.798616 = 159.7 -> 160
    # Wei's now, an ordinary city (OPEN-18): full militia 1,000 regrows 200 -> 1,000 - 697 + 200 = 503.
    assert wu_capital.owner == "wei" and wu_capital.militia == 503
    assert wu_capital.people == 15_000 - 800 - 697
    assert state.kingdoms["wu"].eliminated
    assert state.finished and state.end_reason == "last_standing"
    assert state.kingdoms["wei"].result == "win"
    assert state.kingdoms["shu"].result == "loss" and state.kingdoms["wu"].result == "loss"
    assert state.kingdoms["wei"].place == 1


# --- diplomacy: war, closed land, expulsion (DIPLO-*) -------------------------------------------------------


def test_diplo_010_kingdoms_start_at_peace_bandits_at_war_with_all():
    """DIPLO-010, BANDIT-020: every pair of kingdoms starts at peace; bandits are at war with everyone."""
    state = world(wu=True, war=False)
    assert state.wars == []
    assert not state.at_war("wei", "shu")
    assert state.at_war("wei", rd.BANDITS) and state.at_war(rd.BANDITS, "wu")


def test_diplo_020_land_and_camps_closed_at_peace_agents_cross():
    """DIPLO-020, INTEL-210: at peace each kingdom's land and camps are closed to the other's troops, wagons and
    colonists; scouts and spies cross; war opens them; bandit land is never closed."""
    state = world(war=False)
    assert closed_by(state, "wei", *WEST) == "shu"  # Xiangyang's land
    assert closed_by(state, "shu", *WEST) is None  # its own land
    state.camps[99] = Camp(99, "shu", 5, 8, 0.0)
    assert closed_by(state, "wei", 5, 8) == "shu"
    scout = add(state, "wei", "scout", (5, 5), 0)
    wagon = add(state, "wei", "wagon", (5, 5), 0)
    assert crosses_borders(scout) and not crosses_borders(wagon)
    state.wars.append(["shu", "wei"])
    assert closed_by(state, "wei", *WEST) is None
    city = town(state)
    city.owner = rd.BANDITS
    assert closed_by(state, "wu", *WEST) is None


def test_diplo_020_closed_land_follows_the_wars_of_the_moment():
    """DIPLO-020, BANDIT-020: the board's closed tiles (pathing._closed_land, kept per map) are the impassable
    ones plus the land of kingdoms at peace with the unit's, asked again after a war is declared or peace made
    in the month; bandits find nothing closed."""
    from kingdoms.engine.pathing import _closed_land, net_of

    state = world(war=False)
    net = net_of(state.map)
    shu = [c.id for c in state.cities.values() if c.owner == "shu"]
    land = bytes((np.isin(state.owner, shu) | np.frombuffer(net.impassable, dtype=bool)).view(np.uint8))
    assert shu and land != net.impassable
    for wars, closed in (([], land), ([["shu", "wei"]], net.impassable), ([], land)):
        state.wars[:] = wars
        assert _closed_land(state, "wei", net) == closed
        assert state.at_war("wei", "shu") == (closed == net.impassable)
    assert _closed_land(state, rd.BANDITS, net) == net.impassable


def test_diplo_040_open_76_units_on_closed_land_are_expelled():
    """DIPLO-040, OPEN-76: a unit left on closed land goes to the nearest free tile outside it at month end.

    A Wei levy on (8,5), the town's NW neighbour (Shu land, closed at peace). Its neighbours outside the town's
    land are (7,5), (8,4) and (9,4). Distance to Wei's capital (2,2): (7,5) -> (5 + 3 + 8)/2 = 8;
    (8,4) -> (6 + 2 + 8)/2 = 8; (9,4) -> (7 + 2 + 9)/2 = 9. Tie at 8 broken by lowest r: (8,4).
    """
    state = world(war=False)
    levy = add(state, "wei", "levy", (8, 5), 1_000)
    scout = add(state, "wei", "scout", (9, 5), 0)
    ctx = MonthContext(state)
    expel_from_closed_land(ctx)
    assert levy.tile == (8, 4)
    assert scout.tile == (9, 5)  # agents may stay
    assert ctx.events and ctx.events[0].audience == ["wei"]


def test_diplo_040_expulsion_skips_occupied_tiles():
    """DIPLO-040: the tile must be free; with (8,4) held by another Wei troop the levy goes to (7,5)."""
    state = world(war=False)
    add(state, "wei", "levy", (8, 4), 1_000)
    levy = add(state, "wei", "spearman", (8, 5), 1_000)
    expel_from_closed_land(MonthContext(state))
    assert levy.tile == (7, 5)  # 8 from Wei's capital; the other free one, (9,4), is 9


def test_diplo_050_130_declare_war_public():
    """DIPLO-050, DIPLO-130: declare_war opens war at once and every kingdom is told."""
    load_areas()
    state = world(war=False)
    ctx = MonthContext(state)
    result = run_declare_war(ctx, "wei", DeclareWar(to="Shu"))
    assert "war declared" in result
    assert state.at_war("wei", "shu")
    assert [e.audience for e in ctx.events if e.kind == "war"] == [None]


def test_diplo_120_no_peace_making():
    """DIPLO-120, DIPLO-140: there is no peace order; a second declaration changes nothing."""
    load_areas()
    assert not [v for v in VERBS if "peace" in v or "trade" in v or "message" in v]
    state = world()
    result = run_declare_war(MonthContext(state), "wei", DeclareWar(to="shu"))
    assert result.startswith("already at war")
    assert state.wars == [["shu", "wei"]]


def test_open_39_nothing_but_declarations_starts_wars():
    """DIPLO-100, OPEN-39: phases (towers, borders, unrest...) never start a war by themselves."""
    state = world(war=False)
    city = town(state)
    city.walls, city.walls_max = 100.0, 100.0
    add(state, "wei", "levy", (9, 4), 1_000)
    ctx = MonthContext(state)
    from kingdoms.engine.sieges import towers_phase

    towers_phase(ctx)
    expel_from_closed_land(ctx)
    unrest_phase(ctx)
    assert state.wars == []


def test_capture_city_by_founder_is_not_a_capture():
    """VIC-070: capture_city with the founder as captor leaves no capture and no unrest."""
    state = world()
    city = town(state)
    city.owner = "wei"
    city.captured_by = "wei"
    capture_city(MonthContext(state), city, "shu", None)
    assert city.captured_by is None and not city.restless


@pytest.mark.parametrize("people,need", [(3_000, 500), (29_999, 3_000), (20_000, 2_000)])
def test_conq_040_hold_down_bounds(people, need):
    """CONQ-040: 3,000 -> 300 raised to 500; 29,999 -> 3,000 (cap); 20,000 -> 2,000."""
    state = world()
    city = town(state)
    city.people = people
    assert hold_down_needed(city) == need


def test_found_city_on_new_land_starts_with_full_militia():
    """SIEGE-060: a newly founded city's militia stands full (10% of 5,000 = 500)."""
    state = world()
    city = found_city(state, "wei", 4, 6, people=5_000, grain=20)
    assert city.militia == 500


def test_open_39_sabotage_at_peace_starts_no_war():
    """OPEN-39, DIPLO-100: a spy may sabotage a city of a kingdom at peace; it starts no war.

    Half the granary burns: 200 x 50% = 100 dan left.
    """
    from kingdoms.engine.intel import run_sabotage
    from kingdoms.orders.models import Sabotage

    state = world(war=False)
    city = town(state)
    state.spies.append(StationedSpy("wei", city.id, state.month - 1))
    run_sabotage(MonthContext(state), "wei", Sabotage(city_id=city.id, target="granary"))
    assert city.grain == 100
    assert state.wars == []
