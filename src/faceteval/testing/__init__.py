"""Gate a change in a test suite: assert that a judge prefers one output over another, or scores it high.

```python
from faceteval.testing import assert_prefers

def test_the_new_prompt_is_better(faceteval_llm):
    assert_prefers(new_answer, over=old_answer, query=question, llm=faceteval_llm, min_margin=0.5)
```

A failure is an `AssertionError` (`JudgmentAssertionError`) whose message holds the verdict, the margin,
each order's verdict and each facet's weight, scores and explanation; a tie, a swap disagreement or a
reply that could not be read fails, never passes. Installing faceteval installs a pytest plugin
(`faceteval.testing.plugin`, entry point ``faceteval``) with the ``faceteval_llm`` fixture, built from
``--faceteval-model``, ``--faceteval-base-url``, ``--faceteval-endpoint-id`` and ``--faceteval-cache`` (or
``FACETEVAL_MODEL``, ``FACETEVAL_BASE_URL``, ``FACETEVAL_ENDPOINT_ID``, ``FACETEVAL_CACHE``, or the ini
keys ``faceteval_model``, ``faceteval_base_url``, ``faceteval_endpoint_id``, ``faceteval_cache``); with a
cache, a second run replays every judgment from it.
"""

from typing import TYPE_CHECKING

from faceteval._util.lazy import lazy_attributes

if TYPE_CHECKING:  # imported on first use: the pytest plugin loads this package in every test run
    from faceteval.errors import JudgmentAssertionError
    from faceteval.testing._assert import (
        DEFAULT_METHOD,
        assert_prefers,
        assert_prefers_async,
        assert_score,
        assert_score_async,
    )

__getattr__ = lazy_attributes(
    __name__,
    {
        "_assert": (
            "DEFAULT_METHOD",
            "JudgmentAssertionError",
            "assert_prefers",
            "assert_prefers_async",
            "assert_score",
            "assert_score_async",
        )
    },
)

__all__ = [
    "DEFAULT_METHOD",
    "JudgmentAssertionError",
    "assert_prefers",
    "assert_prefers_async",
    "assert_score",
    "assert_score_async",
]
