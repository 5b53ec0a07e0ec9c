"""The method protocol and what every method shares."""

from __future__ import annotations

import math
import os
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar

import anyio
from pydantic import ValidationError

from faceteval._util.checks import whole_number
from faceteval.core import Criterion, FacetScore, Instance, RecordedMode
from faceteval.core.internal import partial_weights, repeated_name, zero_weights
from faceteval.datasets import Benchmark
from faceteval.errors import (
    AuthenticationError,
    ConfigError,
    FacetevalError,
    InstanceError,
    ParseError,
    ProviderError,
    ProviderUnreachableError,
    StoreError,
)
from faceteval.methods._context import JudgeContext

T = TypeVar("T")

DEFAULT_SCALE = (1.0, 10.0)

CriterionLike = Criterion | str | Mapping[str, Any]
"""A criterion as a method's ``criteria`` takes it: a `Criterion`, a name, or a ``{name, ...}`` mapping."""


@dataclass(frozen=True, slots=True)
class OrderOutcome:
    """A method's result for one presentation order.

    Attributes:
        scores: Overall score per candidate, in the order presented.
        facets: Facet scores, each listing candidates in the order presented.
        explanation: The judge's overall explanation, when there is one.
        score_modes: How each overall score was obtained, when one scoring call gave it and the
            run asked for log-probabilities (`faceteval.core.internal.recorded_modes`); else None.
    """

    scores: tuple[float, ...]
    facets: tuple[FacetScore, ...] = ()
    explanation: str | None = None
    score_modes: list[RecordedMode | None] | None = None


class Method(Protocol):
    """A judging method: configuration in, outcomes out; nothing is stored on it during a run.

    A method may also define ``check(instance) -> None``, raising `InstanceError` for an instance it
    cannot judge as it is: the engine calls it before any call for the instance (and ``--strict``
    before the run), and writes such an instance as an ``error`` judgment. And it may define
    ``for_benchmark(benchmark) -> Method``: itself as it judges a built-in benchmark (the baselines take
    the benchmark's own template there); meta-evaluation calls it (`for_benchmark`).
    """

    name: ClassVar[str]

    def describe(self) -> dict[str, Any]:
        """``{"name": ..., "params": {...}}``: enough to rebuild the method."""
        ...

    def templates(self) -> tuple[str, ...]:
        """The prompt templates the method may render (their hashes go into run records)."""
        ...

    async def judge_order(self, instance: Instance, ctx: JudgeContext) -> OrderOutcome:
        """Judge ``instance`` with its candidates in the order given."""
        ...


def candidate_labels(n: int) -> list[str]:
    """How prompts name the candidates: ``Response 1`` ... ``Response n``, or ``Response`` alone."""
    return ["Response"] if n == 1 else [f"Response {i}" for i in range(1, n + 1)]


def as_criteria(value: Iterable[CriterionLike] | None) -> tuple[Criterion, ...] | None:
    """Criteria from criteria, names or ``{name, description, ...}`` mappings (as run records hold them)."""
    if value is None:
        return None
    return tuple(c if isinstance(c, Criterion) else Criterion.model_validate(c) for c in value)


def method_criteria(value: object) -> tuple[Criterion, ...] | None:
    """A method's ``criteria`` setting as criteria, refused when it could only be a mistake.

    Raises:
        ConfigError: One string, path or criterion (a string would be read letter by letter), a
            set (its order, and so the prompts, would change from run to run), an empty list (it
            would silently mean "generate them"), a criterion that is not valid (named by its
            position), weights that are all 0, or two criteria of one name.
    """
    if value is None:
        return None
    if isinstance(value, os.PathLike):
        raise ConfigError(
            f"criteria is a list of criteria (names, mappings or Criterion objects), not a file: "
            f"read it with load_criteria({value!r})"
        )
    if isinstance(value, str | bytes | Mapping | Criterion):
        named_file = f" (or load_criteria({value!r}) if it names a file)" if isinstance(value, str) else ""
        raise ConfigError(
            f"criteria is a list of criteria (names, mappings or Criterion objects), not one: "
            f"write [{value!r}]{named_file}"
        )
    if isinstance(value, Set):
        raise ConfigError("criteria is a set, whose order changes from run to run: give a list or tuple")
    if not isinstance(value, Iterable):
        raise ConfigError(
            "criteria is a list of criteria (names, mappings or Criterion objects), "
            f"got {type(value).__name__} {value!r}"
        )
    criteria = tuple(_method_criterion(index, item) for index, item in enumerate(value))
    if not criteria:
        raise ConfigError("criteria is empty: list at least one criterion, or leave it out (None)")
    if (problem := zero_weights(criteria) or partial_weights(criteria)) is not None:
        raise ConfigError(f"criteria: {problem}")
    if (index := repeated_name(criteria)) is not None:
        raise ConfigError(f"criteria: criterion {index + 1} repeats the name {criteria[index].name!r}")
    return criteria


def _method_criterion(index: int, item: object) -> Criterion:
    """Item ``index`` of a method's ``criteria`` as a criterion; ConfigError naming it if it is not one."""
    if isinstance(item, Criterion):
        return item
    try:
        return Criterion.model_validate(item)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        field = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in first["loc"])
        raise ConfigError(f"criteria[{index}]{field}: {first['msg']}, got {first['input']!r}") from None


def weighted_criteria(criteria: Sequence[Criterion]) -> None:
    """InstanceError (before any call) when some of an instance's criteria have a weight and some not.

    A method that weighs criteria would otherwise drop the weights given for proposed ones.
    """
    if (problem := partial_weights(criteria)) is not None:
        raise InstanceError(f"criteria: {problem}")


def method_scale(value: Any) -> tuple[float, float]:
    """A method's ``scale`` setting: two finite numbers, low below high.

    Raises:
        ConfigError: Anything else.
    """
    try:
        low, high = (float(end) for end in value)
    except (TypeError, ValueError):
        raise ConfigError(f"scale must be (low, high), two numbers, got {value!r}") from None
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise ConfigError(f"scale must be (low, high) with low < high, got {value!r}")
    return low, high


def positive_count(value: Any, name: str) -> int:
    """A count setting (``aspects``, ``criteria_count``): a whole number, at least 1.

    Raises:
        ConfigError: Anything else.
    """
    if not whole_number(value, 1):
        raise ConfigError(f"{name} must be a whole number of at least 1, got {value!r}")
    return value


def describe_criteria(criteria: Sequence[Criterion] | None) -> list[dict[str, Any]] | None:
    """Criteria as a run record holds them (`as_criteria` reads them back)."""
    return None if criteria is None else [c.model_dump(exclude_defaults=True) for c in criteria]


def for_benchmark(method: Method, benchmark: Benchmark | None) -> Method:
    """``method`` as it judges ``benchmark`` (its ``for_benchmark``, if it has one); else as it is."""
    adapt: Callable[[Benchmark], Method] | None = getattr(method, "for_benchmark", None)
    return method if benchmark is None or adapt is None else adapt(benchmark)


def shown(instance: Instance) -> dict[str, Any]:
    """What every prompt that shows candidates renders: query, candidates, their labels, reference."""
    return {
        "query": instance.query,
        "candidates": instance.candidates,
        "labels": candidate_labels(instance.n_candidates),
        "reference": instance.reference,
    }


def severity(error: BaseException) -> int:
    """Which of several concurrent failures to report: bugs first, then fatal, provider, parse."""
    if not isinstance(error, FacetevalError):
        return 0
    if isinstance(error, AuthenticationError | ProviderUnreachableError | ConfigError | StoreError):
        return 1
    if isinstance(error, ProviderError | InstanceError):
        return 2
    if isinstance(error, ParseError):
        return 3
    return 4


async def gather(thunks: Sequence[Callable[[], Awaitable[T]]]) -> list[T]:
    """Run ``thunks`` concurrently; all finish, then the most severe failure (if any) is raised alone."""
    results: list[Any] = [None] * len(thunks)
    errors: list[Exception] = []

    async def run(index: int, thunk: Callable[[], Awaitable[T]]) -> None:
        try:
            results[index] = await thunk()
        except Exception as exc:
            errors.append(exc)

    async with anyio.create_task_group() as group:
        for index, thunk in enumerate(thunks):
            group.start_soon(run, index, thunk)
    if errors:
        raise min(errors, key=severity)
    return results
