"""The ``strategies`` confidence: how many of one model's recorded prompting strategies agree.

An offline stand-in for Simulated Annotators (Jung, Brahman and Choi, "Trust or Escalate", ICLR 2025),
which asks one model K times with different few-shot prompts and takes the share agreeing as the
confidence. Where a benchmark records one model judging under several prompting strategies (LLMBar's
``recorded:llmbar/<model>/<strategy>``: 13 to 15 per model), those are its family: the recorded
judges whose name differs only after the last ``/``.

Each strategy's judgment of an instance casts one vote per presentation order it records (both
orders, where recorded), else one vote with its verdict. A verdict's confidence is the share of the
family's votes on that instance that are that verdict (a tie verdict: the votes for a tie). A vote
without a verdict (an unreadable order, a failed judgment) agrees with nothing and counts against;
a strategy with no judgment of the instance casts no vote. The judge's own strategy is one of the
family.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from faceteval.core import SIGNALS, STRATEGIES, Judgment
from faceteval.datasets import RecordedSource
from faceteval.errors import FacetevalError
from faceteval.metaeval._judgments import RECORDED, JudgmentSource
from faceteval.metaeval._target import Target

CONFIDENCE_CHOICES = (SIGNALS, STRATEGIES)
"""What ``--confidence`` takes."""


def strategy_family(name: str, target: Target, data_dir: Path) -> list[RecordedSource]:
    """The recorded judges of ``target`` that are the same model as ``name`` under other prompting
    strategies (``name`` among them): those whose name differs from its only after the last ``/``.

    Raises:
        FacetevalError: ``name`` is not a recorded judge of a benchmark, or has no other strategy
            recorded (the error names the judges that have a family).
    """
    recorded = name.removeprefix(RECORDED)
    if not name.startswith(RECORDED) or target.benchmark is None:
        raise FacetevalError(
            f"--confidence strategies: {name} is not a recorded judge of a built-in benchmark; the "
            "strategies confidence counts the recorded prompting strategies of one model"
        )
    sources = target.benchmark.recorded_sources(data_dir)
    prefix = recorded.rpartition("/")[0]
    family = [s for s in sources if prefix and s.name.rpartition("/")[0] == prefix]
    if len(family) < 2:
        with_family = sorted({s.name.rpartition("/")[0] for s in sources if "/" in s.name})
        hint = (
            f"; judges with several strategies on {target.name}: {', '.join(with_family)}"
            if with_family
            else f"; no judge of {target.name} is recorded under several prompting strategies"
        )
        raise FacetevalError(
            f"--confidence strategies: {name} has no other prompting strategy recorded on "
            f"{target.name}{hint}. Use --confidence signals"
        )
    return family


def strategy_confidences(
    judgments: Iterable[Judgment], family: Sequence[Iterable[Judgment]]
) -> list[Judgment]:
    """``judgments`` with each ok verdict's confidence the share of ``family``'s votes that are it
    (see the module's docstring), and ``confidence_estimator`` ``strategies``; a judgment without a
    verdict keeps no confidence.

    Examples:
        >>> one = Judgment(id="1", method="m", status="ok", verdict=1)
        >>> other = Judgment(id="1", method="m", status="ok", verdict=2)
        >>> [(j.confidence, j.confidence_estimator) for j in strategy_confidences([one], [[one], [other]])]
        [(0.5, 'strategies')]
    """
    votes: dict[str, Counter[int | None]] = {}
    for strategy in family:
        for judgment in strategy:
            votes.setdefault(judgment.id, Counter()).update(_votes(judgment))
    made = []
    for judgment in judgments:
        cast = votes.get(judgment.id)
        if judgment.status != "ok" or judgment.verdict is None or not cast:
            update: dict[str, object] = {"confidence": None, "confidence_estimator": None}
        else:
            share = round(cast[judgment.verdict] / cast.total(), 9)
            update = {"confidence": share, "confidence_estimator": STRATEGIES}
        made.append(judgment.model_copy(update=update))
    return made


def _votes(judgment: Judgment) -> list[int | None]:
    """One vote per order recorded, else the verdict (None: a vote for nothing)."""
    if judgment.orders:
        return [order.verdict for order in judgment.orders]
    return [judgment.verdict if judgment.status == "ok" else None]


def with_confidence(source: JudgmentSource, estimator: str, target: Target, data_dir: Path) -> JudgmentSource:
    """``source`` with its judgments' confidence from ``estimator`` (`CONFIDENCE_CHOICES`): as they
    are for ``signals``; for ``strategies``, from its model's recorded strategies (`strategy_family`).

    Raises:
        FacetevalError: ``strategies`` for a panel, or for a judge without a family of strategies.
    """
    if estimator == SIGNALS:
        return source
    if estimator != STRATEGIES:
        raise FacetevalError(f"--confidence {estimator!r}: expected one of {', '.join(CONFIDENCE_CHOICES)}")
    if source.judges:
        raise FacetevalError(
            "--confidence strategies re-estimates one recorded judge's confidence, not a panel's: "
            "give one judge, or several with --cascade"
        )
    family = strategy_family(source.name, target, data_dir)
    judged = strategy_confidences(source.judgments, [member.load(data_dir) for member in family])
    return JudgmentSource(source.name, tuple(judged), source.recorded, source.reported, source.judges)
