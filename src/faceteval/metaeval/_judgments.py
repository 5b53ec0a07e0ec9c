"""Where judgments come from: a recorded real-LLM judge, or a Judgment JSONL file."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from faceteval._util.text import plural
from faceteval.aggregation import DEFAULT_PANEL_VOTE
from faceteval.core import Instance, Judgment, PanelVote
from faceteval.datasets import RecordedSource, read_judgments
from faceteval.errors import FacetevalError
from faceteval.metaeval._panel import panel_judgments, panel_name, panel_specs
from faceteval.metaeval._slim import TraceFacts, read_slim
from faceteval.metaeval._target import Target

RECORDED = "recorded:"
EXAMPLE_IDS = 5
"""How many ids of judgments matching no instance a `Joined` keeps, to show."""


@dataclass(frozen=True, slots=True)
class JudgmentSource:
    """Judgments to measure, and where they came from."""

    name: str
    """``recorded:<name>`` or the file's path."""
    judgments: tuple[Judgment, ...]
    recorded: RecordedSource | None = None
    reported: dict[str, float] = field(default_factory=dict)
    """Numbers the source itself published, when it is a recorded judge that ships them."""
    judges: tuple[str, ...] = ()
    """A panel's judges (its judgments combine theirs); empty for one judge."""
    facts: Mapping[str, TraceFacts] = field(default_factory=dict)
    """What measuring reads of the traces of judgments read slim from a file (`read_slim`), by id;
    empty when the judgments are whole."""


def source_files(spec: str | None) -> list[Path]:
    """The files a BENCHMARK|FILE or a judgments SOURCE reads when it names a path (none for a
    benchmark or a recorded judge; for a run directory, its judgments).

    Examples:
        >>> [path.as_posix() for path in source_files("runs/dna")], source_files("recorded:gpt4")
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
    read = read_slim(path)
    return JudgmentSource(str(path), read.judgments, facts=read.facts)


def recorded_alias(spec: str, benchmark: str) -> str:
    """``recorded:coeval-chatgpt`` on a coeval-* benchmark is its ``recorded:chatgpt``."""
    family = benchmark.split("-", 1)[0]
    prefix = f"{RECORDED}{family}-"
    return RECORDED + spec.removeprefix(prefix) if spec.startswith(prefix) else spec


@dataclass(frozen=True, slots=True)
class Joined:
    """Instances paired with their judgment (None where the judge has none)."""

    pairs: tuple[tuple[Instance, Judgment | None], ...]
    unmatched: int
    """Judgments whose id is of no instance at all: not of the instances, nor of those left out."""
    outside_sample: int = 0
    """Judgments of instances left out on purpose (outside a --limit sample, --turn or --category)."""
    unmatched_examples: tuple[str, ...] = ()
    """The ids of the first few ``unmatched`` judgments (up to `EXAMPLE_IDS`)."""
    facts: Mapping[str, TraceFacts] = field(default_factory=dict)
    """What measuring reads of the traces of slim judgments (`read_slim`), by id."""

    @property
    def missing(self) -> int:
        return sum(judgment is None for _, judgment in self.pairs)


def join(
    instances: Iterable[Instance],
    judgments: Iterable[Judgment],
    *,
    source: str = "judgments",
    all_ids: Iterable[str] = (),
    facts: Mapping[str, TraceFacts] | None = None,
) -> Joined:
    """Pair each instance with the judgment of the same id.

    ``source`` names where the judgments came from, in errors. ``all_ids`` are the ids of every
    instance the judgments could be of (the whole benchmark, before a sample or filter chose
    ``instances``): a judgment of one of them that is not among ``instances`` was left out on
    purpose (`Joined.outside_sample`), not a judgment of no instance (`Joined.unmatched`).
    ``facts`` are what measuring reads of the traces of slim judgments (`read_slim`).

    Raises:
        FacetevalError: There are no judgments, an id is judged twice, no judgment id matches any
            instance, or a verdict names a candidate its instance does not have.
    """
    by_id: dict[str, Judgment] = {}
    for judgment in judgments:
        if judgment.id in by_id:
            raise FacetevalError(f"{source}: judgment id {judgment.id!r} appears twice")
        by_id[judgment.id] = judgment
    listed = list(instances)
    if listed and not by_id:
        raise FacetevalError(f"{source}: no judgments")
    pairs = tuple((instance, by_id.pop(instance.id, None)) for instance in listed)
    known = set(all_ids)
    unmatched = [judgment_id for judgment_id in by_id if judgment_id not in known]
    joined = Joined(
        pairs,
        unmatched=len(unmatched),
        outside_sample=len(by_id) - len(unmatched),
        unmatched_examples=tuple(unmatched[:EXAMPLE_IDS]),
        facts=facts or {},
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
    for instance, paired in pairs:
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
