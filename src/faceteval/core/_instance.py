"""The unit of input: a query, its candidate outputs, and what humans said about them."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, FiniteFloat, ValidationInfo, field_validator

from faceteval._util.text import plural
from faceteval.core._criterion import Criterion, repeated_name, zero_weights


class Instance(BaseModel):
    """One query with one or more candidate outputs to judge.

    ``candidates`` has one item for single (pointwise) judging and two or more for pairwise or
    listwise judging. ``label`` is the human preference as a 1-based index into ``candidates``,
    0 for a tie.

    Examples:
        >>> pair = Instance(id="q1", query="2+2?", candidates=["4", "5"], label=1)
        >>> pair.n_candidates
        2
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    """Unique within a file."""
    query: str
    """The instruction or question the candidates answer."""
    candidates: tuple[str, ...] = Field(min_length=1)
    """The outputs to judge."""
    reference: str | None = None
    """A reference answer, when the benchmark has one."""
    criteria: tuple[Criterion, ...] | None = None
    """Predefined criteria for this instance (strings or ``{name, description}`` objects)."""
    task: str | None = None
    """A task description shared by many instances."""
    category: str | None = None
    """A category for per-category reports."""
    label: int | None = Field(default=None, ge=0)
    """Human preference: 1-based index of the better candidate, 0 for a tie."""
    scores: dict[str, FiniteFloat] | None = None
    """Human scores per aspect (pointwise benchmarks)."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Anything else, carried along untouched."""
    systems: tuple[str, ...] | None = Field(default=None, exclude_if=lambda value: value is None)
    """The name of the system behind each candidate, in candidate order (for a run's result per
    system); never shown to a judge. Left out of the instance's JSON when not given."""

    @field_validator("label", mode="before")
    @classmethod
    def _label_is_a_number(cls, value: Any) -> Any:
        if isinstance(value, bool):  # true would otherwise be read as candidate 1
            raise ValueError(
                "a label is the better candidate's 1-based number, or 0 for a tie, not true or false"
            )
        return value

    @field_validator("scores", mode="before")
    @classmethod
    def _scores_are_numbers(cls, value: Any) -> Any:
        if isinstance(value, dict) and (flags := [k for k, v in value.items() if isinstance(v, bool)]):
            raise ValueError(f"a score is a number, not true or false (aspect {flags[0]!r})")
        return value

    @field_validator("id", mode="before")
    @classmethod
    def _id_as_string(cls, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        return value

    @field_validator("criteria")
    @classmethod
    def _criteria_not_empty(cls, value: tuple[Criterion, ...] | None) -> tuple[Criterion, ...] | None:
        if value is not None and not value:
            raise ValueError("must list at least one criterion, or be left out")
        if value is not None and (problem := zero_weights(value)) is not None:
            raise ValueError(problem)
        if value is not None and (index := repeated_name(value)) is not None:
            raise ValueError(f"criterion {index + 1} repeats the name {value[index].name!r}")
        return value

    @field_validator("systems")
    @classmethod
    def _one_system_per_candidate(
        cls, value: tuple[str, ...] | None, info: ValidationInfo
    ) -> tuple[str, ...] | None:
        if value is None:
            return None
        if blank := [i + 1 for i, name in enumerate(value) if not name.strip()]:
            raise ValueError(f"system {blank[0]} has no name (a system's name is a non-blank text)")
        if len(set(value)) < len(value):
            twice = next(name for name in value if value.count(name) > 1)
            raise ValueError(f"names the system {twice!r} twice (one system per candidate)")
        candidates = info.data.get("candidates")
        if candidates is not None and len(value) != len(candidates):
            raise ValueError(
                f"names {len(value)} system{'s' * (len(value) != 1)} for {len(candidates)} candidates "
                "(one name per candidate, in candidate order)"
            )
        return value

    @field_validator("label")
    @classmethod
    def _label_in_range(cls, value: int | None, info: ValidationInfo) -> int | None:
        candidates = info.data.get("candidates")
        if value is not None and candidates is not None and value > len(candidates):
            raise ValueError(
                f"label {value} is out of range: there {'is' if len(candidates) == 1 else 'are'} "
                f"{plural(len(candidates), 'candidate')} "
                "(use 1..n for the better candidate, 0 for a tie)"
            )
        return value

    def content_hash(self) -> str:
        """A short digest of what a judge sees: the query, candidates, reference, task and criteria.

        Judgments record it (`Judgment.input_hash`), so that commands reading a judged input again
        can tell when an instance was edited since it was judged.
        """
        # Defaults left out: a field added later, at its default, leaves earlier hashes as they were.
        shown = {"query", "candidates", "reference", "task", "criteria"}
        seen = self.model_dump(include=shown, mode="json", exclude_defaults=True)
        text = json.dumps(seen, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]

    @property
    def n_candidates(self) -> int:
        """How many candidates this instance has."""
        return len(self.candidates)

    def permuted(self, order: tuple[int, ...]) -> Instance:
        """This instance with candidates presented in ``order`` (0-based indices into ``candidates``).

        The human label is dropped from the copy: it refers to the original order, and judges never see it.
        System names, when given, follow their candidates.
        """
        update: dict[str, Any] = {"candidates": tuple(self.candidates[i] for i in order), "label": None}
        if self.systems is not None:
            update["systems"] = tuple(self.systems[i] for i in order)
        return self.model_copy(update=update)
