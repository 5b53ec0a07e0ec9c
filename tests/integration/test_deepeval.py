"""`faceteval.integrations.deepeval.FacetMetric` inside DeepEval itself: ``deepeval.evaluate`` and
``deepeval.assert_test`` run it against a local OpenAI-compatible server, and report our scores,
reasons, passes, failures and errors. DeepEval's pytest plugin is not loaded (``-p no:deepeval``);
the root conftest.py keeps DeepEval offline and its files out of the checkout, which the ``offline``
fixture and a test check.
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from faceteval.errors import ConfigError, MissingDependencyError, ParseError
from tests.support import example_judge
from tests.support.llm_server import LLMServer
from tests.support.processes import SRC
from tests.support.rule_judge import DEFAULT_ASPECTS, RuleJudge

ROOT = Path(__file__).resolve().parents[2]
QUALITY = {"good answer": 9, "fair answer": 6, "poor answer": 3}
UNREADABLE = "Answer in riddles."
"""A query the server answers with text no method can read."""
LOOPBACK = {"127.0.0.1", "::1", "localhost"}
LEAVES_CLIENTS_OPEN = pytest.mark.filterwarnings(
    r"ignore:Exception ignored in. <(socket\.socket|function _SelectorTransport):"
    "pytest.PytestUnraisableExceptionWarning"
)
"""DeepEval's OpenAIModel makes an OpenAI client for each call and never closes it: a user's process
ignores the ResourceWarnings of its sockets; a test collects them (`collect_clients`) and ignores them."""


def respond(body: Mapping[str, Any]) -> str:
    """The rule judge's reply, or one that cannot be read for the `UNREADABLE` query. A message's content
    may come as parts (``[{"type": "text", "text": ...}]``: DeepEval's OpenAIModel sends it so)."""
    messages = [{**message, "content": text_of(message["content"])} for message in body["messages"]]
    if any(UNREADABLE in message["content"] for message in messages):
        return "I would rather not say."
    return RuleJudge(quality=QUALITY, record=False).respond(messages)


def text_of(content: str | list[Mapping[str, Any]]) -> str:
    return content if isinstance(content, str) else "".join(part["text"] for part in content)


@pytest.fixture(scope="module")
def offline() -> Iterator[list[str]]:
    """Refuse (and list) every address asked for that is not this machine: DeepEval's telemetry
    (PostHog), Confident AI and update checks would show up here."""
    reached: list[str] = []
    real_getaddrinfo, real_connect = socket.getaddrinfo, socket.socket.connect

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if str(host) not in LOOPBACK:
            reached.append(str(host))
            raise OSError(f"test: {host} is off limits")
        return real_getaddrinfo(host, *args, **kwargs)

    def connect(self: socket.socket, address: Any) -> Any:
        if isinstance(address, tuple) and str(address[0]) not in LOOPBACK:
            reached.append(str(address[0]))
            raise OSError(f"test: {address[0]} is off limits")
        return real_connect(self, address)

    with pytest.MonkeyPatch.context() as patches:
        patches.setattr(socket, "getaddrinfo", getaddrinfo)
        patches.setattr(socket.socket, "connect", connect)
        yield reached
    assert reached == [], f"DeepEval or faceteval reached out to {reached}"


@pytest.fixture(scope="module")
def deepeval(offline: list[str]) -> ModuleType:
    """DeepEval, imported with the root conftest.py's settings: no telemetry, its folder not here."""
    module = importlib.import_module("deepeval")
    from deepeval import constants
    from deepeval.telemetry import NoopBackend, get_backend

    # Chosen once a process: what the last flush, at exit, sends through too.
    assert isinstance(get_backend(), NoopBackend), "DeepEval's telemetry is on: is conftest.py not loaded?"
    assert not Path(constants.HIDDEN_DIR).resolve().is_relative_to(ROOT), constants.HIDDEN_DIR
    return module


@pytest.fixture(scope="module")
def server() -> Iterator[LLMServer]:
    with LLMServer(respond) as running:
        yield running


@pytest.fixture(autouse=True)
def _close_deepevals_loop() -> Iterator[None]:
    """Close the event loop DeepEval makes the thread's own and leaves open (as a user's process
    ends with it), so that it is not left for the garbage collector in some later test."""
    yield
    try:
        loop = asyncio.get_event_loop_policy().get_event_loop()
    except RuntimeError:  # none is set (after asyncio.set_event_loop(None))
        return
    if not loop.is_running():
        loop.close()
        asyncio.set_event_loop(None)


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The working directory of a test: DeepEval must leave nothing in it (it would be the checkout)."""
    folder = tmp_path / "work"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


def collect_clients() -> None:
    """Collect the clients DeepEval's OpenAIModel left open, while the test that made them runs."""
    gc.collect()


def metric(server: LLMServer, **options: Any) -> Any:
    from faceteval.integrations.deepeval import FacetMetric

    return FacetMetric("openai:judge", base_url=server.base_url, **options)


def case(
    output: str, query: str = "Explain rain.", expected: str | None = None, name: str | None = None
) -> Any:
    from deepeval.test_case import LLMTestCase

    return LLMTestCase(input=query, actual_output=output, expected_output=expected, name=name)


def evaluate(deepeval: ModuleType, cases: list[Any], metrics: list[Any], **configs: Any) -> list[Any]:
    """``deepeval.evaluate`` quietly; each test case's metric data, in order."""
    from deepeval.evaluate.configs import AsyncConfig, DisplayConfig

    display = DisplayConfig(print_results=False, show_indicator=False)
    run_async = configs.pop("run_async", True)
    result = deepeval.evaluate(
        test_cases=cases,
        metrics=metrics,
        display_config=display,
        async_config=AsyncConfig(run_async=run_async),
        **configs,
    )
    by_output = {r.actual_output: r for r in result.test_results}
    return [by_output[c.actual_output].metrics_data[0] for c in cases]


@pytest.mark.parametrize("run_async", [True, False])
def test_evaluate_reports_each_output_scored_on_its_facets(
    deepeval: ModuleType, server: LLMServer, here: Path, run_async: bool
) -> None:
    cases = [case("good answer"), case("fair answer"), case("poor answer")]
    data = evaluate(deepeval, cases, [metric(server, threshold=0.5)], run_async=run_async)
    assert [(d.name, d.score, d.success, d.error) for d in data] == [
        ("faceteval dna", pytest.approx(8 / 9), True, None),
        ("faceteval dna", pytest.approx(5 / 9), True, None),
        ("faceteval dna", pytest.approx(2 / 9), False, None),
    ]
    assert {d.evaluation_model for d in data} == {"openai:judge"}
    assert data[2].reason == "\n".join(
        [
            "dna: overall 3 on a scale of 1 to 10 (score 0.22).",
            f"- {DEFAULT_ASPECTS[0]} (weight 0.5): 3. Scored by rule on {DEFAULT_ASPECTS[0]}.",
            f"- {DEFAULT_ASPECTS[1]} (weight 0.3): 3. Scored by rule on {DEFAULT_ASPECTS[1]}.",
            f"- {DEFAULT_ASPECTS[2]} (weight 0.2): 3. Scored by rule on {DEFAULT_ASPECTS[2]}.",
        ]
    )
    assert all(d.input_tokens and d.output_tokens for d in data)
    assert list(here.iterdir()) == []


def test_a_measure_keeps_the_facets_weights_and_judgment_on_the_metric(
    deepeval: ModuleType, server: LLMServer
) -> None:
    measured = metric(server, method="dna", method_options={"aspects": 2})
    assert measured.measure(case("fair answer")) == 5 / 9
    assert [(f.name, f.weight, f.scores) for f in measured.facets] == [
        (DEFAULT_ASPECTS[0], 50 / 80, [6.0]),
        (DEFAULT_ASPECTS[1], 30 / 80, [6.0]),
    ]
    assert measured.score_breakdown == {DEFAULT_ASPECTS[0]: 5 / 9, DEFAULT_ASPECTS[1]: 5 / 9}
    assert measured.judgment.status == "ok" and measured.judgment.trace
    assert measured.is_successful() and measured.error is None


def test_pairwise_against_the_expected_output_scores_a_win_a_tie_and_a_loss(
    deepeval: ModuleType, server: LLMServer
) -> None:
    cases = [
        case("good answer", expected="poor answer"),
        case("fair answer", expected="fair answer", query="Explain snow."),
        case("poor answer", expected="good answer"),
    ]
    data = evaluate(deepeval, cases, [metric(server, pairwise=True, swap=True)])
    assert [(d.score, d.success) for d in data] == [(1.0, True), (0.5, True), (0.0, False)]
    assert data[0].reason.splitlines()[0] == (
        "dna: the actual output wins against the expected output, "
        "overall 9 to 3 on a scale of 1 to 10 (score 1.00)."
    )
    assert (
        data[0].reason.splitlines()[1]
        == f"- {DEFAULT_ASPECTS[0]} (weight 0.5): 9 to 3. Scored by rule on {DEFAULT_ASPECTS[0]}."
    )
    margins = evaluate(deepeval, cases, [metric(server, pairwise=True, pairwise_score="margin")])
    assert [d.score for d in margins] == [0.5 + 6 / 18, 0.5, 0.5 - 6 / 18]


def test_pairwise_against_a_baseline_given_to_the_metric(deepeval: ModuleType, server: LLMServer) -> None:
    against = metric(server, method="direct", baseline="fair answer")
    assert against.pairwise
    data = evaluate(deepeval, [case("good answer"), case("poor answer")], [against])
    assert [d.score for d in data] == [1.0, 0.0]
    assert data[1].reason.startswith("direct: the actual output loses to the baseline, overall 3 to 6")


def test_assert_test_passes_and_fails_as_the_threshold_says(deepeval: ModuleType, server: LLMServer) -> None:
    deepeval.assert_test(case("good answer"), [metric(server, threshold=0.8)])
    with pytest.raises(AssertionError, match=r"faceteval dna \(score: 0\.55+6, threshold: 0\.8") as failed:
        deepeval.assert_test(case("fair answer"), [metric(server, threshold=0.8)])
    assert "reason: dna: overall 6 on a scale of 1 to 10" in str(failed.value)
    deepeval.assert_test(
        case("good answer"), [metric(server, strict_mode=False, threshold=0.8)], run_async=False
    )


def test_strict_mode_passes_only_a_full_score(deepeval: ModuleType, server: LLMServer) -> None:
    strict = metric(server, method="direct", strict_mode=True)
    assert strict.threshold == 1.0
    assert strict.measure(case("good answer")) == 0.0 and not strict.success
    winning = metric(server, method="direct", baseline="poor answer", strict_mode=True, include_reason=False)
    assert winning.measure(case("good answer")) == 1.0 and winning.success and winning.reason is None


def test_an_unreadable_reply_is_an_error_never_a_score(deepeval: ModuleType, server: LLMServer) -> None:
    from deepeval.evaluate.configs import ErrorConfig

    cases = [case("good answer", query=UNREADABLE), case("good answer", query="Explain rain!")]
    data = evaluate(
        deepeval, cases[:1], [metric(server, method="direct")], error_config=ErrorConfig(ignore_errors=True)
    )
    assert data[0].score is None and data[0].success is False
    assert "faceteval direct: " in data[0].error and "could not" in data[0].error.lower()
    with pytest.raises(ParseError):
        evaluate(deepeval, cases[:1], [metric(server, method="direct")])
    with pytest.raises(ParseError):
        deepeval.assert_test(cases[0], [metric(server, method="direct")])
    failing = metric(server, method="direct")
    with pytest.raises(ParseError):
        failing.measure(cases[0])
    assert failing.score is None and failing.error and not failing.is_successful()
    assert failing.measure(cases[1]) == 8 / 9 and failing.error is None  # the next measure starts afresh


def test_a_missing_expected_output_is_deepevals_missing_parameter(
    deepeval: ModuleType, server: LLMServer
) -> None:
    from deepeval.errors import MissingTestCaseParamsError
    from deepeval.evaluate.configs import ErrorConfig

    with pytest.raises(MissingTestCaseParamsError, match="expected_output"):
        metric(server, pairwise=True).measure(case("good answer"))
    skipping = ErrorConfig(skip_on_missing_params=True)
    from deepeval.evaluate.configs import AsyncConfig, DisplayConfig

    result = deepeval.evaluate(
        test_cases=[case("good answer")],
        metrics=[metric(server, pairwise=True)],
        error_config=skipping,
        display_config=DisplayConfig(print_results=False, show_indicator=False),
        async_config=AsyncConfig(),
    )
    assert not result.test_results[0].metrics_data


def test_the_response_cache_answers_a_second_run(
    deepeval: ModuleType, server: LLMServer, tmp_path: Path
) -> None:
    cached = metric(server, cache=tmp_path / "responses.sqlite")
    first = evaluate(deepeval, [case("good answer", query="Explain hail.")], [cached])
    calls = len(server.requests)
    again = evaluate(deepeval, [case("good answer", query="Explain hail.")], [cached])
    assert len(server.requests) == calls and again[0].score == first[0].score == 8 / 9


def test_an_endpoint_id_keeps_the_cached_replies_of_a_server_that_moved_to_another_port(
    deepeval: ModuleType, server: LLMServer, tmp_path: Path
) -> None:
    cache = tmp_path / "responses.sqlite"
    first = evaluate(deepeval, [case("good answer")], [metric(server, cache=cache, endpoint_id="lab")])
    with LLMServer(respond) as moved:
        again = evaluate(deepeval, [case("good answer")], [metric(moved, cache=cache, endpoint_id="lab")])
        assert moved.requests == [] and again[0].score == first[0].score
        evaluate(deepeval, [case("good answer")], [metric(moved, cache=cache)])  # its URL: another identity
        assert moved.requests


def test_deepevals_copies_of_the_metric_keep_its_llm_and_method(
    deepeval: ModuleType, server: LLMServer
) -> None:
    from deepeval.metrics.utils import copy_metrics

    original = metric(server, method="dna", method_options={"aspects": 2}, baseline="x", threshold=0.7)
    (copy,) = copy_metrics([original])
    assert copy is not original and copy.model is original.model and copy.method is original.method
    assert (copy.baseline, copy.pairwise, copy.threshold, copy.name) == (
        "x",
        True,
        0.7,
        "faceteval dna pairwise",
    )


def test_a_server_that_is_not_there_is_the_metrics_error(deepeval: ModuleType) -> None:
    from faceteval.errors import ProviderUnreachableError
    from faceteval.integrations.deepeval import FacetMetric

    unreachable = FacetMetric("openai:judge", method="direct", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ProviderUnreachableError):
        unreachable.measure(case("good answer"))
    assert unreachable.error.startswith("faceteval direct: cannot connect to http://127.0.0.1:9/v1")
    assert unreachable.score is None and not unreachable.is_successful()


def test_bad_settings_are_config_errors(deepeval: ModuleType, server: LLMServer) -> None:
    from faceteval import LLM, Direct

    with pytest.raises(ConfigError, match="unknown method 'dnaa'"):
        metric(server, method="dnaa")
    with pytest.raises(ConfigError, match="method_options configure a method named"):
        metric(server, method=Direct(), method_options={"scale": (1, 5)})
    with pytest.raises(ConfigError, match="pairwise=False leaves it nothing to do"):
        metric(server, baseline="x", pairwise=False)
    with pytest.raises(ConfigError, match="threshold is a number from 0 to 1"):
        metric(server, threshold=5)
    with pytest.raises(ConfigError, match="pairwise_score is one of verdict, margin"):
        metric(server, pairwise_score="points")
    from faceteval.integrations.deepeval import FacetMetric

    with pytest.raises(ConfigError, match="base_url build an LLM from a faceteval model spec"):
        FacetMetric(LLM.from_spec("openai:judge", base_url=server.base_url), base_url=server.base_url)
    with pytest.raises(ConfigError, match=r"cache build an LLM .*; a DeepEval model has its own"):
        FacetMetric(HouseJudge.build(), cache="responses.sqlite")
    with pytest.raises(ConfigError, match="'gpt-4o-mini' is not of the form <provider>:<model>"):
        FacetMetric("gpt-4o-mini", base_url=server.base_url)  # a DeepEval name: its settings are DeepEval's
    with pytest.raises(ConfigError, match=r"model is a faceteval model spec .* got 42"):
        FacetMetric(42)


def test_deepevals_console_shows_the_metrics_name_as_it_is(
    deepeval: ModuleType,
    server: LLMServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """DeepEval's printer reads a metric's name as rich markup: the default names survive it."""
    from deepeval.evaluate.configs import DisplayConfig

    monkeypatch.setenv("COLUMNS", "240")  # rich's width when not on a terminal: no cell wraps
    metrics = [metric(server), metric(server, baseline="poor answer")]
    assert [m.name for m in metrics] == ["faceteval dna", "faceteval dna pairwise"]
    shown = DisplayConfig(print_results=True, show_indicator=True, truncate_passing_cases=False)
    deepeval.evaluate(test_cases=[case("good answer")], metrics=metrics, display_config=shown)
    printed = capsys.readouterr().out
    for shown_name, score in (("faceteval dna", "0.89"), ("faceteval dna pairwise", "1.00")):
        assert f"DeepEval's latest {shown_name} Metric! (using openai:judge" in printed
        row = re.escape(f"│ {shown_name}") + r"\s+│ " + re.escape(score)
        assert re.search(r"PASS\s+" + row, printed), printed  # the test case's table
        assert re.search(r"^\W*" + re.escape(shown_name) + r"\s+│ " + re.escape(score), printed, re.M)


class HouseJudge:
    """Builds a DeepEval model of a user's own (a ``DeepEvalBaseLLM`` subclass) that answers each prompt
    by rule, as the stand-in server does, and keeps the prompts it was given."""

    @staticmethod
    def build(name: str = "house-judge", failing: bool = False) -> Any:
        from deepeval.models import DeepEvalBaseLLM

        class House(DeepEvalBaseLLM):  # type: ignore[misc]
            def __init__(self) -> None:
                self.prompts: list[str] = []
                super().__init__(name)

            def load_model(self) -> Any:
                return self

            def generate(self, prompt: str) -> str:
                self.prompts.append(prompt)
                if failing:
                    raise RuntimeError("the house judge is out")
                return respond({"messages": [{"role": "user", "content": prompt}]})

            async def a_generate(self, prompt: str) -> str:
                return self.generate(prompt)

            def get_model_name(self) -> str:
                return str(self.name)

        return House()


def test_a_deepeval_model_of_ones_own_makes_every_call_of_the_judge(deepeval: ModuleType) -> None:
    from deepeval.metrics.utils import copy_metrics

    from faceteval.integrations.deepeval import FacetMetric

    house = HouseJudge.build()
    measured = FacetMetric(house, method="dna", method_options={"aspects": 2})
    data = evaluate(deepeval, [case("good answer"), case("poor answer")], [measured])
    assert [(d.score, d.evaluation_model, d.error) for d in data] == [
        (pytest.approx(8 / 9), "house-judge", None),
        (pytest.approx(2 / 9), "house-judge", None),
    ]
    # The system message first, then the user's: the one prompt a DeepEval model takes
    system = "You are a helpful assistant in evaluating the quality of the outputs for a given instruction."
    assert any(p.startswith(f"{system}\n\nPropose 2 concise questions") for p in house.prompts)
    assert len(house.prompts) == 2 * 4  # per case: aspects, weights, a score for each of the two aspects
    assert data[0].evaluation_cost is None  # a model of one's own has no known price, as in DeepEval
    (copy,) = copy_metrics([measured])
    assert copy.model is measured.model and copy.model.provider.model is house


def test_a_failing_deepeval_model_and_a_structured_request_are_the_metrics_error(
    deepeval: ModuleType,
) -> None:
    from faceteval import GenerateConfig
    from faceteval.errors import FacetevalError
    from faceteval.integrations.deepeval import FacetMetric, deepeval_llm

    failing = FacetMetric(HouseJudge.build(failing=True), method="direct")
    with pytest.raises(FacetevalError, match="DeepEval model 'house-judge': RuntimeError: the house judge"):
        failing.measure(case("good answer"))
    assert failing.score is None and not failing.is_successful()
    house = HouseJudge.build()
    structured = FacetMetric(deepeval_llm(house, config=GenerateConfig(structured=True)), method="direct")
    with pytest.raises(FacetevalError, match="a DeepEval model is asked with a prompt alone, without a JSON"):
        structured.measure(case("good answer"))
    assert house.prompts == []


@LEAVES_CLIENTS_OPEN
def test_deepevals_openai_model_judges_through_its_client_and_is_priced_as_deepeval_prices_it(
    deepeval: ModuleType, server: LLMServer
) -> None:
    from deepeval.models import OpenAIModel

    from faceteval.integrations.deepeval import FacetMetric

    model = OpenAIModel(model="gpt-4o-mini", base_url=server.base_url, api_key="test")
    calls = len(server.requests)
    measured = FacetMetric(model, method="direct")
    assert measured.measure(case("good answer")) == 8 / 9
    (asked,) = server.requests[calls:]
    assert asked.body["model"] == "gpt-4o-mini" and [m["role"] for m in asked.body["messages"]] == ["user"]
    assert measured.evaluation_model == "gpt-4o-mini" and measured.input_tokens and measured.output_tokens
    rates = model.model_data
    cost = measured.input_tokens * rates.input_price + measured.output_tokens * rates.output_price
    assert measured.evaluation_cost == pytest.approx(cost) and cost > 0
    collect_clients()


@LEAVES_CLIENTS_OPEN
@pytest.mark.parametrize("named", ["gpt-4o-mini", None])
def test_a_deepeval_model_name_or_none_is_resolved_as_deepevals_metrics_resolve_theirs(
    deepeval: ModuleType, server: LLMServer, monkeypatch: pytest.MonkeyPatch, named: str | None
) -> None:
    """A name, as ``GEval(model="gpt-4o-mini")`` takes one; none: DeepEval's configured model (here its
    ``OPENAI_MODEL_NAME``); the OpenAI client finds the stand-in server by ``OPENAI_BASE_URL``."""
    from faceteval.integrations.deepeval import FacetMetric

    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_MODEL_NAME", "gpt-4.1-mini")
    calls = len(server.requests)
    measured = FacetMetric(named, method="direct")
    expected = named or "gpt-4.1-mini"
    assert measured.evaluation_model == expected
    assert measured.measure(case("fair answer")) == 5 / 9 and measured.evaluation_cost
    assert [r.body["model"] for r in server.requests[calls:]] == [expected]
    collect_clients()


def test_without_deepeval_the_module_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "deepeval", None)
    for name in [n for n in sys.modules if n.startswith("faceteval.integrations.deepeval")]:
        monkeypatch.delitem(sys.modules, name)
    with pytest.raises(
        MissingDependencyError, match=r"DeepEval metric .* pip install 'faceteval\[deepeval\]'"
    ):
        importlib.import_module("faceteval.integrations.deepeval")


def test_faceteval_never_imports_deepeval_itself() -> None:
    """Every module of faceteval but the integrations' (and ``__main__``, which runs the CLI) imported."""
    package = SRC / "faceteval"
    modules = sorted(
        ".".join(("faceteval", *path.relative_to(package).with_suffix("").parts)).removesuffix(".__init__")
        for path in package.rglob("*.py")
        if "integrations" not in path.relative_to(package).parts[:1] and path.name != "__main__.py"
    )
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "print(len(sys.modules), sorted(m for m in sys.modules if m.split('.')[0] == 'deepeval'))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=300, env=env
    )
    assert done.returncode == 0, done.stderr
    assert len(modules) > 150 and done.stdout.split(" ", 1)[1].strip() == "[]", done.stdout


def test_the_example_runs_evaluate_and_assert_test_and_a_second_run_makes_no_call(
    deepeval: ModuleType, tmp_path: Path
) -> None:
    """examples/deepeval_metric.py, as a user runs it, against the stand-in for a local model."""
    argv = [sys.executable, str(ROOT / "examples" / "deepeval_metric.py")]
    env = {**os.environ, "PYTHONPATH": str(SRC)}  # with the root conftest.py's DeepEval settings
    with LLMServer(example_judge.respond) as running:
        argv += [running.base_url, "openai:Qwen/Qwen2.5-7B-Instruct"]
        first = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        calls = len(running.requests)
        again = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert len(running.requests) == calls
    assert first.returncode == 0, first.stderr
    scored = [line for line in first.stdout.splitlines() if line.startswith(("rain:", "prime:", "haiku:"))]
    assert len(scored) == 6 and all(re.fullmatch(r"\w+: score \d\.\d\d, (passed|failed)", s) for s in scored)
    assert "the actual output wins against the expected output" in first.stdout
    assert re.search(r"^assert_test: (passed|Metrics: faceteval dna \(score: )", first.stdout, re.M)
    assert again.returncode == 0 and scored == [s for s in again.stdout.splitlines() if s in scored]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["responses.sqlite"]
