"""Fennec's replies as JSON (structured output): guideline, judge result, rewrite, final decision.

Each gives the `faceteval.llm.JsonReply` of one of `faceteval.methods.fennec._parsers`' parsers, read
into the value that parser gives for a free-text reply.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from faceteval._util.numbers import fmt
from faceteval.errors import ParseError
from faceteval.llm import JsonReply
from faceteval.parsing import reply_model, text_field
from faceteval.parsing.internal import bounded_text, score_type

_LEVELS = 5
_DECISIONS = {"Response 1": 1, "Response 2": 2, "Tie": 0}


def guideline_reply(check: Callable[[str], str], example: str) -> JsonReply[str]:
    """A 1-5 guideline: five descriptions, one per score, written as the free-text form's numbered list
    and checked by ``check`` (the free-text parser)."""
    model = _guideline_model()

    def read(reply: Any, text: str) -> str:
        for k, level in enumerate(reply.levels, start=1):
            if not level.strip():
                raise ParseError(f"the description of score {k} is empty", raw=text)
        return check("\n".join(f"{k}. {level.strip()}" for k, level in enumerate(reply.levels, start=1)))

    levels = [line.partition(". ")[2] for line in example.splitlines()]
    return JsonReply("guideline", model, read, {"levels": levels})


@functools.cache
def _guideline_model() -> type[BaseModel]:
    return reply_model(
        "GuidelineReply",
        "A scoring guideline from 1 to 5.",
        levels=(
            list[bounded_text()],  # type: ignore[misc]
            Field(
                min_length=_LEVELS,
                max_length=_LEVELS,
                description='What a response with each score is like, from 1 to 5 in order ("Not at all '
                'satisfactory: ...", ..., "Extremely satisfactory: ...").',
            ),
        ),
    )


def judge_result_reply(
    labels: Sequence[str], scale: tuple[float, float], make: Callable[..., Any], example: str
) -> JsonReply[Any]:
    """A judge result: per response (in label order) a score and its explanation, then a comparison
    when there are several; ``make(values, explanations, comparison)`` builds the value."""
    low, high = scale
    model = _judge_result_model(tuple(labels), float(low), float(high))

    def read(reply: Any, text: str) -> Any:
        values = tuple(float(j.score) for j in reply.judgments)
        explanations = tuple(j.explanation.strip() for j in reply.judgments)
        comparison = getattr(reply, "comparison", "").strip()
        return make(values, explanations, comparison or None)

    shown: dict[str, Any] = {
        "judgments": [
            {
                "score": high - k % 2,
                "explanation": f"{label} matches the guideline's description of this score.",
            }
            for k, label in enumerate(labels)
        ]
    }
    if len(labels) > 1:
        shown["comparison"] = example.rpartition("Comparison: ")[2]
    return JsonReply("judge_result", model, read, shown)


@functools.cache
def _judge_result_model(labels: tuple[str, ...], low: float, high: float) -> type[BaseModel]:
    judgment = reply_model(
        "Judgment",
        "One response's judgment.",
        score=(
            score_type(low, high),
            Field(description=f"From {fmt(low)} to {fmt(high)}."),
        ),
        explanation=text_field("Why the response gets this score, following the scoring guideline."),
    )
    fields: dict[str, Any] = {
        "judgments": (
            list[judgment],  # type: ignore[valid-type]
            Field(
                min_length=len(labels),
                max_length=len(labels),
                description=f"One judgment per response, in this order: {', '.join(labels)}.",
            ),
        )
    }
    if len(labels) > 1:
        fields["comparison"] = text_field("How the responses compare.")
    return reply_model("JudgeResultReply", "The judge result of the responses.", **fields)


def rewrite_reply(check: Callable[[str], str], example: str) -> JsonReply[str]:
    """A rewritten response, checked by ``check`` (the free-text parser: empty, a refusal)."""
    return JsonReply(
        "rewrite",
        _rewrite_model(),
        lambda reply, text: check(reply.modified_response),
        {"modified_response": example},
    )


@functools.cache
def _rewrite_model() -> type[BaseModel]:
    return reply_model(
        "RewriteReply",
        "The modified response.",
        modified_response=text_field("The modified response itself.", max_length=None),
    )


def decision_reply(example: str) -> JsonReply[int]:
    """A final decision (1, 2, or 0 for a tie), after its explanation."""
    shown = {"explanation": example.partition(" So, ")[0], "final_decision": "Response 1"}
    return JsonReply(
        "decision", _decision_model(), lambda reply, text: _DECISIONS[reply.final_decision], shown
    )


@functools.cache
def _decision_model() -> type[BaseModel]:
    return reply_model(
        "DecisionReply",
        "A pairwise judgment and its final decision.",
        explanation=text_field("The judgment of the two responses."),
        final_decision=(
            Literal["Response 1", "Response 2", "Tie"],
            Field(description="The better response, or Tie."),
        ),
    )
