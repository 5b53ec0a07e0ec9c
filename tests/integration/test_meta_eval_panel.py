"""A panel of recorded LLMBar judges on LLMBar-Adversarial, checked against the raw recorded files."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import krippendorff
import numpy as np
import pytest
from click.testing import CliRunner

from faceteval import meta_evaluate
from faceteval._cli._app import cli
from faceteval._runner import MetaEvalOptions

JUDGES = ("GPT-4", "ChatGPT", "LLaMA2")
STRATEGY = "CoT"  # ChatGPT's and LLaMA-2's hold unreadable replies (null winners): failures count
SUBSETS = ("GPTInst", "GPTOut", "Manual", "Neighbor")


@pytest.fixture(scope="module")
def data_dir() -> Path:
    value = os.environ.get("FACETEVAL_DATA_DIR")
    assert value, "FACETEVAL_DATA_DIR must name the benchmark data directory (make test sets it)"
    return Path(value)


def raw_verdicts(data_dir: Path, judge: str) -> tuple[np.ndarray, np.ndarray]:
    """Labels and one judge's verdicts straight from LLMBar's files: both orders' winners of the last
    step; the same winner is the verdict, different ones a tie (0), a null winner no verdict (nan)."""
    labels, verdicts = [], []
    for subset in SUBSETS:
        folder = data_dir / "llmbar" / "LLMBar" / "Adversarial" / subset
        dataset = json.loads((folder / "dataset.json").read_text())
        results = json.loads((folder / "evaluators" / judge / STRATEGY / "result.json").read_text())
        for item, result in zip(dataset, results, strict=True):
            last = result["results"][-1]
            first, second = last["swap = False"]["winner"], last["swap = True"]["winner"]
            labels.append(item["label"])
            if first is None or second is None:
                verdicts.append(np.nan)
            else:
                verdicts.append(float(first) if first == second else 0.0)
    return np.array(labels, dtype=float), np.array(verdicts)


def numpy_majority(table: np.ndarray) -> np.ndarray:
    """Per item: nan if a judge has no verdict; else the verdict with the most votes, 0 if shared."""
    out = np.full(table.shape[1], np.nan)
    for k, column in enumerate(table.T):
        if np.isnan(column).any():
            continue
        values, counts = np.unique(column, return_counts=True)
        top = counts == counts.max()
        out[k] = values[top][0] if top.sum() == 1 else 0.0
    return out


def summary_of(out: Path) -> dict[str, Any]:
    return dict(json.loads((out / "summary.json").read_text())["summary"])


def test_a_recorded_panel_against_an_independent_computation(data_dir: Path, tmp_path: Path) -> None:
    spec = ",".join(f"recorded:llmbar/{judge}/{STRATEGY}" for judge in JUDGES)
    out = tmp_path / "panel"
    args = ["meta-eval", "llmbar-adversarial", "--judgments", spec, "--panel-vote", "majority"]
    result = CliRunner().invoke(
        cli, [*args, "--out", str(out), "--resamples", "0", "--data-dir", str(data_dir)], terminal_width=200
    )
    assert result.exit_code == 0, result.output
    summary = summary_of(out)

    columns = [raw_verdicts(data_dir, judge) for judge in JUDGES]
    labels = columns[0][0]
    table = np.vstack([verdicts for _, verdicts in columns])
    assert table.shape == (3, 319)
    assert np.isnan(table).sum() == 8  # the null winners are real: 4 of ChatGPT's, 4 of LLaMA-2's

    panel = summary["panel"]
    assert panel["vote"] == "majority"
    for member, row in zip(panel["judges"], table, strict=True):
        assert member["agreement"]["hits"] == int((row == labels).sum())
        assert member["agreement"]["missing"] == int(np.isnan(row).sum())
        assert member["agreement"]["value"] == pytest.approx((row == labels).mean())

    majority = numpy_majority(table)
    assert summary["agreement"]["hits"] == int((majority == labels).sum())
    assert summary["agreement"]["n"] == 319
    assert summary["status"]["parse_error"] == int(np.isnan(majority).sum())

    expected_alpha = krippendorff.alpha(reliability_data=table, level_of_measurement="nominal")
    assert panel["alpha"]["value"] == pytest.approx(expected_alpha)
    assert panel["alpha"]["n"] == int(((~np.isnan(table)).sum(axis=0) >= 2).sum())
    complete = table[:, ~np.isnan(table).any(axis=0)]
    assert panel["unanimous"]["hits"] == int((complete == complete[0]).all(axis=0).sum())

    # each judgment keeps every judge's own verdict beside the panel's
    judgments = [json.loads(line) for line in (out / "judgments.jsonl").read_text().splitlines()]
    assert {len(j["panel"]) for j in judgments} == {3}
    assert "panel members (combined by majority)" in result.output
    assert "Krippendorff's alpha (nominal, verdicts)" in result.output
    report = (out / "report.md").read_text()
    assert "## Judge panel" in report
    assert f"| recorded:llmbar/GPT-4/{STRATEGY} | {100 * (table[0] == labels).mean():.1f}% |" in report
    assert f"Krippendorff's α (nominal, on verdicts) {expected_alpha:.3f}" in report


def test_the_panel_beside_its_members_run_alone(data_dir: Path, tmp_path: Path) -> None:
    """Each member's agreement in the panel's report is what measuring that judge alone gives."""
    spec = ",".join(f"recorded:llmbar/{judge}/{STRATEGY}" for judge in JUDGES[:2])
    options = MetaEvalOptions(resamples=0, report=False, panel_vote="mean")
    summary = meta_evaluate(
        "llmbar-adversarial", judgments=spec, out=tmp_path / "p", options=options, data_dir=data_dir
    )
    assert summary.panel is not None and summary.panel["vote"] == "mean"  # type: ignore[index,call-overload]
    for member in summary.panel["judges"]:  # type: ignore[index,call-overload]
        alone = meta_evaluate(
            "llmbar-adversarial",
            judgments=member["judge"],
            out=tmp_path / member["judge"].replace("/", "_").replace(":", "_"),
            options=MetaEvalOptions(resamples=0, report=False),
            data_dir=data_dir,
        )
        assert alone.agreement == member["agreement"]  # type: ignore[index]
        assert alone.panel is None
