"""What the instances and judgments of a run show beyond the summary: distributions and examples."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from faceteval.core import Instance, Judgment
from faceteval.metaeval import Pairs
from faceteval.metaeval.internal import pair_by_id
from faceteval.report._format import label_name
from faceteval.report._run import shown_reply

NO_VERDICT = "no verdict"


@dataclass(frozen=True, slots=True)
class Paired:
    """Instances with their judgment (None where the judge has none), in instance order. A run read
    from its files keeps them packed: the sections read them in passes, a pair at a time, and read
    the few they show again whole (`whole`)."""

    pairs: Pairs

    @classmethod
    def of(cls, instances: Sequence[Instance], judgments: Sequence[Judgment]) -> Paired:
        """Pair by id; the first judgment of an id wins."""
        return cls(pair_by_id(instances, judgments))

    @property
    def judged(self) -> bool:
        """Whether any instance has a judgment."""
        return self.pairs.missing < len(self.pairs)

    def whole(self, positions: Sequence[int]) -> list[tuple[Instance, Judgment | None]]:
        """The pairs at ``positions`` whole: texts, and the reply of each judgment's trace a report may
        show (`shown_reply`)."""
        return [(i, None if j is None else shown_reply(j)) for i, j in self.pairs.whole(positions)]

    def aspects(self) -> list[str]:
        """Human score aspects, in order of first appearance."""
        return list(dict.fromkeys(aspect for instance, _ in self.pairs for aspect in instance.scores or {}))


@dataclass(frozen=True, slots=True)
class Counts:
    """Human labels and judge verdicts, counted over the same names."""

    names: tuple[str, ...]
    human: tuple[int, ...]
    judge: tuple[int, ...]


def ok(judgment: Judgment | None) -> bool:
    """Whether ``judgment`` is present and succeeded."""
    return judgment is not None and judgment.status == "ok"


def verdict_counts(paired: Paired) -> Counts | None:
    """Labels and verdicts over the labelled instances (a failed or absent judgment is ``no verdict``)."""
    human: Counter[str] = Counter()
    judge: Counter[str] = Counter()
    for instance, judgment in paired.pairs:
        if instance.label is not None:
            human[label_name(instance.label)] += 1
            judge[label_name(judgment.verdict) if judgment is not None and ok(judgment) else NO_VERDICT] += 1
    if not human or not paired.judged:
        return None
    names = sorted(set(human) | set(judge), key=_label_order)
    return Counts(tuple(names), tuple(human[n] for n in names), tuple(judge[n] for n in names))


def _label_order(name: str) -> tuple[int, str]:
    rank = 1 if name == "tie" else 2 if name == NO_VERDICT else 0
    return (rank, name.rjust(8))


def preferred_scores(paired: Paired) -> tuple[list[float], list[float]]:
    """The judge's overall scores of the human-preferred candidates, and of the others (no ties)."""
    preferred: list[float] = []
    others: list[float] = []
    for instance, judgment in paired.pairs:
        if not instance.label or judgment is None or not ok(judgment) or not judgment.scores:
            continue
        for index, score in enumerate(judgment.scores, start=1):
            (preferred if index == instance.label else others).append(score)
    return preferred, others


def judge_score(judgment: Judgment | None, aspect: str) -> float | None:
    """The judge's score for ``aspect``: its facet of that name, else its overall score (as in summaries)."""
    if judgment is None or not ok(judgment):
        return None
    for facet in judgment.facets:
        if facet.name.lower() == aspect.lower() and facet.scores and facet.scores[0] is not None:
            return facet.scores[0]
    return judgment.scores[0] if judgment.scores else None


def aspect_scores(paired: Paired, aspect: str) -> list[tuple[int, float, float]]:
    """Instances with both a human and a judge score for ``aspect``: (position, human, judge)."""
    rows = []
    for position, (instance, judgment) in enumerate(paired.pairs):
        human = (instance.scores or {}).get(aspect)
        score = judge_score(judgment, aspect)
        if human is not None and score is not None and judgment is not None:
            rows.append((position, human, score))
    return rows
