"""The report of a trained evaluator: held-out results, criterion importances, experiments, plots."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from faceteval._version import __version__
from faceteval.datasets._files import read_json_object
from faceteval.hdeval._evaluator import read_summary
from faceteval.hdeval._results import SCORERS
from faceteval.report._format import DASH, decimal, escape_markdown
from faceteval.report._html import TEMPLATE, _environment
from faceteval.report._markdown import section_lines
from faceteval.report._model import Section, Table, numeric_columns
from faceteval.report._plots import Plot, _encode, _figure, _text

EXPERIMENTS_FILE = "experiments.json"
TOP_CRITERIA = 15


def write_evaluator_report(directory: Path) -> tuple[Path, Path]:
    """Write ``report.md`` and ``report.html`` into the evaluator directory."""
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
    markdown_path, html_path = directory / "report.md", directory / "report.html"
    markdown_path.write_text("\n".join(lines) + "\n", encoding="utf-8", newline="\n")
    html = (
        _environment()
        .get_template(TEMPLATE)
        .render(title=title, sections=sections, plots=build_plots(summary, experiments), footer=footer)
    )
    html_path.write_text(html, encoding="utf-8", newline="\n")
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
        f"Trained on {split.get('train', '?')} outputs, tested on {split.get('test', '?')} held-out outputs "
        f"({level} level); {split.get('left_out', 0)} left out because a criterion score could not be read. "
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
        "Permutation importance of each criterion for the finalized aggregator (mean over targets), "
        "on training data."
    )
    table = Table(
        ("Criterion", "Layer", "Importance", "Expanded"), rows, note=note, numeric=(False, True, True, False)
    )
    return Section("importance", "Criteria and their importance", (), (table,))


def _comparison(key: str, heading: str, results: Mapping[str, Any], label: str) -> Section:
    rows = tuple(
        (str(name), decimal(r.get("pearson")), decimal(r.get("spearman"))) for name, r in results.items()
    )
    table = Table(
        (label, "Pearson", "Spearman"), rows, note="Held-out, mean over targets.", numeric=(False, True, True)
    )
    return Section(key, heading, (), (table,))


def _curve(key: str, heading: str, points: Sequence[Mapping[str, Any]], x: str, label: str) -> Section:
    rows = tuple(
        (
            f"{100 * p[x]:.0f}%" if x == "fraction" else str(p[x]),
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
    return [plot for plot in plots if plot is not None]


def _importance_plot(summary: Mapping[str, Any]) -> Plot | None:
    nodes = sorted(summary.get("tree", []), key=lambda n: -n["importance"])[:TOP_CRITERIA]
    targets = list(summary.get("targets", []))
    if not nodes or not targets:
        return None
    figure = _figure(7.0, 1.2 + 0.3 * len(nodes))
    axes = figure.subplots()
    height = 0.8 / len(targets)
    for t, target in enumerate(targets):
        values = [node["importance_by_target"].get(target, 0.0) for node in nodes]
        axes.barh([i + t * height for i in range(len(nodes))], values, height=height, label=_text(target))
    axes.set_yticks([i + 0.4 - height / 2 for i in range(len(nodes))], labels=[_text(n["id"]) for n in nodes])
    axes.invert_yaxis()
    axes.set_xlabel("Permutation importance (drop in R², training data)")
    axes.legend(fontsize=8)
    return _encode("importance", figure, "Importance of the most important criteria for each target aspect")


def _curve_plot(key: str, points: Sequence[Mapping[str, Any]], x: str, label: str) -> Plot:
    figure = _figure(5.5, 3.2)
    axes = figure.subplots()
    xs = [p[x] for p in points]
    for method in ("pearson", "spearman"):
        means = [p[method]["mean"] for p in points]
        sds = [p[method]["sd"] for p in points]
        axes.errorbar(xs, means, yerr=sds, marker="o", capsize=3, label=method.capitalize())
    axes.set_xlabel(label)
    axes.set_ylabel("Held-out correlation")
    axes.legend(fontsize=8)
    return _encode(key, figure, f"Held-out correlation against {label.lower()}")
