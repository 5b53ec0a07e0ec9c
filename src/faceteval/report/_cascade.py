"""The cascade section of a meta-evaluation report (``summary.cascade``, ``meta-eval --cascade``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from faceteval.report._format import DASH, count, decimal, percent
from faceteval.report._model import Section, Table, numeric_columns

_COSTS = {
    "cost_usd": "the recorded cost in USD",
    "tokens": "the recorded input and output tokens",
    "calls": "the recorded calls",
    "judgments": "one unit per judge asked (no usage is recorded)",
    "given": "the costs given with --judge-costs",
}


def cascade(summary: Mapping[str, Any]) -> Section | None:
    """Each judge's threshold and share, and what the cascade kept, over its calibration/test splits."""
    block = summary.get("cascade")
    if not isinstance(block, Mapping) or not block.get("judges"):
        return None
    judges = [judge for judge in block["judges"] if isinstance(judge, Mapping)]
    rows = tuple(
        (
            str(judge.get("judge")),
            "none" if judge.get("threshold") is None else decimal(judge.get("threshold")),
            count(judge.get("no_threshold")),
            percent(judge.get("share_decided")),
            percent(judge.get("coverage")),
        )
        for judge in judges
    )
    columns = (
        "Judge (asked in this order)",
        "Median threshold",
        "Splits without one",
        "Share of kept",
        "Of all",
    )
    totals = (
        ("Coverage (mean over splits)", percent(block.get("coverage"))),
        ("Agreement on the kept verdicts (mean over splits)", percent(block.get("agreement"))),
        ("Agreement on the kept verdicts (pooled)", percent(block.get("agreement_pooled"))),
        ("Violation rate (test agreement below the target)", percent(block.get("violation_rate"))),
        ("Splits keeping nothing", count(block.get("empty_splits"))),
        ("Cost relative to the last judge alone", decimal(block.get("relative_cost"), 2)),
    )
    return Section(
        "cascade",
        "Cascade",
        _notes(block),
        (
            Table(columns, rows, numeric=numeric_columns(1, 4)),
            Table(("Measure", "Value"), totals, numeric=numeric_columns(1, 1)),
        ),
    )


def _notes(block: Mapping[str, Any]) -> tuple[str, ...]:
    delta = block.get("delta")
    guarantee = (
        f"Each judge's verdict is trusted when its confidence ({block.get('confidence')}) reaches its "
        f"threshold, else the instance goes to the next judge; the last one abstains. Thresholds are "
        f"chosen by fixed-sequence testing so that agreement with humans on the kept verdicts is at least "
        f"{percent(block.get('target_agreement'))} with probability at least "
        f"{DASH if delta is None else percent(1 - float(delta))}; each judge is calibrated on the "
        "calibration instances no earlier judge decided."
    )
    measured = (
        f"Measured over {count(block.get('splits'))} seeded splits (seed {block.get('seed')}) of the "
        f"labelled instances into {count(block.get('calibration_size'))} to calibrate and "
        f"{count(block.get('test_size'))} to test. A split violates the target when test agreement on the "
        f"kept verdicts is below it; the guarantee allows a violation rate of {percent(delta)}. The "
        "threshold shown is the lower median over the splits (a split without one counts as above every "
        "confidence); share of kept: the share of the kept test verdicts that judge gave."
    )
    basis = str(block.get("cost_basis"))
    cost = (
        f"Cost: {_COSTS.get(basis, basis)}, summed over the judges asked for each test instance, over "
        "what the last judge alone would cost."
    )
    return guarantee, measured, cost
