"""``faceteval hdeval``: decompose criteria, train an aligned evaluator, apply it, report on it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from faceteval._cli._app import handle_errors
from faceteval._cli._console import Console, err_console, escape
from faceteval._cli._display import interrupted_note, show_invalid
from faceteval._cli._hdeval_display import show_held_out
from faceteval._cli._options import (
    build_request,
    cache_of,
    data_dir_option,
    engine_options,
    force_flag,
    force_option,
    given_flags,
)
from faceteval._cli._run import open_llm, run_judge
from faceteval.core import Criterion, Instance
from faceteval.datasets import read_judgments
from faceteval.datasets._files import read_json_object
from faceteval.errors import FacetevalError
from faceteval.metaeval import load_judgments, load_target, write_instances
from faceteval.metaeval._judgments import source_files
from faceteval.methods.hdeval._decompose import decompose_tree
from faceteval.methods.hdeval._method import EvalNode, HierarchyAware
from faceteval.methods.hdeval._tree import CriteriaTree, Node, load_tree, render_tree, save_tree
from faceteval.store import EXPERIMENTS as EXPERIMENTS_KIND
from faceteval.store import TREE, check_outputs, write_atomic

if TYPE_CHECKING:
    from faceteval.methods.hdeval._train import NodeScores

console = Console(highlight=False, soft_wrap=True, emoji=False)

AGGREGATORS = ("lr", "dt", "rf", "mlp", "mean")
"""`faceteval.methods.hdeval.AGGREGATORS`, named here so the CLI starts without loading scikit-learn."""
EXPERIMENTS = ("ablations", "aggregators", "data", "criteria", "importance", "shap")
HDEVAL_EXCLUDED = ("--swap", "--trace", "--dry-run", "--criteria", "--aggregate", "--single")
"""Engine flags that do not apply here: outputs are judged alone, with traces, by the tree's criteria."""


@click.group()
def hdeval() -> None:
    """HD-Eval: hierarchical criteria, scored one by one, aggregated by a model learned from human scores."""


def _names(text: str) -> list[str]:
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        raise click.BadParameter("give comma-separated names")
    return names


@hdeval.command()
@click.option("--task", help="The task the outputs do, e.g. 'Summarize a news article.'")
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
        if given := [flag for flag in ("task", "criteria_names", "background") if flags[flag]]:
            names = ", ".join("--criteria" if flag == "criteria_names" else f"--{flag}" for flag in given)
            raise click.UsageError(f"{names} start a new tree; --tree {flags['tree_path']} has its own")
        tree = load_tree(flags["tree_path"])
        nodes = list(flags["node_ids"]) or [n.id for n in tree.nodes() if not n.criterion.children]
    else:
        if flags["node_ids"]:
            raise click.UsageError("--node names a node of --tree: give the tree to decompose")
        if not flags["task"] or not flags["criteria_names"]:
            raise click.UsageError("give --task and --criteria, or an existing --tree")
        top = tuple(Criterion(name=name) for name in _names(flags["criteria_names"]))
        tree = CriteriaTree(task=flags["task"], background=flags["background"], criteria=top)
        nodes = [n.id for n in tree.layer(1)]
    inputs = [flags["tree_path"]] if flags["tree_path"] else []
    _check_outputs(flags, [(flags["out"], TREE)], inputs=inputs)
    tree = _decompose(flags, tree, nodes, flags["children"])
    save_tree(tree, flags["out"])
    console.print(render_tree(tree))
    console.print(f"Written to {escape(str(flags['out']))}: edit it freely, then train with --tree.")


def _decompose(flags: dict[str, Any], tree: CriteriaTree, node_ids: Sequence[str], k: int) -> CriteriaTree:
    """``node_ids`` of ``tree`` decomposed into about ``k`` children each, by the LLM the flags name."""
    method = HierarchyAware.from_tree(tree)
    request = build_request(_engine(flags), input_path=Path(), out=None, method=method)
    with ExitStack() as stack:
        return decompose_tree(tree, node_ids, k, open_llm(request, stack))[0]


def _check_outputs(
    flags: dict[str, Any], targets: Sequence[tuple[Path, Any]], *, inputs: Sequence[Path]
) -> None:
    """Before any work: refuse outputs that would overwrite the inputs, the cache or files not ours."""
    check_outputs(targets, given=flags["out"], inputs=inputs, cache=cache_of(flags), force=flags["force"])


def _engine(flags: dict[str, Any]) -> dict[str, Any]:
    """The flags as the engine reads them: one order (outputs are judged alone), traces kept."""
    return flags | {"swap": False, "trace": True, "dry_run": False}


@hdeval.command("train")
@click.argument("target_spec", metavar="BENCHMARK|FILE")
@click.option("--target", "targets", required=True, help="Human score aspects to predict, comma-separated.")
@click.option(
    "--out", required=True, type=click.Path(file_okay=False, path_type=Path), help="Evaluator directory."
)
@click.option(
    "--tree",
    "tree_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Start from this tree (default: the target aspects as layer 1).",
)
@click.option("--layers", type=click.IntRange(1), default=3, show_default=True)
@click.option(
    "--children",
    type=click.IntRange(1),
    default=4,
    show_default=True,
    help="Children per decomposed criterion.",
)
@click.option(
    "--expand",
    type=click.IntRange(1),
    default=4,
    show_default=True,
    help="Criteria decomposed per layer after the second (pruning's top k).",
)
@click.option("--aggregator", type=click.Choice(AGGREGATORS), default="mlp", show_default=True)
@click.option(
    "--importance", type=click.Choice(["permutation", "shap"]), default="permutation", show_default=True
)
@click.option(
    "--train-frac", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.5, show_default=True
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the split and the aggregator.")
@click.option(
    "--features",
    "features_spec",
    metavar="SOURCE",
    help="Criterion scores already recorded (recorded:<name>, a judgments JSONL or run directory): "
    "no LLM call, one layer.",
)
@click.option("--limit", type=click.IntRange(4), help="Use only the first N instances.")
@click.option(
    "--resamples", type=click.IntRange(0), default=1000, show_default=True, help="Bootstrap resamples per CI."
)
@data_dir_option
@force_option
@engine_options(exclude=("--seed", *HDEVAL_EXCLUDED))
@handle_errors
def train_command(**flags: Any) -> None:
    """Learn how people weigh a hierarchy of criteria (HD-Eval Algorithm 1) and test it on held-out data.

    \b
    Examples:
      faceteval hdeval train summeval --target coherence,consistency,fluency,relevance \\
          --model openai:gpt-4o --layers 3 --children 4 --aggregator mlp --out evaluators/summeval
      faceteval hdeval train coeval-eli5 --features recorded:chatgpt --target Accuracy,Coherence \\
          --out evaluators/eli5
    """
    from faceteval.methods.hdeval._evaluator import evaluator_files, layer_judgments, save_evaluator
    from faceteval.methods.hdeval._features import recorded_scorer
    from faceteval.methods.hdeval._results import evaluator_info, evaluator_summary
    from faceteval.methods.hdeval._train import TrainConfig, check_trainable, initial_tree, train

    target = load_target(flags["target_spec"], flags["data_dir"])
    if target.kind != "pointwise":
        raise FacetevalError(
            f"{target.name} has pairwise labels; HD-Eval learns from human scores (pointwise)"
        )
    instances = list(target.instances[: flags["limit"]] if flags["limit"] else target.instances)
    targets = tuple(_targets(flags["targets"], instances))
    labelled = [i for i in instances if i.scores and all(t in i.scores for t in targets)]
    if len(labelled) < len(instances):  # left out before any call: there is nothing to learn from them
        console.print(
            f"[yellow]{len(instances) - len(labelled):,} of {len(instances):,} outputs have no human score "
            f"for every target ({escape(', '.join(targets))}): left out[/]"
        )
        instances = labelled
    benchmark = target.benchmark
    context = click.get_current_context()
    if flags["features_spec"] and (given := given_flags(context, "layers", "children", "expand")):
        raise click.UsageError(
            f"--features gives recorded scores of one layer of criteria, so {', '.join(given)} would do "
            "nothing: leave it out, or score the criteria with --model"
        )
    config = TrainConfig(
        targets=targets,
        layers=1 if flags["features_spec"] else flags["layers"],
        children=flags["children"],
        expand=flags["expand"],
        aggregator=flags["aggregator"],
        train_frac=flags["train_frac"],
        seed=flags["seed"],
        importance=flags["importance"],
        group_by=target.group_by,
    )
    task = next((i.task for i in instances if i.task), None) or target.name
    out: Path = flags["out"]
    inputs = [*source_files(flags["target_spec"]), *source_files(flags["features_spec"])]
    files = evaluator_files(out, layers=0 if flags["features_spec"] else config.layers)
    _check_outputs(flags, files, inputs=[*inputs, *([flags["tree_path"]] if flags["tree_path"] else [])])
    if flags["features_spec"]:
        source = load_judgments(flags["features_spec"], target, flags["data_dir"])
        names = [c.name for c in (benchmark.criteria if benchmark else ())] or sorted(
            {f.name for j in source.judgments for f in j.facets}
        )
        tree = load_tree(flags["tree_path"]) if flags["tree_path"] else initial_tree(task, names)
        trained = train(tree, instances, config, recorded_scorer(source.judgments))
        origin = f"{source.name} (recorded criterion scores)"
    else:
        tree = (
            load_tree(flags["tree_path"])
            if flags["tree_path"]
            else initial_tree(task, targets, benchmark.criteria if benchmark else ())
        )
        check_trainable(tree, instances, config, decomposes=True)  # before --out is made
        input_path = write_instances(out, instances)

        def score_nodes(nodes: Sequence[Node], layer: int) -> NodeScores:
            criteria = tuple(EvalNode.of(node) for node in nodes)
            method = HierarchyAware(task=tree.task, criteria=criteria, background=tree.background)
            return _score_criteria(flags, method, input_path, layer_judgments(out, layer))

        def decompose_nodes(current: CriteriaTree, node_ids: Sequence[str], k: int) -> CriteriaTree:
            return _decompose(flags, current, node_ids, k)

        trained = train(tree, instances, config, score_nodes, decompose_nodes)
        origin = flags["model"]
    described: dict[str, Any] = {
        "benchmark": target.name,
        "origin": origin,
        "group_by": target.group_by,
        "system_by": target.system_by,
        "level": benchmark.level if benchmark else None,
    }
    summary = evaluator_summary(trained, resamples=flags["resamples"], **described)
    info = evaluator_info(trained, **described)
    save_evaluator(out, trained, summary=summary, info=info)
    show_held_out(summary)
    console.print(
        f"Evaluator written to {escape(str(out))}/ "
        "(evaluator.json, tree.yaml, aggregator.skops, summary.json)"
    )


def _score_criteria(flags: dict[str, Any], method: HierarchyAware, input_path: Path, out: Path) -> NodeScores:
    """The instances of ``input_path`` scored on the method's criteria (judgments written to ``out``)."""
    from faceteval.methods.hdeval._features import scores_from_judgments

    out.parent.mkdir(parents=True, exist_ok=True)
    request = build_request(_engine(flags), input_path=input_path, out=out, method=method)
    result = run_judge(request, on_invalid=show_invalid)
    if result.stopped is not None:
        raise result.stopped
    if result.interrupted:
        err_console.print(interrupted_note(request))
        raise click.exceptions.Exit(130)
    return scores_from_judgments(read_judgments(out), [criterion.id for criterion in method.criteria or ()])


def _targets(text: str, instances: Sequence[Instance]) -> list[str]:
    wanted = _names(text)
    available: dict[str, str] = {}
    for instance in instances:
        for name in instance.scores or {}:
            available.setdefault(name.lower(), name)
    missing = [name for name in wanted if name.lower() not in available]
    if missing:
        raise click.BadParameter(
            f"no human scores for {', '.join(missing)}; available: {', '.join(sorted(available.values()))}",
            param_hint="--target",
        )
    return [available[name.lower()] for name in wanted]


@hdeval.command("apply")
@click.argument("evaluator_dir", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.argument("target_spec", metavar="BENCHMARK|FILE")
@click.option(
    "--out", required=True, type=click.Path(dir_okay=False, path_type=Path), help="Scored JSONL to write."
)
@click.option(
    "--features", "features_spec", metavar="SOURCE", help="Recorded criterion scores instead of an LLM."
)
@data_dir_option
@force_option
@engine_options(exclude=HDEVAL_EXCLUDED)
@handle_errors
def apply(**flags: Any) -> None:
    """Score new outputs: a score per target aspect, each criterion's contribution, ranks per query."""
    from faceteval.methods.hdeval._evaluator import (
        criteria_folder,
        evaluator_files,
        load_evaluator,
        score,
        scored_files,
    )
    from faceteval.methods.hdeval._features import scores_from_judgments

    evaluator_inputs = [path for path, _ in evaluator_files(flags["evaluator_dir"])]
    inputs = [*evaluator_inputs, *source_files(flags["target_spec"]), *source_files(flags["features_spec"])]
    _check_outputs(flags, scored_files(flags["out"], by_llm=not flags["features_spec"]), inputs=inputs)
    evaluator = load_evaluator(flags["evaluator_dir"])
    target = _input_target(flags["target_spec"], flags["data_dir"])
    instances = list(target.instances)
    if flags["features_spec"]:
        source = load_judgments(flags["features_spec"], target, flags["data_dir"])
        node_scores = scores_from_judgments(source.judgments, list(evaluator.features))
        found = {node for scores in node_scores.scores.values() for node in scores}
        if lacking := [node for node in evaluator.features if node not in found]:
            raise FacetevalError(
                f"{source.name} scores none of the outputs on {len(lacking)} of the evaluator's "
                f"{len(evaluator.features)} criteria ({', '.join(map(repr, lacking[:5]))}"
                f"{' ...' if len(lacking) > 5 else ''}): give features judged on the criteria it was "
                "trained on, or leave out --features to score them with --model"
            )
    else:
        input_path = write_instances(criteria_folder(flags["out"]), instances)
        method = HierarchyAware.from_tree(evaluator.tree, evaluator.features)
        node_scores = _score_criteria(flags, method, input_path, input_path.with_name("judgments.jsonl"))
    rows = score(evaluator, instances, node_scores.scores)
    for row in rows:
        if row["id"] in node_scores.failed:
            row["status"] = "failed"
            row["error"] = node_scores.failed[row["id"]]
    write_atomic(flags["out"], "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
    scored = sum(row["status"] == "ok" for row in rows)
    console.print(f"{scored} of {len(rows)} outputs scored; written to {escape(str(flags['out']))}")
    if scored < len(rows):
        console.print(f"{len(rows) - scored} could not be scored (see their status and error)")
    if rows and not scored:
        raise click.exceptions.Exit(1)


def _input_target(spec: str, data_dir: Path) -> Any:
    """A benchmark, or a file of outputs to score (human scores not needed): the canonical JSONL, or
    JSON / CSV read as `meta-eval` reads a user's file."""
    from faceteval.datasets import read_instances
    from faceteval.datasets._generic import load_labelled
    from faceteval.metaeval import Target
    from faceteval.metaeval._target import file_instances

    path = Path(spec)
    if path.is_file():
        items = read_instances(path) if path.suffix == ".jsonl" else load_labelled(path, None)
        return Target(name=path.stem, kind="pointwise", instances=file_instances(path, items))
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

    from faceteval.methods.hdeval._evaluator import EXPERIMENTS_FILE, analysis_files
    from faceteval.methods.hdeval._experiments import run_experiments
    from faceteval.methods.hdeval._report import write_evaluator_report

    check_outputs(analysis_files(evaluator_dir), given=evaluator_dir, option=None, force=force)

    if which is None:
        names = list(EXPERIMENTS)
        if importlib.util.find_spec("shap") is None:
            names.remove("shap")
            console.print("[yellow]shap is not installed: no SHAP plots (pip install 'faceteval[shap]')[/]")
    else:
        names = _names(which)
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
    from faceteval.methods.hdeval._evaluator import analysis_files
    from faceteval.methods.hdeval._report import write_evaluator_report

    reports = analysis_files(evaluator_dir, experiments=False)
    check_outputs(reports, given=evaluator_dir, option=None, force=force)

    markdown, html = write_evaluator_report(evaluator_dir)
    console.print(f"{escape(str(markdown))}\n{escape(str(html))}")
