"""faceteval as a DeepEval metric: `FacetMetric` judges a test case with any faceteval method.

Needs DeepEval (``pip install 'faceteval[deepeval]'``); importing this module imports it, importing
faceteval does not. ::

    from deepeval import assert_test, evaluate
    from deepeval.test_case import LLMTestCase
    from faceteval.integrations.deepeval import FacetMetric

    metric = FacetMetric("gpt-4o-mini", method="dna", threshold=0.6)   # as GEval(model="gpt-4o-mini")
    case = LLMTestCase(input="What is 2+2?", actual_output="4")
    evaluate(test_cases=[case], metrics=[metric])   # or assert_test(case, [metric]) in a test

The judge is what DeepEval's metrics take as ``model``: a DeepEval model (``OpenAIModel(...)``, a
``DeepEvalBaseLLM`` of your own: its ``a_generate`` makes the judge's calls, through `DeepEvalProvider`),
a DeepEval model name, or none (DeepEval's configured model); or faceteval's own: a model spec
(``openai:gpt-4o-mini``, with ``base_url``, ``cache`` ...) or `faceteval.LLM`.

How a judgment becomes DeepEval's score, from 0 to 1:

- pointwise (``actual_output`` alone): the overall score on the method's scale, ``low`` to ``high``,
  as ``(overall - low) / (high - low)``; DnA-Eval's 7 on 1 to 10 is 0.67;
- pairwise (``actual_output`` against ``baseline`` or ``expected_output``), by ``verdict``: a win 1,
  a tie 0.5 (with ``swap``, also orders that disagree), a loss 0; by ``margin``:
  ``0.5 + (actual - baseline) / (2 * (high - low))``.

DeepEval itself sends telemetry unless ``DEEPEVAL_TELEMETRY_OPT_OUT=1``, and writes its caches and
last run into ``.deepeval/`` of the working directory unless ``DEEPEVAL_CACHE_FOLDER`` names another
(docs/deepeval.md).
"""

from faceteval.errors import MissingDependencyError

try:
    import deepeval.metrics  # noqa: F401  (the extra, checked before the metric's module needs it)
except ModuleNotFoundError as exc:
    if exc.name is None or exc.name.split(".")[0] != "deepeval":
        raise  # a module DeepEval needs is missing: its own error says which
    raise MissingDependencyError("the DeepEval metric", extra="deepeval") from exc

from faceteval.integrations.deepeval._metric import FacetMetric
from faceteval.integrations.deepeval._model import DeepEvalProvider, deepeval_llm
from faceteval.integrations.deepeval._scoring import PairwiseScore

__all__ = ["DeepEvalProvider", "FacetMetric", "PairwiseScore", "deepeval_llm"]
