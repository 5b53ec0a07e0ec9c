"""The JSON forms of the generic replies (structured output): scores, weights, criteria lists.

Each builder gives a `faceteval.llm.JsonReply`: a pydantic model (its JSON schema is what the provider
is sent), and a reader that turns a validated reply into the very value the free-text parser gives,
with the same checks where the schema cannot make them (a repeated criterion, weights summing to 0).
The schemas hold only the project's own wording and the candidate labels, never a text from the
input (an aspect's name, say): that stays fenced in the prompt.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, create_model

from faceteval._util.numbers import fmt
from faceteval.core import Criterion
from faceteval.llm import JsonReply
from faceteval.parsing._weight_lines import Weight

T = TypeVar("T")

_CLOSED = ConfigDict(extra="forbid")
TEXT_MAX_CHARS = 1000
"""The ``maxLength`` a free-text field's schema gives (an explanation): a server that enforces the
schema then stops the text there rather than at ``max_tokens``, which would cut the JSON."""


def reply_model(title: str, doc: str, /, **fields: Any) -> type[BaseModel]:
    """A closed pydantic model ``title`` (``extra="forbid"``) with ``fields``, in their order.

    Each field is ``(type, FieldInfo)`` as `pydantic.create_model` takes it.
    """
    model: type[BaseModel] = create_model(title, __config__=_CLOSED, __doc__=doc, **fields)
    return model


ENUM_SCORES = 20
"""The most whole-number scores a schema lists as an ``enum`` (1-10 and 1-5 are; 0-100 is not)."""


def score_type(low: float, high: float) -> Any:
    """A score from ``low`` to ``high``: read as a float within the bounds (``8.0`` and ``7.5`` too), and
    in the schema ``"type": "integer"`` when the scale is of whole numbers at least 2 apart (1-5,
    1-10): llama.cpp's grammar enforces ``minimum`` and ``maximum`` only on integers, and a server sent
    a ``number`` on 1-5 answered 23. On a scale of at most `ENUM_SCORES` values the schema lists them
    (``enum``) as well: llama-cpp-python's own grammar ignores ``minimum`` and ``maximum`` (a 0.5B
    model answered 90 and 100 on 1-10 through it), but no grammar ignores an ``enum``.

    Examples:
        >>> from pydantic import TypeAdapter
        >>> TypeAdapter(score_type(1, 5)).json_schema()
        {'enum': [1, 2, 3, 4, 5], 'maximum': 5, 'minimum': 1, 'type': 'integer'}
        >>> TypeAdapter(score_type(0, 100)).json_schema()
        {'maximum': 100, 'minimum': 0, 'type': 'integer'}
        >>> TypeAdapter(score_type(0, 1)).json_schema()
        {'maximum': 1.0, 'minimum': 0.0, 'type': 'number'}
    """
    low, high = float(low), float(high)
    if low.is_integer() and high.is_integer() and high - low >= 2:
        whole: dict[str, Any] = {"type": "integer", "minimum": int(low), "maximum": int(high)}
        if high - low < ENUM_SCORES:
            whole["enum"] = list(range(int(low), int(high) + 1))
        return Annotated[float, Field(ge=low, le=high, json_schema_extra=whole)]
    return Annotated[float, Field(ge=low, le=high)]


def scores_field(labels: Sequence[str], scale: tuple[float, float]) -> tuple[Any, Any]:
    """One score on ``scale`` per candidate, in label order."""
    low, high = float(scale[0]), float(scale[1])
    item = score_type(low, high)
    n = len(labels)
    described = f"One score from {fmt(low)} to {fmt(high)} per candidate, in this order: {', '.join(labels)}."
    return list[item], Field(min_length=n, max_length=n, description=described)  # type: ignore[valid-type]


def text_field(description: str, *, max_length: int | None = TEXT_MAX_CHARS) -> tuple[Any, Any]:
    """A string field; its schema has ``maxLength`` ``max_length`` (None: none), which only a server that
    enforces the schema holds to: a longer reply is still read."""
    if max_length is None:
        return str, Field(description=description)
    return str, Field(description=description, json_schema_extra={"maxLength": max_length})


def bounded_text() -> Any:
    """A string, with `TEXT_MAX_CHARS` as its schema's ``maxLength`` (a list's items: quoted evidence)."""
    return Annotated[str, Field(json_schema_extra={"maxLength": TEXT_MAX_CHARS})]


def scores_reply(
    labels: Sequence[str],
    scale: tuple[float, float],
    *,
    position: Literal["first", "last"],
    explained: bool,
    example: Sequence[float],
    explanation: str,
    make: Callable[[tuple[float, ...], str], T],
) -> JsonReply[T]:
    """`faceteval.parsing.ScoreParser`'s reply: ``scores``, and an ``explanation`` after them
    (``position="first"``) or before them (``"last"``: the reasoning first), as its free-text form
    orders them; ``make`` builds the value from the scores and the explanation."""
    model = _scores_model(tuple(labels), float(scale[0]), float(scale[1]), position, explained)

    def read(reply: Any, text: str) -> T:
        why = reply.explanation.strip() if explained else ""
        return make(tuple(float(v) for v in reply.scores), why)

    shown: dict[str, Any] = {"scores": list(example)}
    if explained:
        shown = {"scores": list(example), "explanation": explanation}
    return JsonReply("scores", model, read, shown)


@functools.cache
def _scores_model(
    labels: tuple[str, ...], low: float, high: float, position: Literal["first", "last"], explained: bool
) -> type[BaseModel]:
    """The model of a scores reply (built once per shape: building a model costs milliseconds)."""
    fields: dict[str, Any] = {"scores": scores_field(labels, (low, high))}
    if explained:
        said = text_field("Why the scores are what they are.")
        fields = {"scores": fields["scores"], "explanation": said}
        if position == "last":
            fields = {"explanation": said, "scores": fields["scores"]}
    return reply_model("ScoresReply", "The scores of the candidates.", **fields)


def weights_reply(
    count: int, normalised: Callable[[list[Weight], str], tuple[float, ...]], example: Sequence[float]
) -> JsonReply[tuple[float, ...]]:
    """`faceteval.parsing.WeightParser`'s reply: one percentage per aspect, read as its free-text percentages
    are (normalised to sum to 1, with the same checks on the sum)."""
    model = _weights_model(count)

    def read(reply: Any, text: str) -> tuple[float, ...]:
        return normalised([Weight(float(v), True, f"{fmt(float(v))}%") for v in reply.weights], text)

    return JsonReply("weights", model, read, {"weights": list(example)})


@functools.cache
def _weights_model(count: int) -> type[BaseModel]:
    weight = Annotated[float, Field(ge=0)]
    return reply_model(
        "WeightsReply",
        "The weight of each aspect.",
        weights=(
            list[weight],
            Field(
                min_length=count,
                max_length=count,
                description="One weight per aspect, in the order the aspects are listed, as percentages "
                "that sum to 100.",
            ),
        ),
    )


def criteria_reply(
    count: int | None,
    checked: Callable[[list[tuple[str, str]], str], tuple[Criterion, ...]],
    example: Sequence[tuple[str, str]],
    *,
    limit: int | None = None,
) -> JsonReply[tuple[Criterion, ...]]:
    """A criteria list's reply: ``criteria``, each a ``name`` and a ``description``, ``count`` of them
    (any number from 1 when None, at most ``limit``), read through ``checked`` (the free-text parser's
    check of the list)."""
    model = _criteria_model(count, count if count is not None else limit)

    def read(reply: Any, text: str) -> tuple[Criterion, ...]:
        pairs = [(c.name.strip(), c.description.strip()) for c in reply.criteria]
        return checked(pairs, text)

    shown = {"criteria": [{"name": n, "description": d} for n, d in example]}
    return JsonReply("criteria", model, read, shown)


@functools.cache
def _criteria_model(count: int | None, most: int | None) -> type[BaseModel]:
    item = reply_model(
        "Criterion",
        "One criterion.",
        name=text_field("The criterion: a short name, or a yes/no question about the output."),
        description=text_field("What the criterion checks (may be empty)."),
    )
    return reply_model(
        "CriteriaReply",
        "A list of evaluation criteria.",
        criteria=(
            list[item],  # type: ignore[valid-type]
            Field(min_length=count or 1, max_length=most, description="The criteria, in order."),
        ),
    )
