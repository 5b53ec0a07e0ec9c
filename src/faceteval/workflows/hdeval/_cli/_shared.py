"""What the hdeval commands share: their console, choices, and how they decompose and score with the LLM."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import click

from faceteval._cli.kit import (
    Console,
    batch_first,
    build_job,
    cache_of,
    err_console,
    interrupted_note,
    open_llm,
    run_judge,
    show_invalid,
)
from faceteval._runner import templates_of
from faceteval._util.files import make_private_dirs
from faceteval._util.text import plural
from faceteval.datasets import read_judgments
from faceteval.errors import FacetevalError
from faceteval.methods.hdeval import DOMAINS, CriteriaTree, HierarchyAware
from faceteval.store.internal import check_outputs
from faceteval.workflows.hdeval._decompose import decompose_tree_async

if TYPE_CHECKING:
    from faceteval.errors import BatchIncomplete
    from faceteval.workflows.hdeval._train import NodeScores

console = Console(highlight=False, soft_wrap=True, emoji=False)

AGGREGATORS = ("lr", "dt", "rf", "mlp", "mean")
"""`faceteval.methods.hdeval.AGGREGATORS`, named here so the CLI starts without loading scikit-learn."""
EXPERIMENTS = ("ablations", "aggregators", "data", "criteria", "importance", "shap")
HDEVAL_EXCLUDED = ("--swap", "--trace", "--dry-run", "--criteria")
"""Engine flags that do not apply here: outputs are judged alone, with traces, by the tree's criteria."""


domain_option = click.option(
    "--domain",
    type=click.Choice(tuple(DOMAINS)),
    help="HD-Eval's wording of the prompts for this kind of task (Figures 10-13). Default: the "
    "benchmark's task type (summeval: summarization, topical-chat: dialogue, sfres/sfhot: data-to-text), "
    "else a generic wording that names the task.",
)
"""``--domain``: the evaluation domain of a new tree."""


def comma_names(text: str) -> list[str]:
    """The names in ``text``, comma-separated; a usage error when there are none."""
    found = [part.strip() for part in text.split(",") if part.strip()]
    if not found:
        raise click.BadParameter("give comma-separated names")
    return found


def decompose_with_llm(
    flags: dict[str, Any], tree: CriteriaTree, node_ids: Sequence[str], k: int
) -> CriteriaTree:
    """``node_ids`` of ``tree`` decomposed into about ``k`` children each, by the LLM the flags name."""
    method = HierarchyAware.from_tree(tree)
    request = build_job(engine_flags(flags), input_path=Path(), out=None, method=method)
    with ExitStack() as stack:
        llm = open_llm(request, stack, batched=True)
        work = partial(decompose_tree_async, tree, node_ids, k, llm, templates=templates_of(request.options))
        return anyio.run(llm.closing_after, batch_first(request, llm, None, lambda _: work(), work))[0]


def check_command_outputs(
    flags: dict[str, Any], targets: Sequence[tuple[Path, Any]], *, inputs: Sequence[Path]
) -> None:
    """Before any work: refuse outputs that would overwrite the inputs, the cache or files not ours."""
    check_outputs(targets, given=flags["out"], inputs=inputs, cache=cache_of(flags), force=flags["force"])


def engine_flags(flags: dict[str, Any]) -> dict[str, Any]:
    """The flags as the engine reads them: one order (outputs are judged alone), traces kept."""
    return flags | {"swap": False, "trace": True, "dry_run": False}


def score_criteria(
    flags: dict[str, Any],
    method: HierarchyAware,
    input_path: Path,
    out: Path,
    *,
    unanswered: list[BatchIncomplete] | None = None,
) -> NodeScores:
    """The instances of ``input_path`` scored on the method's criteria (judgments written to ``out``).

    With ``--batch``, requests the rounds gave up on make their judgments errors: the error saying so
    (`faceteval.errors.BatchIncomplete`) is raised once they are written, or put in ``unanswered`` for
    a caller that writes what it can before raising it.
    """
    from faceteval.workflows.hdeval._features import scores_from_judgments

    make_private_dirs(out.parent)
    request = build_job(engine_flags(flags), input_path=input_path, out=out, method=method)
    result = run_judge(request, on_invalid=show_invalid)
    if result.stopped is not None:
        raise result.stopped
    if result.interrupted:
        err_console.print(interrupted_note(request))
        raise click.exceptions.Exit(130)
    incomplete = None if result.batch is None else result.batch.incomplete()
    if incomplete is not None:
        if unanswered is None or result.kept:  # an evaluator learned without them is not the one asked for
            raise incomplete
        unanswered.append(incomplete)
    if result.kept:  # ``out`` holds an earlier run's judgments, not this one's: none of them is scored
        failed = result.stats.errors.most_common(1)
        why = f": {failed[0][0]}" if failed else ""
        raise FacetevalError(
            f"no output's criteria could be scored ({plural(result.stats.judged, 'failure')}{why}); "
            "nothing was written"
        )
    return scores_from_judgments(read_judgments(out), [criterion.id for criterion in method.criteria or ()])
