"""CoEval's released human-in-the-loop review (Li et al., 2023) as a review project: the family's review
importer (``faceteval review import-coeval``, a ``review`` command its spec adds).

`import_coeval` turns each CoEval task (ELI5, ROCStories, Self-Instruct; 50 inputs x 4 systems = 200
outputs) into a task of the project: its criteria, one item per output, ChatGPT's evaluation of each
output on each criterion as the draft, the five annotators, their per-sentence actions on ChatGPT's
evaluation (``*_action.json``) and their final scores (``*_annotator_scores.json``). The files are
read by `faceteval.datasets`' CoEval loaders, which join them and check them.

**Sentences.** The action lists index the lines CoEval's web app showed (``post_process_code`` in its
``instance_eval_server.py``: blank lines collapsed, one row per line) without the bare section headings
its action files leave out: ``3. Evidence:``, ``Evidence:``, ``Evaluation:``, ``2. Score:`` and ``1.
Evaluation of the article based on the premise:`` (exactly these; ``Conclusion:``, ``Score:`` or ``3.
Evidence from the article:`` stay). This was found from the data, not the (unreleased) script that
made the files: with it, 15,990 of the 16,000 action lists line up with their draft, the annotators'
edits keep their place (a ``revise`` of the ``2. Score: 4`` row stays on that row), and ``add``
always comes last. Two drafts of ELI5 end in a truncated bullet (``-``, ``- "``) that its lists also
leave out; where that makes more of a draft's lists line up, such rows are dropped too.

**Lists that do not line up** (10: one of ELI5, eight ROCStories lists of two actions, one of
Self-Instruct) are kept whole: action *i* goes to sentence *i* even past the draft's last sentence
(`ReviewStore.import_log` allows it; views show only the draft's sentences), so statistics count
every action in the files. Each is listed in `CoevalImport.unaligned` and in its item's metadata.

**Published numbers.** ``*_criteria_to_action.json`` holds, per criterion, each action's share of
all the actions in ``*_action.json`` (every list element of every annotator, ``add`` included),
written ``f"{share:.2f}%"`` (``"0.87%"`` is 87%, not 0.87%); `file_action_rates` recomputes it and
`published_action_rates` reads it. ROCStories' Length has no actions in ``roc_action.json`` but
published rates (pass 0.46, revise 0.54) that cannot be recomputed from the released files.
``*_score_change.json`` counts, per criterion, improve / decrease / unchange of every score in the
score file against ChatGPT's, ChatGPT's own included: its ``unchange`` is the annotators' plus one
per output (200). The annotators' counts alone are what `review_stats` reports.

Annotator ids are the files' (ELI5 A01-A05, ROCStories A06-A10, Self-Instruct A05, A10-A13; the
Self-Instruct ids may name other people than the same ids elsewhere, see the data's SOURCE.md).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from faceteval._util.files import read_json_object
from faceteval._util.text import did_you_mean
from faceteval.datasets import (
    CoevalAction,
    CoevalOutput,
    CoevalTask,
    chatgpt_texts,
    coeval_actions,
    read_coeval,
)
from faceteval.datasets.internal import TASKS_BY_NAME
from faceteval.review import SENTENCE_ACTIONS, Draft, Item, ReviewError, ReviewStore, SentenceAction

__all__ = [
    "COEVAL_TASKS",
    "CoevalImport",
    "Unaligned",
    "coeval_sentences",
    "file_action_rates",
    "import_coeval",
    "published_action_rates",
    "published_score_changes",
]

COEVAL_TASKS = ("eli5", "rocstories", "selfinstruct")
"""The short names `import_coeval` takes; each task is named ``coeval-<name>`` in the project."""

SCALE = (1.0, 5.0)
_HEADINGS = frozenset(
    {
        "3. Evidence:",
        "Evidence:",
        "Evaluation:",
        "2. Score:",
        "1. Evaluation of the article based on the premise:",
    }
)
"""Rows of ChatGPT's evaluations that CoEval's action lists leave out (compared stripped)."""
_CODE = "\n```"
_KINDS: dict[str, SentenceAction] = {action: action for action in SENTENCE_ACTIONS}
LogRow = tuple[str, str, str, int | None, SentenceAction, str | None]
"""A row of `ReviewStore.import_log`: item, criterion, annotator, sentence, action, text."""


@dataclass(frozen=True, slots=True)
class Unaligned:
    """An annotator's action list whose length differs from its draft's sentences (kept whole)."""

    item_id: str
    criterion: str
    annotator: str
    actions: int
    """Actions on ChatGPT's sentences (``add`` not counted)."""
    sentences: int


@dataclass(frozen=True, slots=True)
class CoevalImport:
    """What `import_coeval` added."""

    tasks: tuple[str, ...]
    items: int
    drafts: int
    annotators: tuple[str, ...]
    sentence_actions: int
    scores: int
    unaligned: tuple[Unaligned, ...]


def coeval_sentences(text: str) -> list[str]:
    """The rows of a ChatGPT evaluation that CoEval's annotators acted on, one per line.

    Examples:
        >>> coeval_sentences("1. Conclusion: clear.\\n\\n2. Score: 5\\n\\n3. Evidence:\\n- a\\n- b")
        ['1. Conclusion: clear.', '2. Score: 5', '- a', '- b']
    """
    text = text.strip()
    if _CODE in text:  # as CoEval's web app: unescape underscores inside code blocks
        blocks = text.split(_CODE)
        if len(blocks) % 2 == 1:
            blocks[1::2] = [block.replace("\\_", "_") for block in blocks[1::2]]
        text = _CODE.join(blocks)
    while "\n\n" in text:
        text = text.replace("\n\n", "\n")
    return [row.strip() for row in text.split("\n") if row.strip() not in _HEADINGS]


def import_coeval(
    store: ReviewStore, data_dir: str | Path, tasks: Sequence[str] = COEVAL_TASKS
) -> CoevalImport:
    """Add CoEval's tasks, outputs, ChatGPT drafts, annotators, sentence actions and final scores.

    Args:
        store: The project to add to; it must not hold the tasks already.
        data_dir: The benchmark data directory (holding ``coeval/``), as for `faceteval.datasets`.
        tasks: Which of ``eli5``, ``rocstories``, ``selfinstruct`` (``coeval-`` prefix optional).

    Raises:
        ReviewError: An unknown task, or one the project already holds.
        InputError: A CoEval file is missing or malformed.
    """
    specs = list({spec.name: spec for spec in map(_spec, tasks)}.values())
    for spec in specs:
        if store.items(spec.name):
            raise ReviewError(f"the project already holds {spec.name}; import into a new project")
    built = [_build(Path(data_dir), spec) for spec in specs]  # everything is read before anything is written
    for spec, task in zip(specs, built, strict=True):
        store.add_task(
            spec.name, spec.task, [(name, text, SCALE) for _, name, text in spec.criteria], scale=SCALE
        )
        for annotator in spec.annotators:
            store.add_annotator(annotator)
        store.add_items(task.items, task.drafts)
        store.import_log(task.actions, task.scores)
    return CoevalImport(
        tasks=tuple(spec.name for spec in specs),
        items=sum(len(task.items) for task in built),
        drafts=sum(len(task.drafts) for task in built),
        annotators=tuple(sorted({a for spec in specs for a in spec.annotators})),
        sentence_actions=sum(len(task.actions) for task in built),
        scores=sum(len(task.scores) for task in built),
        unaligned=tuple(u for task in built for u in task.unaligned),
    )


def _spec(task: str) -> CoevalTask:
    name = task if task.startswith("coeval-") else f"coeval-{task}"
    if name not in TASKS_BY_NAME:
        hint = did_you_mean(task, COEVAL_TASKS)
        raise ReviewError(f"unknown CoEval task {task!r}{hint}; one of {', '.join(COEVAL_TASKS)}")
    return TASKS_BY_NAME[name]


@dataclass(frozen=True, slots=True)
class _Built:
    """One task's rows, ready to write."""

    items: list[Item]
    drafts: list[Draft]
    actions: list[LogRow]
    scores: list[tuple[str, str, str, float]]
    unaligned: list[Unaligned]


def _build(root: Path, spec: CoevalTask) -> _Built:
    outputs = read_coeval(root, spec)
    texts = chatgpt_texts(root, spec, outputs)
    records: dict[tuple[str, str], list[CoevalAction]] = {}
    for record in coeval_actions(root, spec.name):
        records.setdefault((record.id, record.criterion), []).append(record)
    built = _Built([], [], [], [], [])
    for output in outputs:
        for (_, name, _), text in zip(spec.criteria, texts[output.id], strict=True):
            logged = records.get((output.id, name), [])
            sentences = _aligned_sentences(text, logged)
            built.drafts.append(Draft(output.id, name, float(output.chatgpt[name]), text, "", sentences))
            for record in logged:
                built.actions.extend(_action_rows(record))
                built.scores.append((output.id, name, record.annotator, float(record.score)))
                done = sum(action != "add" for action in record.actions)
                if done != len(sentences) and any(r.actions for r in logged):
                    built.unaligned.append(Unaligned(output.id, name, record.annotator, done, len(sentences)))
    built.items.extend(_item(spec, output, built.unaligned) for output in outputs)
    return built


def _aligned_sentences(text: str, logged: Sequence[CoevalAction]) -> tuple[str, ...]:
    """The draft's sentences; without truncated bullets when that lines up more annotators' lists."""
    rows = coeval_sentences(text)
    worded = [row for row in rows if any(char.isalnum() for char in row)]
    lengths = [sum(action != "add" for action in record.actions) for record in logged]
    if lengths.count(len(worded)) > lengths.count(len(rows)):
        return tuple(worded)
    return tuple(rows)


def _action_rows(record: CoevalAction) -> list[LogRow]:
    """One row per action: action *i* on sentence *i*; ``add`` (always last in CoEval's lists) on none."""
    rows: list[LogRow] = []
    for index, action in enumerate(record.actions):
        kind = _KINDS[action]  # coeval_actions has checked every action
        rows.append(
            (record.id, record.criterion, record.annotator, None if kind == "add" else index, kind, None)
        )
    return rows


def _item(spec: CoevalTask, output: CoevalOutput, unaligned: Sequence[Unaligned]) -> Item:
    metadata: dict[str, Any] = {"source": "CoEval", "question": output.question}
    mine = [u for u in unaligned if u.item_id == output.id]
    if mine:
        metadata["unaligned"] = [
            {
                "criterion": u.criterion,
                "annotator": u.annotator,
                "actions": u.actions,
                "sentences": u.sentences,
            }
            for u in mine
        ]
    return Item(output.id, spec.name, output.query, output.prediction, output.system, metadata)


def file_action_rates(data_dir: str | Path, task: str) -> dict[str, dict[str, float | None]]:
    """Each criterion's share of each action among all of ``*_action.json``'s (CoEval's way).

    Every element of every annotator's list counts once, ``add`` included; None where a criterion
    has no actions (ROCStories' Length).
    """
    spec = _spec(task)
    path = Path(data_dir) / spec.actions_file
    counts: dict[str, Counter[str]] = {name: Counter() for _, name, _ in spec.criteria}
    names = {key: name for key, name, _ in spec.criteria}
    for systems in read_json_object(path).values():
        for logged in systems.values():
            for key, by_annotator in logged.items():
                if key in names:
                    for actions in by_annotator.values():
                        counts[names[key]].update(actions)
    return {name: _shares(counter) for name, counter in counts.items()}


def _shares(counter: Mapping[str, int]) -> dict[str, float | None]:
    total = sum(counter.values())
    return {action: counter.get(action, 0) / total if total else None for action in SENTENCE_ACTIONS}


def published_action_rates(data_dir: str | Path, task: str) -> dict[str, dict[str, float]]:
    """``*_criteria_to_action.json`` per criterion name, ``"0.87%"`` read as the fraction 0.87."""
    published = _published(data_dir, task, "criteria_to_action")
    return {
        name: {a: float(str(v).rstrip("%")) for a, v in rates.items()} for name, rates in published.items()
    }


def published_score_changes(data_dir: str | Path, task: str) -> dict[str, dict[str, int]]:
    """``*_score_change.json`` per criterion name (``unchange`` counts ChatGPT against itself too)."""
    return {
        name: {k: int(v) for k, v in changes.items()}
        for name, changes in _published(data_dir, task, "score_change").items()
    }


def _published(data_dir: str | Path, task: str, part: str) -> dict[str, Mapping[str, Any]]:
    spec = _spec(task)
    path = Path(data_dir) / f"coeval/evaluation_data/{spec.folder}/{spec.prefix}_{part}.json"
    data = read_json_object(path)
    return {name: data[key] for key, name, _ in spec.criteria if isinstance(data.get(key), Mapping)}
