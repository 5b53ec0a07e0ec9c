"""CoEval's replies as JSON (structured output): a criterion evaluation and an overall evaluation.

Each gives the `faceteval.llm.JsonReply` of a parser of `faceteval.methods.coeval._parsers`, read into
the value that parser gives for a free-text reply (its ``explanation``, the whole reply, is the JSON).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from faceteval._util.numbers import fmt
from faceteval.llm import JsonReply
from faceteval.parsing import reply_model, text_field
from faceteval.parsing.internal import bounded_text, score_type

EVIDENCE_MAX_ITEMS = 5
"""The ``maxItems`` of the evidence list's schema: a server that enforces the schema ends the list there
(a small model has been seen to quote the same sentences until ``max_tokens`` cut the JSON); a
longer list is still read."""


def _score(scale: tuple[float, float]) -> tuple[Any, Any]:
    low, high = scale
    return score_type(low, high), Field(description=f"One number from {fmt(low)} to {fmt(high)}.")


def example_score(scale: tuple[float, float]) -> float:
    """The score the free-text examples give."""
    return float(round(scale[0] + 0.67 * (scale[1] - scale[0])))


def criterion_reply(scale: tuple[float, float], make: Callable[..., Any]) -> JsonReply[Any]:
    """A criterion evaluation: conclusion, score and evidence (Appendix A's three parts, in order);
    ``make(score, conclusion, evidence, text)`` builds the value."""
    model = _criterion_model(float(scale[0]), float(scale[1]))

    def read(reply: Any, text: str) -> Any:
        evidence = tuple(item.strip() for item in reply.evidence if item.strip())
        return make(float(reply.score), reply.conclusion.strip(), evidence, text.strip())

    shown = {
        "conclusion": "The output mostly satisfies the criterion: it answers the main point in plain words.",
        "score": example_score(scale),
        "evidence": ["The first sentence answers the question directly."],
    }
    return JsonReply("criterion_evaluation", model, read, shown)


@functools.cache
def _criterion_model(low: float, high: float) -> type[BaseModel]:
    return reply_model(
        "CriterionEvaluationReply",
        "An evaluation of the output on one criterion.",
        conclusion=text_field("Whether the output satisfies the criterion, with explanations."),
        score=_score((low, high)),
        evidence=(
            list[bounded_text()],  # type: ignore[misc]
            Field(
                description=f"Sentences quoted from the output, one per item (at most {EVIDENCE_MAX_ITEMS}).",
                json_schema_extra={"maxItems": EVIDENCE_MAX_ITEMS},
            ),
        ),
    )


def overall_reply(scale: tuple[float, float], *, direct: bool, make: Callable[..., Any]) -> JsonReply[Any]:
    """An overall evaluation: an explanation then the score (only the score, ``direct``);
    ``make(score, reasoning, text)`` builds the value."""
    model = _overall_model(float(scale[0]), float(scale[1]), direct)

    def read(reply: Any, text: str) -> Any:
        return make(float(reply.score), "" if direct else reply.explanation.strip(), text.strip())

    shown: dict[str, Any] = {} if direct else {"explanation": "The output meets most of the criteria."}
    shown["score"] = example_score(scale)
    return JsonReply("overall_evaluation", model, read, shown)


@functools.cache
def _overall_model(low: float, high: float, direct: bool) -> type[BaseModel]:
    fields: dict[str, Any] = (
        {} if direct else {"explanation": text_field("The overall quality of the output.")}
    )
    fields["score"] = _score((low, high))
    return reply_model("OverallEvaluationReply", "The overall score of the output.", **fields)
