"""The result of a judge run, counted as its judgments are written (`faceteval.results.ResultBuilder`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from faceteval._runner._judge import Item
from faceteval.core import Judgment
from faceteval.datasets import HumanLabel
from faceteval.errors import FacetevalError
from faceteval.results import JudgeResult, ResultBuilder, ResultOptions


class ResultTally:
    """Counts a run's judgments into its result as they are written, in bounded memory.

    Judge `items` (the instances, each noted as it is read for the systems behind its candidates);
    `add` each judgment written; `carry` each judgment of an earlier run that the output keeps, of
    an instance the run may not have read (it stopped first): the instances are read on until it is,
    so that its systems are those of its instance. `result` is the result of what was counted (with
    ``labels``, human labels by id in place of the instances' own; with ``group_by``, each group's too).

    Examples:
        >>> from faceteval.core import Instance, Judgment
        >>> pairs = [Instance(id=str(i), query="q", candidates=["x", "y"], systems=["A", "B"]) for i in "12"]
        >>> tally = ResultTally(pairs)
        >>> tally.add(Judgment(id=next(tally.items).id, method="m", status="ok", verdict=2))
        >>> tally.carry(Judgment(id="2", method="m", status="ok", verdict=2))  # its instance unread yet
        >>> [(s.name, s.wins) for s in tally.result().pairwise.systems]
        [('B', 2), ('A', 0)]
    """

    def __init__(
        self,
        items: Iterable[Item],
        *,
        labels: Mapping[str, HumanLabel] | None = None,
        group_by: str | None = None,
    ) -> None:
        self._builder = ResultBuilder(labels=labels, options=ResultOptions(group_by=group_by))
        self.items: Iterator[Item] = self._builder.noting(items)
        """The items to judge: ``items``, each instance noted as it is read."""

    def add(self, judgment: Judgment) -> None:
        """Count a judgment the run wrote (or handed on)."""
        self._builder.add(judgment)

    def carry(self, judgment: Judgment) -> None:
        """Count an earlier judgment the output keeps, its instance read first if it was not."""
        while not self._builder.noted(judgment.id):
            try:
                next(self.items)
            except (StopIteration, FacetevalError, OSError):  # the input ended, or cannot be read on
                break
        self._builder.add(judgment)

    def result(self) -> JudgeResult:
        """The result of the judgments counted."""
        return self._builder.result()
