"""What ``meta-eval --cascade`` prints: each judge's threshold and share, then the cascade's numbers."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from faceteval._cli._console import Console, escape

console = Console(highlight=False, soft_wrap=True, emoji=False)


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def show_cascade(summary: dict[str, Any]) -> None:
    """The cascade's compact table, when the summary has one."""
    block = summary.get("cascade")
    if not isinstance(block, dict):
        return
    title = (
        f"cascade: agreement >= {block.get('target_agreement')} with probability >= "
        f"{1 - float(block.get('delta', 0)):.2f}, {block.get('confidence')} confidence, "
        f"{block.get('splits')} splits of {block.get('calibration_size')} / {block.get('test_size')}"
    )
    table = Table(title=escape(title), title_justify="left")
    table.add_column("judge", overflow="fold")
    for column in ("median threshold", "splits without", "share of kept", "of all"):
        table.add_column(column, justify="right")
    for judge in block.get("judges", []):
        threshold = judge.get("threshold")
        table.add_row(
            escape(str(judge.get("judge"))),
            "none" if threshold is None else f"{threshold:.3f}",
            f"{judge.get('no_threshold', 0):,}",
            _percent(judge.get("share_decided")),
            _percent(judge.get("coverage")),
        )
    console.print(table)
    cost = block.get("relative_cost")
    console.print(
        f"Coverage {_percent(block.get('coverage'))}, agreement on kept {_percent(block.get('agreement'))} "
        f"(means over splits); violation rate {_percent(block.get('violation_rate'))} "
        f"(delta {_percent(block.get('delta'))}); cost relative to the last judge alone "
        f"{'n/a' if cost is None else f'{cost:.2f}'} ({escape(str(block.get('cost_basis')))})"
    )
