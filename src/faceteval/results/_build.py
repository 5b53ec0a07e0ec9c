"""Building a run's result from its judgments, as they come or all at once."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from faceteval.core import GroupResult, Instance, JudgeResult, Judgment, PairwiseResult, PointwiseResult
from faceteval.core.internal import RESULT_SCHEMA, failure_kind
from faceteval.datasets import HumanLabel
from faceteval.datasets.internal import group_key
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
    group: str | None = None
    """Its value of ``group_by`` (as text)."""
    known: bool = False
    """Whether it is an instance's (else a judgment's alone: in no group)."""


@dataclass(slots=True)
class _Counts:
    """Judgments counted by status, failure and kind (the run's, or one group's: ``headline``)."""

    headline: bool = False
    statuses: Counter[str] = field(default_factory=Counter)
    failures: Counter[str] = field(default_factory=Counter)
    pairwise: Pairwise = field(default_factory=Pairwise)
    pointwise: Pointwise = field(default_factory=Pointwise)

    def __post_init__(self) -> None:
        self.pairwise.headline = self.pointwise.headline = self.headline

    def count(self, judgment: Judgment, shape: _Shape | None) -> None:
        """Count ``judgment`` (of candidates shaped so; None: no instance, its status alone)."""
        self.statuses[judgment.status] += 1
        if (kind := failure_kind(judgment)) is not None:
            self.failures[kind] += 1
            if shape is not None:
                self._fail(shape)
            return
        if shape is None or judgment.status == "abstained":  # no verdict to count
            return
        if len(shape.systems) == 1:
            self.pointwise.named |= shape.named
            self.pointwise.add(judgment, shape.systems[0])
        else:
            self.pairwise.named |= shape.named
            self.pairwise.add(judgment, shape.systems)

    def _fail(self, shape: _Shape) -> None:
        if len(shape.systems) == 1:
            self.pointwise.named |= shape.named
            self.pointwise.fail(shape.systems[0])
        else:
            self.pairwise.named |= shape.named
            self.pairwise.fail(shape.systems)

    def sections(self, options: ResultOptions) -> tuple[PairwiseResult | None, PointwiseResult | None]:
        """The pairwise and pointwise results of what was counted."""
        pairwise = self.pairwise.result(options) if self.pairwise.judgments else None
        pointwise = self.pointwise.result(options) if self.pointwise.judgments else None
        return pairwise, pointwise

    def group(self, value: str | None, options: ResultOptions) -> GroupResult:
        """What was counted as one group's result."""
        judged = sum(self.statuses.values())
        pairwise, pointwise = self.sections(options)
        return GroupResult(
            value=value,
            judgments=judged,
            statuses=dict(sorted(self.statuses.items())),
            ok_rate=proportion(self.statuses["ok"], judged, options.level),
            pairwise=pairwise,
            pointwise=pointwise,
        )


class ResultBuilder:
    """Counts judgments as they come (memory bounded by systems and facets), then makes the result.

    Each judgment is matched with its instance (``add(judgment, instance)``, or by id with the
    instances passed through `noting`) for its candidates' systems: the instance's own
    (`Instance.systems`), else ``systems`` when given, else the candidate positions ``"1"``,
    ``"2"`` ... A failed judgment with no instance counts in the run's failures alone.

    Instances with a human ``label`` (pairwise) or ``scores`` (pointwise), or ``labels`` by id (a
    labels file's, in their place), add the result as humans would give it (`JudgeResult.human`):
    prediction-powered win rates and means. With ``options.group_by``, each group of instances
    sharing that field's value gets its own headline numbers (`JudgeResult.groups`).

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
        self._counts = _Counts()
        self._groups: dict[str | None, _Counts] = {}

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
        if shape is None and failure_kind(judgment) is None and (n := candidate_count(judgment)) is not None:
            shape = self._shape(judgment.id, n, None)
        self._counts.count(judgment, shape)
        if shape is None:
            return
        if self.options.group_by is not None and shape.known:
            self._groups.setdefault(shape.group, _Counts(headline=True)).count(judgment, shape)
        self._add_human(judgment, shape)

    def _add_human(self, judgment: Judgment, shape: _Shape) -> None:
        if len(shape.systems) == 1:
            self._human.add_single(judgment, shape.systems[0], shape.scores)
            return
        settled = list(comparisons(judgment, len(shape.systems))) if judgment.status == "ok" else []
        self._human.add_pair(judgment, shape.systems, shape.label, settled)

    def _shape(
        self, id_: str, n: int, own: tuple[str, ...] | None, instance: Instance | None = None
    ) -> _Shape:
        label, scores = (None, None) if instance is None else (instance.label, instance.scores)
        group = None
        if instance is not None and self.options.group_by is not None:
            group = group_key(instance, self.options.group_by)
        known = instance is not None
        if own is not None:
            return _Shape(own, True, label, scores, group, known)
        if self.systems is None:
            return _Shape(tuple(str(m) for m in range(1, n + 1)), False, label, scores, group, known)
        if len(self.systems) != n:
            raise ConfigError(
                f"systems names {len(self.systems)} systems, but instance {id_!r} has {n} candidates "
                "(one name per candidate, in candidate order)"
            )
        return _Shape(self.systems, True, label, scores, group, known)

    def result(self) -> JudgeResult:
        """The result of the judgments counted so far."""
        counts = self._counts
        judged = sum(counts.statuses.values())
        pairwise, pointwise = counts.sections(self.options)
        return JudgeResult(
            schema_version=RESULT_SCHEMA,  # given, so that a record that stores the result names it
            level=self.options.level,
            judgments=judged,
            statuses=dict(sorted(counts.statuses.items())),
            failures=dict(sorted(counts.failures.items())),
            ok_rate=proportion(counts.statuses["ok"], judged, self.options.level),
            pairwise=pairwise,
            pointwise=pointwise,
            human=self._human.result(self.options.level, _judge_values(pairwise, pointwise), self.options)
            if self._human.labelled
            else None,
            group_by=self.options.group_by,
            groups=self._group_results(),
        )

    def _group_results(self) -> list[GroupResult]:
        """Each group's result, most judgments first, then by value (the instances without one last)."""
        groups = [counts.group(value, self.options) for value, counts in self._groups.items()]
        return sorted(groups, key=lambda g: (-g.judgments, g.value is None, g.value or ""))


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
    labels (the instances' own, or ``labels`` by id in their place) add `JudgeResult.human`;
    ``options.group_by`` adds the result of each group of instances (`JudgeResult.groups`).

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
