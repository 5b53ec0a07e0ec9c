"""A judge panel on pointwise (rating) benchmarks: each judge's correlations beside the panel's, and the
judges' agreement on their scores (Krippendorff's alpha, interval), checked against an independent
computation over the raw files (recorded panels) and over the scores the judges gave (a live panel)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import krippendorff
import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats

from faceteval import meta_evaluate
from faceteval._cli._app import cli
from faceteval._runner import MetaEvalOptions
from tests.support.llm_server import LLMServer
from tests.support.rule_judge import RuleJudge

RUNS = ("gpt-4-run1", "gpt-4-run2", "gpt-4-run3")


@pytest.fixture(scope="module")
def data_dir() -> Path:
    value = os.environ.get("FACETEVAL_DATA_DIR")
    assert value, "FACETEVAL_DATA_DIR must name the benchmark data directory (make test sets it)"
    return Path(value)


def raw_runs(data_dir: Path) -> np.ndarray:
    """GPT-4's three recorded 1-5 scores of each MT-Bench output, straight from Prometheus' file."""
    records = json.loads((data_dir / "prometheus" / "mt_bench_eval.json").read_text())
    return np.array([record["gpt4_score"] for record in records], dtype=float).T


def summary_of(out: Path) -> dict[str, Any]:
    return dict(json.loads((out / "summary.json").read_text())["summary"])


def sample_level(judge: np.ndarray, reference: np.ndarray) -> dict[str, float]:
    return {
        "pearson": stats.pearsonr(judge, reference).statistic,
        "spearman": stats.spearmanr(judge, reference).statistic,
        "kendall": stats.kendalltau(judge, reference).statistic,
    }


def values(levels: dict[str, Any]) -> dict[str, float]:
    return {method: entry["value"] for method, entry in levels["sample"].items()}


def test_a_recorded_panel_of_ratings_against_an_independent_computation(
    data_dir: Path, tmp_path: Path
) -> None:
    spec = ",".join(f"recorded:{run}" for run in RUNS)
    out = tmp_path / "panel"
    args = ["meta-eval", "prometheus-mtbench", "--judgments", spec, "--panel-vote", "median"]
    result = CliRunner().invoke(
        cli, [*args, "--out", str(out), "--resamples", "0", "--data-dir", str(data_dir)], terminal_width=200
    )
    assert result.exit_code == 0, result.output
    summary = summary_of(out)

    table = raw_runs(data_dir)
    assert table.shape == (3, 320)
    reference = table.mean(axis=0)  # the benchmark's reference: the mean of the three runs
    panel = summary["panel"]
    assert panel["vote"] == "median"
    assert [member["judge"] for member in panel["judges"]] == [f"recorded:{run}" for run in RUNS]
    for member, row in zip(panel["judges"], table, strict=True):
        assert set(member["correlations"]) == {"score"}
        assert values(member["correlations"]["score"]) == pytest.approx(sample_level(row, reference))
        assert member["correlations"]["score"]["sample"]["spearman"]["n"] == 320
    median = np.median(table, axis=0)
    assert values(summary["correlations"]["score"]) == pytest.approx(sample_level(median, reference))

    expected_alpha = krippendorff.alpha(reliability_data=table, level_of_measurement="interval")
    assert panel["alpha"] == {
        "score": {"value": pytest.approx(expected_alpha), "level": "interval", "of": "scores", "n": 320}
    }
    assert expected_alpha != pytest.approx(
        krippendorff.alpha(reliability_data=table, level_of_measurement="nominal")
    )  # the level matters here: interval, not the verdicts' nominal

    assert "panel members (combined by median)" in result.output
    assert f"Krippendorff's alpha (interval, scores) score {expected_alpha:.3f} over 320" in result.output
    report = (out / "report.md").read_text()
    assert "## Judge panel" in report
    pearson = sample_level(table[0], reference)["pearson"]
    assert f"| score | sample | recorded:gpt-4-run1 | 320 | {pearson:.3f} |" in report
    assert (
        f"| score | sample | panel (median) | 320 | {sample_level(median, reference)['pearson']:.3f} |"
        in report
    )
    assert f"Krippendorff's α (interval, on scores): score {expected_alpha:.3f} over 320 instances" in report


def test_each_rating_judge_of_a_panel_as_measured_alone(data_dir: Path, tmp_path: Path) -> None:
    """Every level and CI of a member's correlations is what measuring that judge alone gives."""
    spec = ",".join(f"recorded:{run}" for run in RUNS[:2])
    options = MetaEvalOptions(resamples=20, report=False, panel_vote="mean")
    summary = meta_evaluate(
        "prometheus-mtbench", judgments=spec, out=tmp_path / "p", options=options, data_dir=data_dir
    )
    panel: dict[str, Any] = summary.model_dump()["panel"]
    assert panel["vote"] == "mean"
    for member in panel["judges"]:
        alone = meta_evaluate(
            "prometheus-mtbench",
            judgments=member["judge"],
            out=tmp_path / member["judge"].replace(":", "_"),
            options=MetaEvalOptions(resamples=20, report=False),
            data_dir=data_dir,
        )
        assert set(member["correlations"]["score"]) == {"sample", "summary", "system"}
        assert alone.correlations == member["correlations"]
        assert alone.panel is None


# -- a live panel of two models ------------------------------------------------------------------------

HUMAN = {"s1": 1, "s2": 2, "s3": 3, "s4": 4, "s5": 5, "s6": 3}
QUALITY_A = {f"summary {k}": score + (1 if k in ("s2", "s5") else 0) for k, score in HUMAN.items()}
QUALITY_B = {f"summary {k}": score for k, score in zip(HUMAN, (4, 2, 5, 3, 6, 1), strict=True)}


@pytest.fixture
def server() -> Iterator[LLMServer]:
    judges = {"judge-a": RuleJudge(quality=QUALITY_A), "judge-b": RuleJudge(quality=QUALITY_B)}
    with LLMServer(lambda body: judges[body["model"]].respond(body["messages"])) as running:
        yield running


def test_a_live_panel_of_two_models_on_rated_outputs(tmp_path: Path, server: LLMServer) -> None:
    scores = tmp_path / "scores.jsonl"
    rows = [
        {"id": k, "query": "Summarise the text.", "candidates": [f"summary {k}"], "scores": {"quality": v}}
        for k, v in HUMAN.items()
    ]
    scores.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    out = tmp_path / "run"
    args = ["meta-eval", str(scores), "--method", "direct", "--panel", "openai:judge-a,openai:judge-b"]
    result = CliRunner().invoke(
        cli,
        [*args, "--panel-vote", "mean", "--base-url", server.base_url, "--out", str(out), "--resamples", "0"],
        catch_exceptions=False,
        terminal_width=200,
    )
    assert result.exit_code == 0, result.output
    summary = summary_of(out)

    human = np.array(list(HUMAN.values()), dtype=float)
    given = np.array([[QUALITY_A[f"summary {k}"] for k in HUMAN], [QUALITY_B[f"summary {k}"] for k in HUMAN]])
    given = np.clip(given, 1, 10)  # what the judges reply (scores on 1-10)
    judgments = [json.loads(line) for line in (out / "judgments.jsonl").read_text().splitlines()]
    assert [[m["scores"][0] for m in j["panel"]] for j in judgments] == given.T.tolist()

    panel = summary["panel"]
    assert [member["judge"] for member in panel["judges"]] == ["openai:judge-a", "openai:judge-b"]
    for member, row in zip(panel["judges"], given, strict=True):
        assert values(member["correlations"]["quality"]) == pytest.approx(sample_level(row, human))
    assert values(summary["correlations"]["quality"]) == pytest.approx(
        sample_level(given.mean(axis=0), human)
    )
    expected_alpha = krippendorff.alpha(reliability_data=given, level_of_measurement="interval")
    assert panel["alpha"]["quality"]["value"] == pytest.approx(expected_alpha)
    assert panel["alpha"]["quality"]["n"] == 6
    assert "panel members (combined by mean)" in result.output
