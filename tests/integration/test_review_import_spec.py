"""The review app's import reads a run as its method's spec describes it: which trace stages hold the
evaluations to draft, and the overall scale of a run whose record holds none."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import faceteval.methods._registry as registry
from faceteval._cli._app import cli
from faceteval.methods import EvaluationStages, MethodSpec, register_method
from faceteval.methods.coeval import CoEval
from faceteval.review import OVERALL, ReviewStore
from faceteval.store.internal import record_path_for
from tests.integration.test_coeval_http import inputs, responder
from tests.support.llm_server import LLMServer


def run(*args: str | Path) -> None:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, result.output


def tenfold(params: Mapping[str, Any], facets: Sequence[int]) -> tuple[float, float]:
    return 0.0, 10.0 * max(facets)


@pytest.fixture
def judged(tmp_path: Path) -> Path:
    """A coeval run, rewritten as the run of a method named ``panel`` whose stages are its own."""
    outputs, criteria = inputs(tmp_path)
    judged = tmp_path / "j.jsonl"
    with LLMServer(responder) as server:
        run(
            "judge", outputs, "--method", "coeval", "--criteria", criteria, "--model", "openai:judge",
            "--base-url", server.base_url, "--no-cache", "--out", judged, "-q",
        )  # fmt: skip
    text = judged.read_text(encoding="utf-8").replace('"coeval.', '"panel.').replace('"coeval"', '"panel"')
    judged.write_text(text, encoding="utf-8")
    record = json.loads(record_path_for(judged).read_text(encoding="utf-8"))
    record["method"]["name"] = "panel"
    del record["method"]["params"]["scale"]
    record_path_for(judged).write_text(json.dumps(record), encoding="utf-8")
    return judged


def test_a_registered_methods_stages_and_scale_are_read_from_its_spec(
    tmp_path: Path, judged: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run("review", "import", tmp_path / "unknown", judged, "--task", "rain")
    unknown = ReviewStore.open(tmp_path / "unknown", create=False)
    assert {d.conclusion for d in unknown.drafts() if d.criterion != OVERALL} == {""}  # no spec: no stages

    monkeypatch.setattr(registry, "_SPECS", dict(registry._SPECS))
    register_method(
        MethodSpec(
            name="panel",
            factory=CoEval,
            summary="CoEval under another name, whose stages are panel.*",
            scale=(1, 5),
            evaluations=EvaluationStages(criterion="panel.criterion", overall="panel.overall"),
            overall_scale=tenfold,
        )
    )
    run("review", "import", tmp_path / "known", judged, "--task", "rain")
    known = ReviewStore.open(tmp_path / "known", create=False)
    drafts = {(d.item_id, d.criterion): d for d in known.drafts()}
    assert drafts[("good", "Length")].conclusion == "The output is judged on Length."
    assert drafts[("good", OVERALL)].conclusion == "Weighing both criteria above."
    assert {d.conclusion for d in unknown.drafts() if d.item_id == "good"} == {""}
    assert known.task_scale("rain") == (0.0, 20.0)  # the spec's overall scale: two criteria
