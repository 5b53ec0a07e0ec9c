"""Which judge a run is, for a calibrated threshold (`faceteval.results.JudgeIdentity`): a run about to
judge, and a run already written (its record)."""

from __future__ import annotations

from collections.abc import Iterable

from faceteval._runner._file import recorded_templates
from faceteval._runner._options import JudgeOptions, calibration_of, scoring_options
from faceteval.core import SIGNALS, Judgment
from faceteval.errors import ConfigError
from faceteval.llm import Judge
from faceteval.methods import Method
from faceteval.results import JudgeIdentity
from faceteval.store import RunRecord

IDENTITY_OPTIONS = (
    "swap",
    "score_mode",
    "top_logprobs",
    "annotators",
    "shots_per_annotator",
    "shots_seed",
    "shots_sha256",
)
"""What of a run's options a calibrated threshold holds for: they change its verdicts and confidences
(simulated annotators' K, M and examples among them)."""


def run_identity(method: Method, llm: Judge, options: JudgeOptions) -> JudgeIdentity:
    """The judge a run of ``method`` by ``llm`` with ``options`` is (its estimator ``options.confidence``)."""
    record_options = {"swap": options.swap} | scoring_options(options)
    description = method.describe()
    return JudgeIdentity(
        model=str(llm.describe()["model"]),
        method=str(description.get("name", method.name)),
        params=dict(description.get("params") or {}),
        options={name: record_options[name] for name in IDENTITY_OPTIONS if name in record_options},
        prompts=recorded_templates(method, llm, options)["prompts"],
        estimator=options.confidence,
    )


def record_identity(record: RunRecord | None, judgments: Iterable[Judgment], *, source: str) -> JudgeIdentity:
    """The judge whose run wrote ``judgments`` (its record ``record``; none for a recorded judge's).

    The estimator is the one the record's options name, else the judgments' (``signals`` for those
    that name none; a judgment without a confidence names none that counts); a recorded judge (no
    LLM in its record) is ``recorded:<name>``, its judgments' method.

    Raises:
        ConfigError: The judgments' confidences come from different estimators.
    """
    judgments = list(judgments)
    recorded = None if record is None else record.options.get("confidence")
    estimators = {
        judgment.confidence_estimator or SIGNALS
        for judgment in judgments
        if judgment.status == "ok" and judgment.confidence is not None
    }
    if isinstance(recorded, str):
        estimators = {recorded}
    if len(estimators) > 1:
        several = ", ".join(sorted(estimators))
        raise ConfigError(f"{source}: its confidences come from several estimators ({several})")
    estimator = estimators.pop() if estimators else SIGNALS
    methods = {judgment.method for judgment in judgments}
    if record is None or record.llm is None or record.method is None:
        name = methods.pop() if len(methods) == 1 else "unknown"
        return JudgeIdentity(model=name, method=name, estimator=estimator)
    options = {name: record.options[name] for name in IDENTITY_OPTIONS if name in record.options}
    return JudgeIdentity(
        model=record.llm.model,
        method=record.method.name,
        params=dict(record.method.params),
        options=options,
        prompts=dict(record.prompts),
        estimator=estimator,
    )


def check_calibration(method: Method, llm: Judge, options: JudgeOptions) -> None:
    """Refuse, before any call, a calibration made for another judge than this run's.

    Raises:
        ConfigError: Naming the calibration file and each difference.
    """
    calibration = calibration_of(options)
    if calibration is None:
        return
    ours = run_identity(method, llm, options)
    calibration.check_judge(ours, source=options.calibration_source or "the calibration")
