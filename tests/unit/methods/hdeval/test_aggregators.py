"""The learned aggregators: scikit-learn's estimator contract, shapes, and the mean ablation's numbers."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from sklearn.ensemble import RandomForestRegressor
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from faceteval.workflows.hdeval._aggregators import AGGREGATORS, MeanAggregator, make_aggregator

ARRAY_API_CHECK = "check_array_api_input"

# Failures scikit-learn itself expects of these stock estimators (its PER_ESTIMATOR_XFAIL_CHECKS).
KNOWN_FAILURES: dict[type, dict[str, str]] = {
    RandomForestRegressor: {
        "check_sample_weight_equivalence_on_dense_data": "sample_weight is not equivalent to repeating rows",
        "check_sample_weight_equivalence_on_sparse_data": "sample_weight is not equivalent to repeating rows",
    },
    Pipeline: {
        "check_dont_overwrite_parameters": "Pipeline fits the estimators in its `steps` parameter",
        "check_estimators_overwrite_params": "Pipeline fits the estimators in its `steps` parameter",
    },
}


def _expected_failures(estimator: Any) -> dict[str, str]:
    return KNOWN_FAILURES.get(type(estimator), {})


def _check_name(check: Callable[..., Any]) -> str:
    return str(getattr(check, "func", check).__name__)


def _without_array_api(decorator: Any) -> Any:
    """The checks but the array API one, which needs SCIPY_ARRAY_API set before scipy is imported."""
    names, cases = decorator.args
    kept = [case for case in cases if _check_name(getattr(case, "values", case)[1]) != ARRAY_API_CHECK]
    return pytest.mark.parametrize(names, kept, **decorator.kwargs)


@_without_array_api(
    parametrize_with_checks(
        [make_aggregator(kind) for kind in AGGREGATORS], expected_failed_checks=_expected_failures
    )
)
def test_scikit_learn_estimator_checks(estimator: Any, check: Callable[[Any], None]) -> None:
    check(estimator)


def test_array_api_check_passes_with_scipy_array_api_enabled() -> None:
    script = textwrap.dedent(
        """
        import warnings
        warnings.simplefilter("error")
        from sklearn.utils.estimator_checks import check_array_api_input
        from faceteval.workflows.hdeval._aggregators import AGGREGATORS, make_aggregator
        for kind in AGGREGATORS:
            check_array_api_input(kind, make_aggregator(kind), "numpy", expect_only_array_outputs=False)
        """
    )
    env = {**os.environ, "SCIPY_ARRAY_API": "1"}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr


def test_unknown_kind_names_the_choices() -> None:
    with pytest.raises(ValueError, match="lr, dt, rf, mlp, mean"):
        make_aggregator("svm")


def test_kinds_are_configured_as_described() -> None:
    forest = make_aggregator("rf", seed=3)
    assert (forest.n_estimators, forest.random_state, forest.n_jobs) == (100, 3, 1)
    assert make_aggregator("dt", seed=4).random_state == 4
    mlp = make_aggregator("mlp", seed=5)[-1]
    assert (mlp.hidden_layer_sizes, mlp.activation, mlp.random_state, mlp.early_stopping) == (
        (64, 32),
        "relu",
        5,
        False,
    )


def _scores(rows: int = 120, width: int = 6, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.integers(1, 6, size=(rows, width)).astype(np.float64)
    y = np.column_stack([x[:, :3].mean(axis=1), x[:, 3:].mean(axis=1), x.mean(axis=1)])
    return x, y + rng.normal(scale=0.1, size=y.shape)


@pytest.mark.parametrize("kind", AGGREGATORS)
def test_multi_and_single_output_shapes(kind: str) -> None:
    x, y = _scores()
    assert make_aggregator(kind).fit(x, y).predict(x[:7]).shape == (7, 3)
    assert make_aggregator(kind).fit(x, y[:, 0]).predict(x[:7]).shape == (7,)


def test_mean_aggregator_by_hand() -> None:
    x = np.array([[1.0, 3.0], [2.0, 2.0], [4.0, 4.0], [5.0, 3.0]])  # row means 2, 2, 4, 4
    y = np.array([[1.0, 5.0], [2.0, 5.0], [4.0, 3.0], [5.0, 3.0]])
    model = MeanAggregator().fit(x, y)
    # centred means (-1, -1, 1, 1)
    # target 0: centred y (-2, -1, 1, 2): b = 6 / 4 = 1.5, a = 3 - 1.5 * 3 = -1.5
    # target 1: centred y (1, 1, -1, -1): b = -4 / 4 = -1, a = 4 + 3 = 7
    np.testing.assert_allclose(model.coef_, [1.5, -1.0])
    np.testing.assert_allclose(model.intercept_, [-1.5, 7.0])
    np.testing.assert_allclose(model.predict([[3.0, 5.0]]), [[4.5, 3.0]])
    assert model.n_features_in_ == 2


def test_mean_aggregator_on_one_output_returns_one_dimension() -> None:
    model = MeanAggregator().fit([[1.0, 3.0], [2.0, 4.0], [3.0, 5.0]], [1.0, 2.0, 3.0])
    np.testing.assert_allclose(model.predict([[2.0, 2.0], [5.0, 5.0]]), [1.0, 4.0])
    assert np.ndim(model.coef_) == 0


def test_mean_aggregator_with_constant_row_means_predicts_the_target_mean() -> None:
    model = MeanAggregator().fit([[1.0, 3.0], [2.0, 2.0], [3.0, 1.0]], [[1.0, 4.0], [2.0, 4.0], [6.0, 4.0]])
    np.testing.assert_allclose(model.coef_, [0.0, 0.0])
    np.testing.assert_allclose(model.predict([[5.0, 5.0]]), [[3.0, 4.0]])


def test_mean_aggregator_correlates_like_the_plain_mean() -> None:
    x, y = _scores()
    predicted = MeanAggregator().fit(x, y).predict(x)
    for target in range(y.shape[1]):
        expected = np.corrcoef(x.mean(axis=1), y[:, target])[0, 1]
        assert np.corrcoef(predicted[:, target], y[:, target])[0, 1] == pytest.approx(expected)
