"""Judging one instance with a judge panel: the whole method once per judge, then the vote."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from functools import partial

from faceteval.aggregation import combine_panel
from faceteval.core import Instance, Judgment, TraceEntry
from faceteval.core.internal import PLANNED
from faceteval.llm import LLM, Panel
from faceteval.methods import QueryMemo, gather

JudgeOne = Callable[[LLM, QueryMemo], Awaitable[tuple[Judgment, list[TraceEntry]]]]
"""Judging the instance with one judge and its memo: its judgment and every exchange behind it."""


def panel_memos(panel: Panel, size: int) -> list[QueryMemo]:
    """One memo of facets and weights per judge: a judge never reuses another's."""
    return [QueryMemo(size) for _ in panel.judges]


async def judge_with_panel(
    instance: Instance, panel: Panel, memos: Sequence[QueryMemo], judge_one: JudgeOne
) -> tuple[Judgment, list[TraceEntry]]:
    """Judge ``instance`` with every judge of ``panel`` at once (``judge_one``), then combine their
    judgments.

    The combined judgment keeps each judge's result in ``panel`` and its exchanges in ``trace``
    (each names its model); its usage is the judges' summed. A dry run's judgment is a plan, as
    with one judge.
    """
    runs = await gather(
        [partial(judge_one, judge, memo) for judge, memo in zip(panel.judges, memos, strict=True)]
    )
    judgments = [judgment for judgment, _ in runs]
    trace = [entry for _, entries in runs for entry in entries]
    combined = combine_panel(panel.names, judgments, panel.vote, candidates=instance.n_candidates)
    if any(judgment.error == PLANNED for judgment in judgments):
        combined = combined.model_copy(update={"status": "error", "error": PLANNED})
    return combined, trace
