"""``faceteval export``: judgments turned into training data (Fennec's SFT sets)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import click
from rich.table import Table

from faceteval._cli.kit import Console, escape, force_option, handle_errors
from faceteval._util.text import plural
from faceteval.datasets.internal import judged_input
from faceteval.errors import FacetevalError
from faceteval.store.internal import check_outputs
from faceteval.workflows.fennec._records import CHATS, SFT_STATS
from faceteval.workflows.fennec._sft import export_sft
from faceteval.workflows.fennec._sft_model import SET_FILES, SFT_SETS, STATS_FILE, SftSet, SftStats

console = Console(highlight=False, soft_wrap=True, emoji=False)

SET_TITLES: dict[SftSet, str] = {
    "criteria": "Evaluation Criteria",
    "score": "Scoring Guidelines",
    "judge": "Judgement",
    "correction": "Correction",
}
"""The rows of the statistics table, named as in the paper's Table 6."""


@click.group()
def export() -> None:
    """Export judgments as training data."""


@export.command("sft")
@click.argument("judgments_path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument(
    "corrections_path", required=False, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.option(
    "--out", required=True, type=click.Path(file_okay=False, path_type=Path), help="Directory to write."
)
@click.option(
    "--input",
    "input_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The judged file (default: the input named by the judgments' run record).",
)
@click.option(
    "--augment/--no-augment",
    default=True,
    show_default=True,
    help="Add the swapped sample of each pairwise judgment made in one order.",
)
@force_option
@handle_errors
def sft(
    judgments_path: Path,
    corrections_path: Path | None,
    out: Path,
    input_path: Path | None,
    augment: bool,
    force: bool,
) -> None:
    """Chat-format SFT sets from Fennec judgments (and corrections), as in Fennec's Section 4.1.

    Writes OUT/criteria.jsonl (criteria prompt -> generated criteria), OUT/score.jsonl (guideline
    prompt -> scoring guideline), OUT/judge.jsonl (pairwise or single-eval prompt -> judge result),
    OUT/correction.jsonl (correction prompt -> corrected response, from CORRECTIONS_PATH, the output
    of `faceteval correct`) and OUT/stats.json. Each line is {"messages": [system, user, assistant]}.
    Pairwise judgments made in one order gain their swapped sample; criteria whose preference changes
    with the order (judged with --swap) are dropped. Failed judgments are skipped.

    \b
    Examples:
      faceteval export sft j.jsonl --out sft/
      faceteval export sft j.jsonl corrected.jsonl --out sft/ --no-augment
    """
    targets = [(out / SET_FILES[name], CHATS) for name in SFT_SETS] + [(out / STATS_FILE, SFT_STATS)]
    judged = input_path
    with contextlib.suppress(FacetevalError):  # the input the judgments' record names, when it is found
        judged = judged or judged_input(judgments_path)
    inputs = [path for path in (judgments_path, corrections_path, judged) if path is not None]
    check_outputs(targets, given=out, inputs=inputs, force=force)
    data = export_sft(judgments_path, out, corrections_path, input_path=input_path, augment=augment)
    _show_stats(data.stats)
    files = ", ".join(SET_FILES[name] for name in SFT_SETS)
    console.print(f"Wrote {files} and {STATS_FILE} to {escape(str(out))}/")


def _show_stats(stats: SftStats) -> None:
    table = Table(
        title="SFT data (Fennec, Table 6)",
        title_justify="left",
        caption="augmented: swapped judge samples added; inconsistent: judge samples dropped, their "
        "criterion's preference changed with the order; repeats: samples already written; skipped: "
        "failed judgments, or corrections lines without a correction.",
        caption_justify="left",
    )
    table.add_column("dataset", no_wrap=True)
    for column in ("samples", "augmented", "inconsistent", "repeats", "skipped"):
        table.add_column(column, justify="right")
    for name in SFT_SETS:
        judge = name == "judge"
        table.add_row(
            SET_TITLES[name],
            str(stats.samples[name]),
            str(stats.augmented) if judge else "",
            str(stats.inconsistent) if judge else "",
            str(stats.duplicates[name]),
            str(stats.skipped(name)),
        )
    table.add_row(
        "total",
        str(stats.total),
        str(stats.augmented),
        str(stats.inconsistent),
        str(sum(stats.duplicates.values())),
        str(stats.failed + stats.skipped("correction")),
        style="bold",
    )
    console.print(table)
    if stats.incomplete:
        console.print(
            f"{plural(stats.incomplete, 'judge sample')} left out for a missing score, explanation, "
            "comparison or guideline."
        )
    if stats.failed:
        were = "was" if stats.failed == 1 else "were"
        console.print(f"{stats.failed:,} of {plural(stats.judgments, 'judgment')} failed and {were} skipped.")
