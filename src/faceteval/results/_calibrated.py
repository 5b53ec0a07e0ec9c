"""A confidence threshold with a guarantee (``faceteval calibrate``), and verdicts kept or abstained by it.

`calibrate_threshold` chooses the threshold on labelled judgments by fixed-sequence testing
(`faceteval.metrics.fixed_sequence_threshold`): with probability at least ``1 - delta`` over the
calibration data, agreement with humans on the verdicts whose confidence reaches it is at least
``target_agreement``, for new instances drawn as the calibration ones were and judged by the same judge.
The threshold is written with what it holds for: the judge (`JudgeIdentity`: model, method and its
parameters, the options and templates that change a verdict, the confidence estimator) and the hash of
the calibration data. `abstain` keeps a verdict whose confidence reaches the threshold and marks any
other ``abstained``: no verdict is guessed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from faceteval.core import Judgment
from faceteval.errors import ConfigError, InputError
from faceteval.metrics import fixed_sequence_threshold

CALIBRATION_KIND: Literal["faceteval-calibration"] = "faceteval-calibration"
CALIBRATION_SCHEMA = 1
MAX_CURVE = 100
"""Points of a calibration's coverage-agreement curve kept in its file and run records."""
MAX_CALIBRATION_BYTES = 4 * 1024 * 1024
"""A calibration file larger than this is refused unread (it holds a threshold and its tests)."""


class JudgeIdentity(BaseModel):
    """What a calibrated threshold holds for: a judge as its runs record it.

    Attributes:
        model: ``provider:model``; a panel's ``panel (vote): a, b``; a recorded judge's ``recorded:<name>``.
        method: The method's registry name (a recorded judge's: its name).
        params: The method's parameters (`Method.describe`).
        options: The run options that change a verdict or its confidence (``swap``, ``score_mode`` ...).
        prompts: Each template the judge renders, with its hash (a changed template is another judge).
        estimator: What estimates the confidence (`faceteval.core.CONFIDENCE_ESTIMATORS`).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    method: str
    params: dict[str, JsonValue] = Field(default_factory=dict)
    options: dict[str, JsonValue] = Field(default_factory=dict)
    prompts: dict[str, str] = Field(default_factory=dict)
    estimator: str

    def differences(self, other: JudgeIdentity) -> list[str]:
        """What differs between this judge and ``other``, each as ``field: ours != theirs``."""
        found = []
        for name in ("model", "method", "estimator"):
            if getattr(self, name) != getattr(other, name):
                found.append(f"{name}: {getattr(self, name)!r} != {getattr(other, name)!r}")
        for name in ("params", "options", "prompts"):
            ours, theirs = getattr(self, name), getattr(other, name)
            for key in sorted(set(ours) | set(theirs)):
                if ours.get(key) != theirs.get(key):
                    found.append(f"{name}.{key}: {ours.get(key)!r} != {theirs.get(key)!r}")
        return found


class CalibrationData(BaseModel):
    """The labelled judgments a threshold was calibrated on."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source: str
    """The run they came from, as given."""
    sha256: str
    """The hash of each labelled judgment's id, label, verdict and confidence, in id order."""
    n: int
    """Labelled judgments (failed ones included: they are never kept)."""


class CalibratedThreshold(BaseModel):
    """A confidence threshold chosen by fixed-sequence testing, and what it guarantees (a ``cal.json``).

    Attributes:
        threshold: Keep a verdict whose confidence is at least this; None: no threshold reached the
            target on the calibration data, so every verdict is abstained.
        target_agreement: The agreement with humans guaranteed on the verdicts kept.
        delta: The chance allowed that the guarantee does not hold.
        judge: The judge it holds for.
        data: The calibration data.
        kept: Calibration verdicts the threshold keeps.
        agreement: Their agreement with humans.
        lower_bound: Its Clopper-Pearson lower bound at level ``delta`` (at least the target when a
            threshold was found).
        tests: Each threshold tested, the highest first (``threshold``, ``kept``, ``agreeing``,
            ``lower_bound``, ``passed``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["faceteval-calibration"] = CALIBRATION_KIND
    schema_version: int = CALIBRATION_SCHEMA
    threshold: float | None
    target_agreement: float = Field(gt=0, le=1)
    delta: float = Field(gt=0, lt=1)
    judge: JudgeIdentity
    data: CalibrationData
    kept: int = Field(ge=0)
    agreement: float | None = None
    lower_bound: float = 0.0
    min_kept: int = 1
    tests: list[dict[str, JsonValue]] = Field(default_factory=list)
    curve: list[dict[str, JsonValue]] = Field(default_factory=list)
    """Coverage against agreement on the calibration data: at each distinct confidence (at most
    `MAX_CURVE` of them, evenly spaced), the share kept at or above it and their agreement."""
    made_at: str | None = None

    @property
    def coverage(self) -> float:
        """The share of the calibration verdicts kept."""
        return self.kept / self.data.n if self.data.n else 0.0

    def keeps(self, judgment: Judgment) -> bool:
        """Whether ``judgment``'s verdict is trusted: ok, with a confidence at the threshold or above."""
        if judgment.status != "ok" or self.threshold is None or judgment.confidence is None:
            return False
        return judgment.confidence >= self.threshold

    def guarantee(self) -> str:
        """The guarantee in a sentence, for results and reports."""
        if self.threshold is None:
            return (
                f"no confidence threshold reaches {self.target_agreement:.0%} agreement with humans at "
                f"delta {self.delta:g} on the {self.data.n:,} calibration verdicts: every verdict is "
                "abstained"
            )
        return (
            f"verdicts with {self.judge.estimator} confidence >= {self.threshold:.4g} agree with humans at "
            f"least {self.target_agreement:.0%} of the time, with probability >= {1 - self.delta:.0%} "
            f"(calibrated on {self.data.n:,} labelled verdicts, {self.kept:,} kept there)"
        )

    def check_judge(self, judge: JudgeIdentity, *, source: str) -> None:
        """Refuse a judge other than the one this threshold was calibrated for.

        Raises:
            ConfigError: Naming each difference.
        """
        differences = self.judge.differences(judge)
        if differences:
            raise ConfigError(
                f"{source}: calibrated for another judge, so its guarantee does not hold for this run ("
                + "; ".join(differences)
                + "); calibrate this judge: faceteval calibrate RUN --target-agreement A --delta D --out FILE"
            )

    def as_option(self, source: str) -> dict[str, JsonValue]:
        """What a run record's options say of the calibration a run used."""
        return {
            "file": source,
            "threshold": self.threshold,
            "target_agreement": self.target_agreement,
            "delta": self.delta,
            "estimator": self.judge.estimator,
            "data_sha256": self.data.sha256,
            "calibration_n": self.data.n,
            "calibration_kept": self.kept,
            "calibration_agreement": self.agreement,
            "curve": list(self.curve),
        }


def calibrate_threshold(
    judgments: Iterable[Judgment],
    labels: Mapping[str, int],
    *,
    judge: JudgeIdentity,
    target_agreement: float,
    delta: float,
    source: str,
    min_kept: int = 1,
) -> CalibratedThreshold:
    """The threshold for ``judge`` from its ``judgments`` of labelled instances (``labels``: id to the
    human label, 1-based, 0 a tie); judgments of unlabelled instances are left out.

    Raises:
        ConfigError: No judgment is of a labelled instance.
    """
    rows = sorted(_row(judgment, labels[judgment.id]) for judgment in judgments if judgment.id in labels)
    if not rows:
        raise ConfigError(f"{source}: none of its judgments is of an instance with a human label")
    confidences = [confidence for *_, confidence in rows]
    agrees = [verdict is not None and verdict == label for _, label, verdict, _ in rows]
    chosen = fixed_sequence_threshold(confidences, agrees, target_agreement, delta, min_kept=min_kept)
    digest = hashlib.sha256()
    for row in rows:
        digest.update(json.dumps(row, separators=(",", ":")).encode() + b"\n")
    return CalibratedThreshold(
        threshold=chosen.threshold,
        target_agreement=target_agreement,
        delta=delta,
        judge=judge,
        data=CalibrationData(source=source, sha256=digest.hexdigest(), n=len(rows)),
        kept=chosen.kept,
        agreement=chosen.agreement,
        lower_bound=chosen.lower_bound,
        min_kept=min_kept,
        tests=[test.as_dict() for test in chosen.tests],
        curve=coverage_curve(confidences, agrees),
        made_at=datetime.now(UTC).isoformat(timespec="seconds"),
    )


def read_calibration(path: Path) -> CalibratedThreshold:
    """The calibrated threshold written to ``path`` (``faceteval calibrate --out``).

    Raises:
        InputError: It cannot be read, is too large, or is not a calibration (naming the field).
    """
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_CALIBRATION_BYTES + 1)
    except OSError as exc:
        raise InputError(str(path), None, None, f"cannot read it: {exc.strerror or exc}") from exc
    if len(raw) > MAX_CALIBRATION_BYTES:
        raise InputError(str(path), None, None, f"over {MAX_CALIBRATION_BYTES:,} bytes: not a calibration")
    try:
        document = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(str(path), None, None, f"not JSON: {exc}") from exc
    if not isinstance(document, dict) or document.get("kind") != CALIBRATION_KIND:
        raise InputError(
            str(path), None, "kind", f"not a calibration (kind is not {CALIBRATION_KIND!r}); make one with "
            "faceteval calibrate"
        )  # fmt: skip
    if document.get("schema_version") != CALIBRATION_SCHEMA:
        raise InputError(
            str(path), None, "schema_version",
            f"{document.get('schema_version')!r}: this version reads calibration schema {CALIBRATION_SCHEMA}",
        )  # fmt: skip
    try:
        return CalibratedThreshold.model_validate(document)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(part) for part in error["loc"])
        raise InputError(str(path), None, field, error["msg"]) from None


def abstain(judgment: Judgment, calibration: CalibratedThreshold) -> Judgment:
    """``judgment`` as the calibration leaves it: as it is when its verdict is kept (or it failed),
    else ``abstained`` with no verdict, its confidence, scores and facets kept, and why in ``error``."""
    if judgment.status != "ok" or calibration.keeps(judgment):
        return judgment
    threshold = calibration.threshold
    if threshold is None:
        why = "no calibrated threshold reaches the target: every verdict is abstained"
    elif judgment.confidence is None:
        why = f"no {calibration.judge.estimator} confidence to compare with the threshold {threshold:.4g}"
    else:
        why = f"confidence {judgment.confidence:.4g} is below the calibrated threshold {threshold:.4g}"
    verdict = "" if judgment.verdict is None else f" (the judge's verdict {judgment.verdict} is not trusted)"
    update = {"status": "abstained", "verdict": None, "error": f"abstained: {why}{verdict}"}
    return judgment.model_copy(update=update)


def _row(judgment: Judgment, label: int) -> tuple[str, int, int | None, float | None]:
    """What of a labelled judgment the calibration uses (and hashes): id, label, verdict, confidence."""
    ok = judgment.status == "ok"
    return judgment.id, label, judgment.verdict if ok else None, judgment.confidence if ok else None


def coverage_curve(confidences: Sequence[float | None], agrees: Sequence[bool]) -> list[dict[str, JsonValue]]:
    """Coverage and agreement at each distinct confidence, the highest first (at most `MAX_CURVE`).

    Examples:
        >>> curve = coverage_curve([0.9, 0.5, 0.5, None], [True, True, False, False])
        >>> [tuple(point.values()) for point in curve]
        [(0.9, 0.25, 1.0), (0.5, 0.75, 0.6666666666666666)]
    """
    n = len(confidences)
    points: list[dict[str, JsonValue]] = []
    kept = agreeing = 0
    for value, agree in sorted(
        ((c, a) for c, a in zip(confidences, agrees, strict=True) if c is not None), key=lambda row: -row[0]
    ):
        kept, agreeing = kept + 1, agreeing + int(agree)
        point: dict[str, JsonValue] = {"threshold": value, "coverage": kept / n, "agreement": agreeing / kept}
        if points and points[-1]["threshold"] == value:
            points[-1] = point
        else:
            points.append(point)
    if len(points) > MAX_CURVE:
        step = (len(points) - 1) / (MAX_CURVE - 1)
        points = [points[round(k * step)] for k in range(MAX_CURVE)]
    return points
