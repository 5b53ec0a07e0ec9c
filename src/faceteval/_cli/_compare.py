"""``faceteval compare``: the paired difference between two meta-evaluation runs."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich.table import Table

from faceteval._cli._app import handle_errors
from faceteval._cli._console import Console, escape
from faceteval._cli._options import force_flag
from faceteval._util.text import plural
from faceteval.metaeval import compare_runs
from faceteval.metaeval.internal import run_inputs
from faceteval.store.internal import COMPARISON, check_outputs, write_atomic

console = Console(highlight=False, soft_wrap=True, emoji=False)


def _run_dir(ctx: click.Context, param: click.Parameter, value: Path) -> Path:
    """A meta-eval run's directory; a judge run's file is refused with what to do instead."""
    if value.is_dir():
        return value
    where = value.parent / value.stem if value.suffix else value.with_name(f"{value.name}-measured")
    raise click.BadParameter(
        f"{value} is a file: compare takes two meta-eval run directories. A judge run's judgments "
        f"are measured into one first: faceteval meta-eval LABELLED_INPUT --judgments {value} "
        f"--out {where}"
    )


@click.command()
@click.argument("run_a", type=click.Path(exists=True, path_type=Path), callback=_run_dir)
@click.argument("run_b", type=click.Path(exists=True, path_type=Path), callback=_run_dir)
@click.option(
    "--resamples", type=click.IntRange(0), default=2000, show_default=True, help="Bootstrap resamples."
)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), help="Also write JSON.")
@force_flag("--json")
@handle_errors
def compare(run_a: Path, run_b: Path, resamples: int, seed: int, json_path: Path | None, force: bool) -> None:
    """Is RUN_B better than RUN_A? The paired difference B - A with its 95% CI and p-value.

    RUN_A and RUN_B are meta-eval run directories (faceteval meta-eval ... --out DIR); a judge run's
    judgments are measured into one with faceteval meta-eval LABELLED_INPUT --judgments FILE --out DIR.

    Agreement is compared with the exact McNemar test; correlations with a paired bootstrap.
    Runs repeated over seeds (--seeds) are paired seed by seed.
    """
    if json_path is not None:
        inputs = [*run_inputs(run_a), *run_inputs(run_b)]
        check_outputs([(json_path, COMPARISON)], given=json_path, option="--json", inputs=inputs, force=force)
    result = compare_runs(run_a, run_b, resamples=resamples, seed=seed)
    table = Table(
        title=f"{escape(str(result['b']['judge']))} (B) vs {escape(str(result['a']['judge']))} (A) "
        f"on {escape(str(result['benchmark']))}",
        title_justify="left",
    )
    for column in ("metric", "A", "B", "B - A", "95% CI", "p", "n"):
        table.add_column(column, justify="left" if column == "metric" else "right", no_wrap=True)
    for name, row in result["metrics"].items():
        ci = row.get("ci")
        table.add_row(
            escape(name),
            _number(row.get("a")),
            _number(row.get("b")),
            _number(row.get("difference"), signed=True),
            f"{ci[0]:+.3f}, {ci[1]:+.3f}" if ci else "",
            ""
            if row.get("p_value") is None
            else f"{row['p_value']:.3g} {row.get('significance', '')}".strip(),
            f"{row.get('n', ''):,}" if isinstance(row.get("n"), int) else "",
        )
    console.print(table)
    console.print("*** p < 0.01, ** p < 0.05, * p < 0.1, n.s. not significant")
    if note := result.get("note"):
        console.print(f"[yellow]Note:[/] {escape(note[:1].upper() + note[1:])}.")
    for side in ("a", "b"):
        if count := result["unjudged"][side]:
            console.print(
                f"[yellow]{side.upper()} ({escape(str(result[side]['dir']))}) has no usable judgment of "
                f"{count:,} of the {plural(result['n'], 'instance')}[/] (missing or failed: wrong in "
                "agreement, left out of correlations)"
            )
    if json_path is not None:
        write_atomic(json_path, json.dumps(result, indent=2) + "\n")


def _number(value: float | None, *, signed: bool = False) -> str:
    if value is None:
        return "n/a"
    return f"{value:+.3f}" if signed else f"{value:.3f}"
