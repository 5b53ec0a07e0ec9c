"""What an import checks and works out before it adds anything, reading the judgments line by line.

`checked_judgments` refuses a run with nothing to review or an id judged twice; `import_plan` goes
over every item the run makes (one at a time, as `_io` builds them) for what its tasks need before
their first item is added: their criteria and scale, and whether an item clashes with one of the
project's. Nothing of the items is kept, so an import's memory does not grow with the run.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from faceteval._util.text import first_few, plural
from faceteval.core import Instance, Judgment
from faceteval.datasets.internal import read_numbered_judgments
from faceteval.errors import FacetevalError
from faceteval.methods.internal import as_criteria, find_method_spec
from faceteval.review._model import DEFAULT_SCALE, OVERALL, Draft, Item, describe_conflicts
from faceteval.review._staged import Staged, chunked
from faceteval.review._store import ReviewStore
from faceteval.store import MethodRecord

Built = tuple[Item, list[Draft], Instance, Judgment]
"""An ok judgment's item and drafts, with its instance and judgment (without its trace)."""
CHECKED = 1_000
"""Items checked for clashes with the project's in one query batch."""


def checked_judgments(path: Path, staged: Staged) -> int:
    """How many judgments of ``path`` failed (there is nothing of the LLM's to review in them), once
    the file is read line by line (each id's line kept in ``staged``) and found to hold at least one
    ok judgment and no id twice.

    Raises:
        FacetevalError: No judgment, none ok, or an id judged twice (the lines of each repeat named).
        InputError: A line is not a judgment.
    """
    counts = {"ok": 0, "failed": 0}

    def lines() -> Iterator[tuple[str, int]]:
        for line_no, judgment in read_numbered_judgments(path):
            counts["ok" if judgment.status == "ok" else "failed"] += 1
            yield judgment.id, line_no

    staged.add_lines(lines())
    count, failed = counts["ok"] + counts["failed"], counts["failed"]
    if not count:
        raise FacetevalError(f"{path}: no judgments (the file is empty): nothing to review")
    if again := staged.repeated():
        repeated = [f"{i!r} (lines {', '.join(map(str, at))})" for i, at in again]
        raise FacetevalError(
            f"{path}: {plural(len(repeated), 'judgment id')} {'appears' if len(repeated) == 1 else 'appear'} "
            f"more than once: {first_few(repeated)}; "
            "each output is judged once in a run: keep one line of each"
        )
    if failed == count:
        raise FacetevalError(
            f"{path}: none of its {plural(count, 'judgment')} is ok (all failed): nothing to review"
        )
    return failed


@dataclass(slots=True)
class ImportPlan:
    """What an import's tasks need before their items are added."""

    recorded_scale: tuple[float, float] | None
    """The judging method's scale, when its run record gives one (CoEval's)."""
    criteria: dict[str, dict[str, tuple[str, tuple[float, float]]]] = field(default_factory=dict)
    """Each task's criteria: description and scale, by name."""
    descriptions: dict[str, str] = field(default_factory=dict)
    facet_counts: dict[str, list[int]] = field(default_factory=dict)
    """Each task's judgments' facet counts, in order (a sum's scale depends on them)."""
    overall: dict[str, tuple[float, float]] = field(default_factory=dict)
    """The lowest and highest overall score of each task's drafts."""

    def scale(self, task: str, method: MethodRecord | None) -> tuple[float, float]:
        """The task's scale: the method's, else its spec's sum of the criteria, else the span of its
        criteria's scales and the LLM's overall scores (`DEFAULT_SCALE` without any)."""
        given = self.recorded_scale or _overall_scale(method, self.facet_counts[task])
        if given:
            return given
        ends = [end for _, scale in self.criteria[task].values() for end in scale]
        ends += self.overall.get(task, ())
        return (min(ends), max(ends)) if ends else DEFAULT_SCALE

    def add(self, item: Item, drafts: Sequence[Draft], instance: Instance, judgment: Judgment,
            judged_with: dict[str, Any]) -> None:  # fmt: skip
        """Count one ok judgment's item in."""
        name = item.task
        self.descriptions.setdefault(name, instance.task or "")
        self.facet_counts.setdefault(name, []).append(len(judgment.facets))
        known = {**{c.name: c for c in instance.criteria or ()}, **judged_with}
        method_scale = self.recorded_scale or DEFAULT_SCALE
        self.criteria.setdefault(name, {})  # a task judged on no criteria is reviewed overall alone
        for facet in judgment.facets:
            criterion = known.get(facet.name)
            scale = tuple(criterion.scale) if criterion is not None and criterion.scale else method_scale
            description = criterion.description if criterion is not None else ""
            self.criteria.setdefault(name, {}).setdefault(facet.name, (description or "", scale))
        scores = [s for d in drafts if d.criterion == OVERALL for s in (*d.scores, d.score) if s is not None]
        if scores:
            low, high = self.overall.get(name, (min(scores), max(scores)))
            self.overall[name] = (min(low, *scores), max(high, *scores))


def import_plan(store: ReviewStore, built: Iterable[Built], params: dict[str, Any], path: Path) -> ImportPlan:
    """The plan of an import of the items ``built`` (see `ImportPlan`), made with ``params`` (the
    judging method's, from its run record).

    Raises:
        FacetevalError: Items whose ids the project holds for other outputs (each named).
    """
    plan = ImportPlan(recorded_scale=_scale(params.get("scale")))
    judged_with = {c.name: c for c in as_criteria(params.get("criteria")) or ()}
    clashes: list[tuple[Item, Item]] = []
    for chunk in chunked(built, CHECKED):
        for item, drafts, instance, judgment in chunk:
            plan.add(item, drafts, instance, judgment, judged_with)
        clashes += store.conflicts([item for item, _, _, _ in chunk])
    if clashes:
        raise FacetevalError(f"{path}: {describe_conflicts(clashes)}")
    return plan


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
