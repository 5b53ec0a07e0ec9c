"""Task-level criteria generation: the CoEval prompt, one deterministic set and N sampled ones.

Li et al., "Collaborative Evaluation: Exploring the Synergy of Large Language Models and Humans for
Open-ended Generation Evaluation" (Section 4.1 for the prompt, Section 4.2 for the sampling). The LLM is
given a task description and one demonstration (an input and an output) and asked for a list of
evaluation criteria. Following Section 4.2, one set is generated at temperature 0 (the reference
``C~``) and N more at a higher temperature (``C_1 ... C_N``); `faceteval.methods.coeval.measure_consistency`
compares them.

Each reply is read as a list of criteria (numbered, bulleted or JSON; "Name: description" items). A
reply that cannot be read is re-asked once with the problem stated; if that fails too, the set is
recorded as a ``parse_error`` with its raw replies kept, never dropped or defaulted.

Caching: every set is a separate cache entry. The sets share one prompt, so they are kept apart by
`GenerateConfig.sample` (0 for the reference, 1..N for the samples), which is part of the cache key
but never sent to the provider. When a seed is set, sample ``k`` is sent ``seed + k`` so that the
samples do not all repeat one another.

Deviations from the paper: its prompt, as printed, has a garbled clause ("compared writeria used in
network language tasks"); we use the reading "general criteria used in natural language tasks, as
well as task-specific criteria". The prompt itself names no reply format; the format is stated only
in the re-ask of a reply that could not be read.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Literal

import anyio
import yaml

from faceteval import store
from faceteval._util.files import make_private_dirs
from faceteval._util.text import neutralise
from faceteval.core import Criterion, TraceEntry, Usage, usage_of
from faceteval.errors import (
    ConfigError,
    EditedFilesError,
    InputError,
    ParseError,
    ProviderError,
)
from faceteval.llm import LLM, GenerateConfig, Message
from faceteval.methods import JudgeContext, QueryMemo
from faceteval.methods.coeval import TaskCriteriaParser
from faceteval.prompts import Prompts, Templates
from faceteval.prompts.internal import prompts_of, recorded_prompts
from faceteval.store import OutputKind
from faceteval.store.internal import write_atomic
from faceteval.workflows.coeval._records import (
    CRITERIA_SET,
    GENERATION,
    GeneratedSet,
    GenerationFailure,
    GenerationRecord,
    GenerationSummary,
)
from faceteval.workflows.coeval._records import Demonstration as RecordedDemonstration

STAGE = "coeval.generate"
TEMPLATE = "coeval/generate"
DEFAULT_SAMPLES = 10
"""Sampled sets, as in the paper (N = 10)."""
DEFAULT_TEMPERATURE = 0.7
"""Temperature of the sampled sets, as in the paper."""
REFERENCE_FILE = "criteria.yaml"
SAMPLES_DIR = "samples"
GENERATION_FILE = "generation.json"

Status = Literal["ok", "parse_error", "error"]


@dataclass(frozen=True, slots=True)
class Demonstration:
    """One example of the task: an input and an output for it.

    Attributes:
        input: The task input (``x`` in the paper), for example a question.
        output: An output for it (``y``), for example an answer.
    """

    input: str
    output: str


@dataclass(frozen=True, slots=True)
class CriteriaSet:
    """One generated set of criteria, or why there is none.

    Attributes:
        index: 0 for the deterministic reference set, 1..N for the samples.
        temperature: The temperature it was generated at.
        criteria: The criteria read from the reply; empty unless ``status`` is ``ok``.
        status: ``ok``, ``parse_error`` (the reply and its re-ask could not be read) or ``error``
            (the provider failed after its retries).
        error: What went wrong, when something did.
        trace: Every exchange made for the set (a re-ask included), with the raw replies.
    """

    index: int
    temperature: float
    criteria: tuple[Criterion, ...] = ()
    status: Status = "ok"
    error: str | None = None
    trace: tuple[TraceEntry, ...] = ()

    @property
    def replies(self) -> list[str]:
        """The raw reply of every exchange, in order."""
        return [entry.raw for entry in self.trace]

    @property
    def usage(self) -> Usage:
        """The set's calls, tokens and cost."""
        return usage_of(self.trace)


@dataclass(frozen=True, slots=True)
class CriteriaGeneration:
    """The deterministic set and the sampled sets for one task.

    Attributes:
        task: The task description.
        example: The demonstration shown.
        temperature: The samples' temperature.
        reference: The temperature-0 set (``C~`` in the paper).
        samples: The sampled sets (``C_1 ... C_N``), in index order.
        prompts: The templates the generation rendered (its record names them).
    """

    task: str
    example: Demonstration
    temperature: float
    reference: CriteriaSet
    samples: tuple[CriteriaSet, ...] = ()
    prompts: Prompts = field(default_factory=Prompts)

    @property
    def sets(self) -> tuple[CriteriaSet, ...]:
        """The reference set, then the samples."""
        return (self.reference, *self.samples)

    @property
    def failures(self) -> list[CriteriaSet]:
        """The sets that could not be generated or read."""
        return [s for s in self.sets if s.status != "ok"]

    @property
    def usage(self) -> Usage:
        """Calls, tokens and cost of every set."""
        total = Usage()
        for criteria_set in self.sets:
            total = total + criteria_set.usage
        return total


def sample_config(base: GenerateConfig, index: int, temperature: float) -> GenerateConfig:
    """The generation parameters of set ``index``: its own cache entry, and ``seed + index`` if seeded.

    Examples:
        >>> config = sample_config(GenerateConfig(seed=7), 3, 0.7)
        >>> config.temperature, config.sample, config.seed
        (0.7, 3, 10)
    """
    seed = None if base.seed is None else base.seed + index
    return base.merge(temperature=temperature, sample=index, seed=seed)


async def _generate_set(llm: LLM, messages: Sequence[Message], index: int, temperature: float) -> CriteriaSet:
    """One set: asked, read, re-asked once if unreadable; failures are recorded, not raised."""
    ctx = JudgeContext(llm, QueryMemo())
    config = sample_config(llm.config, index, temperature)
    try:
        criteria = await ctx.ask(
            messages, TaskCriteriaParser(), stage=STAGE, config=config, sees_candidates=False
        )
    except ParseError as exc:
        return CriteriaSet(index, temperature, status="parse_error", error=str(exc), trace=tuple(ctx.trace))
    except ProviderError as exc:
        error = f"{type(exc).__name__}: {exc}"
        return CriteriaSet(index, temperature, status="error", error=error, trace=tuple(ctx.trace))
    return CriteriaSet(index, temperature, criteria=criteria, trace=tuple(ctx.trace))


async def generate_criteria_async(
    task: str,
    example: Demonstration,
    llm: LLM,
    *,
    samples: int = DEFAULT_SAMPLES,
    temperature: float = DEFAULT_TEMPERATURE,
    templates: Templates | None = None,
) -> CriteriaGeneration:
    """Generate the temperature-0 criteria set and ``samples`` sets at ``temperature``, concurrently.

    Calls go through ``llm`` (its cache, retries and concurrency limit); its other generation
    parameters (max tokens, seed) apply to every set. ``templates`` replace built-in ones of their
    names.

    Raises:
        ConfigError: ``task`` is blank, ``samples`` is negative or ``temperature`` is negative.
    """
    if not task.strip():
        raise ConfigError("the task description is empty")
    if samples < 0:
        raise ConfigError(f"the number of samples must be at least 0, got {samples}")
    if temperature < 0:
        raise ConfigError(f"the temperature must be at least 0, got {temperature}")
    prompts = prompts_of(templates)
    messages = prompts.render(TEMPLATE, task=task, example=example)
    results: list[CriteriaSet | None] = [None] * (samples + 1)

    async def run(index: int) -> None:
        results[index] = await _generate_set(llm, messages, index, 0.0 if index == 0 else temperature)

    async with anyio.create_task_group() as group:
        for index in range(samples + 1):
            group.start_soon(run, index)
    done = [r for r in results if r is not None]
    return CriteriaGeneration(task, example, temperature, done[0], tuple(done[1:]), prompts)


def generate_criteria(
    task: str,
    example: Demonstration,
    llm: LLM,
    *,
    samples: int = DEFAULT_SAMPLES,
    temperature: float = DEFAULT_TEMPERATURE,
    templates: Templates | None = None,
) -> CriteriaGeneration:
    """Blocking form of `generate_criteria_async`; ``llm``'s connections are closed before it returns."""
    generate = partial(
        generate_criteria_async,
        task,
        example,
        llm,
        samples=samples,
        temperature=temperature,
        templates=templates,
    )
    return anyio.run(llm.closing_after, generate)


def sample_path(directory: str | Path, index: int) -> Path:
    """Where sample ``index`` is written: ``samples/sample-01.yaml`` ...

    Examples:
        >>> sample_path("out", 3).as_posix()
        'out/samples/sample-03.yaml'
    """
    return Path(directory) / SAMPLES_DIR / f"sample-{index:02d}.yaml"


def save_generation(
    generation: CriteriaGeneration,
    directory: str | Path,
    *,
    model: str,
    force: bool = False,
    about: GenerationRecord | None = None,
) -> GenerationRecord:
    """Write the sets as criteria files, and a summary of the generation, into ``directory``.

    ``criteria.yaml`` holds the reference set and ``samples/sample-NN.yaml`` each sampled set, in the
    criteria-file format ``judge --criteria`` reads (`faceteval.load_criteria`): edit them freely. A set
    that failed gets no file (an older file of the same name, or of a sample index beyond this run,
    is removed), and is listed with its raw replies in ``generation.json``, which also records each
    file's SHA-256. ``generation.json`` is the generation's run record
    (`faceteval.store.GenerationRecord`): what ``about`` says of the run (its start, the LLM, what
    it spent), the template's hash, and the generation as its summary.

    A file this would overwrite or remove that is not as the last generation here wrote it (edited
    since, or not written by it) is never touched unless ``force``: nothing is written at all.

    Returns:
        The record written to ``generation.json``.

    Raises:
        EditedFilesError: Files were edited since they were generated (and ``force`` is False).
        StoreError: A file cannot be written (a full disk is named as such).
    """
    out = Path(directory)
    targets = {s.index: _set_path(out, s.index) for s in generation.sets}
    check_edits(out, samples=len(generation.samples), force=force)
    make_private_dirs(out / SAMPLES_DIR)
    written: dict[int, Path] = {}
    for criteria_set in generation.sets:
        path = targets[criteria_set.index]
        if criteria_set.status == "ok":
            _write_criteria(path, criteria_set, generation, model)
            written[criteria_set.index] = path
        else:
            path.unlink(missing_ok=True)
    for stale in (out / SAMPLES_DIR).glob("sample-*.yaml"):
        if stale not in written.values():
            stale.unlink()
    files = {k: (p.relative_to(out).as_posix(), _sha256(p)) for k, p in written.items()}
    record = _record(generation, model, files, about)
    write_atomic(out / GENERATION_FILE, record.to_json())
    return record


def check_edits(directory: str | Path, *, samples: int, force: bool = False) -> None:
    """EditedFilesError if generating ``samples`` sampled sets into ``directory`` would overwrite or
    remove a file that is not as the last generation there wrote it (unless ``force``).

    `save_generation` checks this itself; callers check it first to refuse before making any call.
    """
    if force:
        return
    out = Path(directory)
    touched = {_set_path(out, index) for index in range(samples + 1)}
    touched |= set((out / SAMPLES_DIR).glob("sample-*.yaml"))
    written_before = _hashes(out)
    edited = sorted(path for path in touched if path.is_file() and written_before.get(path) != _sha256(path))
    if edited:
        raise EditedFilesError(out, edited)


def generation_files(directory: str | Path, *, samples: int) -> list[tuple[Path, OutputKind]]:
    """The files generating ``samples`` sampled sets into ``directory`` writes or removes, each with its
    kind (see `faceteval.store.internal.check_outputs`)."""
    out = Path(directory)
    sets = {_set_path(out, index) for index in range(samples + 1)} | set(
        (out / SAMPLES_DIR).glob("sample-*.yaml")
    )
    return [(path, CRITERIA_SET) for path in sorted(sets)] + [(out / GENERATION_FILE, GENERATION)]


def _set_path(out: Path, index: int) -> Path:
    return out / REFERENCE_FILE if index == 0 else sample_path(out, index)


def _hashes(out: Path) -> dict[Path, str]:
    """The SHA-256 of each file the last generation in ``out`` wrote (none if it recorded none, or its
    record cannot be read)."""
    try:
        record = store.read_record(out / GENERATION_FILE, GenerationRecord)
    except InputError:
        return {}
    return {
        out / s.file: s.sha256 for s in record.summary.sets if s.file is not None and s.sha256 is not None
    }


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _write_criteria(
    path: Path, criteria_set: CriteriaSet, generation: CriteriaGeneration, model: str
) -> None:
    which = "deterministic set (temperature 0)" if criteria_set.index == 0 else f"sample {criteria_set.index}"
    # Comment lines hold text as it is, where YAML allows no control character: those are shown escaped.
    header = (
        f"# CoEval criteria, {which} from {neutralise(model)}; edit freely.\n"
        f"# Task: {neutralise(' '.join(generation.task.split()))}\n"
    )
    document = {"criteria": [c.model_dump(exclude_defaults=True) for c in criteria_set.criteria]}
    body = yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100)
    write_atomic(path, header + body)


def _record(
    generation: CriteriaGeneration,
    model: str,
    files: Mapping[int, tuple[str, str]],
    about: GenerationRecord | None,
) -> GenerationRecord:
    """The generation's run record: ``about``'s (the model's, when it says nothing of it), with the
    template's hash, the generation as its summary (each set's file, by its index, with the file's
    SHA-256), and the time it finished."""
    about = about or GenerationRecord(llm=store.LLMRecord(model=model))
    summary = GenerationSummary(
        task=generation.task,
        example=RecordedDemonstration(input=generation.example.input, output=generation.example.output),
        temperature=generation.temperature,
        samples=len(generation.samples),
        sets=[
            GeneratedSet(
                index=s.index,
                temperature=s.temperature,
                status=s.status,
                file=files[s.index][0] if s.index in files else None,
                criteria=len(s.criteria),
                usage=s.usage,
                sha256=files[s.index][1] if s.index in files else None,
            )
            for s in generation.sets
        ],
        usage=generation.usage,
        failures=[
            GenerationFailure(index=s.index, status=s.status, error=s.error, replies=s.replies)
            for s in generation.failures
        ],
    )
    return about.finished(**recorded_prompts((TEMPLATE,), prompts=generation.prompts), summary=summary)
