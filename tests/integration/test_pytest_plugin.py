"""faceteval's pytest plugin in real pytest runs (``pytester``, each in a child process): a gate passes and
fails as the judge at the local LLM server says, a second run replays from the cache with the server
stopped, a missing model is an error that says how to name one, and installed it loads itself by its
entry point and stays out with ``-p no:faceteval``."""

from __future__ import annotations

import importlib.util
import shutil
import tomllib
from collections.abc import Iterator

import pytest

from tests.support.llm_server import LLMServer
from tests.support.processes import SRC
from tests.support.rule_judge import RuleJudge

pytest_plugins = ["pytester"]

ROOT = SRC.parent
PLUGIN = "faceteval.testing.plugin"
EXAMPLE = ROOT / "examples" / "test_release_gate.py"
TIMEOUT = 240
MODEL = "openai:judge"
CLEAR = "Canberra is the capital of Australia."
VAGUE = "It is a city in Australia, I think."
GATE = f"""
from faceteval.testing import assert_prefers

QUERY = "What is the capital of Australia?"


def test_the_new_answer_is_preferred(faceteval_llm):
    assert_prefers({CLEAR!r}, over={VAGUE!r}, query=QUERY, llm=faceteval_llm, min_margin=1)


def test_the_old_answer_is_not(faceteval_llm):
    assert_prefers({VAGUE!r}, over={CLEAR!r}, query=QUERY, llm=faceteval_llm)


def test_without_the_judge():
    assert 2 + 2 == 4
"""
FAILURE = [
    "*def test_the_old_answer_is_not(faceteval_llm):",
    ">       assert_prefers(*",
    "E       faceteval.testing.JudgmentAssertionError: faceteval (dna in both orders): the baseline is "
    "preferred over the candidate (margin -5)",
    f"E         candidate: {VAGUE!r}",
    f"E         baseline: {CLEAR!r}",
    "E         verdict: baseline preferred; scores: candidate 4, baseline 9",
    "E           candidate then baseline: baseline preferred (candidate 4, baseline 9)",
    "E           baseline then candidate: baseline preferred (candidate 4, baseline 9)",
    "E           Does the output follow the instruction? (weight 0.5): 4 vs 9",
    "E             'Scored by rule on Does the output follow the instruction?.'",
]


@pytest.fixture
def server() -> Iterator[LLMServer]:
    """A judge that rates the clear answer 9 and the vague one 4 on every aspect, in either order."""
    with LLMServer(RuleJudge(quality={CLEAR: 9, VAGUE: 4}).for_server()) as running:
        yield running


@pytest.fixture
def child(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """Child pytest runs that import this checkout's faceteval and load no plugin but those named."""
    monkeypatch.setenv("PYTHONPATH", str(SRC))
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile(test_gate=GATE)
    return pytester


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", PLUGIN, *args, timeout=TIMEOUT)


def failures(result: pytest.RunResult) -> list[str]:
    """The lines of the failure reports (``E   ...``): the same from one run to the next."""
    return [line for line in result.outlines if line.startswith("E ")]


def test_a_gate_passes_and_fails_as_the_judge_says(child: pytest.Pytester, server: LLMServer) -> None:
    result = run(child, "--faceteval-model", MODEL, "--faceteval-base-url", server.base_url)

    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines([f"faceteval: judging with {MODEL} at {server.base_url}, no response cache"])
    result.stdout.fnmatch_lines(FAILURE)
    assert "_assert.py" not in result.stdout.str()  # the test's own line is shown, not faceteval's
    assert {request.body["model"] for request in server.requests} == {"judge"}


def test_a_second_run_replays_from_the_cache_with_the_server_stopped(
    child: pytest.Pytester, server: LLMServer
) -> None:
    args = ["--faceteval-model", MODEL, "--faceteval-base-url", server.base_url]
    first = run(child, *args, "--faceteval-cache", "responses.sqlite")
    first.assert_outcomes(passed=2, failed=1)
    assert server.requests
    server.stop()

    again = run(child, *args, "--faceteval-cache", "responses.sqlite")
    uncached = run(child, *args)

    again.assert_outcomes(passed=2, failed=1)
    again.stdout.fnmatch_lines(FAILURE)
    assert failures(again) == failures(first)
    # without the cache, the stopped server fails both judged tests, each in one line
    uncached.assert_outcomes(passed=1, failed=2)
    uncached.stdout.fnmatch_lines(
        [f"ProviderUnreachableError: cannot connect to {server.base_url}: connection refused*"] * 2
    )
    assert "Traceback" not in uncached.stdout.str() and "_llm.py" not in uncached.stdout.str()


def test_an_endpoint_id_keeps_the_cached_replies_of_a_server_that_moved_to_another_port(
    child: pytest.Pytester, server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    cached = ["--faceteval-model", MODEL, "--faceteval-cache", "responses.sqlite"]
    first = run(child, *cached, "--faceteval-base-url", server.base_url, "--faceteval-endpoint-id", "lab")
    first.assert_outcomes(passed=2, failed=1)
    first.stdout.fnmatch_lines(
        [f"faceteval: judging with {MODEL} at {server.base_url} (cached as endpoint lab)*"]
    )
    with LLMServer(RuleJudge(quality={CLEAR: 9, VAGUE: 4}).for_server()) as moved:
        monkeypatch.setenv("FACETEVAL_ENDPOINT_ID", "lab")  # the variable names it as well as the flag
        again = run(child, *cached, "--faceteval-base-url", moved.base_url)
        again.assert_outcomes(passed=2, failed=1)
        assert moved.requests == []  # every reply from the cache
        monkeypatch.delenv("FACETEVAL_ENDPOINT_ID")
        child.makeini("[pytest]\nfaceteval_endpoint_id = lab\n")  # and the ini key
        run(child, *cached, "--faceteval-base-url", moved.base_url).assert_outcomes(passed=2, failed=1)
        assert moved.requests == []
        child.makeini("[pytest]\n")
        unnamed = run(child, *cached, "--faceteval-base-url", moved.base_url)  # its URL: another identity
        unnamed.assert_outcomes(passed=2, failed=1)
        assert moved.requests


def test_without_a_model_a_judged_test_errors_saying_how_to_name_one(child: pytest.Pytester) -> None:
    result = run(child)

    result.assert_outcomes(passed=1, errors=2)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at setup of test_the_new_answer_is_preferred*",
            "faceteval_llm: no model to judge with; name one in any of these ways:",
            "  pytest --faceteval-model openai:gpt-4o-mini  (a local server: add --faceteval-base-url *)",
            "  export FACETEVAL_MODEL=openai:gpt-4o-mini  (and FACETEVAL_BASE_URL=...)",
            "  faceteval_model = openai:gpt-4o-mini  in pytest.ini, or under *tool.pytest.ini_options* in *",
        ]
    )
    assert "faceteval: judging with" not in result.stdout.str()


def test_the_environment_and_the_ini_file_name_the_model_endpoint_and_cache(
    child: pytest.Pytester, server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    child.makeini(f"[pytest]\nfaceteval_model = {MODEL}\nfaceteval_cache = judged/responses.sqlite\n")
    monkeypatch.setenv("FACETEVAL_BASE_URL", server.base_url)
    (child.path / "elsewhere").mkdir()

    result = child.runpytest_subprocess(
        "-p", PLUGIN, "--rootdir", str(child.path), str(child.path / "test_gate.py"), timeout=TIMEOUT
    )

    result.assert_outcomes(passed=2, failed=1)
    cache = child.path / "judged" / "responses.sqlite"
    result.stdout.fnmatch_lines(
        [f"faceteval: judging with {MODEL} at {server.base_url}, replies cached in {cache}"]
    )
    assert cache.is_file()


def test_the_flag_wins_over_the_environment(
    child: pytest.Pytester, server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FACETEVAL_MODEL", "openai:from-the-environment")

    result = run(child, "--faceteval-model", MODEL, "--faceteval-base-url", server.base_url)

    result.assert_outcomes(passed=2, failed=1)
    assert {request.body["model"] for request in server.requests} == {"judge"}


def declared_entry_points() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    entry_points: dict[str, str] = project["entry-points"]["pytest11"]
    return entry_points


def test_pyproject_declares_the_plugin_as_the_pytest11_entry_point_faceteval() -> None:
    assert declared_entry_points() == {"faceteval": PLUGIN}


OTHERS_OUT = ("-p", "no:deepeval")
"""The one other installed plugin that is slow to load (it imports DeepEval), left out of these runs."""


@pytest.fixture
def installed(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """Child runs that see the plugin installed: a distribution on their path with pyproject.toml's
    ``pytest11`` entry points (as installing faceteval gives them), every other plugin autoloaded too."""
    site = pytester.path / "site"
    dist = site / "faceteval_plugin_probe-0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: faceteval-plugin-probe\nVersion: 0\n")
    lines = [f"{name} = {value}" for name, value in declared_entry_points().items()]
    (dist / "entry_points.txt").write_text("[pytest11]\n" + "\n".join(lines) + "\n")
    monkeypatch.setenv("PYTHONPATH", f"{SRC}:{site}")
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    pytester.makepyfile(test_gate=GATE)
    return pytester


def test_installed_it_loads_itself_and_no_faceteval_leaves_it_out(installed: pytest.Pytester) -> None:
    loaded = installed.runpytest_subprocess(*OTHERS_OUT, timeout=TIMEOUT)
    left_out = installed.runpytest_subprocess(*OTHERS_OUT, "-p", "no:faceteval", timeout=TIMEOUT)
    helped = installed.runpytest_subprocess(*OTHERS_OUT, "-p", "no:faceteval", "--help", timeout=TIMEOUT)

    loaded.assert_outcomes(passed=1, errors=2)
    loaded.stdout.fnmatch_lines(["faceteval_llm: no model to judge with; name one in any of these ways:"])
    left_out.assert_outcomes(passed=1, errors=2)
    left_out.stdout.fnmatch_lines(["E       fixture 'faceteval_llm' not found"])
    assert "--faceteval-model" not in helped.stdout.str() and "--faceteval-model" not in left_out.stdout.str()


def test_with_autoloading_off_p_faceteval_loads_it_by_its_entry_point(
    installed: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, server: LLMServer
) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")

    result = installed.runpytest_subprocess(
        "-p",
        "faceteval",
        "--faceteval-model",
        MODEL,
        "--faceteval-base-url",
        server.base_url,
        timeout=TIMEOUT,
    )

    result.assert_outcomes(passed=2, failed=1)


def example_cases() -> list[tuple[str, str, str]]:
    """The example's (query, released answer, changed answer) cases."""
    spec = importlib.util.spec_from_file_location("release_gate_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [tuple(case.values) for case in module.CASES]


def test_the_example_gate_passes_when_the_changes_are_better_and_ci_replays_it_offline(
    child: pytest.Pytester,
) -> None:
    cases = example_cases()
    quality = {released: 3 for _, released, _ in cases} | {changed: 8 for _, _, changed in cases}
    judge = RuleJudge(quality=quality)
    shutil.copy(EXAMPLE, child.path)
    with LLMServer(judge.for_server()) as server:
        args = [EXAMPLE.name, "--faceteval-model", MODEL, "--faceteval-base-url", server.base_url]
        judged = run(child, *args, "--faceteval-cache", ".faceteval/responses.sqlite")
    replayed = run(child, *args, "--faceteval-cache", ".faceteval/responses.sqlite")

    judged.assert_outcomes(passed=2 * len(cases))
    replayed.assert_outcomes(passed=2 * len(cases))
