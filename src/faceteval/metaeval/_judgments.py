"""Where judgments come from: a recorded real-LLM judge, or a Judgment JSONL file."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar, overload

from faceteval._util.text import plural
from faceteval.aggregation import DEFAULT_PANEL_VOTE
from faceteval.core import Instance, Judgment, PanelVote
from faceteval.datasets import RecordedSource, read_judgments
from faceteval.errors import FacetevalError
from faceteval.metaeval._panel import panel_judgments, panel_name, panel_specs
from faceteval.metaeval._slim import Packed, SlimJudgments, TraceFacts, full_lines, read_slim, trace_facts
from faceteval.metaeval._target import Target

RECORDED = "recorded:"
T = TypeVar("T")
EXAMPLE_IDS = 5
"""How many ids of judgments matching no instance a `Joined` keeps, to show."""


@dataclass(frozen=True, slots=True)
class JudgmentSource:
    """Judgments to measure, and where they came from."""

    name: str
    """``recorded:<name>`` or the file's path."""
    judgments: Sequence[Judgment]
    """Whole, or read slim from a file (`SlimJudgments`)."""
    recorded: RecordedSource | None = None
    reported: dict[str, float] = field(default_factory=dict)
    """Numbers the source itself published, when it is a recorded judge that ships them."""
    judges: tuple[str, ...] = ()
    """A panel's judges (its judgments combine theirs); empty for one judge."""


def source_files(spec: str | None) -> list[Path]:
    """The files a BENCHMARK|FILE or a judgments SOURCE reads when it names a path (none for a
    benchmark or a recorded judge; for a run directory, its judgments).

    Examples:
        >>> [path.as_posix() for path in source_files("runs/dna")], source_files("recorded:gpt4-pair")
        (['runs/dna', 'runs/dna/judgments.jsonl'], [])
    """
    parts = panel_specs(spec or "")
    if len(parts) > 1:
        return [path for part in parts for path in source_files(part)]
    if not spec or spec.startswith(RECORDED):
        return []
    return [Path(spec), Path(spec) / "judgments.jsonl"]


def load_judgments(
    spec: str,
    target: Target,
    data_dir: Path,
    *,
    vote: PanelVote = DEFAULT_PANEL_VOTE,
    whole: bool = False,
) -> JudgmentSource:
    """The judgments named by ``spec``: ``recorded:<name>`` of the target benchmark, or a JSONL path;
    several of them, comma-separated, are a judge panel combined by ``vote`` (`panel_judgments`).

    A JSONL file's judgments are read slim (`read_slim`: no traces, memory flat in their size), but
    with ``whole`` and those of a panel's judges, whose traces the panel's judgments keep."""
    if len(parts := panel_specs(spec)) > 1:
        sources = [load_judgments(part, target, data_dir, whole=True) for part in parts]
        candidates = {instance.id: instance.n_candidates for instance in target.instances}
        members = [(source.name, source.judgments) for source in sources]
        combined = panel_judgments(members, candidates, vote)
        names = tuple(source.name for source in sources)
        return JudgmentSource(panel_name(names, vote), tuple(combined), judges=names)
    if spec.startswith(RECORDED):
        if target.benchmark is None:
            raise FacetevalError(
                f"{spec}: recorded judges belong to built-in benchmarks, not to {target.name}"
            )
        spec = recorded_alias(spec, target.benchmark.name)
        source = target.benchmark.recorded_source(spec.removeprefix(RECORDED), data_dir)
        reported = source.reported(data_dir) if source.reported else {}
        return JudgmentSource(spec, tuple(source.load(data_dir)), source, dict(reported))
    path = Path(spec)
    if path.is_dir():
        path = path / "judgments.jsonl"
    if not path.is_file():
        raise FacetevalError(f"{spec}: no such judgments file (or use recorded:<name>)")
    if whole:
        return JudgmentSource(str(path), tuple(read_judgments(path)))
    return JudgmentSource(str(path), read_slim(path))


def recorded_alias(spec: str, benchmark: str) -> str:
    """``recorded:coeval-chatgpt`` on a coeval-* benchmark is its ``recorded:chatgpt``; a benchmark
    whose name names no family (``pandalm``) keeps every name as given (``recorded:pandalm-7b``).

    Examples:
        >>> recorded_alias("recorded:coeval-chatgpt", "coeval-dialogue"), recorded_alias(
        ...     "recorded:pandalm-7b", "pandalm")
        ('recorded:chatgpt', 'recorded:pandalm-7b')
    """
    if "-" not in benchmark:
        return spec
    family = benchmark.split("-", 1)[0]
    prefix = f"{RECORDED}{family}-"
    return RECORDED + spec.removeprefix(prefix) if spec.startswith(prefix) else spec


class Pairs(Sequence[tuple[Instance, Judgment | None]]):
    """Each instance with its judgment (None where the judge has none), built as they are read: when
    the instances or judgments are packed (`faceteval.metaeval.internal.SlimJudgments`), a pass over the pairs
    holds one pair at a time."""

    def __init__(self, instances: Sequence[Instance], judgments: Sequence[Judgment], index: array[int]):
        self._instances, self._judgments, self._index = instances, judgments, index

    def __len__(self) -> int:
        return len(self._index)

    @property
    def missing(self) -> int:
        """How many instances have no judgment."""
        return self._index.count(-1)

    @overload
    def __getitem__(self, position: int) -> tuple[Instance, Judgment | None]: ...
    @overload
    def __getitem__(self, position: slice) -> Sequence[tuple[Instance, Judgment | None]]: ...
    def __getitem__(
        self, position: int | slice
    ) -> tuple[Instance, Judgment | None] | Sequence[tuple[Instance, Judgment | None]]:
        if isinstance(position, slice):
            return [self[k] for k in range(len(self))[position]]
        found = self._index[position]
        return self._instances[position], None if found < 0 else self._judgments[found]

    def __iter__(self) -> Iterator[tuple[Instance, Judgment | None]]:
        judgments = self._judgments
        for instance, found in zip(self._instances, self._index, strict=True):
            yield instance, None if found < 0 else judgments[found]

    def whole(self, positions: Sequence[int]) -> list[tuple[Instance, Judgment | None]]:
        """The pairs at ``positions``, their instances and judgments read again whole (texts, traces,
        explanations) where they are packed (`Packed.whole`)."""
        instances = _whole(self._instances, positions)
        found = [self._index[position] for position in positions]
        judged = iter(_whole(self._judgments, [k for k in found if k >= 0]))
        return [
            (instance, None if k < 0 else next(judged)) for instance, k in zip(instances, found, strict=True)
        ]

    def facts(self) -> Iterator[TraceFacts | None]:
        """What measuring reads of each pair's judgment's trace (None where it has no judgment)."""
        judgments = self._judgments
        for found in self._index:
            if found < 0:
                yield None
            elif isinstance(judgments, SlimJudgments):
                yield judgments.facts_at(found)
            else:
                yield trace_facts(judgments[found])

    def judgment_lines(self) -> Iterator[str]:
        """The JSON of each judgment, in the instances' order: read again whole from their file when
        they were read slim."""
        judgments = self._judgments
        found = (k for k in self._index if k >= 0)
        if isinstance(judgments, SlimJudgments) and judgments.path is not None:
            return full_lines(judgments.path, (judgments.facts_at(k).line for k in found))
        return (judgments[k].model_dump_json() for k in found)


def _whole(items: Sequence[T], indices: Sequence[int]) -> list[T]:
    return items.whole(indices) if isinstance(items, Packed) else [items[index] for index in indices]


def pair_by_id(instances: Sequence[Instance], judgments: Sequence[Judgment]) -> Pairs:
    """Each instance with the first judgment of its id (None where there is none), as `Pairs`.

    Examples:
        >>> one = Instance(id="1", query="q", candidates=["a", "b"])
        >>> [(i.id, j and j.verdict) for i, j in pair_by_id([one], [Judgment(id="1", method="m",
        ...     status="ok", verdict=2), Judgment(id="1", method="m", status="ok", verdict=1)])]
        [('1', 2)]
    """
    by_id: dict[str, int] = {}
    ids = judgments.ids() if isinstance(judgments, SlimJudgments) else (j.id for j in judgments)
    for position, judgment_id in enumerate(ids):
        by_id.setdefault(judgment_id, position)
    return Pairs(instances, judgments, array("q", (by_id.get(instance.id, -1) for instance in instances)))


@dataclass(frozen=True, slots=True)
class Joined:
    """Instances paired with their judgment (None where the judge has none)."""

    pairs: Pairs
    unmatched: int
    """Judgments whose id is of no instance at all: not of the instances, nor of those left out."""
    outside_sample: int = 0
    """Judgments of instances left out on purpose (outside a --limit sample, --turn or --category)."""
    unmatched_examples: tuple[str, ...] = ()
    """The ids of the first few ``unmatched`` judgments (up to `EXAMPLE_IDS`)."""

    @property
    def missing(self) -> int:
        return self.pairs.missing

    def facts(self) -> Iterator[TraceFacts | None]:
        """What measuring reads of the traces of the pairs' judgments, pair by pair (`Pairs.facts`)."""
        return self.pairs.facts()


def join(
    instances: Iterable[Instance],
    judgments: Iterable[Judgment],
    *,
    source: str = "judgments",
    all_ids: Iterable[str] = (),
) -> Joined:
    """Pair each instance with the judgment of the same id.

    ``source`` names where the judgments came from, in errors. ``all_ids`` are the ids of every
    instance the judgments could be of (the whole benchmark, before a sample or filter chose
    ``instances``): a judgment of one of them that is not among ``instances`` was left out on
    purpose (`Joined.outside_sample`), not a judgment of no instance (`Joined.unmatched`).
    Packed instances and judgments (`SlimInstances`, `SlimJudgments`) stay packed.

    Raises:
        FacetevalError: There are no judgments, an id is judged twice, no judgment id matches any
            instance, or a verdict names a candidate its instance does not have.
    """
    kept = judgments if isinstance(judgments, Sequence) else tuple(judgments)
    by_id: dict[str, int] = {}
    ids = kept.ids() if isinstance(kept, SlimJudgments) else (judgment.id for judgment in kept)
    for position, judgment_id in enumerate(ids):
        if judgment_id in by_id:
            raise FacetevalError(f"{source}: judgment id {judgment_id!r} appears twice")
        by_id[judgment_id] = position
    listed = instances if isinstance(instances, Sequence) else tuple(instances)
    if listed and not by_id:
        raise FacetevalError(f"{source}: no judgments")
    index = array("q", (by_id.pop(instance.id, -1) for instance in listed))
    known = set(all_ids)
    unmatched = [judgment_id for judgment_id in by_id if judgment_id not in known]
    joined = Joined(
        Pairs(listed, kept, index),
        unmatched=len(unmatched),
        outside_sample=len(by_id) - len(unmatched),
        unmatched_examples=tuple(unmatched[:EXAMPLE_IDS]),
    )
    if listed and by_id and joined.missing == len(listed):
        if not unmatched:
            raise FacetevalError(
                f"{source}: none of its {plural(len(by_id), 'judgment')} is of the "
                f"{plural(len(listed), 'instance')} "
                "measured: they judge instances the sample or filters left out"
            )
        raise FacetevalError(
            f"{source}: no judgment matches an instance: judgment ids look like {unmatched[0]!r}, "
            f"instance ids like {listed[0].id!r}"
        )
    for instance, paired in joined.pairs:
        if paired is not None:
            _check_verdicts(instance, paired, source)
    return joined


def _check_verdicts(instance: Instance, judgment: Judgment, source: str) -> None:
    """FacetevalError if a verdict (overall or of an order) is not 0 (a tie) or one of the candidates."""
    n = instance.n_candidates
    for given in (judgment.verdict, *(order.verdict for order in judgment.orders)):
        if given is not None and not 0 <= given <= n:
            raise FacetevalError(
                f"{source}: judgment {judgment.id!r}: field 'verdict': {given} is not a candidate of the "
                f"instance, which has {n} (a verdict is 1-{n}, or 0 for a tie)"
            )
