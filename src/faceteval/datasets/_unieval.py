"""UniEval's meta-evaluation sets: Topical-Chat, SFRES, SFHOT, QAGS-CNNDM and QAGS-XSum.

One reader serves the five files (``unieval/data/<kind>/<set>.json``); each set declares its human score
aspects, its criteria and the level its published correlations are read at. The folder's ``SOURCE.md``
describes the files.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from faceteval._util.records import json_records
from faceteval.core import Criterion, Instance
from faceteval.datasets._base import raw_url
from faceteval.datasets._benchmark import Benchmark, RemoteFile

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


_TASK_TYPES = {"dialogue": "dialogue", "data2text": "data-to-text", "fact": "summarization"}
"""Each kind of set as HD-Eval names its domain (QAGS rates summaries)."""


def _unieval_benchmark(spec: _UniEvalSet, *, sha256: str, **fields: Any) -> Benchmark:
    upstream = f"reproduce/data/{spec.file}"
    return Benchmark(
        name=spec.name,
        kind="pointwise",
        task_type=_TASK_TYPES[spec.kind],
        license=_UNIEVAL_LICENSE,
        path=f"unieval/data/{spec.file}",
        load=_unieval_loader(spec),
        url=_UNIEVAL_URL,
        aspects=tuple(spec.scales),
        fetch=(
            RemoteFile(
                url=raw_url(_UNIEVAL_REPO, _UNIEVAL_COMMIT, upstream),
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


BENCHMARKS: tuple[Benchmark, ...] = _UNIEVAL_BENCHMARKS
