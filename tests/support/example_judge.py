"""A stand-in for a local model server that answers the prompts of every built-in method.

The examples, the README's commands and the docs tests run against it as a model would be run with
vLLM or Ollama: ``python -m tests.support.llm_server --responder tests.support.example_judge:respond``.
It recognises each method's prompts and answers in the form each asks for (aspect questions, weights,
score lines, CoEval's evaluation form, Fennec's criteria, guidelines and judge results, HD-Eval's criteria
lists). Every score is a hash of the text scored and the facet: its replies are well-formed test fixtures,
never judgments of anything.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from typing import Any

from tests.support import fennec_judge
from tests.support.fennec_judge import FennecJudge
from tests.support.quoted import unquote
from tests.support.rule_judge import RuleJudge

FACETS = ("Clarity", "Correctness", "Completeness", "Concision", "Relevance", "Tone", "Structure", "Detail")
"""Names of the criteria this judge proposes (CoEval's task criteria, HD-Eval's sub-criteria)."""

_OUTPUT = re.compile(r"\[The Start of Output\]\n(.*?)\n\[The End of Output\]", re.DOTALL)
_RESPONSE = re.compile(r"\[The Start of Response\]\n(.*?)\n\[The End of Response\]", re.DOTALL)
_QUOTED = r'"((?:[^"\\\n]|\\.)*)"'
_COEVAL_CRITERION = re.compile(rf"^Criterion: {_QUOTED}", re.MULTILINE)
_HDEVAL_METRIC = re.compile(rf"on the following metric:\n{_QUOTED}")
_HDEVAL_SUBJECT = re.compile(rf"I would like to evaluate its {_QUOTED}")
_AROUND = re.compile(r"around (\d+) fine-grained")
_SCALE = re.compile(r"on a scale of (\d+) to (\d+)")


def quality(text: str, facet: str | None) -> float:
    """A number in [0, 1] standing for how good ``text`` is on ``facet`` (a hash: stable, meaningless)."""
    digest = hashlib.sha256(f"{facet or ''}\0{text}".encode()).digest()
    return digest[0] / 255


def score(text: str, facet: str | None, low: int, high: int) -> int:
    """``quality`` as a whole score from ``low`` to ``high``."""
    return low + round((high - low) * quality(text, facet))


ASPECTS = (
    "Does the output follow the instruction?",
    "Is the output correct?",
    "Is the output concise?",
    "Is the output complete?",
    "Is the output clearly written?",
    "Does the output avoid what was not asked for?",
    "Is the output well organised?",
    "Is the output's tone right for the request?",
)
"""DnA-Eval's aspect questions this judge proposes (the first k asked for), weighted as `WEIGHTS`."""
WEIGHTS = (30, 20, 15, 10, 10, 5, 5, 5)
_RULE = RuleJudge(ASPECTS, WEIGHTS, record=False, scorer=lambda text, aspect: score(text, aspect, 1, 10))
_FENNEC = FennecJudge(scorer=lambda text, criterion: score(text, criterion, 1, 5))


def respond(body: Mapping[str, Any]) -> str:
    """The reply to an OpenAI chat request body."""
    messages: Sequence[Mapping[str, Any]] = body["messages"]
    if fennec_judge.stage_of(messages) not in ("other", "fennec.weights"):  # weights: as DnA's, below
        _FENNEC.calls.clear()
        _FENNEC.prompts.clear()
        return _FENNEC.respond(messages)
    prompt = "\n".join(str(m["content"]) for m in messages if m["role"] != "assistant")
    if "I would like to perform automatic evaluation" in prompt:
        return _criteria_list(_count(prompt), _subject(prompt))
    if "on the following metric:" in prompt:
        return _hdeval_score(prompt)
    if "tell me how to evaluate this task" in prompt:
        return _criteria_list(4, None)
    if "[The Start of Output]" in prompt:
        return _coeval(messages, prompt)
    return _RULE.respond(messages)


def _count(prompt: str) -> int:
    found = _AROUND.search(prompt)
    return int(found[1]) if found else 3


def _subject(prompt: str) -> str | None:
    found = _HDEVAL_SUBJECT.search(prompt)
    return _inline(found[1]) if found else None


def _criteria_list(k: int, parent: str | None) -> str:
    names = [name if parent is None else f"{name} of {parent.lower()}" for name in FACETS[: max(1, k)]]
    return "\n".join(
        f"{i}. {name}: how well the output does on {name.lower()}." for i, name in enumerate(names, 1)
    )


def _hdeval_score(prompt: str) -> str:
    metric = _HDEVAL_METRIC.search(prompt)
    response = _RESPONSE.search(prompt)
    name = _inline(metric[1]) if metric else None
    text = unquote(response[1]) if response else ""
    return f"{score(text, name, 1, 5)}\nScored on {name or 'the metric'}."


def _coeval(messages: Sequence[Mapping[str, Any]], prompt: str) -> str:
    found = _OUTPUT.search(prompt)
    output = unquote(found[1]) if found else ""
    scales = _SCALE.findall(str(messages[-1]["content"]))
    low, high = (int(scales[-1][0]), int(scales[-1][1])) if scales else (1, 5)
    if len(messages) > 1:  # the overall call, after the criterion evaluations
        return f"1. Weighing the criteria above.\n\n2. Score: {score(output, None, low, high)}"
    criterion = _COEVAL_CRITERION.search(prompt)
    if criterion is None:  # coeval-direct: the overall score alone
        return f"Score: {score(output, None, low, high)}"
    name = _inline(criterion[1]).split(":", 1)[0].strip()
    first = output.strip().split("\n", 1)[0]
    return (
        f"1. Conclusion: The output is judged on {name}.\n\n"
        f"2. I would assign a score of {score(output, name, low, high)} to this output.\n\n"
        f'3. Evidence:\n- "{first}"'
    )


def _inline(quoted: str) -> str:
    """The text of an inline fenced string (`faceteval.prompts.fence_inline`), escapes undone."""
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m[1], m[1]), quoted)
