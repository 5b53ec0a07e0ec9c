"""A judge run read back for its report: its record, its input, its result and what its items show.

The judgments are streamed (twice when the record holds no result: once for it, once for the rest),
and so are the instances, so that a run of any size is reported in bounded memory: what is kept of
each item is its candidates' systems, and whole items only for those the report lists.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from faceteval.core import Instance, Judgment
from faceteval.datasets import HumanLabel, InstanceFile, Reading
from faceteval.datasets.internal import PLAIN_READING, judged_input, judgment_from_line, recorded_reading
from faceteval.errors import FacetevalError, InputError
from faceteval.report._judge_evidence import Evidence, collect_evidence
from faceteval.results import JudgeResult, compute_result
from faceteval.store import JudgeRecord, read_record, record_path_for

DEFAULT_ITEMS = 25
"""How many items each list of a judge run's report (disagreements, failures) shows at most."""


@dataclass(slots=True)
class Unreadable:
    """Lines of the judgments that are not judgments: counted, the first one's problem kept."""

    lines: int = 0
    first: str | None = None

    def add(self, problem: str) -> None:
        """Count one more, keeping the first problem."""
        self.lines += 1
        if self.first is None:
            self.first = problem


@dataclass(frozen=True, slots=True)
class JudgeRun:
    """What the report of a judge run is made from.

    Attributes:
        path: The judgments JSONL.
        record: Its run record, when there is one and it can be read.
        record_problem: Why there is no record, or why it cannot be read.
        inputs: The instances it judged, when they are found.
        input_problem: Why they are not, when they are not.
        systems: The systems named for every instance that names none (``--systems``), if any.
        result: The run's result.
        stored: Whether the result is the one its record holds (else it is computed now).
        evidence: What its items show: distributions, disagreements, failures.
        unreadable: Lines of the judgments that are not judgments.
    """

    path: Path
    record: JudgeRecord | None
    record_problem: str | None
    inputs: Path | None
    input_problem: str | None
    systems: tuple[str, ...] | None
    result: JudgeResult
    stored: bool
    evidence: Evidence
    unreadable: Unreadable = field(default_factory=Unreadable)


def load_judge_run(
    path: Path,
    *,
    systems: Sequence[str] | None = None,
    limit: int = DEFAULT_ITEMS,
    labels: Mapping[str, HumanLabel] | None = None,
) -> JudgeRun:
    """Read the judge run whose judgments are ``path`` (its record beside it, ``X.run.json``).

    ``systems`` names the systems behind the candidates of every instance that names none (as
    ``judge --systems`` did); the result is then computed with them. Without it, the record's are
    used (and its result, when it holds one). ``labels`` (human labels by id) take the place of the
    instances' own; the result is then computed with them.

    Raises:
        InputError: The judgments cannot be opened.
    """
    record, record_problem = _record(path)
    inputs, input_problem = _inputs(path, record)
    reading = _reading(record)
    result, stored = _stored_result(record) if systems is None and labels is None else (None, False)
    systems = record_systems(record) if systems is None else tuple(systems)
    if result is None:
        instances = _instances(inputs, systems, reading) if inputs is not None else None
        result = compute_result(judgments(path, Unreadable()), instances, labels=labels)  # (counted below)
    unreadable = Unreadable()
    shapes = _systems_by_id(inputs, systems, reading) if inputs is not None else {}
    evidence = collect_evidence(judgments(path, unreadable), shapes, result, limit=limit)
    if inputs is not None and evidence.listed_ids:
        evidence.instances.update(_listed(inputs, systems, evidence.listed_ids, reading))
    return JudgeRun(
        path, record, record_problem, inputs, input_problem, systems, result, stored, evidence, unreadable
    )


def record_systems(record: JudgeRecord | None) -> tuple[str, ...] | None:
    """The systems a judge record's options name (``--systems``: a list, or ``"A,B"``)."""
    value = None if record is None else record.options.get("systems")
    if isinstance(value, str):
        value = [name.strip() for name in value.split(",") if name.strip()]
    if isinstance(value, list) and value and all(isinstance(name, str) for name in value):
        return tuple(str(name) for name in value)
    return None


def judgments(path: Path, unreadable: Unreadable) -> Iterator[Judgment]:
    """The judgments of ``path``, streamed; a line that is not one is counted in ``unreadable``.

    Raises:
        InputError: The file cannot be opened.
    """
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise InputError(str(path), None, None, f"cannot open: {exc.strerror or exc}") from exc
    with handle:
        for number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8").removeprefix("\ufeff" if number == 1 else "")
            except UnicodeDecodeError as exc:
                unreadable.add(f"{path}:{number}: not UTF-8 text ({exc.reason})")
                continue
            if not line.strip():
                continue
            try:
                yield judgment_from_line(path, number, line)
            except InputError as exc:
                unreadable.add(str(exc))


def _record(path: Path) -> tuple[JudgeRecord | None, str | None]:
    beside = record_path_for(path)
    if not beside.is_file():
        return None, f"{beside.name} is not beside it: the run's method, model and spend are not known"
    try:
        return read_record(beside, JudgeRecord), None
    except FacetevalError as exc:
        return None, str(exc)


def _inputs(path: Path, record: JudgeRecord | None) -> tuple[Path | None, str | None]:
    try:
        return judged_input(path), None
    except FacetevalError as exc:
        found = str(exc).split("; name ")[0]  # (its advice, --input, is for the commands that take one)
        return None, f"The candidates are not shown, and systems are candidate positions: {found}."


def _stored_result(record: JudgeRecord | None) -> tuple[JudgeResult | None, bool]:
    """The result the record holds (read through its model), and whether there is one."""
    stored = None if record is None else record.summary.result
    return stored, stored is not None


def _reading(record: JudgeRecord | None) -> Reading:
    """How the run read its input; as it is when the record cannot say (its problem is shown apart)."""
    try:
        return recorded_reading(record)
    except InputError:
        return PLAIN_READING


def _instances(
    inputs: Path, systems: Sequence[str] | None, reading: Reading
) -> Iterator[Instance | InputError]:
    """The instances of ``inputs``, as the run read them; one that cannot be opened gives none."""
    try:
        yield from InstanceFile(inputs, systems=systems, reading=reading)
    except InputError:
        return


def _systems_by_id(
    inputs: Path, systems: Sequence[str] | None, reading: Reading
) -> dict[str, tuple[str, ...]]:
    """The system behind each candidate of each instance, by id (positions when none are named)."""
    shapes = {}
    for item in _instances(inputs, systems, reading):
        if isinstance(item, Instance):
            own = item.systems or tuple(str(m) for m in range(1, item.n_candidates + 1))
            shapes[item.id] = tuple(own)
    return shapes


def _listed(
    inputs: Path, systems: Sequence[str] | None, ids: Mapping[str, object], reading: Reading
) -> dict[str, Instance]:
    return {
        item.id: item
        for item in _instances(inputs, systems, reading)
        if isinstance(item, Instance) and item.id in ids
    }
