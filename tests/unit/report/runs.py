"""Hand-built summaries, instances and judgments of meta-evaluation runs, shared by the report tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from faceteval.core import FacetScore, Instance, Judgment, OrderResult, TraceEntry, Usage

HOSTILE = "<script>alert(1)</script> | a\nb"


def rate(
    value: float, hits: int, n: int, ci: tuple[float, float] | None = None, missing: int = 0
) -> dict[str, Any]:
    """A summary rate entry."""
    entry: dict[str, Any] = {"value": value, "hits": hits, "n": n, "missing": missing}
    if ci is not None:
        entry["ci"] = list(ci)
    return entry


def pairwise_summary() -> dict[str, Any]:
    """A pairwise summary: both orders, categories, facet weights, reported numbers, a sweep, repeats."""
    return {
        "schema_version": 1,
        "benchmark": "llmbar-natural",
        "kind": "pairwise",
        "judge": "recorded:gpt-4",
        "n": 100,
        "status": {"ok": 96, "parse_error": 3, "error": 1, "missing": 0},
        "unmatched_judgments": 2,
        "unmatched_examples": ["x|1", "<b>y</b>"],
        "judgments_outside_sample": 90,
        "labelled": 100,
        "agreement": rate(0.725, 58, 80, (0.6251, 0.8125), missing=4),
        "agreement_without_ties": rate(0.8, 56, 70, (0.7, 0.9)),
        "cohen_kappa": {"value": 0.4512},
        "agreement_order1": rate(0.74, 74, 100),
        "agreement_order2": rate(0.70, 70, 100),
        "accuracy_order_avg": rate(0.72, 144, 200),
        "consistency": rate(0.88, 88, 100, (0.81, 0.94)),
        "agreement_consistent": rate(0.65, 65, 100),
        "confusion": {"labels": [1, 2, 0], "matrix": [[30, 5, 2], [6, 28, 1], [3, 4, 5]]},
        "by_category": {
            "Natural": {"agreement": rate(0.8, 40, 50, (0.68, 0.9))},
            "Adver|sarial": {"agreement": rate(0.6, 18, 30, (0.43, 0.77))},
        },
        "facet_weights": {
            "(all)": {
                "accuracy": {"mean": 0.42, "n": 90},
                "helpfulness": {"mean": 0.31, "n": 80},
                "harmlessness": {"mean": 0.05, "n": 10},
            },
            "Natural": {"accuracy": {"mean": 0.5, "n": 50}, "clarity": {"mean": 0.2, "n": 20}},
        },
        "usage": {
            "calls": 300,
            "cached_calls": 12,
            "input_tokens": 123456,
            "output_tokens": 7890,
            "cost_usd": 1.2345,
            "per_instance": {
                "calls": 3.0,
                "input_tokens": 1234.56,
                "output_tokens": 78.9,
                "cost_usd": 0.012345,
            },
        },
        "reported": {"agreement": 0.725, "consistency": 0.9},
        "sweep": [
            {"aspects": 3, "dir": "runs/k3", "agreement": rate(0.70, 70, 100, (0.6, 0.8))},
            {"aspects": 5, "dir": "runs/k5", "agreement": rate(0.74, 74, 100, (0.65, 0.83))},
        ],
        "repeats": {
            "seeds": [0, 1, 2],
            "agreement": {"mean": 0.7233, "sd": 0.0125, "values": [0.71, 0.725, 0.735]},
        },
    }


def pointwise_summary() -> dict[str, Any]:
    """A pointwise summary with correlations at three levels and Krippendorff's alpha."""

    def corr(
        value: float, n: int, p: float | None = None, ci: tuple[float, float] | None = None
    ) -> dict[str, Any]:
        entry: dict[str, Any] = {"value": value, "n": n}
        if p is not None:
            entry["p_value"] = p
        if ci is not None:
            entry["ci"] = list(ci)
        return entry

    return {
        "schema_version": 1,
        "benchmark": "summeval",
        "kind": "pointwise",
        "judge": "dna:openai:gpt-4o",
        "n": 40,
        "status": {"ok": 40, "parse_error": 0, "error": 0, "missing": 0},
        "correlations": {
            "coherence": {
                "sample": {
                    "pearson": corr(0.512, 40, 0.0007, (0.401, 0.61)),
                    "spearman": corr(0.4876, 40, 0.001),
                    "kendall": corr(0.3912, 40, 0.2),
                },
                "summary": {"pearson": corr(0.45, 10), "spearman": corr(0.44, 10), "kendall": corr(0.33, 10)},
                "system": {"pearson": corr(0.9, 4), "spearman": corr(0.8, 4), "kendall": corr(0.667, 4)},
            },
        },
        "alpha": {
            "coherence": {
                "interval": {"annotators": 0.61, "annotators_and_judge": 0.55},
                "ordinal": {"annotators": 0.6, "annotators_and_judge": 0.5},
                "average_pairwise_pearson_annotators": 0.7,
            }
        },
        "facet_weights": {},
        "usage": {
            "calls": 40,
            "cached_calls": 0,
            "input_tokens": 4000,
            "output_tokens": 400,
            "cost_usd": None,
        },
    }


def pairwise_records() -> tuple[list[Instance], list[Judgment]]:
    """Four labelled pairs: two agreements, one hostile disagreement, one failed judgment."""
    instances = [
        Instance(id="p1", query="Q1", candidates=("a", "b"), label=1, category="Natural"),
        Instance(
            id="p2", query=f"What? {HOSTILE}", candidates=("x|y", "z"), label=2, category="Adver|sarial"
        ),
        Instance(id="p3", query="Q3", candidates=("c", "d"), label=2, category="Natural"),
        Instance(id="p4", query="Q4", candidates=("e", "f"), label=0, category="Natural"),
    ]
    facets = [
        FacetScore(name="accuracy", weight=0.6, scores=[8.0, 3.0], explanation=f"Because {HOSTILE}"),
        FacetScore(name="clarity", weight=0.4, scores=[6.0, 7.0], explanation=None),
    ]
    judgments = [
        Judgment(id="p1", method="dna", status="ok", verdict=1, scores=[7.0, 5.0], facets=facets),
        Judgment(
            id="p2",
            method="dna",
            status="ok",
            verdict=1,
            scores=[6.0, 4.2],
            facets=facets,
            consistent=False,
            orders=[OrderResult(order=[1, 2], verdict=1), OrderResult(order=[2, 1], verdict=2)],
            usage=Usage(calls=3, input_tokens=100, output_tokens=10, cost_usd=0.001),
        ),
        Judgment(id="p3", method="dna", status="ok", verdict=2, scores=[3.0, 9.0]),
        Judgment(id="p4", method="dna", status="parse_error", error="no verdict found"),
    ]
    return instances, judgments


def pointwise_records() -> tuple[list[Instance], list[Judgment]]:
    """Five scored summaries; the last one is rated high by the judge and low by humans."""
    instances = [
        Instance(id=f"s{k}", query=f"Doc {k}", candidates=(f"Summary {k}",), scores={"coherence": float(k)})
        for k in range(1, 5)
    ]
    instances.append(Instance(id="s5", query="Doc 5", candidates=("Summary 5",), scores={"coherence": 1.0}))
    judgments = [Judgment(id=f"s{k}", method="direct", status="ok", scores=[2.0 * k]) for k in range(1, 5)]
    judgments.append(
        Judgment(
            id="s5",
            method="direct",
            status="ok",
            scores=[9.0],
            trace=[TraceEntry(stage="direct", messages=[], raw="Great summary. <script>x</script> Score: 9")],
        )
    )
    return instances, judgments


def write_run(
    run_dir: Path, summary: dict[str, Any], instances: list[Instance], judgments: list[Judgment]
) -> Path:
    """A run directory as `faceteval meta-eval` writes it."""
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    (run_dir / "instances.jsonl").write_text(
        "".join(i.model_dump_json(exclude_none=True) + "\n" for i in instances), encoding="utf-8"
    )
    (run_dir / "judgments.jsonl").write_text(
        "".join(j.model_dump_json() + "\n" for j in judgments), encoding="utf-8"
    )
    return run_dir
