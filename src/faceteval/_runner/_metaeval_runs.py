"""The runs of a meta-evaluation: each judged into its run directory, measured against the humans,
reported on; then, for a sweep or repeated seeds, the summary that compares them."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import asdict, dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import anyio

from faceteval._runner._batch import BatchDone
from faceteval._runner._criteria_use import criteria_use
from faceteval._runner._file import (
    FileJob,
    RunHooks,
    RunResult,
    Started,
    checked_items,
    judge_file,
    recorded_templates,
)
from faceteval._runner._judge import judge_each
from faceteval._runner._options import JudgeOptions, scoring_options
from faceteval._runner._stats import with_batch
from faceteval.aggregation import DEFAULT_PANEL_VOTE
from faceteval.core import SIGNALS, Instance, PanelVote
from faceteval.datasets import read_instances
from faceteval.errors import FacetevalError, NothingJudged
from faceteval.llm import Judge, Panel
from faceteval.metaeval import CascadeSettings, HumanWeights, PpiSettings, Settings, Target, measure
from faceteval.metaeval.internal import (
    INSTANCES,
    JUDGMENTS,
    Variant,
    combine,
    forget_results,
    read_slim,
    run_files,
    stage_instances,
    write_instances,
    write_summary,
)
from faceteval.methods import Method, for_benchmark
from faceteval.report import write_report
from faceteval.store import LLMRecord, MetaEvalRecord, MethodRecord, SpendRecord
from faceteval.store.internal import OutputFile, check_outputs, header, spend_of


@dataclass(frozen=True, slots=True)
class MetaEvalOptions:
    """What a meta-evaluation measures, and how (what the ``meta-eval`` flags set).

    Attributes:
        limit: Measure a stratified sample of this many instances (None: all of them).
        seed: Seed of the sample and of the bootstrap.
        turn: Only this turn (multi-turn benchmarks: MT-Bench).
        categories: Only these categories.
        resamples: Bootstrap resamples behind each 95% CI (0: none).
        seeds: Repeat the run once per provider seed (empty: one run, with the LLM's own seed).
        human_weights: People's weightings of the judge's facets (how close the judge's are).
        report: Write ``report.md`` and ``report.html`` beside each summary.
        panel_vote: How recorded judges given together (``recorded:a,recorded:b``) are combined
            into a panel's verdict: ``majority``, ``mean`` or ``median``.
        confidence: What estimates the recorded judgments' confidence: ``signals`` (their own) or
            ``strategies`` (the share of the judge's recorded prompting strategies agreeing).
        cascade: Measure the recorded judges given together as a cascade, the first asked first
            (None: as a panel): what it guarantees and over how many splits.
        judge_costs: Each cascade judge's cost per instance (None: from the recorded usage).
        ppi: Measure prediction-powered win rates of each model pair from a few of its human labels,
            drawn at random many times (pairwise recorded judgments; None: not measured).
        labels: A human labels file (`faceteval.datasets.read_human_labels`) whose labels replace the
            target's, by id (None: the target's own).
        group_by: The field (``category``, ``task``, ``query``...) or metadata key (a column of a
            labelled file that no field uses) whose groups correlations are also computed within
            (the summary level) and a ``limit`` sample keeps whole; in place of a benchmark's own
            (SummEval's documents). None: the benchmark's, or none.
        system_by: The field or metadata key naming the system behind each single output (the
            system level), for outputs that name no ``systems`` of their own; in place of a
            benchmark's own. None: the benchmark's, or the outputs' own ``systems``.
    """

    limit: int | None = None
    seed: int = 0
    turn: int | None = None
    categories: tuple[str, ...] = ()
    resamples: int = 1000
    seeds: tuple[int, ...] = ()
    human_weights: tuple[HumanWeights, ...] = ()
    report: bool = True
    panel_vote: PanelVote = DEFAULT_PANEL_VOTE
    confidence: str = SIGNALS
    cascade: CascadeSettings | None = None
    judge_costs: tuple[float, ...] | None = None
    ppi: PpiSettings | None = None
    labels: Path | None = None
    group_by: str | None = None
    system_by: str | None = None

    @property
    def settings(self) -> Settings:
        """How uncertainty is estimated."""
        return Settings(resamples=self.resamples, seed=self.seed)

    def recorded(self) -> dict[str, Any]:
        """The options as a run record holds them (what changes the numbers); the confidence estimator
        the cascade, the prediction-powered draws, the labels file and the grouping only when they are not
        the default."""
        made: dict[str, Any] = {
            "limit": self.limit,
            "seed": self.seed,
            "turn": self.turn,
            "categories": list(self.categories),
            "resamples": self.resamples,
        }
        if self.confidence != SIGNALS:
            made["confidence"] = self.confidence
        if self.cascade is not None:
            costs = None if self.judge_costs is None else list(self.judge_costs)
            made["cascade"] = asdict(self.cascade) | {"judge_costs": costs}
        if self.ppi is not None:
            made["ppi"] = asdict(self.ppi)
        if self.labels is not None:
            made["labels"] = str(self.labels)
        made |= {key: value for key in ("group_by", "system_by") if (value := getattr(self, key)) is not None}
        return made


DEFAULT_META_EVAL_OPTIONS = MetaEvalOptions()


@dataclass(frozen=True, slots=True)
class RunPlan:
    """One run of a meta-evaluation: the method it judges with, and its place in a sweep or repeats."""

    method: Method
    variant: Variant
    """Its swept count, its provider seed and its directory's name ("" for a run alone)."""
    key: str
    """How its summary's ``variant`` names the swept count (the option's parameter, or ``aspects``)."""


@dataclass(frozen=True, slots=True)
class MetaEvalHooks:
    """What a caller is told as a meta-evaluation goes (the CLI shows it)."""

    judging: Callable[[RunPlan, FileJob], AbstractContextManager[RunHooks]] | None = None
    """Entered around each run's judging: the hooks of that judging (a progress bar's, say)."""
    judged: Callable[[RunPlan, Path, RunResult], None] | None = None
    """Each run's judging once it ended, however it ended, with its run directory."""


@dataclass(frozen=True, slots=True)
class RunContext:
    """What every run of one meta-evaluation shares."""

    target: Target
    instances: Sequence[Instance]
    llm: Judge
    out: Path
    options: MetaEvalOptions
    judging: JudgeOptions
    hooks: MetaEvalHooks
    force: bool
    batch: BatchDone | None = None
    """With ``--batch``: what the rounds did (in the record of the run, or of the sweep when several)."""

    def llm_for(self, plan: RunPlan) -> Judge:
        """The LLM (or panel) of a run: with its provider seed, when it repeats the others with another
        seed."""
        seed = plan.variant.seed
        if seed is None:
            return self.llm
        if isinstance(self.llm, Panel):
            return self.llm.with_seed(seed)
        return replace(self.llm, config=self.llm.config.merge(seed=seed))

    def hooks_for(self, plan: RunPlan, job: FileJob) -> AbstractContextManager[RunHooks]:
        return nullcontext(RunHooks()) if self.hooks.judging is None else self.hooks.judging(plan, job)


async def run_meta_eval(
    context: RunContext, plans: Sequence[RunPlan], *, inputs: Sequence[Path] = ()
) -> MetaEvalRecord | None:
    """Judge, measure and report each run of ``plans`` into ``context.out`` (each in its directory when
    there are several, then their comparison); the record of ``context.out`` (None in a dry run,
    which plans each run's judging and writes nothing).

    Raises:
        ConfigError: A file of a run directory is not ours (but with ``force``), or is one of ``inputs``.
        NothingJudged: A run judged no instance (its files are in place).
        FacetevalError: A benchmark without the outputs' texts; what stopped a run (each run's
            files are in place first).
    """
    check_judgeable(context.target)
    plans = [replace(plan, method=for_benchmark(plan.method, context.target.benchmark)) for plan in plans]
    if context.llm.dry_run:
        await _plan(context, plans)
        return None
    dirs = [context.out, *(context.out / plan.variant.name for plan in plans if plan.variant.name)]
    files = [file for folder in dirs for file in run_files(folder)]
    check_outputs(files, given=context.out, inputs=inputs, force=context.force)
    started = Started.now()
    records = [(plan, await _run(context, plan, alone=len(plans) == 1)) for plan in plans]
    if len(records) == 1:
        return records[0][1]
    return _compared(context, records, started)


async def collect_runs(context: RunContext, plans: Sequence[RunPlan], window: int) -> None:
    """A collecting pass of ``--batch`` (`faceteval._runner.collect_in_rounds`): every run's instances
    judged at once, ``window`` of each run's waiting at most, and nothing written."""
    options = replace(context.judging, order="finish", window=window)
    async with anyio.create_task_group() as group:
        for plan in plans:
            method = for_benchmark(plan.method, context.target.benchmark)
            llm = context.llm_for(plan)
            group.start_soon(partial(judge_each, context.instances, method, llm, options=options))


async def _run(context: RunContext, plan: RunPlan, *, alone: bool) -> MetaEvalRecord:
    """One run: its instances and judgments, its summary, its reports."""
    run_dir = context.out if alone else context.out / plan.variant.name
    llm = context.llm_for(plan)
    started = Started.now()
    staged = stage_instances(run_dir, context.instances)
    try:
        job = FileJob.check(
            staged.partial,
            run_dir / JUDGMENTS,
            cache=cache_file(llm),
            reuse=llm.cache is None,
            force=context.force,
            recorded_as=run_dir / INSTANCES,
        )
        # The earlier results go, and the instances come, only with judgments to put in their place.
        replacing = partial(_replace_results, staged, run_dir, None if alone else context.out)
        result = await _judge(context, plan, job, llm, started, run_dir, replacing)
    finally:
        staged.discard()  # (nothing, once committed)
    if not result.stats.statuses.get("ok"):  # nothing to measure: no summary of a run that did not judge
        raise NothingJudged(run_dir / JUDGMENTS, kept=result.kept)
    model = llm.describe()["model"]
    about = MetaEvalRecord(
        **header("meta-eval", started.at),
        output=str(run_dir),
        method=MethodRecord.of(plan.method.describe()),
        llm=LLMRecord.of_judge(llm),
        options={
            "swap": context.judging.swap,
            **scoring_options(context.judging),
            **context.options.recorded(),
        }
        | _criteria(context, plan),
        **recorded_templates(plan.method, llm, context.judging),
        spend=spend_of(with_batch(result.spent, context.batch if alone else None), result.elapsed),
        batch=context.batch.record if alone and context.batch is not None else None,
    )
    record = measure(
        run_dir,
        context.target,
        context.instances,
        read_slim(run_dir / JUDGMENTS),
        judge=f"{plan.method.name} ({model}{', swap' if context.judging.swap else ''})",
        settings=context.options.settings,
        extra={"variant": {plan.key: plan.variant.count, "seed": plan.variant.seed}},
        about=about,
        in_place=True,
        human_weights=context.options.human_weights,
        source=str(run_dir / JUDGMENTS),
    )
    if context.options.report:
        write_report(run_dir)
    return record


def _replace_results(staged: OutputFile, run_dir: Path, sweep_dir: Path | None) -> None:
    """Before a run's judgments are put in place: the earlier results of its directory (and of the
    sweep's) removed, which would describe another run, and its instances put in place."""
    forget_results(run_dir, sweep_dir)
    staged.commit()


async def _judge(
    context: RunContext,
    plan: RunPlan,
    job: FileJob,
    llm: Judge,
    started: Started,
    run_dir: Path,
    replacing: Callable[[], None] | None = None,
) -> RunResult:
    """A run's judging, told to the hooks however it ends; ``replacing()`` just before its judgments
    are put in place."""
    assert job.input_path is not None
    items = checked_items(job, read_instances(job.input_path), plan.method)
    result = RunResult(instances=job.instances)
    try:
        with context.hooks_for(plan, job) as hooks:
            await judge_file(
                job,
                items,
                plan.method,
                llm,
                options=context.judging,
                result=result,
                hooks=replace(hooks, replacing=replacing),
                started=started,
            )
    finally:
        if context.hooks.judged is not None:
            context.hooks.judged(plan, run_dir, result)
    return result


def _compared(
    context: RunContext, records: Sequence[tuple[RunPlan, MetaEvalRecord]], started: Started
) -> MetaEvalRecord:
    """The summary of a sweep or of repeats, written with its reports into ``context.out``."""
    first = records[0][1]
    spends = [record.spend for _, record in records if record.spend is not None]
    if context.batch is not None:
        spends.append(spend_of(context.batch.spend()))
    combined = first.model_copy(
        update={
            **header("meta-eval", started.at),
            "output": str(context.out),
            "llm": LLMRecord.of_judge(context.llm),
            "spend": _total(spends),
            "summary": combine([(plan.variant, record.summary) for plan, record in records]),
            "written": {},
            "batch": None if context.batch is None else context.batch.record,
        }
    )
    write_summary(context.out, combined)
    if context.options.report:
        write_report(context.out)
    return combined


def _criteria(context: RunContext, plan: RunPlan) -> dict[str, Any]:
    """The criteria the run judged with and their source, when its method names criteria."""
    use = criteria_use(plan.method, context.instances, benchmark=context.target.benchmark is not None)
    return {} if use is None else {"criteria": use}


def _total(spends: Sequence[SpendRecord]) -> SpendRecord:
    """The LLM use of every run together."""
    costs = [spend.cost_usd for spend in spends]
    return SpendRecord(
        calls=sum(spend.calls for spend in spends),
        cached=sum(spend.cached for spend in spends),
        retries=sum(spend.retries for spend in spends),
        input_tokens=sum(spend.input_tokens for spend in spends),
        output_tokens=sum(spend.output_tokens for spend in spends),
        cached_input_tokens=sum(spend.cached_input_tokens for spend in spends),
        cost_usd=None if None in costs else sum(cost for cost in costs if cost is not None),
        seconds=round(sum(spend.seconds or 0.0 for spend in spends), 3),
    )


async def _plan(context: RunContext, plans: Sequence[RunPlan]) -> None:
    """A dry run: each run's calls and costs planned over the instances (written to a scratch folder)."""
    with tempfile.TemporaryDirectory() as scratch:
        input_path = write_instances(Path(scratch), context.instances)
        for plan in plans:
            llm = context.llm_for(plan)
            job = FileJob.check(input_path, None, cache=cache_file(llm), reuse=False)
            await _judge(context, plan, job, llm, Started.now(), Path(scratch))


def check_judgeable(target: Target) -> None:
    """Refuse a benchmark that ships labels only: there is nothing for a method to judge.

    Raises:
        FacetevalError: The benchmark has no texts of its outputs.
    """
    if target.benchmark is not None and not target.benchmark.texts:
        raise FacetevalError(
            f"{target.name} ships labels only, not the outputs' texts: measure recorded judgments with "
            "--judgments, or judge a benchmark that has the texts"
        )


def cache_file(llm: Judge) -> Path | None:
    """The file of ``llm``'s response cache, when it has one on disk (an output may never replace it)."""
    path = getattr(llm.cache, "path", None)
    return Path(path) if isinstance(path, str) and path != ":memory:" else None
