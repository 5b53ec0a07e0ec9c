"""Criterion importance per target, top-k selection, and per-prediction contributions."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pytest
from sklearn.inspection import permutation_importance
from sklearn.linear_model import LinearRegression
from sklearn.metrics import make_scorer, r2_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from faceteval.errors import FacetevalError, MissingDependencyError
from faceteval.workflows.hdeval._aggregators import make_aggregator
from faceteval.workflows.hdeval._importance import contributions, importance, shap_values, top_k

INFORMATIVE = (0, 3)

# Importing shap imports its plots, which call Colormap.set_bad and the like: matplotlib will deprecate them.
SHAP_IMPORT = pytest.mark.filterwarnings(
    "ignore:The set_[a-z]+ function will be deprecated:PendingDeprecationWarning"
)


def _signal(rows: int = 300, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Ten integer criteria 1-5; target 0 follows criterion 0, target 1 criterion 3."""
    rng = np.random.default_rng(seed)
    x = rng.integers(1, 6, size=(rows, 10)).astype(np.float64)
    noise = rng.normal(scale=0.3, size=(rows, 2))
    y = np.column_stack([x[:, 0] + 0.3 * x[:, 3], x[:, 3] + 0.3 * x[:, 0]]) + noise
    return x, y


def _top(scores: np.ndarray, k: int) -> set[int]:
    return {int(i) for i in np.argsort(-scores)[:k]}


@pytest.fixture(scope="module")
def fitted() -> dict[str, Any]:
    x, y = _signal()
    return {kind: make_aggregator(kind, seed=0).fit(x, y) for kind in ("lr", "rf", "mlp")}


@pytest.mark.parametrize("kind", ["lr", "rf", "mlp"])
def test_permutation_importance_finds_the_informative_criteria(fitted: dict[str, Any], kind: str) -> None:
    x, y = _signal()
    scores = importance(fitted[kind], x, y, seed=0)
    assert scores.shape == (2, 10)
    assert _top(scores.mean(axis=0), 2) == set(INFORMATIVE)
    assert _top(scores[0], 1) == {0}
    assert _top(scores[1], 1) == {3}


@pytest.mark.parametrize("kind", ["lr", "rf", "mlp"])
def test_one_target_gives_one_row(kind: str) -> None:
    x, y = _signal()
    model = make_aggregator(kind, seed=0).fit(x, y[:, 0])
    scores = importance(model, x, y[:, 0], seed=1, n_repeats=3)
    assert scores.shape == (1, 10)
    assert _top(scores[0], 1) == {0}


@pytest.mark.parametrize(("seed", "n_repeats"), [(0, 5), (7, 3)])
def test_permutation_matches_scikit_learn_on_one_output(seed: int, n_repeats: int) -> None:
    x, y = _signal(rows=120)
    model = make_aggregator("rf", seed=0).fit(x, y[:, 0])
    expected = permutation_importance(model, x, y[:, 0], scoring="r2", n_repeats=n_repeats, random_state=seed)
    ours = importance(model, x, y[:, 0], seed=seed, n_repeats=n_repeats)
    np.testing.assert_allclose(ours[0], expected.importances_mean, rtol=1e-12, atol=1e-15)


def test_permutation_matches_scikit_learn_per_output() -> None:
    x, y = _signal(rows=120)
    model = make_aggregator("mlp", seed=0).fit(x, y)
    ours = importance(model, x, y, seed=3, n_repeats=4)
    for target in range(2):
        scorer = make_scorer(lambda truth, guess, t=target: r2_score(truth[:, t], guess[:, t]))
        expected = permutation_importance(model, x, y, scoring=scorer, n_repeats=4, random_state=3)
        np.testing.assert_allclose(ours[target], expected.importances_mean, rtol=1e-9, atol=1e-12)


def test_a_constant_target_scores_like_scikit_learn() -> None:
    x, y = _signal(rows=60)
    y[:, 1] = 2.0
    model = make_aggregator("lr").fit(x, y)
    scores = importance(model, x, y, seed=0, n_repeats=2)
    assert np.isfinite(scores).all()


def test_importance_rejects_bad_arguments(fitted: dict[str, Any]) -> None:
    x, y = _signal()
    with pytest.raises(ValueError, match="Y must have shape"):
        importance(fitted["lr"], x, y[:-1])
    with pytest.raises(ValueError, match="n_repeats"):
        importance(fitted["lr"], x, y, n_repeats=0)
    with pytest.raises(ValueError, match="permutation or shap"):
        importance(fitted["lr"], x, y, method="gain")  # type: ignore[arg-type]


@SHAP_IMPORT
def test_shap_importance_finds_the_informative_criteria(fitted: dict[str, Any]) -> None:
    x, y = _signal()
    scores = importance(fitted["lr"], x[:12], y[:12], method="shap", seed=0)
    assert scores.shape == (2, 10)
    assert _top(scores[0], 1) == {0}
    assert _top(scores[1], 1) == {3}
    assert _top(scores.mean(axis=0), 2) == set(INFORMATIVE)


@SHAP_IMPORT
def test_shap_importance_of_one_output_is_seeded() -> None:
    x, y = _signal(rows=150)
    model = make_aggregator("dt", seed=0).fit(x, y[:, 1])
    first = importance(model, x[:8], y[:8, 1], method="shap", seed=5)
    again = importance(model, x[:8], y[:8, 1], method="shap", seed=5)
    assert first.shape == (1, 10)
    np.testing.assert_array_equal(first, again)
    assert _top(first[0], 1) == {3}


@SHAP_IMPORT
def test_shap_values_of_a_linear_aggregator_are_its_exact_contributions() -> None:
    x, y = _signal(rows=120)
    model = LinearRegression().fit(x, y)
    background = x[:40]
    values = shap_values(model, x[40:46], background=background, seed=0)
    assert values.shape == (6, 2, 10)
    expected = (x[40:46] - background.mean(axis=0))[:, np.newaxis, :] * model.coef_[np.newaxis, :, :]
    np.testing.assert_allclose(values, expected, atol=1e-9)
    np.testing.assert_allclose(
        values.sum(axis=2), model.predict(x[40:46]) - model.predict(background).mean(axis=0), atol=1e-9
    )


@SHAP_IMPORT
def test_shap_values_use_at_most_a_hundred_background_rows() -> None:
    x, y = _signal(rows=400)
    model = LinearRegression().fit(x, y[:, 0])
    values = shap_values(model, x[:3], background=x, seed=1)
    again = shap_values(model, x[:3], background=x, seed=1)
    np.testing.assert_array_equal(values, again)
    assert values.shape == (3, 1, 10)
    with pytest.raises(ValueError, match="background has 9 columns"):
        shap_values(model, x[:3], background=x[:, :9])


def test_shap_without_the_package_names_the_extra(
    fitted: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "shap", None)
    x, y = _signal()
    with pytest.raises(MissingDependencyError, match=r"pip install 'faceteval\[shap\]'") as caught:
        importance(fitted["lr"], x, y, method="shap")
    assert isinstance(caught.value, FacetevalError)


def test_top_k_breaks_ties_by_name() -> None:
    assert top_k(["d", "b", "c", "a"], np.array([1.0, 2.0, 2.0, 0.5]), 3) == ["b", "c", "d"]


def test_top_k_among_a_subset() -> None:
    names = ["a", "b", "c", "d"]
    assert top_k(names, np.array([4.0, 3.0, 2.0, 1.0]), 2, among={"b", "d"}) == ["b", "d"]
    assert top_k(names, np.array([4.0, 3.0, 2.0, 1.0]), 9, among=["c"]) == ["c"]
    assert top_k(names, np.array([4.0, 3.0, 2.0, 1.0]), 0) == []


def test_top_k_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="2 names but 3 scores"):
        top_k(["a", "b"], np.array([1.0, 2.0, 3.0]), 1)
    with pytest.raises(ValueError, match="negative"):
        top_k(["a"], np.array([1.0]), -1)


@pytest.mark.parametrize("multi", [True, False])
def test_linear_contributions_add_up_to_the_prediction(multi: bool) -> None:
    x, y = _signal()
    target = y if multi else y[:, 0]
    model = make_aggregator("lr").fit(x, target)
    background = x[:50]
    parts = contributions(model, x, background)
    centre = background.mean(axis=0, keepdims=True)
    at_centre = model.predict(centre).reshape(1, -1)
    predicted = model.predict(x).reshape(len(x), -1)
    assert parts.shape == (len(x), 2 if multi else 1, 10)
    np.testing.assert_allclose(parts.sum(axis=2) + at_centre, predicted, rtol=1e-12, atol=1e-12)
    coef = np.atleast_2d(model.coef_)
    np.testing.assert_allclose(parts[:, :, 0], np.outer(x[:, 0] - centre[0, 0], coef[:, 0]))


def test_linear_contributions_through_a_scaling_pipeline() -> None:
    x, y = _signal()
    model = Pipeline([("scale", StandardScaler()), ("lr", LinearRegression())]).fit(x, y)
    centre = x.mean(axis=0, keepdims=True)
    parts = contributions(model, x, centre)
    np.testing.assert_allclose(
        parts.sum(axis=2) + model.predict(centre), model.predict(x), rtol=1e-12, atol=1e-12
    )


@pytest.mark.parametrize("kind", ["rf", "mlp", "mean"])
def test_other_contributions_are_occlusion_differences(fitted: dict[str, Any], kind: str) -> None:
    x, y = _signal()
    model = fitted[kind] if kind in fitted else make_aggregator(kind).fit(x, y)
    parts = contributions(model, x[:20], x)
    assert parts.shape == (20, 2, 10)
    occluded = x[:20].copy()
    occluded[:, 3] = x[:, 3].mean()
    np.testing.assert_allclose(parts[:, :, 3], model.predict(x[:20]) - model.predict(occluded))


def test_contributions_need_matching_widths(fitted: dict[str, Any]) -> None:
    x, _ = _signal()
    with pytest.raises(ValueError, match="background has 9 columns, X has 10"):
        contributions(fitted["lr"], x, x[:, :9])
