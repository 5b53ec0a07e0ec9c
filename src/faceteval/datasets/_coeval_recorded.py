"""What is recorded with CoEval's tasks: ChatGPT's step-by-step evaluations (``recorded:chatgpt``) and
the annotators' review of them, sentence by sentence (`coeval_actions`).

The folder's ``SOURCE.md`` describes the files.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from statistics import fmean
from typing import Any

from faceteval._util.files import read_json_object
from faceteval._util.records import Record
from faceteval._util.text import did_you_mean
from faceteval.core import FacetScore, Judgment, TraceEntry
from faceteval.datasets._benchmark import RecordedSource
from faceteval.datasets._coeval_tasks import (
    COEVAL_COMBINED,
    TASKS_BY_NAME,
    CoevalOutput,
    CoevalTask,
    read_coeval,
    read_inputs,
)
from faceteval.errors import FacetevalError, InputError

_ACTIONS = frozenset({"pass", "revise", "delete", "add"})
_SCORE_IN_TEXT = re.compile(r"[Ss]core(?: of|:)\s*(\d)")
"""The score ChatGPT states in its evaluation text ("2. Score: 4", "I would assign a score of 4")."""


def _chatgpt_loader(task: CoevalTask) -> Callable[[Path], Iterator[Judgment]]:
    def load(root: Path) -> Iterator[Judgment]:
        outputs = read_coeval(root, task)
        texts = chatgpt_texts(root, task, outputs)
        for output in outputs:
            yield _chatgpt_judgment(task, output, texts[output.id])

    return load


def chatgpt_texts(root: Path, task: CoevalTask, outputs: Sequence[CoevalOutput]) -> dict[str, list[str]]:
    """Each output's ChatGPT evaluation text per criterion, joined on (input position, system).

    ``combine_data.json`` lists the same inputs in the same order as the score file (four outputs each, in
    varying system order); its copy of the input text can differ (one ELI5 question lost its first three
    characters), so the join checks the output text instead.
    """
    path = root / COEVAL_COMBINED
    record = Record(path, None, read_json_object(path)).child(task.key)
    sources, models, targets = (record.get(name, list) for name in ("source", "model_name", "target"))
    kv = record.child("criteria_kv")
    columns = [kv.get(key, list) for key, _, _ in task.criteria]
    if any(len(column) != len(sources) for column in (models, targets, *columns)):
        raise record.error("criteria_kv", f"lists of unequal length (source has {len(sources)})")
    questions = [1]
    for previous, source in pairwise(sources):
        questions.append(questions[-1] + (source != previous))
    index = {(q, m): i for i, (q, m) in enumerate(zip(questions, models, strict=False))}
    texts = {}
    for output in outputs:
        at = index.get((output.question, output.system))
        if at is None or targets[at] != output.prediction:
            raise record.error(
                "target",
                f"no output of {output.system} for input {output.question} matching {task.scores_file}",
            )
        texts[output.id] = [
            _text(kv, key, column, at) for (key, _, _), column in zip(task.criteria, columns, strict=True)
        ]
    return texts


def _text(record: Record, key: str, column: Sequence[Any], at: int) -> str:
    text = column[at]
    if not isinstance(text, str):
        raise record.error(f"{key}[{at}]", f"expected str, got {type(text).__name__}")
    return text


def _chatgpt_judgment(task: CoevalTask, output: CoevalOutput, texts: Sequence[str]) -> Judgment:
    facets, trace = [], []
    for (_, name, _), text in zip(task.criteria, texts, strict=True):
        score = output.chatgpt[name]
        found = _SCORE_IN_TEXT.search(text)
        stated = int(found.group(1)) if found else None
        problem = None
        if stated is None:
            problem = "no score stated in the text; the score is the annotation file's 'chatgpt' field"
        elif stated != score:
            problem = f"the text states {stated}; the annotation file's 'chatgpt' field (used) says {score}"
        facets.append(FacetScore(name=name, scores=[float(score)], explanation=text))
        trace.append(
            TraceEntry(stage=f"recorded:{name}", messages=[], raw=text, parsed=stated, problem=problem)
        )
    overall = fmean(output.chatgpt.values())
    trace.append(
        TraceEntry(
            stage="recorded:overall",
            messages=[],
            raw=f"mean of the {len(facets)} criterion scores (CoEval records no overall score)",
            parsed=overall,
        )
    )
    return Judgment(
        id=output.id, method="recorded:chatgpt", status="ok", scores=[overall], facets=facets, trace=trace
    )


def coeval_recorded(task: CoevalTask) -> Callable[[Path], list[RecordedSource]]:
    """The recorded judges of ``task`` present in a data directory: ChatGPT when its texts are there."""
    source = RecordedSource(
        name="chatgpt",
        judge="ChatGPT (gpt-3.5-turbo-0301, 2023)",
        description=(
            "CoEval's step-by-step evaluation: per criterion a conclusion, a 1-5 score and evidence. "
            "facets = the 'chatgpt' score of the annotation file with the evaluation text of "
            "combine_data.json as explanation; scores = [mean of the criterion scores] (no overall score "
            "is recorded)."
        ),
        load=_chatgpt_loader(task),
    )
    return lambda root: [source] if (root / COEVAL_COMBINED).exists() else []


@dataclass(frozen=True, slots=True)
class CoevalAction:
    """One annotator's review of ChatGPT's evaluation of one output on one criterion (CoEval's web app)."""

    id: str
    """The instance id."""
    criterion: str
    annotator: str
    actions: tuple[str, ...]
    """Per sentence of ChatGPT's evaluation text: ``pass``, ``revise``, ``delete`` or ``add``; empty when
    none were logged (ROCStories' Length criterion)."""
    score: int
    """The annotator's final score."""
    chatgpt: int
    """ChatGPT's score, which the annotator saw first."""

    @property
    def change(self) -> str:
        """``improve``, ``decrease`` or ``unchange`` (the words of CoEval's score_change files)."""
        if self.score == self.chatgpt:
            return "unchange"
        return "improve" if self.score > self.chatgpt else "decrease"


def coeval_actions(data_dir: str | Path, task: str) -> list[CoevalAction]:
    """The annotators' review actions and final scores of a CoEval task (e.g. ``coeval-eli5``).

    One record per output, criterion and annotator, in file order.

    Raises:
        FacetevalError: ``task`` is not a CoEval benchmark.
        InputError: A file is missing or malformed.
    """
    if task not in TASKS_BY_NAME:
        hint = did_you_mean(task, TASKS_BY_NAME)
        raise FacetevalError(f"unknown CoEval task {task!r}{hint}; one of {', '.join(TASKS_BY_NAME)}")
    spec, root = TASKS_BY_NAME[task], Path(data_dir)
    outputs = read_coeval(root, spec)
    path = root / spec.actions_file
    inputs = read_inputs(path)
    records = []
    for output in outputs:
        query, systems = inputs[output.question - 1] if output.question <= len(inputs) else ("", None)
        if systems is None or query != output.query:
            problem = (
                f"input {output.question}: expected the input of {spec.scores_file}, {output.query[:60]!r}"
            )
            raise InputError(str(path), output.question, None, problem)
        record = systems.child(output.system)
        for key, name, _ in spec.criteria:
            logged = record.child(key)
            for k, annotator in enumerate(spec.annotators):
                actions = tuple(logged.get(annotator, list)) if logged.data else ()
                if not all(isinstance(a, str) and a in _ACTIONS for a in actions):
                    raise logged.error(
                        annotator, f"expected actions among {sorted(_ACTIONS)}, got {actions!r}"
                    )
                score = output.humans[name][k]
                records.append(CoevalAction(output.id, name, annotator, actions, score, output.chatgpt[name]))
    return records
