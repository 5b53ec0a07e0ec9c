"""The public meta-evaluation entry points: measure a judge against human labels, as ``faceteval
meta-eval`` does, from Python (one async function and its blocking form)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import anyio

from faceteval._runner._api import running_loop
from faceteval._runner._metaeval_runs import (
    DEFAULT_META_EVAL_OPTIONS,
    MetaEvalHooks,
    MetaEvalOptions,
    RunContext,
    RunPlan,
    run_meta_eval,
)
from faceteval._runner._options import DEFAULT_JUDGE_OPTIONS, JudgeOptions
from faceteval.core import SIGNALS, Instance, Judgment
from faceteval.datasets import DEFAULT_DATA_DIR, read_human_labels
from faceteval.errors import ConfigError, FacetevalError, InputError
from faceteval.llm import Judge
from faceteval.metaeval import JudgmentSource, Target, load_target, measure, select
from faceteval.metaeval.internal import (
    SWEEP_KEY,
    cascade_summary,
    grouped,
    labelled_target,
    measured_sources,
    ppi_summary,
    relabelled,
    run_files,
    source_files,
    variants,
)
from faceteval.methods import Method
from faceteval.methods.internal import find_method_spec
from faceteval.report import write_report
from faceteval.store import MetaEvalRecord, MetaEvalSummary
from faceteval.store.internal import check_outputs, header, input_file

TargetLike = str | Path | Target | Iterable[Instance | InputError]
"""What is measured: a benchmark's name, a labelled file, a `Target`, or labelled instances (those of
`read_instances`, say)."""
JudgmentsLike = str | Path | Iterable[Judgment]
"""Judgments to measure: ``recorded:<name>``, a judgments file or run directory, or judgments."""


async def meta_evaluate_async(
    target: TargetLike,
    method: Method | Sequence[Method] | None = None,
    llm: Judge | None = None,
    *,
    judgments: JudgmentsLike | None = None,
    out: str | Path,
    options: MetaEvalOptions = DEFAULT_META_EVAL_OPTIONS,
    judging: JudgeOptions = DEFAULT_JUDGE_OPTIONS,
    data_dir: str | Path = DEFAULT_DATA_DIR,
    force: bool = False,
) -> MetaEvalSummary:
    """Measure a judge against the human labels of ``target``, writing the run directory ``out`` as
    ``faceteval meta-eval`` does: judge its instances now with ``method`` and ``llm``
    (``--method``), or measure recorded ``judgments`` (``--judgments``).

    ``out`` gets ``instances.jsonl``, ``judgments.jsonl`` (with its run record when judged now),
    ``summary.json`` (the run's record, `faceteval.store.MetaEvalRecord`) and, with
    ``options.report``, the reports. A sweep is several methods of one family that differ in the
    option their spec sweeps (``[DnA(aspects=k) for k in (1, 2, 3)]``); ``options.seeds`` repeats
    each run once per provider seed. Each run then has its own directory in ``out``
    (``aspects-2``, ``seed-1``, ``aspects-2_seed-1``), and ``out/summary.json`` compares them.
    ``target`` is a benchmark's name (read from ``data_dir``), a labelled file (JSONL or CSV, as
    the command reads it), a `Target`, or labelled instances. ``judgments`` is
    ``recorded:<name>`` (a recorded judge of the benchmark), a judgments JSONL or a run directory,
    or the judgments themselves. Without a response cache, a method run reuses the ok judgments
    of an earlier one of the same job; ``out``'s files may replace only those of an earlier run
    (or, with ``force``, any file but the inputs and the cache).

    Returns:
        The summary: of the run, or of the sweep or repeats (its ``runs``).

    Raises:
        ConfigError: Neither or both of a method and judgments; a method without an LLM, or a
            dry-run one (nothing would be measured); several methods that do not make a sweep;
            an LLM, seeds or judging options with recorded judgments; an output that is not ours.
        NothingJudged: A method run judged no instance.
        FacetevalError: Nothing to measure; what stopped a run (its files are in place first).
    """
    if (judgments is None) == (method is None):
        raise ConfigError("give either a method (and an LLM) to judge with, or judgments to measure")
    read = _measured(target, data_dir, options, slim=judgments is not None)
    given = grouped_as(labelled_as(read, options), options)
    instances = measured_instances(given, options)
    if judgments is not None:
        _check_recorded(llm, options, judging)
        return _measure_judgments(given, instances, judgments, Path(out), data_dir, options, force=force)
    assert method is not None
    if options.ppi is not None:
        raise ConfigError(
            "prediction-powered win rates are measured on recorded or given judgments, not on a method's run"
        )
    if llm is None:
        raise ConfigError("judging with a method takes an llm")
    if llm.dry_run:
        raise ConfigError("a dry run measures nothing: plan the calls with judge(...) and a dry-run LLM")
    plans = plan_runs(list(method) if isinstance(method, Sequence) else [method], options.seeds)
    context = RunContext(given, instances, llm, Path(out), options, judging, MetaEvalHooks(), force)
    record = await run_meta_eval(context, plans, inputs=_files(target))
    assert record is not None
    return record.summary


def meta_evaluate(
    target: TargetLike,
    method: Method | Sequence[Method] | None = None,
    llm: Judge | None = None,
    *,
    judgments: JudgmentsLike | None = None,
    out: str | Path,
    options: MetaEvalOptions = DEFAULT_META_EVAL_OPTIONS,
    judging: JudgeOptions = DEFAULT_JUDGE_OPTIONS,
    data_dir: str | Path = DEFAULT_DATA_DIR,
    force: bool = False,
) -> MetaEvalSummary:
    """Blocking form of `meta_evaluate_async`; inside a running event loop, await that instead.

    Examples:
        Measure recorded judgments of a labelled file (no LLM is asked)::

            summary = meta_evaluate("labels.jsonl", judgments="runs/dna/judgments.jsonl", out="runs/x")

    Raises:
        ConfigError: Called from a running event loop (a notebook, an ``async def``).
    """
    if running_loop():
        raise ConfigError(
            "meta_evaluate() cannot run inside a running event loop (a notebook cell, an async function): "
            "use `await meta_evaluate_async(...)` there, and `await llm.aclose()` when done"
        )
    evaluating = partial(
        meta_evaluate_async, target, method, llm, judgments=judgments, out=out, options=options,
        judging=judging, data_dir=data_dir, force=force,
    )  # fmt: skip
    if llm is None:
        return anyio.run(evaluating)
    return anyio.run(llm.closing_after, evaluating)


def _check_recorded(llm: Judge | None, options: MetaEvalOptions, judging: JudgeOptions) -> None:
    """Refuse what judges (an LLM, seeds, judging options) beside recorded judgments: it would go unused."""
    if llm is not None:
        raise ConfigError("recorded judgments are measured as they are: no LLM is asked")
    if options.seeds:
        raise ConfigError("seeds repeat a method's run; recorded judgments are measured as they are")
    if judging != DEFAULT_JUDGE_OPTIONS:
        raise ConfigError(
            "judging options apply to a method's run; recorded judgments are measured as they are"
        )


def _measure_judgments(
    target: Target,
    instances: Sequence[Instance],
    judgments: JudgmentsLike,
    out: Path,
    data_dir: str | Path,
    options: MetaEvalOptions,
    *,
    force: bool,
) -> MetaEvalSummary:
    """Recorded judgments measured into ``out``, once its files are checked (they may not replace an
    input); the summary."""
    if isinstance(judgments, str | Path):
        named = str(judgments)
        inputs = [*_files(target), *source_files(named)]
        check_outputs(run_files(out), given=out, inputs=inputs, force=force)
        source, judges = measured_sources(
            named,
            target,
            Path(data_dir),
            vote=options.panel_vote,
            confidence=options.confidence,
            cascade=options.cascade is not None,
        )
    else:
        if options.cascade is not None or options.confidence != SIGNALS:
            raise ConfigError(
                "a cascade and the strategies confidence are of recorded judges: give judgments as "
                "'recorded:a,recorded:b', not as judgments"
            )
        check_outputs(run_files(out), given=out, inputs=_files(target), force=force)
        source, judges = JudgmentSource("judgments", tuple(judgments)), []
    return measure_source(target, instances, source, out, options, cascade=judges).summary


def _files(target: TargetLike) -> list[Path]:
    """The file ``target`` names, if it names one (a run directory's files may not replace it)."""
    return [Path(target)] if isinstance(target, str | Path) and Path(target).is_file() else []


def _measured(
    target: TargetLike, data_dir: str | Path, options: MetaEvalOptions, *, slim: bool = False
) -> Target:
    """What ``target`` names, read (``slim``: to measure recorded judgments, `load_target`, keeping the
    texts the options group by); labelled instances (`read_instances` of a file) as a target.

    Raises:
        InputError: A line of the instances' file that is not an instance (the first one).
    """
    if isinstance(target, Target):
        return target
    if isinstance(target, str | Path):
        keep = [key for key in (options.group_by, options.system_by) if key is not None]
        return load_target(str(target), Path(data_dir), slim=slim, keep=keep)
    instances = list(target)
    if problem := next((item for item in instances if isinstance(item, InputError)), None):
        raise problem
    return labelled_target((item for item in instances if isinstance(item, Instance)), name="instances")


def labelled_as(target: Target, options: MetaEvalOptions) -> Target:
    """``target`` with the labels of ``options.labels`` in place of its own, by id (`relabelled`).

    Raises:
        InputError: The labels file is not one (its line and field named).
        FacetevalError: A label names no instance of the target, or is of the other kind.
    """
    if options.labels is None:
        return target
    return relabelled(target, read_human_labels(options.labels), source=str(options.labels))


def grouped_as(target: Target, options: MetaEvalOptions) -> Target:
    """``target`` grouped by ``options.group_by`` and its outputs' systems named by ``options.system_by``
    (each in place of the benchmark's own, when given).

    Raises:
        ConfigError: No instance has the field; the message names those they have.
    """
    return grouped(target, options.group_by, options.system_by)


def measured_instances(target: Target, options: MetaEvalOptions) -> Sequence[Instance]:
    """The instances of ``target`` measured: of its turn and categories, then a sample of ``limit``.

    Raises:
        FacetevalError: None is left.
    """
    instances = select(
        target.instances,
        limit=options.limit,
        seed=options.seed,
        turn=options.turn,
        categories=options.categories,
        group_by=target.group_by,
    )
    if not instances:
        raise FacetevalError(f"{target.name}: nothing to measure after --turn / --category / --limit")
    return instances


def plan_runs(methods: Sequence[Method], seeds: Sequence[int] = ()) -> list[RunPlan]:
    """The runs of ``methods`` (one, or a sweep: one family's method at each value of the option its
    spec sweeps), each repeated once per provider seed.

    Raises:
        ConfigError: No method, methods of several families, of a family that sweeps nothing, or at
            the same value twice.
    """
    if not methods:
        raise ConfigError("give a method to judge with")
    if len({method.name for method in methods}) > 1:
        raise ConfigError(f"a sweep is of one method, got {', '.join(sorted({m.name for m in methods}))}")
    spec = find_method_spec(methods[0].name)
    counts: list[int | None] = [None]
    key, prefix = SWEEP_KEY, SWEEP_KEY
    if spec is not None and spec.sweep is not None:
        option, sweep = spec.sweep
        key, prefix = option.param, sweep.prefix
        counts = [_swept(method, option.param) for method in methods]
    elif len(methods) > 1:
        raise ConfigError(f"method {methods[0].name} has no option to sweep: give one method")
    if len(set(counts)) < len(counts):
        raise ConfigError(f"the methods of a sweep differ in {key}: {counts} repeats a value")
    runs = variants(counts, list(seeds) or [None], prefix)
    per_count = len(runs) // len(methods)
    return [RunPlan(methods[index // per_count], run, key) for index, run in enumerate(runs)]


def _swept(method: Method, param: str) -> int | None:
    value = method.describe().get("params", {}).get(param)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def measure_source(
    target: Target,
    instances: Sequence[Instance],
    source: JudgmentSource,
    out: Path,
    options: MetaEvalOptions = DEFAULT_META_EVAL_OPTIONS,
    *,
    cascade: Sequence[JudgmentSource] = (),
) -> MetaEvalRecord:
    """Measure recorded judgments (``meta-eval --judgments``) into the run directory ``out``; its record.

    The numbers the source's authors published are kept beside them when the whole target is
    measured (`JudgmentSource.reported`). With ``options.cascade``, the judges ``cascade`` (in the
    order they are asked; ``source`` is the last) are measured as a cascade too (``summary.cascade``);
    with ``options.ppi``, the prediction-powered win rates of each model pair (``summary.ppi``).

    Raises:
        ConfigError: ``options.ppi`` for a target that is not pairwise.
    """
    if options.ppi is not None and target.kind != "pairwise":
        raise ConfigError(
            f"--ppi-labels measures pairwise win rates; {target.name} is {target.kind} (scores, not pairs)"
        )
    whole = len(instances) == len(target.instances)
    extra: dict[str, Any] = {"reported": source.reported} if source.reported and whole else {}
    if options.cascade is not None and cascade:
        extra["cascade"] = cascade_summary(
            instances,
            cascade,
            options.cascade,
            confidence=options.confidence,
            judge_costs=options.judge_costs,
        )
    if options.ppi is not None:
        extra["ppi"] = ppi_summary(instances, source.judgments, options.ppi)
    path = Path(source.name)
    about = MetaEvalRecord(
        **header("meta-eval", datetime.now(UTC)),
        inputs={"judgments": input_file(path)} if source.recorded is None and path.is_file() else {},
        output=str(out),
        options=options.recorded(),
    )
    record = measure(
        out,
        target,
        instances,
        source.judgments,
        judge=source.name,
        settings=options.settings,
        extra=extra,
        about=about,
        human_weights=options.human_weights,
        source=source.name,
    )
    if options.report:
        write_report(out)
    return record
