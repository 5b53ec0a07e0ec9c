"""What ``meta-eval`` and ``compare`` print: the headline numbers with CIs and counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.table import Table

from faceteval._cli._cascade_display import show_cascade
from faceteval._cli._console import Console, err_console, escape
from faceteval._cli._diagnostics_display import show_diagnostics
from faceteval._cli._ppi_display import show_ppi
from faceteval._util.numbers import NO_SPREAD, NO_SPREAD_NOTE, flat
from faceteval._util.text import plural
from faceteval.metrics import CLOPPER_PEARSON

console = Console(highlight=False, soft_wrap=True, emoji=False)

PAIRWISE_ROWS = (
    ("agreement", "agreement (ties a class)"),
    ("agreement_without_ties", "agreement without human ties"),
    ("agreement_order1", "agreement, original order"),
    ("agreement_order2", "agreement, swapped order"),
    ("accuracy_order_avg", "accuracy averaged over orders"),
    ("consistency", "consistency (orders agree)"),
    ("consistency_without_ties", "consistency without human ties"),
    ("rotation_consistency", "consistency across rotations (3+ candidates)"),
    ("positional_agreement", "positional agreement (LLMBar)"),
    ("agreement_consistent", "agreement, consistent only"),
    ("agreement_consistent_without_ties", "agreement, consistent only, without human ties"),
)
CORRELATIONS = ("pearson", "spearman", "kendall")


def percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.2f}%"


def _ci(rate: dict[str, Any]) -> str:
    ci = rate.get("ci")
    binomial = " ‡" if rate.get("ci_method") == CLOPPER_PEARSON else ""
    if flat(ci):
        return NO_SPREAD
    return f"{100 * ci[0]:.1f}-{100 * ci[1]:.1f}{binomial}" if ci and None not in ci else ""


def show_results(summary: dict[str, Any], out: Path, *, reports: bool = True) -> None:
    """The headline table of a meta-evaluation (one row per run of a sweep or of repeated seeds),
    then where the files are."""
    title = f"{summary['benchmark']} x {summary['judge']}"
    if "runs" in summary:
        _show_runs(summary, title)
        files = "summary.json, report.md, report.html" if reports else "summary.json"
        console.print(f"Written to {escape(str(out))}/ ({files}; each run in its own directory)")
        return
    status = summary.get("status", {})
    failed = status.get("parse_error", 0) + status.get("error", 0) + status.get("missing", 0)
    if summary.get("kind") == "pointwise":
        table = _pointwise_table(summary, title)
    else:
        table = _pairwise_table(summary, title)
    console.print(table)
    show_diagnostics(summary)
    show_cascade(summary)
    show_ppi(summary)
    if isinstance(panel := summary.get("panel"), dict):
        if summary.get("kind") == "pointwise":
            show_score_panel(panel, summary.get("correlations", {}))
        else:
            show_panel(panel)
    rates = [summary[key] for key, _ in PAIRWISE_ROWS if isinstance(summary.get(key), dict)]
    if any(rate.get("ci_method") == CLOPPER_PEARSON for rate in rates):
        console.print(
            "‡ exact binomial (Clopper-Pearson) CI: every bootstrap resample gave the same rate "
            "(all hits or all misses)"
        )
    if any(flat(rate.get("ci")) for rate in rates):
        console.print(NO_SPREAD_NOTE)
    for aspect, left_out in summary.get("unjudged", {}).items():
        console.print(
            f"[yellow]{escape(aspect)}: {left_out:,} human-scored instances have no judge score[/] "
            "(failed or missing judgments): left out of its correlations"
        )
    for aspect, rows in summary.get("systems", {}).items():
        console.print(_systems_table(aspect, rows))
    if summary.get("reference", "humans") != "humans":
        console.print(f"Measured against {escape(str(summary['reference']))}, not human labels.")
    for aspect, raters in summary.get("alpha", {}).items():
        interval = raters.get("interval", {})
        console.print(
            f"Krippendorff's alpha (interval) on {escape(aspect)}: annotators "
            f"{_number(interval.get('annotators'))}, annotators + judge "
            f"{_number(interval.get('annotators_and_judge'))}"
        )
    rankings = summary.get("weight_rankings", {})
    if unknown := rankings.get("unknown_ids"):
        shown = ", ".join(escape(repr(i)) for i in unknown[:5]) + (" ..." if len(unknown) > 5 else "")
        console.print(
            f"[yellow]{plural(len(unknown), 'id')} of the human weights "
            f"{'is' if len(unknown) == 1 else 'are'} not among the instances:[/] {shown}"
        )
    if unshared := rankings.get("no_shared_facets"):
        console.print(
            f"[yellow]{plural(unshared, 'human weighting')} {'names' if unshared == 1 else 'name'} none "
            "of the judge's facets[/] (each counts as the farthest ranking): check that they use the facet "
            "names of the judgments"
        )
    if rankings.get("judge_vs_human"):
        people = rankings.get("human_vs_human")
        console.print(
            "Facet-weight ranking distance (top-k Kendall, 0 = same order): judge vs people "
            f"{_number(rankings['judge_vs_human']['value'])}"
            + (f", people vs people {_number(people['value'])}" if people else "")
        )
    console.print(
        f"n = {summary.get('n', 0):,}: {status.get('ok', 0):,} judged, "
        f"{plural(status.get('parse_error', 0), 'parse error')}, {plural(status.get('error', 0), 'error')}, "
        f"{status.get('missing', 0):,} without a judgment"
        + (" (counted as disagreements)" if failed and summary.get("kind") == "pairwise" else "")
    )
    _show_unused_judgments(summary)
    files = "summary.json, report.md, report.html" if reports else "summary.json"
    console.print(f"Written to {escape(str(out))}/ (instances.jsonl, judgments.jsonl, {files})")


def show_panel(panel: dict[str, Any]) -> None:
    """A judge panel's members beside each other (agreement with the humans), and how far they agree."""
    table = Table(title=f"panel members (combined by {escape(str(panel.get('vote')))})", title_justify="left")
    table.add_column("judge")
    for column in ("agreement", "95% CI", "count"):
        table.add_column(column, justify="right")
    for member in panel.get("judges", []):
        rate = member.get("agreement") or {}
        count = f"{rate.get('hits', 0):,} / {rate.get('n', 0):,}"
        table.add_row(escape(str(member.get("judge"))), percent(rate.get("value")), _ci(rate), count)
    console.print(table)
    alpha = panel.get("alpha") or {}
    unanimous = panel.get("unanimous") or {}
    console.print(
        f"Agreement among the judges: Krippendorff's alpha (nominal, verdicts) {_number(alpha.get('value'))} "
        f"over {plural(alpha.get('n', 0), 'instance')}; unanimous on {percent(unanimous.get('value'))}"
    )


def show_score_panel(panel: dict[str, Any], correlations: dict[str, Any]) -> None:
    """A pointwise panel's members beside the panel (``correlations``: the panel's own), per aspect and
    level, and how far the judges agree on their scores."""
    table = Table(title=f"panel members (combined by {escape(str(panel.get('vote')))})", title_justify="left")
    for column in ("aspect", "level", "judge", *CORRELATIONS, "n"):
        table.add_column(column, justify="left" if column in ("aspect", "level", "judge") else "right")
    rows: list[tuple[str, dict[str, Any]]] = [
        (str(m.get("judge")), m.get("correlations") or {}) for m in panel.get("judges", [])
    ]
    rows.append((f"panel ({panel.get('vote')})", correlations))
    for aspect in dict.fromkeys(aspect for _, by_aspect in rows for aspect in by_aspect):
        for level in dict.fromkeys(level for _, by_aspect in rows for level in by_aspect.get(aspect) or {}):
            for judge, by_aspect in rows:
                methods: dict[str, Any] = (by_aspect.get(aspect) or {}).get(level) or {}
                first: dict[str, Any] = next(iter(methods.values()), {})
                values = (_number(methods.get(m, {}).get("value")) for m in CORRELATIONS)
                table.add_row(escape(aspect), level, escape(judge), *values, str(first.get("n", "")))
    console.print(table)
    alphas = ", ".join(
        f"{escape(aspect)} {_number(alpha.get('value'))} over {plural(alpha.get('n', 0), 'instance')}"
        for aspect, alpha in (panel.get("alpha") or {}).items()
    )
    console.print(f"Agreement among the judges: Krippendorff's alpha (interval, scores) {alphas}")


def _show_unused_judgments(summary: dict[str, Any]) -> None:
    """The judgments not measured: those the sample or filters left out (a note), and those of no
    instance of the benchmark (a warning on stderr: the ids may not be this benchmark's)."""
    if outside := summary.get("judgments_outside_sample"):
        console.print(
            f"{plural(outside, 'judgment')} of instances outside the sample (--limit, --turn, --category) "
            f"{'was' if outside == 1 else 'were'} left out, as asked."
        )
    if unmatched := summary.get("unmatched_judgments"):
        examples = summary.get("unmatched_examples") or []
        shown = ", ".join(escape(repr(i)) for i in examples) + (" ..." if unmatched > len(examples) else "")
        err_console.print(
            f"[yellow]warning:[/] {plural(unmatched, 'judgment')} {'matches' if unmatched == 1 else 'match'} "
            f"no instance of {escape(str(summary.get('benchmark')))} and {'is' if unmatched == 1 else 'are'} "
            "not measured"
            + (f": ids such as {shown}" if examples else "")
            + " (judgments of another benchmark, or with other ids?)"
        )


RUN_KEYS = frozenset({"dir", "aspects", "seed", "status", "usage"})


def _show_runs(summary: dict[str, Any], title: str) -> None:
    """A sweep's or repeated runs' table: each run's headline numbers and judged count, then mean / sd."""
    runs: list[dict[str, Any]] = summary["runs"]
    metrics = [key for key in dict.fromkeys(key for run in runs for key in run) if key not in RUN_KEYS]
    pointwise = summary.get("kind") == "pointwise"
    table = Table(title=escape(title), title_justify="left")
    table.add_column("run")
    for key in metrics:
        table.add_column(escape(key), justify="right")
    table.add_column("judged", justify="right")
    for run in runs:
        values = [(run.get(key) or {}).get("value") for key in metrics]
        status = run.get("status", {})
        table.add_row(
            escape(str(run["dir"])),
            *(_number(v) if pointwise else percent(v) for v in values),
            f"{status.get('ok', 0):,} / {sum(status.values()):,}",
        )
    console.print(table)
    for name, spread in summary.get("repeats", {}).items():
        if isinstance(spread, dict):
            mean, sd = spread["mean"], spread["sd"]
            shown = (
                f"{_number(mean)} (sd {_number(sd)})"
                if pointwise
                else f"{percent(mean)} (sd {100 * sd:.2f} pp)"
            )
            console.print(f"{escape(name)} over seeds {summary['repeats']['seeds']}: {shown}")


def _pairwise_table(summary: dict[str, Any], title: str) -> Table:
    reported = summary.get("reported", {})
    table = Table(title=escape(title), title_justify="left")
    for column in ("metric", "value", "95% CI", "count"):
        table.add_column(column, justify="left" if column == "metric" else "right")
    if reported:
        table.add_column("reported", justify="right")
    for key, label in PAIRWISE_ROWS:
        if key in summary:
            rate = summary[key]
            row = [label, percent(rate["value"]), _ci(rate), f"{rate['hits']:,} / {rate['n']:,}"]
            if reported:
                row.append(percent(reported[key]) if key in reported else "")
            table.add_row(*row)
    for name, rate in summary.get("votes", {}).items():
        row = [
            f"MT-Bench votes, {name.replace('_', ' ')}",
            percent(rate["value"]),
            "",
            f"{rate['hits']:,} / {rate['n']:,}",
        ]
        table.add_row(*row, *([""] if reported else []))
    kappa = summary.get("cohen_kappa", {}).get("value")
    if kappa is not None:
        table.add_row("Cohen's kappa", f"{kappa:.3f}", "", "", *([""] if reported else []))
    return table


def _pointwise_table(summary: dict[str, Any], title: str) -> Table:
    table = Table(title=escape(title), title_justify="left")
    for column in ("aspect", "level", "pearson", "spearman", "kendall", "n"):
        table.add_column(column, justify="left" if column in ("aspect", "level") else "right")
    for aspect, levels in summary.get("correlations", {}).items():
        for level, methods in levels.items():
            first: dict[str, Any] = next(iter(methods.values()), {})
            n = first.get("n", "")
            table.add_row(
                escape(aspect),
                level,
                *(_number(methods.get(m, {}).get("value")) for m in ("pearson", "spearman", "kendall")),
                str(n),
            )
    return table


def _systems_table(aspect: str, rows: list[dict[str, Any]]) -> Table:
    """Each system's mean judge and reference score and its rank by each, best reference first."""
    table = Table(title=f"systems: {escape(aspect)}", title_justify="left")
    for column in ("system", "n", "judge mean", "reference mean", "judge rank", "reference rank"):
        table.add_column(column, justify="left" if column == "system" else "right")
    for row in rows:
        table.add_row(
            escape(str(row["system"])),
            f"{row['n']:,}",
            _number(row["judge"]),
            _number(row["reference"]),
            str(row["judge_rank"]),
            str(row["reference_rank"]),
        )
    return table


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"
