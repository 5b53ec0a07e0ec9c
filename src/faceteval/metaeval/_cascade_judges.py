"""A cascade's judges from their judgments: each one's confidence, agreement and cost per instance.

What a judge costs per instance is its judgments' mean recorded spend, in the first unit every
judge of the cascade records: ``cost_usd``, else ``tokens`` (input and output), else ``calls``;
when some judge records none (recorded judges of published benchmarks keep no usage), each judge
costs one judgment per instance (``judgments``), so relative cost counts how many judges are asked.
Costs given by the caller (``judge_costs``, one per judge) replace them (``given``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from faceteval.aggregation import DEFAULT_PANEL_VOTE
from faceteval.core import SIGNALS, Instance, Judgment, PanelVote
from faceteval.errors import FacetevalError
from faceteval.metaeval._cascade import CascadeJudge, CascadeSettings, cascade
from faceteval.metaeval._judgments import JudgmentSource, load_judgments, pair_by_id
from faceteval.metaeval._panel import panel_specs
from faceteval.metaeval._selective import confidences
from faceteval.metaeval._strategies import with_confidence
from faceteval.metaeval._target import Target

_UNITS: tuple[tuple[str, Callable[[Judgment], float]], ...] = (
    ("cost_usd", lambda j: j.usage.cost_usd or 0.0),
    ("tokens", lambda j: float(j.usage.input_tokens + j.usage.output_tokens)),
    ("calls", lambda j: float(j.usage.calls)),
)


def cascade_summary(
    instances: Sequence[Instance],
    sources: Sequence[JudgmentSource],
    settings: CascadeSettings,
    *,
    confidence: str,
    judge_costs: Sequence[float] | None = None,
) -> dict[str, Any]:
    """The ``summary.cascade`` block of the judges ``sources`` (in order, the first asked first) over
    the labelled ``instances`` (`faceteval.metaeval._cascade.cascade`).

    Raises:
        FacetevalError: Fewer than 2 labelled instances, or ``judge_costs`` not one positive number
            per judge.
    """
    labelled = [instance for instance in instances if instance.label is not None]
    if len(labelled) < 2:
        raise FacetevalError(
            f"--cascade calibrates and tests on labelled instances: {len(labelled)} of {len(instances)} "
            "measured have a label, and it takes at least 2"
        )
    costs, basis = _costs(sources, judge_costs)
    judges = [_judge(source, labelled, cost) for source, cost in zip(sources, costs, strict=True)]
    return {"confidence": confidence, "cost_basis": basis} | cascade(judges, settings)


def _judge(source: JudgmentSource, labelled: Sequence[Instance], cost: float) -> CascadeJudge:
    pairs = pair_by_id(labelled, source.judgments)
    agrees = [
        judgment is not None and judgment.status == "ok" and judgment.verdict == instance.label
        for instance, judgment in pairs
    ]
    return CascadeJudge(source.name, confidences(pairs), agrees, cost)


def _costs(sources: Sequence[JudgmentSource], given: Sequence[float] | None) -> tuple[list[float], str]:
    """Each judge's cost per instance, and its unit (see the module's docstring)."""
    if given is not None:
        if len(given) != len(sources) or not all(math.isfinite(c) and c > 0 for c in given):
            raise FacetevalError(
                f"--judge-costs takes one positive cost per judge of the cascade ({len(sources)}), "
                f"got {', '.join(map(str, given)) or 'none'}"
            )
        return list(given), "given"
    for unit, spent in _UNITS:
        means = [_mean(source.judgments, spent) for source in sources]
        if all(mean > 0 for mean in means):
            return means, unit
    return [1.0] * len(sources), "judgments"


def _mean(judgments: Sequence[Judgment], spent: Callable[[Judgment], float]) -> float:
    values = [spent(judgment) for judgment in judgments]
    return math.fsum(values) / len(values) if values else 0.0


def measured_sources(
    spec: str,
    target: Target,
    data_dir: Path,
    *,
    vote: PanelVote = DEFAULT_PANEL_VOTE,
    confidence: str = SIGNALS,
    cascade: bool = False,
) -> tuple[JudgmentSource, list[JudgmentSource]]:
    """The judgments ``spec`` names, their confidence from ``confidence`` (`with_confidence`), and, for
    a ``cascade``, its judges: ``spec``'s comma-separated judges in order, the last one measured alone
    (the judge the cascade saves calls of); without, ``spec`` is one judge or a panel (`load_judgments`).

    Raises:
        FacetevalError: What `load_judgments` and `with_confidence` raise; a cascade naming a judge twice.
    """
    if not cascade:
        source = load_judgments(spec, target, data_dir, vote=vote)
        return with_confidence(source, confidence, target, data_dir), []
    parts = panel_specs(spec)
    if len(set(parts)) < len(parts):
        raise FacetevalError(f"a cascade names each judge once, got {', '.join(parts)}")
    judges = [
        with_confidence(load_judgments(part, target, data_dir, whole=True), confidence, target, data_dir)
        for part in parts
    ]
    return judges[-1], judges
