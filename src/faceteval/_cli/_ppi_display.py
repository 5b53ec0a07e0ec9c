"""What ``meta-eval --ppi-labels`` prints: each pair's coverage and widths, then the pooled line."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from faceteval._cli._console import Console, escape
from faceteval._util.text import plural

console = Console(highlight=False, soft_wrap=True, emoji=False)

_KINDS = ("", "_judge_only", "_human_only")
"""Each interval's key suffix in ``summary.ppi``: PPI, judge only, human only."""


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _share(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.0f}"


def _width(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def show_ppi(summary: dict[str, Any]) -> None:
    """The prediction-powered table, when the summary has one."""
    block = summary.get("ppi")
    if not isinstance(block, dict):
        return
    title = (
        f"prediction-powered win rates: {block.get('labels')} random human labels per pair, "
        f"{block.get('draws'):,} draws (seed {block.get('seed')}), nominal {_percent(block.get('level'))}"
    )
    table = Table(title=escape(title), title_justify="left")
    table.add_column("pair (win rate of the first)", overflow="fold")
    for column in ("items", "human", "judge", "coverage %\nPPI/judge/human", "width\nPPI/judge/human"):
        table.add_column(column, justify="right", no_wrap=True)
    for row in block.get("pairs", []):
        table.add_row(*_cells(row, escape(str(row.get("pair")))))
    if block.get("pairs"):
        table.add_section()
        table.add_row(*_cells(block, "pooled (mean over pairs)"))
    console.print(table)
    console.print(
        "human: the all-human win rate (ties half a win); judge: the judge's over all the pair's items. "
        "Coverage: how often each interval holds the all-human win rate."
    )
    if skipped := block.get("skipped"):
        shown = ", ".join(f"{escape(str(s.get('pair')))} ({s.get('items'):,})" for s in skipped)
        console.print(
            f"[yellow]{plural(len(skipped), 'pair')} with fewer than {2 * int(block.get('labels', 0)):,} "
            f"labelled items skipped:[/] {shown}"
        )


def _cells(row: dict[str, Any], name: str) -> list[str]:
    items = row.get("items")
    return [
        name,
        "" if items is None else f"{items:,}",
        _percent(row.get("human_win_rate")) if "human_win_rate" in row else "",
        _percent(row.get("judge_win_rate")) if "judge_win_rate" in row else "",
        "/".join(_share(row.get(f"coverage{suffix}")) for suffix in _KINDS),
        "/".join(_width(row.get(f"width{suffix}")) for suffix in _KINDS),
    ]
