"""HD-Eval's analyses on a small synthetic evaluator whose deepest layer carries the signal."""

from __future__ import annotations

import statistics
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from faceteval.errors import FacetevalError
from faceteval.workflows.hdeval._aggregators import AGGREGATORS
from faceteval.workflows.hdeval._evaluator import SUMMARY, load_evaluator, read_summary, save_evaluator
from faceteval.workflows.hdeval._experiments import (
    Data,
    ablations,
    aggregators,
    criteria_efficiency,
    data_efficiency,
    held_out_score,
    importance_by_aggregator,
    load_data,
    run_experiments,
    shap_explanation,
)
from faceteval.workflows.hdeval._results import evaluator_info, evaluator_summary
from faceteval.workflows.hdeval._train import TrainConfig, Trained, train
from tests.support import hdeval_synthetic as synthetic

# Importing shap imports its plots, which call Colormap.set_bad and the like: matplotlib will deprecate them.
SHAP_IMPORT = pytest.mark.filterwarnings(
    "ignore:The set_[a-z]+ function will be deprecated:PendingDeprecationWarning"
)
STRONGEST = "coherence / flow / transitions"
FEATURES = [
    "coherence",
    "coherence / flow",
    "coherence / structure",
    "coherence / flow / transitions",
    "coherence / flow / ordering",
]


@pytest.fixture(scope="module")
def trained() -> Trained:
    """Human coherence = 3 x transitions + ordering; layer 2's flow only summarises them, noisily."""
    instances = synthetic.instances(64, targets=("coherence",))
    config = TrainConfig(
        targets=("coherence",), layers=3, children=2, expand=1, aggregator="lr", group_by="doc"
    )
    judge = synthetic.Judge(ids=[i.id for i in instances])
    return train(synthetic.tree(("coherence",)), instances, config, judge, synthetic.Decomposer())


def write(out: Path, trained: Trained, level: str | None = None) -> Path:
    options = {"benchmark": "synthetic", "origin": "rule judge", "group_by": "doc", "level": level}
    summary = evaluator_summary(trained, **options, resamples=0)  # type: ignore[arg-type]
    save_evaluator(out, trained, summary=summary, info=evaluator_info(trained, **options))  # type: ignore[arg-type]
    return out


@pytest.fixture(scope="module")
def by_document(tmp_path_factory: pytest.TempPathFactory, trained: Trained) -> Path:
    """Grouped by document and read at summary level (the default when outputs are grouped)."""
    return write(tmp_path_factory.mktemp("summary") / "evaluator", trained)


@pytest.fixture(scope="module")
def per_sample(tmp_path_factory: pytest.TempPathFactory, trained: Trained) -> Path:
    """The same evaluator, grouped by document but read at sample level."""
    return write(tmp_path_factory.mktemp("sample") / "evaluator", trained, level="sample")


@pytest.fixture(scope="module")
def data(per_sample: Path) -> Data:
    return load_data(per_sample, load_evaluator(per_sample))


def test_the_synthetic_evaluator_has_three_layers(trained: Trained, data: Data) -> None:
    assert trained.features == FEATURES
    assert data.features == FEATURES and data.layers == [1, 2, 2, 3, 3]
    assert data.x.shape == (64, 5) and data.y.shape == (64, 1)
    np.testing.assert_array_equal(data.x, trained.x)
    np.testing.assert_array_equal(data.train, trained.train)
    assert data.groups is None  # level "sample", though the outputs are grouped


def test_summary_level_data_carries_the_documents(by_document: Path, trained: Trained) -> None:
    grouped = load_data(by_document, load_evaluator(by_document))
    assert grouped.groups == [trained.metadata[i]["doc"] for i in trained.ids]


def held_out_pearson(data: Data, columns: list[int], groups: list[str] | None = None) -> float:
    """The reference: a least-squares fit on the training rows, correlated on the rest with scipy."""
    from sklearn.linear_model import LinearRegression

    x = data.x[:, columns]
    test = ~data.train
    predicted = LinearRegression().fit(x[data.train], data.y[data.train, 0]).predict(x[test])
    human = data.y[test, 0]
    if groups is None:
        return float(stats.pearsonr(predicted, human).statistic)
    rows: dict[str, list[int]] = defaultdict(list)
    for row, group in enumerate(g for g, keep in zip(groups, test, strict=True) if keep):
        rows[group].append(row)
    return statistics.fmean(stats.pearsonr(predicted[r], human[r]).statistic for r in rows.values())


def test_held_out_score_is_the_correlation_on_the_held_out_rows(data: Data, by_document: Path) -> None:
    got = held_out_score(data, range(5), "lr", data.train, seed=0)
    assert got["pearson"] == pytest.approx(held_out_pearson(data, list(range(5))))
    grouped = load_data(by_document, load_evaluator(by_document))
    at_summary = held_out_score(grouped, [0, 1], "lr", grouped.train, seed=0)
    assert at_summary["pearson"] == pytest.approx(held_out_pearson(grouped, [0, 1], grouped.groups))


def test_ablations_lose_correlation_without_the_informative_deepest_layer(data: Data) -> None:
    result = ablations(data, "lr", seed=0)
    assert set(result) == {"full", "without layer 3", "without layers 2-3", "without aggregator (mean)"}
    full, shallow, top = (result[k]["pearson"] for k in ("full", "without layer 3", "without layers 2-3"))
    assert full > 0.95
    assert full > shallow + 0.1
    assert shallow > top
    assert shallow == pytest.approx(held_out_pearson(data, [0, 1, 2]))
    assert result["full"]["spearman"] > result["without layer 3"]["spearman"]


def test_without_aggregator_is_the_plain_mean_even_when_training_rows_disagree_with_it() -> None:
    # On the training rows the mean of the criteria falls as the human score rises; held out, it rises.
    x = np.array([[1, 1], [2, 2], [3, 3], [4, 4], [1, 2], [2, 3], [4, 4], [5, 5]], dtype=np.float64)
    y = np.array([[4], [3], [2], [1], [1], [2], [3], [5]], dtype=np.float64)
    split = np.array([True] * 4 + [False] * 4)
    data = Data(x=x, y=y, train=split, groups=None, features=["a", "b"], layers=[1, 1], targets=["quality"])
    got = ablations(data, "lr", seed=0)["without aggregator (mean)"]
    assert got["pearson"] == pytest.approx(stats.pearsonr(x[~split].mean(axis=1), y[~split, 0]).statistic)
    assert got["spearman"] == pytest.approx(stats.spearmanr(x[~split].mean(axis=1), y[~split, 0]).statistic)
    assert got["pearson"] > 0.9


def test_aggregators_are_all_compared(data: Data) -> None:
    result = aggregators(data, seed=0)
    assert set(result) == set(AGGREGATORS)
    for scores in result.values():
        assert set(scores) == {"pearson", "spearman"}
        assert all(isinstance(v, float) and -1 <= v <= 1 for v in scores.values())
    with_ablations = ablations(data, "lr", seed=0)
    assert result["lr"] == with_ablations["full"]
    assert result["mean"] == pytest.approx(with_ablations["without aggregator (mean)"])
    assert result["lr"]["pearson"] > result["mean"]["pearson"]


def test_data_efficiency_over_fractions_and_seeds(data: Data) -> None:
    points = data_efficiency(data, "lr", fractions=(0.25, 1.0), seeds=(0, 1, 2))
    assert [point["fraction"] for point in points] == [0.25, 1.0]
    assert [point["rows"] for point in points] == [8, 32]
    tiny = data_efficiency(data, "lr", fractions=(0.05, 0.1), seeds=(0,))
    assert [point["rows"] for point in tiny] == [4, 4]  # both raised to the fewest rows a fit takes
    small, everything = points
    for point in points:
        for method in ("pearson", "spearman"):
            values = point[method]["values"]
            assert len(values) == 3
            assert point[method]["mean"] == pytest.approx(statistics.fmean(values))
            assert point[method]["sd"] == pytest.approx(statistics.stdev(values))
    # Every seed trains a linear model on all the training rows: the same result each time.
    assert everything["pearson"]["sd"] == 0.0
    assert everything["pearson"]["mean"] == pytest.approx(ablations(data, "lr", 0)["full"]["pearson"])
    assert small["pearson"]["sd"] > 0  # 8 rows drawn differently per seed
    assert small["pearson"]["mean"] < everything["pearson"]["mean"]


def test_criteria_efficiency_from_the_most_important_down(data: Data, per_sample: Path) -> None:
    order = [row["id"] for row in sorted(read_summary(per_sample)["tree"], key=lambda r: -r["importance"])]
    assert order[0] == STRONGEST
    points = criteria_efficiency(data, "lr", order, seeds=(0, 1))
    assert [point["criteria"] for point in points] == [1, 2, 3, 4, 5]
    first, last = points[0]["pearson"]["mean"], points[-1]["pearson"]["mean"]
    assert first > 0.8 * last  # the strongest criterion alone gives most of the correlation
    assert last == pytest.approx(ablations(data, "lr", 0)["full"]["pearson"])
    assert max(p["pearson"]["mean"] for p in points) - last < 0.05
    noise_first = criteria_efficiency(
        data, "lr", ["coherence / structure", "coherence", STRONGEST], seeds=(0,)
    )
    assert [point["criteria"] for point in noise_first] == [1, 2, 3]
    assert abs(noise_first[0]["pearson"]["mean"]) < 0.5 < noise_first[-1]["pearson"]["mean"]


def test_criteria_efficiency_ignores_unknown_names(data: Data) -> None:
    points = criteria_efficiency(data, "lr", ["nonsense", STRONGEST], seeds=(0,))
    assert [point["criteria"] for point in points] == [1]
    assert points[0]["pearson"]["mean"] == pytest.approx(held_out_pearson(data, [3]))


def test_importance_by_aggregator_ranks_the_informative_criterion_first(data: Data) -> None:
    result = importance_by_aggregator(data, seed=0)
    assert set(result) == set(AGGREGATORS)
    for per_target in result.values():
        assert set(per_target) == {"coherence"} and list(per_target["coherence"]) == FEATURES
    by_lr = result["lr"]["coherence"]
    assert max(by_lr, key=by_lr.__getitem__) == STRONGEST
    assert by_lr[STRONGEST] > 0.5 and abs(by_lr["coherence / structure"]) < 0.1


@SHAP_IMPORT
def test_shap_explanation_of_a_linear_aggregator(data: Data, per_sample: Path) -> None:
    evaluator = load_evaluator(per_sample)
    explained = shap_explanation(data, evaluator, seed=2, samples=10)
    rows = explained["rows"]
    assert len(rows) == len(set(rows)) == 10 and rows == sorted(rows)
    assert explained["criteria"] == FEATURES and explained["targets"] == ["coherence"]
    assert explained["scores"] == data.x[rows].tolist()
    values = np.asarray(explained["values"])
    assert values.shape == (1, 10, 5)
    expected = evaluator.aggregator.coef_ * (data.x[rows] - data.x[data.train].mean(axis=0))
    np.testing.assert_allclose(values[0], expected, atol=1e-6)
    assert np.abs(values[0]).mean(axis=0).argmax() == FEATURES.index(STRONGEST)
    assert len(shap_explanation(data, evaluator, seed=2, samples=500)["rows"]) == 64  # every output


def test_run_experiments_reads_at_the_evaluators_level(per_sample: Path, by_document: Path) -> None:
    sample = run_experiments(per_sample, ["ablations"])
    summary = run_experiments(by_document, ["ablations"])
    assert (sample["level"], summary["level"]) == ("sample", "summary")
    assert sample["aggregator"] == summary["aggregator"] == "lr"
    assert set(sample) == {"aggregator", "level", "ablations"}
    data = load_data(per_sample, load_evaluator(per_sample))
    assert sample["ablations"]["full"]["pearson"] == pytest.approx(held_out_pearson(data, list(range(5))))
    grouped = load_data(by_document, load_evaluator(by_document))
    assert summary["ablations"]["full"]["pearson"] == pytest.approx(
        held_out_pearson(grouped, list(range(5)), grouped.groups)
    )
    assert summary["ablations"]["full"]["pearson"] != pytest.approx(sample["ablations"]["full"]["pearson"])


def test_run_experiments_reports_progress_and_refuses_unknown_names(per_sample: Path) -> None:
    seen: list[str] = []
    out = run_experiments(per_sample, ["criteria", "ablations"], progress=seen.append)
    assert seen == ["criteria", "ablations"]
    assert out["criteria"][0]["criteria"] == 1
    with pytest.raises(FacetevalError, match="unknown experiment 'tables'; choose from ablations"):
        run_experiments(per_sample, ["tables"])


def test_without_summary_json_criteria_are_added_in_column_order(
    tmp_path: Path, trained: Trained, data: Data
) -> None:
    out = write(tmp_path / "evaluator", trained, level="sample")
    (out / SUMMARY).unlink()
    result = run_experiments(out, ["criteria"])
    assert result["criteria"] == criteria_efficiency(data, "lr", FEATURES)
    assert result["criteria"][0]["pearson"]["mean"] < 0.5  # layer 1 alone: noise


def test_an_aggregator_of_another_evaluator_is_refused_by_name(per_sample: Path, tmp_path: Path) -> None:
    import json
    import shutil

    from faceteval.errors import FacetevalError

    mixed = Path(shutil.copytree(per_sample, tmp_path / "mixed"))
    record = json.loads((mixed / "evaluator.json").read_text())
    summary = record["summary"]  # schema 2: the evaluator's fields are its record's summary
    summary["features"], summary["background"] = summary["features"][:-1], summary["background"][:-1]
    (mixed / "evaluator.json").write_text(json.dumps(record))
    with pytest.raises(
        FacetevalError, match=r"aggregator\.skops takes \d+ criterion scores, but evaluator\.json"
    ):
        load_evaluator(mixed)
