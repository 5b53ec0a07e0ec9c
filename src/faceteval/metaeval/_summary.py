"""The numbers of a meta-evaluation: agreement, consistency, correlations, with their counts and CIs.

Every number is a fraction in [0, 1] (correlations in [-1, 1]) next to the counts behind it, in a
plain dict ready for ``summary.json``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from faceteval import metrics
from faceteval.aggregation import ranks
from faceteval.core import Instance, Judgment, Usage, mode_counts, usage_of
from faceteval.metaeval._bias import bias
from faceteval.metaeval._judgments import Joined
from faceteval.metaeval._panel import panel_summary
from faceteval.metaeval._panel_scores import (
    MIN_ROWS,
    ScoredRows,
    aspect_rows,
    facet_or_overall,
    score_panel_summary,
)
from faceteval.metaeval._selective import selective_accuracy
from faceteval.metaeval._slim import TraceFacts
from faceteval.metaeval._target import Target
from faceteval.metaeval._weights import HumanWeights, weight_rankings

ORIGINAL, SWAPPED = [1, 2], [2, 1]
VOTE_KEYS = ("question_id", "model_a", "model_b", "turn")


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
        summary.update(_pairwise(joined, settings))
        summary["bias"] = bias(joined.pairs, _ci(settings), judge_models=judge_models, facts=joined.facts)
        if (selective := selective_accuracy(joined.pairs, _ci(settings))) is not None:
            summary["selective_accuracy"] = selective
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


# -- pairwise -----------------------------------------------------------------------------------------


def verdict(judgment: Judgment | None) -> int | None:
    return judgment.verdict if judgment is not None and judgment.status == "ok" else None


def _order_verdict(judgment: Judgment | None, order: list[int]) -> int | None:
    if judgment is None:
        return None
    for result in judgment.orders:
        if result.order == order:
            return result.verdict
    return None


def _has_both_orders(pairs: Sequence[tuple[Instance, Judgment | None]]) -> bool:
    return any(
        judgment is not None and {tuple(o.order) for o in judgment.orders} >= {(1, 2), (2, 1)}
        for _, judgment in pairs
    )


def _pairwise(joined: Joined, settings: Settings) -> dict[str, Any]:
    labelled = [(i, j) for i, j in joined.pairs if i.label is not None]
    labels = [i.label for i, _ in labelled if i.label is not None]
    verdicts = [verdict(j) for _, j in labelled]
    out: dict[str, Any] = {"labelled": len(labelled)}
    ci = _ci(settings)
    out["agreement"] = ci(metrics.agreement, verdicts, labels)
    if any(label == 0 for label in labels):
        out["agreement_without_ties"] = ci(metrics.agreement_without_ties, verdicts, labels)
    out["cohen_kappa"] = {"value": metrics.cohen_kappa(verdicts, labels)}
    # Both orders (--swap) of two candidates: the order metrics. Three or more are judged in rotations,
    # which have no "swapped order": whether their rotations agreed is measured apart.
    pairs = [(i, j) for i, j in labelled if i.n_candidates == 2]
    if _has_both_orders(pairs):
        out.update(_order_metrics(pairs, ci))
        if len(pairs) < len(labelled):
            out["order_metrics_leave_out"] = len(labelled) - len(pairs)
    rotated = [j for i, j in labelled if i.n_candidates > 2]
    if any(j is not None and len(j.orders) > 1 for j in rotated):
        agreed = [j.consistent if j is not None and j.status == "ok" else None for j in rotated]
        out["rotation_consistency"] = ci(_agreed, agreed)
    candidates = max([2, *(instance.n_candidates for instance, _ in labelled)])
    out["confusion"] = metrics.confusion(verdicts, labels, classes=(*range(1, candidates + 1), metrics.TIE))
    categories = [i.category for i, _ in labelled]
    if any(categories):
        out["by_category"] = {
            str(category): {"agreement": rate}
            for category, rate in _by_category(categories, verdicts, labels, ci).items()
        }
    if labelled and all(all(k in i.metadata for k in VOTE_KEYS) for i, _ in labelled):
        out["votes"] = _votes(labelled)
    return out


def _order_metrics(
    pairs: Sequence[tuple[Instance, Judgment | None]], ci: Callable[..., dict[str, Any]]
) -> dict[str, Any]:
    """Agreement in each order, and consistency across the two, of two-candidate instances."""
    labels = [i.label for i, _ in pairs if i.label is not None]
    first = [_order_verdict(j, ORIGINAL) for _, j in pairs]
    second = [_order_verdict(j, SWAPPED) for _, j in pairs]
    unreadable = [j is not None and j.status == "parse_error" for _, j in pairs]
    return {
        "agreement_order1": ci(metrics.agreement, first, labels),
        "agreement_order2": ci(metrics.agreement, second, labels),
        "accuracy_order_avg": ci(metrics.accuracy_order_avg, first, second, labels),
        "consistency": ci(metrics.consistency, first, second),
        "consistency_without_ties": ci(metrics.consistency_without_ties, first, second, labels),
        "positional_agreement": ci(_positional_agreement, first, second, unreadable),
        "agreement_consistent": ci(metrics.agreement_consistent, first, second, labels),
        "agreement_consistent_without_ties": ci(
            metrics.agreement_consistent_without_ties, first, second, labels
        ),
    }


def _positional_agreement(
    first: Sequence[int | None], second: Sequence[int | None], unreadable: Sequence[bool]
) -> metrics.Rate:
    """LLMBar's ``equal``: the same output in both orders, two unreadable outputs counting as the same.

    Only replies that could not be read count so (a ``parse_error`` judgment with neither order's
    verdict): a call that failed, or an instance not judged, is a miss. `metrics.consistency` is
    the strict version (an unreadable order is never consistent).
    """
    rows = list(zip(first, second, unreadable, strict=True))
    hits = sum(a == b and (a is not None or unread) for a, b, unread in rows)
    missing = sum(a is None or b is None for a, b, _ in rows)
    return metrics.Rate.from_counts(hits, len(rows), missing=missing)


def _agreed(consistent: Sequence[bool | None]) -> metrics.Rate:
    """The share of instances whose orders all agreed; an instance not judged is a miss."""
    hits = sum(value is True for value in consistent)
    return metrics.Rate.from_counts(hits, len(consistent), missing=sum(value is None for value in consistent))


def _by_category(
    categories: Sequence[str | None],
    verdicts: Sequence[int | None],
    labels: Sequence[int | None],
    ci: Callable[..., dict[str, Any]],
) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[int]] = defaultdict(list)
    for index, category in enumerate(categories):
        groups[category or "(none)"].append(index)
    return {
        name: ci(metrics.agreement, [verdicts[i] for i in members], [labels[i] for i in members])
        for name, members in sorted(groups.items())
    }


def _votes(labelled: Sequence[tuple[Instance, Judgment | None]]) -> dict[str, Any]:
    """The MT-Bench protocol: each human vote against the judge's verdict for its comparison."""
    judge: dict[Hashable, int | None] = {}
    votes: list[tuple[Hashable, int]] = []
    for instance, judgment in labelled:
        key = _vote_key(instance)
        flip = instance.metadata["model_a"] > instance.metadata["model_b"]
        judged = _flip(verdict(judgment), flip)
        if judgment is not None:
            judge.setdefault(key, judged)
        assert instance.label is not None
        label = _flip(instance.label, flip)
        assert label is not None
        votes.append((key, label))
    return {
        "with_ties": metrics.vote_agreement(judge, votes, ties=True).as_dict(),
        "without_ties": metrics.vote_agreement(judge, votes, ties=False).as_dict(),
    }


def _vote_key(instance: Instance) -> tuple[object, ...]:
    meta = instance.metadata
    return (meta["question_id"], *sorted((meta["model_a"], meta["model_b"])), meta["turn"])


def _flip(verdict: int | None, flip: bool) -> int | None:
    return {1: 2, 2: 1}.get(verdict, verdict) if flip and verdict is not None else verdict


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
            systems = [str(i.metadata.get(target.system_by)) for i, _, _ in rows]
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
    groups = [str(i.metadata.get(target.group_by)) for i, _, _ in rows] if target.group_by else None
    systems = [str(i.metadata.get(target.system_by)) for i, _, _ in rows] if target.system_by else None
    return correlation_levels(judge, human, groups, systems, settings)


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
    annotations = [i.metadata.get("annotators", {}).get(aspect) for i, _, _ in rows]
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
    totals: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
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
    for _, judgment in joined.pairs:
        if judgment is not None:
            total = total + judgment.usage
            made = _made(judgment, made, joined.facts.get(judgment.id))
    judged = sum(judgment is not None for _, judgment in joined.pairs) or 1
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


def _made(judgment: Judgment, so_far: Usage | None, facts: TraceFacts | None) -> Usage | None:
    """``so_far`` plus the calls ``judgment`` made (not answered from the cache); None if its trace
    does not account for its calls. A slim judgment's ``facts`` say it for its trace."""
    if facts is not None:
        return None if so_far is None or facts.made is None else so_far + facts.made
    own = [entry for entry in judgment.trace if not entry.reused]
    if so_far is None or len(own) != judgment.usage.calls:
        return None
    return so_far + usage_of(entry for entry in own if not entry.cached and not entry.planned)
