"""Two runs on the same instances: is the difference real? (paired tests, bootstrap CIs)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from faceteval import metrics
from faceteval._util.text import plural
from faceteval.core import Instance, Judgment
from faceteval.errors import FacetevalError
from faceteval.metaeval._pairwise import verdict
from faceteval.metaeval._store import read_run
from faceteval.metaeval._summary import METHODS, judge_score
from faceteval.store import MetaEvalSummary

STARS = ((0.01, "***"), (0.05, "**"), (0.1, "*"))


def significance(p_value: float | None) -> str:
    """DnA-Eval's Table 11 marks: *** p < 0.01, ** p < 0.05, * p < 0.1, else ``n.s.``."""
    if p_value is None:
        return ""
    return next((mark for bound, mark in STARS if p_value < bound), "n.s.")


def compare_runs(
    a_dir: str | Path, b_dir: str | Path, *, resamples: int = 2000, seed: int = 0
) -> dict[str, Any]:
    """The paired difference B - A on the instances both runs measured.

    ``instances`` counts the instances of each run and those they share (the ones compared); when
    the runs measured different instances (a --limit sample against the whole benchmark), ``note``
    says so.

    Repeated runs (``--seeds``) are paired run by run, and their items pooled: each instance of each
    seed is one pair (DnA-Eval Appendix G). ``unjudged`` counts, per run, the shared instances it has
    no usable judgment of (missing, ``parse_error`` or ``error``): they count as wrong in agreement,
    and are left out of correlations.

    Raises:
        FacetevalError: The runs measured different benchmarks or numbers of runs, share no instance,
            or are pointwise with ``resamples`` 0 (their test needs resamples).
    """
    a_dir, b_dir = Path(a_dir), Path(b_dir)
    a_summary, a_runs = _runs(a_dir)
    b_summary, b_runs = _runs(b_dir)
    if a_summary.kind != b_summary.kind or a_summary.benchmark != b_summary.benchmark:
        raise FacetevalError(
            f"{a_dir} measured {a_summary.benchmark} ({a_summary.kind}) but {b_dir} measured "
            f"{b_summary.benchmark} ({b_summary.kind}): compare runs of the same benchmark"
        )
    if len(a_runs) != len(b_runs):
        raise FacetevalError(
            f"{a_dir} has {plural(len(a_runs), 'run')} and {b_dir} {len(b_runs):,}: they cannot be paired"
        )
    result: dict[str, Any] = {
        "a": {"dir": str(a_dir), "judge": a_summary.judge},
        "b": {"dir": str(b_dir), "judge": b_summary.judge},
        "benchmark": a_summary.benchmark,
        "runs_paired": len(a_runs),
    }
    pairs = [_paired(a, b) for a, b in zip(a_runs, b_runs, strict=True)]
    measured = {
        "a": sum(len(instances) for instances, _ in a_runs),
        "b": sum(len(instances) for instances, _ in b_runs),
        "shared": sum(len(p) for p in pairs),
    }
    result["instances"] = measured
    if measured["shared"] < max(measured["a"], measured["b"]):
        result["note"] = (
            f"compared on the {plural(measured['shared'], 'instance')} both runs measured "
            f"(A has {measured['a']:,}, B has {measured['b']:,})"
        )
    result["unjudged"] = {
        "a": sum(unjudged(a) for run in pairs for _, a, _ in run),
        "b": sum(unjudged(b) for run in pairs for _, _, b in run),
    }
    if a_summary.kind != "pairwise" and not resamples:
        raise FacetevalError("comparing correlations takes a permutation test: give --resamples above 0")
    if a_summary.kind == "pairwise":
        result["metrics"] = {"agreement": _agreement(pairs, resamples, seed)}
    else:
        result["metrics"] = _correlations(pairs, resamples, seed)
    result["n"] = sum(len(p) for p in pairs)
    return result


Pair = tuple[Instance, Judgment | None, Judgment | None]


def _runs(run_dir: Path) -> tuple[MetaEvalSummary, list[tuple[list[Instance], list[Judgment]]]]:
    record, instances, judgments = read_run(run_dir)
    summary = record.summary
    subdirs = [str(row["dir"]) for row in summary.runs or () if row.get("dir")]
    if not subdirs:
        return summary, [(instances, judgments)]
    runs = []
    for name in subdirs:
        _, sub_instances, sub_judgments = read_run(run_dir / name)
        runs.append((sub_instances, sub_judgments))
    return summary, runs


def unjudged(judgment: Judgment | None) -> bool:
    """Whether a run has no usable judgment of an instance."""
    return judgment is None or judgment.status != "ok"


def _paired(a: tuple[list[Instance], list[Judgment]], b: tuple[list[Instance], list[Judgment]]) -> list[Pair]:
    a_judged = {j.id: j for j in a[1]}
    b_judged = {j.id: j for j in b[1]}
    b_ids = {i.id for i in b[0]}
    common = [i for i in a[0] if i.id in b_ids]
    if not common:
        raise FacetevalError("the two runs share no instance ids")
    return [(i, a_judged.get(i.id), b_judged.get(i.id)) for i in common]


def _agreement(pairs: list[list[Pair]], resamples: int, seed: int) -> dict[str, Any]:
    items = [p for run in pairs for p in run if p[0].label is not None]
    labels = [i.label for i, _, _ in items]
    a_right = [verdict(a) == label for (_, a, _), label in zip(items, labels, strict=True)]
    b_right = [verdict(b) == label for (_, _, b), label in zip(items, labels, strict=True)]
    test = metrics.mcnemar_exact(a_right, b_right)
    difference = _mean(b_right) - _mean(a_right)
    ci = (
        metrics.bootstrap_ci(_mean_difference, a_right, b_right, n_resamples=resamples, seed=seed)
        if resamples
        else None
    )
    return {
        "a": _mean(a_right),
        "b": _mean(b_right),
        "difference": difference,
        "ci": list(ci) if ci else None,
        "p_value": test.p_value,
        "significance": significance(test.p_value),
        "method": "exact McNemar test; paired bootstrap 95% CI of the difference",
        "n": len(items),
        "only_a_right": test.as_dict().get("b10", None),
        "only_b_right": test.as_dict().get("b01", None),
    }


def _mean(values: Sequence[bool]) -> float:
    return sum(values) / len(values) if values else 0.0


def _mean_difference(a: Sequence[float], b: Sequence[float]) -> float:
    return float(sum(b) - sum(a)) / len(a)


def _correlations(pairs: list[list[Pair]], resamples: int, seed: int) -> dict[str, Any]:
    items = [p for run in pairs for p in run]
    aspects: dict[str, None] = {}
    for instance, _, _ in items:
        aspects.update(dict.fromkeys(instance.scores or {}))
    out: dict[str, Any] = {}
    for aspect in aspects:
        rows = [
            (sa, sb, instance.scores[aspect])
            for instance, a, b in items
            if instance.scores and aspect in instance.scores
            if (sa := judge_score(a, aspect)) is not None and (sb := judge_score(b, aspect)) is not None
        ]
        if len(rows) < 4:
            continue
        a_scores, b_scores, human = (list(column) for column in zip(*rows, strict=True))
        for method in METHODS:
            test = metrics.paired_correlation_test(
                a_scores, b_scores, human, method=method, n_resamples=resamples, seed=seed
            )
            out[f"{aspect}.{method}"] = test.as_dict() | {
                "a": metrics.correlation(a_scores, human, method).value,
                "b": metrics.correlation(b_scores, human, method).value,
                "significance": significance(test.p_value),
            }
    return out
