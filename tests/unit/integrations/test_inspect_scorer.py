"""`facet_scorer`'s settings are checked when the task is built; a sample without what it is to be judged
against is unscored, and a baseline may come from a function; the integration is an optional extra:
without inspect_ai it says which to install, and faceteval itself never imports inspect_ai."""

from __future__ import annotations

import math
import re
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import pytest

from faceteval import DnA
from faceteval.errors import ConfigError
from tests.support.llm_server import LLMServer
from tests.support.processes import SRC
from tests.support.rule_judge import RuleJudge

if TYPE_CHECKING:
    from inspect_ai.model import Model
    from inspect_ai.scorer import Score
    from inspect_ai.solver import TaskState


QUESTION = "What is the capital of Australia?"
ANSWER = "Canberra is the capital of Australia."


def task_state(metadata: dict[str, object] | None = None) -> TaskState:
    """A sample's state after its solver: the question, answered with `ANSWER`."""
    from inspect_ai.model import ModelName, ModelOutput
    from inspect_ai.solver import TaskState

    state = TaskState(
        ModelName("openai-api/local/judge"), "capital", 1, QUESTION, [], metadata=metadata or {}
    )
    state.output = ModelOutput.from_content("openai-api/local/judge", ANSWER)
    return state


def is_unscored(score: Score) -> bool:
    return isinstance(score.value, float) and math.isnan(score.value)


def test_the_scorer_is_registered_with_its_metrics() -> None:
    from inspect_ai._util.registry import registry_info

    from faceteval.integrations.inspect import facet_scorer

    info = registry_info(facet_scorer("direct"))
    assert info.type == "scorer" and info.name.endswith("facet_scorer")
    metrics = info.metadata["metrics"]
    assert [registry_info(m).name for m in metrics] == ["inspect_ai/mean", "inspect_ai/stderr"]
    named = registry_info(facet_scorer("direct", name="helpfulness"))
    assert named.name.endswith("/helpfulness") or named.name == "helpfulness"
    named_metrics = [registry_info(m).name for m in named.metadata["metrics"]]
    assert named_metrics == ["inspect_ai/mean", "inspect_ai/stderr"]
    assert registry_info(facet_scorer("direct")).name.endswith("facet_scorer")  # the next, unnamed, is not


class Unregistered:
    """A method of one's own, not registered and recording no scale."""

    name = "unregistered"

    def describe(self) -> dict[str, object]:
        return {"name": self.name, "params": {}}


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        (("dnaa",), {}, "unknown method 'dnaa'"),
        (("dna",), {"aspect": 3}, "method 'dna': "),
        ((DnA(),), {"aspects": 3}, "method options (aspects) go with a method named by name"),
        (("dna",), {"against": "reference"}, "against must be 'baseline', 'target' or None, got 'reference'"),
        (
            ("dna",),
            {"against": "target", "target_as_reference": True},
            "against='target' judges the output against the target: it cannot",
        ),
        (("dna",), {"name": "judges/dna"}, "name is the scorer's name in the log: a non-empty text"),
        (("dna",), {"name": " "}, "name is the scorer's name in the log: a non-empty text"),
        (
            (Unregistered(),),
            {},
            "method 'unregistered' is not registered and records no scale: a score is from 0 to 1",
        ),
    ],
)
def test_a_bad_setting_is_refused_when_the_task_is_built(
    args: tuple[object, ...], kwargs: dict[str, object], message: str
) -> None:
    from faceteval.integrations.inspect import facet_scorer

    with pytest.raises(ConfigError, match="^" + re.escape(message)):
        facet_scorer(*args, **kwargs)


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True, timeout=120
    )


def test_without_inspect_ai_the_integration_names_the_extra_to_install() -> None:
    done = run_python(
        """
        import sys
        sys.modules["inspect_ai"] = None  # as if it were not installed
        from faceteval.errors import MissingDependencyError
        try:
            import faceteval.integrations.inspect
        except MissingDependencyError as error:
            print(error)
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        "faceteval.integrations.inspect needs an optional dependency; "
        "install it with: pip install 'faceteval[inspect]'"
    )


def test_faceteval_never_imports_inspect_ai() -> None:
    done = run_python(
        """
        import sys
        import faceteval, faceteval.integrations, faceteval._cli._app
        from faceteval import judge, read_instances, create_method
        create_method("dna")
        print(sorted(name for name in sys.modules if name.split(".")[0] == "inspect_ai"))
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("kwargs", "metadata", "target", "problem"),
    [
        (
            {"against": "baseline"},
            {},
            "Canberra.",
            "the sample has no baseline text in its metadata field 'baseline'",
        ),
        (
            {"against": "baseline", "baseline": "recorded"},
            {"recorded": 3},
            "Canberra.",
            "the sample has no baseline text in its metadata field 'recorded'",
        ),
        ({"against": "target"}, {}, "", "the sample has no target to judge the output against"),
    ],
)
async def test_a_sample_without_what_it_is_judged_against_is_unscored_without_a_call(
    kwargs: dict[str, object], metadata: dict[str, object], target: str, problem: str
) -> None:
    from inspect_ai.scorer import Target

    from faceteval.integrations.inspect import facet_scorer

    scorer = facet_scorer("dna", model="openai-api/nowhere/judge", **kwargs)
    score = await scorer(task_state(metadata), Target(target))
    assert score is not None and is_unscored(score)
    assert (score.reason, score.explanation, score.answer) == ("scoring_failed", problem, ANSWER)
    assert score.metadata is not None and score.metadata["error"] == problem


@pytest.fixture
async def judge_model(llm_server: LLMServer) -> AsyncIterator[Model]:
    from inspect_ai.model import get_model

    judge = RuleJudge(quality={ANSWER: 8.0, "Sydney.": 3.0}, record=False)
    llm_server.responder = judge.for_server()
    async with get_model("openai-api/local/judge", base_url=llm_server.base_url, api_key="test") as opened:
        yield opened


@pytest.mark.anyio
@pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning")
async def test_a_baseline_may_come_from_a_function_of_the_state(judge_model: Model) -> None:
    from inspect_ai.scorer import Target

    from faceteval.integrations.inspect import facet_scorer

    scorer = facet_scorer("direct", against="baseline", baseline=lambda state: "Sydney.", model=judge_model)
    score = await scorer(task_state(), Target("Canberra."))
    assert score is not None and score.value == 1.0
    assert score.metadata is not None
    assert (score.metadata["verdict"], score.metadata["scores"], score.metadata["margin"]) == (
        "win",
        [8.0, 3.0],
        5.0,
    )
