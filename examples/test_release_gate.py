"""A CI gate for a change of model or prompt: the changed answers must beat the released ones.

Keep a file like this in your test suite, with your own questions and answers, and run it with a judge:

    pytest examples/test_release_gate.py --faceteval-model openai:Qwen/Qwen2.5-7B-Instruct \\
        --faceteval-base-url http://127.0.0.1:8000/v1 --faceteval-cache .faceteval/responses.sqlite

(or set FACETEVAL_MODEL, FACETEVAL_BASE_URL and FACETEVAL_CACHE). Each pair is judged by DnA-Eval in
both orders; a failure prints the verdict, the margin, each order's verdict and each facet's weight,
scores and explanation. With the cache committed, CI replays the same judgments with no model server:
only an answer or a prompt that changed is judged anew.
"""

from __future__ import annotations

import pytest

from faceteval import LLM
from faceteval.testing import assert_prefers, assert_score

# What the released version answered, and what the change answers now. In a real suite: the released
# answers recorded in a file, the changed ones made by calling your system.
CASES = [
    pytest.param(
        "What is the capital of Australia?",
        "Sydney is the capital of Australia.",
        "Canberra is the capital of Australia.",
        id="capital",
    ),
    pytest.param(
        "Summarize in one sentence: The council met on Tuesday and voted 7-2 to extend the library's "
        "opening hours to 9 pm on weekdays, starting next month.",
        "The council met on Tuesday. They voted. The library will change.",
        "The council voted 7-2 on Tuesday to keep the library open until 9 pm on weekdays from next month.",
        id="summary",
    ),
    pytest.param(
        "At what temperature does water boil at sea level, in Celsius?",
        "Water boils at 90 degrees Celsius at sea level.",
        "100 degrees Celsius.",
        id="boil",
    ),
]


@pytest.mark.parametrize(("query", "released", "changed"), CASES)
def test_the_change_answers_better(faceteval_llm: LLM, query: str, released: str, changed: str) -> None:
    assert_prefers(changed, over=released, query=query, llm=faceteval_llm, min_margin=1, aspects=3)


@pytest.mark.parametrize(("query", "released", "changed"), CASES)
def test_each_changed_answer_is_good_on_its_own(
    faceteval_llm: LLM, query: str, released: str, changed: str
) -> None:
    assert_score(changed, query=query, llm=faceteval_llm, at_least=6, aspects=3)
