"""A meta-evaluation run directory, read back: its summary, instances and judgments."""

from __future__ import annotations

import codecs
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from faceteval.core import Instance, Judgment
from faceteval.errors import InputError
from faceteval.metaeval.internal import Packed, SlimInstances, SlimJudgments
from faceteval.store import MetaEvalRecord
from faceteval.store.internal import check_written, parse_record

logger = logging.getLogger(__name__)

SUMMARY_FILE = "summary.json"
INSTANCES_FILE = "instances.jsonl"
JUDGMENTS_FILE = "judgments.jsonl"

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True, slots=True)
class Run:
    """What a report is made from. Only the summary is required."""

    summary: dict[str, Any]
    """The run's numbers as the report reads them (`summary_view`)."""
    instances: Sequence[Instance] = ()
    """Kept slim (`faceteval.metaeval.internal.SlimInstances`): without their texts, read again whole for the
    few a report shows."""
    judgments: Sequence[Judgment] = ()
    """Kept slim (`faceteval.metaeval.internal.SlimJudgments`): without traces and explanations, read again
    whole for the few a report shows (`shown_reply` keeps of their traces what it may show)."""
    unreadable: int = field(default=0)
    """Lines of the JSONL files that could not be read (skipped, and logged)."""


def load_run(run_dir: Path) -> Run:
    """Read ``summary.json`` and, when present, ``instances.jsonl`` and ``judgments.jsonl`` of a run.

    Raises:
        InputError: ``summary.json`` is missing or is not a JSON object, or a file it describes is
            missing or not as it describes it (`faceteval.store.internal.check_written`).
    """
    path = run_dir / SUMMARY_FILE
    record = parse_record(read_summary(path), MetaEvalRecord, source=str(path))
    check_written(record, path)
    instances_path, judgments_path = run_dir / INSTANCES_FILE, run_dir / JUDGMENTS_FILE
    instances, bad_instances = _read_jsonl(instances_path, Instance, SlimInstances(instances_path))
    judgments, bad_judgments = _read_jsonl(judgments_path, Judgment, SlimJudgments(judgments_path))
    return Run(summary_view(record), instances, judgments, bad_instances + bad_judgments)


def shown_reply(judgment: Judgment) -> Judgment:
    """``judgment`` with the one reply of its trace a report may show, without its prompt: the last
    reply (of the original order, when judged in several); a trace's prompts are most of a judgment.

    Examples:
        >>> from faceteval.core import TraceEntry
        >>> entries = [TraceEntry(stage=s, messages=[{"role": "user", "content": "p"}], raw=s) for s in "ab"]
        >>> kept = shown_reply(Judgment(id="1", method="cot", status="ok", trace=entries)).trace
        >>> [(entry.raw, entry.messages) for entry in kept]
        [('b', [])]
    """
    replies = [entry for entry in judgment.trace if entry.raw.strip()]
    if judgment.orders:
        original = sorted(judgment.orders[0].order)
        replies = [entry for entry in replies if entry.order == original]
    kept = [replies[-1].model_copy(update={"messages": [], "parsed": None})] if replies else []
    return judgment.model_copy(update={"trace": kept})


def summary_view(record: MetaEvalRecord) -> dict[str, Any]:
    """What a report reads of a run's record (``summary.json``, of any schema): the numbers of its
    summary as they were written, the method that judged (which names a sweep's count) and the
    record's schema version.

    Examples:
        >>> from faceteval.store import MetaEvalSummary, MethodRecord
        >>> record = MetaEvalRecord(method=MethodRecord(name="dna"), summary=MetaEvalSummary(n=2))
        >>> summary_view(record)
        {'n': 2, 'method': {'name': 'dna', 'params': {}}, 'schema_version': 2}
    """
    view = record.summary.model_dump(mode="json", exclude_unset=True)
    if record.method is not None:
        view["method"] = record.method.model_dump(mode="json")
    return view | {"schema_version": record.schema_version}


def read_summary(path: Path) -> dict[str, Any]:
    """The summary at ``path``.

    Raises:
        InputError: The file is missing, is not JSON, or is not a JSON object.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise InputError(str(path), None, None, "no such file; run `faceteval meta-eval` first") from exc
    except (OSError, ValueError) as exc:  # not UTF-8, not JSON, an integer of thousands of digits
        raise InputError(str(path), None, None, f"cannot be read as JSON ({exc})") from exc
    except RecursionError:
        raise InputError(str(path), None, None, "cannot be read as JSON (nested too deep)") from None
    if not isinstance(data, dict):
        raise InputError(str(path), None, None, f"expected a JSON object, found {type(data).__name__}")
    return data


def _read_jsonl(path: Path, model: type[M], records: Packed[M]) -> tuple[Packed[M], int]:
    """The records of a JSONL file that validate as ``model``, kept in ``records`` (packed: memory flat
    in their size) with their line numbers, and how many lines did not."""
    bad = 0
    if not path.is_file():
        return records, 0
    with path.open("rb") as lines:
        for number, raw in enumerate(lines, start=1):
            if not raw.strip():
                continue
            if number == 1:
                raw = raw.removeprefix(codecs.BOM_UTF8)
            try:
                records.add(model.model_validate_json(raw), number)
            except ValidationError as exc:
                bad += 1
                logger.warning("%s:%d: skipped, not a valid %s: %s", path, number, model.__name__, exc)
    return records, bad
