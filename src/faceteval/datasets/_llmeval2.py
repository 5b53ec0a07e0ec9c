"""LLMEval²: 2,553 response pairs from 15 datasets with a human preference or a tie, and its ELI5 subset.

The folder's ``SOURCE.md`` describes the file.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from faceteval._util.records import jsonl_records
from faceteval.core import Instance
from faceteval.datasets._base import coded
from faceteval.datasets._benchmark import Benchmark

_LLMEVAL2_LABEL = {"model1": 1, "model2": 2, "TIE": 0}


def _load_llmeval2(root: Path, *, dataset: str | None = None) -> Iterator[Instance]:
    for record in jsonl_records(root / "llmeval2" / "LLMEval2_benchmark.json"):
        source = record.get("dataset", str)
        if dataset is not None and source != dataset:
            continue
        yield Instance(
            id=f"llmeval2:{record.line}",
            query=record.get("query", str),
            candidates=(record.get("response1", str), record.get("response2", str)),
            category=source,
            label=coded(record, "human", _LLMEVAL2_LABEL),
            metadata={"dataset": source, "line": record.line, "human": record.get("human", str)},
        )


def _load_llmeval2_eli5(root: Path) -> Iterator[Instance]:
    return _load_llmeval2(root, dataset="eli5")


_LLMEVAL2_NOTES = (
    "Ids are llmeval2:<line of the JSONL file>, shared by llmeval2 and llmeval2-eli5. Category = source "
    "dataset (15). mt-bench items have an empty query (the conversation is inside each response). No "
    "predefined criteria. Not fetchable file by file: the public source is a zip "
    "(WideDeep/evaluation_data/LLMEval2_benchmark.json.zip at DAMO-ConvAI commit 621d6e6a) deleted later."
)
_LLMEVAL2_URL = (
    "https://github.com/AlibabaResearch/DAMO-ConvAI/tree/621d6e6a1f11a4628e8abe0dac81f71d3ca7614e/WideDeep"
)
_LLMEVAL2_LICENSE = "MIT (repository); items drawn from 15 public datasets under their own terms"

_LLMEVAL2 = Benchmark(
    name="llmeval2",
    title="LLMEval²: 2,553 response pairs from 15 datasets with a human preference or tie",
    kind="pairwise",
    labels="better response 1/2 (model1/model2), 0 tie (TIE)",
    license=_LLMEVAL2_LICENSE,
    path="llmeval2/LLMEval2_benchmark.json",
    load=_load_llmeval2,
    size=2553,
    url=_LLMEVAL2_URL,
    notes=_LLMEVAL2_NOTES,
)

_LLMEVAL2_ELI5 = Benchmark(
    name="llmeval2-eli5",
    title="LLMEval² ELI5 subset: long-form Reddit question answering pairs (DnA-Eval's LLMEval ELI5)",
    kind="pairwise",
    labels="better response 1/2, no ties",
    license=_LLMEVAL2_LICENSE,
    path="llmeval2/LLMEval2_benchmark.json",
    load=_load_llmeval2_eli5,
    size=149,
    url=_LLMEVAL2_URL,
    notes=_LLMEVAL2_NOTES,
)


BENCHMARKS: tuple[Benchmark, ...] = (_LLMEVAL2, _LLMEVAL2_ELI5)
