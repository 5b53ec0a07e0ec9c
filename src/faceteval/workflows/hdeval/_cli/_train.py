"""``faceteval hdeval train``: learn how people weigh a hierarchy of criteria, and test it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from faceteval._cli.kit import (
    FiniteFloat,
    as_usage_error,
    data_dir_option,
    engine_options,
    escape,
    force_option,
    given_flags,
    group_by_option,
    handle_errors,
    input_options,
    input_reading,
    input_source,
)
from faceteval._util.text import plural
from faceteval.core import Instance, Judgment
from faceteval.datasets import read_human_labels, relabelled
from faceteval.errors import FacetevalError
from faceteval.metaeval import load_judgments, load_target
from faceteval.metaeval.internal import grouped, source_files, write_instances
from faceteval.methods.hdeval import CriteriaTree, EvalNode, HierarchyAware, Node, load_tree
from faceteval.prompts.internal import prompts_of, recorded_prompts
from faceteval.store import LLMRecord
from faceteval.store.internal import header, input_file
from faceteval.workflows.hdeval._cli._display import show_held_out
from faceteval.workflows.hdeval._cli._shared import (
    AGGREGATORS,
    HDEVAL_EXCLUDED,
    check_command_outputs,
    comma_names,
    console,
    decompose_with_llm,
    domain_option,
    score_criteria,
)
from faceteval.workflows.hdeval._records import TrainRecord

if TYPE_CHECKING:
    from faceteval.workflows.hdeval._train import NodeScores


@click.command("train")
@click.argument("target_spec", metavar="BENCHMARK|FILE", required=False)
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
    "--train-frac", type=FiniteFloat(0, 1, min_open=True, max_open=True), default=0.5, show_default=True
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the split and the aggregator.")
@click.option(
    "--features",
    "features_spec",
    metavar="SOURCE",
    help="Criterion scores already recorded (recorded:<name>, a judgments JSONL or run directory): "
    "no LLM call, one layer. A criterion named as a --target is left out, with a warning.",
)
@click.option(
    "--features-only",
    metavar="NAME[,NAME...]",
    help="With --features: keep only these criteria (a --target named here is kept).",
)
@domain_option
@click.option("--limit", type=click.IntRange(4), help="Use only the first N instances.")
@click.option(
    "--labels",
    "labels_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Human scores by id (JSONL of {id, scores}, as `review export --labels` writes) in place of the "
    "instances' own.",
)
@click.option(
    "--resamples", type=click.IntRange(0), default=1000, show_default=True, help="Bootstrap resamples per CI."
)
@data_dir_option
@input_options(what="your file")
@group_by_option(
    "the train/test split keeps each group on one side, and held-out correlations are also "
    "computed within each group (the summary level); in place of a benchmark's own."
)
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
    from faceteval.workflows.hdeval._evaluator import (
        RECORDED_SOURCE,
        evaluator_files,
        layer_judgments,
        save_evaluator,
    )
    from faceteval.workflows.hdeval._features import recorded_scorer
    from faceteval.workflows.hdeval._results import evaluator_info, evaluator_summary
    from faceteval.workflows.hdeval._train import TrainConfig, check_trainable, initial_tree, train

    started = datetime.now(UTC)
    flags["target_spec"] = str(input_source(flags, "target_spec", "BENCHMARK|FILE"))
    reading = input_reading(flags)
    target = load_target(flags["target_spec"], flags["data_dir"], reading=reading)
    if not reading.model_copy(update={"system_by": None}).plain and target.benchmark is not None:
        raise click.UsageError(
            f"--field, --preset, --format and --id describe your own file; {target.name} is built in"
        )
    if flags["features_only"] and not flags["features_spec"]:
        raise click.UsageError("--features-only chooses among the criteria of --features: give --features")
    with as_usage_error():
        target = grouped(target, flags["group_by"], flags["system_by"])
    if target.kind != "pointwise":
        raise FacetevalError(
            f"{target.name} has pairwise labels; HD-Eval learns from human scores (pointwise)"
        )
    instances = list(target.instances[: flags["limit"]] if flags["limit"] else target.instances)
    if flags["labels_path"] is not None:
        instances = relabelled(instances, read_human_labels(flags["labels_path"]))
    targets = tuple(_targets(flags["targets"], instances))
    labelled = [i for i in instances if i.scores and all(t in i.scores for t in targets)]
    if len(labelled) < len(instances):  # left out before any call: there is nothing to learn from them
        console.print(
            f"[yellow]{len(instances) - len(labelled):,} of {plural(len(instances), 'output')} "
            f"{'has' if len(instances) - len(labelled) == 1 else 'have'} no human score "
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
        system_by=target.system_by,
    )
    task = next((i.task for i in instances if i.task), None) or target.name
    domain = flags["domain"] or (benchmark.task_type if benchmark else None)
    out: Path = flags["out"]
    inputs = [*source_files(flags["target_spec"]), *source_files(flags["features_spec"])]
    files = evaluator_files(out, layers=0 if flags["features_spec"] else config.layers)
    check_command_outputs(
        flags, files, inputs=[*inputs, *([flags["tree_path"]] if flags["tree_path"] else [])]
    )
    model: str | None
    judge_scores: dict[str, dict[str, float]] = {}
    if flags["features_spec"]:
        source = load_judgments(flags["features_spec"], target, flags["data_dir"])
        names = [c.name for c in (benchmark.criteria if benchmark else ())] or sorted(
            {f.name for j in source.judgments for f in j.facets}
        )
        tree = recorded_tree(flags, names, targets, initial_tree(task, names, domain=domain))
        kept = [criterion.name for criterion in tree.criteria]
        left_out = [t for t in targets if t.casefold() not in _folded(kept)]
        judge_scores = aspect_scores(source.judgments, left_out)  # measured beside, as the judge's own
        trained = train(tree, instances, config, recorded_scorer(source.judgments))
        origin, model = f"{source.name}{RECORDED_SOURCE}", None
    else:
        tree = (
            load_tree(flags["tree_path"])
            if flags["tree_path"]
            else initial_tree(task, targets, benchmark.criteria if benchmark else (), domain=domain)
        )
        check_trainable(tree, instances, config, decomposes=True)  # before --out is made
        input_path = write_instances(out, instances)

        def score_nodes(nodes: Sequence[Node], layer: int) -> NodeScores:
            criteria = tuple(EvalNode.of(node) for node in nodes)
            method = HierarchyAware(
                task=tree.task, criteria=criteria, background=tree.background, domain=tree.domain
            )
            return score_criteria(flags, method, input_path, layer_judgments(out, layer))

        def decompose_nodes(current: CriteriaTree, node_ids: Sequence[str], k: int) -> CriteriaTree:
            return decompose_with_llm(flags, current, node_ids, k)

        trained = train(tree, instances, config, score_nodes, decompose_nodes)
        origin = model = flags["model"]
    described: dict[str, Any] = {
        "benchmark": target.name,
        "origin": origin,
        "group_by": target.group_by,
        "system_by": target.system_by,
        # HD-Eval reads its results per output (Table 1: segment level); the other levels go beside
        "level": "sample",
    }
    summary = evaluator_summary(trained, resamples=flags["resamples"], judge_scores=judge_scores, **described)
    info = evaluator_info(trained, model=model, **described)
    about = _about(flags, started)
    if not flags["features_spec"]:  # the templates the LLM was asked with, as judge's records name them
        evaluate = HierarchyAware(task=tree.task, criteria=tree.nodes(), domain=tree.domain).template
        used = ("hdeval/decompose", evaluate, "common/reask")
        prompts = prompts_of(flags.get("templates"), prefix_cache=bool(flags.get("prefix_cache")))
        about = about.model_copy(update=recorded_prompts(used, prompts=prompts))
    save_evaluator(out, trained, summary=summary, info=info, about=about)
    show_held_out(summary)
    console.print(
        f"Evaluator written to {escape(str(out))}/ "
        "(evaluator.json, tree.yaml, aggregator.skops, summary.json)"
    )


def _about(flags: dict[str, Any], started: datetime) -> TrainRecord:
    """What the training's record says of the run beside the evaluator: its start, the files it read,
    the model that scored the criteria, and the options the training's own do not hold."""
    read = [*source_files(flags["target_spec"])[:1], *source_files(flags["features_spec"])]
    inputs = {"input": read[0]} if read and read[0].is_file() else {}
    if flags["features_spec"] and (files := [path for path in read[1:] if path.is_file()]):
        inputs["features"] = files[0]
    if flags["tree_path"]:
        inputs["tree"] = flags["tree_path"]
    recorded = {role: input_file(path) for role, path in inputs.items()}
    if "input" in recorded and not (reading := input_reading(flags)).plain:  # how the file was read
        read_as = reading.model_dump(mode="json", exclude_none=True)
        recorded["input"] = recorded["input"].model_copy(update={"read_as": read_as})
    return TrainRecord(
        **header("hdeval train", started),
        inputs=recorded,
        output=str(flags["out"]),
        llm=None if flags["features_spec"] else LLMRecord(model=flags["model"]),
        options={"limit": flags["limit"], "resamples": flags["resamples"]},
    )


def recorded_tree(
    flags: dict[str, Any], names: Sequence[str], targets: Sequence[str], default: CriteriaTree
) -> CriteriaTree:
    """The one layer of recorded criteria learned from: ``--tree``'s (else ``default``, of ``names``),
    of the criteria `feature_names` keeps."""
    tree = load_tree(flags["tree_path"]) if flags["tree_path"] else default
    kept = feature_names([c.name for c in tree.criteria], targets, flags["features_only"])
    return replace(tree, criteria=tuple(c for c in tree.criteria if c.name in kept))


def feature_names(names: Sequence[str], targets: Sequence[str], only: str | None) -> list[str]:
    """The recorded criteria the aggregator learns from: those ``only`` names (``--features-only``), else
    every one but a criterion named as a target (said in a warning: its own score would be a feature of
    the human score it is to predict).

    Raises:
        click.UsageError: ``only`` names a criterion the features do not have, or none is left.
    """
    if only is not None:
        wanted = comma_names(only)
        by_name = {name.casefold(): name for name in names}
        if unknown := [name for name in wanted if name.casefold() not in by_name]:
            raise click.UsageError(
                f"--features-only {', '.join(unknown)}: no such criterion in --features; the criteria are: "
                f"{', '.join(names)}"
            )
        return [by_name[name.casefold()] for name in dict.fromkeys(wanted)]
    aimed = _folded(targets)
    if dropped := [name for name in names if name.casefold() in aimed]:
        console.print(
            f"[yellow]--features: left out {escape(', '.join(dropped))}: named as "
            f"{'a target' if len(dropped) == 1 else 'targets'}, a judge's score of the aspect would be one "
            "of the features its human score is learned from (name it in --features-only to keep it); "
            "it is still measured as the judge on the aspect[/]"
        )
    kept = [name for name in names if name.casefold() not in aimed]
    if not kept:
        raise click.UsageError(
            f"--features has no criterion but the targets ({', '.join(names)}): give other --target "
            "aspects, or keep some with --features-only"
        )
    return kept


def aspect_scores(judgments: Iterable[Judgment], targets: Sequence[str]) -> dict[str, dict[str, float]]:
    """Per target, each judgment's score of the criterion of its name (the judge on the aspect)."""
    wanted = {target.casefold(): target for target in targets}
    scores: dict[str, dict[str, float]] = {target: {} for target in targets}
    for judgment in judgments:
        if judgment.status != "ok":
            continue
        for facet in judgment.facets:
            target = wanted.get(facet.name.casefold())
            if target is not None and facet.scores and facet.scores[0] is not None:
                scores[target][judgment.id] = float(facet.scores[0])
    return {target: found for target, found in scores.items() if found}


def _folded(names: Iterable[str]) -> set[str]:
    return {name.casefold() for name in names}


def _targets(text: str, instances: Sequence[Instance]) -> list[str]:
    wanted = comma_names(text)
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
