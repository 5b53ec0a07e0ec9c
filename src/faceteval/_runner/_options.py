"""How a run is carried out (`JudgeOptions`), and the checks of its options made before any call."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from faceteval._runner._annotators import Annotators
from faceteval._runner._window import ORDERS, Order
from faceteval._util.checks import whole_number
from faceteval.core import SIGNALS, SIMULATED_ANNOTATORS, VERDICT_LOGPROBS
from faceteval.datasets import HumanLabel, read_human_labels
from faceteval.errors import ConfigError
from faceteval.llm import Judge, Panel
from faceteval.methods.internal import DEFAULT_MEMO_SIZE, DEFAULT_TOP_LOGPROBS, SCORE_MODES, ScoreModeOption
from faceteval.prompts import Prompts, Templates
from faceteval.prompts.internal import prompts_of
from faceteval.results import CalibratedThreshold, read_calibration

DEFAULT_ABORT_AFTER = 10
MAX_TOP_LOGPROBS = 20
CONFIDENCE_CHOICES = (SIGNALS, VERDICT_LOGPROBS, SIMULATED_ANNOTATORS)
"""The estimators of a judgment's confidence a run can ask for (``--confidence``)."""
"""The most alternatives per token OpenAI's API (and vLLM by default) return."""


@dataclass(frozen=True, slots=True)
class JudgeOptions:
    """How a run is carried out (not what a method does).

    Attributes:
        swap: Judge every presentation order: both for two candidates, every rotation for more.
            The verdict is the one all orders agree on, else a tie.
        window: Instances in flight at once (default: four times the LLM's concurrency, at least 32).
            Instances start as others finish; memory stays bounded by the window.
        order: How judgments are handed on: ``input``, in input order (the default: judgments that
            finish before their turn wait in a temporary file, so one slow instance holds back the
            output, not the other instances' work), or ``finish``, as each finishes.
        memo_size: Distinct queries whose facets and weights are kept for reuse.
        trace: Keep every exchange (prompt, raw reply, parsed value) in each judgment.
        abort_after: Stop the run when this many instances in a row fail with errors (a wrong
            endpoint, an exhausted quota), rather than failing every remaining instance. Invalid
            input lines and instances the method cannot judge (`InstanceError`) do not count.
        score_mode: How scoring stages obtain their scores: ``parse`` the number written (the
            default), or ``logprobs``, the expected score over the top log-probabilities of the
            score's tokens (G-Eval), falling back to the number where the server sends none. Needs a
            provider that returns log-probabilities (OpenAI-compatible; not Anthropic).
        top_logprobs: Alternatives asked for per token with ``score_mode="logprobs"`` (1-20).
        templates: Prompt templates in place of built-in ones, by name (`faceteval.prompts.Templates`,
            or a directory of them, read and checked here); None: those in use (the built-in ones,
            unless inside `faceteval.prompts.using_templates`). The run record names each template
            used, its hash and where it came from.
        strict: Check every instance first (a file's every line), and judge nothing if one is bad
            (``--strict``).
        prefix_cache: Render the per-facet scoring prompts from their ``.prefix`` variants, which put
            what an instance's calls share first and the facet last, so that a server's prefix cache
            reuses it (``--prefix-cache``).
        calibration: A confidence threshold with a guarantee (`faceteval.results.CalibratedThreshold`,
            or the path of a ``faceteval calibrate`` file, read and checked here): each verdict whose
            confidence is below it is marked ``abstained`` (``--calibration``). It must have been
            calibrated for this run's judge (refused before any call otherwise).
        calibration_source: Where the calibration was read from (set when ``calibration`` is a path).
        confidence: What estimates each judgment's ``confidence`` (``--confidence``): ``signals`` (the
            default: margin, facet, order, panel and score-certainty components),
            ``verdict-logprobs`` (the verdict's probability from its scores' distributions; needs
            ``score_mode="logprobs"``), or ``simulated-annotators`` (``annotators`` few-shot variants of
            the judge vote; the confidence is the share agreeing with the majority).
        annotators: With ``simulated-annotators``: how many variants, how many examples each, and
            where the examples come from (`Annotators`; default: 3 variants, 2 examples each, from
            the run's own labelled instances).
        human_labels: Human labels by id (`faceteval.datasets.HumanLabel`s, or the path of a labels
            JSONL, read and checked here) in place of the instances' own ``label`` and ``scores``
            (``--human-labels``): the result then gives the win rates and means as humans would,
            prediction-powered (`faceteval.results.HumanLabelled`). They change no judgment.
        human_labels_source: Where the human labels were read from (set when ``human_labels`` is a path).
        limit: Judge only the input's first ``limit`` instances (``--limit``; None: all of them).
        sample: Judge a random sample of this many of the input's instances, in input order
            (``--sample``; seeded with ``sample_seed``, so that a re-run judges, and resumes, the same).
        sample_seed: The seed of ``sample``.
        group_by: The field (``category``, ``task``, ``query``...) or metadata key (a column of the
            file no field uses) whose value groups the instances: the result adds each group's
            headline numbers (``--group-by``; `faceteval.results.JudgeResult.groups`). A name no
            instance has is refused before any call, where the instances can be read ahead (a file,
            a list).
    """

    swap: bool = False
    window: int | None = None
    order: Order = "input"
    memo_size: int = DEFAULT_MEMO_SIZE
    trace: bool = True
    abort_after: int = DEFAULT_ABORT_AFTER
    score_mode: ScoreModeOption = "parse"
    top_logprobs: int = DEFAULT_TOP_LOGPROBS
    templates: Templates | str | os.PathLike[str] | None = None
    strict: bool = False
    prefix_cache: bool = False
    calibration: CalibratedThreshold | str | os.PathLike[str] | None = None
    calibration_source: str | None = None
    confidence: str = SIGNALS
    annotators: Annotators | None = None
    human_labels: Mapping[str, HumanLabel] | str | os.PathLike[str] | None = None
    human_labels_source: str | None = None
    limit: int | None = None
    sample: int | None = None
    sample_seed: int = 0
    group_by: str | None = None

    def __post_init__(self) -> None:
        if self.group_by is not None and (not isinstance(self.group_by, str) or not self.group_by.strip()):
            raise ConfigError(f"group_by names a field or metadata key, got {self.group_by!r}")
        if isinstance(self.human_labels, str | os.PathLike):
            object.__setattr__(self, "human_labels_source", os.fspath(self.human_labels))
            object.__setattr__(self, "human_labels", read_human_labels(Path(self.human_labels)))
        elif self.human_labels is not None and not isinstance(self.human_labels, Mapping):
            raise ConfigError(
                "human_labels is a mapping of id -> HumanLabel or the path of a labels file, got "
                f"{type(self.human_labels).__name__}"
            )
        if isinstance(self.calibration, str | os.PathLike):
            object.__setattr__(self, "calibration_source", os.fspath(self.calibration))
            object.__setattr__(self, "calibration", read_calibration(Path(self.calibration)))
        elif self.calibration is not None and not isinstance(self.calibration, CalibratedThreshold):
            raise ConfigError(
                "calibration is a CalibratedThreshold or the path of a calibration file, got "
                f"{type(self.calibration).__name__}"
            )
        if self.score_mode not in SCORE_MODES:
            raise ConfigError(f"score_mode must be one of {', '.join(SCORE_MODES)}, got {self.score_mode!r}")
        if self.order not in ORDERS:
            raise ConfigError(f"order must be one of {', '.join(ORDERS)}, got {self.order!r}")
        if not whole_number(self.top_logprobs, 1) or self.top_logprobs > MAX_TOP_LOGPROBS:
            raise ConfigError(
                f"top_logprobs must be a whole number from 1 to {MAX_TOP_LOGPROBS}, got {self.top_logprobs!r}"
            )
        self._check_confidence()
        if isinstance(self.templates, str | os.PathLike):
            object.__setattr__(self, "templates", Templates.from_dir(self.templates))
        elif self.templates is not None and not isinstance(self.templates, Templates):
            raise ConfigError(
                f"templates is a Templates or a directory of templates, got {type(self.templates).__name__}"
            )
        if self.limit is not None and self.sample is not None:
            raise ConfigError("limit takes the first instances and sample a random few: give one of them")
        for name, least in (("window", 1), ("memo_size", 1), ("abort_after", 0), ("limit", 1), ("sample", 1)):
            value = getattr(self, name)
            if value is None and name in ("window", "limit", "sample"):
                continue
            if not whole_number(value, least):
                raise ConfigError(f"{name} must be a whole number of at least {least}, got {value!r}")

    def _check_confidence(self) -> None:
        if self.confidence not in CONFIDENCE_CHOICES:
            raise ConfigError(
                f"confidence must be one of {', '.join(CONFIDENCE_CHOICES)}, got {self.confidence!r}"
            )
        if self.confidence == VERDICT_LOGPROBS and self.score_mode != "logprobs":
            raise ConfigError(
                "--confidence verdict-logprobs reads the verdict's probability from the scores' "
                "log-probabilities: add --score-mode logprobs (score_mode='logprobs')"
            )
        if self.confidence == SIMULATED_ANNOTATORS:
            if self.annotators is None:
                object.__setattr__(self, "annotators", Annotators())
            elif not isinstance(self.annotators, Annotators):
                raise ConfigError(f"annotators is an Annotators(...), got {type(self.annotators).__name__}")
        elif self.annotators is not None:
            raise ConfigError(
                "annotators (--annotators, --shots) are used with confidence='simulated-annotators' "
                "(--confidence simulated-annotators)"
            )


DEFAULT_JUDGE_OPTIONS = JudgeOptions()


def templates_of(options: JudgeOptions) -> Templates | None:
    """The templates a run's options put in place of built-in ones (a directory read already)."""
    assert options.templates is None or isinstance(options.templates, Templates)
    return options.templates


def run_prompts(options: JudgeOptions) -> Prompts:
    """The prompts a run renders: its options' templates and prefix-cache order, over those in use
    around the call (`faceteval.prompts.using_templates`, kept for code that sets them so)."""
    return prompts_of(templates_of(options), prefix_cache=options.prefix_cache)


def scoring_options(options: JudgeOptions) -> dict[str, Any]:
    """What a run record's ``options`` say of the score mode and the confidence's estimator: nothing for
    the defaults (``parse``, ``signals``), so that records of runs made with them read as before."""
    confidence = confidence_options(options)
    if options.score_mode == "parse":
        return confidence
    return {"score_mode": options.score_mode, "top_logprobs": options.top_logprobs} | confidence


def confidence_options(options: JudgeOptions) -> dict[str, Any]:
    """What a run record's ``options`` say of the confidence's estimator: nothing for ``signals``; with
    ``simulated-annotators``, K, M and the examples' source, seed and hash (`Annotators.describe`)."""
    if options.confidence == SIGNALS:
        return {}
    annotators = {} if options.annotators is None else options.annotators.describe()
    return {"confidence": options.confidence} | annotators


def check_score_mode(llm: Judge, options: JudgeOptions) -> None:
    """ConfigError, before any call, when ``options`` ask for log-probabilities a judge cannot give: its
    provider returns none, or its replies are structured (JSON under a schema, whose score tokens the
    expected score is not read from)."""
    if options.score_mode != "logprobs":
        return
    for judge in llm.judges if isinstance(llm, Panel) else (llm,):
        if not judge.returns_logprobs:
            raise ConfigError(
                f"--score-mode logprobs (score_mode='logprobs') is not available with {judge.spec}: the "
                f"{judge.spec.provider} API returns no token log-probabilities. Use --score-mode parse, or "
                "an OpenAI-compatible provider (OpenAI, vLLM, llama.cpp) for expected scores"
            )
        if judge.config.structured:
            raise ConfigError(
                "--score-mode logprobs reads the scores' tokens in free-text replies, and --structured "
                "(GenerateConfig(structured=True)) asks for JSON replies: use one of them"
            )


def human_labels_of(options: JudgeOptions) -> Mapping[str, HumanLabel] | None:
    """The run's human labels by id (read when given as a path), if any."""
    assert options.human_labels is None or isinstance(options.human_labels, Mapping)
    return options.human_labels


def calibration_of(options: JudgeOptions) -> CalibratedThreshold | None:
    """The calibrated threshold a run's options apply (a file read already)."""
    assert options.calibration is None or isinstance(options.calibration, CalibratedThreshold)
    return options.calibration
