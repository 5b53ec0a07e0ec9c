"""Fennec's training data: judgments and corrections as chat-format SFT sets (Section 4.1, Table 6).

Each step of the branching workflow becomes one supervised set: the prompt the step is asked with
(its Table 7 system message and Table 9 user message), then the reply a judge model should learn to
give. One record per line, ``{"messages": [system, user, assistant]}``, the format TRL's SFTTrainer
takes:

- D_criteria (``criteria.jsonl``): the criteria prompt -> the numbered criteria, once per query whose
  criteria were generated (predefined criteria were never the judge's reply);
- D_score (``score.jsonl``): the guideline prompt -> the scoring guideline, once per query and criterion;
- D_judge (``judge.jsonl``): the pairwise prompt, responses in the order shown -> the judge result
  (``Response A Score: 4`` / ``Explanation: ...`` / ... / ``Comparison: ...``), per criterion and
  order; or the single-eval prompt -> ``Response Score: 4`` / ``Explanation: ...`` per response;
- D_correction (``correction.jsonl``): the correction prompt -> the corrected response, for each
  response `faceteval correct` corrected.

Pairwise samples are swap-augmented (Section 4.1): a judgment made in one order gains the swapped
sample (responses, scores and explanations exchanged, and the labels named in the texts exchanged),
and a judgment made in both orders gives each order's own sample. A criterion whose preferred response
(or tie) differs between the orders is swap-inconsistent: its samples are dropped, as the paper filters
samples whose predictions are inconsistent. Failed judgments are skipped; identical samples (for
criteria and guidelines: the same prompt) are written once.

Deviations: judge replies are rebuilt from the parsed scores and texts in the format the prompts ask
for, not copied from the raw replies; a criterion judgment without a score, an explanation, a
comparison or a guideline gives no sample. With more than two responses, the augmented sample shows
them in reverse order. Predefined criteria with their own guideline still give D_score samples.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from faceteval._util.files import read_jsonl
from faceteval.core import Instance, Judgment
from faceteval.datasets import read_judgments
from faceteval.datasets.internal import judged_instances, run_record
from faceteval.errors import FacetevalError, InputError
from faceteval.store import JudgeRecord, RunFiles
from faceteval.workflows.fennec._judged import either, per_criterion_methods
from faceteval.workflows.fennec._sft_model import (
    SET_FILES,
    SFT_SETS,
    STATS_FILE,
    Correction,
    SftData,
    criterion_shown,
)
from faceteval.workflows.fennec._sft_samples import SampleBuilder

__all__ = ["build_sft", "export_sft", "read_corrections", "write_sft"]


def read_corrections(path: Path) -> list[Correction]:
    """The lines of a corrections file (what `faceteval correct` writes).

    Raises:
        InputError: A line is not JSON, or a field an export needs is missing or of the wrong type
            (file, line and field named).
    """
    return [_correction(record, path, line) for line, record in read_jsonl(path)]


def build_sft(
    judgments: Iterable[Judgment],
    instances: Mapping[str, Instance],
    corrections: Iterable[Correction] = (),
    *,
    criteria_given: bool = False,
    single: bool | None = None,
    augment: bool = True,
) -> SftData:
    """The SFT sets from Fennec judgments of ``instances`` (by id) and corrections.

    Args:
        judgments: Fennec judgments (failed ones are skipped and counted).
        instances: The judged instances, by id.
        corrections: Lines of a corrections file; those with status ``corrected`` give samples.
        criteria_given: The method was given criteria (``--criteria``): none were generated.
        single: Judged with single-eval; None to tell from each judgment (no comparison written).
        augment: Add the swapped sample of each pairwise judgment made in one order.

    Raises:
        FacetevalError: A judgment is not a Fennec judgment, or names an instance not in ``instances``.
    """
    builder = SampleBuilder(augment=augment)
    for judgment in judgments:
        builder.judgment(judgment, instances, criteria_given=criteria_given, single=single)
    for correction in corrections:
        builder.correction(correction)
    return builder.data()


def write_sft(data: SftData, out: Path) -> dict[str, Path]:
    """Write the four sets (one JSON record a line; an empty set gives an empty file) and stats.json.

    The files are put in place together when all are written (stats.json last, with each set's
    line count and SHA-256): a crash or a full disk leaves the earlier ones as they were.

    Returns:
        Each written file by set name, and ``stats`` for the statistics.

    Raises:
        StoreError: A file could not be written (a full disk is named as such).
    """
    written: dict[str, Path] = {}
    with RunFiles([out / SET_FILES[name] for name in SFT_SETS], out / STATS_FILE) as files:
        for name in SFT_SETS:
            written[name] = out / SET_FILES[name]
            for sample in data.sets[name]:
                files[written[name]].write(json.dumps(sample.to_record(), ensure_ascii=False) + "\n")
        written["stats"] = files.finish(data.stats.to_dict())
    return written


def export_sft(
    judgments_path: Path,
    out: Path,
    corrections_path: Path | None = None,
    *,
    input_path: Path | None = None,
    augment: bool = True,
) -> SftData:
    """Build the SFT sets from a Fennec judgments file (and a corrections file) and write them to ``out``.

    How the run was made (predefined criteria, single-eval) is read from the run record beside the
    judgments; the instances from ``input_path`` or the input the record names.

    Raises:
        FacetevalError: The judgments are not Fennec's, or their input cannot be found or lacks one.
        InputError: A line of an input file is malformed (file, line and field named).
    """
    record = run_record(judgments_path)
    params = _fennec_params(record, judgments_path)
    data = build_sft(
        read_judgments(judgments_path),
        judged_instances(judgments_path, input_path),
        read_corrections(corrections_path) if corrections_path is not None else (),
        criteria_given=params.get("criteria") is not None,
        single=bool(params.get("single")) if record is not None else None,
        augment=augment,
    )
    write_sft(data, out)
    return data


def _fennec_params(record: JudgeRecord | None, judgments_path: Path) -> dict[str, Any]:
    """The method parameters of a run record; empty without one."""
    method = None if record is None else record.method
    if method is None:
        return {}
    if method.name not in (methods := per_criterion_methods()):
        raise FacetevalError(f"{judgments_path}: judged with {method.name!r}, not {either(methods)}")
    return dict(method.params)


def _correction(record: Mapping[str, Any], path: Path, line: int) -> Correction:
    status = _get(record, "status", str, path, line)
    if status != "corrected":
        return Correction(status=status)
    items = _get(record, "judgments", list, path, line)
    return Correction(
        status=status,
        query=_get(record, "query", str, path, line),
        original=_get(record, "original", str, path, line),
        correction=_get(record, "correction", str, path, line),
        judgments=tuple(_judged(item, path, line, f"judgments[{k}]") for k, item in enumerate(items)),
    )


def _judged(item: Any, path: Path, line: int, where: str) -> tuple[str, float, str]:
    if not isinstance(item, dict):
        raise InputError(str(path), line, where, f"expected an object, got {type(item).__name__}")
    name = _get(item, "criterion", str, path, line, where)
    description = item.get("description") or ""
    if not isinstance(description, str):
        raise InputError(str(path), line, f"{where}.description", "expected str")
    score = float(_get(item, "score", (int, float), path, line, where))
    explanation = _get(item, "explanation", str, path, line, where)
    return criterion_shown(name, description), score, explanation


def _get(
    record: Mapping[str, Any],
    name: str,
    kind: type | tuple[type, ...],
    path: Path,
    line: int,
    where: str = "",
) -> Any:
    """``record[name]`` of type ``kind`` (not a bool); else an `InputError` naming file, line and field."""
    dotted = f"{where}.{name}" if where else name
    if name not in record:
        raise InputError(str(path), line, dotted, "missing")
    value = record[name]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(value, kinds) or isinstance(value, bool):
        expected = " or ".join(k.__name__ for k in kinds)
        raise InputError(str(path), line, dotted, f"expected {expected}, got {type(value).__name__}")
    return value
