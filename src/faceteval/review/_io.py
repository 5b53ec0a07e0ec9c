"""Into a review project: the LLM's drafts from a `judge` run.

Each instance judged on one output becomes an item, and each judged pairwise or listwise one
comparison item holding every candidate. Exporting is ``_export.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from faceteval._util.text import first_few, plural
from faceteval.core import FacetScore, Instance, Judgment
from faceteval.datasets import (
    Reading,
    changed_since,
    judged_input,
    judged_instances,
    read_numbered_judgments,
    run_record,
    why_missing,
)
from faceteval.errors import FacetevalError
from faceteval.methods import as_criteria, find_method_spec
from faceteval.review._explain import explanation_parts, sentences_of
from faceteval.review._model import DEFAULT_SCALE, OVERALL, Candidate, Draft, Item, describe_conflicts
from faceteval.review._store import ReviewStore
from faceteval.store import MethodRecord

__all__ = ["ImportSummary", "import_run"]

Evaluations = dict[tuple[str, int], dict[str, Any]]
"""What a judgment's trace read from each criterion and overall reply, by (criterion, candidate number)."""


@dataclass(frozen=True, slots=True)
class ImportSummary:
    """What `import_run` added."""

    items: int
    new: int
    drafts: int
    skipped: int
    tasks: tuple[str, ...]
    comparisons: int = 0
    """Items that compare several candidates (instances judged pairwise or listwise)."""


def import_run(
    store: ReviewStore,
    judgments_path: Path,
    *,
    input_path: Path | None = None,
    task: str | None = None,
    reading: Reading | None = None,
) -> ImportSummary:
    """Add the outputs of a `judge` run and the LLM's per-criterion evaluations of them as drafts.

    An instance judged on one output becomes an item (named by the instance's id) whose drafts are
    the LLM's score and explanation on each criterion. One judged pairwise or listwise becomes one
    comparison item with every candidate, whose drafts hold each candidate's score, the facet's
    weight and explanation, and (overall) each candidate's overall score and the judge's verdict.
    Explanations are split into the sentences annotators act on, their headings and score lines
    kept apart (`explanation_parts`); a criterion's conclusion and evidence are kept too. Judgments
    that failed (``parse_error``, ``error``) are left out and counted: there is nothing of the LLM's
    to review in them. The input is read as ``reading`` says (`faceteval.datasets.read_instances`:
    a format, preset or field map), else as the run read it.

    Raises:
        FacetevalError: The run's input cannot be found, the judgments file holds no judgment, none
            that is ok, or one id twice, or a judgment names an instance it lacks.
        InputError: A line of either file is malformed (file, line and field named).
    """
    record = run_record(judgments_path)
    source = judged_input(judgments_path, input_path)
    judgments = _judgments(judgments_path)
    instances = judged_instances(judgments_path, source, reading)
    method = None if record is None else record.method
    params: dict[str, Any] = {} if method is None else dict(method.params)
    judged_with = {c.name: c for c in as_criteria(params.get("criteria")) or ()}
    recorded_scale = _scale(params.get("scale"))
    method_scale = recorded_scale or DEFAULT_SCALE
    items: list[Item] = []
    drafts: list[Draft] = []
    criteria: dict[str, dict[str, tuple[str, tuple[float, float]]]] = {}
    descriptions: dict[str, str] = {}
    facet_counts: dict[str, list[int]] = {}
    skipped = 0
    for judgment, parsed in judgments:
        if judgment.status != "ok":
            skipped += 1
            continue
        instance = instances.get(judgment.id)
        if instance is None:
            why = why_missing(instances, judgment.id)
            raise FacetevalError(f"{judgments_path}: judgment {judgment.id!r} has no instance: {why}")
        if (changed := changed_since(instance, judgment)) is not None:
            raise FacetevalError(f"{judgments_path}: judgment {judgment.id!r}: {changed}")
        name = task or instance.task or source.stem
        descriptions.setdefault(name, instance.task or "")
        facet_counts.setdefault(name, []).append(len(judgment.facets))
        known = {**{c.name: c for c in instance.criteria or ()}, **judged_with}
        for facet in judgment.facets:
            criterion = known.get(facet.name)
            scale = tuple(criterion.scale) if criterion is not None and criterion.scale else method_scale
            description = criterion.description if criterion is not None else ""
            criteria.setdefault(name, {}).setdefault(facet.name, (description or "", scale))  # type: ignore[arg-type]
        if instance.n_candidates > 1:
            item, item_drafts = _comparison(instance, judgment, name)
        else:
            item, item_drafts = _output(instance, judgment, parsed, name)
        items.append(item)
        drafts += item_drafts
    clashes = store.conflicts(items)
    if clashes:
        raise FacetevalError(f"{judgments_path}: {describe_conflicts(clashes)}")
    task_of = {item.id: item.task for item in items}
    for name, by_name in criteria.items():
        overall = [
            score
            for d in drafts
            if d.criterion == OVERALL and task_of[d.item_id] == name
            for score in (*d.scores, d.score)
            if score is not None
        ]
        ends = [*(end for _, scale in by_name.values() for end in scale), *overall]
        summed = _overall_scale(method, facet_counts[name])
        scale = recorded_scale or summed or (min(ends), max(ends))
        store.add_task(
            name,
            descriptions.get(name, ""),
            [(criterion, text, scale) for criterion, (text, scale) in by_name.items()],
            scale=scale,
            derived=recorded_scale is None,  # a sum's too: its k varies with the criteria generated
        )
    new = store.add_items(items, drafts)
    return ImportSummary(
        items=len(items),
        new=new,
        drafts=sum(d.criterion != OVERALL for d in drafts),
        skipped=skipped,
        tasks=tuple(sorted(criteria)),
        comparisons=sum(item.compares for item in items),
    )


def _judgments(path: Path) -> list[tuple[Judgment, Evaluations]]:
    """The judgments of ``path``: at least one ok, and no id twice (the lines of each repeat named).

    Each is kept without its trace (most of a judgment's size), with what a draft takes from it
    (`_parsed_evaluations`), read as the line is.
    """
    lines: dict[str, list[int]] = {}
    judgments = []
    for line_no, judgment in read_numbered_judgments(path):
        lines.setdefault(judgment.id, []).append(line_no)
        parsed = _parsed_evaluations(judgment) if judgment.status == "ok" else {}
        judgments.append((judgment.model_copy(update={"trace": []}), parsed))
    if not judgments:
        raise FacetevalError(f"{path}: no judgments (the file is empty): nothing to review")
    repeated = [f"{i!r} (lines {', '.join(map(str, at))})" for i, at in lines.items() if len(at) > 1]
    if repeated:
        raise FacetevalError(
            f"{path}: {plural(len(repeated), 'judgment id')} {'appears' if len(repeated) == 1 else 'appear'} "
            f"more than once: {first_few(repeated)}; "
            "each output is judged once in a run: keep one line of each"
        )
    if not any(judgment.status == "ok" for judgment, _ in judgments):
        raise FacetevalError(
            f"{path}: none of its {plural(len(judgments), 'judgment')} is ok (all failed): nothing to review"
        )
    return judgments


def _scale(value: Any) -> tuple[float, float] | None:
    """The judging method's scale from its run record (CoEval records it), if it records one.

    Without it (as from Fennec, whose overall score sums its criteria), a task's scale spans its
    criteria's scales and the LLM's overall scores.
    """
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, int | float) for v in value):
        low, high = float(value[0]), float(value[1])
        if low < high:
            return low, high
    return None


def _overall_scale(method: MethodRecord | None, facets: list[int]) -> tuple[float, float] | None:
    """A run's overall scale as its method's spec gives it (Fennec's ``sum``: k criteria, 1 to 5k), if
    the spec gives one: from the method's params and each judgment's facet count."""
    spec = None if method is None else find_method_spec(method.name)
    if method is None or spec is None or spec.overall_scale is None:
        return None
    return spec.overall_scale(dict(method.params), facets)


def _output(
    instance: Instance, judgment: Judgment, parsed: Evaluations, task: str
) -> tuple[Item, list[Draft]]:
    """The item of an instance judged on one output, and the LLM's drafts on it (``parsed``: what its
    trace read from each reply, `_parsed_evaluations`)."""
    item = Item(
        id=instance.id,
        task=task,
        query=instance.query,
        output=instance.candidates[0],
        system=_system(instance, 0),
        metadata={"instance": instance.id, "candidate": 1},
    )
    drafts = [_draft(item.id, facet, parsed.get((facet.name, 1))) for facet in judgment.facets]
    reasoning = parsed.get((OVERALL, 1), {}).get("reasoning") or ""
    scores = judgment.scores or []
    parts = tuple(explanation_parts(reasoning))
    overall = scores[0] if scores else None
    drafts.append(Draft(item.id, OVERALL, overall, reasoning, "", sentences_of(parts), parts=parts))
    return item, drafts


def _comparison(instance: Instance, judgment: Judgment, task: str) -> tuple[Item, list[Draft]]:
    """The comparison item of an instance judged pairwise or listwise, and the LLM's drafts on it."""
    count = instance.n_candidates
    item = Item(
        id=instance.id,
        task=task,
        query=instance.query,
        output="",
        metadata={"instance": instance.id},
        candidates=tuple(Candidate(text, _system(instance, k)) for k, text in enumerate(instance.candidates)),
    )
    drafts = []
    for facet in judgment.facets:
        parts = tuple(explanation_parts(_explanation(facet)))
        scores = _per_candidate(facet.scores, count)
        drafts.append(
            Draft(item.id, facet.name, None, "", "", sentences_of(parts), scores, facet.weight, parts=parts)
        )
    parts = tuple(explanation_parts(judgment.explanation or ""))
    overall = _per_candidate(judgment.scores or [], count)
    reasoning = judgment.explanation or ""
    drafts.append(
        Draft(
            item.id, OVERALL, None, reasoning, "", sentences_of(parts), overall, None, judgment.verdict, parts
        )
    )
    return item, drafts


def _explanation(facet: FacetScore) -> str:
    """A facet's explanation: its comparison, else its explanation of each candidate under ``Response k:``."""
    if facet.explanation or not facet.explanations:
        return facet.explanation or ""
    return "\n\n".join(f"Response {k}:\n{text}" for k, text in enumerate(facet.explanations, start=1) if text)


def _per_candidate(scores: Sequence[float | None], count: int) -> tuple[float | None, ...]:
    """One score per candidate (None for those the judgment has none of)."""
    return tuple(scores[k] if k < len(scores) else None for k in range(count))


def _system(instance: Instance, index: int) -> str | None:
    systems = instance.metadata.get("systems")
    if isinstance(systems, list) and index < len(systems):
        return str(systems[index])
    system = instance.metadata.get("system")
    return str(system) if system is not None and len(instance.candidates) == 1 else None


def _parsed_evaluations(judgment: Judgment) -> Evaluations:
    """What the trace read from each criterion and overall reply, by (criterion, candidate number)."""
    out: Evaluations = {}
    spec = find_method_spec(judgment.method)
    stages = spec.evaluations if spec is not None else None
    if stages is None:  # the method's spec names no evaluation stages to draft from (as CoEval's does)
        return out
    for entry in judgment.trace:
        parsed = entry.parsed if isinstance(entry.parsed, dict) else None
        if parsed is None or not isinstance(parsed.get("candidate"), int):
            continue
        if entry.stage == stages.criterion and isinstance(parsed.get("criterion"), str):
            out[(parsed["criterion"], parsed["candidate"])] = parsed
        elif stages.overall is not None and entry.stage == stages.overall:
            out[(OVERALL, parsed["candidate"])] = parsed
    return out


def _draft(item_id: str, facet: FacetScore, parsed: dict[str, Any] | None) -> Draft:
    """A criterion's draft on one output: its score, and its explanation split into parts."""
    parts = tuple(explanation_parts(facet.explanation or ""))
    evidence = parsed.get("evidence") if parsed else None
    return Draft(
        item_id=item_id,
        criterion=facet.name,
        score=facet.scores[0] if facet.scores else None,
        conclusion=str(parsed.get("conclusion") or "") if parsed else "",
        evidence="\n".join(map(str, evidence)) if isinstance(evidence, list) else str(evidence or ""),
        sentences=sentences_of(parts),
        weight=facet.weight,
        parts=parts,
    )
