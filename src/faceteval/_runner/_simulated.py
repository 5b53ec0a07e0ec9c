"""Judging one instance with simulated annotators: the method once per few-shot variant, then the vote
(`faceteval._runner._annotators`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import partial

from faceteval._runner._annotators import Annotators, examples_for, examples_text
from faceteval._runner._instance import judge_instance
from faceteval._runner._options import JudgeOptions
from faceteval.aggregation import combine_panel
from faceteval.core import SIMULATED_ANNOTATORS, Instance, Judgment, TraceEntry
from faceteval.core.internal import PLANNED, UNJUDGEABLE
from faceteval.errors import ConfigError, InputError, InstanceError
from faceteval.llm import LLM
from faceteval.methods import Method, QueryMemo, gather
from faceteval.prompts import Prompts


def annotator_names(k: int) -> list[str]:
    """How a judgment's ``panel`` names the variants: ``annotator-1`` ... ``annotator-K``."""
    return [f"annotator-{i}" for i in range(1, k + 1)]


def shots_pool(annotators: Annotators, items: Iterable[Instance | InputError]) -> tuple[Instance, ...]:
    """The examples the variants draw from: ``annotators``' own, else the labelled ones of ``items``
    (the run's instances).

    Raises:
        ConfigError: The run has too few labelled instances to draw each one's examples from the others.
    """
    if annotators.pool is not None:
        return annotators.pool
    pool = tuple(item for item in items if isinstance(item, Instance) and item.label is not None)
    if len(pool) <= annotators.per_annotator:
        raise ConfigError(
            f"simulated annotators draw {annotators.per_annotator} example(s) per annotator from the run's "
            f"other labelled instances, and it has {len(pool)} labelled: give examples with --shots FILE "
            "or a smaller --shots-per-annotator"
        )
    return pool


async def judge_with_annotators(
    instance: Instance,
    method: Method,
    llm: LLM,
    memo: QueryMemo,
    options: JudgeOptions,
    prompts: Prompts,
    pool: Sequence[Instance],
) -> tuple[Judgment, list[TraceEntry]]:
    """Judge ``instance`` with each simulated annotator at once, then take their majority.

    The judgment keeps each variant's result in ``panel`` (``annotator-1`` ...) and every exchange in
    ``trace``; its usage is the variants' summed, its confidence the share of them agreeing with the
    majority verdict (`faceteval.core.SIMULATED_ANNOTATORS`).
    """
    annotators = options.annotators
    assert annotators is not None
    try:
        drawn = examples_for(instance, pool, annotators)
    except InstanceError as exc:
        failed = Judgment(id=instance.id, method=method.name, status="error", error=f"{UNJUDGEABLE}{exc}")
        return failed.model_copy(update={"input_hash": instance.content_hash()}), []
    runs = await gather(
        [
            partial(
                judge_instance, instance, method, llm, memo, options, prompts, examples_text(shots, prompts)
            )
            for shots in drawn
        ]
    )
    trace = [entry for _, entries in runs for entry in entries]
    return _voted(instance, [judgment for judgment, _ in runs], annotators.k), trace


def _voted(instance: Instance, judgments: list[Judgment], k: int) -> Judgment:
    """The variants' judgments combined: their majority, and the share agreeing with it."""
    combined = combine_panel(annotator_names(k), judgments, "majority", candidates=instance.n_candidates)
    if any(judgment.error == PLANNED for judgment in judgments):  # a dry run's: a plan
        return combined.model_copy(update={"status": "error", "error": PLANNED})
    if combined.status != "ok" or combined.verdict is None:
        return combined
    agreeing = sum(member.verdict == combined.verdict for member in combined.panel)
    share = round(agreeing / len(combined.panel), 9)
    return combined.model_copy(update={"confidence": share, "confidence_estimator": SIMULATED_ANNOTATORS})
