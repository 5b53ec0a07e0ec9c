"""Criteria (facets): what a judgment is decomposed into."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from faceteval._util.text import plural


class Criterion(BaseModel):
    """One criterion (a facet) to judge an output on; a tree for hierarchical methods.

    Flat methods use a list of leaves. A criterion given as a bare string becomes one with that
    name and no description.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1)
    """Short name, or a question ("Does the output answer in French?")."""
    description: str = ""
    """What the criterion means, as shown to the judge."""
    guideline: str | None = None
    """A scoring rubric: what each score on the scale means."""
    scale: tuple[float, float] | None = None
    """The (low, high) score range, when it differs from the method's default."""
    weight: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    """A fixed weight; when every criterion has one, methods use them instead of asking for weights."""
    children: tuple[Criterion, ...] = ()
    """Sub-criteria (the HD-Eval tree)."""

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, value: Any) -> Any:
        if isinstance(value, str):
            return {"name": value}
        return value

    @field_validator("name")
    @classmethod
    def _strip_name(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("must not be blank")
        return value

    @field_validator("weight", "scale", mode="before")
    @classmethod
    def _no_booleans(cls, value: Any) -> Any:
        # Lax parsing would read `weight: true` (a YAML slip) as 1.0, and a scale end likewise.
        ends = value if isinstance(value, list | tuple) else [value]
        if any(isinstance(end, bool) for end in ends):
            raise ValueError(f"expected a number, got {value!r}")
        return value

    @field_validator("scale")
    @classmethod
    def _ordered_scale(cls, value: tuple[float, float] | None) -> tuple[float, float] | None:
        if value is not None and not all(math.isfinite(end) for end in value):
            raise ValueError(f"the ends must be finite numbers, got {value!r}")
        if value is not None and value[0] >= value[1]:
            raise ValueError(f"low must be below high, got {value!r}")
        return value

    def describe(self) -> str:
        """The criterion as one line of prompt text: name, then description when there is one."""
        return f"{self.name}: {self.description}" if self.description else self.name

    def leaves(self) -> list[Criterion]:
        """The leaf criteria under this one (itself, when it has no children)."""
        if not self.children:
            return [self]
        return [leaf for child in self.children for leaf in child.leaves()]


def partial_weights(criteria: Sequence[Criterion]) -> str | None:
    """What is wrong when some criteria have a weight and some not, else None.

    Weights are used only when every criterion has one: the ones given would be silently dropped
    for weights the LLM proposes. (Checked where criteria are given and where weights are used, not
    when an instance is read: inputs judged before, without weights, stay readable.)
    """
    given = [c.name for c in criteria if c.weight is not None]
    if given and len(given) < len(criteria):
        return (
            f"{len(given)} of {plural(len(criteria), 'criterion')} {'has' if len(given) == 1 else 'have'} a "
            f"weight ({', '.join(given[:3])}"
            f"{', ...' if len(given) > 3 else ''}); give every criterion a weight, or none to have "
            "weights proposed per query"
        )
    return None


def repeated_name(criteria: Sequence[Criterion]) -> int | None:
    """The index of the first criterion whose name an earlier one has (case aside), else None.

    Facets are told apart by name (in weights, reports and reviews), so two of one name would be
    read as one.
    """
    seen: set[str] = set()
    for index, criterion in enumerate(criteria):
        key = criterion.name.strip().casefold()
        if key in seen:
            return index
        seen.add(key)
    return None


def zero_weights(criteria: Sequence[Criterion]) -> str | None:
    """What is wrong when every criterion has a weight and they add up to 0, else None.

    Such weights cannot be normalised: the criteria would silently get weights proposed by the LLM.
    """
    weights = [c.weight for c in criteria]
    if weights and all(w is not None for w in weights) and not any(weights):
        return (
            "every weight is 0; give at least one criterion a positive weight, "
            "or leave weights out to have them proposed per query"
        )
    return None
