"""faceteval's judges inside DeepEval: `FacetMetric` in `deepeval.evaluate` and `deepeval.assert_test`.

    pip install 'faceteval[deepeval]'
    export DEEPEVAL_TELEMETRY_OPT_OUT=1   # DeepEval's own telemetry, off
    python examples/deepeval_metric.py http://127.0.0.1:8000/v1 openai:Qwen/Qwen2.5-7B-Instruct

Three answers are scored alone with DnA-Eval (each facet's weight, score and explanation is in the
reason), then against the expected answer with both presentation orders (a win scores 1, a tie 0.5, a
loss 0), and the first is held to a threshold with `assert_test`, as a test in a suite would be. The
replies are cached in responses.sqlite, so running it again makes no call. DeepEval writes its own
files into .deepeval/ here unless DEEPEVAL_CACHE_FOLDER names another folder.
"""

from __future__ import annotations

import sys

from deepeval import assert_test, evaluate
from deepeval.evaluate.configs import DisplayConfig
from deepeval.test_case import LLMTestCase

from faceteval.errors import FacetevalError
from faceteval.integrations.deepeval import FacetMetric

CASES = [
    LLMTestCase(
        name="rain",
        input="Why does it rain?",
        actual_output="Water vapour cools as it rises, condenses into droplets, and they fall when heavy.",
        expected_output="Rising moist air cools; its vapour condenses into droplets that grow and fall.",
    ),
    LLMTestCase(
        name="prime",
        input="Name a prime number greater than 10.",
        actual_output="15",
        expected_output="11",
    ),
    LLMTestCase(
        name="haiku",
        input="Write a haiku about autumn.",
        actual_output="Red leaves drift and fall / cold wind hums through bare trees / the year breathes out",
        expected_output="Crisp leaves underfoot / geese call across the grey sky / the days shorten now",
    ),
]
QUIET = DisplayConfig(print_results=False, show_indicator=False)


def show(title: str, metric: FacetMetric) -> None:
    """Run DeepEval's evaluate with ``metric`` on every case and print what it reports."""
    print(f"== {title}")
    result = evaluate(test_cases=CASES, metrics=[metric], display_config=QUIET)
    for test in sorted(result.test_results, key=lambda t: t.name):
        (data,) = test.metrics_data
        print(f"{test.name}: score {data.score:.2f}, {'passed' if data.success else 'failed'}")
        print("  " + data.reason.replace("\n", "\n  "))


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    base_url, model = argv
    judge = {
        "base_url": base_url,
        "cache": "responses.sqlite",
        "method": "dna",
        "method_options": {"aspects": 3},
    }
    try:
        show("alone", FacetMetric(model, threshold=0.6, **judge))
        show("against the expected output", FacetMetric(model, pairwise=True, **judge))
        try:
            assert_test(CASES[0], [FacetMetric(model, threshold=0.6, **judge)])
            print("assert_test: passed")
        except AssertionError as failed:
            print(f"assert_test: {failed}")
    except FacetevalError as error:  # a server that is not there, a reply that cannot be read: one line
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
