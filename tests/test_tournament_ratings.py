"""Tournament ratings: openskill's tie handling (and our tie averaging), Bradley-Terry fits and intervals."""

from __future__ import annotations

import math

import numpy as np
import pytest

from kingdoms.tournament.ratings import (
    CENTRE,
    LiveRatings,
    fit_bt,
    live_ratings,
    pair_matrix,
    points_per_mu,
    rate_with_ties,
    season_ratings,
)

openskill = pytest.importorskip("openskill")
from openskill.models import PlackettLuce  # noqa: E402

TIE_PATTERNS = [
    [1, 1], [1, 1, 2], [1, 2, 2], [1, 1, 1], [1, 1, 2, 3], [2, 1, 1, 3], [1, 2, 2, 3], [1, 2, 3, 3],
    [0, 0, 1, 2, 3], [1, 1, 1, 2, 3, 4], [1, 2, 3, 3, 3, 4], [1, 1, 2, 2], [3, 1, 2, 1, 2, 3],
]


def fresh_game(places: list[int]) -> dict[str, tuple[float, float]]:
    live = LiveRatings()
    live.update([(f"p{i}", p) for i, p in enumerate(places)])
    return {n: (r.mu, r.sigma) for n, r in live.ratings.items()}


def test_openskill_is_the_pinned_release() -> None:
    """pyproject pins openskill==6.2.0: the release whose raw two-player draw leaves equal players unchanged
    (6.1.x raised both); its multi-player ties are corrected by averaging (next tests)."""
    from importlib.metadata import version

    assert version("openskill") == "6.2.0"
    model = PlackettLuce()
    out = model.rate([[model.rating()], [model.rating()]], ranks=[1, 1])
    assert [t[0].mu for t in out] == pytest.approx([model.mu, model.mu])


def test_raw_openskill_can_put_tied_winners_below_the_player_they_beat() -> None:
    """Why we average over strict orders: openskill.py issue 155's five-player game, as 6.2.0 rates it."""
    model = PlackettLuce()
    out = model.rate([[model.rating()] for _ in range(5)], ranks=[0, 0, 1, 2, 3])
    mus = [t[0].mu for t in out]
    assert mus[0] < mus[2]  # if this fails, openskill fixed it and the averaging could be reconsidered


@pytest.mark.parametrize("places", TIE_PATTERNS)
def test_tied_players_with_equal_ratings_get_equal_updates(places: list[int]) -> None:
    new = fresh_game(places)
    for i, pi in enumerate(places):
        for j, pj in enumerate(places):
            if pi == pj:
                assert new[f"p{i}"][0] == pytest.approx(new[f"p{j}"][0])
                assert new[f"p{i}"][1] == pytest.approx(new[f"p{j}"][1])


@pytest.mark.parametrize("places", TIE_PATTERNS)
def test_a_winner_never_ends_below_a_loser_of_equal_rating(places: list[int]) -> None:
    new = fresh_game(places)
    for i, pi in enumerate(places):
        for j, pj in enumerate(places):
            if pi < pj:
                assert new[f"p{i}"][0] > new[f"p{j}"][0]


def test_a_drawn_game_between_equals_changes_no_rating() -> None:
    for n in (2, 3, 4):
        new = fresh_game([1] * n)
        assert all(mu == pytest.approx(PlackettLuce().mu) for mu, _ in new.values())


def test_strict_places_are_openskills_own_update() -> None:
    model = PlackettLuce()
    ratings = [(27.0, 6.0), (25.0, 8.0), (22.0, 7.5)]
    ours = rate_with_ties(model, ratings, [2, 1, 3])
    theirs = model.rate([[model.rating(mu=m, sigma=s)] for m, s in ratings], ranks=[2, 1, 3])
    assert [m for m, _ in ours] == pytest.approx([t[0].mu for t in theirs])
    assert [s for _, s in ours] == pytest.approx([t[0].sigma for t in theirs])


def test_an_anchor_keeps_its_pinned_live_rating() -> None:
    games = [[("a", 1), ("anchor", 2)]] * 4 + [[("anchor", 1), ("b", 2)]] * 3
    live = live_ratings(games, {"anchor": 1200.0})
    assert live["anchor"].points == pytest.approx(1200.0)
    assert live["a"].points > 1200.0 > live["b"].points
    assert live["anchor"].games == 7


def test_points_per_mu_matches_a_two_player_win_probability() -> None:
    """1 mu of settled ratings is worth as many points as gives the same two-player odds on the Elo scale."""
    beta = PlackettLuce().beta
    p_pl = 1 / (1 + math.exp(-1 / (math.sqrt(2) * beta)))
    p_elo = 1 / (1 + 10 ** (-points_per_mu() / 400))
    assert p_pl == pytest.approx(p_elo)


# --- Bradley-Terry -------------------------------------------------------------------------------------


def test_bt_pairwise_reduction_counts_ties_as_half_wins() -> None:
    index = {"a": 0, "b": 1, "c": 2}
    w = pair_matrix([("a", 1), ("b", 1), ("c", 3)], index, 3)
    assert w.tolist() == [[0, 0.5, 1], [0.5, 0, 1], [0, 0, 0]]


def test_bt_fit_of_three_wins_in_four_is_three_to_one_odds() -> None:
    """MLE without prior: p(a beats b) = 3/4, so gamma_a / gamma_b = 3 (log10 difference log10 3)."""
    wins = np.array([[[0.0, 3.0], [1.0, 0.0]]])
    logs = fit_bt(wins, {})[0]
    assert logs[0] - logs[1] == pytest.approx(math.log10(3), abs=1e-6)


def test_bt_fit_with_an_anchor_pins_it() -> None:
    wins = np.array([[[0.0, 3.0], [1.0, 0.0]]])
    logs = fit_bt(wins, {1: 0.5})[0]
    assert logs[1] == pytest.approx(0.5)
    assert logs[0] == pytest.approx(0.5 + math.log10(3), abs=1e-6)


def test_season_table_orders_entrants_and_brackets_them() -> None:
    games = ([[("a", 1), ("b", 2), ("c", 3)]] * 6 + [[("b", 1), ("a", 2), ("c", 3)]] * 2
             + [[("c", 1), ("b", 2), ("a", 3)]])
    table = season_ratings(games, samples=300, seed=1)
    assert table["a"].rating > table["b"].rating > table["c"].rating
    assert sum(r.rating for r in table.values()) / 3 == pytest.approx(CENTRE)
    for r in table.values():
        assert r.low <= r.rating <= r.high and r.high - r.low > 0
        assert r.games == 9
    assert season_ratings(games, samples=300, seed=1) == table  # seeded bootstrap: same games, same table


def test_season_table_all_draws_gives_equal_ratings() -> None:
    table = season_ratings([[("a", 1), ("b", 1), ("c", 1)]] * 5, samples=100)
    assert {round(r.rating, 6) for r in table.values()} == {CENTRE}


def test_season_table_never_winning_is_still_finite() -> None:
    table = season_ratings([[("a", 1), ("b", 2)]] * 5, samples=100)
    assert math.isfinite(table["b"].rating) and table["b"].rating < CENTRE < table["a"].rating


def test_season_table_anchor_is_exact_and_has_no_spread() -> None:
    games = [[("a", 1), ("std", 2)]] * 3 + [[("std", 1), ("a", 2)]]
    table = season_ratings(games, {"std": 1000.0}, samples=200)
    assert table["std"].rating == pytest.approx(1000.0)
    assert table["std"].low == pytest.approx(1000.0) and table["std"].high == pytest.approx(1000.0)
    assert table["std"].anchored and table["a"].rating > 1000.0


def test_season_interval_is_not_zero_when_every_game_ends_the_same() -> None:
    """Six identical results: every bootstrap resample is the same, yet six games leave real doubt; the
    interval follows the likelihood's curvature instead of collapsing to the point."""
    games = [[("hard", 1), ("std", 2), ("passive", 3)]] * 6
    table = season_ratings(games, {"std": 1500.0}, samples=200)
    hard = table["hard"]
    assert hard.low < hard.rating < hard.high
    assert hard.high - hard.low > 200  # several hundred points: six games decide the order, not the gap
    assert table["std"].low == table["std"].high == 1500.0  # an anchor stays exact
    more = season_ratings(games * 10, {"std": 1500.0}, samples=200)["hard"]
    assert (more.high - more.low) < (hard.high - hard.low)  # more games, narrower
