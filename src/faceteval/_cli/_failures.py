"""``--max-failures``: how many judgments that are not ok a run tolerates before it exits non-zero."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import click

from faceteval._cli._console import err_console
from faceteval._util.text import plural

FAILURES_EXIT = 6
"""The exit status of a run with more failed judgments (``parse_error``, ``error``) than it tolerates."""
FAILED_STATUSES = ("parse_error", "error")
"""The statuses of judgments that failed (an abstention is a verdict withheld on purpose: not one)."""


@dataclass(frozen=True, slots=True)
class MaxFailures:
    """A tolerance of failed judgments: at most ``count`` of them, or at most ``percent`` of the run's.

    Examples:
        >>> MaxFailures.parse("10%").allows(failed=1, judged=10), MaxFailures.parse("0").allows(1, 10)
        (True, False)
    """

    count: int | None = None
    percent: float | None = None

    @classmethod
    def parse(cls, text: str) -> MaxFailures:
        """``N`` (a number of judgments) or ``P%`` (a share of them, 0-100).

        Raises:
            ValueError: Neither, or out of range.
        """
        value = text.strip()
        if value.endswith("%"):
            percent = float(value[:-1])
            if not math.isfinite(percent) or not 0 <= percent <= 100:
                raise ValueError(f"{text!r}: a percentage is from 0% to 100%")
            return cls(percent=percent)
        count = int(value)
        if count < 0:
            raise ValueError(f"{text!r}: a number of judgments is 0 or more")
        return cls(count=count)

    def allows(self, failed: int, judged: int) -> bool:
        """Whether ``failed`` of ``judged`` judgments are within the tolerance."""
        if self.percent is not None:
            return failed <= self.percent / 100 * judged
        return failed <= (self.count or 0)

    def __str__(self) -> str:
        return f"{self.percent:g}%" if self.percent is not None else str(self.count or 0)


NO_FAILURES = MaxFailures(count=0)


def _max_failures(ctx: click.Context, param: click.Parameter, value: str | None) -> MaxFailures:
    if value is None:
        return NO_FAILURES
    try:
        return MaxFailures.parse(value)
    except ValueError as exc:
        raise click.BadParameter(f"{value!r}: give a number of judgments (3) or a share (5%)") from exc


max_failures_option = click.option(
    "--max-failures",
    "max_failures",
    callback=_max_failures,
    metavar="N|P%",
    help=f"Failed judgments (parse errors, errors) tolerated before the command exits with status "
    f"{FAILURES_EXIT}: a number (3) or a share of the judgments (5%). Default: none.",
)


def failed_count(statuses: Mapping[str, int]) -> int:
    """The failed judgments among ``statuses`` (counts by status)."""
    return sum(statuses.get(status, 0) for status in FAILED_STATUSES)


def too_many_failures(statuses: Mapping[str, int], tolerance: MaxFailures) -> bool:
    """Say so, and return True, when ``statuses`` hold more failed judgments than ``tolerance`` allows."""
    failed, judged = failed_count(statuses), sum(statuses.values())
    if tolerance.allows(failed, judged):
        return False
    kinds = ", ".join(
        f"{statuses[status]:,} {status}" for status in FAILED_STATUSES if statuses.get(status, 0)
    )
    allowed = "none" if tolerance == NO_FAILURES else str(tolerance)
    err_console.print(
        f"[bold red]error:[/] {failed:,} of {plural(judged, 'judgment')} failed ({kinds}); "
        f"--max-failures allows {allowed} (exit status {FAILURES_EXIT})"
    )
    return True
