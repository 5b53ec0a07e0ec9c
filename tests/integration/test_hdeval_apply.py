"""`faceteval hdeval apply` scores with the model its evaluator learned from, over a local server."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from faceteval._cli._app import cli
from tests.integration.test_hdeval_train import outputs, responder, write
from tests.support.hdeval_judge import train_evaluator
from tests.support.llm_server import LLMServer


@pytest.fixture(scope="module")
def server() -> Iterator[LLMServer]:
    with LLMServer(responder) as server:
        yield server


@pytest.fixture(scope="module")
def trained(server: LLMServer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An evaluator whose criteria `openai:judge` scored (one layer: no decomposition)."""
    return train_evaluator(tmp_path_factory.mktemp("hdeval-apply"), server.base_url)


def invoke(*args: str | Path, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args], terminal_width=200, env=env)


def apply(server: LLMServer, evaluator: Path, tmp_path: Path, *flags: str, **env: str) -> Result:
    fresh = write(tmp_path / "fresh.jsonl", outputs(4, "b"))
    engine = ["--base-url", server.base_url, "--no-cache", "-q", *flags]
    return invoke("hdeval", "apply", evaluator, fresh, "--out", tmp_path / "scored.jsonl", *engine, env=env)


def models_asked(server: LLMServer) -> set[str]:
    return {request.body["model"] for request in server.requests}


def test_the_evaluator_records_the_model_that_scored_its_criteria(trained: Path) -> None:
    record = json.loads((trained / "evaluator.json").read_text())["summary"]  # schema 2: the record's summary
    assert (record["model"], record["source"]) == ("openai:judge", "openai:judge")


def test_apply_scores_with_the_evaluators_own_model_when_none_is_given(
    server: LLMServer, trained: Path, tmp_path: Path
) -> None:
    server.reset()
    result = apply(server, trained, tmp_path)

    assert result.exit_code == 0, result.output
    assert models_asked(server) == {"judge"}
    rows = [json.loads(line) for line in (tmp_path / "scored.jsonl").read_text().splitlines()]
    assert [row["status"] for row in rows] == ["ok"] * 4


@pytest.mark.parametrize(
    ("how", "named"),
    [
        ("flag", "--model openai:other"),
        ("env", "FACETEVAL_MODEL=openai:other"),
        ("toml", "faceteval.toml's model openai:other"),
    ],
)
def test_apply_refuses_another_model_naming_both(
    server: LLMServer, trained: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str, named: str
) -> None:
    flags = ["--model", "openai:other"] if how == "flag" else []
    env = {"FACETEVAL_MODEL": "openai:other"} if how == "env" else {}
    if how == "toml":
        (tmp_path / "faceteval.toml").write_text('[hdeval.apply]\nmodel = "openai:other"\n')
        monkeypatch.chdir(tmp_path)
    server.reset()
    result = apply(server, trained, tmp_path, *flags, **env)

    assert result.exit_code == 2, result.output
    message = " ".join(result.output.split())
    assert f"{named} is not the evaluator's judge model openai:judge" in message
    assert "Leave --model out to use openai:judge, or give --force to score with openai:other" in message
    assert server.requests == []
    assert not (tmp_path / "scored.jsonl").exists()


def test_force_scores_with_another_model_and_says_so(
    server: LLMServer, trained: Path, tmp_path: Path
) -> None:
    server.reset()
    result = apply(server, trained, tmp_path, "--model", "openai:other", "--force")

    assert result.exit_code == 0, result.output
    assert models_asked(server) == {"other"}
    assert "Scoring the criteria with openai:other, not the evaluator's openai:judge" in result.output


def test_an_evaluator_of_recorded_scores_needs_a_model(
    server: LLMServer, trained: Path, tmp_path: Path
) -> None:
    recorded = shutil.copytree(trained, tmp_path / "recorded")
    record = json.loads((recorded / "evaluator.json").read_text())
    record["summary"] |= {"model": None, "source": "chatgpt (recorded criterion scores)"}  # schema 2
    (recorded / "evaluator.json").write_text(json.dumps(record))
    server.reset()

    refused = apply(server, recorded, tmp_path)
    assert refused.exit_code == 2
    assert "the evaluator learned from recorded criterion scores, so it has no model of its own" in (
        " ".join(refused.output.split())
    )
    accepted = apply(server, recorded, tmp_path, "--model", "openai:other")
    assert accepted.exit_code == 0, accepted.output
    assert models_asked(server) == {"other"}
    assert "not the evaluator's" not in accepted.output


def test_one_output_scored_is_said_so(server: LLMServer, trained: Path, tmp_path: Path) -> None:
    one = write(tmp_path / "one.jsonl", outputs(1, "c"))
    result = invoke("hdeval", "apply", trained, one, "--out", tmp_path / "one-scored.jsonl", "--base-url",
                    server.base_url, "--no-cache", "-q")  # fmt: skip

    assert result.exit_code == 0, result.output
    assert "1 of 1 output scored" in result.output
