"""CoEval's three tasks (ELI5, ROCStories, Self-Instruct) and reading their annotator score files.

A task's criteria are the task-level criteria ChatGPT drafted and the experts kept, as the files key
them; `read_coeval` reads every evaluated output of a task with the five annotators' and ChatGPT's
scores. `_coeval` declares the benchmarks, `_coeval_recorded` reads ChatGPT's evaluations and the
annotators' review actions. The folder's ``SOURCE.md`` describes the files.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from faceteval._util.files import read_json_object
from faceteval._util.records import Record
from faceteval.core import Criterion

COEVAL_COMBINED = "coeval/data/combine_data.json"


@dataclass(frozen=True, slots=True)
class CoevalTask:
    """One CoEval task: where its files are, its criteria as the files key them, its annotators."""

    name: str
    folder: str
    prefix: str
    key: str
    """The task's key in ``combine_data.json``."""
    task: str
    """``task_info`` of ``combine_data.json``."""
    criteria: tuple[tuple[str, str, str], ...]
    """(key in the files, name, description) per criterion, in the files' order."""
    annotators: tuple[str, ...]

    @property
    def scores_file(self) -> str:
        return f"coeval/evaluation_data/{self.folder}/{self.prefix}_annotator_scores.json"

    @property
    def actions_file(self) -> str:
        return f"coeval/evaluation_data/{self.folder}/{self.prefix}_action.json"

    @property
    def criterion_objects(self) -> tuple[Criterion, ...]:
        return tuple(Criterion(name=n, description=d, scale=(1, 5)) for _, n, d in self.criteria)


def _named(key: str) -> tuple[str, str, str]:
    """A criterion written "<n>. <Name>: <description>" in the files."""
    name, description = key.split(". ", 1)[1].split(": ", 1)
    return key, name, description


def _sentence(key: str, name: str) -> tuple[str, str, str]:
    """A criterion written "<n>. <sentence>" in the files, given a name."""
    return key, name, key.split(". ", 1)[1]


ELI5 = CoevalTask(
    name="coeval-eli5",
    folder="ELI5",
    prefix="eli5",
    key="eli5",
    task=(
        "The task is to provide an answer to a Reddit forum question that is comprehensible by "
        "five-year-olds."
    ),
    criteria=tuple(
        _sentence(key, name)
        for key, name in (
            ("1. Use simple and easy-to-understand language.", "Comprehensibility"),
            (
                "2. Use examples or analogies that are relatable to a five-year-old’s experience.",
                "Analogy usage",
            ),
            (
                "3. Answers should be factually correct and cannot have subtly incorrect or fabricated "
                "information.",
                "Accuracy",
            ),
            ("4. Be easy to follow and logically coherent.", "Coherence"),
            (
                "5. All things considered, answers should be helpful to the person who asked this question.",
                "Helpfulness",
            ),
        )
    ),
    annotators=("A01", "A02", "A03", "A04", "A05"),
)
"""ELI5's criteria are bare sentences; the names are CoEval's own (Table 6: Comprehensibility, Analogy
usage, Accuracy, Coherence) and, for the fifth, the word it turns on. The description is the sentence."""

ROC = CoevalTask(
    name="coeval-rocstories",
    folder="ROCStories",
    prefix="roc",
    key="roc",
    task="The task is to generate a story that captures daily events",
    criteria=tuple(
        _named(key)
        for key in (
            "1. Clarity: The story should be clear and easy to understand, with no confusing or ambiguous "
            "elements.",
            "2. Relevance: The story should be relevant to the given beginning and the daily events it aims "
            "to capture",
            "3. Coherence: The story should have a logical flow and provide closure.",
            "4. Length: The story should be an appropriate length for the given task.",
            "5. Engagement: The story should be engaging from beginning to end.",
            "6. Character development: The characters in the story should be well-developed.",
            "7. Grammaticality: The story should be grammatically correct",
        )
    ),
    annotators=("A06", "A07", "A08", "A09", "A10"),
)
SELF_INSTRUCT = CoevalTask(
    name="coeval-selfinstruct",
    folder="Self-Instruct",
    prefix="self_instruct",
    key="self_instruct",
    task="The task is to generate a response to a user's instruction.",
    criteria=tuple(
        _named(key)
        for key in (
            "1. Relevance: The response should be relevant to the user's instruction or query.",
            "2. Clarity: The response should be clear and easy to understand.",
            "3. Correctness: The response should be factually correct and free of errors.",
            "4. Politeness: The response should be polite and respectful.",
            "5. Completeness: The response should provide a comprehensive and detailed answer to the user's "
            "instruction.",
        )
    ),
    annotators=("A05", "A10", "A11", "A12", "A13"),
)
TASKS_BY_NAME = {task.name: task for task in (ELI5, ROC, SELF_INSTRUCT)}
"""The three tasks by benchmark name (``coeval-eli5``...)."""


@dataclass(frozen=True, slots=True)
class CoevalOutput:
    """One evaluated output of a CoEval score file."""

    id: str
    question: int
    """1-based position of the input in the file."""
    query: str
    system: str
    prediction: str
    humans: dict[str, list[int]]
    """Criterion name -> the annotators' scores, in ``CoevalTask.annotators`` order."""
    chatgpt: dict[str, int]


def read_inputs(path: Path) -> list[tuple[str, Record]]:
    """(input text, its ``{system: ...}`` object) per input of a CoEval file, in file order."""
    inputs = []
    for position, (query, systems) in enumerate(read_json_object(path).items(), start=1):
        data = systems if isinstance(systems, dict) else {}
        record = Record(path, None, data, f"input {position}", position=position)
        if not isinstance(systems, dict):
            raise record.error(None, f"expected an object of systems, got {type(systems).__name__}")
        inputs.append((query, record))
    return inputs


def read_coeval(root: Path, task: CoevalTask) -> list[CoevalOutput]:
    """Every evaluated output of ``task`` in its score file, in file order, with all its scores."""
    outputs = []
    for question, (query, systems) in enumerate(read_inputs(root / task.scores_file), start=1):
        for system in systems.data:
            record = systems.child(system)
            humans: dict[str, list[int]] = {}
            chatgpt: dict[str, int] = {}
            for key, name, _ in task.criteria:
                scores = record.child(key)
                humans[name] = [scores.whole(annotator, 1, 5) for annotator in task.annotators]
                chatgpt[name] = scores.whole("chatgpt", 1, 5)
            outputs.append(
                CoevalOutput(
                    id=f"{task.name}:{question}:{system}",
                    question=question,
                    query=query,
                    system=system,
                    prediction=record.get("prediction", str),
                    humans=humans,
                    chatgpt=chatgpt,
                )
            )
    return outputs
