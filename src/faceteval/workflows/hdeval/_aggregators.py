"""Learned white-box aggregators: regressors from per-criterion LLM scores to human aspect scores.

Every kind fits a 1-D ``y`` (one aspect) or a 2-D ``y`` of shape (n, p) (p aspects at once).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import LinearRegression
from sklearn.neural_network import MLPRegressor
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeRegressor
from sklearn.utils.validation import check_is_fitted, validate_data

__all__ = ["AGGREGATORS", "MeanAggregator", "make_aggregator"]

AGGREGATORS: tuple[str, ...] = ("lr", "dt", "rf", "mlp", "mean")


class MeanAggregator(RegressorMixin, BaseEstimator):  # type: ignore[misc]
    """The "without aggregator" ablation: each output is ``a + b * mean(row)``.

    ``a`` and ``b`` are fitted by least squares per output, so predictions are on the human scale and
    their correlation with the humans equals that of the plain mean of the criteria whenever ``b > 0``.

    Attributes:
        intercept_: ``a``: shape () for a 1-D ``y``, else (p,).
        coef_: ``b``, shaped like ``intercept_``.
        n_features_in_: The number of criteria seen in ``fit``.

    Example:
        >>> model = MeanAggregator().fit([[1, 3], [2, 4], [3, 5]], [2.0, 3.0, 4.0])
        >>> model.predict([[4, 6]]).round(6)
        array([5.])
    """

    def fit(self, X: Any, y: Any) -> MeanAggregator:
        """Fit ``a`` and ``b`` per output.

        Args:
            X: Criterion scores, shape (n, d).
            y: Human scores, shape (n,) or (n, p).

        Returns:
            The fitted aggregator.
        """
        X, y = validate_data(self, X, y, multi_output=True, y_numeric=True, dtype=np.float64)
        means = X.mean(axis=1)
        targets = np.asarray(y, dtype=np.float64)
        centred = means - means.mean()
        if _varies(means):
            slope = centred @ (targets - targets.mean(axis=0)) / (centred @ centred)
        else:
            slope = np.zeros(targets.shape[1:])
        self.coef_ = slope
        self.intercept_ = targets.mean(axis=0) - slope * means.mean()
        return self

    def predict(self, X: Any) -> NDArray[np.float64]:
        """Predict every output from the mean of each row.

        Args:
            X: Criterion scores, shape (n, d).

        Returns:
            Shape (n,) when fitted on a 1-D ``y``, else (n, p).
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        means = X.mean(axis=1)
        out: NDArray[np.float64] = self.intercept_ + np.multiply.outer(means, self.coef_)
        return out

    def __sklearn_tags__(self) -> Any:
        """Tags: several outputs are supported; a score near the plain mean's is expected, not a good one."""
        tags = super().__sklearn_tags__()
        tags.target_tags.single_output = True
        tags.target_tags.multi_output = True
        tags.regressor_tags.poor_score = True
        return tags


def _varies(values: NDArray[np.float64]) -> bool:
    """Whether the values differ by more than rounding."""
    scale = max(1.0, float(np.abs(values).max()))
    return bool(np.ptp(values) > 16 * np.finfo(np.float64).eps * scale)


def make_aggregator(kind: str, *, seed: int = 0) -> Any:
    """An unfitted aggregator.

    Args:
        kind: One of `AGGREGATORS`: ``lr`` (linear regression), ``dt`` (decision tree), ``rf`` (random
            forest of 100 trees), ``mlp`` (standardised inputs into a 3-layer ReLU MLP with hidden
            layers of 64 and 32) or ``mean`` (`MeanAggregator`).
        seed: Random state of the kinds that have one.

    Returns:
        A scikit-learn regressor.

    Raises:
        ValueError: An unknown kind.
    """
    if kind == "lr":
        return LinearRegression()
    if kind == "dt":
        return DecisionTreeRegressor(random_state=seed)
    if kind == "rf":
        return RandomForestRegressor(n_estimators=100, random_state=seed, n_jobs=1)
    if kind == "mlp":
        mlp = MLPRegressor(
            hidden_layer_sizes=(64, 32),
            activation="relu",
            random_state=seed,
            max_iter=5000,
            early_stopping=False,
        )
        return Pipeline([("scale", StandardScaler()), ("mlp", mlp)])
    if kind == "mean":
        return MeanAggregator()
    raise ValueError(f"unknown aggregator {kind!r}; choose one of {', '.join(AGGREGATORS)}")
