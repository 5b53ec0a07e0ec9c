"""`facet_scorer` in a real ``inspect eval``: the tasks of `tests.support.inspect_tasks` are run by Inspect's
own command against the local OpenAI-compatible server (Inspect's ``openai-api`` provider), and their logs,
read back with `inspect_ai.log.read_eval_log`, hold our scores, facets and unscored samples."""

from __future__ import annotations

import gc
import json
import math
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.support import example_judge, inspect_answers
from tests.support.inspect_answers import ANSWERS, BASELINES, QUESTIONS, REFUSED, TARGETS, UNREAD_REPLY
from tests.support.llm_server import LLMServer
from tests.support.markdown import ROOT
from tests.support.processes import SRC

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog, EvalSample
    from inspect_ai.scorer import Score


def read_log(path: Path) -> EvalLog:
    """An Inspect log file, read by Inspect AI (imported when a test reads one)."""
    from inspect_ai.log import read_eval_log

    return read_eval_log(path)


TASKS = "tests/support/inspect_tasks.py"
"""The task file, relative to the checkout (where the command runs: Inspect takes no absolute path)."""
MODEL = "openai-api/local/judge"
"""Inspect's provider for any OpenAI-compatible server: its key and URL come from LOCAL_API_KEY and
LOCAL_BASE_URL."""
GRADER = "openai-api/grader/judge-b"
"""The model bound to the ``grader`` role in the tasks' run: the same server, under another name."""
ASPECTS = ("Does the output follow the instruction?", "Is the output correct?", "Is the output concise?")


def inspect_command() -> str:
    """The ``inspect`` command of the Python running the tests."""
    found = shutil.which("inspect", path=str(Path(sys.executable).parent))
    if found is None:
        pytest.fail(f"no inspect command beside {sys.executable}: install the inspect extra")
    return found


def run_eval(server: LLMServer, log_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), str(ROOT)]),
        "LOCAL_API_KEY": "test",
        "LOCAL_BASE_URL": server.base_url,
        "GRADER_API_KEY": "test",
        "GRADER_BASE_URL": server.base_url,
        "INSPECT_CACHE_DIR": str(log_dir / "cache"),
        "XDG_DATA_HOME": str(log_dir / "data"),
    }
    command = [inspect_command(), "eval", *args, "--model", MODEL, "--log-dir", str(log_dir / "logs")]
    command += ["--display", "none", "--log-format", "json"]
    return subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False
    )


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict[str, EvalLog], LLMServer]]:
    """The three tasks run by one ``inspect eval`` (every task of the file), their logs by task name; the
    judge is the model bound to the ``grader`` role."""
    log_dir = tmp_path_factory.mktemp("inspect")
    with LLMServer(inspect_answers.respond) as server:
        done = run_eval(server, log_dir, TASKS, "--model-role", f"grader={GRADER}")
        assert done.returncode == 0, done.stdout + done.stderr
        read = [read_log(path) for path in sorted((log_dir / "logs").glob("*.json"))]
        yield {log.eval.task: log for log in read}, server


def score_of(log: EvalLog, sample_id: str) -> Score:
    assert log.samples is not None
    (sample,) = [s for s in log.samples if s.id == sample_id]
    assert sample.scores is not None
    return sample.scores["facet_scorer"]


def sample_of(log: EvalLog, sample_id: str) -> EvalSample:
    assert log.samples is not None
    (sample,) = [s for s in log.samples if s.id == sample_id]
    return sample


def test_every_task_ran_and_its_metrics_leave_out_the_unscored_samples(
    logs: tuple[dict[str, EvalLog], LLMServer],
) -> None:
    by_task, _ = logs
    assert set(by_task) == {"pointwise", "against_baseline", "against_target"}
    expected = {"pointwise": (8 / 9 + 5 / 9) / 2, "against_baseline": 0.75, "against_target": 0.25}
    for name, log in by_task.items():
        assert log.status == "success", name
        assert log.results is not None
        (scores,) = log.results.scores
        assert (scores.scorer, scores.scored_samples, scores.unscored_samples) == ("facet_scorer", 2, 2)
        assert scores.metrics["mean"].value == pytest.approx(expected[name]), name
        assert "stderr" in scores.metrics


def test_a_pointwise_score_is_the_overall_score_as_a_share_of_its_scale_with_the_facets_in_the_metadata(
    logs: tuple[dict[str, EvalLog], LLMServer],
) -> None:
    log = logs[0]["pointwise"]
    capital = score_of(log, "capital")
    assert capital.value == pytest.approx(8 / 9) and capital.answer == ANSWERS[QUESTIONS["capital"]]
    metadata = capital.metadata
    assert metadata is not None
    assert metadata["scale"] == [1.0, 10.0]  # (9 - 1) / (10 - 1): the raw score is in "scores"
    assert metadata["method"] == {
        "name": "dna",
        "params": {"aspects": 3, "criteria": None, "aggregate": "weighted", "scale": [1.0, 10.0]},
    }
    assert (metadata["status"], metadata["against"], metadata["scores"]) == ("ok", None, [9.0])
    assert [f["name"] for f in metadata["facets"]] == list(ASPECTS)
    assert [f["scores"] for f in metadata["facets"]] == [[9.0]] * 3
    assert all(f["explanation"].startswith("Scored by rule") for f in metadata["facets"])
    assert metadata["weights"] == dict(zip(ASPECTS, (0.5, 0.3, 0.2), strict=True))
    assert metadata["usage"]["calls"] == 5  # aspects, weights, a score per aspect
    assert capital.explanation is not None
    assert f"- {ASPECTS[0]} (output 9, weight 0.50): Scored by rule" in capital.explanation
    assert score_of(log, "prime").value == pytest.approx(5 / 9)


def test_the_judge_calls_go_through_inspects_model_api_to_the_grader(
    logs: tuple[dict[str, EvalLog], LLMServer],
) -> None:
    by_task, server = logs
    capital = sample_of(by_task["pointwise"], "capital")
    model_events = [e for e in capital.events if e.event == "model"]
    # the answer, then the judge's five calls, in the sample's transcript
    assert [e.model for e in model_events] == [MODEL] + [GRADER] * 5
    usage = by_task["pointwise"].stats.model_usage
    assert usage[MODEL].output_tokens > 0 and usage[GRADER].input_tokens > usage[MODEL].input_tokens
    answered = {r.body["model"] for r in server.requests if r.body["messages"][-1]["content"] in ANSWERS}
    judged = {r.body["model"] for r in server.requests if r.body["messages"][-1]["content"] not in ANSWERS}
    assert (answered, judged) == ({"judge"}, {"judge-b"})
    prompts = [str(r.body["messages"][-1]["content"]) for r in server.requests]
    referenced = [p for p in prompts if "[The Start of Reference Answer]" in p]
    capital_scored = [p for p in referenced if ANSWERS[QUESTIONS["capital"]] in p]
    assert len(capital_scored) == 3 and all(TARGETS["capital"] in p for p in capital_scored)


def test_a_reply_that_cannot_be_read_leaves_its_sample_unscored_with_the_raw_reply(
    logs: tuple[dict[str, EvalLog], LLMServer],
) -> None:
    for name, log in logs[0].items():
        boil = score_of(log, "boil")
        assert isinstance(boil.value, float) and math.isnan(boil.value), name
        assert boil.reason == "grader_failed" and boil.answer == ANSWERS[QUESTIONS["boil"]]
        assert boil.explanation is not None and "dna.score: the reply contains no scores" in boil.explanation
        metadata = boil.metadata
        assert metadata is not None
        assert metadata["status"] == "parse_error" and metadata["scores"] is None
        assert metadata["replies"] and all(r["raw"] == UNREAD_REPLY for r in metadata["replies"])
        assert all(r["problem"] == "the reply contains no scores" for r in metadata["replies"])


def test_a_judge_call_that_fails_leaves_its_sample_unscored_with_the_error(
    logs: tuple[dict[str, EvalLog], LLMServer],
) -> None:
    for name, log in logs[0].items():
        translate = score_of(log, "translate")
        assert isinstance(translate.value, float) and math.isnan(translate.value), name
        assert translate.reason == "grader_failed" and translate.answer == REFUSED
        assert translate.explanation is not None and "HTTP 400" in translate.explanation
        metadata = translate.metadata
        assert metadata is not None and metadata["status"] == "error"
        assert metadata["replies"] and "HTTP 400" in metadata["replies"][0]["error"]
        assert sample_of(log, "translate").error is None  # scored as unscored, not an errored sample


def test_against_the_baseline_a_win_scores_1_and_a_tie_one_half(
    logs: tuple[dict[str, EvalLog], LLMServer],
) -> None:
    log = logs[0]["against_baseline"]
    capital, prime = score_of(log, "capital"), score_of(log, "prime")
    assert (capital.value, prime.value) == (1.0, 0.5)
    assert capital.metadata is not None and prime.metadata is not None
    assert capital.metadata["verdict"] == "win" and prime.metadata["verdict"] == "tie"
    assert capital.metadata["scores"] == [9.0, 2.0] and capital.metadata["margin"] == 7.0
    assert capital.metadata["consistent"] is True and capital.metadata["against"] == "baseline"
    orders = capital.metadata["orders"]
    assert [o["order"] for o in orders] == [[1, 2], [2, 1]] and all(o["verdict"] == 1 for o in orders)
    assert [f["scores"] for f in orders[1]["facets"]] == [[9.0, 2.0]] * 3  # in the original order
    assert capital.explanation is not None
    assert capital.explanation.startswith("The output against the baseline: win (orders agree).")
    assert f"- {ASPECTS[1]} (output 9, baseline 2, weight 0.30)" in capital.explanation
    baseline_seen = [r for r in logs[1].requests if BASELINES["capital"] in json.dumps(r.body)]
    assert baseline_seen


def test_against_the_target_a_loss_scores_0(logs: tuple[dict[str, EvalLog], LLMServer]) -> None:
    log = logs[0]["against_target"]
    capital, prime = score_of(log, "capital"), score_of(log, "prime")
    assert (capital.value, prime.value) == (0.0, 0.5)
    assert capital.metadata is not None
    assert capital.metadata["verdict"] == "loss" and capital.metadata["scores"] == [9.0, 10.0]
    assert capital.metadata["method"]["params"]["aspects"] == 2
    assert capital.metadata["weights"] == {ASPECTS[0]: 0.625, ASPECTS[1]: 0.375}


EXAMPLE = ROOT / "examples" / "inspect_task.py"
EXAMPLE_MODEL = "openai-api/local/Qwen/Qwen2.5-7B-Instruct"


@pytest.fixture(scope="module")
def example_server() -> Iterator[LLMServer]:
    with LLMServer(example_judge.respond) as running:
        yield running


def test_the_example_runs_its_eval_and_prints_each_score_and_its_facets(
    example_server: LLMServer, tmp_path: Path
) -> None:
    env = {**os.environ, "PYTHONPATH": str(SRC), "INSPECT_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), example_server.base_url, EXAMPLE_MODEL],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "facet_scorer: mean 1.000, stderr 0.000 (8 scored, 0 unscored)", done.stdout
    assert sum(line.endswith(": 1.0 (win)") for line in lines) == 8
    assert sum("Is the output correct?" in line for line in lines) == 8
    (log,) = [read_log(path) for path in (tmp_path / "logs").iterdir()]
    assert log.eval.task == "answers_against_recorded" and log.status == "success"


def test_the_example_task_runs_in_inspect_eval_scoring_each_answer_alone(
    example_server: LLMServer, tmp_path: Path
) -> None:
    done = run_eval(example_server, tmp_path, "examples/inspect_task.py", "-T", "against=none")
    assert done.returncode == 0, done.stdout + done.stderr
    (log,) = [read_log(path) for path in (tmp_path / "logs").glob("*.json")]
    assert log.results is not None and log.samples is not None
    assert log.results.scores[0].scored_samples == 8
    for each in log.samples:
        score = (each.scores or {})["facet_scorer"]
        assert score.metadata is not None and len(score.metadata["facets"]) == 3
        (overall,) = score.metadata["scores"]
        assert 1 <= overall <= 10 and score.value == pytest.approx((overall - 1) / 9)


@pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning")
@pytest.mark.filterwarnings(
    "ignore:Exception ignored in. <function MemoryObjectReceiveStream.__del__:"
    "pytest.PytestUnraisableExceptionWarning"
)
def test_two_faceteval_scorers_of_one_task_keep_their_names_in_the_log(tmp_path: Path) -> None:
    """A real ``inspect_ai.eval`` of a task scored twice: each scorer's results and scores under its name.

    Inspect's own: a deprecation warning, and the streams an ``inspect_ai.eval`` in a process leaves
    unclosed (with Inspect's ``match()`` scorer too), collected here so that they are this test's."""
    import inspect_ai
    from inspect_ai import Task
    from inspect_ai.dataset import Sample
    from inspect_ai.model import get_model
    from inspect_ai.solver import generate

    from faceteval.integrations.inspect import facet_scorer

    samples = [Sample(id=key, input=QUESTIONS[key], target=TARGETS[key]) for key in ("capital", "prime")]
    scorers = [
        facet_scorer("dna", name="dna_alone", aspects=2),
        facet_scorer("direct", name="direct_vs_target", against="target"),
    ]
    with LLMServer(inspect_answers.respond) as server:
        model = get_model("openai-api/local/judge", base_url=server.base_url, api_key="test")
        task = Task(dataset=samples, solver=generate(), scorer=scorers)
        (log,) = inspect_ai.eval(task, model=model, log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    assert log.results is not None and log.samples is not None
    results = {s.name: (s.scorer, s.scored_samples, s.metrics["mean"].value) for s in log.results.scores}
    assert results == {
        "dna_alone": ("dna_alone", 2, pytest.approx((8 / 9 + 5 / 9) / 2)),
        "direct_vs_target": ("direct_vs_target", 2, 0.25),  # a loss to "Canberra.", a tie
    }
    for each in log.samples:
        assert set(each.scores or {}) == {"dna_alone", "direct_vs_target"}
    capital = sample_of(log, "capital").scores or {}
    assert (capital["dna_alone"].metadata or {})["method"]["name"] == "dna"
    assert capital["direct_vs_target"].value == 0.0
    gc.collect()
