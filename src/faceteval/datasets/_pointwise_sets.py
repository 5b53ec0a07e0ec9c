"""Pointwise benchmarks (human scores per output) and what is recorded with them.

SummEval; the UniEval meta-evaluation sets Topical-Chat, SFRES, SFHOT, QAGS-CNNDM and QAGS-XSum; CoEval's
ELI5, ROCStories and Self-Instruct with the recorded ChatGPT evaluations and the annotators' action logs
(`coeval_actions`). Every coding decision is written next to the loader that makes it; each data folder's
``SOURCE.md`` describes the files.

One module holds all of them (longer than the ~400 lines the style guide asks for): they share the record
helpers, and most of the length is the benchmarks' own criteria definitions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from statistics import fmean
from typing import Any, Literal

from faceteval.core import Criterion, FacetScore, Instance, Judgment, TraceEntry
from faceteval.datasets._benchmark import Benchmark, RecordedSource, RemoteFile
from faceteval.datasets._files import Record, json_records, read_json, read_jsonl
from faceteval.errors import FacetevalError, InputError

# ---------------------------------------------------------------------------------------------------------
# Record helpers


def _json_object(path: Path) -> dict[str, Any]:
    data = read_json(path)
    if not isinstance(data, dict):
        raise InputError(str(path), None, None, f"expected a JSON object, got {type(data).__name__}")
    return data


def _raw_url(repo: str, commit: str, path: str) -> str:
    return f"https://raw.githubusercontent.com/{repo}/{commit}/{path}"


# ---------------------------------------------------------------------------------------------------------
# SummEval (PPairS' processed copy: expert means, no system ids, no references)

_SUMMEVAL_FILE = "summeval/summeval.jsonl"
_SUMMEVAL_ASPECTS = ("coherence", "consistency", "fluency", "relevance")
_SUMMEVAL_CRITERIA = (
    Criterion(
        name="coherence",
        description=(
            "The collective quality of all sentences: the summary should be well-structured and "
            "well-organized, building from sentence to sentence to a coherent body of information about a "
            "topic rather than a heap of related information."
        ),
        scale=(1, 5),
    ),
    Criterion(
        name="consistency",
        description=(
            "The factual alignment between the summary and the summarized source: a consistent summary "
            "contains only statements entailed by the source document, and hallucinated facts are penalized."
        ),
        scale=(1, 5),
    ),
    Criterion(
        name="fluency",
        description=(
            "The quality of the summary in terms of grammar, spelling, punctuation, word choice, and "
            "sentence structure."
        ),
        scale=(1, 5),
    ),
    Criterion(
        name="relevance",
        description=(
            "Selection of important content from the source: the summary should include only important "
            "information from the source document, and redundancies and excess information are penalized."
        ),
        scale=(1, 5),
    ),
)
"""SummEval's four dimensions as G-Eval defines them (nlpyang/geval ``prompts/summeval/*_detailed.txt``,
quoting SummEval's annotation instructions). The human scale is 1-5 for all four (G-Eval asks 1-3 for
fluency)."""


def _load_summeval(root: Path) -> Iterator[Instance]:
    path = root / _SUMMEVAL_FILE
    for line, data in read_jsonl(path):
        record = Record(path, line, data)
        article, system = record.get("article_id", str), record.get("summary_id", str)
        yield Instance(
            id=f"summeval:{article}:{system}",
            query=record.get("article", str),
            candidates=(record.get("summary", str),),
            task="Summarize the news article.",
            scores={aspect: record.number(aspect, 1, 5) for aspect in _SUMMEVAL_ASPECTS},
            metadata={"doc_id": article, "system": system},
        )


_SUMMEVAL = Benchmark(
    name="summeval",
    title="SummEval: 100 CNN/DailyMail articles x 16 system summaries, expert scores on four dimensions",
    kind="pointwise",
    labels="mean of 3 expert ratings (1-5) per dimension: coherence, consistency, fluency, relevance",
    license="MIT (PPairS copy, (c) 2024 Sharan Maiya; SummEval itself MIT); articles from CNN/DailyMail",
    path=_SUMMEVAL_FILE,
    load=_load_summeval,
    size=1600,
    url="https://github.com/maiush/PPairS",
    criteria=_SUMMEVAL_CRITERIA,
    aspects=_SUMMEVAL_ASPECTS,
    group_by="doc_id",
    system_by="system",
    fetch=(
        RemoteFile(
            url=_raw_url("maiush/PPairS", "0beef748c02726db1a781784eeb19bae8d219c19", "data/summeval.jsonl"),
            path=_SUMMEVAL_FILE,
            sha256="7b152ee2f44aca4259e4bbde69900bd0aebc97550d95d54681430595f0fb94d3",
        ),
    ),
    notes=(
        "Ids are summeval:<article_id>:<summary_id>. group_by = doc_id (the article): G-Eval's and UniEval's "
        "summary-level protocol correlates within each article (geval meta_eval_summeval.py, UniEval "
        "reproduce/correlation.py). system = summary_id (S0-S15): PPairS numbered each article's 16 rows of "
        "SummEval's paired file by position; the position names the same system in every article (S8 and S12 "
        "are the only cased outputs, in all 100 articles), but which SummEval model (M0-M23) it is was not "
        "kept. No reference summaries and no individual expert ratings in this copy (so no "
        "metadata['annotators']). task = 'Summarize the news article.' (ours; SummEval has no instruction)."
    ),
)


# ---------------------------------------------------------------------------------------------------------
# UniEval's meta-evaluation sets

_UNIEVAL_REPO, _UNIEVAL_COMMIT = "maszhongming/UniEval", "d33e7b6cfebe97b2bafe435adbd818230d5a416a"
_UNIEVAL_LICENSE = (
    "MIT (UniEval repository, (c) 2022 Ming Zhong); the underlying datasets keep their own terms"
)
_UNIEVAL_URL = "https://github.com/maszhongming/UniEval"

_TOPICAL_CHAT_CRITERIA = (
    Criterion(
        name="naturalness",
        description="Is the response naturally written?",
        guideline=(
            "1 (bad): the response is unnatural. 2 (ok): strange, but not entirely unnatural. "
            "3 (good): natural."
        ),
        scale=(1, 3),
    ),
    Criterion(
        name="coherence",
        description="Does the response serve as a valid continuation of the conversation history?",
        guideline=(
            "1 (no): drastically changes topic or ignores the conversation history. 2 (somewhat): refers "
            "to the history only in a limited (e.g. generic) way and shifts the topic. 3 (yes): on topic and "
            "strongly acknowledges the conversation history."
        ),
        scale=(1, 3),
    ),
    Criterion(
        name="engagingness",
        description="Is the response dull or interesting?",
        guideline=(
            "1 (dull): generic and dull. 2 (somewhat interesting): could engage you in the conversation "
            "(e.g. an opinion, a thought). 3 (interesting): very interesting or presents an interesting fact."
        ),
        scale=(1, 3),
    ),
    Criterion(
        name="groundedness",
        description="Given the fact the response is conditioned on, how well does it use that fact?",
        guideline="0 (no): does not mention or refer to the fact at all. 1 (yes): uses the fact well.",
        scale=(0, 1),
    ),
    Criterion(
        name="understandability",
        description=(
            "Is the response understandable in the context of the history (not whether it is on topic, but "
            "e.g. whether its pronouns make sense)?"
        ),
        guideline="0 (no): hard to understand what the person is trying to say. 1 (yes): understandable.",
        scale=(0, 1),
    ),
)
"""USR's annotation questions for Topical-Chat (Mehri & Eskenazi 2020: Natural, Maintains Context,
Interesting, Uses Knowledge, Understandable), under the names UniEval gives them. ``overall`` (1-5) is a
human score but not a criterion."""

_DATA2TEXT_CRITERIA = (
    Criterion(
        name="naturalness",
        description="Is the utterance fluent and natural (UniEval asks: 'Is this a fluent utterance?')?",
        scale=(1, 6),
    ),
    Criterion(
        name="informativeness",
        description=(
            "Does the utterance convey the information of the dialogue act (UniEval asks: 'Is this sentence "
            "informative according to the reference?')?"
        ),
        scale=(1, 6),
    ),
)
"""The two dimensions UniEval evaluates on SFRES/SFHOT (UniEval ``utils.py`` add_question); ``overall``
(human-annotated overall quality) is a human score but not a criterion."""

_QAGS_CRITERIA = (
    Criterion(
        name="consistency",
        description=(
            "Is the summary factually consistent with the source document, every statement supported by it "
            "(UniEval asks: 'Is this claim consistent with the document?')?"
        ),
        scale=(0, 1),
    ),
)


@dataclass(frozen=True, slots=True)
class _UniEvalSet:
    name: str
    file: str
    """Under ``unieval/data/`` (``reproduce/data/`` upstream)."""
    kind: Literal["dialogue", "data2text", "fact"]
    scales: Mapping[str, tuple[float, float]]
    """The human score aspects and their ranges."""
    task: str


_TOPICAL_CHAT = _UniEvalSet(
    name="topical-chat",
    file="dialogue/topical_chat.json",
    kind="dialogue",
    scales={
        "naturalness": (1, 3),
        "coherence": (1, 3),
        "engagingness": (1, 3),
        "groundedness": (0, 1),
        "understandability": (0, 1),
        "overall": (1, 5),
    },
    task="Write the next turn of this knowledge-grounded conversation between two people.",
)
_D2T_SCALES = {"naturalness": (1.0, 6.0), "informativeness": (1.0, 6.0), "overall": (1.0, 6.0)}
_SFRES = _UniEvalSet(
    name="sfres",
    file="data2text/sfres.json",
    kind="data2text",
    scales=_D2T_SCALES,
    task="Write the utterance a restaurant-information dialogue system says for this dialogue act.",
)
_SFHOT = _UniEvalSet(
    name="sfhot",
    file="data2text/sfhot.json",
    kind="data2text",
    scales=_D2T_SCALES,
    task="Write the utterance a hotel-information dialogue system says for this dialogue act.",
)
_QAGS_CNNDM = _UniEvalSet(
    name="qags-cnndm",
    file="fact/qags_cnndm.json",
    kind="fact",
    scales={"consistency": (0, 1)},
    task="Summarize the news article.",
)
_QAGS_XSUM = _UniEvalSet(
    name="qags-xsum",
    file="fact/qags_xsum.json",
    kind="fact",
    scales={"consistency": (0, 1)},
    task="Summarize the news article in one sentence.",
)


def _unieval_loader(spec: _UniEvalSet) -> Callable[[Path], Iterator[Instance]]:
    def load(root: Path) -> Iterator[Instance]:
        units: dict[str, int] = {}
        for record in json_records(root / "unieval" / "data" / spec.file):
            source = record.get("source", str)
            unit = units.setdefault(source, len(units) + 1)
            metadata: dict[str, Any]
            if spec.kind == "dialogue":
                native = str(record.position)
                system, fact = record.get("system_id", str), record.get("context", str)
                metadata = {"context_id": unit, "system": system, "fact": fact}
            else:
                doc_id = record.get("doc_id", int)
                native, metadata = str(doc_id), {"doc_id": doc_id}
                if spec.kind == "data2text":
                    metadata["mr_id"] = unit
            human = record.child("scores")
            yield Instance(
                id=f"{spec.name}:{native}",
                query=source,
                candidates=(record.get("system_output", str),),
                reference=record.get("reference", str) if spec.kind == "data2text" else None,
                task=spec.task,
                scores={aspect: human.number(aspect, *scale) for aspect, scale in spec.scales.items()},
                metadata=metadata,
            )

    return load


def _unieval_benchmark(spec: _UniEvalSet, *, sha256: str, **fields: Any) -> Benchmark:
    upstream = f"reproduce/data/{spec.file}"
    return Benchmark(
        name=spec.name,
        kind="pointwise",
        license=_UNIEVAL_LICENSE,
        path=f"unieval/data/{spec.file}",
        load=_unieval_loader(spec),
        url=_UNIEVAL_URL,
        aspects=tuple(spec.scales),
        fetch=(
            RemoteFile(
                url=_raw_url(_UNIEVAL_REPO, _UNIEVAL_COMMIT, upstream),
                path=f"unieval/data/{spec.file}",
                sha256=sha256,
            ),
        ),
        **fields,
    )


_PROTOCOL = "UniEval reproduce/correlation.py"
_UNIEVAL_BENCHMARKS = (
    _unieval_benchmark(
        _TOPICAL_CHAT,
        title="Topical-Chat (USR annotations): 60 dialogue contexts x 6 responses, 3 annotators' means",
        labels="annotator means: naturalness/coherence/engagingness 1-3, groundedness/understandability 0-1, "
        "overall 1-5",
        size=360,
        criteria=_TOPICAL_CHAT_CRITERIA,
        group_by="context_id",
        system_by="system",
        level="sample",  # UniEval's turn-level correlation: over every response
        sha256="f6361daa6fe162f636d2071a60322a784acd770be0bf3a6920ac949d751b978a",
        notes=(
            "Ids are topical-chat:<1-based position>. query = the dialogue history (turns separated by "
            "newlines); the knowledge fact the response is conditioned on is metadata['fact'] (not the "
            "reference: it is not a reference response, and prompts read a reference as one). context_id = "
            "1-based index of the dialogue history (60, six responses each), system = system_id (6 systems). "
            f"Published 'turn-level' numbers (UniEval, G-Eval, HD-Eval Table 2; {_PROTOCOL} "
            "correlation_for_dialog) pool all 360 responses: that is the sample level; group_by = context_id "
            "adds the correlation within each context's six responses."
        ),
    ),
    _unieval_benchmark(
        _SFRES,
        title="SFRES: SF Restaurants data-to-text outputs rated for naturalness, informativeness and quality",
        labels="annotator means (1-6, half steps): naturalness, informativeness, overall",
        size=1181,
        criteria=_DATA2TEXT_CRITERIA,
        sha256="8e024cab8e202d572c554a1f44ee765d74690da008d47dca37e61ee5b5ce093f",
        notes=(
            "Ids are sfres:<doc_id> (doc_id is per output, 0-1180). query = the dialogue-act meaning "
            "representation, reference = the human reference utterance. metadata: doc_id, mr_id (1-based "
            "index of the 580 distinct MRs). No group_by: the published protocol "
            f"({_PROTOCOL} correlation_for_d2t; HD-Eval Table 3 'segment level') correlates over all outputs "
            "at once. No system ids in the file."
        ),
    ),
    _unieval_benchmark(
        _SFHOT,
        title="SFHOT: SF Hotels data-to-text outputs rated for naturalness, informativeness and quality",
        labels="annotator means (1-6, half steps): naturalness, informativeness, overall",
        size=875,
        criteria=_DATA2TEXT_CRITERIA,
        sha256="40f771b4bf47e3dced9c669ea4848a76b950086eba3586205affa0acd67630a8",
        notes=(
            "Ids are sfhot:<doc_id> (per output, 0-874). query = the dialogue-act meaning representation, "
            "reference = the human reference utterance. metadata: doc_id, mr_id (1-based index of the 398 "
            f"distinct MRs). No group_by: {_PROTOCOL} correlation_for_d2t and HD-Eval Table 3 correlate over "
            "all outputs at once (sample level). No system ids in the file."
        ),
    ),
    _unieval_benchmark(
        _QAGS_CNNDM,
        title="QAGS-CNNDM: CNN/DailyMail model summaries judged for factual consistency",
        labels="consistency 0-1: mean of 3 annotators' binary judgments",
        size=235,
        criteria=_QAGS_CRITERIA,
        sha256="de8d216db28b0ce89edf761bf639d1917adca6704c29d807a1e99a0aaaa4b2c5",
        notes=(
            "Ids are qags-cnndm:<doc_id>. query = the source article; no reference (the file's "
            "'reference' repeats the source). One summary per article, system_id always 0: sample level "
            f"only ({_PROTOCOL} correlation_for_fact), so no group_by or system_by."
        ),
    ),
    _unieval_benchmark(
        _QAGS_XSUM,
        title="QAGS-XSum: XSum model summaries judged for factual consistency",
        labels="consistency 0 or 1 (binary human judgment)",
        size=239,
        criteria=_QAGS_CRITERIA,
        sha256="1403b4d1abed008d0303f883d35d71c88597c49d5a6e4ef2e1d2d22a283b49df",
        notes=(
            "Ids are qags-xsum:<doc_id>. query = the source article; no reference (the file's "
            "'reference' repeats the source). One summary per article, system_id always 0: sample level "
            f"only ({_PROTOCOL} correlation_for_fact), so no group_by or system_by."
        ),
    ),
)


# ---------------------------------------------------------------------------------------------------------
# CoEval: ELI5, ROCStories, Self-Instruct (human-in-the-loop scores, recorded ChatGPT evaluations)

_COEVAL_REPO, _COEVAL_COMMIT = "qtli/CoEval", "8b98295ac135c2a0a9367ff1e32be28670223078"
_COEVAL_COMBINED = "coeval/data/combine_data.json"
_ACTIONS = frozenset({"pass", "revise", "delete", "add"})
_SCORE_IN_TEXT = re.compile(r"[Ss]core(?: of|:)\s*(\d)")
"""The score ChatGPT states in its evaluation text ("2. Score: 4", "I would assign a score of 4")."""


@dataclass(frozen=True, slots=True)
class _CoevalTask:
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


_ELI5 = _CoevalTask(
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

_ROC = _CoevalTask(
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
_SELF_INSTRUCT = _CoevalTask(
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
_COEVAL_TASKS = {task.name: task for task in (_ELI5, _ROC, _SELF_INSTRUCT)}


@dataclass(frozen=True, slots=True)
class _CoevalOutput:
    """One evaluated output of a CoEval score file."""

    id: str
    question: int
    """1-based position of the input in the file."""
    query: str
    system: str
    prediction: str
    humans: dict[str, list[int]]
    """Criterion name -> the annotators' scores, in ``_CoevalTask.annotators`` order."""
    chatgpt: dict[str, int]


def _inputs(path: Path) -> list[tuple[str, Record]]:
    """(input text, its ``{system: ...}`` object) per input of a CoEval file, in file order."""
    inputs = []
    for position, (query, systems) in enumerate(_json_object(path).items(), start=1):
        data = systems if isinstance(systems, dict) else {}
        record = Record(path, None, data, f"input {position}", position=position)
        if not isinstance(systems, dict):
            raise record.error(None, f"expected an object of systems, got {type(systems).__name__}")
        inputs.append((query, record))
    return inputs


def _read_coeval(root: Path, task: _CoevalTask) -> list[_CoevalOutput]:
    outputs = []
    for question, (query, systems) in enumerate(_inputs(root / task.scores_file), start=1):
        for system in systems.data:
            record = systems.child(system)
            humans: dict[str, list[int]] = {}
            chatgpt: dict[str, int] = {}
            for key, name, _ in task.criteria:
                scores = record.child(key)
                humans[name] = [scores.whole(annotator, 1, 5) for annotator in task.annotators]
                chatgpt[name] = scores.whole("chatgpt", 1, 5)
            outputs.append(
                _CoevalOutput(
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


def _coeval_loader(task: _CoevalTask) -> Callable[[Path], Iterator[Instance]]:
    criteria = task.criterion_objects

    def load(root: Path) -> Iterator[Instance]:
        for output in _read_coeval(root, task):
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


def _chatgpt_loader(task: _CoevalTask) -> Callable[[Path], Iterator[Judgment]]:
    def load(root: Path) -> Iterator[Judgment]:
        outputs = _read_coeval(root, task)
        texts = _chatgpt_texts(root, task, outputs)
        for output in outputs:
            yield _chatgpt_judgment(task, output, texts[output.id])

    return load


def _chatgpt_texts(root: Path, task: _CoevalTask, outputs: Sequence[_CoevalOutput]) -> dict[str, list[str]]:
    """Each output's ChatGPT evaluation text per criterion, joined on (input position, system).

    ``combine_data.json`` lists the same inputs in the same order as the score file (four outputs each, in
    varying system order); its copy of the input text can differ (one ELI5 question lost its first three
    characters), so the join checks the output text instead.
    """
    path = root / _COEVAL_COMBINED
    record = Record(path, None, _json_object(path)).child(task.key)
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


def _chatgpt_judgment(task: _CoevalTask, output: _CoevalOutput, texts: Sequence[str]) -> Judgment:
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


def _coeval_recorded(task: _CoevalTask) -> Callable[[Path], list[RecordedSource]]:
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
    return lambda root: [source] if (root / _COEVAL_COMBINED).exists() else []


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
    if task not in _COEVAL_TASKS:
        raise FacetevalError(f"unknown CoEval task {task!r}; one of {', '.join(_COEVAL_TASKS)}")
    spec, root = _COEVAL_TASKS[task], Path(data_dir)
    outputs = _read_coeval(root, spec)
    path = root / spec.actions_file
    inputs = _inputs(path)
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


def _coeval_benchmark(task: _CoevalTask, *, title: str, sha256: Mapping[str, str], notes: str) -> Benchmark:
    fetch = [
        RemoteFile(
            url=_raw_url(_COEVAL_REPO, _COEVAL_COMMIT, f"webapp/evaluation_data/{file}"),
            path=f"coeval/evaluation_data/{file}",
            sha256=sha256[part],
        )
        for part in ("annotator_scores", "action", "criteria_to_action", "score_change")
        if (file := f"{task.folder}/{task.prefix}_{part}.json")
    ]
    fetch.append(
        RemoteFile(
            url=_raw_url(_COEVAL_REPO, _COEVAL_COMMIT, "data/combine_data.json"),
            path=_COEVAL_COMBINED,
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
        recorded=_coeval_recorded(task),
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
        _ELI5,
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
        _ROC,
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
        _SELF_INSTRUCT,
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


BENCHMARKS: tuple[Benchmark, ...] = (_SUMMEVAL, *_UNIEVAL_BENCHMARKS, *_COEVAL_BENCHMARKS)
