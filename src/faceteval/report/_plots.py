"""The report's plots: matplotlib figures rendered to PNG ``data:`` URIs, one section each.

matplotlib is imported on first use, and figures are built with ``matplotlib.figure.Figure``
directly: no pyplot, no global figure registry, nothing that outlives a call.
"""

from __future__ import annotations

import base64
import io
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from faceteval._util.numbers import number
from faceteval.methods.internal import sweep_of
from faceteval.report._confusion import Confusion, read_confusion
from faceteval.report._evidence import Paired, aspect_scores, preferred_scores, verdict_counts
from faceteval.report._format import interval, is_fraction, metric_name, truncate, value_of
from faceteval.report._sections import ALL, is_rate_key, mapping, top_facets, value_of_mean

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

DPI = 100
MAX_FACETS = 12
MAX_ASPECTS = 6
_LABEL_CHARS = 28
_HUMAN, _JUDGE = "#4C72B0", "#DD8452"


@dataclass(frozen=True, slots=True)
class Plot:
    """One embedded image and the section it belongs to."""

    section: str
    uri: str
    """``data:image/png;base64,...``"""
    alt: str


def render_plots(summary: Mapping[str, Any], paired: Paired, kind: str | None, *, top: int) -> list[Plot]:
    """Every plot the inputs have data for."""
    plots = (
        _confusion_plot(read_confusion(summary.get("confusion"))),
        _category_plot(summary),
        _facet_plot(summary, top),
        _pointwise_plot(paired) if kind == "pointwise" else _pairwise_plot(paired),
        _reliability_plot(summary),
        _sweep_plot(summary),
    )
    return [plot for plot in plots if plot is not None]


def new_figure(width: float, height: float) -> Figure:
    """An empty matplotlib figure of ``width`` x ``height`` inches, laid out to fit its labels."""
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=DPI, layout="constrained")


def encode_plot(section: str, figure: Figure, alt: str) -> Plot:
    """``figure`` as a PNG ``data:`` URI for ``section``, with ``alt`` as its text; the figure is cleared."""
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing", category=UserWarning)
        figure.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    figure.clear()
    return Plot(section, "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii"), alt)


def plot_label(label: str) -> str:
    """A label as matplotlib draws it literally: short, and with ``$`` not starting math."""
    return truncate(label, _LABEL_CHARS).replace("$", r"\$")


def _confusion_plot(matrix: Confusion | None) -> Plot | None:
    if matrix is None or not matrix.total:
        return None
    figure = new_figure(1.6 + 0.9 * len(matrix.columns), 1.2 + 0.7 * len(matrix.rows))
    axes = figure.subplots()
    image = axes.imshow(matrix.counts, cmap="Blues", aspect="auto")
    peak = max(max(row) for row in matrix.counts) or 1
    for i, row in enumerate(matrix.counts):
        for j, cell in enumerate(row):
            colour = "white" if cell > peak / 2 else "black"
            axes.text(j, i, str(cell), ha="center", va="center", color=colour, fontsize=10)
    axes.set_xticks(range(len(matrix.columns)), labels=[plot_label(c) for c in matrix.columns])
    axes.set_yticks(range(len(matrix.rows)), labels=[plot_label(r) for r in matrix.rows])
    axes.set_xlabel("Judge verdict")
    axes.set_ylabel("Human label")
    figure.colorbar(image, ax=axes, shrink=0.8)
    return encode_plot(
        "confusion", figure, "Confusion matrix: human labels against judge verdicts, with counts"
    )


def _category_plot(summary: Mapping[str, Any]) -> Plot | None:
    groups = {str(name): mapping(entry) for name, entry in mapping(summary.get("by_category")).items()}
    metric = (
        "agreement"
        if any("agreement" in e for e in groups.values())
        else next((key for entry in groups.values() for key in entry), None)
    )
    rows = [(name, entry.get(metric)) for name, entry in groups.items()] if metric else []
    rows = [(name, entry) for name, entry in rows if value_of(entry) is not None]
    if not metric or not rows:
        return None
    scale = 100.0 if is_fraction(metric) else 1.0
    values = [scale * (value_of(entry) or 0.0) for _, entry in rows]
    errors = _error_bars(values, [interval(entry) for _, entry in rows], scale)
    figure = new_figure(6.5, 1.0 + 0.35 * len(rows))
    axes = figure.subplots()
    positions = range(len(rows))
    axes.barh(positions, values, xerr=errors, color=_HUMAN, capsize=3, error_kw={"elinewidth": 1})
    axes.set_yticks(positions, labels=[plot_label(name) for name, _ in rows])
    axes.set_ylim(len(rows) - 0.5, -0.5)  # first category on top, no empty band
    if (overall := value_of(summary.get(metric))) is not None:
        axes.axvline(scale * overall, color=_JUDGE, linestyle="--", linewidth=1.2, label="All instances")
        axes.legend(fontsize=8, loc="lower right")
    unit = " (%)" if scale == 100.0 else ""
    axes.set_xlabel(f"{metric_name(metric)}{unit}, with 95% CI")
    if scale == 100.0:
        axes.set_xlim(0, 100)
    axes.grid(axis="x", alpha=0.3)
    return encode_plot(
        "categories", figure, f"{metric_name(metric)} per category with 95% confidence intervals"
    )


def _error_bars(
    values: Sequence[float], cis: Sequence[tuple[float, float] | None], scale: float
) -> list[list[float]] | None:
    if not any(cis):
        return None
    below = [max(v - scale * ci[0], 0.0) if ci else 0.0 for v, ci in zip(values, cis, strict=True)]
    above = [max(scale * ci[1] - v, 0.0) if ci else 0.0 for v, ci in zip(values, cis, strict=True)]
    return [below, above]


def _facet_plot(summary: Mapping[str, Any], top: int) -> Plot | None:
    weights = {str(name): mapping(entry) for name, entry in mapping(summary.get("facet_weights")).items()}
    categories = sorted(weights, key=lambda name: (name != ALL, name))
    facets = list(dict.fromkeys(f for c in categories for f, _ in top_facets(weights[c], top)))[:MAX_FACETS]
    if not facets:
        return None
    grid = [[_mean(weights[c].get(f)) for c in categories] for f in facets]
    figure = new_figure(2.5 + 0.8 * len(categories), 1.2 + 0.35 * len(facets))
    axes = figure.subplots()
    axes.set_facecolor("#eeeeee")
    percents = [[math.nan if x is None else 100 * x for x in row] for row in grid]
    image = axes.imshow(percents, cmap="YlGnBu", aspect="auto")
    peak = max((x for row in grid for x in row if x is not None), default=0.0)
    for i, row in enumerate(grid):
        for j, cell in enumerate(row):
            if cell is not None:
                colour = "white" if cell > peak * 0.6 else "black"
                axes.text(j, i, f"{100 * cell:.0f}", ha="center", va="center", fontsize=8, color=colour)
    axes.set_xticks(
        range(len(categories)), labels=[plot_label(c) for c in categories], rotation=30, ha="right"
    )
    axes.set_yticks(range(len(facets)), labels=[plot_label(f) for f in facets])
    figure.colorbar(image, ax=axes, shrink=0.8, label="Mean weight (%)")
    return encode_plot("facets", figure, "Mean facet weight (%) per category for the most used facets")


def _mean(entry: Any) -> float | None:
    return None if entry is None else value_of_mean(entry)


def _pairwise_plot(paired: Paired) -> Plot | None:
    counts = verdict_counts(paired)
    preferred, others = preferred_scores(paired)
    if counts is None and not preferred and not others:
        return None
    panels = (counts is not None) + bool(preferred or others)
    figure = new_figure(4.0 * panels, 3.2)
    axes = figure.subplots(1, panels, squeeze=False)[0]
    if counts is not None:
        _grouped_bars(axes[0], counts.names, counts.human, counts.judge)
    if preferred or others:
        panel = axes[-1]
        bins = _bins([*preferred, *others])
        panel.hist(preferred, bins=bins, alpha=0.6, color=_HUMAN, label="Human-preferred")
        panel.hist(others, bins=bins, alpha=0.6, color=_JUDGE, label="Other")
        panel.set_xlabel("Judge's overall score")
        panel.set_ylabel("Candidates")
        panel.yaxis.set_major_locator(_integer_ticks())
        panel.legend(fontsize=8)
    return encode_plot("distributions", figure, "Human labels against judge verdicts, and the judge's scores")


def _integer_ticks() -> MaxNLocator:
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator(integer=True)


def _grouped_bars(axes: Axes, names: Sequence[str], human: Sequence[int], judge: Sequence[int]) -> None:
    positions = list(range(len(names)))
    axes.bar([p - 0.2 for p in positions], human, width=0.4, color=_HUMAN, label="Human labels")
    axes.bar([p + 0.2 for p in positions], judge, width=0.4, color=_JUDGE, label="Judge verdicts")
    axes.set_xticks(positions, labels=[plot_label(name) for name in names])
    axes.set_ylabel("Instances")
    axes.yaxis.set_major_locator(_integer_ticks())
    axes.legend(fontsize=8)


def _bins(values: Sequence[float]) -> list[float]:
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    if high - low < 1e-9:
        low, high = low - 0.5, high + 0.5
    steps = min(20, max(5, len(set(values))))
    return [low + (high - low) * k / steps for k in range(steps + 1)]


def _pointwise_plot(paired: Paired) -> Plot | None:
    scored = [(aspect, aspect_scores(paired, aspect)) for aspect in paired.aspects()]
    scored = [(aspect, rows) for aspect, rows in scored if rows][:MAX_ASPECTS]
    if not scored:
        return None
    columns = min(3, len(scored))
    lines = math.ceil(len(scored) / columns)
    figure = new_figure(3.3 * columns, 2.6 * lines)
    grid = figure.subplots(lines, columns, squeeze=False)
    for index, (aspect, rows) in enumerate(scored):
        axes = grid[index // columns][index % columns]
        human, judge = [h for _, h, _ in rows], [j for _, _, j in rows]
        bins = _bins([*human, *judge])
        axes.hist(human, bins=bins, alpha=0.6, color=_HUMAN, label="Human")
        axes.hist(judge, bins=bins, alpha=0.6, color=_JUDGE, label="Judge")
        axes.set_title(plot_label(aspect), fontsize=10)
        axes.yaxis.set_major_locator(_integer_ticks())
        axes.legend(fontsize=7)
    for index in range(len(scored), lines * columns):
        grid[index // columns][index % columns].set_visible(False)
    return encode_plot("distributions", figure, "Distribution of human and judge scores per aspect")


def _sweep_plot(summary: Mapping[str, Any]) -> Plot | None:
    runs = [run for run in summary.get("sweep") or () if isinstance(run, Mapping)]
    points = sorted(
        ((x, run) for run in runs if (x := number(run.get("aspects"))) is not None), key=lambda item: item[0]
    )
    keys = dict.fromkeys(key for _, run in points for key in run if key != "aspects")
    metrics = [key for key in keys if any(_plottable(key, run.get(key)) for _, run in points)]
    if not points or not metrics:
        return None
    figure = new_figure(6.0, 3.4)
    axes = figure.subplots()
    for metric in metrics:
        series = [(x, run[metric]) for x, run in points if value_of(run.get(metric)) is not None]
        scale = 100.0 if is_fraction(metric) else 1.0
        values = [scale * (value_of(entry) or 0.0) for _, entry in series]
        errors = _error_bars(values, [interval(entry) for _, entry in series], scale)
        axes.errorbar(
            [x for x, _ in series], values, yerr=errors, marker="o", capsize=3, label=metric_name(metric)
        )
    axes.set_xticks(sorted({x for x, _ in points}))
    what = sweep_of(_method_name(summary)).axis
    axes.set_xlabel(f"Number of {what}")
    axes.set_ylabel("Value (%)" if all(is_fraction(m) for m in metrics) else "Value")
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8)
    return encode_plot("sweep", figure, f"Metrics against the number of {what}")


def _reliability_plot(summary: Mapping[str, Any]) -> Plot | None:
    """Agreement with humans in each bin of confidence, against the diagonal of perfect calibration."""
    bins = mapping(summary.get("calibration")).get("bins")
    shown = [found for entry in bins if (found := _bin(entry))] if isinstance(bins, list) else []
    if not shown:
        return None
    lows, highs, means, rates, counts = (list(column) for column in zip(*shown, strict=True))
    figure = new_figure(5.0, 4.0)
    axes = figure.subplots()
    widths = [high - low for low, high in zip(lows, highs, strict=True)]
    axes.bar(lows, rates, width=widths, align="edge", color=_HUMAN, edgecolor="white", label="Agreement")
    axes.plot(means, rates, "o", color=_JUDGE, label="At the bin's mean confidence")
    for low, high, rate, n in zip(lows, highs, rates, counts, strict=True):
        axes.text((low + high) / 2, min(rate, 0.92) + 0.02, f"{n:,}", ha="center", fontsize=7)
    axes.plot([0, 1], [0, 1], linestyle="--", color="#888888", linewidth=1, label="Perfect calibration")
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1.05)
    axes.set_xlabel("Confidence (bins; the count of verdicts above each)")
    axes.set_ylabel("Agreement with humans")
    axes.legend(fontsize=8, loc="upper left")
    axes.grid(alpha=0.3)
    return encode_plot("calibration", figure, "Reliability of confidence: agreement with humans per bin")


def _bin(entry: Any) -> tuple[float, float, float, float, int] | None:
    """A reliability bin's low and high edges, mean confidence, agreement and count; None when empty."""
    if not isinstance(entry, Mapping):
        return None
    values = [number(entry.get(key)) for key in ("low", "high", "mean_confidence", "agreement", "n")]
    low, high, mean, rate, n = values
    if low is None or high is None or mean is None or rate is None or not n:
        return None
    return low, high, mean, rate, int(n)


def _method_name(summary: Mapping[str, Any]) -> str | None:
    method = summary.get("method")
    return str(method.get("name")) if isinstance(method, Mapping) else None


def _plottable(key: str, value: Any) -> bool:
    """A rate entry, or a bare number under a rate's name (not counts, costs or paths)."""
    if isinstance(value, Mapping):
        return value_of(value) is not None
    return is_rate_key(key) and number(value) is not None
