"""The PandaLM test set: self-instruct tasks, two 7B-model responses, three human annotators; and the
recorded gpt-3.5-turbo and PandaLM-7B judgments released with it.

Every decision about coding is written next to the code that makes it; the folder's ``SOURCE.md``
describes the files.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from faceteval._util.records import Record, json_records
from faceteval.core import Instance, Judgment, TraceEntry
from faceteval.datasets._base import coded, github_files
from faceteval.datasets._benchmark import Benchmark, RecordedSource

_PANDALM_VOTE = {0: 0, 1: 1, 2: 2}
"""Annotator codes are already ours: 1 = response1 better, 2 = response2 better, 0 = tie."""
_ANNOTATORS = ("annotator1", "annotator2", "annotator3")


def _majority(votes: list[int]) -> int:
    """The vote at least two of three annotators gave; a three-way split (1, 2, 0) counts as a tie.

    PandaLM ships no final label. Its test set v1 has no three-way split (879 unanimous, 120 two-to-one),
    so the tie rule only matters for other copies of the file.
    """
    value, count = Counter(votes).most_common(1)[0]
    return value if count >= 2 else 0


def _load_pandalm(root: Path) -> Iterator[Instance]:
    for record in json_records(root / "pandalm" / "testset-v1.json"):
        idx = record.get("idx", int)
        instruction, given = record.get("instruction", str), record.get("input", str)
        votes = [coded(record, name, _PANDALM_VOTE) for name in _ANNOTATORS]
        cmp_key = record.get("cmp_key", str)
        yield Instance(
            id=f"pandalm:{idx}",
            query=f"{instruction}\n\n{given}" if given.strip() else instruction,
            candidates=(_pandalm_response(record, "response1"), _pandalm_response(record, "response2")),
            category=record.get("motivation_app", str),
            label=_majority(votes),
            metadata={
                "idx": idx,
                "cmp_key": cmp_key,
                "models": cmp_key.split("_", 1),
                "motivation_app": record.get("motivation_app", str),
                "annotators": votes,
            },
        )


def _pandalm_response(record: Record, name: str) -> str:
    """A response text; six responses (idx 157-164) are JSON ``true`` in the file and read as ``"True"``."""
    value = record.get(name, (str, bool))
    return str(value) if isinstance(value, bool) else value


@dataclass(frozen=True, slots=True)
class _PandaFile:
    """How one recorded PandaLM-format file is read."""

    file: str
    prefix: str
    """Field prefix: ``gpt`` or ``pandalm`` (``<prefix>_result``, ``_reason``, ``_reference``)."""
    coding: Mapping[Any, int]
    unreadable: tuple[Any, ...] = ()
    """Result values the source uses for a reply it could not read (``garbage``)."""


def _pandalm_judgments(source: _PandaFile, name: str) -> Callable[[Path], Iterator[Judgment]]:
    def load(root: Path) -> Iterator[Judgment]:
        seen: set[int] = set()
        for record in json_records(root / "pandalm" / source.file):
            idx = record.get("idx", int)
            if idx in seen:
                raise record.error("idx", f"duplicate idx {idx}")
            seen.add(idx)
            yield _pandalm_judgment(record, idx, source, name)

    return load


def _pandalm_judgment(record: Record, idx: int, source: _PandaFile, name: str) -> Judgment:
    result_field = f"{source.prefix}_result"
    result = record.get(result_field, (str, int))
    readable = result not in source.unreadable
    verdict = coded(record, result_field, source.coding) if readable else None
    reason = record.get(f"{source.prefix}_reason", str)
    reference = record.get(f"{source.prefix}_reference", str)
    trace = TraceEntry(
        stage=f"recorded:{name}",
        messages=[],
        raw=f"result: {result}\nreason: {reason}\nreference: {reference}",
        parsed=verdict,
        problem=None if readable else f"the source marks this reply unreadable ({result!r})",
        order=[1, 2],
    )
    if verdict is None:
        return Judgment(
            id=f"pandalm:{idx}",
            method=f"recorded:{name}",
            status="parse_error",
            error=f"recorded result is {result!r}: the source could not read a verdict from the reply",
            trace=[trace],
        )
    return Judgment(
        id=f"pandalm:{idx}", method=f"recorded:{name}", status="ok", verdict=verdict, trace=[trace]
    )


_GPT35_FILE = _PandaFile(
    "gpt-3.5-turbo-testset-v1.json", "gpt", {"1": 1, "2": 2, "Tie": 0}, unreadable=("garbage",)
)
_PANDALM7B_FILE = _PandaFile("pandalm-7b-testset-v1.json", "pandalm", {1: 1, 2: 2, 0: 0})


def _pandalm_recorded(root: Path) -> list[RecordedSource]:
    """The recorded PandaLM-format files present in ``root``."""
    sources = [
        RecordedSource(
            name="gpt-3.5-turbo",
            judge="ChatGPT (gpt-3.5-turbo, 2023)",
            description=(
                "PandaLM's released gpt-3.5-turbo judgments: result, reason and reference response, one "
                "order (response1 first); 25 'garbage' results are parse errors."
            ),
            load=_pandalm_judgments(_GPT35_FILE, "gpt-3.5-turbo"),
        ),
        RecordedSource(
            name="pandalm-7b",
            judge="PandaLM-7B (WeOpenML/PandaLM-7B-v1)",
            description="PandaLM-7B's released judgments: result, reason and reference response, one order.",
            load=_pandalm_judgments(_PANDALM7B_FILE, "pandalm-7b"),
        ),
    ]
    files = (_GPT35_FILE, _PANDALM7B_FILE)
    return [s for s, f in zip(sources, files, strict=True) if (root / "pandalm" / f.file).exists()]


_PANDALM = Benchmark(
    name="pandalm",
    title="PandaLM test set: self-instruct tasks, two 7B-model responses, three human annotators",
    kind="pairwise",
    labels="better response 1/2, 0 tie: majority of 3 annotators (a 3-way split would count as a tie)",
    license="Apache-2.0 (repository; model weights under the LLaMA license)",
    path="pandalm/testset-v1.json",
    load=_load_pandalm,
    size=999,
    url="https://github.com/WeOpenML/PandaLM",
    recorded=_pandalm_recorded,
    fetch=github_files(
        "WeOpenML/PandaLM",
        "3871806e72b4832f815ecafd24d3503c73403f48",
        "data/",
        "pandalm",
        {
            "testset-v1.json": "cc154f9067c7382d7ea86f8f246511a5e1ac87e1fddd845c5938d789505b07a4",
            "gpt-3.5-turbo-testset-v1.json": (
                "4c00aa7b3eeae504050a037422ba6f5b0a2ee041680f47bb77b8a4b549b128e3"
            ),
            "pandalm-7b-testset-v1.json": "9a40b62a7bb2aa87ca77eb8bfcb51539b5a62f974ce91678d30e834d65ed0a7e",
        },
    ),
    notes=(
        "Label = majority of annotator1..3 (every record has one: 879 unanimous, 120 two-to-one); the three "
        "votes are in metadata['annotators']. Category = motivation_app (the self-instruct app the task was "
        "written for, 50 values). Query = instruction, then the input after a blank line when there is one. "
        "No predefined criteria (the annotation guidelines are not published). Recorded judges: one order. "
        "Six responses (idx 157-164, models bloom-7b / opt-7b) are the JSON boolean true, read as 'True'."
    ),
)


BENCHMARKS: tuple[Benchmark, ...] = (_PANDALM,)
