"""What Fennec correction reads: the judgments of each response, checked, with the instances judged."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from faceteval.aggregation import weighted_sum
from faceteval.core import Criterion, FacetScore, Instance, Judgment
from faceteval.datasets.internal import changed_since, judged_instances, read_numbered_judgments, why_missing
from faceteval.errors import InputError
from faceteval.workflows.fennec._judged import either, per_criterion_methods


class CriterionJudgment(BaseModel):
    """One criterion's judgment of one response, as the correction prompt is given it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    criterion: str
    """The criterion's name."""
    description: str | None = None
    guideline: str | None = None
    """The 1-5 scoring guideline the score follows."""
    score: float
    """The response's 1-5 score on the criterion."""
    explanation: str
    """The judge's explanation of this response's score."""
    weight: float | None = None
    """The criterion's weight in the judgment, when it was judged with weights."""

    def shown(self) -> dict[str, str]:
        """The judgment as the correction prompt shows it: criterion (name: description), score, explanation.

        Examples:
            >>> judged = CriterionJudgment(criterion="Clarity", description="Clear?", score=2, explanation="")
            >>> judged.shown()
            {'criterion': 'Clarity: Clear?', 'score': '2', 'explanation': ''}
        """
        return {
            "criterion": self.as_criterion().describe(),
            "score": f"{self.score:g}",
            "explanation": self.explanation,
        }

    def as_criterion(self) -> Criterion:
        """The criterion with its guideline and weight, to judge other responses on it."""
        return Criterion(
            name=self.criterion,
            description=self.description or "",
            guideline=self.guideline,
            weight=self.weight,
        )


@dataclass(frozen=True, slots=True)
class Correctable:
    """A judgment read for correction, with the instance it judged.

    Attributes:
        judgment: The judgment, without its trace (correction does not need it).
        instance: The judged instance; None for a failed judgment whose instance is not known.
        line: The judgment's line in its file.
    """

    judgment: Judgment
    instance: Instance | None
    line: int


def response_score(facets: Sequence[FacetScore], candidate: int) -> float:
    """A response's score for correction: the mean of its per-criterion 1-5 scores.

    The mean is weighted by the facets' weights when every facet has one (a judgment made with
    ``aggregate=weighted``), else unweighted. ``candidate`` is 1-based.

    Raises:
        ValueError: There are no facets, or the response has no score on one of them.

    Examples:
        >>> facets = [FacetScore(name="A", scores=[2, 4]), FacetScore(name="B", scores=[3, 5])]
        >>> response_score(facets, 1), response_score(facets, 2)
        (2.5, 4.5)
        >>> weighted = [f.model_copy(update={"weight": w}) for f, w in zip(facets, [0.75, 0.25])]
        >>> response_score(weighted, 1)
        2.25
    """
    scores = [facet.scores[candidate - 1] for facet in facets]
    known = [score for score in scores if score is not None]
    if len(known) != len(scores):
        raise ValueError(f"response {candidate} has no score on some criterion")
    weights = [facet.weight for facet in facets]
    fixed = [weight for weight in weights if weight is not None]
    return weighted_sum(
        [[score] for score in known], fixed if len(fixed) == len(weights) else [1.0] * len(weights)
    )[0]


def criterion_judgments(judgment: Judgment, candidate: int) -> list[CriterionJudgment]:
    """Response ``candidate``'s (1-based) judgment on each criterion of a fennec ``judgment``.

    Judged in several orders (``--swap``), it is the original order's: each score beside the
    explanation written for it, where the judgment's facets hold scores averaged over the orders.

    Raises:
        ValueError: A criterion has no score or no explanation for the response.
    """
    out = []
    for facet in judgment.orders[0].facets if judgment.orders else judgment.facets:
        score = facet.scores[candidate - 1]
        explanation = None if facet.explanations is None else facet.explanations[candidate - 1]
        if score is None or explanation is None:
            raise ValueError(f"criterion {facet.name!r} has no score or explanation for response {candidate}")
        out.append(
            CriterionJudgment(
                criterion=facet.name,
                description=facet.description,
                guideline=facet.guideline,
                score=score,
                explanation=explanation,
                weight=facet.weight,
            )
        )
    return out


def load_correctable(judgments_path: Path, input_path: Path | None = None) -> list[Correctable]:
    """Every judgment of ``judgments_path`` with its instance, each checked (see `read_correctable`).

    The instances come from ``input_path``, else from where `faceteval.datasets.internal.judged_instances`
    finds them (the run record beside the judgments, or a meta-evaluation run's ``instances.jsonl``).

    Raises:
        InputError: A line cannot be corrected (file and line named), or the input is malformed.
        FacetevalError: The judged input cannot be found.
    """
    return list(read_correctable(judgments_path, judged_instances(judgments_path, input_path)))


def read_correctable(judgments_path: Path, instances: Mapping[str, Instance]) -> Iterator[Correctable]:
    """The judgments of ``judgments_path`` with their instances, streamed, traces dropped.

    Raises:
        InputError: A line is not a judgment, not a fennec judgment, an ok judgment without
            per-response explanations, or one of an instance not in ``instances`` (file and line named).
    """
    name = str(judgments_path)
    for line, judgment in read_numbered_judgments(judgments_path):
        _check(name, line, judgment, instances)
        yield Correctable(judgment.model_copy(update={"trace": []}), instances.get(judgment.id), line)


def _check(path: str, line: int, judgment: Judgment, instances: Mapping[str, Instance]) -> None:
    if judgment.method not in (methods := per_criterion_methods()):
        raise InputError(
            path,
            line,
            "method",
            f"judgment {judgment.id!r} was made with method {judgment.method!r}; correction needs "
            f"{either(methods)} judgments (faceteval judge --method {methods[0]})",
        )
    if judgment.status != "ok":
        return
    instance = instances.get(judgment.id)
    if instance is None:
        raise InputError(path, line, "id", f"instance {judgment.id!r}: {why_missing(instances, judgment.id)}")
    if (changed := changed_since(instance, judgment)) is not None:
        raise InputError(path, line, "input_hash", changed)
    if not judgment.facets:
        raise InputError(path, line, "facets", "the judgment has no per-criterion scores")
    _check_facets(path, line, judgment.facets, instance.n_candidates)


def _check_facets(path: str, line: int, facets: Sequence[FacetScore], n: int) -> None:
    """Every facet has a score and an explanation for each of the ``n`` responses."""
    for j, facet in enumerate(facets):
        explanations = facet.explanations
        if explanations is None or len(explanations) != n or any(e is None for e in explanations):
            raise InputError(
                path,
                line,
                f"facets.{j}.explanations",
                f"criterion {facet.name!r} lacks an explanation for {_each_response(n)}",
            )
        if len(facet.scores) != n or any(s is None for s in facet.scores):
            raise InputError(
                path,
                line,
                f"facets.{j}.scores",
                f"criterion {facet.name!r} lacks a score for {_each_response(n)}",
            )


def _each_response(n: int) -> str:
    """``each of the n responses``, or ``its response`` for one."""
    return "its response" if n == 1 else f"each of the {n} responses"
