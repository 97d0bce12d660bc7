"""Ratings: live ones while a tournament runs, and the season table's Bradley-Terry fit with intervals.

Both read the same thing from each rated game: the places of its entrants (fillers left out; level
places are ties). Both are on one points scale (Elo-like: 400 points = ten times the odds; 1500 is the
field's centre unless AI levels are pinned as anchors).

Live: openskill's Plackett-Luce model, one update per game in the order results came in. openskill's own
tie handling is not right in every release (6.2.0 and 5.x can leave players tied for first below the
player they beat, openskill.py issue 155; 6.1.x raises both players of a drawn two-player game), so a game
with ties is rated as the average of the updates over every strict order consistent with its places:
tied players with equal ratings get equal updates, a drawn game between equals changes nothing, and a
winner never ends below a loser of equal rating. Anchored entrants keep their pinned rating.

Season: Bradley-Terry by maximum likelihood (minorise-maximise iterations) over the pairwise reduction
of every game (i above j is a win of i over j, a shared place half a win each), with a weak prior (one
drawn game against the centre per entrant) so an entrant that never won or never lost still has a finite
rating. The 95 % interval is the 2.5-97.5 percentile range of the fit over bootstrap resamples of the
games (seeded: the same games give the same table), widened where needed to the normal interval of the
fit's own curvature (Fisher information): when every game ends the same way, every resample is the same
and the bootstrap alone would claim a certainty a handful of games cannot give.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

CENTRE = 1500.0
POINTS_PER_LOG10 = 400.0
PRIOR_GAMES = 1.0
MAX_ORDERINGS = 720  # every strict order of up to six tied players
ANCHOR_SIGMA = 0.5  # openskill sigma of an anchored (known) rating

#: A rated game: (entrant, place) for each seated entrant; equal places are ties.
Placing = Sequence[tuple[str, int]]


# --- live: openskill Plackett-Luce --------------------------------------------------------------------


def points_per_mu() -> float:
    """Points per openskill mu: a two-player PL win probability is logistic(dmu / c), c ~ sqrt(2) * beta."""
    from openskill.models import PlackettLuce

    beta = PlackettLuce().beta
    return POINTS_PER_LOG10 / math.log(10) / (math.sqrt(2) * beta)


@dataclass(slots=True)
class LiveRating:
    """An entrant's openskill rating (mu, sigma) and the games it counts."""

    mu: float
    sigma: float
    games: int = 0

    @property
    def points(self) -> float:
        from openskill.models import PlackettLuce

        return CENTRE + (self.mu - PlackettLuce().mu) * points_per_mu()

    @property
    def points_sigma(self) -> float:
        return self.sigma * points_per_mu()


class LiveRatings:
    """openskill Plackett-Luce ratings updated game by game, with ties averaged over strict orders."""

    def __init__(self, anchors: dict[str, float] | None = None) -> None:
        from openskill.models import PlackettLuce

        self.model = PlackettLuce()
        self.anchors = dict(anchors or {})
        self.ratings: dict[str, LiveRating] = {}

    def _initial(self, name: str) -> LiveRating:
        if name in self.anchors:
            mu = self.model.mu + (self.anchors[name] - CENTRE) / points_per_mu()
            return LiveRating(mu, ANCHOR_SIGMA)
        return LiveRating(self.model.mu, self.model.sigma)

    def get(self, name: str) -> LiveRating:
        if name not in self.ratings:
            self.ratings[name] = self._initial(name)
        return self.ratings[name]

    def update(self, placing: Placing) -> None:
        """Rate one game (two or more entrants)."""
        if len(placing) < 2:
            return
        names = [n for n, _ in placing]
        new = rate_with_ties(self.model, [(self.get(n).mu, self.get(n).sigma) for n in names],
                             [p for _, p in placing])
        for name, (mu, sigma) in zip(names, new, strict=True):
            r = self.ratings[name]
            r.games += 1
            if name not in self.anchors:
                r.mu, r.sigma = mu, sigma


def rate_with_ties(model: object, ratings: list[tuple[float, float]], places: list[int]) -> list[tuple[float, float]]:
    """New (mu, sigma) for each player: openskill's update for strict places, and for tied places the mean
    update over every strict order consistent with them."""
    groups: dict[int, list[int]] = {}
    for i, p in enumerate(places):
        groups.setdefault(p, []).append(i)
    ordered = [groups[p] for p in sorted(groups)]
    orders = itertools.product(*(itertools.permutations(g) for g in ordered))
    sums = np.zeros((len(ratings), 2))
    count = 0
    for combo in itertools.islice(orders, MAX_ORDERINGS):
        rank = [0] * len(ratings)
        for pos, i in enumerate(i for g in combo for i in g):
            rank[i] = pos + 1
        teams = [[model.rating(mu=mu, sigma=sigma)] for mu, sigma in ratings]  # type: ignore[attr-defined]
        out = model.rate(teams, ranks=rank)  # type: ignore[attr-defined]
        sums += np.array([[t[0].mu, t[0].sigma] for t in out])
        count += 1
    mean = sums / count
    return [(float(m), float(s)) for m, s in mean]


def live_ratings(games: Sequence[Placing], anchors: dict[str, float] | None = None) -> dict[str, LiveRating]:
    """Replay games in order into live ratings."""
    live = LiveRatings(anchors)
    for g in games:
        live.update(g)
    return live.ratings


# --- season: Bradley-Terry with bootstrap intervals ------------------------------------------------------


@dataclass(slots=True)
class SeasonRating:
    rating: float
    low: float
    high: float
    games: int
    anchored: bool = False


def pair_matrix(placing: Placing, index: dict[str, int], size: int) -> np.ndarray:
    """wins[i, j] of one game: 1 when i placed above j, 0.5 each for a shared place."""
    w = np.zeros((size, size))
    for (a, pa), (b, pb) in itertools.combinations(placing, 2):
        i, j = index[a], index[b]
        if pa < pb:
            w[i, j] += 1
        elif pb < pa:
            w[j, i] += 1
        else:
            w[i, j] += 0.5
            w[j, i] += 0.5
    return w


def fit_bt(wins: np.ndarray, fixed: dict[int, float], *, iters: int = 2000, tol: float = 1e-10) -> np.ndarray:
    """Bradley-Terry log10-strengths for a stack of win matrices (B, n, n); `fixed` pins some of them.

    Minorise-maximise (Hunter 2004): gamma_i <- W_i / sum_j n_ij / (gamma_i + gamma_j), all samples at once.
    """
    b, n, _ = wins.shape
    games = wins + wins.transpose(0, 2, 1)
    total = wins.sum(axis=2)
    gamma = np.ones((b, n))
    free = np.array([i not in fixed for i in range(n)])
    for i, v in fixed.items():
        gamma[:, i] = 10 ** v
    for _ in range(iters):
        denom = (games / (gamma[:, :, None] + gamma[:, None, :])).sum(axis=2)
        new = np.where(free[None, :], total / np.maximum(denom, 1e-300), gamma)
        new = np.maximum(new, 1e-12)
        if not fixed:
            new = new / np.exp(np.log(new).mean(axis=1, keepdims=True))
        delta = np.max(np.abs(np.log(new) - np.log(gamma)))
        gamma = new
        if delta < tol:
            break
    return np.log10(gamma)


def fisher_se(wins: np.ndarray, log10_strength: np.ndarray, fixed: dict[int, float]) -> np.ndarray:
    """Standard errors (log10 units) of the free Bradley-Terry strengths from the inverse Fisher information of
    one win matrix (n, n); 0 for the fixed ones. The curvature of the likelihood, so it never collapses to 0 the
    way a bootstrap of identical games does."""
    n = wins.shape[0]
    games = wins + wins.T
    theta = log10_strength * math.log(10)
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))  # p[i, j]: i beats j
    w = games * p * (1 - p)
    info = np.diag(w.sum(axis=1)) - w
    free = [i for i in range(n) if i not in fixed]
    se = np.zeros(n)
    if free:
        cov = np.linalg.pinv(info[np.ix_(free, free)])
        se[free] = np.sqrt(np.clip(np.diag(cov), 0.0, None)) / math.log(10)
    return se


def season_ratings(games: Sequence[Placing], anchors: dict[str, float] | None = None, *, samples: int = 1000,
                   seed: int = 0) -> dict[str, SeasonRating]:
    """Bradley-Terry ratings in points with 95 % bootstrap intervals over games."""
    anchors = dict(anchors or {})
    games = [g for g in games if len(g) >= 2]
    names = sorted({n for g in games for n, _ in g})
    if not names:
        return {}
    index = {n: i for i, n in enumerate(names)}
    n = len(names)
    prior = n  # the centre pseudo-player's index
    size = n + 1
    centre = float(np.mean([anchors[a] for a in anchors if a in index])) if any(a in index for a in anchors) \
        else CENTRE
    per_game = np.stack([pair_matrix(g, index, size) for g in games])
    prior_w = np.zeros((size, size))
    prior_w[:n, prior] = prior_w[prior, :n] = PRIOR_GAMES / 2
    fixed = {index[a]: (v - centre) / POINTS_PER_LOG10 for a, v in anchors.items() if a in index}
    fixed[prior] = 0.0
    counts = np.array([sum(1 for g in games if any(x == nm for x, _ in g)) for nm in names])

    def to_points(logs: np.ndarray) -> np.ndarray:
        pts = centre + POINTS_PER_LOG10 * logs[..., :n]
        if not any(a in index for a in anchors):  # centre the field itself, not the prior
            pts = pts - pts.mean(axis=-1, keepdims=True) + CENTRE
        return pts

    total_w = per_game.sum(axis=0) + prior_w
    point_logs = fit_bt(total_w[None], fixed)[0]
    point = to_points(point_logs)
    curve = 1.96 * POINTS_PER_LOG10 * fisher_se(total_w, point_logs, fixed)[:n]
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(games), size=(samples, len(games)))
    weights = np.stack([np.bincount(d, minlength=len(games)) for d in draws]).astype(float)
    boot_w = np.tensordot(weights, per_game, axes=(1, 0)) + prior_w[None]
    boot = to_points(fit_bt(boot_w, fixed, iters=500, tol=1e-8))
    low, high = np.percentile(boot, [2.5, 97.5], axis=0)
    low, high = np.minimum(low, point - curve), np.maximum(high, point + curve)
    return {nm: SeasonRating(rating=float(point[i]), low=float(low[i]), high=float(high[i]), games=int(counts[i]),
                             anchored=nm in anchors) for i, nm in enumerate(names)}
