"""SummEval: 100 CNN/DailyMail articles x 16 system summaries, expert scores on four dimensions.

Read from PPairS' processed copy (expert means, no system ids, no references); the folder's
``SOURCE.md`` describes the file.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from faceteval._util.files import read_jsonl
from faceteval._util.records import Record
from faceteval.core import Criterion, Instance
from faceteval.datasets._base import raw_url
from faceteval.datasets._benchmark import Benchmark, RemoteFile

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
    task_type="summarization",
    fetch=(
        RemoteFile(
            url=raw_url("maiush/PPairS", "0beef748c02726db1a781784eeb19bae8d219c19", "data/summeval.jsonl"),
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


BENCHMARKS: tuple[Benchmark, ...] = (_SUMMEVAL,)
