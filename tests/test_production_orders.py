"""City orders: set_production (every refusal), set_focus and found_city (OPEN-80, BUILD, RECRUIT-110, CITY-320..440)."""

from __future__ import annotations

import pytest

from kingdoms import ruledata as rd
from kingdoms.engine import economy as eco
from kingdoms.engine import production_orders as po
from kingdoms.engine.context import MonthContext, OrderFailed
from kingdoms.engine.month import check_orders
from kingdoms.orders.models import FoundCity, QueueItem, SetFocus, SetProduction
from kingdoms.state import GameState, Improvement, QueueEntry

from .builders import add, add_city
from .test_economy import CENTRE, REF_TILES, axial_map, make_state, reference_state


def items(*specs: str | tuple) -> list[QueueItem]:
    """Queue items from 'palisade', ('levy', 2000) or ('farm', (q, r))."""
    out = []
    for s in specs:
        if isinstance(s, str):
            out.append(QueueItem(item=s))
        elif isinstance(s[1], int):
            out.append(QueueItem(item=s[0], men=s[1]))
        else:
            out.append(QueueItem(item=s[0], tile=s[1]))
    return out


def set_production(state: GameState, city_id: int, *specs: str | tuple, kingdom: str = "wei") -> str:
    """Check then run set_production as the month does."""
    ctx = MonthContext(state)
    order = SetProduction(city_id=city_id, queue=items(*specs))
    po._check_set_production(ctx, kingdom, order)
    return po.run_set_production(ctx, kingdom, order)


def refused(state: GameState, city_id: int, *specs: str | tuple, kingdom: str = "wei") -> OrderFailed:
    with pytest.raises(OrderFailed) as info:
        set_production(state, city_id, *specs, kingdom=kingdom)
    return info.value


# --- whose city ---------------------------------------------------------------------------------------------


def _two_kingdoms() -> tuple[GameState, int, int]:
    tiles = {**REF_TILES, (7, 4): "G"}
    state = make_state(axial_map(tiles, width=12))
    wei = add_city(state, "wei", CENTRE, 15_000, capital=True)
    shu = add_city(state, "shu", (7, 4), 8_000, capital=True)
    return state, wei.id, shu.id


def test_open_80_unknown_and_unseen_foreign_city_get_the_same_reply() -> None:
    """INTEL-050: a city that does not exist and a shu city wei has never seen are both unknown_city."""
    state, wei, shu = _two_kingdoms()
    a = refused(state, 999, "palisade")
    b = refused(state, shu, "palisade")
    assert a.code == b.code == "unknown_city"
    assert a.message.replace("999", "N") == b.message.replace(str(shu), "N")


def test_open_80_seen_foreign_city_is_not_yours() -> None:
    """A shu city in sight of a wei troop (2 tiles) is refused as not_your_city, naming wei's own cities."""
    state, wei, shu = _two_kingdoms()
    add(state, "wei", "levy", (5, 4), 1_000, months=0)
    err = refused(state, shu, "palisade")
    assert err.code == "not_your_city" and f"#{wei}" in err.message


# --- set_production: the queue ------------------------------------------------------------------------------


def test_open_80_queue_is_replaced_and_the_head_keeps_its_progress() -> None:
    """OPEN-80: barracks stays at the head: its 12 paid and 2 months are kept; the store is kept too."""
    state, city = reference_state()
    city.queue = [QueueEntry("barracks", paid=12.0, months=2), QueueEntry("palisade")]
    city.store = 5.0
    text = set_production(state, city.id, "barracks", ("spearman", 2_000), "palisade", ("farm", (5, 3)))
    assert [e.item for e in city.queue] == ["barracks", "spearman", "palisade", "farm"]
    assert (city.queue[0].paid, city.queue[0].months) == (12.0, 2)
    assert city.queue[1].men == 2_000 and city.queue[3].tile == (5, 3)
    assert city.store == 5.0
    assert "barracks" in text and "spearman:2000" in text


def test_open_80_a_new_head_loses_the_old_heads_progress() -> None:
    """OPEN-80: progress is kept only on an item that stays at the head; the reply says what was lost."""
    state, city = reference_state()
    city.queue = [QueueEntry("barracks", paid=12.0)]
    text = set_production(state, city.id, "palisade")
    assert city.queue[0].paid == 0.0 and "12 production put into barracks is lost" in text


def test_open_80_empty_queue_clears() -> None:
    """OPEN-80, BUILD-210: an empty list clears the queue; the reply says production is stored and turned to grain."""
    state, city = reference_state()
    city.queue = [QueueEntry("palisade")]
    text = set_production(state, city.id)
    assert city.queue == [] and "grain" in text


def test_open_80_refused_item_refuses_the_whole_order_and_keeps_the_old_queue() -> None:
    """OPEN-80: one bad item (walls with no palisade) and the queue stays as it was."""
    state, city = reference_state()
    city.queue = [QueueEntry("barracks", paid=3.0)]
    err = refused(state, city.id, "barracks", "walls")
    assert err.code == "needs_palisade" and "item 2 (walls)" in err.message
    assert [(e.item, e.paid) for e in city.queue] == [("barracks", 3.0)]


def test_build_010_a_building_already_built_is_refused() -> None:
    """OPEN-25: each building at most once per city."""
    state, city = reference_state()
    city.buildings.append("barracks")
    assert refused(state, city.id, "barracks").code == "already_built"


def test_build_010_a_building_twice_in_one_queue_is_refused() -> None:
    """OPEN-25: the same building twice in the queue."""
    state, city = reference_state()
    assert refused(state, city.id, "stable", "stable").code == "duplicate_item"


def test_build_030_walls_need_a_palisade_built_or_queued_before() -> None:
    """BUILD-030: walls alone refused; palisade then walls accepted; walls on a built palisade accepted."""
    state, city = reference_state()
    assert refused(state, city.id, "walls").code == "needs_palisade"
    assert refused(state, city.id, "walls", "palisade").code == "needs_palisade"
    set_production(state, city.id, "palisade", "walls")
    city.buildings.append("palisade")
    set_production(state, city.id, "walls")
    assert [e.item for e in city.queue] == ["walls"]


@pytest.mark.parametrize(("troop", "building"), [("spearman", "barracks"), ("archer", "barracks"),
                                                 ("cavalry", "stable"), ("heavy_infantry", "forge")])
def test_build_040_troops_need_their_building_in_this_city(troop: str, building: str) -> None:
    """BUILD-040, OPEN-25: refused without the building here; accepted when queued before or already built."""
    state, city = reference_state()
    other = add_city(state, "wei", (1, 1), 5_000)
    other.buildings.append(building)  # in another city: does not count
    err = refused(state, city.id, (troop, 1_000))
    assert err.code == "needs_building" and building in err.message
    assert refused(state, city.id, (troop, 1_000), building).code == "needs_building"
    set_production(state, city.id, building, (troop, 1_000))
    city.buildings.append(building)
    set_production(state, city.id, (troop, 1_000))


def test_build_100_catapults_need_a_workshop() -> None:
    """BUILD-100, BUILD-110: catapults refused without a workshop (the message lists its sites); accepted after a queued
    workshop, or with one built (even with an enemy on it, BUILD-140)."""
    state, city = reference_state()
    err = refused(state, city.id, ("catapult", 200))
    assert err.code == "needs_building" and "(3,5)" in err.message
    set_production(state, city.id, "workshop", ("catapult", 200))
    assert city.queue[0].tile == (3, 5)
    city.improvements.append(Improvement(4, 5, "workshop"))
    set_production(state, city.id, ("catapult", 100))


def test_recruit_110_troop_size_limits() -> None:
    """RECRUIT-110: 500..20,000 men (catapults 100..); a size outside is refused (bad_size) with an example."""
    state, city = reference_state()
    for bad in (QueueItem.model_construct(item="levy", men=400), QueueItem.model_construct(item="levy", men=20_001),
                QueueItem.model_construct(item="levy", men=None)):
        with pytest.raises(OrderFailed) as info:
            po.plan_queue(state, city, [bad])
        assert info.value.code == "bad_size" and "500" in info.value.message
    city.improvements.append(Improvement(3, 5, "workshop"))
    with pytest.raises(OrderFailed):
        po.plan_queue(state, city, [QueueItem.model_construct(item="catapult", men=99)])
    assert po.plan_queue(state, city, [QueueItem(item="catapult", men=100)])[0].men == 100
    assert po.plan_queue(state, city, [QueueItem(item="levy", men=20_000)])[0].men == 20_000


def test_build_090_one_granary_and_one_workshop_per_city() -> None:
    """BUILD-090, BUILD-100: a second granary (built or queued) is refused."""
    state, city = reference_state()
    assert refused(state, city.id, "granary", "granary").code == "one_per_city"
    city.improvements.append(Improvement(5, 3, "granary"))
    assert refused(state, city.id, "granary").code == "one_per_city"
    city.improvements.append(Improvement(3, 5, "workshop"))
    assert refused(state, city.id, ("workshop", (4, 5))).code == "one_per_city"


def test_build_070_improvement_tile_must_be_free_own_land_outside_the_centre() -> None:
    """BUILD-070, BUILD-080: refused on the centre, off its land, on a tile with an improvement (or one queued), on
    forest for a farm; each message lists the city's free farm sites."""
    state, city = reference_state()
    city.improvements.append(Improvement(3, 4, "farm"))
    cases = [((4, 4), "centre"), ((6, 4), "not land of"), ((3, 4), "already has a farm"), ((4, 5), "forest")]
    for tile, words in cases:
        err = refused(state, city.id, ("farm", tile))
        assert err.code == "bad_site" and words in err.message
        assert "free farm sites" in err.message and "(5,4)" in err.message
    err = refused(state, city.id, ("farm", (5, 3)), ("farm", (5, 3)))
    assert err.code == "bad_site" and "already in the queue" in err.message


def test_build_070_named_improvement_takes_the_best_free_site() -> None:
    """BUILD-070: 'farm' alone goes on the best free site: the worked G(3,4) first, then G(5,4) for a second."""
    state, city = reference_state()
    set_production(state, city.id, "farm", "farm", "workshop", "granary")
    assert [e.tile for e in city.queue] == [(3, 4), (5, 4), (3, 5), (4, 3)]


def test_build_110_no_site_refusal_says_why() -> None:
    """BUILD-110: a city with no forest or hills cannot have a workshop; with every G/P tile built on, no farm."""
    state = make_state(axial_map({(4, 4): "G", (5, 4): "G", (3, 4): "P"}, fill="~"))
    city = add_city(state, "wei", (4, 4), 10_000)
    err = refused(state, city.id, "workshop")
    assert err.code == "no_site" and "cannot have a workshop" in err.message
    city.improvements += [Improvement(5, 4, "farm"), Improvement(3, 4, "granary")]
    err = refused(state, city.id, "farm")
    assert err.code == "no_site" and "farm (5,4)" in err.message and "granary (3,4)" in err.message


def test_open_80_through_check_orders_judges_against_earlier_orders() -> None:
    """TURN-050: check_orders on a scratch board: accepted orders preview, a bad one is refused; nothing changes."""
    state, city = reference_state()
    results = check_orders(state, "wei", [], [SetProduction(city_id=city.id, queue=items("palisade")),
                                              SetProduction(city_id=city.id, queue=items(("spearman", 1_000)))])
    assert results[0].ok and not results[1].ok and results[1].code == "needs_building"
    assert city.queue == []


# --- set_focus (CITY-030) -----------------------------------------------------------------------------------


def test_city_030_set_focus_changes_the_focus_and_reports_the_outlook() -> None:
    """CITY-030, CITY-060: food focus: harvest 15, production 10, growth 288 (tests.test_economy's CITY-070 figures)."""
    state, city = reference_state()
    ctx = MonthContext(state)
    order = SetFocus(city_id=city.id, focus="food")
    po._check_set_focus(ctx, "wei", order)
    text = po.run_set_focus(ctx, "wei", order)
    assert city.focus == "food"
    assert "harvest 15.0" in text and "production 10/mo" in text and "+288" in text


def test_city_030_set_focus_only_for_own_cities() -> None:
    """A seen shu city: not_your_city."""
    state, wei, shu = _two_kingdoms()
    add(state, "wei", "levy", (5, 4), 1_000, months=0)
    with pytest.raises(OrderFailed) as info:
        po.run_set_focus(MonthContext(state), "wei", SetFocus(city_id=shu, focus="food"))
    assert info.value.code == "not_your_city"


# --- found_city (CITY-320..440) -----------------------------------------------------------------------------


def _colonists_state() -> tuple[GameState, int]:
    state = make_state(axial_map(REF_TILES))
    add_city(state, "wei", (1, 1), 15_000, capital=True)
    col = add(state, "wei", "colonists", CENTRE, rd.COLONIST_PEOPLE, months=0)
    col.cargo = float(rd.COLONIST_GRAIN)
    return state, col.id


def test_city_440_found_city_makes_the_city() -> None:
    """CITY-330, CITY-430, CITY-440: the next name on the list, 5,000 people, the 20 dan carried, its 7-tile ring, no walls,
    happiness 100; the colonists are gone."""
    state, uid = _colonists_state()
    ctx = MonthContext(state)
    order = FoundCity(unit_id=uid)
    po._check_found_city(ctx, "wei", order)
    text = po.run_found_city(ctx, "wei", order)
    city = state.city_at(*CENTRE)
    assert city is not None and city.owner == "wei" and city.founder == "wei"
    assert city.name == "Cao Wei City 2"  # the capital took City 1
    assert (city.people, city.grain, city.walls, city.happiness) == (5_000, 20.0, 0.0, 100.0)
    assert len(state.city_tiles(city.id)) == 7
    assert uid not in state.units
    assert "land feeds 20,000" in text  # CITY-450's site figure: 12 dan x 1,000 / 0.6
    assert eco.city_output(state, city) == eco.site_report(make_state(axial_map(REF_TILES)), *CENTRE, "wei").at_founding


def test_city_420_found_city_needs_a_move_left() -> None:
    """CITY-420: colonists that used all their moves cannot found this month."""
    state, uid = _colonists_state()
    ctx = MonthContext(state)
    ctx.spend(state.units[uid], 3)
    with pytest.raises(OrderFailed) as info:
        po._check_found_city(ctx, "wei", FoundCity(unit_id=uid))
    assert info.value.code == "no_moves_left"
    ctx2 = MonthContext(state)
    ctx2.spend(state.units[uid], 2)  # one move left: it works
    po._check_found_city(ctx2, "wei", FoundCity(unit_id=uid))


def test_city_320_found_city_refused_next_to_land_and_hints_legal_sites() -> None:
    """CITY-320: a tile beside another city's land is refused; the reply lists legal sites nearby."""
    state = make_state(axial_map({**REF_TILES, (7, 4): "G", (8, 4): "G"}, width=12))
    add_city(state, "wei", CENTRE, 15_000, capital=True)
    col = add(state, "wei", "colonists", (6, 4), rd.COLONIST_PEOPLE, months=0)
    with pytest.raises(OrderFailed) as info:
        po._check_found_city(MonthContext(state), "wei", FoundCity(unit_id=col.id))
    assert info.value.code == "cannot_found" and "legal sites nearby" in info.value.message
    assert "(7,4)" in info.value.message


def test_city_390_only_colonists_found_cities_and_only_your_own() -> None:
    """A levy cannot found (not_colonists); shu's colonists out of sight are unknown_unit (INTEL-050)."""
    state, uid = _colonists_state()
    levy = add(state, "wei", "levy", (1, 1), 1_000, months=0)
    with pytest.raises(OrderFailed) as info:
        po._check_found_city(MonthContext(state), "wei", FoundCity(unit_id=levy.id))
    assert info.value.code == "not_colonists"
    with pytest.raises(OrderFailed) as info:
        po._check_found_city(MonthContext(state), "shu", FoundCity(unit_id=uid))
    assert info.value.code == "unknown_unit"
