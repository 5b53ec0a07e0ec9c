"""What a judge run's report says of selective judging: the guarantee of ``--calibration`` or of a
cascade's judges, the abstentions, and the coverage-agreement curve each threshold was chosen on."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from faceteval.report._format import DASH, count, mapping, percent
from faceteval.report._model import Section, Table, numeric_columns
from faceteval.report._plots import Plot, encode_plot, new_figure, plot_label
from faceteval.results import JudgeResult
from faceteval.store import RunRecord

SECTION = "selective"
_COLOURS = ("#4C72B0", "#DD8452", "#55A868", "#8172B3", "#937860")


def selective_section(record: RunRecord | None, result: JudgeResult) -> Section | None:
    """The guarantee and the abstentions of a run with ``--calibration`` or ``--cascade``; None for
    another run (and one without abstentions)."""
    options = {} if record is None else record.options
    calibration, cascade = mapping(options.get("calibration")), mapping(options.get("cascade"))
    abstained = result.statuses.get("abstained", 0)
    if not calibration and not cascade and not abstained:
        return None
    notes = [
        f"{count(abstained)} of {count(result.judgments)} verdicts are abstained: the judge's confidence was "
        "below its calibrated threshold, so no verdict is given and none is counted in a win rate."
    ]
    tables = (_stages(cascade),) if cascade else ()
    return Section(SECTION, "Selective judging", (*guarantee_notes(options), *notes), tables)


def guarantee_notes(options: Mapping[str, Any]) -> list[str]:
    """What a run's options (``calibration``, ``cascade``) guarantee of its kept verdicts, in sentences."""
    calibration, cascade = mapping(options.get("calibration")), mapping(options.get("cascade"))
    notes = [_cascade_guarantee(cascade)] if cascade else []
    return notes + ([_guarantee(calibration)] if calibration else [])


def selective_plot(record: RunRecord | None) -> Plot | None:
    """Coverage against agreement on the calibration data of the run's threshold (of each cascade
    judge's), with the target and the coverage each threshold chose."""
    options = {} if record is None else record.options
    calibration, cascade = mapping(options.get("calibration")), mapping(options.get("cascade"))
    curves = [("calibration", calibration)] if calibration else []
    curves += [(str(stage.get("judge")), stage) for stage in map(mapping, cascade.get("stages") or ())]
    drawn = [(name, _points(entry), entry) for name, entry in curves]
    drawn = [(name, points, entry) for name, points, entry in drawn if points]
    if not drawn:
        return None
    figure = new_figure(6.0, 3.2)
    axes = figure.subplots()
    for (name, points, entry), colour in zip(drawn, _COLOURS, strict=False):
        axes.plot([100 * c for c, _ in points], [100 * a for _, a in points], marker=".", color=colour,
                  label=plot_label(name))  # fmt: skip
        kept, n = entry.get("calibration_kept"), entry.get("calibration_n") or entry.get("calibration_judged")
        if isinstance(kept, int) and isinstance(n, int) and n and kept:
            axes.axvline(100 * kept / n, color=colour, linestyle=":", linewidth=1)
    target = (calibration or cascade).get("target_agreement")
    if isinstance(target, int | float):
        axes.axhline(100 * target, color="#C44E52", linestyle="--", linewidth=1, label=f"target {target:.0%}")
    axes.set_xlim(0, 100)
    axes.set_xlabel("Coverage: share of calibration verdicts kept (%); dotted: the threshold's")
    axes.set_ylabel("Agreement on kept (%)")
    axes.legend(loc="lower left", fontsize="small")
    return encode_plot(SECTION, figure, "Agreement with humans on the verdicts kept, at each coverage")


def _points(entry: Mapping[str, Any]) -> list[tuple[float, float]]:
    curve = [mapping(point) for point in entry.get("curve") or ()]
    return [
        (float(p["coverage"]), float(p["agreement"])) for p in curve if _numbers(p, "coverage", "agreement")
    ]


def _guarantee(calibration: Mapping[str, Any]) -> str:
    threshold, target, delta = (calibration.get(k) for k in ("threshold", "target_agreement", "delta"))
    source = calibration.get("file") or DASH
    n = calibration.get("calibration_n")
    if threshold is None:
        return (
            f"Calibration {source}: no threshold reached the target on its {count(n)} labelled verdicts, so "
            "every verdict is abstained."
        )
    return (
        f"Calibration {source}: verdicts with {calibration.get('estimator')} confidence at least "
        f"{_number(threshold)} agree with humans at least {percent(target, 0)} of the time, with "
        f"probability at least {percent(1 - delta if isinstance(delta, int | float) else None, 0)} "
        f"(calibrated on {count(n)} labelled verdicts by fixed-sequence testing)."
    )


def _cascade_guarantee(cascade: Mapping[str, Any]) -> str:
    target, delta = cascade.get("target_agreement"), cascade.get("delta")
    judges = ", ".join(str(judge) for judge in cascade.get("judges") or ())
    confidence = percent(1 - delta if isinstance(delta, int | float) else None, 0)
    return (
        f"A cascade of {judges}: each judge keeps the verdicts at or above its threshold, calibrated on the "
        f"labelled instances no earlier judge decided, so that they agree with humans at least "
        f"{percent(target, 0)} of the time with probability at least {confidence}; the rest go to the next."
    )


def _stages(cascade: Mapping[str, Any]) -> Table:
    rows = []
    for stage in (mapping(s) for s in cascade.get("stages") or ()):
        cost = stage.get("cost_usd")
        rows.append(
            (
                str(stage.get("judge", DASH)),
                _number(stage.get("threshold")),
                f"{count(stage.get('calibration_kept'))} of {count(stage.get('calibration_judged'))}",
                count(stage.get("judged")),
                count(stage.get("decided")),
                count(stage.get("abstained")),
                count(stage.get("calls")),
                f"${cost:.4f}" if isinstance(cost, int | float) else DASH,
            )
        )
    columns = ("Judge", "Threshold", "Calibration kept", "Judged", "Decided", "Passed on", "Calls", "Cost")
    return Table(columns, tuple(rows), numeric=numeric_columns(1, 7), note="Passed on: abstained or failed.")


def _number(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, int | float) else "none"


def _numbers(point: Mapping[str, Any], *keys: str) -> bool:
    return all(isinstance(point.get(key), int | float) for key in keys)
