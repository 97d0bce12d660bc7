"""The pure economy calculators: worked tiles, harvest, production, capacity, growth, land, upkeep, sites.

Figures are worked by hand from the rules (rules-index CITY/BUILD/RECRUIT and the OPEN defaults) in the
comments; the reference town is rules.md's worked example: a 15,000-people capital on a river plains centre
holding G, G, P, P, F, H, with 3,000 levies in it, balanced focus.
"""

from __future__ import annotations

import pytest

from kingdoms import ruledata as rd
from kingdoms.engine import economy as eco
from kingdoms.gamemap import GameMap
from kingdoms.hexgrid import Tile
from kingdoms.state import City, GameState, Improvement, QueueEntry

from .builders import add, add_city, kingdom, rows_with, world

# --- helpers shared by the economy test files ---------------------------------------------------------------


def axial_map(tiles: dict[Tile, str], width: int = 9, height: int = 9, fill: str = "M") -> GameMap:
    """A map of `fill` with the given letters placed by axial (q, r) (lower case = river); every mark on the map."""
    return GameMap.from_rows(rows_with(width, height, tiles, fill, strict=True))


def make_state(gm: GameMap, kingdoms: tuple[str, ...] = ("wei", "shu"), month: int = 1) -> GameState:
    """The economy tests' state: Cao Wei, Shu Han (and Sun Wu) at peace on `gm`, month 1, no cities."""
    names = {"wei": "Cao Wei", "shu": "Shu Han", "wu": "Sun Wu"}
    kds = [kingdom(k, names.get(k, k.title()), f"Ruler of {names.get(k, k.title())}", cities="{name} City {i}",
                   generals="{name} General {i}") for k in kingdoms]
    return world(rows=gm, kingdoms=kds, seed=11, month=month, war=False)


#: The reference capital: centre (4,4) river plains; E G, W G, NE P, NW P, SE F, SW H; mountains beyond.
CENTRE = (4, 4)
REF_TILES = {(4, 4): "p", (5, 4): "G", (3, 4): "G", (5, 3): "P", (4, 3): "P", (4, 5): "F", (3, 5): "H"}


def reference_state(*, levies: bool = True, war: bool = False) -> tuple[GameState, City]:
    """The worked-example capital of wei, 15,000 people, 150 dan, 3,000 levies (4 months' rations) inside."""
    state = make_state(axial_map(REF_TILES))
    city = add_city(state, "wei", CENTRE, 15_000, capital=True)
    if levies:
        add(state, "wei", "levy", CENTRE, 3_000, rations=12.0)
    if war:
        state.wars.append(["shu", "wei"])
    return state, city


# --- the reference capital ----------------------------------------------------------------------------------


def test_reference_map_is_as_described() -> None:
    """The helper places the terrain where the worked example needs it (sanity of the fixture)."""
    state, city = reference_state()
    gm = state.map
    assert [gm.terrain_at(*t).letter for t in gm.neighbours(*CENTRE)] == ["G", "G", "P", "P", "F", "H"]
    assert gm.river[gm.index(*CENTRE)] and gm.water_class_at(*CENTRE) == "fresh"
    assert sorted(state.city_tiles(city.id)) == sorted(REF_TILES)


def test_city_020_040_balanced_picks_food_then_production_in_turn() -> None:
    """CITY-020, CITY-040: 15,000 people work 5 tiles; balanced takes best food G(3,4), best production F(4,5),
    then G(5,4), H(3,5), then the first plains by lowest r, q: P(4,3). P(5,3) is left idle."""
    state, city = reference_state()
    o = eco.city_output(state, city)
    assert o.worked == ((3, 4), (4, 5), (5, 4), (3, 5), (4, 3))


def test_city_090_harvest_of_the_reference_capital() -> None:
    """CITY-090: (3 + centre 2 + G2 + F1 + G2 + H0 + P1) x 1.25 (15,000 = town) = 11 x 1.25 = 13.75 dan."""
    state, city = reference_state()
    o = eco.city_output(state, city)
    assert o.harvest_multiplier == pytest.approx(1.25)
    assert o.harvest == pytest.approx(13.75)
    assert o.people_eat == pytest.approx(9.0)  # 15 x 0.6
    assert o.troops_eat == pytest.approx(3.0)  # 3,000 levies x 1 per 1,000
    assert o.net == pytest.approx(1.75)  # CITY-120: 13.75 - 9 - 3


def test_city_230_production_of_the_reference_capital() -> None:
    """CITY-230: base 1 (centre) + 0 + 2 + 0 + 2 + 1 = 6; 6 x 0.6124 x 0.8 x 1.5 = 4.41 -> 4; +8 court = 12."""
    state, city = reference_state()
    assert eco.city_output(state, city).production == 12


def test_city_150_capacity_of_the_reference_capital() -> None:
    """CITY-150: every tile worked: (3 + 2 + 2+2+1+1+1+0) x 1.25 = 15 dan -> 15 / 0.6 x 1,000 = 25,000 people."""
    state, city = reference_state()
    assert eco.carrying_capacity(state, city) == 25_000
    assert eco.city_output(state, city).capacity == 25_000


def test_city_130_growth_of_the_reference_capital() -> None:
    """CITY-130, OPEN-56: 1.75 surplus x 0.5 (balanced) x 1 (fresh) x (1 - 15,000/25,000) = 0.35 dan -> 84 people."""
    state, city = reference_state()
    o = eco.city_output(state, city)
    assert o.growth_dan == pytest.approx(0.35)
    assert o.growth == 84


def test_open_55_next_tile_threshold_and_reach_of_the_reference_capital() -> None:
    """OPEN-55: 6 land tiles -> next at 3,000 x 6 x (1 + 6/30) = 21,600 people; reach 2 below 30,000."""
    state, city = reference_state()
    o = eco.city_output(state, city)
    assert o.land_tiles == 6
    assert o.next_tile_people == 21_600
    assert eco.next_tile_people(state, city) == 21_600
    assert o.reach == 2


def test_city_070_outlook_under_all_three_focuses() -> None:
    """CITY-070, CITY-060.
    food: G, G, then food-1 tiles by production: F, P(4,3), P(5,3): harvest (3+2+2+2+1+1+1) x 1.25 = 15;
      production (1+0+0+2+1+1) = 5 x 0.6124 x 0.5 x 1.5 = 2.30 -> 2 + 8 = 10; growth 3 x 1 x 0.4 = 1.2 dan = 288.
    production: F, H, P, P, G: harvest (3+2+1+0+1+1+2) x 1.25 = 12.5; production (1+2+2+1+1+0) = 7 x 0.6124 x 1
      x 1.5 = 6.43 -> 6 + 8 = 14; growth 0.5 x 0.15 x 0.4 = 0.03 dan = 7.2 -> 7 people.
    """
    state, city = reference_state()
    out = eco.outlook_all_focuses(state, city)
    assert set(out) == {"food", "balanced", "production"}
    food, bal, prod = out["food"], out["balanced"], out["production"]
    assert set(food.worked) == {(3, 4), (5, 4), (4, 5), (4, 3), (5, 3)}
    assert food.harvest == pytest.approx(15.0) and food.production == 10 and food.growth == 288
    assert bal.harvest == pytest.approx(13.75) and bal.production == 12 and bal.growth == 84
    assert set(prod.worked) == {(4, 5), (3, 5), (4, 3), (5, 3), (3, 4)}
    assert prod.harvest == pytest.approx(12.5) and prod.production == 14 and prod.growth == 7


# --- reference values of the size tables --------------------------------------------------------------------


@pytest.mark.parametrize(("people", "shown"), [(3_000, 0.27), (8_000, 0.45), (15_000, 0.61), (40_000, 1.00),
                                               (75_000, 1.37), (150_000, 1.94), (300_000, 2.74)])
def test_city_240_size_bonus_reference_values(people: int, shown: float) -> None:
    """CITY-240: size bonus = (people / 40,000) ^ 0.5, shown to two places as the rules list them."""
    assert round(rd.size_bonus(people), 2) == pytest.approx(shown)


def test_city_310_harvest_multiplier_at_27500() -> None:
    """CITY-310, OPEN-57: 1.25 + 0.35 x (12,500 / 25,000) = 1.425 ~ x1.43; drill 2,000 + 1,000 x 0.5 = 2,500."""
    assert rd.harvest_multiplier(27_500) == pytest.approx(1.425)
    assert round(rd.harvest_multiplier(27_500), 2) == pytest.approx(1.43)
    assert rd.drill_cap(27_500) == pytest.approx(2_500)


@pytest.mark.parametrize(("people", "mult", "drill"), [(1_500, 1.0, 1_000), (5_000, 1.0, 1_000), (10_000, 1.125, 1_500),
                                                       (15_000, 1.25, 2_000), (40_000, 1.6, 3_000),
                                                       (75_000, 1.75, 4_000), (200_000, 1.75, 4_000)])
def test_city_300_size_tiers(people: int, mult: float, drill: int) -> None:
    """CITY-300, CITY-310: village x1 / 1,000; town 15k x1.25 / 2,000; city 40k x1.6 / 3,000; great 75k x1.75 / 4,000;
    10,000 is halfway from 5,000 to 15,000: x1.125, 1,500."""
    assert rd.harvest_multiplier(people) == pytest.approx(mult)
    assert rd.drill_cap(people) == pytest.approx(drill)


@pytest.mark.parametrize(("land", "people"), [(1, 3_100), (3, 9_900), (6, 21_600), (10, 40_000), (20, 100_000),
                                              (30, 180_000), (90, 1_080_000)])
def test_open_55_tile_thresholds(land: int, people: int) -> None:
    """OPEN-55 / CITY-350: next tile at 3,000 x L x (1 + L/30), e.g. 3 -> 3,000 x 3 x 1.1 = 9,900."""
    assert rd.next_tile_people(land) == people


@pytest.mark.parametrize(("people", "reach"), [(5_000, 2), (29_999, 2), (30_000, 3), (59_999, 3), (60_000, 4),
                                               (100_000, 5)])
def test_open_55_reach(people: int, reach: int) -> None:
    """OPEN-55: reach 2 below 30,000, 3 below 60,000, 4 below 100,000, 5 from 100,000."""
    assert rd.land_reach(people) == reach


# --- centre, occupation, water, improvements ----------------------------------------------------------------


def test_city_080_centre_yields_at_least_2_food_and_1_production() -> None:
    """CITY-080: a hills centre (food 0) counts 2 food; a grassland centre (prod 0) counts 1 production.
    Hills centre with 2,000 people (no worked tile): harvest (3 + 2) x 1 = 5."""
    state = make_state(axial_map({(4, 4): "H", (2, 2): "G"}))
    hills = add_city(state, "wei", (4, 4), 2_000)
    f = eco.frame(state, hills)
    assert f.food(f.centre) == 2 and f.prod(f.centre) == 2
    assert eco.city_output(state, hills).harvest == pytest.approx(5.0)
    grass = add_city(state, "shu", (2, 2), 2_000)
    g = eco.frame(state, grass)
    assert g.food(g.centre) == 2 and g.prod(g.centre) == 1


def test_open_92_worked_count_never_exceeds_the_tiles_held() -> None:
    """OPEN-92: floor(people / 3,000) tiles, at most the tiles held: 40,000 people -> 13, but only 6 held."""
    state, city = reference_state()
    city.people = 40_000
    assert len(eco.city_output(state, city).worked) == 6
    city.people = 8_999  # floor(8,999 / 3,000) = 2
    assert len(eco.city_output(state, city).worked) == 2


def test_open_92_occupied_tile_is_skipped_and_yields_no_capacity() -> None:
    """OPEN-92, COMBAT-280: a shu troop at war on G(3,4) is skipped: balanced works G(5,4), F, P(4,3), H, P(5,3):
    harvest (3 + 2 + 2+1+1+0+1) x 1.25 = 12.5; capacity without (3,4): (3+2+2+1+1+1+0) x 1.25 = 12.5 -> 20,833."""
    state, city = reference_state(war=True)
    add(state, "shu", "levy", (3, 4), 1_000, months=0)
    o = eco.city_output(state, city)
    assert (3, 4) not in o.worked and len(o.worked) == 5
    assert o.harvest == pytest.approx(12.5)
    assert o.capacity == 20_833


def test_combat_280_a_troop_at_peace_does_not_occupy() -> None:
    """COMBAT-280: only a side at war occupies; at peace the harvest stays 13.75."""
    state, city = reference_state(war=False)
    add(state, "shu", "levy", (3, 4), 1_000, months=0)
    assert eco.city_output(state, city).harvest == pytest.approx(13.75)


def test_combat_280_bandits_always_occupy() -> None:
    """COMBAT-280: bandits are at war with everyone: a bandit troop on G(3,4) gives the same 12.5 as an enemy."""
    state, city = reference_state()
    add(state, rd.BANDITS, "spearman", (3, 4), 800, months=0)
    assert eco.city_output(state, city).harvest == pytest.approx(12.5)


def test_open_48_held_water_is_worked_when_the_focus_picks_it() -> None:
    """OPEN-48: a grassland city of 6,000 ringed by water (food 1) and mountains (0) works 2 tiles: the two
    water tiles beat the mountains under food focus: harvest (3 + 2 + 1 + 1) x 1.1 (6,000 people) = 7.7."""
    tiles = {(4, 4): "G", (5, 4): "~", (3, 4): "~"}
    state = make_state(axial_map(tiles))
    city = add_city(state, "wei", (4, 4), 6_000, focus="food")
    o = eco.city_output(state, city)
    assert set(o.worked) == {(5, 4), (3, 4)}
    assert o.harvest_multiplier == pytest.approx(1.025)  # 1 + 0.25 x 1,000 / 10,000
    assert o.harvest == pytest.approx((3 + 2 + 1 + 1) * 1.025)
    assert o.land_tiles == 4  # CITY-360: the 2 water tiles are not land; the 4 mountains are (OPEN-64)


def test_city_140_site_water_multiplier() -> None:
    """CITY-140: growth dan x water: surplus 3, food focus, 15,000 of 25,000: fresh 3 x 1 x 0.4 = 1.2 (288 people);
    coast x0.6 = 0.72 (172.8 -> 173); dry x0.2 = 0.24 (57.6 -> 58)."""
    for water, dan, people in (("fresh", 1.2, 288), ("coast", 0.72, 173), ("dry", 0.24, 58)):
        got = eco.growth_dan(15_000, 3.0, 25_000, "food", water)
        assert got == pytest.approx(dan)
        assert eco.people_from_dan(got) == people


def test_city_140_water_class_of_real_sites() -> None:
    """CITY-140, MAP-160: beside the sea (water touching the map edge) -> coast; no river or water -> dry."""
    tiles = {(-2, 4): "~", (-1, 4): "~", (0, 4): "~", (1, 4): "~", (2, 4): "G", (6, 4): "G"}
    state = make_state(axial_map(tiles))
    coast = add_city(state, "wei", (2, 4), 5_000)
    dry = add_city(state, "shu", (6, 4), 5_000)
    assert eco.city_output(state, coast).water == "coast"
    assert eco.city_output(state, dry).water == "dry"


def test_city_130_growth_cap_500_plus_3_percent() -> None:
    """CITY-130: at most 500 + 3% of people: 10,000 people, surplus 10, food, fresh, capacity 1,000,000:
    10 x 0.99 = 9.9 dan, capped to (500 + 300) / 240 = 3.333 dan = 800 people."""
    dan = eco.growth_dan(10_000, 10.0, 1_000_000, "food", "fresh")
    assert dan == pytest.approx(800 / 240)
    assert eco.people_from_dan(dan) == 800


def test_open_56_no_growth_at_or_above_capacity_and_none_without_surplus() -> None:
    """OPEN-56: max(0, 1 - people/capacity) -> nothing at capacity; CITY-130: nothing from a deficit."""
    assert eco.growth_dan(25_000, 3.0, 25_000, "food", "fresh") == 0.0
    assert eco.growth_dan(30_000, 3.0, 25_000, "food", "fresh") == 0.0
    assert eco.growth_dan(10_000, -1.0, 25_000, "food", "fresh") == 0.0


def test_city_170_no_growth_while_restless_blockaded_or_raising_colonists() -> None:
    """CITY-170, OPEN-101: restless, blockaded and colonist-raising cities do not grow; below 6,500 people a city
    raising colonists still grows, at most to 6,500."""
    state, city = reference_state()
    city.restless = True
    assert eco.city_output(state, city).growth == 0
    city.restless = False
    assert eco.city_output(state, city, blockaded={city.id}).growth == 0
    city.queue = [QueueEntry("colonists")]
    o = eco.city_output(state, city)
    assert o.growth == 0 and o.no_growth == "raising colonists"
    assert eco.growth_block(city, False, state.month) == ("raising colonists", 0)
    city.people = 6_400
    assert eco.growth_block(city, False, state.month) == (None, 100)
    assert eco.growth_dan(6_400, 50.0, 100_000, "food", "fresh", people_limit=100) == pytest.approx(100 / 240)


def test_city_090_open_6_granary_bonus_is_inside_the_multiplier() -> None:
    """CITY-090, OPEN-6: a granary on idle P(5,3): (11 + 3) x 1.25 = 17.5 dan; capacity (12 + 3) x 1.25 = 18.75
    -> 31,250 people; CITY-100: granary capacity 600."""
    state, city = reference_state()
    city.improvements.append(Improvement(5, 3, "granary"))
    o = eco.city_output(state, city)
    assert o.harvest == pytest.approx(17.5)
    assert o.capacity == 31_250
    assert o.granary_cap == 600


def test_build_140_occupied_granary_gives_no_grain_but_keeps_its_capacity() -> None:
    """BUILD-140, OPEN-47: an enemy on the granary's tile P(5,3): no +3 (harvest 13.75, the tile was idle), capacity
    (3+2+2+2+1+1+0) x 1.25 = 13.75 -> 22,917 people; the granary still holds 600."""
    state, city = reference_state(war=True)
    city.improvements.append(Improvement(5, 3, "granary"))
    add(state, "shu", "levy", (5, 3), 1_000, months=0)
    o = eco.city_output(state, city)
    assert o.harvest == pytest.approx(13.75)
    assert o.capacity == 22_917
    assert o.granary_cap == 600


def test_build_120_farm_counts_in_harvest_only_when_worked_but_always_in_capacity() -> None:
    """BUILD-080, BUILD-120: 6,000 people, production focus, work F and H: harvest (3 + 2 + 1 + 0) x 1.025 = 6.15 with or
    without a farm on the idle P(5,3); capacity without it 12 x 1.025 = 12.3 -> 20,500, with it 13 x 1.025 = 13.325
    -> 22,208. Balanced, the farm makes P(5,3) a 2-food tile, picked first: (3 + 2 + 2 + 1(F)) x 1.025 = 8.2."""
    state, city = reference_state()
    city.people = 6_000
    city.focus = "production"
    before = eco.city_output(state, city)
    assert before.harvest == pytest.approx(6.15) and before.capacity == 20_500
    city.improvements.append(Improvement(5, 3, "farm"))
    o = eco.city_output(state, city)
    assert (5, 3) not in o.worked
    assert o.harvest == pytest.approx(6.15)
    assert o.capacity == 22_208
    bal = eco.city_output(state, city, "balanced")
    assert bal.worked == ((5, 3), (4, 5))
    assert bal.harvest == pytest.approx(8.2)


def test_open_46_workshop_adds_1_plus_12_percent_of_base_production() -> None:
    """BUILD-100, OPEN-46: workshop on H(3,5): base 6 -> 6 + 1 + 0.72 = 7.72 x 0.6124 x 0.8 x 1.5 = 5.67 -> 6,
    +8 = 14. An enemy on its tile stops it (and the H tile): F, G, G, P, P base 5 x 0.6124 x 1.2 = 3.67 -> 4 + 8 = 12."""
    state, city = reference_state(war=True)
    city.improvements.append(Improvement(3, 5, "workshop"))
    assert eco.city_output(state, city).production == 14
    add(state, "shu", "levy", (3, 5), 1_000, months=0)
    assert eco.city_output(state, city).production == 12


def test_open_45_production_rounds_half_up_and_is_at_least_1() -> None:
    """OPEN-45: 40,000 people (bonus 1), production focus, centre G (1) + P + P = 3 x 1 x 1 x 1.5 = 4.5 -> 5
    (half up, not 4); CITY-230: a 1,500-people village makes 1 x 0.19 x 0.8 x 1.5 = 0.23 -> at least 1."""
    state = make_state(axial_map({(4, 4): "G", (5, 4): "P", (3, 4): "P", (1, 1): "G"}))
    city = add_city(state, "wei", (4, 4), 40_000, focus="production")
    assert eco.city_output(state, city).production == 5
    small = add_city(state, "shu", (1, 1), 1_500)
    assert eco.city_output(state, small).production == 1


def test_city_230_court_adds_8_whatever_size_and_focus() -> None:
    """CITY-230: the same 1,500-people village as a capital: 1 + 8 = 9 under every focus."""
    state = make_state(axial_map({(1, 1): "G"}))
    city = add_city(state, "wei", (1, 1), 1_500, capital=True)
    assert {f: o.production for f, o in eco.outlook_all_focuses(state, city).items()} == \
        {"food": 9, "balanced": 9, "production": 9}


def test_conq_030_restless_city_makes_nothing_and_harvests_half() -> None:
    """CONQ-030, CITY-220: restless: production 0, harvest 13.75 / 2 = 6.875; blockaded: harvest 0."""
    state, city = reference_state()
    city.restless = True
    o = eco.city_output(state, city)
    assert o.production == 0 and o.harvest == pytest.approx(6.875) and o.harvest_full == pytest.approx(13.75)
    city.restless = False
    city.last["blockaded"] = True  # as the sieges settled it last month
    assert eco.city_output(state, city).harvest == 0.0


# --- store cap, upkeep --------------------------------------------------------------------------------------


def test_city_270_store_cap() -> None:
    """CITY-270, OPEN-102: nothing queued -> 60; forge (80) queued at 12 gross -> max(24, 80) = 80; 5,000 levies in
    a 15,000 town -> next batch 2,000 x 5 / 1,000 = 10 -> max(24, 10) = 24."""
    state, city = reference_state()
    assert eco.store_cap(city, 12) == 60
    city.queue = [QueueEntry("forge")]
    assert eco.store_cap(city, 12) == 80
    city.queue = [QueueEntry("levy", men=5_000)]
    assert eco.store_cap(city, 12) == 24


def test_recruit_180_upkeep_of_soldiers_and_troops() -> None:
    """RECRUIT-180, OPEN-31: 10,000 men in 4 troops = 10 + 4 x 0.5 = 12; colonists and scouts pay nothing."""
    state, city = reference_state(levies=False)
    for men in (4_000, 3_000, 2_000):
        add(state, "wei", "spearman", (0, 0), men, months=0)
    add(state, "wei", "catapult", (0, 1), 1_000, months=0)  # crews count (OPEN-31)
    add(state, "wei", "colonists", (4, 4), 5_000, months=0)
    add(state, "wei", "scout", (4, 4), 0, months=0)
    add(state, "shu", "levy", (8, 8), 5_000, months=0)
    assert eco.upkeep(state, "wei") == pytest.approx(12.0)


def test_recruit_190_upkeep_share_budget() -> None:
    """RECRUIT-190: output 12 (capital) + 1 (village) = 13; upkeep 3,000 levies = 3.5 -> share 3.5/13;
    the capital keeps 12 x (1 - 3.5/13) = 8.769, the village 1 x 9.5/13 = 0.731."""
    state, city = reference_state()
    village = add_city(state, "wei", (1, 1), 1_500)
    b = eco.kingdom_budget(state, "wei")
    assert b.output == 13 and b.upkeep == pytest.approx(3.5)
    assert b.cities[city.id].available == pytest.approx(12 * 9.5 / 13)
    assert b.cities[village.id].available == pytest.approx(9.5 / 13)
    assert b.shortfall == 0.0


# --- CITY SITES (CITY-450) ----------------------------------------------------------------------------------


def test_city_450_site_report_at_founding_and_full_land() -> None:
    """CITY-450 on the reference site (no city there yet), balanced:
    founding: 5,000 people work 1 tile, G(3,4): harvest (3 + 2 + 2) x 1 = 7; people eat 3; production 1 x 0.354
      x 0.8 x 1.5 = 0.42 -> at least 1; land feeds (3+2+2+2+1+1+1+0) x 1 = 12 -> 20,000;
      growth 4 x 0.5 x 1 x (1 - 5,000/20,000) = 1.5 dan -> 360 people.
    full: 18,000 people work all 6: multiplier 1.25 + 0.35 x 3,000/25,000 = 1.292; harvest 12 x 1.292 = 15.504;
      production 7 x 0.6708 x 0.8 x 1.5 = 5.63 -> 6.
    """
    state = make_state(axial_map(REF_TILES))
    rep = eco.site_report(state, *CENTRE, owner="wei")
    assert rep.problem is None and rep.water == "fresh" and rep.land_tiles == 6 and len(rep.ring) == 7
    a = rep.at_founding
    assert a.people == 5_000 and a.worked == ((3, 4),)
    assert a.harvest == pytest.approx(7.0) and a.people_eat == pytest.approx(3.0) and a.production == 1
    assert rep.people_fed == 20_000
    assert a.growth_dan == pytest.approx(1.5) and a.growth == 360
    full = rep.full
    assert full.people == 18_000 and len(full.worked) == 6
    assert full.harvest == pytest.approx(12 * 1.292)
    assert full.production == 6


def test_city_450_site_report_matches_the_founded_city() -> None:
    """CITY-450: the report is the same code as the founded city's own line: found it and compare."""
    state = make_state(axial_map(REF_TILES))
    rep = eco.site_report(state, *CENTRE, owner="wei")
    city = add_city(state, "wei", CENTRE, rd.COLONIST_PEOPLE, grain=rd.COLONIST_GRAIN)
    assert eco.city_output(state, city) == rep.at_founding
    assert eco.site_report(state, *CENTRE).problem is not None  # now land of a city (CITY-320)


def test_free_sites_best_first() -> None:
    """BUILD-070, BUILD-200: farm sites of the reference capital: worked G/P tiles first by food (G(3,4), G(5,4),
    P(4,3)), then the idle P(5,3); workshop sites: F(4,5) and H(3,5), both at distance 1, by r."""
    state, city = reference_state()
    assert eco.free_sites(state, city, "farm") == [(3, 4), (5, 4), (4, 3), (5, 3)]
    assert eco.free_sites(state, city, "workshop") == [(3, 5), (4, 5)]
    city.improvements.append(Improvement(3, 4, "farm"))
    assert (3, 4) not in eco.free_sites(state, city, "granary")


# --- BUILD-230 progress, OPEN-89 site ranking ---------------------------------------------------------------


def test_build_230_head_progress_text() -> None:
    """BUILD-230: barracks 0/25 at 12 - 3.5 upkeep = 8.5 a month -> ceil(25 / 8.5) = 3 months; spearman:5000 in a
    15,000 town: next batch 2,000 = 16, 3 batches, 40 / 8.5 -> 5 months; paid colonists 1 month at the head still
    need 5 - 1 = 4 months (CITY-400)."""
    state, city = reference_state()
    city.queue = [QueueEntry("barracks")]
    p = eco.head_progress(state, city)
    assert p is not None and p.text() == "building barracks 0/25, 3 mo @ prod 8.5/mo"
    city.buildings.append("barracks")
    city.queue = [QueueEntry("spearman", men=5_000)]
    p = eco.head_progress(state, city)
    assert p is not None and (p.cost, p.months) == (16.0, 5)
    assert p.text().startswith("building spearman:5000 0/16, 5 mo")
    city.queue = [QueueEntry("colonists", paid=100.0, months=1)]
    p = eco.head_progress(state, city)
    assert p is not None and p.months == 4
    city.queue = []
    assert eco.head_progress(state, city) is None


def test_open_89_sites_ranked_by_people_fed_then_production() -> None:
    """OPEN-89: near the reference site, the river plains centre (4,4) feeds 20,000 (12 dan at founding) — more than
    any site beside it on this mountain map, which can only take part of its ring; illegal tiles are left out."""
    state = make_state(axial_map(REF_TILES))
    best = eco.sites_near(state, CENTRE, 2, "wei", limit=3)
    assert best and best[0].tile == CENTRE and best[0].people_fed == 20_000
    assert all(s.problem is None for s in best)
    assert [s.people_fed for s in best] == sorted((s.people_fed for s in best), reverse=True)


# --- balance, currency, land (CITY-250, CITY-260, CITY-280, CITY-290) ----------------------------------------


def _forest(width: int = 9) -> GameMap:
    """A map of forest (food 1, production 2 a tile) only."""
    return axial_map({}, width=width, fill="F")


def test_city_250_one_big_city_outproduces_the_same_land_and_people_split_but_grows_land_slower():
    """CITY-250, CITY-230, CITY-240: all forest (2 production a tile), production focus (x1), x1.5:
    one city of 40,000 (size bonus 1.0) working 13 tiles: (2 + 13 x 2) x 1.0 x 1.5 = 42;
    two of 20,000 (bonus sqrt(0.5) = 0.7071) working 6 each: (2 + 12) x 0.7071 x 1.5 = 14.85 -> 15, 30 in all.
    Land the other way round: founders get all 6 ring tiles in their first month (5,000 people), whereas each
    single tile an older city adds needs a higher head count than its last (OPEN-55: 21,600 people for the 7th)."""
    big = make_state(_forest())
    one = add_city(big, "wei", (4, 4), 40_000, focus="production")
    for i in range(big.map.size):  # its land: every tile within 2 of the centre (19 tiles)
        q, r = big.map.tile(i)
        if max(abs(q - 4), abs(r - 4), abs(q + r - 8)) <= 2:
            big.owner[i] = one.id
    split = make_state(_forest(width=12))
    halves = [add_city(split, "wei", (q, 4), 20_000, focus="production") for q in (2, 6)]
    assert eco.city_output(big, one).production == 42
    assert [eco.city_output(split, c).production for c in halves] == [15, 15]
    assert len(split.city_tiles(halves[0].id)) == 7  # the founding ring at once
    assert rd.next_tile_people(6) == 21_600 < rd.next_tile_people(7) < rd.next_tile_people(8)


@pytest.mark.parametrize("item, men, price", [("palisade", 0, 10), ("farm", 0, 15), ("levy", 1_000, 5),
                                              ("scout", 0, 10), ("spy", 0, 10)])
def test_city_260_production_is_the_only_currency(item, men, price):
    """CITY-260: buildings, improvements, troops, scouts and spies are paid for with production only: with a full
    granary and 15,000 people a city short of the price by 0.5 production buys nothing; with the price it does."""
    from kingdoms.engine import cities
    from kingdoms.engine.context import MonthContext

    for pool, done in ((price - 0.5, False), (float(price), True)):
        state, city = reference_state(levies=False)
        city.grain = 300.0
        tile = (5, 4) if item == "farm" else None
        city.queue = [QueueEntry(item, men=men, tile=tile)]
        cities.run_queue(MonthContext(state), city, pool, pool)
        assert (not city.queue) is done, (item, pool, city.queue)
        assert city.grain == 300.0 - (men / 1000 * rd.MAX_RATION_MONTHS if done and men else 0.0)


def test_city_280_land_belongs_to_one_city_which_alone_works_it_and_grows_from_it():
    """CITY-280, CITY-370: forest all round; city A (2,4) also holds (4,4), beside city B's ring (B at (6,4)). B, on
    production focus, never works A's tile nor claims it, however many people it has: the tile is A's land only."""
    state = make_state(_forest(width=12))
    a = add_city(state, "wei", (2, 4), 15_000, focus="production")
    b = add_city(state, "wei", (6, 4), 6_000, focus="production")
    i = state.map.index(4, 4)
    state.owner[i] = a.id  # A's land reaches to the tile beside B's ring
    fb = eco.frame(state, b)
    assert i not in fb.tiles and i not in eco.worked_indices(fb, "production")
    assert i not in eco.claim_candidates(state, b, fb.tiles, 60_000)
    assert i in eco.frame(state, a).tiles


def test_city_290_land_counts_land_tiles_without_the_centre_or_water():
    """CITY-290, CITY-360: a city on grassland with 2 of its 6 neighbours water holds 7 tiles of which 4 count as
    land (the centre and the 2 water tiles do not)."""
    gm = axial_map({(4, 4): "G", (5, 4): "~", (3, 4): "~", (5, 3): "G", (4, 3): "G", (4, 5): "G", (3, 5): "G"},
                   fill="G")
    state = make_state(gm)
    city = add_city(state, "wei", (4, 4), 5_000)
    tiles = state.city_tiles(city.id)
    assert len(tiles) == 7
    assert eco.land_tile_count(state, [gm.index(*t) for t in tiles], gm.index(4, 4)) == 4


def test_open_74_flat_index_order_is_row_then_q_order() -> None:
    """OPEN-74's tie-break (lowest r, then lowest q) is the order of flat indices, which worked_indices sorts by:
    on a map whose rows shift q below 0."""
    gm = GameMap.from_rows(["G" * 7] * 6)
    tiles = [gm.tile(i) for i in range(gm.size)]
    assert sorted(range(gm.size), key=lambda i: (tiles[i][1], tiles[i][0])) == list(range(gm.size))
    assert min(q for q, _ in tiles) < 0



def _worked_reference(f: eco.CityFrame, focus: str) -> list[int]:
    """CITY-040's pick written out plainly (tuple sort keys, nothing kept): the oracle of the frame's kept orders."""
    cands = [i for i in f.tiles if i != f.centre and i not in f.occupied]
    n = eco.worked_count(f.people, len(cands))
    food_key = lambda i: (-f.foods[i], -f.prods[i], i)  # noqa: E731
    prod_key = lambda i: (-f.prods[i], -f.foods[i], i)  # noqa: E731
    by_food, by_prod = sorted(cands, key=food_key), sorted(cands, key=prod_key)
    if focus == "food":
        return by_food[:n]
    if focus == "production":
        return by_prod[:n]
    picked: list[int] = []
    while len(picked) < n:
        for lst in (by_food, by_prod):
            if len(picked) < n:
                picked.append(next(i for i in lst if i not in picked))
    return picked


def test_city_040_worked_tiles_kept_on_the_frame_are_the_plain_pick() -> None:
    """CITY-040, CITY-150, OPEN-74: the frame keeps its tile orders, worked tiles by focus, capacity and land count
    (economy._orders packs the sort key into one int); every people count, focus, farm and occupied tile gives the
    plain tuple-keyed pick, a second call the same answer (a caller changing its list changes nothing kept), a
    frame with other people its own count, and a frame read after the city changes the changed city's figures."""
    from kingdoms.hexgrid import spiral
    from kingdoms.mapgen import generate
    from kingdoms.setup import build_state

    state = build_state(generate(5, 3), 5)
    gm = state.map
    city = next(c for c in state.cities.values() if c.owner in state.kingdoms)
    centre = gm.index(city.q, city.r)
    tiles = tuple(sorted({centre} | {gm.index(*t) for t in spiral((city.q, city.r), 3) if gm.index(*t) >= 0}))
    farm = tiles[3]
    occupied = frozenset(tiles[5:7])
    for people in range(0, 130_000, 3_000):
        f = eco.CityFrame(state, city, people, centre, tiles, {farm: "farm"}, occupied)
        for focus in rd.FOCUSES:
            want = _worked_reference(f, focus)
            got = eco.worked_indices(f, focus)
            assert got == want
            got.append(-1)
            assert eco.worked_indices(f, focus) == want
        everything = [i for i in tiles if i != centre and i not in occupied]
        assert eco.capacity_of(f) == eco.round_half_up(eco.harvest_of(f, everything) * 1000 / rd.PEOPLE_EAT_PER_1000)
        more = f.with_people(people + 9_000)
        assert eco.worked_indices(more, "balanced") == _worked_reference(more, "balanced")
        assert eco.capacity_of(more) == eco.round_half_up(eco.harvest_of(more, everything) * 1000
                                                          / rd.PEOPLE_EAT_PER_1000)
    before = eco.city_output(state, city)
    city.people += 6_000
    after = eco.city_output(state, city)
    f = eco.frame(state, city)
    assert after.people == before.people + 6_000
    assert list(after.worked) == [gm.tile(i) for i in _worked_reference(f, city.focus)]
    rest = [i for i in f.tiles if i != f.centre and i not in f.occupied]
    assert after.capacity == eco.round_half_up(eco.harvest_of(f, rest) * 1000 / rd.PEOPLE_EAT_PER_1000)


def test_combat_280_city_110_frame_reads_troops_as_the_board_does() -> None:
    """COMBAT-280, CITY-110: frame's one pass over the troops on a city's land gives the men of its own troops
    (Board.own_troops_on_land) and the tiles enemies occupy (Board.occupied): own troops on the centre and on the
    land, a troop at war, one at peace, bandits, an enemy and an own troop on one tile, and a frame read again
    after the troops move."""
    state, city = reference_state(war=True)
    state.kingdoms["wu"] = kingdom("wu", "Sun Wu", "Ruler of Sun Wu")
    add(state, "wei", "spearman", (5, 4), 2_000)
    add(state, "shu", "levy", (3, 4), 1_000, months=0)
    foe = add(state, "shu", "levy", (5, 3), 900, months=0)
    add(state, "wei", "levy", (5, 3), 700)
    add(state, "wu", "levy", (4, 3), 1_500, months=0)  # at peace with wei: no occupation
    bandit = add(state, rd.BANDITS, "spearman", (4, 5), 800, months=0)

    def board_says() -> tuple[int, frozenset[int]]:
        board = eco.Board.of(state)
        return sum(u.men for u in board.own_troops_on_land(city)), board.occupied(city)

    f = eco.frame(state, city)
    assert (f.troop_men, f.occupied) == board_says()
    assert f.troop_men == 3_000 + 2_000 + 700
    assert f.occupied == frozenset(state.map.index(*t) for t in ((3, 4), (5, 3), (4, 5)))
    foe.q, foe.r = 8, 8
    bandit.men = 0
    f = eco.frame(state, city)
    assert (f.troop_men, f.occupied) == board_says()
    assert f.occupied == frozenset({state.map.index(3, 4)})


def test_city_280_kept_board_reads_each_city_land_as_land_by_city() -> None:
    """CITY-280: a kept board reads a city's land on first ask (Board.kept is lazy): the same tiles in the same map
    order as land_by_city for every city of a real game, an empty list for a city holding none, and the same
    frames and outlooks as a board indexed whole."""
    from kingdoms.mapgen import generate
    from kingdoms.setup import build_state

    state = build_state(generate(7, 3), 7)
    whole = eco.land_by_city(state)
    kept = eco.Board.kept(state)
    assert kept.land == {}
    for city in state.cities.values():
        assert kept.tiles(city) == whole.get(city.id, [])
        assert eco.city_output(state, city, board=kept) == eco.city_output(state, city, board=eco.Board.of(state))
    ghost = City(id=max(state.cities) + 1, name="ghost", owner="wei", founder="wei", q=0, r=0, people=5_000,
                 focus="balanced", grain=0.0)
    assert kept.tiles(ghost) == [] and eco.Board.of(state).tiles(ghost) == []
