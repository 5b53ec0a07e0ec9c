"""The report of a trained evaluator: held-out results, criterion importances, experiments, plots."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from faceteval._util.files import read_json_object
from faceteval._util.text import plural, plural_of
from faceteval._version import __version__
from faceteval.report import Plot, Section, Table, render_page
from faceteval.report.internal import (
    DASH,
    decimal,
    encode_plot,
    escape_markdown,
    new_figure,
    numeric_columns,
    plot_label,
    section_lines,
)
from faceteval.store.internal import write_atomic
from faceteval.workflows.hdeval._evaluator import EXPERIMENTS_FILE, read_summary
from faceteval.workflows.hdeval._results import SCORERS

TOP_CRITERIA = 15
SHAP_ROWS = 10
"""Criteria per target in the SHAP table and plot."""
MAX_SHAP_PANELS = 4


def write_evaluator_report(
    directory: Path, *, markdown_path: Path | None = None, html_path: Path | None = None
) -> tuple[Path, Path]:
    """Write ``report.md`` and ``report.html`` into the evaluator directory (or to ``markdown_path`` and
    ``html_path``)."""
    summary = read_summary(directory)
    experiments_path = directory / EXPERIMENTS_FILE
    experiments = read_json_object(experiments_path) if experiments_path.is_file() else {}
    sections = build_sections(summary, experiments)
    title = f"HD-Eval evaluator: {summary.get('benchmark', directory.name)}"
    footer = f"faceteval {__version__}"
    lines = [f"# {escape_markdown(title)}", ""]
    for section in sections:
        lines += section_lines(section)
    lines.append(f"*{escape_markdown(footer)}*")
    markdown_path = markdown_path or directory / "report.md"
    html_path = html_path or directory / "report.html"
    write_atomic(markdown_path, "\n".join(lines) + "\n")
    html = render_page(title, sections, build_plots(summary, experiments), footer)
    write_atomic(html_path, html)
    return markdown_path, html_path


def build_sections(summary: Mapping[str, Any], experiments: Mapping[str, Any]) -> list[Section]:
    """Held-out results, criteria, and whichever experiments were run."""
    sections = [held_out_section(summary), criteria_section(summary)]
    if ablation := experiments.get("ablations"):
        sections.append(_comparison("ablations", "Ablations (Table 4)", ablation, "Variant"))
    if compared := experiments.get("aggregators"):
        sections.append(_comparison("aggregators", "Aggregators (Table 5)", compared, "Aggregator"))
    if points := experiments.get("data"):
        sections.append(_curve("data", "Data efficiency (Fig. 4)", points, "fraction", "Training data"))
    if points := experiments.get("criteria"):
        sections.append(_curve("criteria", "Criteria efficiency (Fig. 5)", points, "criteria", "Criteria"))
    if by_aggregator := experiments.get("importance"):
        sections.append(aggregator_importance_section(by_aggregator))
    if explained := experiments.get("shap"):
        sections.append(shap_section(explained))
    return [section for section in sections if section is not None]


def held_out_section(summary: Mapping[str, Any]) -> Section:
    level = str(summary.get("level", "sample"))
    rows = []
    for target, scorers in summary.get("held_out", {}).items():
        for scorer, levels in scorers.items():
            cells = levels.get(level) or levels.get("sample", {})
            n = next((entry.get("n") for entry in cells.values() if isinstance(entry, Mapping)), None)
            rows.append(
                (
                    str(target),
                    SCORERS.get(scorer, scorer),
                    *(_coefficient(cells.get(m)) for m in ("pearson", "spearman", "kendall")),
                    DASH if n is None else str(n),
                )
            )
    split = summary.get("split", {})
    notes = (
        f"Trained on {_outputs(split.get('train'))}, tested on "
        f"{_outputs(split.get('test'), 'held-out output')} ({level} level); "
        f"{split.get('left_out', 0):,} left out because a criterion score could not be read. "
        f"Criterion scores from {summary.get('criteria_scores_from', '?')}.",
    )
    columns = ("Target", "Scorer", "Pearson", "Spearman", "Kendall", "n")
    table = Table(
        columns, tuple(rows), note="Each cell: coefficient [95% CI].", numeric=numeric_columns(2, 4)
    )
    return Section("held-out", "Held-out correlation with human scores", notes, (table,))


def criteria_section(summary: Mapping[str, Any]) -> Section:
    rows = tuple(
        (
            str(node["id"]),
            str(node["layer"]),
            decimal(node["importance"]),
            "yes" if node.get("expanded") else "",
        )
        for node in sorted(summary.get("tree", []), key=lambda n: (-n["importance"], n["id"]))
    )
    note = (
        f"{importance_measure(summary)} of each criterion for the finalized aggregator (mean over targets), "
        "on training data."
    )
    table = Table(
        ("Criterion", "Layer", "Importance", "Expanded"), rows, note=note, numeric=(False, True, True, False)
    )
    return Section("importance", "Criteria and their importance", (), (table,))


def importance_measure(summary: Mapping[str, Any]) -> str:
    """What the evaluator's importances are: the method it was trained with (``--importance``)."""
    if summary.get("config", {}).get("importance") == "shap":
        return "Mean absolute SHAP value"
    return "Permutation importance (drop in R² when its scores are shuffled)"


def aggregator_importance_section(by_aggregator: Mapping[str, Any]) -> Section:
    """Each aggregator's permutation importance of the criteria (Fig. 8), mean over targets."""
    kinds = list(by_aggregator)
    means = {kind: _mean_over_targets(by_aggregator[kind]) for kind in kinds}
    rows = tuple(
        (criterion, *(decimal(means[kind].get(criterion)) for kind in kinds))
        for criterion in _top(means, TOP_CRITERIA)
    )
    note = (
        "Permutation importance (drop in held-out R² when a criterion's scores are shuffled), "
        "mean over targets; each aggregator fitted on the training rows."
    )
    table = Table(("Criterion", *kinds), rows, note=note, numeric=numeric_columns(1, len(kinds)))
    return Section("aggregator-importance", "What each aggregator relies on (Figs. 6 and 8)", (), (table,))


def shap_section(explained: Mapping[str, Any]) -> Section:
    """Mean |SHAP| and direction of the most influential criteria per target (Figs. 7 and 9)."""
    criteria = list(explained["criteria"])
    scores = np.asarray(explained["scores"], dtype=np.float64)
    rows = []
    for target, values in zip(explained["targets"], explained["values"], strict=True):
        matrix = np.asarray(values, dtype=np.float64)
        magnitude = np.abs(matrix).mean(axis=0)
        for column in np.argsort(-magnitude, kind="stable")[:SHAP_ROWS]:
            negligible = magnitude[column] < 0.01 * magnitude.max()
            direction = DASH if negligible else _direction(scores[:, column], matrix[:, column])
            rows.append((str(target), criteria[column], decimal(float(magnitude[column])), direction))
    notes = (
        f"SHAP values of the evaluator's aggregator on {len(scores)} randomly chosen outputs, "
        "with the training outputs as the reference. Direction: how a higher criterion score moves "
        "the prediction (the sign of the correlation between the score and its SHAP value); "
        "none is given for criteria with negligible effect.",
    )
    table = Table(
        ("Target", "Criterion", "Mean |SHAP|", "Direction"), tuple(rows), numeric=(False, False, True, False)
    )
    return Section("shap", "SHAP explanations (Figs. 7 and 9)", notes, (table,))


def _mean_over_targets(per_target: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    criteria = {c for values in per_target.values() for c in values}
    return {c: float(np.mean([values.get(c, 0.0) for values in per_target.values()])) for c in criteria}


def _top(means: Mapping[str, Mapping[str, float]], k: int) -> list[str]:
    """The ``k`` criteria with the highest importance under any aggregator."""
    best: dict[str, float] = {}
    for values in means.values():
        for criterion, value in values.items():
            best[criterion] = max(best.get(criterion, -np.inf), value)
    return sorted(best, key=lambda c: (-best[c], c))[:k]


def _direction(scores: NDArray[np.float64], values: NDArray[np.float64]) -> str:
    if np.ptp(scores) == 0 or np.ptp(values) == 0:
        return DASH
    r = float(np.corrcoef(scores, values)[0, 1])
    return "higher is better" if r > 0.1 else "higher is worse" if r < -0.1 else "mixed"


def _comparison(key: str, heading: str, results: Mapping[str, Any], label: str) -> Section:
    rows = tuple(
        (str(name), decimal(r.get("pearson")), decimal(r.get("spearman"))) for name, r in results.items()
    )
    table = Table(
        (label, "Pearson", "Spearman"), rows, note="Held-out, mean over targets.", numeric=(False, True, True)
    )
    return Section(key, heading, (), (table,))


def _outputs(count: Any, noun: str = "output") -> str:
    """``count`` outputs, as a summary gives the count (``?`` when it does not)."""
    return plural(count, noun) if isinstance(count, int) else f"? {plural_of(noun)}"


def _curve(key: str, heading: str, points: Sequence[Mapping[str, Any]], x: str, label: str) -> Section:
    rows = tuple(
        (
            f"{100 * p[x]:.0f}% ({plural(p['rows'], 'row')})"
            if x == "fraction" and "rows" in p
            else f"{100 * p[x]:.0f}%"
            if x == "fraction"
            else str(p[x]),
            _spread(p["pearson"]),
            _spread(p["spearman"]),
        )
        for p in points
    )
    note = "Held-out, mean over targets; mean ± sd over seeds."
    return Section(
        key,
        heading,
        (),
        (Table((label, "Pearson", "Spearman"), rows, note=note, numeric=(False, True, True)),),
    )


def _spread(entry: Mapping[str, Any]) -> str:
    mean = entry.get("mean")
    return DASH if mean is None else f"{mean:.3f} ± {entry.get('sd', 0.0):.3f}"


def _coefficient(entry: Any) -> str:
    if not isinstance(entry, Mapping) or entry.get("value") is None:
        return DASH
    text = decimal(entry["value"])
    ci = entry.get("ci")
    return text + (f" [{decimal(ci[0])}, {decimal(ci[1])}]" if ci else "")


def build_plots(summary: Mapping[str, Any], experiments: Mapping[str, Any]) -> list[Plot]:
    """Importance per target, and the efficiency curves when those experiments were run."""
    plots = [_importance_plot(summary)]
    for key, x, label in (
        ("data", "fraction", "Training data (fraction)"),
        ("criteria", "criteria", "Criteria"),
    ):
        if experiments.get(key):
            plots.append(_curve_plot(key, experiments[key], x, label))
    if experiments.get("importance"):
        plots.append(_aggregator_importance_plot(experiments["importance"]))
    if experiments.get("shap"):
        plots.append(_shap_plot(experiments["shap"]))
    return [plot for plot in plots if plot is not None]


def _importance_plot(summary: Mapping[str, Any]) -> Plot | None:
    nodes = sorted(summary.get("tree", []), key=lambda n: -n["importance"])[:TOP_CRITERIA]
    targets = list(summary.get("targets", []))
    if not nodes or not targets:
        return None
    figure = new_figure(7.0, 1.2 + 0.3 * len(nodes))
    axes = figure.subplots()
    height = 0.8 / len(targets)
    for t, target in enumerate(targets):
        values = [node["importance_by_target"].get(target, 0.0) for node in nodes]
        axes.barh(
            [i + t * height for i in range(len(nodes))], values, height=height, label=plot_label(target)
        )
    axes.set_yticks(
        [i + 0.4 - height / 2 for i in range(len(nodes))], labels=[plot_label(n["id"]) for n in nodes]
    )
    axes.invert_yaxis()
    axes.set_xlabel(f"{importance_measure(summary)}, training data")
    axes.legend(fontsize=8)
    return encode_plot(
        "importance", figure, "Importance of the most important criteria for each target aspect"
    )


def _curve_plot(key: str, points: Sequence[Mapping[str, Any]], x: str, label: str) -> Plot:
    figure = new_figure(5.5, 3.2)
    axes = figure.subplots()
    xs = [p[x] for p in points]
    for method in ("pearson", "spearman"):
        means = [p[method]["mean"] for p in points]
        sds = [p[method]["sd"] for p in points]
        axes.errorbar(xs, means, yerr=sds, marker="o", capsize=3, label=method.capitalize())
    axes.set_xlabel(label)
    axes.set_ylabel("Held-out correlation")
    axes.legend(fontsize=8)
    return encode_plot(key, figure, f"Held-out correlation against {label.lower()}")


def _aggregator_importance_plot(by_aggregator: Mapping[str, Any]) -> Plot:
    kinds = list(by_aggregator)
    means = {kind: _mean_over_targets(by_aggregator[kind]) for kind in kinds}
    criteria = _top(means, TOP_CRITERIA)
    grid = np.array([[means[kind].get(c, 0.0) for kind in kinds] for c in criteria])
    figure = new_figure(2.5 + 0.9 * len(kinds), 1.2 + 0.32 * len(criteria))
    axes = figure.subplots()
    image = axes.imshow(grid, aspect="auto", cmap="viridis")
    axes.set_xticks(range(len(kinds)), labels=[plot_label(k) for k in kinds])
    axes.set_yticks(range(len(criteria)), labels=[plot_label(c) for c in criteria])
    middle = (float(grid.min()) + float(grid.max())) / 2
    for (row, column), value in np.ndenumerate(grid):
        colour = "black" if value > middle else "white"
        axes.text(column, row, f"{value:.2f}", ha="center", va="center", fontsize=7, color=colour)
    figure.colorbar(image, ax=axes, label="Permutation importance")
    return encode_plot(
        "aggregator-importance", figure, "Permutation importance of the criteria under each aggregator"
    )


def _shap_plot(explained: Mapping[str, Any]) -> Plot:
    """One beeswarm-style panel per target: each dot an output, coloured by the criterion's score."""
    criteria = list(explained["criteria"])
    targets = list(explained["targets"])[:MAX_SHAP_PANELS]
    scores = np.asarray(explained["scores"], dtype=np.float64)
    jitter = np.random.default_rng(0).uniform(-0.3, 0.3, size=len(scores))
    figure = new_figure(4.2 * len(targets) + 0.8, 1.4 + 0.3 * SHAP_ROWS)
    panels = np.atleast_1d(figure.subplots(1, len(targets), squeeze=False)[0])
    low, high = float(np.nanmin(scores)), float(np.nanmax(scores))
    image = None
    for axes, target, values in zip(panels, targets, explained["values"], strict=False):
        matrix = np.asarray(values, dtype=np.float64)
        order = np.argsort(-np.abs(matrix).mean(axis=0), kind="stable")[:SHAP_ROWS]
        for row, column in enumerate(order):
            image = axes.scatter(
                matrix[:, column],
                row + jitter,
                c=scores[:, column],
                cmap="coolwarm",
                vmin=low,
                vmax=high,
                s=9,
                linewidths=0,
            )
        axes.axvline(0.0, color="grey", linewidth=0.8)
        axes.set_yticks(range(len(order)), labels=[plot_label(criteria[c]) for c in order])
        axes.invert_yaxis()
        axes.set_xlabel("SHAP value (effect on the prediction)")
        axes.set_title(plot_label(target), fontsize=9)
    if image is not None:
        figure.colorbar(image, ax=list(panels), label="Criterion score")
    return encode_plot(
        "shap", figure, f"SHAP values of the most influential criteria on {plural(len(scores), 'output')}"
    )
