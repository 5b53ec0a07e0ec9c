"""What a fitted aggregator relies on: criterion importance per target, and per-prediction contributions."""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Collection, Sequence
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.linear_model import LinearRegression
from sklearn.pipeline import Pipeline
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_array

from faceteval.errors import MissingDependencyError

__all__ = ["contributions", "importance", "shap_values", "top_k"]

Matrix = NDArray[np.float64]

SHAP_BACKGROUND = 100
"""At most this many training rows stand for "feature absent" in SHAP."""
EXACT_SHAP_CRITERIA = 10
"""Up to this many criteria, SHAP values are computed exactly (2^d coalitions); beyond, by permutations."""


def importance(
    estimator: Any,
    X: ArrayLike,
    Y: ArrayLike,
    *,
    method: Literal["permutation", "shap"] = "permutation",
    seed: int = 0,
    n_repeats: int = 5,
) -> Matrix:
    """How much a fitted aggregator relies on each criterion, for each target.

    ``permutation``: the mean drop, over ``n_repeats`` shuffles of one criterion's column, in the R² of
    each target alone. It gives the same numbers as ``sklearn.inspection.permutation_importance`` with
    ``scoring`` the R² of that target and the same ``random_state`` and ``n_repeats``, but predicts once
    per shuffle for every target together.

    ``shap``: the mean absolute SHAP value over the rows of ``X``, explaining ``estimator.predict`` with
    shap's permutation explainer against a seeded sample of at most 100 of those rows. It needs the optional
    ``shap`` package, and costs about ``rows x 100 x max(500, 2 x criteria + 1)`` predictions: pass a
    sample of rows when there are many.

    Args:
        estimator: A fitted aggregator.
        X: Criterion scores, shape (n, d).
        Y: Human scores, shape (n,) or (n, p). Only their shape is used by ``shap``.
        method: ``permutation`` or ``shap``.
        seed: Random state of the shuffles, or of the SHAP background sample and permutations.
        n_repeats: Shuffles per criterion (``permutation`` only).

    Returns:
        Shape (p, d): one row per target (one row for a 1-D ``Y``).

    Raises:
        ValueError: X and Y differ in length, ``n_repeats`` is below 1, or an unknown method.
        MissingDependencyError: ``shap`` is asked for but not installed.
    """
    x = check_array(X, ensure_all_finite="allow-nan", dtype=None)
    y = _targets(Y, len(x))
    if method == "permutation":
        if n_repeats < 1:
            raise ValueError(f"n_repeats must be at least 1, not {n_repeats}")
        return _permutation(estimator, x, y, seed, n_repeats)
    if method == "shap":
        return _shap(estimator, x, y.shape[1], seed)
    raise ValueError(f"unknown importance method {method!r}; choose permutation or shap")


def top_k(names: Sequence[str], scores: ArrayLike, k: int, among: Collection[str] | None = None) -> list[str]:
    """The ``k`` names with the highest scores, ties broken by name.

    Args:
        names: One name per score.
        scores: Shape (len(names),).
        k: How many to return (all of them when fewer are eligible).
        among: Only these names are eligible, when given.

    Returns:
        Names, highest score first.

    Raises:
        ValueError: ``k`` is negative, or names and scores differ in length.

    Example:
        >>> top_k(["a", "b", "c", "d"], [0.1, 0.5, 0.5, 0.9], 3, among={"a", "b", "c"})
        ['b', 'c', 'a']
    """
    values = np.asarray(scores, dtype=np.float64).reshape(-1)
    if len(values) != len(names):
        raise ValueError(f"{len(names)} names but {len(values)} scores")
    if k < 0:
        raise ValueError(f"k must not be negative, not {k}")
    eligible = [(float(s), n) for n, s in zip(names, values, strict=True) if among is None or n in among]
    return [name for _, name in sorted(eligible, key=lambda pair: (-pair[0], pair[1]))[:k]]


def contributions(estimator: Any, X: ArrayLike, background: ArrayLike) -> Matrix:
    """Each criterion's contribution to each prediction, relative to the mean of ``background``.

    For a `LinearRegression`, or a `Pipeline` ending in one whose earlier steps keep one column per
    criterion (a scaler), it is exactly ``coef * (x - background mean)`` (after those steps), and the
    contributions are additive: with the prediction at the background mean they sum to the prediction.
    For any other aggregator it is the occlusion difference ``predict(x) - predict(x with criterion j set
    to its background mean)``, which need not add up to anything.

    Args:
        estimator: A fitted aggregator.
        X: Criterion scores, shape (n, d).
        background: Reference rows, shape (m, d), for example the training rows or their mean.

    Returns:
        Shape (n, p, d): rows, targets (one for a single-output aggregator), criteria.

    Raises:
        ValueError: X and background differ in width, or background is empty.
    """
    x = check_array(X, dtype=np.float64)
    reference = check_array(background, dtype=np.float64)
    if reference.shape[1] != x.shape[1]:
        raise ValueError(f"background has {reference.shape[1]} columns, X has {x.shape[1]}")
    linear = _linear_parts(estimator, x, reference)
    return linear if linear is not None else _occlusion(estimator, x, reference.mean(axis=0))


def _targets(Y: ArrayLike, rows: int) -> Matrix:
    y = np.asarray(Y, dtype=np.float64)
    if y.ndim not in (1, 2) or len(y) != rows:
        raise ValueError(f"Y must have shape ({rows},) or ({rows}, p), not {y.shape}")
    return y.reshape(rows, -1)


def _predict(estimator: Any, x: NDArray[Any]) -> Matrix:
    return np.asarray(estimator.predict(x), dtype=np.float64).reshape(len(x), -1)


def _r2(y: Matrix, predicted: Matrix) -> Matrix:
    """R² of each target (last axis), with scikit-learn's values when a target is constant."""
    residual = ((y - predicted) ** 2).sum(axis=-2)
    total = ((y - y.mean(axis=0)) ** 2).sum(axis=0)
    constant = total == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        score = 1 - residual / np.where(constant, 1.0, total)
    return np.where(constant, np.where(residual == 0, 1.0, 0.0), score)


def _permutation(estimator: Any, x: NDArray[Any], y: Matrix, seed: int, n_repeats: int) -> Matrix:
    column_seed = check_random_state(seed).randint(np.iinfo(np.int32).max + 1)
    baseline = _r2(y, _predict(estimator, x))
    rows, width = x.shape
    out = np.empty((y.shape[1], width))
    for column in range(width):
        shuffled = _shuffled(x, column, column_seed, n_repeats)
        predicted = _predict(estimator, shuffled.reshape(-1, width)).reshape(n_repeats, rows, -1)
        out[:, column] = (baseline - _r2(y, predicted)).mean(axis=0)
    return out


def _shuffled(x: NDArray[Any], column: int, seed: int, n_repeats: int) -> NDArray[Any]:
    """``n_repeats`` copies of x; copy r has the column shuffled r + 1 times over, as scikit-learn does."""
    random_state = np.random.RandomState(seed)
    order = np.arange(len(x))
    values = x[:, column]
    out = np.repeat(x[np.newaxis], n_repeats, axis=0)
    for repeat in range(n_repeats):
        random_state.shuffle(order)
        values = values[order]
        out[repeat, :, column] = values
    return out


def _shap(estimator: Any, x: NDArray[Any], n_targets: int, seed: int) -> Matrix:
    data = np.asarray(x, dtype=np.float64)
    picked = np.random.default_rng(seed).choice(
        len(data), size=min(SHAP_BACKGROUND, len(data)), replace=False
    )
    values = shap_values(estimator, data, background=data[np.sort(picked)], seed=seed)
    out: Matrix = np.abs(values).mean(axis=0)
    return out.reshape(n_targets, -1)


def shap_values(estimator: Any, X: ArrayLike, *, background: ArrayLike, seed: int = 0) -> Matrix:
    """The SHAP value of every criterion in every row, for every target.

    shap's exact explainer on ``estimator.predict`` for up to 10 criteria, its permutation explainer
    beyond, with ``background`` rows standing for a criterion being absent (at most 100 are used, a
    seeded sample). Each row's values sum to its prediction minus the mean prediction on the background.

    Args:
        estimator: A fitted aggregator.
        X: The rows to explain, shape (n, d).
        background: Reference rows, shape (m, d), for example the training rows.
        seed: Random state of the background sample and of the permutations.

    Returns:
        Shape (n, p, d): row, target, criterion.

    Raises:
        MissingDependencyError: ``shap`` is not installed.
    """
    try:
        with warnings.catch_warnings():
            # shap's plots call Colormap.set_bad and the like on import, which matplotlib will deprecate.
            warnings.simplefilter("ignore", PendingDeprecationWarning)
            shap = importlib.import_module("shap")
    except ImportError as exc:
        raise MissingDependencyError("SHAP importance", extra="shap") from exc
    data = np.asarray(check_array(X, ensure_all_finite="allow-nan", dtype=None), dtype=np.float64)
    reference = np.asarray(
        check_array(background, ensure_all_finite="allow-nan", dtype=None), dtype=np.float64
    )
    if reference.shape[1] != data.shape[1]:
        raise ValueError(f"background has {reference.shape[1]} columns, X has {data.shape[1]}")
    if len(reference) > SHAP_BACKGROUND:
        picked = np.random.default_rng(seed).choice(len(reference), size=SHAP_BACKGROUND, replace=False)
        reference = reference[np.sort(picked)]
    rows, width = data.shape
    n_targets = _predict(estimator, data[:1]).shape[1]
    exact = width <= EXACT_SHAP_CRITERIA
    explainer = shap.Explainer(
        lambda batch: _predict(estimator, batch),
        reference,
        algorithm="exact" if exact else "permutation",
        seed=seed,
    )
    if exact:
        explained = explainer(data, silent=True)
    else:
        explained = explainer(data, max_evals=max(500, 2 * width + 1), silent=True)
    values = np.asarray(explained.values, dtype=np.float64).reshape(rows, width, n_targets)
    out: Matrix = values.transpose(0, 2, 1)
    return out


def _linear_parts(estimator: Any, x: Matrix, reference: Matrix) -> Matrix | None:
    """``coef * (x - background mean)`` for a linear regression, alone or last in a pipeline; else None."""
    model, steps = estimator, None
    if isinstance(estimator, Pipeline):
        model, steps = estimator[-1], estimator[:-1]
    if not isinstance(model, LinearRegression):
        return None
    if steps is not None:
        width = x.shape[1]
        x, reference = np.asarray(steps.transform(x)), np.asarray(steps.transform(reference))
        if x.shape[1] != width:
            return None
    coef = np.atleast_2d(model.coef_)
    centred = x - reference.mean(axis=0)
    parts: Matrix = centred[:, np.newaxis, :] * coef[np.newaxis, :, :]
    return parts


def _occlusion(estimator: Any, x: Matrix, centre: Matrix) -> Matrix:
    predicted = _predict(estimator, x)
    out = np.empty((len(x), predicted.shape[1], x.shape[1]))
    for column in range(x.shape[1]):
        occluded = x.copy()
        occluded[:, column] = centre[column]
        out[:, :, column] = predicted - _predict(estimator, occluded)
    return out
