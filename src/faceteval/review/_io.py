"""Into a review project: the LLM's drafts from a `judge` run.

Each instance judged on one output becomes an item, and each judged pairwise or listwise one
comparison item holding every candidate. Exporting is ``_export.py``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from faceteval.core import FacetScore, Instance, Judgment
from faceteval.datasets import InstanceFile, Reading
from faceteval.datasets.internal import (
    changed_since,
    judged_input,
    judged_reading,
    read_numbered_judgments,
    run_record,
)
from faceteval.errors import FacetevalError
from faceteval.methods.internal import find_method_spec
from faceteval.review._explain import explanation_parts, sentences_of
from faceteval.review._import_plan import Built, checked_judgments, import_plan
from faceteval.review._model import OVERALL, Candidate, Draft, Item
from faceteval.review._queue import Ordering, queue_key, ranked
from faceteval.review._staged import Staged, chunked, staged
from faceteval.review._store import ReviewStore

__all__ = ["ImportSummary", "import_run"]

CHUNK = 1_000
"""Items added in one transaction: an import holds at most this many items and their drafts at a time.
A re-run of an import killed between two adds what the first did not (items are keyed by id)."""
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
    order: Ordering = "input",
    seed: int = 0,
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

    The new items meet the annotators in the ``order`` queue (`faceteval.review._queue`: ``input``,
    ``uncertainty``, ``disagreement`` or ``random``; ties drawn from ``seed``), after those the project
    holds; the order and seed are recorded with each item and in the project's settings.

    The judgments are read line by line, three times (to check them, to plan the tasks and check
    the items against the project's, to add them), the instances are looked up in a temporary SQLite
    file (`_staged`), and the items are added `CHUNK` at a time, each chunk in its own transaction:
    memory grows with the run by each item's id and place in the queue alone. An import killed
    between two chunks is finished by running it again (the items present are left as they are; the
    rest are queued after them).

    Raises:
        FacetevalError: The run's input cannot be found, the judgments file holds no judgment, none
            that is ok, or one id twice, or a judgment names an instance it lacks.
        InputError: A line of either file is malformed (file, line and field named).
    """
    record = run_record(judgments_path)
    source = judged_input(judgments_path, input_path)
    with staged() as looked_up:
        skipped = checked_judgments(judgments_path, looked_up)
        looked_up.add_instances(InstanceFile(source, reading=reading or judged_reading(judgments_path)))
        method = None if record is None else record.method
        params: dict[str, Any] = {} if method is None else dict(method.params)
        built = partial(_built, judgments_path, looked_up, task or None, source.stem)
        keys: list[tuple[str, float]] = []
        plan = import_plan(store, _keyed(built(parsed=False), order, keys), params, judgments_path)
        queue = store.new_queue(order, seed, ranked(keys, order, seed))
        for name, by_name in plan.criteria.items():
            store.add_task(
                name,
                plan.descriptions.get(name, ""),
                [(criterion, text, scale) for criterion, (text, scale) in by_name.items()],
                scale=plan.scale(name, method),
                derived=plan.recorded_scale is None,  # a sum's too: its k varies with the criteria generated
            )
        new = items = drafts = comparisons = 0
        for chunk in chunked(built(parsed=True), CHUNK):
            chunk_items = [item for item, _, _, _ in chunk]
            chunk_drafts = [draft for _, item_drafts, _, _ in chunk for draft in item_drafts]
            new += store.add_items(chunk_items, chunk_drafts, queue=queue)
            items += len(chunk_items)
            drafts += sum(d.criterion != OVERALL for d in chunk_drafts)
            comparisons += sum(item.compares for item in chunk_items)
    store.update_settings(order=order, seed=seed)
    return ImportSummary(
        items=items,
        new=new,
        drafts=drafts,
        skipped=skipped,
        tasks=tuple(sorted(plan.criteria)),
        comparisons=comparisons,
    )


def _keyed(built: Iterator[Built], order: Ordering, keys: list[tuple[str, float]]) -> Iterator[Built]:
    """``built`` as it is, each item's id and key in the ``order`` queue appended to ``keys`` as it passes."""
    for entry in built:
        keys.append((entry[0].id, queue_key(entry[3], order)))
        yield entry


def _built(path: Path, instances: Staged, task: str | None, stem: str, *, parsed: bool) -> Iterator[Built]:
    """Each ok judgment of ``path`` as its item and drafts (read line by line: one held at a time),
    with its instance and judgment (without its trace); with ``parsed``, the drafts of outputs
    hold what the trace read from each reply (`_parsed_evaluations`), else nothing of it.

    Raises:
        FacetevalError: A judgment names an instance it lacks, or one edited since.
    """
    for _, judgment in read_numbered_judgments(path):
        if judgment.status != "ok":
            continue
        instance = instances.instance(judgment.id)
        if instance is None:
            why = instances.why_missing(judgment.id)
            raise FacetevalError(f"{path}: judgment {judgment.id!r} has no instance: {why}")
        if (changed := changed_since(instance, judgment)) is not None:
            raise FacetevalError(f"{path}: judgment {judgment.id!r}: {changed}")
        evaluations = _parsed_evaluations(judgment) if parsed else {}
        judgment = judgment.model_copy(update={"trace": []})
        name = task or instance.task or stem
        if instance.n_candidates > 1:
            item, drafts = _comparison(instance, judgment, name)
        else:
            item, drafts = _output(instance, judgment, evaluations, name)
        yield item, drafts, instance, judgment


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
