"""How a score was obtained: read from the reply's text, or as the expected score of its tokens."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from faceteval.core._judgment import Judgment

ScoreMode = Literal["logprobs", "parse"]
"""How a score was obtained: ``logprobs`` (the probability-weighted mean of the score tokens),
``parse`` (the number written in the reply)."""
RecordedMode = Literal["logprobs", "parse", "mixed"]
"""A score's mode as a judgment records it: ``mixed`` when swapped orders obtained it differently."""


class ScoreSource(BaseModel):
    """One score of one reply, and how it was obtained (a trace entry's ``scoring``).

    Examples:
        >>> ScoreSource(mode="logprobs", written=8, score=7.8, distribution=[(7, 0.2), (8, 0.8)]).score
        7.8
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    mode: ScoreMode
    written: float
    """The score as written in the reply (what parsing reads)."""
    score: float
    """The score used: the expected score with ``logprobs``, else ``written``."""
    distribution: list[tuple[float, float]] | None = None
    """With ``logprobs``: each score value on the scale found among the top log-probabilities at the
    score's token(s), with its probability renormalised over them (they sum to 1)."""
    reason: str | None = None
    """With ``parse`` in a run that asked for log-probabilities: why they could not be used."""


def unset(value: object) -> bool:
    """Whether an optional field of the score modes is unset (None): it is then left out of the JSON,
    so that a judgment made without ``--score-mode logprobs`` is written exactly as before."""
    return value is None


def recorded_modes(sources: Sequence[ScoreSource | None] | None) -> list[RecordedMode | None] | None:
    """The modes a judgment records for ``sources`` (one per candidate); None when none was asked for.

    Examples:
        >>> recorded_modes([ScoreSource(mode="parse", written=8, score=8), None])
        ['parse', None]
        >>> recorded_modes(None) is None
        True
    """
    if sources is None or all(source is None for source in sources):
        return None
    return [None if source is None else source.mode for source in sources]


def merged_modes(
    per_order: Sequence[Sequence[RecordedMode | None] | None],
) -> list[RecordedMode | None] | None:
    """One mode per candidate over several orders: theirs when they agree, else ``mixed``.

    Examples:
        >>> merged_modes([["logprobs", "parse"], ["logprobs", "logprobs"]])
        ['logprobs', 'mixed']
    """
    known = [modes for modes in per_order if modes is not None]
    if not known:
        return None
    merged: list[RecordedMode | None] = []
    for m in range(len(known[0])):
        seen = {modes[m] for modes in known}
        merged.append(seen.pop() if len(seen) == 1 else "mixed")
    return merged


def mode_counts(judgments: Iterable[Judgment | None]) -> dict[str, int]:
    """How many scores of ``judgments`` each mode gave (facet scores, and overall scores one call gave);
    empty unless the judgments were made with ``--score-mode logprobs``."""
    counts: Counter[str] = Counter()
    for judgment in judgments:
        if judgment is None:
            continue
        for modes in [facet.score_modes for facet in judgment.facets] + [judgment.score_modes]:
            counts.update(mode for mode in modes or () if mode is not None)
    return dict(counts)
