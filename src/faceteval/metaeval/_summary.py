"""The numbers of a meta-evaluation: agreement, consistency, correlations, with their counts and CIs.

Every number is a fraction in [0, 1] (correlations in [-1, 1]) next to the counts behind it, in a
plain dict ready for ``summary.json``.
"""

from __future__ import annotations

import math
from array import array
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from faceteval import metrics
from faceteval.aggregation import ranks
from faceteval.core import Instance, Judgment, Usage
from faceteval.core.internal import mode_counts
from faceteval.metaeval._bias import bias
from faceteval.metaeval._judgments import Joined
from faceteval.metaeval._pairwise import pairwise
from faceteval.metaeval._panel import panel_summary
from faceteval.metaeval._panel_scores import (
    MIN_ROWS,
    ScoredRows,
    aspect_rows,
    facet_or_overall,
    score_panel_summary,
)
from faceteval.metaeval._selective import confidence_measures
from faceteval.metaeval._target import Target
from faceteval.metaeval._weights import HumanWeights, weight_rankings


@dataclass(frozen=True, slots=True)
class Settings:
    """How uncertainty is estimated."""

    resamples: int = 1000
    """Bootstrap resamples behind each 95% CI (0: no CIs)."""
    seed: int = 0


def summarize(
    target: Target,
    joined: Joined,
    *,
    judge: str,
    settings: Settings = Settings(),
    human_weights: Sequence[HumanWeights] = (),
    judge_models: Sequence[str] = (),
) -> dict[str, Any]:
    """The summary of one judge on one target (with people's facet weightings, how close the judge's are).

    ``judge_models`` name the judge's models (besides those its judgments' traces name), for
    self-preference when the instances name their systems.
    """
    summary: dict[str, Any] = {
        "benchmark": target.name,
        "kind": target.kind,
        "reference": target.reference,
        "judge": judge,
        "n": len(joined.pairs),
        "status": _status_counts(joined),
        "unmatched_judgments": joined.unmatched,
        "unmatched_examples": list(joined.unmatched_examples),
        "judgments_outside_sample": joined.outside_sample,
    }
    if target.kind == "pairwise":
        summary.update(pairwise(joined, _ci(settings)))
        summary["bias"] = bias(joined.pairs, _ci(settings), judge_models=judge_models, facts=joined.facts())
        summary.update(confidence_measures(joined.pairs))  # selective_accuracy and calibration
        if (panel := panel_summary(joined, _ci(settings))) is not None:
            summary["panel"] = panel
    else:
        summary.update(_pointwise(target, joined, settings))
        correlate = partial(aspect_levels, target, settings=settings)
        if (panel := score_panel_summary(joined, target.aspects, correlate)) is not None:
            summary["panel"] = panel
    summary["facet_weights"] = facet_weights(joined)
    if human_weights:
        summary["weight_rankings"] = weight_rankings(
            joined, human_weights, resamples=settings.resamples, seed=settings.seed
        )
    summary["usage"] = _usage(joined)
    if modes := mode_counts(judgment for _, judgment in joined.pairs):
        summary["score_modes"] = modes
    return summary


def _status_counts(joined: Joined) -> dict[str, int]:
    counts = {"ok": 0, "parse_error": 0, "error": 0, "missing": 0}
    for _, judgment in joined.pairs:
        counts["missing" if judgment is None else judgment.status] += 1
    return counts


# -- pointwise ----------------------------------------------------------------------------------------

METHODS: tuple[metrics.CorrelationMethod, ...] = ("pearson", "spearman", "kendall")


def judge_score(judgment: Judgment | None, aspect: str) -> float | None:
    """The judge's score for ``aspect``: its facet of that name, else its overall score."""
    if judgment is None:
        return None
    return facet_or_overall(judgment.status, judgment.facets, judgment.scores, aspect)


def _pointwise(target: Target, joined: Joined, settings: Settings) -> dict[str, Any]:
    correlations: dict[str, Any] = {}
    alpha: dict[str, Any] = {}
    tables: dict[str, list[dict[str, Any]]] = {}
    unjudged: dict[str, int] = {}
    for aspect in target.aspects:
        rows, left_out = aspect_rows(joined, aspect, partial(judge_score, aspect=aspect))
        if left_out:
            unjudged[aspect] = left_out
        if len(rows) < MIN_ROWS:
            continue
        correlations[aspect] = aspect_levels(target, rows, settings)
        if target.system_by:
            systems = [str(target.system_of(instance)) for instance, _, _ in rows]
            tables[aspect] = system_table([s for _, s, _ in rows], [h for _, _, h in rows], systems)
        if (raters := _raters(rows, aspect)) is not None:
            alpha[aspect] = raters
    out: dict[str, Any] = {"correlations": correlations}
    if unjudged:
        out["unjudged"] = unjudged  # human-scored, but no judge score (failed or missing): left out
    if tables:
        out["systems"] = tables
    if alpha:
        out["alpha"] = alpha
    return out


def aspect_levels(target: Target, rows: ScoredRows, settings: Settings) -> dict[str, Any]:
    """`correlation_levels` of an aspect's rows (instance, judge score, reference score), grouped and
    by system as ``target`` says."""
    judge = [score for _, score, _ in rows]
    human = [value for _, _, value in rows]
    groups = [_group(target, instance) for instance, _, _ in rows] if target.group_by else None
    systems = [str(target.system_of(instance)) for instance, _, _ in rows] if target.system_by else None
    return correlation_levels(judge, human, groups, systems, settings)


def _group(target: Target, instance: Instance) -> str:
    """The group an instance's scores are correlated within: an instance without one is alone."""
    group = target.group_of(instance)
    return f"group:{group}" if group is not None else f"alone:{instance.id}"


def system_table(
    judge: Sequence[float], reference: Sequence[float], systems: Sequence[str]
) -> list[dict[str, Any]]:
    """Each system's mean judge and reference score and its rank by each (Fennec Fig. 4).

    Rows are sorted by reference mean, best first (then by name); rank 1 is the best, and tied means
    share the best rank of their group.
    """
    grouped: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for system, x, y in zip(systems, judge, reference, strict=True):
        grouped[system].append((x, y))
    names = list(grouped)
    judge_means = [math.fsum(x for x, _ in grouped[name]) / len(grouped[name]) for name in names]
    reference_means = [math.fsum(y for _, y in grouped[name]) / len(grouped[name]) for name in names]
    rows = [
        {
            "system": name,
            "n": len(grouped[name]),
            "judge": judge_mean,
            "reference": reference_mean,
            "judge_rank": judge_rank,
            "reference_rank": reference_rank,
        }
        for name, judge_mean, reference_mean, judge_rank, reference_rank in zip(
            names, judge_means, reference_means, ranks(judge_means), ranks(reference_means), strict=True
        )
    ]
    return sorted(rows, key=lambda row: (-row["reference"], row["system"]))


def correlation_levels(
    judge: Sequence[float],
    human: Sequence[float],
    groups: Sequence[str] | None,
    systems: Sequence[str] | None,
    settings: Settings,
) -> dict[str, Any]:
    """Pearson, Spearman and Kendall of judge and human scores with their CIs: per item (``sample``),
    within each group then averaged (``summary``, when there are groups) and over system means
    (``system``, when outputs name their system; CIs resample the groups, i.e. the inputs)."""
    options = {"n_resamples": settings.resamples, "seed": settings.seed}
    levels: dict[str, Any] = {
        "sample": {m: metrics.correlation_with_ci(judge, human, m, **options).as_dict() for m in METHODS}
    }
    if groups is not None:
        levels["summary"] = {
            m: metrics.summary_level_with_ci(judge, human, groups, m, **options).as_dict() for m in METHODS
        }
    if systems is not None:
        levels["system"] = {
            m: metrics.system_level_with_ci(judge, human, systems, m, clusters=groups, **options).as_dict()
            for m in METHODS
        }
    return levels


def _raters(rows: ScoredRows, aspect: str) -> dict[str, Any] | None:
    """Krippendorff's alpha among the reference annotators, and with the judge as one more rater."""
    annotations = [instance.metadata.get("annotators", {}).get(aspect) for instance, _, _ in rows]
    if not all(isinstance(a, list) and a for a in annotations):
        return None
    width = max(len(a) for a in annotations if a)
    humans: list[list[float | None]] = [
        [a[k] if a and k < len(a) else None for a in annotations] for k in range(width)
    ]
    with_judge: list[list[float | None]] = [*humans, [score for _, score, _ in rows]]
    return {
        level: {
            "annotators": metrics.krippendorff_alpha(humans, level=level),
            "annotators_and_judge": metrics.krippendorff_alpha(with_judge, level=level),
        }
        for level in ("interval", "ordinal")
    } | {"average_pairwise_pearson_annotators": metrics.average_pairwise_pearson(humans)}


# -- shared -------------------------------------------------------------------------------------------


def _ci(settings: Settings) -> Callable[..., dict[str, Any]]:
    def rate(metric: Callable[..., metrics.Rate], *columns: Sequence[Any]) -> dict[str, Any]:
        if settings.resamples:
            return metrics.with_ci(
                metric, *columns, n_resamples=settings.resamples, seed=settings.seed
            ).as_dict()
        return metric(*columns).as_dict()

    return rate


def facet_weights(joined: Joined) -> dict[str, Any]:
    """Mean weight of each facet, overall and per category (DnA-Eval Tables 5-8)."""
    totals: dict[str, dict[str, array[float]]] = defaultdict(lambda: defaultdict(lambda: array("d")))
    for instance, judgment in joined.pairs:
        if judgment is None or judgment.status != "ok":
            continue
        for facet in judgment.facets:
            if facet.weight is not None:
                name = facet.name.strip().lower()
                totals["(all)"][name].append(facet.weight)
                if instance.category:
                    totals[instance.category][name].append(facet.weight)
    return {
        category: {
            name: {"mean": sum(values) / len(values), "n": len(values)}
            for name, values in sorted(facets.items(), key=lambda item: -len(item[1]))
        }
        for category, facets in sorted(totals.items())
    }


def _usage(joined: Joined) -> dict[str, Any]:
    """Calls, tokens and cost of the judgments, cache hits counted at their price (as `Usage` does).

    ``made`` is the part of it from calls actually made (what was spent), when every judgment's
    trace accounts for its calls (not with --no-trace).
    """
    total = Usage()
    made: Usage | None = Usage()
    judged = 0
    for (_, judgment), facts in zip(joined.pairs, joined.facts(), strict=True):
        if judgment is not None and facts is not None:
            judged += 1
            total = total + judgment.usage
            made = None if made is None or facts.made is None else made + facts.made
    judged = judged or 1
    out = total.model_dump() | {
        "per_instance": {
            "calls": total.calls / judged,
            "input_tokens": total.input_tokens / judged,
            "output_tokens": total.output_tokens / judged,
            "cost_usd": None if total.cost_usd is None else total.cost_usd / judged,
        }
    }
    if made is not None and total.calls:
        out["made"] = made.model_dump(exclude={"cached_calls"})
    return out
