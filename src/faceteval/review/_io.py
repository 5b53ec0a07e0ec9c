"""Into and out of a review project: LLM drafts from a `judge` run in; final scores and action logs out."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from faceteval._util.text import first_few, plural
from faceteval.core import FacetScore, Instance, Judgment
from faceteval.datasets import (
    changed_since,
    judged_input,
    judged_instances,
    read_numbered_judgments,
    run_record,
    why_missing,
)
from faceteval.errors import FacetevalError
from faceteval.methods import as_criteria, find_method_spec
from faceteval.review._model import (
    DEFAULT_SCALE,
    OVERALL,
    Draft,
    Item,
    describe_conflicts,
    finished,
    split_sentences,
)
from faceteval.review._store import ReviewStore

__all__ = ["ImportSummary", "export_actions", "export_scores", "import_run"]


@dataclass(frozen=True, slots=True)
class ImportSummary:
    """What `import_run` added."""

    items: int
    new: int
    drafts: int
    skipped: int
    tasks: tuple[str, ...]


def import_run(
    store: ReviewStore, judgments_path: Path, *, input_path: Path | None = None, task: str | None = None
) -> ImportSummary:
    """Add the outputs of a `judge` run and the LLM's per-criterion evaluations of them as drafts.

    Each candidate of an instance becomes one item (``<id>`` alone, ``<id>#<n>`` when there are
    several). A criterion evaluation's explanation is split into the sentences annotators act on; its
    score, conclusion and evidence are kept. Judgments that failed (``parse_error``, ``error``) are
    left out and counted: there is nothing of the LLM's to review in them.

    Raises:
        FacetevalError: The run's input cannot be found, the judgments file holds no judgment, none
            that is ok, or one id twice, or a judgment names an instance it lacks.
        InputError: A line of either file is malformed (file, line and field named).
    """
    record = run_record(judgments_path)
    source = judged_input(judgments_path, input_path)
    judgments = _judgments(judgments_path)
    instances = judged_instances(judgments_path, source)
    params = record.get("method", {}).get("params", {})
    judged_with = {c.name: c for c in as_criteria(params.get("criteria")) or ()}
    recorded_scale = _scale(params.get("scale"))
    method_scale = recorded_scale or DEFAULT_SCALE
    items: list[Item] = []
    drafts: list[Draft] = []
    criteria: dict[str, dict[str, tuple[str, tuple[float, float]]]] = {}
    descriptions: dict[str, str] = {}
    facet_counts: dict[str, list[int]] = {}
    skipped = 0
    for judgment in judgments:
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
        several = len(instance.candidates) > 1
        parsed = _parsed_evaluations(judgment)
        for index, output in enumerate(instance.candidates):
            item_id = f"{instance.id}#{index + 1}" if several else instance.id
            items.append(
                Item(
                    id=item_id,
                    task=name,
                    query=instance.query,
                    output=output,
                    system=_system(instance, index),
                    metadata={"instance": instance.id, "candidate": index + 1},
                )
            )
            drafts.extend(
                _draft(item_id, facet, index, several, parsed.get((facet.name, index + 1)))
                for facet in judgment.facets
            )
            scores = judgment.scores or []
            reasoning = parsed.get((OVERALL, index + 1), {}).get("reasoning") or ""
            drafts.append(
                Draft(
                    item_id=item_id,
                    criterion=OVERALL,
                    score=scores[index] if index < len(scores) else None,
                    conclusion=reasoning,
                    sentences=tuple(split_sentences(reasoning)),
                )
            )
    clashes = store.conflicts(items)
    if clashes:
        raise FacetevalError(f"{judgments_path}: {describe_conflicts(clashes)}")
    task_of = {item.id: item.task for item in items}
    for name, by_name in criteria.items():
        overall = [
            d.score
            for d in drafts
            if d.criterion == OVERALL and d.score is not None and task_of[d.item_id] == name
        ]
        ends = [*(end for _, scale in by_name.values() for end in scale), *overall]
        summed = _overall_scale(record, facet_counts[name])
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
    )


def _judgments(path: Path) -> list[Judgment]:
    """The judgments of ``path``: at least one ok, and no id twice (the lines of each repeat named)."""
    lines: dict[str, list[int]] = {}
    judgments = []
    for line_no, judgment in read_numbered_judgments(path):
        lines.setdefault(judgment.id, []).append(line_no)
        judgments.append(judgment)
    if not judgments:
        raise FacetevalError(f"{path}: no judgments (the file is empty): nothing to review")
    repeated = [f"{i!r} (lines {', '.join(map(str, at))})" for i, at in lines.items() if len(at) > 1]
    if repeated:
        raise FacetevalError(
            f"{path}: {plural(len(repeated), 'judgment id')} {'appears' if len(repeated) == 1 else 'appear'} "
            f"more than once: {first_few(repeated)}; "
            "each output is judged once in a run: keep one line of each"
        )
    if not any(judgment.status == "ok" for judgment in judgments):
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


def _overall_scale(record: dict[str, Any], facets: list[int]) -> tuple[float, float] | None:
    """A run's overall scale as its method's spec gives it (Fennec's ``sum``: k criteria, 1 to 5k), if
    the spec gives one: from the method's params and each judgment's facet count."""
    method = record.get("method", {})
    spec = find_method_spec(method.get("name"))
    if spec is None or spec.overall_scale is None:
        return None
    return spec.overall_scale(method.get("params", {}), facets)


def _system(instance: Instance, index: int) -> str | None:
    systems = instance.metadata.get("systems")
    if isinstance(systems, list) and index < len(systems):
        return str(systems[index])
    system = instance.metadata.get("system")
    return str(system) if system is not None and len(instance.candidates) == 1 else None


def _parsed_evaluations(judgment: Judgment) -> dict[tuple[str, int], dict[str, Any]]:
    """What the trace read from each criterion and overall reply, by (criterion, candidate number)."""
    out: dict[tuple[str, int], dict[str, Any]] = {}
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


def _draft(
    item_id: str, facet: FacetScore, index: int, several: bool, parsed: dict[str, Any] | None
) -> Draft:
    """A criterion's draft: the evaluation text of this candidate, split into sentences to review."""
    score = facet.scores[index] if index < len(facet.scores) else None
    text = _candidate_block(facet.explanation or "", index + 1) if several else (facet.explanation or "")
    evidence = parsed.get("evidence") if parsed else None
    return Draft(
        item_id=item_id,
        criterion=facet.name,
        score=score,
        conclusion=str(parsed.get("conclusion") or "") if parsed else "",
        evidence="\n".join(map(str, evidence)) if isinstance(evidence, list) else str(evidence or ""),
        sentences=tuple(split_sentences(text)),
    )


def _candidate_block(text: str, number: int) -> str:
    """The part of a facet explanation under ``Response <number>:`` (the whole text if none is headed)."""
    blocks = re.split(r"^Response (\d+):[ \t]*$", text, flags=re.MULTILINE)
    if len(blocks) == 1:
        return text
    found = {int(blocks[i]): blocks[i + 1].strip() for i in range(1, len(blocks) - 1, 2)}
    return found.get(number, "")


def export_scores(store: ReviewStore) -> list[dict[str, Any]]:
    """One row per output and annotator who worked on it: their scores, explanations, and the LLM's.

    Criteria are keyed by the names they were drafted (or added) with, the LLM's and every
    annotator's alike; ``renamed`` gives the names this annotator revised them to.
    """
    drafts: dict[str, dict[str, Draft]] = {}
    for draft in store.drafts():
        drafts.setdefault(draft.item_id, {})[draft.criterion] = draft
    active: dict[str, set[str]] = {}
    for row in [*store.sentence_actions(), *store.score_actions()]:
        active.setdefault(row["item_id"], set()).add(row["annotator"])
    rows = []
    for item in store.items():
        for annotator in sorted(active.get(item.id, ())):
            views, overall = store.item_view(item.id, annotator)
            llm = drafts.get(item.id, {})
            rows.append(
                {
                    "id": item.id,
                    "task": item.task,
                    "system": item.system,
                    "annotator": annotator,
                    "done": finished(views, overall),
                    "scores": {view.name: view.score for view in views},
                    "overall": overall,
                    "explanations": {
                        view.name: [s.text for s in view.sentences if s.text is not None] for view in views
                    },
                    "llm_scores": {name: d.score for name, d in llm.items() if name != OVERALL},
                    "llm_overall": llm[OVERALL].score if OVERALL in llm else None,
                    "criteria": [view.name for view in views],
                    "renamed": {view.name: view.title for view in views if view.title != view.name},
                }
            )
    return rows


def export_actions(store: ReviewStore) -> list[dict[str, Any]]:
    """Every action of every annotator, oldest first: stage-1 criteria actions, sentence actions, scores."""
    rows: list[dict[str, Any]] = []
    for action in store.criteria_actions():
        rows.append({"stage": "criteria", **action})
    for action in store.sentence_actions():
        rows.append({"stage": "sentence", **action})  # a negative ``sentence`` is -id of its ``add``
    for action in store.score_actions():
        rows.append({"stage": "score", "action": "score", **action})
    rows.sort(key=lambda row: row["created_at"])
    return rows
