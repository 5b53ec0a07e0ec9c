"""A Bradley-Terry ranking of systems from their pairwise comparisons, with resampled intervals.

The model: P(a beats b) = 1 / (1 + exp(theta_b - theta_a)). It is a logistic regression without
intercept on the difference of the two systems' indicator vectors, fitted with scikit-learn's
`LogisticRegression` on the counts of each pair (a tie is half a win each way). Each pair enters
in both directions, so both classes are always present and no system is favoured by where it
happens to be listed.

Each pair's counts are taken at their posterior mean given Jeffreys' prior (half a comparison added
to each of win, tie and loss): a pair whose comparisons all went one way gives a finite strength,
and the intervals, drawn from the same posterior, are about the same estimate. With many
comparisons the prior is negligible.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from faceteval.core import Ranking, Strength
from faceteval.results._options import DEFAULT_BT_RESAMPLES, DEFAULT_PENALTY
from faceteval.results._tally import Tally

MAX_ITER = 1000
SOLVER = "liblinear"
"""A trust-region Newton solver (primal, deterministic): the fastest on these few features."""


@dataclass(frozen=True, slots=True)
class _Design:
    """The regression's rows (fixed) for ``pairs``; only their weights change between resamples."""

    systems: list[str]
    pairs: list[tuple[str, str]]
    x: NDArray[np.float64]
    y: NDArray[np.int64]

    @classmethod
    def of(cls, systems: list[str], pairs: list[tuple[str, str]]) -> _Design:
        index = {name: i for i, name in enumerate(systems)}
        rows = []
        for a, b in pairs:
            row = np.zeros(len(systems))
            row[index[a]], row[index[b]] = 1.0, -1.0
            rows += [row, row, -row, -row]
        y = np.array([1, 0, 1, 0] * len(pairs), dtype=np.int64)
        return cls(systems, pairs, np.array(rows, dtype=np.float64), y)

    def weights(self, counts: NDArray[np.float64]) -> NDArray[np.float64]:
        """Row weights for ``counts`` (one row per pair: a's wins, ties, b's wins)."""
        a_wins = counts[:, 0] + counts[:, 1] / 2
        b_wins = counts[:, 2] + counts[:, 1] / 2
        return np.stack([a_wins, b_wins, b_wins, a_wins], axis=1).reshape(-1)


def _fit(design: _Design, weights: NDArray[np.float64], penalty: float) -> NDArray[np.float64]:
    import sklearn
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=penalty, fit_intercept=False, solver=SOLVER, max_iter=MAX_ITER)
    # The rows are ours and finite: sklearn's checks of them would take a third of each fit.
    with warnings.catch_warnings(), sklearn.config_context(assume_finite=True):
        warnings.simplefilter("ignore", ConvergenceWarning)  # a near-separable resample: close enough
        model.fit(design.x, design.y, sample_weight=weights)
    theta: NDArray[np.float64] = np.asarray(model.coef_[0], dtype=np.float64)
    return theta - float(theta.mean())


def bradley_terry(
    pairs: Mapping[tuple[str, str], Tally],
    *,
    penalty: float = DEFAULT_PENALTY,
    n_resamples: int = DEFAULT_BT_RESAMPLES,
    level: float = 0.95,
    seed: int = 0,
) -> Ranking | None:
    """Systems ranked by Bradley-Terry strength from ``pairs`` (``(a, b)`` -> a's tally against b).

    Intervals are percentile intervals over ``n_resamples`` resamples of every pair's shares of wins,
    ties and losses (see `_intervals`): seeded, so the same counts give the same intervals. None
    with fewer than 3 systems that have judged comparisons.

    Examples:
        >>> from faceteval.results._tally import Tally
        >>> pairs = {("a", "b"): Tally(8, 0, 2), ("b", "c"): Tally(8, 0, 2), ("a", "c"): Tally(9, 0, 1)}
        >>> ranking = bradley_terry(pairs, n_resamples=50)
        >>> [s.system for s in ranking.strengths], ranking.connected
        (['a', 'b', 'c'], True)
    """
    met = [(a, b) for (a, b), tally in sorted(pairs.items()) if tally.judged]
    systems = sorted({name for pair in met for name in pair})
    if len(systems) < 3:
        return None
    design = _Design.of(systems, met)
    counts = np.array([[pairs[p].wins, pairs[p].ties, pairs[p].losses] for p in met], dtype=np.float64)
    theta = _fit(design, design.weights(smoothed(counts)), penalty)
    intervals = _intervals(design, counts, penalty, n_resamples, level, seed)
    played = {name: 0 for name in systems}
    for (a, b), row in zip(met, counts, strict=True):
        played[a] += int(row.sum())
        played[b] += int(row.sum())
    order = sorted(range(len(systems)), key=lambda i: (-theta[i], systems[i]))
    strengths = [
        Strength(
            system=systems[i],
            rank=rank,
            strength=float(theta[i]),
            ci=None if intervals is None else (float(intervals[0][i]), float(intervals[1][i])),
            comparisons=played[systems[i]],
        )
        for rank, i in enumerate(order, start=1)
    ]
    return Ranking(
        strengths=strengths,
        penalty=penalty,
        n_resamples=n_resamples,
        seed=seed,
        connected=_connected(systems, met),
    )


PRIOR = 0.5
"""Comparisons added to each outcome (win, tie, loss) of every pair: Jeffreys' prior."""


def smoothed(counts: NDArray[np.float64]) -> NDArray[np.float64]:
    """Each pair's counts at their posterior mean shares (``PRIOR`` added to each outcome), scaled back
    to the pair's number of comparisons.

    Examples:
        >>> smoothed(np.array([[10.0, 0.0, 0.0]])).round(3).tolist()
        [[9.13, 0.435, 0.435]]
    """
    totals: NDArray[np.float64] = counts.sum(axis=1, keepdims=True)
    return totals * (counts + PRIOR) / (totals + 3 * PRIOR)


def _intervals(
    design: _Design, counts: NDArray[np.float64], penalty: float, n_resamples: int, level: float, seed: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]] | None:
    """Percentile intervals of the strengths refitted on ``n_resamples`` draws of the counts.

    Each draw keeps every pair's number of comparisons and draws its shares of wins, ties and
    losses from their posterior given its counts: a Dirichlet with half a count added to each
    (Jeffreys' prior). Unlike resampling the comparisons, this still varies when every comparison
    of a pair went one way, where resampling would give the same counts every time (and a
    zero-width interval); with many comparisons the two agree.
    """
    if n_resamples <= 0:
        return None
    rng = np.random.default_rng(seed)
    totals = counts.sum(axis=1, keepdims=True)
    shares = np.stack([rng.dirichlet(row + PRIOR, size=n_resamples) for row in counts], axis=1)
    draws = np.array([_fit(design, design.weights(totals * drawn), penalty) for drawn in shares])
    low, high = np.percentile(draws, [50 * (1 - level), 50 * (1 + level)], axis=0)
    return low, high


def _connected(systems: list[str], pairs: list[tuple[str, str]]) -> bool:
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    index = {name: i for i, name in enumerate(systems)}
    rows = [index[a] for a, _ in pairs]
    cols = [index[b] for _, b in pairs]
    graph = coo_matrix((np.ones(len(pairs)), (rows, cols)), shape=(len(systems), len(systems)))
    count, _ = connected_components(graph, directed=False)
    return int(count) == 1


def prediction_powered_strengths(
    systems: list[str],
    labelled: list[tuple[int, int, float, float]],
    unlabelled: Mapping[tuple[int, int, float], int],
    *,
    penalty: float = DEFAULT_PENALTY,
    n_resamples: int = DEFAULT_BT_RESAMPLES,
    level: float = 0.95,
    seed: int = 0,
) -> list[Strength] | None:
    """Bradley-Terry strengths as humans would give them, with prediction-powered bootstrap intervals.

    ``labelled`` holds each labelled comparison as ``(a, b, human, judge)``: the indices into
    ``systems`` of its two sides and a's outcome (1 won, 0.5 tied, 0 lost) by the human label and
    by the judge; ``unlabelled`` counts the other comparisons by ``(a, b, judge's outcome)``. The
    estimate is PPI's with lambda 1: the strengths fitted on the judge's unlabelled outcomes, plus
    those on the labels, minus those on the judge's outcomes of the labelled comparisons; the
    intervals are ``ppi_py.ppboot``'s percentile intervals over ``n_resamples`` resamples (the
    prediction-powered bootstrap, Zrnic 2024), seeded. None with fewer than 3 systems or 2 labels.
    """
    from faceteval.metrics import ppi_module

    if len(systems) < 3 or len(labelled) < 2 or not unlabelled:
        return None
    met = sorted({(a, b) for a, b, _, _ in labelled} | {(a, b) for a, b, _ in unlabelled})
    design = _Design.of(systems, [(systems[a], systems[b]) for a, b in met])
    slot = {pair: k for k, pair in enumerate(met)}

    def strengths(x: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.float64]:
        rows = x[:, 0].astype(np.int64)  # each comparison's pair, as its slot in ``met``
        counts = np.zeros((len(met), 3))
        counts[:, 0] = np.bincount(rows, weights=y, minlength=len(met))
        counts[:, 2] = np.bincount(rows, weights=1.0 - y, minlength=len(met))
        return _fit(design, design.weights(smoothed(counts)), penalty)

    x = np.array([[slot[(a, b)]] for a, b, _, _ in labelled], dtype=np.float64)
    y = np.array([h for _, _, h, _ in labelled], dtype=np.float64)
    y_hat = np.array([j for _, _, _, j in labelled], dtype=np.float64)
    rest = [(slot[(a, b)], outcome) for (a, b, outcome), n in sorted(unlabelled.items()) for _ in range(n)]
    x_rest = np.array([[k] for k, _ in rest], dtype=np.float64)
    y_rest = np.array([outcome for _, outcome in rest], dtype=np.float64)
    theta = strengths(x_rest, y_rest) + strengths(x, y) - strengths(x, y_hat)
    intervals = None
    if n_resamples > 0:
        state = np.random.get_state()  # ppboot draws from numpy's global generator
        np.random.seed(seed)
        try:
            low, high = ppi_module().ppboot(
                strengths, y, y_hat, y_rest, X=x, X_unlabeled=x_rest, lam=1.0,
                n_resamples=n_resamples, alpha=1 - level,
            )  # fmt: skip
        finally:
            np.random.set_state(state)
        intervals = (np.asarray(low), np.asarray(high))
    played = dict.fromkeys(range(len(systems)), 0)
    for a, b, _, _ in labelled:
        played[a], played[b] = played[a] + 1, played[b] + 1
    for (a, b, _), n in unlabelled.items():
        played[a], played[b] = played[a] + n, played[b] + n
    order = sorted(range(len(systems)), key=lambda i: (-theta[i], systems[i]))
    return [
        Strength(
            system=systems[i],
            rank=rank,
            strength=float(theta[i]),
            ci=None if intervals is None else (float(intervals[0][i]), float(intervals[1][i])),
            comparisons=played[i],
        )
        for rank, i in enumerate(order, start=1)
    ]
