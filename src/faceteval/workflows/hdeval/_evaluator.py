"""A trained evaluator on disk (tree + aggregator + what it was trained on), and applying it.

An evaluator directory holds ``evaluator.json`` (the training's run record: targets, the aggregator's
feature order, their background, how it was trained), ``tree.yaml``, ``aggregator.skops`` (a safe
format: only allowlisted types are ever loaded), ``features.jsonl`` (every criterion score it was
trained and tested on) and ``summary.json``.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from faceteval._util.files import make_private_dirs, read_json_object, read_jsonl
from faceteval._util.numbers import number, rounded
from faceteval._util.text import first_few, plural
from faceteval.core import Instance
from faceteval.errors import FacetevalError, InputError
from faceteval.methods.hdeval import CriteriaTree, load_tree, save_tree
from faceteval.store import OutputKind, read_record, record_path_for
from faceteval.store.internal import INSTANCES, JUDGMENTS, REPORT, RUN_RECORD, write_atomic
from faceteval.workflows.hdeval._importance import contributions
from faceteval.workflows.hdeval._records import AGGREGATOR as AGGREGATOR_KIND
from faceteval.workflows.hdeval._records import (
    CRITERION_SCORES,
    EVALUATOR_SUMMARY,
    EXPERIMENTS,
    SCORED,
    TrainRecord,
    TrainSummary,
)
from faceteval.workflows.hdeval._records import EVALUATOR as EVALUATOR_KIND
from faceteval.workflows.hdeval._records import TREE as TREE_KIND
from faceteval.workflows.hdeval._store import load_aggregator, save_aggregator
from faceteval.workflows.hdeval._train import Matrix, Trained, predict

EVALUATOR, TREE, AGGREGATOR, FEATURES, SUMMARY = (
    "evaluator.json",
    "tree.yaml",
    "aggregator.skops",
    "features.jsonl",
    "summary.json",
)

RECORDED_SOURCE = " (recorded criterion scores)"
"""How ``evaluator.json``'s ``source`` ends when the evaluator learned from recorded scores, not an LLM's."""

EXPERIMENTS_FILE = "experiments.json"
STALE = (EXPERIMENTS_FILE, "report.md", "report.html")
"""Files describing a previous evaluator in the same directory."""


def evaluator_files(out: Path, *, layers: int = 0) -> list[tuple[Path, OutputKind]]:
    """The files `faceteval hdeval train` writes (or removes) in ``out``, each with its kind (see
    `faceteval.store.internal.check_outputs`); with ``layers``, also the criterion judgments of a
    training that scores that many layers with an LLM."""
    files = [
        (out / EVALUATOR, EVALUATOR_KIND),
        (out / TREE, TREE_KIND),
        (out / AGGREGATOR, AGGREGATOR_KIND),
        (out / FEATURES, CRITERION_SCORES),
        (out / SUMMARY, EVALUATOR_SUMMARY),
        *analysis_files(out),
    ]
    if layers:
        files.append((out / "instances.jsonl", INSTANCES))
    for layer in range(1, layers + 1):
        judgments = layer_judgments(out, layer)
        files += [(judgments, JUDGMENTS), (record_path_for(judgments), RUN_RECORD)]
    return files


def analysis_files(directory: Path, *, experiments: bool = True) -> list[tuple[Path, OutputKind]]:
    """The files `faceteval hdeval experiment` (with ``experiments``) and `hdeval report` write in an
    evaluator directory, each with its kind."""
    reports = [(directory / "report.md", REPORT), (directory / "report.html", REPORT)]
    return ([(directory / EXPERIMENTS_FILE, EXPERIMENTS)] if experiments else []) + reports


def scored_files(out: Path, *, by_llm: bool) -> list[tuple[Path, OutputKind]]:
    """The files `faceteval hdeval apply` writes: the scored outputs ``out`` and, when the LLM scores
    the criteria (``by_llm``), the instances and judgments in `criteria_folder` beside it."""
    files = [(out, SCORED)]
    if by_llm:
        judgments = criteria_folder(out) / "judgments.jsonl"
        files += [(criteria_folder(out) / "instances.jsonl", INSTANCES), (judgments, JUDGMENTS)]
        files.append((record_path_for(judgments), RUN_RECORD))
    return files


def criteria_folder(out: Path) -> Path:
    """Where `faceteval hdeval apply` keeps the LLM's criterion judgments of the outputs it scores.

    Examples:
        >>> criteria_folder(Path("scored.jsonl")).as_posix()
        'scored.criteria'
    """
    return out.with_suffix(".criteria")


def layer_judgments(out: Path, layer: int) -> Path:
    """Where training writes the LLM's criterion judgments of ``layer``.

    Examples:
        >>> layer_judgments(Path("ev"), 2).as_posix()
        'ev/judgments/layer-2.jsonl'
    """
    return out / "judgments" / f"layer-{layer}.jsonl"


@dataclass(frozen=True, slots=True)
class Evaluator:
    """A finalized criteria tree and aggregator, ready to score new outputs."""

    tree: CriteriaTree
    targets: tuple[str, ...]
    features: tuple[str, ...]
    """Node ids in the aggregator's column order."""
    aggregator: Any
    background: tuple[float, ...]
    """Mean training score of each criterion: the reference point of each contribution."""
    info: Mapping[str, Any]
    """Everything else ``evaluator.json`` says (aggregator kind, source, sizes)."""

    def nodes(self) -> list[Any]:
        """The tree's nodes the aggregator reads, in column order."""
        return [self.tree.find(node_id) for node_id in self.features]

    @property
    def model(self) -> str | None:
        """The model (``provider:model``) whose criterion scores the aggregator learned from; None when
        it learned from recorded scores. (An evaluator written before ``evaluator.json`` named its
        ``model`` has it as its ``source``.)"""
        if "model" in self.info:
            return self.info["model"]  # type: ignore[no-any-return]
        source = self.info.get("source")
        return source if isinstance(source, str) and source and not source.endswith(RECORDED_SOURCE) else None


def save_evaluator(
    out: Path,
    trained: Trained,
    *,
    summary: Mapping[str, Any],
    info: Mapping[str, Any],
    about: TrainRecord | None = None,
) -> TrainRecord:
    """Write the evaluator directory ``out``; analyses of an earlier evaluator there are removed.

    ``evaluator.json`` is the training's run record (`faceteval.store.TrainRecord`): what ``about``
    says of the run (its start, the LLM, the inputs), the training's options, and the evaluator's
    targets, features, background and ``info`` (`faceteval.methods.hdeval.evaluator_info`).

    Returns:
        The record written to ``evaluator.json``.
    """
    make_private_dirs(out)
    for stale in STALE:
        (out / stale).unlink(missing_ok=True)
    save_tree(trained.tree, out / TREE)
    save_aggregator(trained.aggregator, out / AGGREGATOR)
    record = _record(trained, info, about)
    write_atomic(out / EVALUATOR, record.to_json())
    lines = []
    for row, instance_id in enumerate(trained.ids):
        lines.append(
            json.dumps(
                {
                    "id": instance_id,
                    "split": "train" if trained.train[row] else "test",
                    "features": dict(zip(trained.features, trained.x[row].tolist(), strict=True)),
                    "targets": dict(zip(trained.config.targets, trained.y[row].tolist(), strict=True)),
                    "metadata": _plain(trained.metadata.get(instance_id, {})),
                },
                ensure_ascii=False,
            )
        )
    write_atomic(out / FEATURES, "".join(f"{line}\n" for line in lines))
    _write_json(out / SUMMARY, dict(summary))
    return record


def _record(trained: Trained, info: Mapping[str, Any], about: TrainRecord | None) -> TrainRecord:
    """The training's run record: ``about``'s, with its options, the evaluator as its summary, and the
    time it finished."""
    about = about or TrainRecord()
    config = trained.config
    options = {
        "layers": config.layers,
        "children": config.children,
        "expand": config.expand,
        "aggregator": config.aggregator,
        "importance": config.importance,
        "train_frac": config.train_frac,
        "seed": config.seed,
    }
    summary = TrainSummary(
        targets=list(config.targets),
        features=list(trained.features),
        background=[float(v) for v in trained.x[trained.train].mean(axis=0)],
        aggregator=config.aggregator,
        **info,
    )
    return about.finished(options={**options, **about.options}, summary=summary)


def load_evaluator(directory: Path) -> Evaluator:
    """The evaluator in ``directory``.

    ``evaluator.json`` is read through the run record (`faceteval.store.TrainRecord`); one in the
    format written before it (``format``, ``version``) is read too.

    Raises:
        FacetevalError: Not an evaluator directory, a newer format, or a model file with types outside
            the allowlist (it is then not loaded at all).
        InputError: ``evaluator.json`` is not an evaluator's record, or a field is not as it should
            be (named).
    """
    path = directory / EVALUATOR
    if not path.is_file():
        raise FacetevalError(f"{directory}: not an HD-Eval evaluator (no {EVALUATOR})")
    record = read_record(path, TrainRecord).summary
    targets, features = _names(record.targets, "targets", path), _names(record.features, "features", path)
    if (model := record.model) is not None and not (isinstance(model, str) and model):
        raise InputError(str(path), None, "model", "expected provider:model or null")
    background = record.background
    if not isinstance(background, list) or not all(number(v) is not None for v in background):
        problem = "missing" if background is None else "expected a list of numbers, one per feature"
        raise InputError(str(path), None, "background", problem)
    tree = load_tree(directory / TREE)
    known = {node.id for node in tree.nodes()}
    if unknown := [f for f in features if f not in known]:
        raise FacetevalError(f"{path}: features not in {TREE}: {', '.join(unknown[:5])}")
    aggregator = load_aggregator(directory / AGGREGATOR)
    expected = getattr(aggregator, "n_features_in_", len(features))
    if not expected == len(features) == len(background):
        raise FacetevalError(
            f"{directory}: {AGGREGATOR} takes {plural(expected, 'criterion score')}, but {EVALUATOR} lists "
            f"{plural(len(features), 'feature')} (and {plural(len(background), 'background value')}): the "
            "files are not of one evaluator"
        )
    outputs = predict(aggregator, np.array([background], dtype=np.float64)).shape[1]
    if outputs != len(targets):
        raise FacetevalError(
            f"{directory}: {AGGREGATOR} predicts {plural(outputs, 'target')}, but {EVALUATOR} lists "
            f"{len(targets)} ({', '.join(targets)}): the files are not of one evaluator"
        )
    return Evaluator(
        tree=tree,
        targets=targets,
        features=features,
        aggregator=aggregator,
        background=tuple(float(v) for v in background if isinstance(v, int | float)),
        info=record.model_dump(exclude={"targets", "features", "background"}, exclude_unset=True),
    )


def _names(value: Any, key: str, path: Path) -> tuple[str, ...]:
    """The non-empty list of distinct names ``value`` (the record's ``key``)."""
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        problem = "missing" if value is None else "expected a non-empty list of names"
        raise InputError(str(path), None, key, problem)
    if repeated := sorted({v for v in value if value.count(v) > 1}):
        raise InputError(str(path), None, key, f"repeats {', '.join(map(repr, repeated))}")
    return tuple(value)


def read_features(
    directory: Path, features: Sequence[str] = (), targets: Sequence[str] = ()
) -> list[dict[str, Any]]:
    """The rows of ``features.jsonl``: id, split, features, targets, metadata.

    Raises:
        InputError: A row's split is not ``train`` or ``test``, or it lacks a score of one of
            ``features`` or ``targets`` (named with its line).
    """
    path = directory / FEATURES
    if not path.is_file():
        raise FacetevalError(f"{directory}: no {FEATURES}")
    rows = []
    for line, row in read_jsonl(path):
        if row.get("split") not in ("train", "test"):
            raise InputError(
                str(path), line, "split", f"expected 'train' or 'test', got {row.get('split')!r}"
            )
        for key, names in (("features", features), ("targets", targets)):
            scores = row.get(key)
            if not isinstance(scores, Mapping):
                raise InputError(str(path), line, key, "missing" if scores is None else "expected a mapping")
            for name in names:
                if number(scores.get(name)) is None:
                    problem = "missing" if scores.get(name) is None else "expected a number"
                    raise InputError(str(path), line, f"{key}.{name}", problem)
        if not isinstance(row.get("metadata", {}), Mapping):
            raise InputError(str(path), line, "metadata", "expected a mapping")
        rows.append(row)
    return rows


def read_summary(directory: Path) -> dict[str, Any]:
    """The evaluator's ``summary.json``."""
    path = directory / SUMMARY
    if not path.is_file():
        raise FacetevalError(f"{directory}: not an HD-Eval evaluator (no {SUMMARY})")
    return read_json_object(path)


def score(
    evaluator: Evaluator, instances: Sequence[Instance], scores: Mapping[str, Mapping[str, float]]
) -> list[dict[str, Any]]:
    """Scores per target, each criterion's contribution, and ranks among outputs of the same query.

    Scores and contributions are rounded to 6 significant digits (`faceteval._util.numbers.rounded`), and
    ranked as rounded: outputs shown with the same score share a rank.

    ``scores`` holds each instance's criterion scores (node id -> score); an instance missing any is
    returned with ``status`` ``incomplete``, the criteria it lacks and an ``error`` saying so, not scored.
    """
    complete = [i for i in instances if all(f in scores.get(i.id, {}) for f in evaluator.features)]
    rows: dict[str, dict[str, Any]] = {}
    if complete:
        x = np.array([[scores[i.id][f] for f in evaluator.features] for i in complete], dtype=np.float64)
        predicted = predict(evaluator.aggregator, x)
        parts = contributions(evaluator.aggregator, x, np.array([evaluator.background]))
        for row, instance in enumerate(complete):
            rows[instance.id] = _scored(evaluator, instance, predicted[row], parts[row], x[row])
    _rank(rows, complete, evaluator.targets)
    out = []
    for instance in instances:
        if instance.id in rows:
            out.append(rows[instance.id])
        else:
            lacking = [f for f in evaluator.features if f not in scores.get(instance.id, {})]
            shown = first_few([repr(feature) for feature in lacking])
            out.append(
                {
                    "id": instance.id,
                    "status": "incomplete",
                    "missing_criteria": lacking,
                    "error": f"no score on {len(lacking)} of the "
                    f"{plural(len(evaluator.features), 'criterion')}: {shown}",
                }
            )
    return out


def _scored(
    evaluator: Evaluator, instance: Instance, predicted: Matrix, parts: Matrix, criteria: Matrix
) -> dict[str, Any]:
    parts = np.asarray(parts).reshape(len(evaluator.targets), len(evaluator.features))
    return {
        "id": instance.id,
        "status": "ok",
        "scores": {t: rounded(float(v)) for t, v in zip(evaluator.targets, predicted, strict=True)},
        "criteria": dict(zip(evaluator.features, criteria.tolist(), strict=True)),
        "contributions": {
            target: {f: rounded(v) for f, v in zip(evaluator.features, parts[t].tolist(), strict=True)}
            for t, target in enumerate(evaluator.targets)
        },
    }


def _rank(rows: dict[str, dict[str, Any]], instances: Sequence[Instance], targets: Sequence[str]) -> None:
    """Rank (1 = best; ties share the best rank) among the outputs of the same query."""
    by_query: dict[str, list[str]] = defaultdict(list)
    for instance in instances:
        by_query[instance.query].append(instance.id)
    for members in by_query.values():
        for target in targets:
            values = {m: rows[m]["scores"][target] for m in members}
            for member in members:
                better = sum(1 for other in members if values[other] > values[member])
                rows[member].setdefault("ranks", {})[target] = better + 1
        for member in members:
            rows[member]["outputs_of_query"] = len(members)


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def _write_json(path: Path, value: Any) -> None:
    write_atomic(path, json.dumps(value, indent=2, ensure_ascii=False) + "\n")
