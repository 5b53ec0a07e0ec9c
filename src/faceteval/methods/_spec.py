"""What a method family tells the rest of faceteval about each of its methods: a `MethodSpec`.

The command line, the reports and the review app read specs instead of knowing methods by name: a
method's options become flags of ``judge`` and ``meta-eval`` (or ``-M key=value``), its sweepable
options drive ``meta-eval``'s sweeps, and its commands join the ``faceteval`` group.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from faceteval.datasets import load_criteria
from faceteval.errors import ConfigError
from faceteval.methods._base import Method

OptionType = type[bool] | type[int] | type[float] | type[str]
"""What an option's value is; a flag converts what is typed to it."""
OverallScale = Callable[[Mapping[str, Any], Sequence[int]], tuple[float, float] | None]
"""A run's overall score range from its method's params and each judgment's facet count."""

_NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
_FLAG = re.compile(r"--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
_TARGET = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")


@dataclass(frozen=True, slots=True, kw_only=True)
class Sweep:
    """How ``meta-eval`` sweeps a whole-number option, and how reports name the sweep.

    Attributes:
        help: The list flag's help after ``<method>: `` ("generated aspects per query; a list ... sweep").
        title: The report section's title ("Aspect-count sweep").
        column: The report column of the swept value ("Aspects").
        axis: What the plot counts on its x axis: "Number of <axis>" ("aspects").
        prefix: Each run's directory: ``<prefix>-<value>`` ("aspects-3").
        metavar: The list flag's metavar.
    """

    help: str
    title: str
    column: str
    axis: str
    prefix: str
    metavar: str = "K[,K...]"


DEFAULT_SWEEP = Sweep(
    help="a list runs a sweep.",
    title="Aspect-count sweep",
    column="Aspects",
    axis="aspects",
    prefix="aspects",
)
"""How a report names the sweep of a run whose method it does not know."""


@dataclass(frozen=True, slots=True, kw_only=True)
class MethodOption:
    """One setting of a method, as the command line gives it.

    Attributes:
        param: The factory's keyword (``aspects``); ``-M aspects=5`` sets it.
        help: What it does, shown after ``<method>: `` in the flag's help.
        flag: Its flag (``--aspects``), shared with other methods' options of the same flag; None: only
            ``-M``.
        type: What its value is.
        choices: The values it takes (for a text option).
        default: What the factory takes when it is not given (shown in the help).
        minimum: The least value a number may be.
        maximum: The greatest.
        lead: What a flag several methods share means, before each method's help ("How facet scores
            combine.").
        sweep: How ``meta-eval`` sweeps it (a whole-number option): its flag then takes a list.
        counts_criteria: It sets how many criteria to generate, so ``--criteria`` leaves it nothing to do.
    """

    param: str
    help: str
    flag: str | None = None
    type: OptionType = str
    choices: tuple[str, ...] = ()
    default: Any = None
    minimum: float | None = None
    maximum: float | None = None
    lead: str = ""
    sweep: Sweep | None = None
    counts_criteria: bool = False

    def __post_init__(self) -> None:
        if not self.param.isidentifier() or keyword.iskeyword(self.param):
            raise ConfigError(f"method option {self.param!r}: the parameter is a Python identifier")
        if self.flag is not None and not _FLAG.fullmatch(self.flag):
            raise ConfigError(f"method option {self.param!r}: flag {self.flag!r} is --lowercase-words")
        if self.choices and self.type is not str:
            raise ConfigError(f"method option {self.param!r}: only a text option has choices")
        if self.sweep is not None and self.type is not int:
            raise ConfigError(f"method option {self.param!r}: only a whole-number option is swept")
        if self.choices and self.default is not None and self.default not in self.choices:
            raise ConfigError(f"method option {self.param!r}: default {self.default!r} is not a choice")


def read_criteria_file(path: Path) -> dict[str, Any]:
    """``--criteria FILE`` for most methods: ``criteria=load_criteria(FILE)``."""
    return {"criteria": load_criteria(path)}


@dataclass(frozen=True, slots=True, kw_only=True)
class CriteriaUse:
    """What ``--criteria FILE`` gives a method.

    Attributes:
        meaning: What the file holds, for this method.
        read: The factory's parameters from the file; raises `InputError` naming file, line and field.
    """

    meaning: str = "criteria for every instance, overriding the instances' own"
    read: Callable[[Path], Mapping[str, Any]] = read_criteria_file


@dataclass(frozen=True, slots=True)
class Command:
    """A command a family adds to ``faceteval``, imported only when it runs (or its help is shown).

    Attributes:
        path: Its name (``correct``), or a group's and its own (``criteria show``) to add it to the group
            another command of the registry is.
        target: Where the click command is: ``"package.module:attribute"``.
    """

    path: str
    target: str

    def __post_init__(self) -> None:
        parts = self.path.split(" ")
        if not 1 <= len(parts) <= 2 or not all(_NAME.fullmatch(part) for part in parts):
            raise ConfigError(f"command {self.path!r}: give a name, or a group's name and one")
        if not _TARGET.fullmatch(self.target):
            raise ConfigError(f"command {self.path!r}: target {self.target!r} is 'module:attribute'")


@dataclass(frozen=True, slots=True)
class RunReport:
    """How ``faceteval report`` writes the report of the runs a family's command makes.

    Attributes:
        command: The command whose runs it reports, as their run records name it (``hdeval train``).
        target: The function that writes it, ``"package.module:function"``, imported when a report is
            asked for; it is called as ``function(run, markdown_path=..., html_path=...)`` with the
            run's directory or JSONL, and replaces the two files whole.
    """

    command: str
    target: str

    def __post_init__(self) -> None:
        if not _TARGET.fullmatch(self.target):
            raise ConfigError(f"report of {self.command!r}: target {self.target!r} is 'module:function'")


@dataclass(frozen=True, slots=True)
class TemplateFolder:
    """A folder of prompt templates, named ``<prefix>/<stage>`` (see `faceteval.prompts.add_templates`)."""

    prefix: str
    package: str
    folder: str = "templates"


@dataclass(frozen=True, slots=True)
class EvaluationStages:
    """The trace stages whose parsed values are per-criterion evaluations of one candidate each.

    The review app's import drafts them (conclusion, evidence, reasoning) for people to review.

    Attributes:
        criterion: The stage of a criterion's evaluation (``parsed``: criterion, candidate, conclusion,
            evidence, ...).
        overall: The stage of the overall evaluation (``parsed``: candidate, reasoning, ...).
    """

    criterion: str
    overall: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class MethodSpec:
    """A method, as the command line, the reports and the review app know it.

    Attributes:
        name: Its registry name (lowercase kebab: ``coeval-direct``), as ``--method`` takes it.
        factory: Builds the method from its parameters (``create_method`` calls it).
        summary: One line on what it does.
        options: Its settings the command line gives (flags, ``-M``, sweeps).
        criteria: What ``--criteria FILE`` gives it; None: it names no criteria.
        scale: The range its facet scores (and, unless ``overall_scale`` says otherwise, its overall
            scores) are on by default.
        templates: The folders of its family's prompt templates.
        commands: Its family's commands.
        reports: How ``faceteval report`` reports the runs of its family's commands.
        records: Where the run records of its family's commands are modelled: ``"module:attr"``
            targets, each a sequence of `faceteval.store.RecordKind` (imported when the store is first
            asked about a kind), so that the store reads them back and ``cost`` and the viewer find
            their runs.
        per_criterion_judgments: Its judgments carry, per criterion, a guideline and each response's
            score and explanation (what ``correct`` and ``export sft`` read).
        evaluations: The trace stages the review app's import reads evaluations from.
        overall_scale: The overall score's range of a run whose record holds no ``scale`` (a sum over
            criteria, say), from its params and each judgment's facet count.
    """

    name: str
    factory: Callable[..., Method]
    summary: str
    scale: tuple[float, float]
    options: tuple[MethodOption, ...] = ()
    criteria: CriteriaUse | None = field(default_factory=CriteriaUse)
    templates: tuple[TemplateFolder, ...] = ()
    commands: tuple[Command, ...] = ()
    reports: tuple[RunReport, ...] = ()
    records: tuple[str, ...] = ()
    per_criterion_judgments: bool = False
    evaluations: EvaluationStages | None = None
    overall_scale: OverallScale | None = None

    def __post_init__(self) -> None:
        if not _NAME.fullmatch(self.name):
            raise ConfigError(f"method name {self.name!r}: lowercase words joined by '-' (coeval-direct)")
        for what, values in (
            ("parameter", [o.param for o in self.options]),
            ("flag", [o.flag for o in self.options if o.flag]),
        ):
            if repeated := sorted({v for v in values if values.count(v) > 1}):
                raise ConfigError(f"method {self.name!r}: option {what} {', '.join(repeated)} given twice")
        for target in self.records:
            if not _TARGET.fullmatch(target):
                raise ConfigError(f"method {self.name!r}: records {target!r} is not 'module:attribute'")

    def option(self, param: str) -> MethodOption | None:
        """The option of parameter ``param``, if the method has one."""
        return next((option for option in self.options if option.param == param), None)

    @property
    def sweep(self) -> tuple[MethodOption, Sweep] | None:
        """The option ``meta-eval`` sweeps, with its sweep: the first sweepable option, if any."""
        return next(((o, o.sweep) for o in self.options if o.sweep is not None), None)
