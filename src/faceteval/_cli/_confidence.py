"""The ``--confidence`` flags of the commands that judge: what estimates each judgment's confidence,
and the simulated annotators' ``--annotators``, ``--shots`` and ``--shots-per-annotator``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from faceteval._runner import CONFIDENCE_CHOICES, Annotators
from faceteval.core import SIGNALS, SIMULATED_ANNOTATORS, STRATEGIES, VERDICT_LOGPROBS
from faceteval.errors import ConfigError, InputError

F = TypeVar("F", bound=Callable[..., Any])


def confidence_options(command: F) -> F:
    """Add ``--confidence``, ``--annotators``, ``--shots`` and ``--shots-per-annotator`` (``judge``)."""
    return _confidence_options(command, recorded=False)


def measured_confidence_options(command: F) -> F:
    """The same for ``meta-eval``: ``--confidence`` also takes ``strategies``, for recorded judgments."""
    return _confidence_options(command, recorded=True)


def _confidence_options(command: F, *, recorded: bool) -> F:
    command = click.option(
        "--shots-per-annotator",
        type=click.IntRange(min=1),
        default=None,
        help="With --confidence simulated-annotators: labelled examples each annotator is shown "
        "[default: 2].",
    )(command)
    command = click.option(
        "--shots",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="With --confidence simulated-annotators: a file of labelled instances (any input format) "
        "the examples are drawn from; default: the run's own labelled instances, never the one judged.",
    )(command)
    command = click.option(
        "--annotators",
        type=click.IntRange(min=1),
        default=None,
        help="With --confidence simulated-annotators: how many few-shot variants of the judge vote "
        "[default: 3].",
    )(command)
    strategies = (
        " With --judgments (recorded judges): signals, or strategies (the share of the same model's "
        "recorded prompting strategies agreeing, both orders' votes)."
        if recorded
        else ""
    )
    return click.option(
        "--confidence",
        type=click.Choice((*CONFIDENCE_CHOICES, STRATEGIES) if recorded else CONFIDENCE_CHOICES),
        default=SIGNALS,
        show_default=True,
        help="What estimates each verdict's confidence: signals (margin, facet, order, panel agreement), "
        "verdict-logprobs (the verdict's probability from the scores' log-probabilities; with "
        "--score-mode logprobs), or simulated-annotators (the share of --annotators few-shot variants of "
        "the judge agreeing with their majority verdict, which becomes the verdict)." + strategies,
    )(command)


def annotators_of(flags: dict[str, Any]) -> Annotators | None:
    """The simulated annotators the flags ask for; None unless ``--confidence simulated-annotators``.

    Raises:
        click.UsageError: Annotator flags without that estimator, ``verdict-logprobs`` without
            ``--score-mode logprobs``, or examples that cannot be used (a missing file, a record
            without a label: named by file, line and field).
    """
    if flags.get("confidence") == VERDICT_LOGPROBS and flags.get("score_mode", "parse") != "logprobs":
        raise click.UsageError(
            "--confidence verdict-logprobs reads the scores' log-probabilities: add --score-mode logprobs"
        )
    given = {
        name: value
        for name, value in (
            ("k", flags.get("annotators")),
            ("shots", flags.get("shots")),
            ("per_annotator", flags.get("shots_per_annotator")),
        )
        if value is not None
    }
    if flags.get("confidence", SIGNALS) != SIMULATED_ANNOTATORS:
        if given:
            raise click.UsageError(
                "--annotators, --shots and --shots-per-annotator are used with "
                "--confidence simulated-annotators"
            )
        return None
    try:
        return Annotators(**given)
    except (ConfigError, InputError) as exc:
        raise click.UsageError(str(exc)) from None
