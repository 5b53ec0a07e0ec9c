"""``faceteval criteria``: generate task criteria (CoEval), and their consistency (``show`` is HD-Eval's)."""

from __future__ import annotations

import json
import time
from contextlib import ExitStack
from dataclasses import replace
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import click
from rich.table import Table

from faceteval._cli.kit import (
    Console,
    FiniteFloat,
    batch_first,
    build_job,
    cache_of,
    calls_line,
    engine_options,
    err_console,
    escape,
    force_flag,
    handle_errors,
    hub_offline,
    open_llm,
)
from faceteval._runner import BatchDone, spent_since, templates_of, with_batch
from faceteval._util.text import plural
from faceteval.errors import FacetevalError
from faceteval.llm import Spend
from faceteval.methods.coeval import CoEvalDirect
from faceteval.store import LLMRecord
from faceteval.store.internal import check_outputs, header, spend_of, write_atomic
from faceteval.workflows.coeval._consistency import (
    DEFAULT_EMBEDDING_MODEL,
    ConsistencyReport,
    criteria_set_files,
    load_criteria_sets,
    load_embedder,
    measure_consistency,
)
from faceteval.workflows.coeval._generate import (
    DEFAULT_SAMPLES,
    DEFAULT_TEMPERATURE,
    GENERATION_FILE,
    REFERENCE_FILE,
    SAMPLES_DIR,
    CriteriaGeneration,
    Demonstration,
    check_edits,
    generate_criteria_async,
    generation_files,
    save_generation,
)
from faceteval.workflows.coeval._records import CONSISTENCY, GenerationRecord

console = Console(highlight=False, soft_wrap=True, emoji=False)


@click.group()
def criteria() -> None:
    """Criteria: show a tree; generate task criteria with an LLM (CoEval); measure their consistency."""


GENERATE_EXCLUDED = (
    "--swap",
    "--trace",
    "--dry-run",
    "--criteria",
    "--temperature",
    "--quiet",
)
"""Engine flags that do not apply: sets are generated with their own temperatures, traces kept."""


@criteria.command("generate")
@click.option(
    "--task", required=True, help="The task description, e.g. 'Answer Reddit questions for a child.'"
)
@click.option("--example-input", required=True, help="The demonstration's input (x), e.g. a question.")
@click.option("--example-output", required=True, help="The demonstration's output (y), e.g. an answer.")
@click.option(
    "--samples",
    type=click.IntRange(0, 1000),
    default=DEFAULT_SAMPLES,
    show_default=True,
    help="Sampled sets besides the temperature-0 one.",
)
@click.option(
    "--temperature",
    type=FiniteFloat(min=0),
    default=DEFAULT_TEMPERATURE,
    show_default=True,
    help="Temperature of the sampled sets (the reference set is generated at 0).",
)
@click.option(
    "--out", required=True, type=click.Path(file_okay=False, path_type=Path), help="Directory to write."
)
@click.option(
    "--force",
    is_flag=True,
    help="Overwrite files in OUT edited since they were generated, or not written by this command (a "
    "database, a file of another kind); never a directory. By default nothing is written.",
)
@engine_options(exclude=GENERATE_EXCLUDED)
@handle_errors
def generate(**flags: Any) -> None:
    """Generate task-level criteria (CoEval, Section 4.1): a temperature-0 set and sampled sets.

    Writes OUT/criteria.yaml (the temperature-0 set, for judge --criteria), OUT/samples/sample-NN.yaml
    and OUT/generation.json (task, example, model, usage, failures with their raw replies). Edit the
    YAML files freely: generating into OUT again refuses to overwrite or remove an edited file, or
    one of something else (before any call) unless --force. `faceteval criteria consistency OUT`
    compares the sets. Each set is cached on its own (re-running makes no call); with --seed S,
    sample k is sent the seed S + k.

    \b
    Examples:
      faceteval criteria generate --task "Answer Reddit questions so a five-year-old understands." \\
          --example-input "How is perfume made?" --example-output "..." --samples 10 \\
          --temperature 0.7 --model openai:gpt-4o-mini --out criteria/eli5
    """
    out: Path = flags.pop("out")
    force: bool = flags.pop("force")
    files = generation_files(out, samples=flags["samples"])
    check_outputs(files, given=out, cache=cache_of(flags), force=force)
    check_edits(out, samples=flags["samples"], force=force)
    engine = flags | {"swap": False, "trace": True, "dry_run": False, "quiet": True, "temperature": 0.0}
    # The engine's request carries a method; generation uses only its LLM settings.
    request = build_job(engine, input_path=Path(), out=None, method=CoEvalDirect())
    example = Demonstration(flags["example_input"], flags["example_output"])
    started, clock = datetime.now(UTC), time.perf_counter()
    with ExitStack() as stack:
        llm = open_llm(request, stack, batched=True)
        generate = partial(
            generate_criteria_async,
            flags["task"],
            example,
            llm,
            samples=flags["samples"],
            temperature=flags["temperature"],
            templates=templates_of(request.options),
        )
        told: list[tuple[BatchDone, Spend]] = []  # with --batch: its rounds, and the use before the last pass

        def batches_done(done: BatchDone) -> None:
            told.append((done, replace(llm.spent)))

        generating = batch_first(
            request, llm, None, lambda _: generate(), generate, told=batches_done, raise_incomplete=False
        )
        generation = anyio.run(llm.closing_after, generating)
        batch, before = told[0] if told else (None, Spend())
        spent = spent_since(llm.spent, before)  # the last pass only, as judge's record counts it
        about = GenerationRecord(
            **header("criteria generate", started),
            output=str(out),
            llm=LLMRecord.of(llm.describe()),
            spend=spend_of(with_batch(spent, batch), time.perf_counter() - clock),
            batch=None if batch is None else batch.record,
        )
        save_generation(generation, out, model=flags["model"], force=force, about=about)  # its templates'
    _show_generation(generation, out, spent)
    if batch is not None and (incomplete := batch.incomplete()) is not None:  # written, with the failures
        raise incomplete
    if generation.reference.status != "ok":
        raise FacetevalError(
            f"the temperature-0 set could not be generated ({generation.reference.error}); "
            f"its replies are in {out / GENERATION_FILE}"
        )


def _show_generation(generation: CriteriaGeneration, out: Path, spent: Spend) -> None:
    if generation.reference.status == "ok":
        console.print(f"[bold]Criteria[/] (temperature 0), in {escape(str(out / REFERENCE_FILE))}:")
        for k, criterion in enumerate(generation.reference.criteria, 1):
            console.print(f"  {k}. {escape(criterion.describe())}")
    ok = sum(s.status == "ok" for s in generation.samples)
    console.print(
        f"{ok} of {len(generation.samples)} sampled sets (temperature {generation.temperature:g}) "
        f"in {escape(str(out / SAMPLES_DIR))}/"
    )
    for failed in generation.failures:
        which = "temperature-0 set" if failed.index == 0 else f"sample {failed.index}"
        err_console.print(f"[yellow]{which}: {failed.status}:[/] {escape(failed.error or '')}")
    console.print(f"{calls_line(generation.usage, spent)} Summary in {escape(str(out / GENERATION_FILE))}")


@criteria.command("consistency")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--embedding-model",
    default=DEFAULT_EMBEDDING_MODEL,
    show_default=True,
    help="A sentence-transformers model name or directory (the default is bundled and offline).",
)
@click.option(
    "--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), help="Write the scores."
)
@force_flag("--json")
@handle_errors
def consistency(directory: Path, embedding_model: str, json_path: Path | None, force: bool) -> None:
    """CC and ICC (CoEval, Equations 1-2) of the criteria sets in DIRECTORY (from `criteria generate`).

    CC: how well each temperature-0 criterion is matched in each sample; ICC: how well each sampled
    criterion is matched in every other sample (cosine similarity of sentence embeddings).

    \b
    Examples:
      faceteval criteria consistency criteria/eli5 --json cons.json
    """
    if json_path is not None:
        inputs = criteria_set_files(directory)
        check_outputs(
            [(json_path, CONSISTENCY)], given=json_path, option="--json", inputs=inputs, force=force
        )
    sets = load_criteria_sets(directory)
    if embedding_model == DEFAULT_EMBEDDING_MODEL:
        hub_offline()  # the bundled model needs no network
    report = measure_consistency(sets, load_embedder(embedding_model))
    if json_path is not None:
        write_atomic(json_path, json.dumps(report.to_dict(), indent=2) + "\n")
    _show_consistency(report)


def _show_consistency(report: ConsistencyReport) -> None:
    scores, sets = report.scores, report.sets
    table = Table(
        title=f"Criteria consistency ({plural(len(sets.samples), 'sample')}, "
        f"{plural(len(sets.reference), 'reference criterion')}; "
        f"embeddings: {escape(report.model)})",
        title_justify="left",
    )
    for column in ("set", "criteria", "CC", "ICC"):
        table.add_column(column, justify="left" if column == "set" else "right")
    icc_each = scores.icc_per_sample or (None,) * len(sets.samples)
    for name, criteria_set, cc, icc in zip(
        sets.names, sets.samples, scores.cc_per_sample, icc_each, strict=True
    ):
        table.add_row(escape(name), str(len(criteria_set)), f"{cc:.3f}", _score(icc))
    table.add_row(
        "all", str(sum(map(len, sets.samples))), f"{scores.cc:.3f}", _score(scores.icc), style="bold"
    )
    console.print(table)
    if scores.icc is None:
        console.print("ICC needs at least two sampled sets.")


def _score(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"
