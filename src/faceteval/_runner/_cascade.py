"""A cascade of judges (Trust or Escalate): each judge in turn, with its own calibrated threshold;
only what it abstains on goes to the next.

For each judge, in order: it judges the calibration instances that no earlier judge decided, and its
threshold is calibrated on them (`faceteval.results.calibrate_threshold`: with probability at least
``1 - delta``, agreement with humans on the verdicts it keeps is at least ``target_agreement``); then
it judges the instances still undecided with that threshold (``JudgeOptions.calibration``): the
verdicts it keeps are decided (``Judgment.decided_by`` names it), the rest go on. A judgment that
failed (a parse error, a provider's error) goes on too, as an abstention does; an input line that is
not an instance, or an instance the method cannot judge, does not (no judge can). What the last judge
abstains on stays ``abstained``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import anyio

from faceteval._runner._calibration import run_identity
from faceteval._runner._file import RunHooks
from faceteval._runner._job import SYNC, JobHooks, JobOutputs, JudgeJob, Mode
from faceteval._runner._options import DEFAULT_JUDGE_OPTIONS, JudgeOptions
from faceteval._runner._run_job import run_job_async
from faceteval.core import Instance, Judgment, Usage
from faceteval.core.internal import failure_kind
from faceteval.errors import ConfigError, InputError
from faceteval.llm import Judge
from faceteval.methods import Method
from faceteval.results import CalibratedThreshold, calibrate_threshold


@dataclass(frozen=True, slots=True)
class CascadeStage:
    """What one judge of a cascade did.

    Attributes:
        judge: Its model (``provider:model``).
        calibration: Its threshold, calibrated on the calibration instances it was given.
        calibration_judged: Calibration instances it judged (those no earlier judge decided).
        judged: Instances it judged (those no earlier judge decided).
        decided: Verdicts of them it kept.
        abstained: Those it abstained on (or failed): passed to the next judge, if any.
        usage: Its calls, tokens and dollars, calibration included.
    """

    judge: str
    calibration: CalibratedThreshold
    calibration_judged: int
    judged: int
    decided: int
    abstained: int
    usage: Usage

    def as_dict(self) -> dict[str, Any]:
        """The stage as a run record's ``options.cascade.stages`` hold it."""
        return {
            "judge": self.judge,
            "threshold": self.calibration.threshold,
            "calibration_judged": self.calibration_judged,
            "calibration_kept": self.calibration.kept,
            "calibration_agreement": self.calibration.agreement,
            "judged": self.judged,
            "decided": self.decided,
            "abstained": self.abstained,
            "calls": self.usage.calls,
            "cached_calls": self.usage.cached_calls,
            "input_tokens": self.usage.input_tokens,
            "output_tokens": self.usage.output_tokens,
            "cost_usd": self.usage.cost_usd,
            "curve": list(self.calibration.curve),
        }


@dataclass(frozen=True, slots=True)
class CascadeResult:
    """A cascade's judgments (one per instance, in input order) and what each judge did."""

    judgments: list[Judgment]
    stages: list[CascadeStage]
    target_agreement: float
    delta: float

    @property
    def decided(self) -> int:
        return sum(stage.decided for stage in self.stages)

    def as_dict(self) -> dict[str, Any]:
        """The cascade as the run record's ``options.cascade`` holds it."""
        return {
            "target_agreement": self.target_agreement,
            "delta": self.delta,
            "judges": [stage.judge for stage in self.stages],
            "stages": [stage.as_dict() for stage in self.stages],
        }


async def cascade_async(
    instances: Sequence[Instance | InputError],
    calibration_set: Sequence[Instance],
    method: Method,
    judges: Sequence[Judge],
    *,
    target_agreement: float,
    delta: float,
    options: JudgeOptions = DEFAULT_JUDGE_OPTIONS,
    mode: Mode = SYNC,
    min_kept: int = 1,
    source: str = "the calibration set",
) -> CascadeResult:
    """Judge ``instances`` with the cascade of ``judges`` (cheapest first), each calibrated on the
    labelled ``calibration_set`` (see the module's docstring). ``options`` apply to every judge
    (their ``calibration`` must be unset: the cascade calibrates each judge itself); in a `BatchMode`
    ``mode`` each judge's calls go through its provider's batch API.

    Raises:
        ConfigError: No judge, a calibration given, or no labelled calibration instance.
    """
    if not judges:
        raise ConfigError("a cascade needs one judge at least")
    if options.calibration is not None:
        raise ConfigError(
            "a cascade calibrates each of its judges: give a calibration set, not a calibration"
        )
    labels = {instance.id: instance.label for instance in calibration_set if instance.label is not None}
    if not labels:
        raise ConfigError(f"{source}: no instance in it has a human label to calibrate on")
    decided: dict[int, Judgment] = {}
    pending = list(enumerate(instances))
    calibrating = [instance for instance in calibration_set if instance.id in labels]
    stages = []
    settings = _Settings(method, options, mode, target_agreement, delta, min_kept, source)
    for number, llm in enumerate(judges, 1):
        items = [item for _, item in pending]
        stage, calibrating, judged = await _stage(number, llm, calibrating, items, labels, settings)
        stages.append(stage)
        last = number == len(judges)
        still = []
        for (position, item), judgment in zip(pending, judged, strict=True):
            if last or not _escalates(judgment):
                decided[position] = judgment
            else:
                still.append((position, item))
        pending = still
        if not pending:
            break
    ordered = [decided[position] for position in range(len(instances))]
    return CascadeResult(ordered, stages, target_agreement, delta)


def cascade(
    instances: Sequence[Instance | InputError],
    calibration_set: Sequence[Instance],
    method: Method,
    judges: Sequence[Judge],
    *,
    target_agreement: float,
    delta: float,
    options: JudgeOptions = DEFAULT_JUDGE_OPTIONS,
    mode: Mode = SYNC,
    min_kept: int = 1,
) -> CascadeResult:
    """Blocking form of `cascade_async` (its own event loop; the judges' connections are closed
    before it returns)."""

    async def run() -> CascadeResult:
        try:
            return await cascade_async(
                instances, calibration_set, method, judges, target_agreement=target_agreement, delta=delta,
                options=options, mode=mode, min_kept=min_kept,
            )  # fmt: skip
        finally:
            for llm in judges:
                await llm.aclose()

    return anyio.run(run)


@dataclass(frozen=True, slots=True)
class _Settings:
    """What every stage of a cascade shares."""

    method: Method
    options: JudgeOptions
    mode: Mode
    target_agreement: float
    delta: float
    min_kept: int
    source: str


async def _stage(
    number: int,
    llm: Judge,
    calibrating: list[Instance],
    items: list[Instance | InputError],
    labels: dict[str, int],
    settings: _Settings,
) -> tuple[CascadeStage, list[Instance], list[Judgment]]:
    """One judge's turn: calibrated on ``calibrating``, then judging ``items`` with its threshold.
    Returns what it did, the calibration instances it left undecided, and its judgments of ``items``."""
    name = str(llm.describe()["model"])
    method, options, mode = settings.method, settings.options, settings.mode
    found = await _judged(calibrating, method, llm, options, mode)
    calibration = calibrate_threshold(
        found, labels, judge=run_identity(method, llm, options), target_agreement=settings.target_agreement,
        delta=settings.delta, source=f"{settings.source} (judge {number}, {name})",
        min_kept=settings.min_kept,
    )  # fmt: skip
    kept = {j.id for j in found if calibration.keeps(j)}
    judged = await _judged(items, method, llm, replace(options, calibration=calibration), mode)
    judged = [judgment.model_copy(update={"decided_by": name}) for judgment in judged]
    ok, escalated = sum(j.status == "ok" for j in judged), sum(_escalates(j) for j in judged)
    usage = sum((j.usage for j in (*found, *judged)), Usage())
    stage = CascadeStage(name, calibration, len(found), len(judged), ok, escalated, usage)
    return stage, [instance for instance in calibrating if instance.id not in kept], judged


def _escalates(judgment: Judgment) -> bool:
    """Whether the next judge is asked: abstained, or failed as another judge may not."""
    return judgment.status == "abstained" or failure_kind(judgment) in ("parse_error", "error")


async def _judged(
    items: Sequence[Instance | InputError], method: Method, llm: Judge, options: JudgeOptions, mode: Mode
) -> list[Judgment]:
    """The judgments of ``items`` by ``llm``, in their order (an empty list for none), whatever order
    ``options`` hand judgments on in: the cascade pairs each judgment with its instance by position."""
    if not items:
        return []
    judgments: list[Judgment] = []
    ordered = replace(options, order="input")
    job = JudgeJob(list(items), method, llm, options=ordered, outputs=JobOutputs(progress=False), mode=mode)
    await run_job_async(job, hooks=JobHooks(run=RunHooks(judged=judgments.append)))
    return judgments
