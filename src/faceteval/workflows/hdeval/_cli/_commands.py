"""``faceteval hdeval``: decompose criteria, train an aligned evaluator, apply it, report on it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from faceteval._cli.kit import (
    data_dir_option,
    engine_options,
    escape,
    force_flag,
    force_option,
    handle_errors,
    input_options,
    input_reading,
    input_source,
)
from faceteval._util.files import read_json_object
from faceteval._util.text import plural
from faceteval.core import Criterion
from faceteval.datasets import Reading
from faceteval.datasets.internal import PLAIN_READING
from faceteval.errors import BatchIncomplete, FacetevalError
from faceteval.metaeval import load_judgments, load_target
from faceteval.metaeval.internal import source_files, write_instances
from faceteval.methods.hdeval import DOMAINS, CriteriaTree, HierarchyAware, load_tree, render_tree, save_tree
from faceteval.store.internal import check_outputs, write_atomic
from faceteval.workflows.hdeval._cli._shared import (
    AGGREGATORS,
    EXPERIMENTS,
    HDEVAL_EXCLUDED,
    check_command_outputs,
    comma_names,
    console,
    decompose_with_llm,
    domain_option,
    score_criteria,
)
from faceteval.workflows.hdeval._cli._train import train_command
from faceteval.workflows.hdeval._records import EXPERIMENTS as EXPERIMENTS_KIND
from faceteval.workflows.hdeval._records import TREE

SHOWN_FAILURES = 5
"""Outputs that could not be scored shown when none was (the earlier scores are kept)."""

__all__ = ["AGGREGATORS", "EXPERIMENTS", "hdeval"]


@click.group()
def hdeval() -> None:
    """HD-Eval: hierarchical criteria, scored one by one, aggregated by a model learned from human scores."""


@hdeval.command()
@click.option(
    "--task",
    help="The task the outputs do, e.g. 'Summarize a news article.' (default with --domain: the "
    "domain's task, e.g. 'text summarization').",
)
@domain_option
@click.option("--background", default="", help="What the task is and what a good output is.")
@click.option("--criteria", "criteria_names", help="Comma-separated criteria to decompose (a new tree).")
@click.option(
    "--tree",
    "tree_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Decompose nodes of this tree instead (its leaves, or --node).",
)
@click.option("--node", "node_ids", multiple=True, help="A node of --tree to decompose (repeatable).")
@click.option(
    "--children", type=click.IntRange(1), default=4, show_default=True, help="About this many each."
)
@click.option(
    "--out", required=True, type=click.Path(dir_okay=False, path_type=Path), help="Tree file to write."
)
@force_option
@engine_options(exclude=HDEVAL_EXCLUDED)
@handle_errors
def decompose(**flags: Any) -> None:
    """Decompose criteria one layer deeper with the LLM; the result is a YAML / JSON file to edit by hand."""
    if flags["tree_path"]:
        if given := [flag for flag in ("task", "criteria_names", "background", "domain") if flags[flag]]:
            names = ", ".join("--criteria" if flag == "criteria_names" else f"--{flag}" for flag in given)
            raise click.UsageError(f"{names} start a new tree; --tree {flags['tree_path']} has its own")
        tree = load_tree(flags["tree_path"])
        nodes = list(flags["node_ids"]) or [n.id for n in tree.nodes() if not n.criterion.children]
    else:
        if flags["node_ids"]:
            raise click.UsageError("--node names a node of --tree: give the tree to decompose")
        if not (flags["task"] or flags["domain"]) or not flags["criteria_names"]:
            raise click.UsageError("give --task (or --domain) and --criteria, or an existing --tree")
        top = tuple(Criterion(name=name) for name in comma_names(flags["criteria_names"]))
        task = flags["task"] or DOMAINS[flags["domain"]].task
        tree = CriteriaTree(task=task, background=flags["background"], criteria=top, domain=flags["domain"])
        nodes = [n.id for n in tree.layer(1)]
    inputs = [flags["tree_path"]] if flags["tree_path"] else []
    check_command_outputs(flags, [(flags["out"], TREE)], inputs=inputs)
    tree = decompose_with_llm(flags, tree, nodes, flags["children"])
    save_tree(tree, flags["out"])
    console.print(render_tree(tree))
    console.print(f"Written to {escape(str(flags['out']))}: edit it freely, then train with --tree.")


@hdeval.command("apply")
@click.argument("evaluator_dir", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.argument("target_spec", metavar="BENCHMARK|FILE", required=False)
@click.option(
    "--out", required=True, type=click.Path(dir_okay=False, path_type=Path), help="Scored JSONL to write."
)
@click.option(
    "--features", "features_spec", metavar="SOURCE", help="Recorded criterion scores instead of an LLM."
)
@data_dir_option
@input_options(what="your file")
@click.option(
    "--force",
    is_flag=True,
    help="Score the criteria with a --model other than the evaluator's own, and write --out over files "
    "that are not this command's own output (never over its inputs, the cache or a directory).",
)
@engine_options(exclude=HDEVAL_EXCLUDED)
@handle_errors
def apply(**flags: Any) -> None:
    """Score new outputs: a score per target aspect, each criterion's contribution, ranks per query.

    The criteria are scored by the model the evaluator was trained with (its aggregator learned that
    model's scores), unless --features gives recorded ones; another --model needs --force.
    """
    from faceteval.workflows.hdeval._evaluator import (
        criteria_folder,
        evaluator_files,
        load_evaluator,
        score,
        scored_files,
    )
    from faceteval.workflows.hdeval._features import scores_from_judgments

    flags["target_spec"] = str(input_source(flags, "target_spec", "BENCHMARK|FILE"))
    evaluator_inputs = [path for path, _ in evaluator_files(flags["evaluator_dir"])]
    inputs = [*evaluator_inputs, *source_files(flags["target_spec"]), *source_files(flags["features_spec"])]
    check_command_outputs(flags, scored_files(flags["out"], by_llm=not flags["features_spec"]), inputs=inputs)
    evaluator = load_evaluator(flags["evaluator_dir"])
    model = None if flags["features_spec"] else _judge_model(flags, evaluator.model)
    target = _input_target(flags["target_spec"], flags["data_dir"], input_reading(flags))
    instances = list(target.instances)
    left: list[BatchIncomplete] = []  # with --batch: requests given up, said once the scores are written
    if flags["features_spec"]:
        source = load_judgments(flags["features_spec"], target, flags["data_dir"])
        node_scores = scores_from_judgments(source.judgments, list(evaluator.features))
        found = {node for scores in node_scores.scores.values() for node in scores}
        if lacking := [node for node in evaluator.features if node not in found]:
            raise FacetevalError(
                f"{source.name} scores none of the outputs on {len(lacking)} of the evaluator's "
                f"{plural(len(evaluator.features), 'criterion')} ({', '.join(map(repr, lacking[:5]))}"
                f"{' ...' if len(lacking) > 5 else ''}): give features judged on the criteria it was "
                "trained on, or leave out --features to score them with --model"
            )
    else:
        input_path = write_instances(criteria_folder(flags["out"]), instances)
        method = HierarchyAware.from_tree(evaluator.tree, evaluator.features)
        judgments = input_path.with_name("judgments.jsonl")
        node_scores = score_criteria(flags | {"model": model}, method, input_path, judgments, unanswered=left)
    rows = score(evaluator, instances, node_scores.scores)
    for row in rows:
        if row["id"] in node_scores.failed:
            row["status"] = "failed"
            row["error"] = node_scores.failed[row["id"]]
    _write_scores(flags["out"], rows, left)


def _write_scores(out: Path, rows: list[dict[str, Any]], left: list[BatchIncomplete]) -> None:
    """Write the scored ``rows`` to ``out``, unless none was scored and ``out`` holds earlier scores,
    which are then left as they were; say which.

    Raises:
        BatchIncomplete: Requests of ``--batch`` were given up (``left``), once the scores are written.
        click.exceptions.Exit: No output was scored (status 1).
    """
    scored = sum(row["status"] == "ok" for row in rows)
    kept = not scored and out.exists()  # nothing to put in place of the earlier scores
    if kept:
        for row in rows[:SHOWN_FAILURES]:
            console.print(f"[yellow]{escape(str(row['id']))}:[/] {escape(str(row.get('error') or ''))}")
        console.print(f"0 of {plural(len(rows), 'output')} scored; {escape(str(out))} is left as it was")
    else:
        write_atomic(out, "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
        console.print(f"{scored:,} of {plural(len(rows), 'output')} scored; written to {escape(str(out))}")
        if scored < len(rows):
            their = "its" if len(rows) - scored == 1 else "their"
            console.print(f"{len(rows) - scored:,} could not be scored (see {their} status and error)")
    if left:  # those that needed them failed: not a success (a run again asks them again)
        raise left[0]
    if kept or (rows and not scored):
        raise click.exceptions.Exit(1)


def _judge_model(flags: dict[str, Any], own: str | None) -> str:
    """The model that scores the criteria: the evaluator's ``own`` unless another is given, which
    needs --force (or ``own`` is unknown: the evaluator learned from recorded scores)."""
    given: str | None = flags["model"]
    if given is None or given == own:
        if own is None:
            raise click.UsageError(
                "the evaluator learned from recorded criterion scores, so it has no model of its own: "
                "give --model to score the criteria, or --features with recorded ones"
            )
        return own
    if own is None:
        return given
    if not flags["force"]:
        raise click.UsageError(
            f"{_as_given(given)} is not the evaluator's judge model {own}: its aggregator "
            f"learned from {own}'s criterion scores. Leave --model out to use {own}, or give --force "
            f"to score with {given} anyway"
        )
    console.print(f"[yellow]Scoring the criteria with {escape(given)}, not the evaluator's {escape(own)}[/]")
    return given


def _as_given(model: str) -> str:
    """``model`` as it was given: by the flag, the environment or faceteval.toml."""
    source = click.get_current_context().get_parameter_source("model")
    if source == click.core.ParameterSource.ENVIRONMENT:
        return f"FACETEVAL_MODEL={model}"
    if source == click.core.ParameterSource.DEFAULT_MAP:
        return f"faceteval.toml's model {model}"
    return f"--model {model}"


def _input_target(spec: str, data_dir: Path, reading: Reading = PLAIN_READING) -> Any:
    """A benchmark, or outputs to score (human scores not needed): a file (canonical JSONL, or JSON /
    CSV read as `meta-eval` reads a user's file; any format read by ``reading``), or a Hugging Face
    dataset."""
    from faceteval.datasets import InstanceFile, load_labelled
    from faceteval.metaeval import Target
    from faceteval.metaeval.internal import file_instances

    path = Path(spec)
    if path.is_file() or path.is_dir() or reading.format == "hf":
        lenient = reading.plain and path.suffix.lower() in (".json", ".csv", ".tsv")
        items = load_labelled(path, None) if lenient else InstanceFile(path, reading=reading)
        return Target(name=path.stem, kind="pointwise", instances=file_instances(path, items))
    if not reading.plain:
        raise click.UsageError(f"--field, --preset and --format describe your own file, and {spec} is none")
    return load_target(spec, data_dir)


@hdeval.command("experiment")
@click.argument("evaluator_dir", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option(
    "--run",
    "which",
    default=None,
    help=(
        "Comma-separated: ablations (Table 4), aggregators (Table 5), data (Fig. 4), criteria (Fig. 5), "
        "importance (each aggregator's, Figs. 6 and 8), shap (Figs. 7 and 9; needs faceteval[shap]). "
        "Default: all; shap when installed."
    ),
)
@force_flag("experiments.json, report.md and report.html")
@handle_errors
def experiment(evaluator_dir: Path, which: str | None, force: bool) -> None:
    """Re-run HD-Eval's analyses from the evaluator's stored criterion scores (no LLM call)."""
    import importlib.util

    from faceteval.workflows.hdeval._evaluator import EXPERIMENTS_FILE, analysis_files
    from faceteval.workflows.hdeval._experiments import run_experiments
    from faceteval.workflows.hdeval._report import write_evaluator_report

    check_outputs(analysis_files(evaluator_dir), given=evaluator_dir, option=None, force=force)

    if which is None:
        names = list(EXPERIMENTS)
        if importlib.util.find_spec("shap") is None:
            names.remove("shap")
            console.print("[yellow]shap is not installed: no SHAP plots (pip install 'faceteval[shap]')[/]")
    else:
        names = comma_names(which)
    results = run_experiments(
        evaluator_dir, names, progress=lambda name: console.print(f"running {escape(name)}...")
    )
    path = evaluator_dir / EXPERIMENTS_FILE
    keep = path.is_file() and (not force or EXPERIMENTS_KIND.holds(path))  # (not what --force overwrote)
    earlier = read_json_object(path) if keep else {}
    write_atomic(path, json.dumps({**earlier, **results}, indent=2) + "\n")
    markdown, html = write_evaluator_report(evaluator_dir)
    console.print(
        f"{escape(str(evaluator_dir / EXPERIMENTS_FILE))}\n{escape(str(markdown))}\n{escape(str(html))}"
    )


@hdeval.command("report")
@click.argument("evaluator_dir", type=click.Path(file_okay=False, exists=True, path_type=Path))
@force_flag("report.md and report.html")
@handle_errors
def report(evaluator_dir: Path, force: bool) -> None:
    """Write report.md and report.html: held-out results, importances, and any experiments run."""
    from faceteval.workflows.hdeval._evaluator import analysis_files
    from faceteval.workflows.hdeval._report import write_evaluator_report

    reports = analysis_files(evaluator_dir, experiments=False)
    check_outputs(reports, given=evaluator_dir, option=None, force=force)

    markdown, html = write_evaluator_report(evaluator_dir)
    console.print(f"{escape(str(markdown))}\n{escape(str(html))}")


hdeval.add_command(train_command)
