"""The report of a trained evaluator says which importance it shows."""

from __future__ import annotations

from pathlib import Path

import pytest

from faceteval.workflows.hdeval._evaluator import save_evaluator
from faceteval.workflows.hdeval._report import write_evaluator_report
from faceteval.workflows.hdeval._results import evaluator_info, evaluator_summary
from faceteval.workflows.hdeval._train import TrainConfig, train
from tests.support import hdeval_synthetic as synthetic


@pytest.mark.parametrize(
    ("method", "named", "not_named"),
    [
        ("permutation", "Permutation importance", "SHAP"),
        ("shap", "Mean absolute SHAP value", "Permutation"),
    ],
)
def test_the_criteria_table_names_the_importance_the_evaluator_was_trained_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, method: str, named: str, not_named: str
) -> None:
    instances = synthetic.instances(32)
    config = TrainConfig(
        targets=("coherence", "fluency"), layers=1, aggregator="lr", importance="permutation"
    )
    trained = train(synthetic.tree(), instances, config, synthetic.Judge(ids=[i.id for i in instances]))
    options = {"benchmark": "synthetic", "origin": "rule judge"}
    summary = evaluator_summary(trained, **options, resamples=0)
    summary["config"]["importance"] = method  # as `train --importance shap` records it
    save_evaluator(tmp_path, trained, summary=summary, info=evaluator_info(trained, **options))
    labels: list[str] = []
    monkeypatch.setattr("matplotlib.axes.Axes.set_xlabel", lambda axes, text, **_: labels.append(text))

    markdown, _ = write_evaluator_report(tmp_path)

    section = markdown.read_text().split("## Criteria and their importance")[1]
    note = next(line for line in section.splitlines() if line.startswith("*"))
    assert note.startswith(f"*{named}") and not_named not in note
    assert labels and labels[0].startswith(named) and not_named not in labels[0]
