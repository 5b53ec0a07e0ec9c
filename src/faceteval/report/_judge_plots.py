"""The plots of a judge run's report: win rates (or mean scores) with their intervals per system, each
facet's score distribution per system, and the facets' mean weights."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from faceteval.report._plots import MAX_FACETS, Plot, encode_plot, new_figure, plot_label
from faceteval.results import FacetSummary, JudgeResult, PairwiseResult, PointwiseResult

if TYPE_CHECKING:
    from matplotlib.axes import Axes

MAX_PANELS = 6
"""Facets (and the overall score) whose distributions are drawn."""
_COLOURS = ("#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3", "#8C8C8C")
MAX_VALUES = 12
"""Beyond this many distinct scores, a distribution is drawn as a histogram of bins."""


def judge_plots(result: JudgeResult, distributions: Mapping[str, Mapping[str, Counter[float]]]) -> list[Plot]:
    """Every plot the result and the score ``distributions`` (by panel, then system) have data for."""
    plots = []
    if result.pairwise is not None:
        plots.append(_win_rates(result.pairwise))
        plots.append(_weights(result.pairwise.facets))
    if result.pointwise is not None:
        plots.append(_means(result.pointwise))
        if result.pairwise is None:
            plots.append(_weights(result.pointwise.facets))
    plots.append(_distributions(distributions))
    return [plot for plot in plots if plot is not None]


def _win_rates(pairwise: PairwiseResult) -> Plot | None:
    shown = [s for s in pairwise.systems if s.win_rate.value is not None]
    if not shown:
        return None
    values = [100 * (s.win_rate.value or 0.0) for s in shown]
    cis = [s.win_rate.ci for s in shown]
    figure = new_figure(6.5, 1.0 + 0.4 * len(shown))
    axes = figure.subplots()
    _bars(axes, [s.name for s in shown], values, cis, scale=100.0)
    axes.axvline(50, color="#888888", linestyle="--", linewidth=1)
    axes.set_xlim(0, 100)
    axes.set_xlabel("Win rate, ties counted half (%), with 95% CI")
    what = "system" if pairwise.systems_named else "candidate position"
    return encode_plot("systems", figure, f"Win rate of each {what} with its confidence interval")


def _means(pointwise: PointwiseResult) -> Plot | None:
    shown = [s for s in pointwise.systems if s.score.value is not None]
    if not shown:
        return None
    figure = new_figure(6.5, 1.0 + 0.4 * len(shown))
    axes = figure.subplots()
    _bars(axes, [s.name for s in shown], [s.score.value or 0.0 for s in shown], [s.score.ci for s in shown])
    axes.set_xlabel("Mean score, with 95% CI")
    return encode_plot(
        "scores", figure, "Mean score of each system's single outputs with its confidence interval"
    )


def _bars(
    axes: Axes,
    names: Sequence[str],
    values: Sequence[float],
    cis: Sequence[tuple[float, float] | None],
    scale: float = 1.0,
) -> None:
    below = [max(v - scale * ci[0], 0.0) if ci else 0.0 for v, ci in zip(values, cis, strict=True)]
    above = [max(scale * ci[1] - v, 0.0) if ci else 0.0 for v, ci in zip(values, cis, strict=True)]
    positions = range(len(names))
    errors = [below, above] if any(cis) else None
    axes.barh(positions, values, xerr=errors, color=_COLOURS[0], capsize=3, error_kw={"elinewidth": 1})
    axes.set_yticks(positions, labels=[plot_label(name) for name in names])
    axes.set_ylim(len(names) - 0.5, -0.5)
    axes.grid(axis="x", alpha=0.3)


def _weights(facets: Sequence[FacetSummary]) -> Plot | None:
    weighted = [f for f in facets if f.mean_weight is not None][:MAX_FACETS]
    if not weighted:
        return None
    figure = new_figure(6.5, 1.0 + 0.35 * len(weighted))
    axes = figure.subplots()
    values = [100 * (f.mean_weight or 0.0) for f in weighted]
    _bars(axes, [f.name for f in weighted], values, [None] * len(weighted))
    axes.set_xlabel("Mean weight (%)")
    return encode_plot("facets", figure, "Mean weight of each facet (the facets met most often)")


def _distributions(distributions: Mapping[str, Mapping[str, Counter[float]]]) -> Plot | None:
    panels = [(name, by_system) for name, by_system in distributions.items() if by_system][:MAX_PANELS]
    if not panels:
        return None
    systems = sorted({system for _, by_system in panels for system in by_system})
    columns = min(3, len(panels))
    lines = -(-len(panels) // columns)
    figure = new_figure(3.4 * columns, 2.7 * lines)
    grid = figure.subplots(lines, columns, squeeze=False)
    for index, (name, by_system) in enumerate(panels):
        axes = grid[index // columns][index % columns]
        if len({value for counts in by_system.values() for value in counts}) > MAX_VALUES:
            _histograms(axes, systems, by_system)
        else:
            _grouped(axes, systems, by_system)
        axes.set_title(plot_label(name), fontsize=9)
        axes.set_ylabel("Scores given", fontsize=8)
        axes.legend(fontsize=7)
    for index in range(len(panels), lines * columns):
        grid[index // columns][index % columns].set_visible(False)
    return encode_plot("distributions", figure, "How often each score was given, per facet and system")


def _grouped(axes: Axes, systems: Sequence[str], by_system: Mapping[str, Counter[float]]) -> None:
    """A bar per score value and system, side by side."""
    values = sorted({value for counts in by_system.values() for value in counts})
    width = 0.8 / len(systems)
    for k, system in enumerate(systems):
        counts = by_system.get(system, Counter())
        positions = [i - 0.4 + width * (k + 0.5) for i in range(len(values))]
        colour = _COLOURS[k % len(_COLOURS)]
        axes.bar(positions, [counts[v] for v in values], width=width, color=colour, label=plot_label(system))
    axes.set_xticks(range(len(values)), labels=[f"{v:g}" for v in values], fontsize=7)


def _histograms(axes: Axes, systems: Sequence[str], by_system: Mapping[str, Counter[float]]) -> None:
    """Overlaid histograms of the systems' scores, over the same bins."""
    values = [value for counts in by_system.values() for value in counts]
    low, high = min(values), max(values)
    bins = [low + (high - low) * k / MAX_VALUES for k in range(MAX_VALUES + 1)]
    for k, system in enumerate(systems):
        counts = by_system.get(system, Counter())
        colour = _COLOURS[k % len(_COLOURS)]
        scores, weights = list(counts), list(counts.values())
        axes.hist(scores, bins=bins, weights=weights, alpha=0.55, color=colour, label=plot_label(system))
