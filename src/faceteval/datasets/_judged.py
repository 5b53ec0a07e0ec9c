"""The instances behind a judgments file: what a `judge` or `meta-eval` run judged."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from faceteval.core import Instance
from faceteval.datasets._files import read_json_object
from faceteval.datasets._jsonl import read_instances
from faceteval.errors import FacetevalError, InputError

META_EVAL_INSTANCES = "instances.jsonl"


def run_record(judgments_path: Path) -> dict[str, Any]:
    """The run record `judge` wrote beside ``judgments_path`` (``<stem>.run.json``); empty when none."""
    path = judgments_path.with_name(f"{judgments_path.stem}.run.json")
    return read_json_object(path) if path.is_file() else {}


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
    named = record.get("input")
    candidates = []
    if isinstance(record.get("input_path"), str):
        candidates.append(Path(record["input_path"]))
    if isinstance(named, str):
        output = record.get("output")
        if isinstance(output, str) and not Path(named).is_absolute() and not Path(output).is_absolute():
            candidates.append(judgments_path.parent / os.path.relpath(named, Path(output).parent))
        candidates += [judgments_path.parent / named, judgments_path.parent / Path(named).name]
        if "input_path" not in record:
            candidates.append(Path(named))
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    beside = judgments_path.with_name(META_EVAL_INSTANCES)
    if beside.is_file():
        return beside
    record_name = f"{judgments_path.stem}.run.json"
    if record:
        raise FacetevalError(f"{record_name}: its input {named!r} is not a file; name it with --input")
    raise FacetevalError(
        f"{judgments_path}: no run record {record_name} or {META_EVAL_INSTANCES} beside it; "
        "name the judged file with --input"
    )


def judged_instances(judgments_path: Path, input_path: Path | None = None) -> dict[str, Instance]:
    """The instances ``judgments_path`` was judged from, by id (see `judged_input`).

    A malformed line of the input is left out: `judge` wrote it as an ``error`` judgment, which
    there is nothing to read of. (A judgment that did succeed and has no instance here is the
    caller's error to raise.)

    Raises:
        FacetevalError: The input cannot be found.
    """
    return {
        entry.id: entry
        for entry in read_instances(judged_input(judgments_path, input_path))
        if not isinstance(entry, InputError)
    }
