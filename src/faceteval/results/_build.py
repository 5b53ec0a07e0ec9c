"""Building a run's result from its judgments, as they come or all at once."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from faceteval.core import Instance, JudgeResult, Judgment, PairwiseResult, PointwiseResult
from faceteval.core.internal import RESULT_SCHEMA, failure_kind
from faceteval.datasets import HumanLabel
from faceteval.errors import ConfigError, InputError
from faceteval.results._human import HumanTally, check_labels
from faceteval.results._options import DEFAULT_RESULT_OPTIONS, ResultOptions
from faceteval.results._sections import Pairwise, Pointwise
from faceteval.results._tally import proportion
from faceteval.results._verdicts import candidate_count, comparisons


@dataclass(frozen=True, slots=True)
class _Shape:
    """What a result needs of an instance: its candidates' systems, and whether it named them."""

    systems: tuple[str, ...]
    named: bool
    label: int | None = None
    scores: Mapping[str, float] | None = None


class ResultBuilder:
    """Counts judgments as they come (memory bounded by systems and facets), then makes the result.

    Each judgment is matched with its instance (``add(judgment, instance)``, or by id with the
    instances passed through `noting`) for its candidates' systems: the instance's own
    (`Instance.systems`), else ``systems`` when given, else the candidate positions ``"1"``,
    ``"2"`` ... A failed judgment with no instance counts in the run's failures alone.

    Instances with a human ``label`` (pairwise) or ``scores`` (pointwise), or ``labels`` by id (a
    labels file's, in their place), add the result as humans would give it (`JudgeResult.human`):
    prediction-powered win rates and means.

    Examples:
        >>> from faceteval.core import Instance, Judgment
        >>> pair = Instance(id="1", query="q", candidates=["x", "y"], systems=["A", "B"])
        >>> builder = ResultBuilder()
        >>> builder.add(Judgment(id="1", method="m", status="ok", verdict=2, scores=[3.0, 8.0]), pair)
        >>> [(s.name, s.wins, s.losses) for s in builder.result().pairwise.systems]
        [('B', 1, 0), ('A', 0, 1)]
    """

    def __init__(
        self,
        *,
        systems: Sequence[str] | None = None,
        options: ResultOptions = DEFAULT_RESULT_OPTIONS,
        labels: Mapping[str, HumanLabel] | None = None,
    ) -> None:
        self.options = options
        self.systems = None if systems is None else tuple(systems)
        self._human = HumanTally(check_labels(labels))
        self._pending: dict[str, _Shape] = {}
        self._statuses: Counter[str] = Counter()
        self._failures: Counter[str] = Counter()
        self._pairwise = Pairwise()
        self._pointwise = Pointwise()

    def noting(self, items: Iterable[Instance | InputError]) -> Iterator[Instance | InputError]:
        """``items`` as they are, each instance noted so that `add` finds it by its judgment's id.

        An instance is forgotten once its judgment is added: memory stays bounded by the judgments
        in flight.
        """
        for item in items:
            if isinstance(item, Instance):
                self._pending[item.id] = self._shape(item.id, item.n_candidates, item.systems, item)
            yield item

    def noted(self, judgment_id: str) -> bool:
        """Whether an instance of id ``judgment_id`` was noted (`noting`) and its judgment not yet added."""
        return judgment_id in self._pending

    def add(self, judgment: Judgment, instance: Instance | None = None) -> None:
        """Count ``judgment`` (of ``instance``, or of the instance noted with its id)."""
        if instance is not None:
            shape: _Shape | None = self._shape(instance.id, instance.n_candidates, instance.systems, instance)
        else:
            shape = self._pending.pop(judgment.id, None)
        self._statuses[judgment.status] += 1
        if (kind := failure_kind(judgment)) is not None:
            self._failures[kind] += 1
            if shape is not None:
                self._fail(shape)
                self._add_human(judgment, shape)
            return
        if shape is None:
            n = candidate_count(judgment)
            if n is None:
                return
            shape = self._shape(judgment.id, n, None)
        if judgment.status == "abstained":  # counted by its status alone: no verdict to count
            self._add_human(judgment, shape)
            return
        if len(shape.systems) == 1:
            self._pointwise.named |= shape.named
            self._pointwise.add(judgment, shape.systems[0])
        else:
            self._pairwise.named |= shape.named
            self._pairwise.add(judgment, shape.systems)
        self._add_human(judgment, shape)

    def _add_human(self, judgment: Judgment, shape: _Shape) -> None:
        if len(shape.systems) == 1:
            self._human.add_single(judgment, shape.systems[0], shape.scores)
            return
        settled = list(comparisons(judgment, len(shape.systems))) if judgment.status == "ok" else []
        self._human.add_pair(judgment, shape.systems, shape.label, settled)

    def _fail(self, shape: _Shape) -> None:
        if len(shape.systems) == 1:
            self._pointwise.named |= shape.named
            self._pointwise.fail(shape.systems[0])
        else:
            self._pairwise.named |= shape.named
            self._pairwise.fail(shape.systems)

    def _shape(
        self, id_: str, n: int, own: tuple[str, ...] | None, instance: Instance | None = None
    ) -> _Shape:
        label, scores = (None, None) if instance is None else (instance.label, instance.scores)
        if own is not None:
            return _Shape(own, True, label, scores)
        if self.systems is None:
            return _Shape(tuple(str(m) for m in range(1, n + 1)), False, label, scores)
        if len(self.systems) != n:
            raise ConfigError(
                f"systems names {len(self.systems)} systems, but instance {id_!r} has {n} candidates "
                "(one name per candidate, in candidate order)"
            )
        return _Shape(self.systems, True, label, scores)

    def result(self) -> JudgeResult:
        """The result of the judgments counted so far."""
        judged = sum(self._statuses.values())
        pairwise = self._pairwise.result(self.options) if self._pairwise.judgments else None
        pointwise = self._pointwise.result(self.options) if self._pointwise.judgments else None
        return JudgeResult(
            schema_version=RESULT_SCHEMA,  # given, so that a record that stores the result names it
            level=self.options.level,
            judgments=judged,
            statuses=dict(sorted(self._statuses.items())),
            failures=dict(sorted(self._failures.items())),
            ok_rate=proportion(self._statuses["ok"], judged, self.options.level),
            pairwise=pairwise,
            pointwise=pointwise,
            human=self._human.result(self.options.level, _judge_values(pairwise, pointwise), self.options)
            if self._human.labelled
            else None,
        )


def _judge_values(
    pairwise: PairwiseResult | None, pointwise: PointwiseResult | None
) -> dict[str, dict[str, float | None]]:
    """The judge-only values the human estimates stand beside."""
    values: dict[str, dict[str, float | None]] = {"systems": {}, "positions": {}, "scored": {}}
    if pairwise is not None:
        values["systems"] = {s.name: s.win_rate.value for s in pairwise.systems}
        values["positions"] = {s.name: s.win_rate.value for s in pairwise.positions}
    if pointwise is not None:
        values["scored"] = {s.name: s.score.value for s in pointwise.systems}
    return values


def compute_result(
    judgments: Iterable[Judgment],
    instances: Iterable[Instance | InputError] | None = None,
    *,
    systems: Sequence[str] | None = None,
    options: ResultOptions = DEFAULT_RESULT_OPTIONS,
    labels: Mapping[str, HumanLabel] | None = None,
) -> JudgeResult:
    """The result of a judge run: per system, per candidate position and per facet; and what failed.

    ``instances`` (those judged, in any order; matched by id) name each candidate's system
    (`Instance.systems`); ``systems`` names them for every instance that names none. Without
    either, systems are the candidate positions ``"1"``, ``"2"`` ... Judgments are read once, as
    they come; instances are read first, and only their ids, systems and human labels kept. Human
    labels (the instances' own, or ``labels`` by id in their place) add `JudgeResult.human`.

    Raises:
        ConfigError: ``systems`` has another number of names than an instance has candidates.

    Examples:
        >>> from faceteval.core import Instance, Judgment
        >>> pairs = [Instance(id=str(i), query="q", candidates=["x", "y"]) for i in range(4)]
        >>> judged = [Judgment(id=str(i), method="m", status="ok", verdict=2 if i else 1) for i in range(4)]
        >>> result = compute_result(judged, pairs, systems=["A", "B"])
        >>> [(s.name, s.win_rate.value) for s in result.pairwise.systems]
        [('B', 0.75), ('A', 0.25)]
    """
    builder = ResultBuilder(systems=systems, options=options, labels=labels)
    if instances is not None:
        for _ in builder.noting(instances):
            pass
    for judgment in judgments:
        builder.add(judgment)
    return builder.result()
