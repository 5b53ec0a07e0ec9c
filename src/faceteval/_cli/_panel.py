"""Judge panels on the command line: ``--model`` repeated (or ``--panel a,b,c``) and ``--panel-vote``.

Each judge is a model spec, optionally with its own endpoint after an ``@``: ``openai:qwen@http://
127.0.0.1:8001/v1``. A judge without one uses ``--base-url`` (or ``OPENAI_BASE_URL``). One model is
a run as before; two or more are a panel (`faceteval.llm.Panel`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

import click

from faceteval.aggregation import DEFAULT_PANEL_VOTE, PANEL_VOTES

F = TypeVar("F", bound=Callable[..., Any])
JudgeSpec = tuple[str, str | None]
"""A judge's model spec and its own endpoint (None: the run's ``--base-url``)."""

_ENDPOINT = re.compile(r"@(?=https?://)")
"""Where a judge's endpoint begins: an ``@`` before ``http://`` or ``https://`` (a model's own name
may hold an ``@``, never one followed by a URL)."""

panel_vote_option = click.option(
    "--panel-vote",
    type=click.Choice(PANEL_VOTES),
    default=DEFAULT_PANEL_VOTE,
    show_default=True,
    help="How a judge panel's verdicts are combined: the verdict most judges gave (no single one: a "
    "tie), or the mean / median of their scores (verdict-only judges: of their votes).",
)
"""``--panel-vote``: how a panel's judges are combined."""


def panel_options(command: F) -> F:
    """Add ``--panel`` and ``--panel-vote`` to a command (``--model`` is repeatable on it)."""
    command = panel_vote_option(command)
    return click.option(
        "--panel",
        metavar="MODEL,MODEL[,...]",
        help="A judge panel: every stage runs once per model, and the verdicts are combined "
        "(--panel-vote). The same as repeating --model.",
    )(command)


def panel_flags(ctx: click.Context, flags: dict[str, Any]) -> dict[str, Any]:
    """The engine flags with the judges resolved: ``judges`` every judge (spec, endpoint), ``model``
    and ``base_url`` the first judge's (`build_request` makes a panel of two or more).

    Raises:
        click.UsageError: Both --model and --panel are typed, or a judge is named twice.
    """
    models = [str(model) for model in flags.get("model") or ()]
    if flags.get("panel"):
        typed = ctx.get_parameter_source("model") is click.core.ParameterSource.COMMANDLINE
        if models and typed:
            raise click.UsageError("give the judges with --model (repeated) or with --panel, not both")
        models = [part.strip() for part in str(flags["panel"]).split(",") if part.strip()]
    judges = [split_endpoint(model) for model in models]
    if len(set(judges)) < len(judges):
        raise click.UsageError(f"a panel names each judge once, got {', '.join(models)}")
    if not judges:
        return flags | {"model": None, "judges": []}
    spec, endpoint = judges[0]
    return flags | {"model": spec, "base_url": endpoint or flags.get("base_url"), "judges": judges}


def split_endpoint(model: str) -> JudgeSpec:
    """A judge's spec and endpoint.

    Examples:
        >>> split_endpoint("openai:qwen@http://127.0.0.1:8001/v1")
        ('openai:qwen', 'http://127.0.0.1:8001/v1')
        >>> split_endpoint("ollama:qwen2.5:7b")
        ('ollama:qwen2.5:7b', None)
    """
    spec, *endpoint = _ENDPOINT.split(model, maxsplit=1)
    return spec, (endpoint[0] if endpoint else None)
