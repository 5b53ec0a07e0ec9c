"""CoEval's ELI5, ROCStories and Self-Instruct: 200 outputs each with five annotators' 1-5 scores per
criterion, and the recorded ChatGPT evaluations the annotators edited.

The tasks and their files are read by `_coeval_tasks`, what is recorded with them by `_coeval_recorded`;
each data folder's ``SOURCE.md`` describes the files.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from statistics import fmean

from faceteval.core import Instance
from faceteval.datasets._base import raw_url
from faceteval.datasets._benchmark import Benchmark, RemoteFile
from faceteval.datasets._coeval_recorded import coeval_recorded
from faceteval.datasets._coeval_tasks import (
    COEVAL_COMBINED,
    ELI5,
    ROC,
    SELF_INSTRUCT,
    CoevalTask,
    read_coeval,
)

_COEVAL_REPO, _COEVAL_COMMIT = "qtli/CoEval", "8b98295ac135c2a0a9367ff1e32be28670223078"


def _coeval_loader(task: CoevalTask) -> Callable[[Path], Iterator[Instance]]:
    criteria = task.criterion_objects

    def load(root: Path) -> Iterator[Instance]:
        for output in read_coeval(root, task):
            yield Instance(
                id=output.id,
                query=output.query,
                candidates=(output.prediction,),
                criteria=criteria,
                task=task.task,
                scores={name: fmean(scores) for name, scores in output.humans.items()},
                metadata={
                    "question_id": output.question,
                    "system": output.system,
                    "annotators": output.humans,
                    "annotator_ids": list(task.annotators),
                },
            )

    return load


def _coeval_benchmark(task: CoevalTask, *, title: str, sha256: Mapping[str, str], notes: str) -> Benchmark:
    fetch = [
        RemoteFile(
            url=raw_url(_COEVAL_REPO, _COEVAL_COMMIT, f"webapp/evaluation_data/{file}"),
            path=f"coeval/evaluation_data/{file}",
            sha256=sha256[part],
        )
        for part in ("annotator_scores", "action", "criteria_to_action", "score_change")
        if (file := f"{task.folder}/{task.prefix}_{part}.json")
    ]
    fetch.append(
        RemoteFile(
            url=raw_url(_COEVAL_REPO, _COEVAL_COMMIT, "data/combine_data.json"),
            path=COEVAL_COMBINED,
            sha256="447d454758cf4d927f7b69bcb4aa3430fecbaa9d80dd863cd3db77bb38c1483b",
        )
    )
    return Benchmark(
        name=task.name,
        title=title,
        kind="pointwise",
        labels="mean of 5 annotators' 1-5 scores per criterion (post-edits of ChatGPT's evaluation)",
        license="Apache-2.0 (CoEval repository); the task data (ELI5, ROCStories, Self-Instruct) keep theirs",
        path=task.scores_file,
        load=_coeval_loader(task),
        size=200,
        url="https://github.com/qtli/CoEval",
        criteria=task.criterion_objects,
        aspects=tuple(name for _, name, _ in task.criteria),
        system_by="system",
        recorded=coeval_recorded(task),
        fetch=tuple(fetch),
        notes=(
            f"Ids are {task.name}:<1-based input position>:<system> (systems turbo, davinci_002, curie_001, "
            "human; 50 inputs x 4). query = the input as keyed in the score file, task = CoEval's task_info. "
            "criteria = the task-level criteria ChatGPT drafted and the experts kept, as scored (the paper's "
            "Table 14 shows a later wording); scores = the annotators' mean, metadata['annotators'] = "
            "{criterion: [5 scores]} in metadata['annotator_ids'] order. The annotators edited ChatGPT's "
            "evaluation after seeing it, so their agreement with recorded:chatgpt is anchored. No group_by: "
            "CoEval reports sample-level correlations (metadata['question_id'] groups the 4 outputs of an "
            "input). The review actions are read by coeval_actions(data_dir, name). " + notes
        ),
    )


_COEVAL_BENCHMARKS = (
    _coeval_benchmark(
        ELI5,
        title="CoEval ELI5: answers to Reddit questions for five-year-olds, 5 criteria x 5 annotators",
        sha256={
            "annotator_scores": "48500d8f4ab450f75b189e7c23950e825ef9a1d081d3c9689ff9044befb99dbf",
            "action": "99e3179e387f40a4c049359fb44cf0958c1406908bd5b35e8d036c7a3dd548a3",
            "criteria_to_action": "04bd9b305d7cdf57fa6ee4348ca1b49d60f124f6d398eefbdc8167595fbf6219",
            "score_change": "c57211c532bd7d15bcecd13d1a81a5f8506e414d170ba02001d2b814999e3793",
        },
        notes=(
            "ELI5's criteria are bare sentences (the description); their names are ours, after CoEval's "
            "Table 6 (Comprehensibility, Analogy usage, Accuracy, Coherence) and 'Helpfulness' for the fifth."
        ),
    ),
    _coeval_benchmark(
        ROC,
        title="CoEval ROCStories: four-sentence everyday stories, 7 criteria x 5 annotators",
        sha256={
            "annotator_scores": "45690e578cc9e4e68be664d803cb72a9d4a911e9396d28b4474aad542e3d9929",
            "action": "a92b2aa80998bd82892025c8a6b32df1b6c4378c3276540d000035a839b21d58",
            "criteria_to_action": "72788a88a1060ef4318f0cd1cc1c531edbacb326cba7ece6813c04c26a3c12b3",
            "score_change": "ba4a46ea53f1102cca4cab2353fc3ed8691cf990a8cdbd07c3046b9efb293b60",
        },
        notes=(
            "Humans scored Length only 1 or 5 and logged no review actions for it. The near-duplicate "
            "ROCStories/annotator_scores.json is not read."
        ),
    ),
    _coeval_benchmark(
        SELF_INSTRUCT,
        title="CoEval Self-Instruct: responses to user-oriented instructions, 5 criteria x 5 annotators",
        sha256={
            "annotator_scores": "79c63420a3d869e479b841c60166a709535b89e7fe6d64fd5160b9182abdac97",
            "action": "4645e46574f5c506de6d06f6ddbc829553669dea3f5ff3986690bebc57934429",
            "criteria_to_action": "a5d7d0715684325a6103f55c844c9194ea4c9ed514d1f8c3cda1c39c4a51aff9",
            "score_change": "e53d2ddb96ce4e78f9d4f2e21818dbeea6d716d870e2f04153613cd296022afa",
        },
        notes="Annotators A05, A10-A13 (ids as in the score file).",
    ),
)


BENCHMARKS: tuple[Benchmark, ...] = _COEVAL_BENCHMARKS
