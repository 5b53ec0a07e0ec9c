"""The instances behind a judgments file: what a `judge` or `meta-eval` run judged."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from faceteval.core import Instance, Judgment
from faceteval.datasets._reader import PLAIN, InstanceFile, Reading
from faceteval.errors import FacetevalError, InputError
from faceteval.store import JudgeRecord, read_record
from faceteval.store.internal import record_path_for

META_EVAL_INSTANCES = "instances.jsonl"


def run_record(judgments_path: Path) -> JudgeRecord | None:
    """The run record `judge` wrote beside ``judgments_path`` (``<stem>.run.json``, of any schema);
    None when there is none.

    Raises:
        InputError: The record is not one (a field named).
    """
    path = record_path_for(judgments_path)
    return read_record(path, JudgeRecord) if path.is_file() else None


def judged_input(judgments_path: Path, input_path: Path | None = None) -> Path:
    """The input file ``judgments_path`` was judged from.

    ``input_path`` when given; else the input named by the run record beside the judgments: where it
    was judged (``input_path``, the absolute path), else where it lies from the judgments as it lay
    then (``input`` and ``output`` as typed, from one working directory), else a file of its name
    beside the judgments (the two moved together; a record of an older version, with no absolute
    path, is also read from the working directory); else the ``instances.jsonl`` of the
    meta-evaluation run directory the judgments are in.

    Raises:
        FacetevalError: None of these names a file (the message says to pass the input).
    """
    if input_path is not None:
        return input_path
    record = run_record(judgments_path)
    given = None if record is None else record.inputs.get("input")
    named = None if given is None else given.path
    if given is not None and named is not None and _recorded(given.read_as).format == "hf":
        # a dataset: a saved directory where it was, else a name datasets.load_dataset loads
        absolute = Path(given.absolute) if given.absolute else None
        return absolute if absolute is not None and absolute.is_dir() else Path(named)
    candidates = []
    if given is not None and given.absolute is not None:
        candidates.append(Path(given.absolute))
    if record is not None and given is not None and named is not None:
        if (apart := _apart(named, record.output, given.absolute)) is not None:
            candidates.append(judgments_path.parent / apart)
        candidates += [judgments_path.parent / named, judgments_path.parent / Path(named).name]
        if given.absolute is None:
            candidates.append(Path(named))
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    beside = judgments_path.with_name(META_EVAL_INSTANCES)
    if beside.is_file():
        return beside
    record_name = record_path_for(judgments_path).name
    if record is not None:
        tried = ", ".join(dict.fromkeys(str(c) for c in candidates)) or "no path"
        raise FacetevalError(
            f"{judgments_path.with_name(record_name)}: its input {named!r} is not a file (looked for "
            f"{tried}); name it with --input"
        )
    raise FacetevalError(
        f"{judgments_path}: no run record {record_name} or {META_EVAL_INSTANCES} beside it; "
        "name the judged file with --input"
    )


class JudgedInstances(dict[str, Instance]):
    """The instances of a judged input by id, and what was wrong with the lines left out."""

    def __init__(self) -> None:
        super().__init__()
        self.invalid: dict[str, InputError] = {}


def changed_since(instance: Instance, judgment: Judgment) -> str | None:
    """What is wrong when ``instance`` is not what ``judgment`` was made of (the input was edited since).

    Judgments record a hash of the instance they judged (`Judgment.input_hash`); those made before
    it was recorded, and recorded judgments of other tools, have none and are taken as they are.
    """
    if judgment.input_hash is None or judgment.input_hash == instance.content_hash():
        return None
    return (
        f"instance {instance.id!r} was edited since it was judged (its query, candidates, reference, "
        "task or criteria differ); judge the edited input again (the cache answers what did not change)"
    )


def why_missing(instances: Mapping[str, Instance], instance_id: str) -> str:
    """Why ``instances`` has no ``instance_id``: its line is not valid (as read now), or it is absent."""
    invalid = instances.invalid if isinstance(instances, JudgedInstances) else {}
    if (error := invalid.get(instance_id)) is not None:
        return f"its line in the judged input is not valid: {error}"
    return "it is not in the judged input"


def judged_reading(judgments_path: Path) -> Reading:
    """How the input of ``judgments_path`` was read (its run record's ``read_as``): as it is when the
    record says nothing of it, or there is no record.

    Raises:
        InputError: The record is not one, or its ``read_as`` is not a reading.
    """
    return recorded_reading(run_record(judgments_path), record_path_for(judgments_path))


def recorded_reading(record: JudgeRecord | None, source: Path | None = None) -> Reading:
    """How the input of the run ``record`` is of was read (as it is, when it says nothing of it).

    Raises:
        InputError: Its ``read_as`` is not a reading (``source`` names the record).
    """
    given = None if record is None else record.inputs.get("input")
    return PLAIN if given is None else _recorded(given.read_as, source)


def _recorded(read_as: Mapping[str, object] | None, source: Path | None = None) -> Reading:
    if read_as is None:
        return PLAIN
    try:
        return Reading.model_validate(read_as)
    except ValueError as exc:
        raise InputError(str(source), None, "inputs.input.read_as", f"not a reading: {exc}") from exc


def _apart(named: str, output: str | None, absolute: str | None) -> str | None:
    """Where the input lay from the judgments' folder when it was judged, from the run record's paths:
    the input as typed (``named``), the output as typed, and the input's absolute path.

    The working directory then is the absolute input path less the input as typed; the output as
    typed was taken from there too.
    """
    if output is None or absolute is None:
        return None
    typed, whole = Path(named).parts, Path(absolute).parts
    if Path(named).is_absolute() or ".." in typed or whole[len(whole) - len(typed) :] != typed:
        return None
    workdir = Path(*whole[: len(whole) - len(typed)])
    return os.path.relpath(absolute, (workdir / output).parent)


def judged_instances(
    judgments_path: Path, input_path: Path | None = None, reading: Reading | None = None
) -> JudgedInstances:
    """The instances ``judgments_path`` was judged from, by id (see `judged_input`), read as ``reading``
    says, else as the run read them (`judged_reading`).

    A malformed line of the input is left out (`judge` wrote it as an ``error`` judgment, which
    there is nothing to read of) and kept in ``invalid``: a judgment that did succeed and has no
    instance here is the caller's error to raise, and `why_missing` says why.

    Raises:
        FacetevalError: The input cannot be found.
    """
    out = JudgedInstances()
    reading = reading or judged_reading(judgments_path)
    for entry in InstanceFile(judged_input(judgments_path, input_path), reading=reading):
        if isinstance(entry, InputError):
            # keyed by the ids a judgment of it has: the record's; else its line number, as an
            # id-less line judged when it was valid, or line-N, as the error judgment `judge` wrote
            if entry.record_id is not None:
                out.invalid[entry.record_id] = entry
            elif entry.line is not None:
                out.invalid[str(entry.line)] = out.invalid[f"line-{entry.line}"] = entry
        else:
            out[entry.id] = entry
    return out
