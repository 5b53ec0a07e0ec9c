"""Pairwise benchmarks with ties, and the recorded judges shipped with them.

FairEval (Vicuna-80), the PandaLM test set, Auto-J's pairwise test set, LLMEval² (and its ELI5 subset),
Prometheus' HHH-alignment pairs, and Prometheus' MT-Bench / Vicuna-Bench rubric sets (recorded GPT-4 scores
only, no human labels). Every decision about coding is written next to the loader that makes it; the folder's
``SOURCE.md`` describes the files.

One module holds all of them (it is longer than the ~400 lines the style guide asks for) because they share
the record helpers and each loader is short.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean
from typing import Any

from faceteval.core import Criterion, Instance, Judgment, OrderResult, TraceEntry
from faceteval.datasets._benchmark import Benchmark, RecordedSource, RemoteFile
from faceteval.datasets._files import Record, json_records, jsonl_records
from faceteval.errors import InputError

# ---------------------------------------------------------------------------------------------------------
# Record helpers


def _text_lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputError(str(path), None, None, f"cannot open: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise InputError(str(path), None, None, f"not UTF-8 text ({exc.reason})") from exc


def _coded(record: Record, name: str, coding: Mapping[Any, int]) -> int:
    """``record[name]`` translated through ``coding``; any other value is an `InputError`."""
    value = record.get(name, (str, int))
    if value not in coding:
        known = ", ".join(repr(k) for k in coding)
        raise record.error(name, f"expected one of {known}, got {value!r}")
    return coding[value]


def _same_count(count: int, expected: int, path: Path, what: str) -> None:
    if count != expected:
        raise InputError(str(path), None, None, f"{count} records, expected {expected} ({what})")


def _fetch(
    repo: str, commit: str, prefix: str, folder: str, files: Mapping[str, str]
) -> tuple[RemoteFile, ...]:
    """``files`` (path under ``prefix`` in the repository -> sha256) as raw GitHub URLs at ``commit``."""
    return tuple(
        RemoteFile(
            url=f"https://raw.githubusercontent.com/{repo}/{commit}/{prefix}{name}",
            path=f"{folder}/{name}",
            sha256=sha,
        )
        for name, sha in files.items()
    )


# ---------------------------------------------------------------------------------------------------------
# FairEval: Vicuna-80, ChatGPT (candidate 1) vs Vicuna-13B (candidate 2)

_FAIREVAL_LABELS = {"CHATGPT": 1, "VICUNA13B": 2, "TIE": 0}
"""Candidate 1 is ``answer_gpt35`` and candidate 2 ``answer_vicuna-13b``: FairEval's own order (m1=gpt35,
m2=vicuna-13b in its README) and the order of ``llmbar/Processed/FairEval``."""

_FAIREVAL_CRITERIA = (
    Criterion(name="helpfulness", description="How much the answer helps the user with their question."),
    Criterion(name="relevance", description="How closely the answer keeps to the question asked."),
    Criterion(name="accuracy", description="Whether what the answer states is correct."),
    Criterion(name="level of details", description="How thorough and detailed the answer is."),
)
"""The four aspects FairEval's review prompt names ("Please rate the helpfulness, relevance, accuracy, level
of details of their responses"); the DnA-Eval paper lists the same four as FairEval's predefined criteria."""


def _load_faireval(root: Path) -> Iterator[Instance]:
    base = root / "faireval"
    questions = jsonl_records(base / "question.jsonl")
    answers = [jsonl_records(base / "answer" / f"answer_{m}.jsonl") for m in ("gpt35", "vicuna-13b")]
    review = base / "review" / "review_gpt35_vicuna-13b_human.txt"
    labels = _text_lines(review)
    for model, records in zip(("gpt35", "vicuna-13b"), answers, strict=True):
        _same_count(
            len(records), len(questions), base / "answer" / f"answer_{model}.jsonl", "one per question"
        )
    _same_count(len(labels), len(questions), review, "one label line per question")
    for i, question in enumerate(questions):
        qid = question.get("question_id", int)
        texts, models = [], []
        for records in answers:
            answer = records[i]
            if answer.get("question_id", int) != qid:
                raise answer.error("question_id", f"expected {qid} (line {i + 1} of {question.path.name})")
            texts.append(answer.get("text", str))
            models.append(answer.get("model_id", str))
        raw = labels[i].strip()
        if raw not in _FAIREVAL_LABELS:
            raise InputError(str(review), i + 1, None, f"expected CHATGPT, VICUNA13B or TIE, got {raw!r}")
        yield Instance(
            id=f"faireval:{qid}",
            query=question.get("text", str),
            candidates=tuple(texts),
            category=question.get("category", str),
            label=_FAIREVAL_LABELS[raw],
            metadata={"question_id": qid, "models": models, "human": raw},
        )


_FAIREVAL = Benchmark(
    name="faireval",
    title="FairEval: Vicuna-80 questions, ChatGPT vs Vicuna-13B answers, one human preference each",
    kind="pairwise",
    labels="better answer 1 (ChatGPT) / 2 (Vicuna-13B), 0 tie",
    license="none stated (no LICENSE file in the repository); questions are the Vicuna-80 benchmark",
    path="faireval",
    load=_load_faireval,
    size=80,
    url="https://github.com/i-Eval/FairEval",
    criteria=_FAIREVAL_CRITERIA,
    fetch=_fetch(
        "i-Eval/FairEval",
        "453c117a69159fd7b7de2f4e0519bac57bee21f4",
        "",
        "faireval",
        {
            "question.jsonl": "32b519315704d3da88accb0cab4fd44622ff530fe49e450c1553030ce3e0f962",
            "answer/answer_gpt35.jsonl": "c6545739b0738eba5f9348e77f680031aec076a72ecba71b3014e7b1b0dfe099",
            "answer/answer_vicuna-13b.jsonl": (
                "d1a4b3a5d2e3ca90d2d55084ee25d4d90e63e65ac647bf50359da8633e16d0b8"
            ),
            "review/review_gpt35_vicuna-13b_human.txt": (
                "929f14e6582a7d14b1a3d189d29bc1319200588298e4b5429f7ac56bf847d224"
            ),
        },
    ),
    notes=(
        "Candidate 1 = gpt-3.5-turbo answer (CHATGPT), candidate 2 = vicuna-13b answer (VICUNA13B); TIE = 0. "
        "Category = Vicuna-80 question category. No recorded judge outputs in the repository; the 66 non-tie "
        "pairs with recorded GPT-4/ChatGPT judgments are LLMBar's processed FairEval set."
    ),
)


# ---------------------------------------------------------------------------------------------------------
# PandaLM test set

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
        votes = [_coded(record, name, _PANDALM_VOTE) for name in _ANNOTATORS]
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
    verdict = _coded(record, result_field, source.coding) if readable else None
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
    fetch=_fetch(
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


# ---------------------------------------------------------------------------------------------------------
# Auto-J pairwise test set (Auto-P)

_AUTOJ_LABEL = {0: 1, 1: 2, 2: 0}
"""Auto-J's coding (0 = response 1 better, 1 = response 2 better, 2 = tie) to ours (1, 2, 0)."""
_AUTOJ_EXCHANGED = {0: 2, 1: 1, 2: 0}
"""An output on the exchanged pair (response 2 shown first) in original numbering: Auto-J's own
``exchange_to_ori_label`` (0 <-> 1, 2 stays) followed by `_AUTOJ_LABEL`."""

_AUTOJ_GROUPS = {
    "Summarization": "post_summarization text_summarization note_summarization",
    "Exam Questions": "math_reasoning solving_exam_question_with_math solving_exam_question_without_math",
    "Code": "code_simplification code_generation explaining_code code_correction_rewriting "
    "code_to_code_translation",
    "Rewriting": "text_simplification language_polishing instructional_rewriting text_correction "
    "paraphrasing",
    "Creative Writing": "writing_song_lyrics writing_social_media_post writing_blog_post "
    "writing_personal_essay creative_writing writing_advertisement writing_marketing_materials "
    "writing_presentation_script counterfactual",
    "Functional Writing": "writing_product_description writing_job_application writing_news_article "
    "writing_biography writing_email writing_legal_document writing_technical_document "
    "writing_scientific_paper functional_writing writing_cooking_recipe",
    "General Communication": "asking_how_to_question open_question analyzing_general explaining_general "
    "seeking_advice recommendation value_judgement verifying_fact chitchat roleplay planning brainstorming",
    "NLP Tasks": "ranking text_to_text_translation data_analysis classification_identification "
    "title_generation question_generation reading_comprehension keywords_extraction information_extraction "
    "topic_modeling others",
}
"""Auto-J's 8 scenario groups (``scenario_group`` in its ``codes/leaderboard/utils_constants.py``), which its
leaderboard reports by; the data file itself names only the 58 scenarios."""
_AUTOJ_GROUP_OF = {scenario: group for group, names in _AUTOJ_GROUPS.items() for scenario in names.split()}


def _load_autoj(root: Path) -> Iterator[Instance]:
    for position, record in enumerate(
        jsonl_records(root / "autoj" / "test" / "testdata_pairwise.jsonl"), start=1
    ):
        scenario = record.get("scenario", str)
        raw_label = record.get("label", int)
        yield Instance(
            id=f"autoj-pairwise:{position}",
            query=record.get("prompt", str),
            candidates=(record.get("response 1", str), record.get("response 2", str)),
            category=scenario,
            label=_coded(record, "label", _AUTOJ_LABEL),
            metadata={
                "scenario": scenario,
                "scenario_group": _AUTOJ_GROUP_OF.get(scenario),
                "source_label": raw_label,
            },
        )


AUTOJ_PAIRS = 1392
"""Pairs in Auto-J's pairwise test set, and so lines in each of its recorded output files."""


def _autoj_output(record: Record) -> int | None:
    """Auto-J's verdict code (0, 1, 2) of one output line, or None when it holds no verdict."""
    value = record.get("output", (int, str, type(None)))
    if isinstance(value, str) and value.strip() in {"0", "1", "2"}:
        return int(value)
    return value if value in (0, 1, 2) else None


def _load_autoj_recorded(root: Path) -> Iterator[Judgment]:
    base = root / "autoj" / "outputs"
    outputs = []
    for name in ("pairwise_example_output.jsonl", "pairwise_exchange_example_output.jsonl"):
        outputs.append(jsonl_records(base / name))
        _same_count(len(outputs[-1]), AUTOJ_PAIRS, base / name, "one per pair of the test set")
    original, exchanged = outputs
    for position, (first, second) in enumerate(zip(original, exchanged, strict=True), start=1):
        yield _autoj_judgment(position, first, second)


def _autoj_judgment(position: int, first: Record, second: Record) -> Judgment:
    codes = (_autoj_output(first), _autoj_output(second))
    v1 = None if codes[0] is None else _AUTOJ_LABEL[codes[0]]
    v2 = None if codes[1] is None else _AUTOJ_EXCHANGED[codes[1]]
    trace = [
        TraceEntry(
            stage="recorded:auto-j-13b",
            messages=[],
            raw=json.dumps(record.data),
            parsed=None if code is None else _AUTOJ_LABEL[code],  # as shown: 1 = the response shown first
            problem=None if code is not None else "no verdict 0, 1 or 2 in 'output'",
            order=order,
        )
        for record, code, order in ((first, codes[0], [1, 2]), (second, codes[1], [2, 1]))
    ]
    orders = [OrderResult(order=[1, 2], verdict=v1), OrderResult(order=[2, 1], verdict=v2)]
    common = {"id": f"autoj-pairwise:{position}", "method": "recorded:auto-j-13b", "orders": orders}
    if v1 is None or v2 is None:
        which = " and ".join(name for name, v in (("original", v1), ("exchanged", v2)) if v is None)
        return Judgment(
            status="parse_error", error=f"no readable verdict in the {which} order", trace=trace, **common
        )
    return Judgment(status="ok", verdict=v1 if v1 == v2 else 0, consistent=v1 == v2, trace=trace, **common)


def _autoj_reported(_: Path) -> dict[str, float]:
    """Auto-J's leaderboard row for these two files (README, and Fennec Table 2: 54.96 / 83.41)."""
    return {"agreement_consistent": 0.5496, "consistency": 0.8341}


def _autoj_recorded(root: Path) -> list[RecordedSource]:
    outputs = root / "autoj" / "outputs"
    files = ("pairwise_example_output.jsonl", "pairwise_exchange_example_output.jsonl")
    if not all((outputs / name).exists() for name in files):
        return []
    return [
        RecordedSource(
            name="auto-j-13b",
            judge="Auto-J-13B (GAIR/autoj-13b)",
            description=(
                "Auto-J's released pairwise verdicts in both orders (pairwise_example_output / "
                "pairwise_exchange_example_output); verdict = the agreed one, tie when the orders disagree."
            ),
            load=_load_autoj_recorded,
            reported=_autoj_reported,
        )
    ]


_AUTOJ = Benchmark(
    name="autoj-pairwise",
    title="Auto-J pairwise test set (Auto-P): 58 real-user scenarios x 24 pairs, human preference or tie",
    kind="pairwise",
    labels="better response 1/2, 0 tie (Auto-J codes 0/1/2 = response 1 / response 2 / tie)",
    license="none stated for the data (no LICENSE file; Auto-J-13B weights under the Llama 2 license)",
    path="autoj/test/testdata_pairwise.jsonl",
    load=_load_autoj,
    size=AUTOJ_PAIRS,
    url="https://github.com/GAIR-NLP/auto-j",
    recorded=_autoj_recorded,
    fetch=_fetch(
        "GAIR-NLP/auto-j",
        "2ae17a3965d933232e9cd50302aa0f176249c83b",
        "data/",
        "autoj",
        {
            "test/testdata_pairwise.jsonl": (
                "56f32fad71d9b6b33bc4d51794c324981e26355bcbf3ce4908d7f8ddcc61f80e"
            ),
            "outputs/pairwise_example_output.jsonl": (
                "bbf9a67b39cef50d15dccbcfc5816dc83241b80493064e615695ce002c0bcb61"
            ),
            "outputs/pairwise_exchange_example_output.jsonl": (
                "0b3a4ef917edc1df0b8f48ef376f8065651d9bcb2375eddd0e844a7c992daaad"
            ),
        },
    ),
    notes=(
        "Auto-J label 0 -> 1, 1 -> 2, 2 (tie) -> 0; the source code is kept in metadata['source_label']. "
        "Category = scenario (58); metadata['scenario_group'] = Auto-J's 8 leaderboard groups. Auto-J's "
        "protocol (codes/leaderboard/pairwise_eval.py): ties are a third class, agreement = both orders "
        "give the human label / all 1,392 pairs, consistency = both orders agree / all pairs. No predefined "
        "criteria (Auto-J's per-scenario criteria files are not staged). The critique set and the GPT-4 "
        "critique comparisons judge critiques, not these pairs, and are not imported."
    ),
)


# ---------------------------------------------------------------------------------------------------------
# LLMEval^2

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
            label=_coded(record, "human", _LLMEVAL2_LABEL),
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


# ---------------------------------------------------------------------------------------------------------
# Prometheus: HHH-alignment pairs and the MT-Bench / Vicuna-Bench rubric sets

_PROMETHEUS_LICENSE = "Apache-2.0 (repository)"
_PROMETHEUS_URL = "https://github.com/prometheus-eval/prometheus-eval"
_PROMPT = re.compile(
    r"###The instruction to evaluate:\n(?P<query>.*)\n\n###Response to evaluate:\n(?P<response>.*?)\n\n"
    r"(?:###Reference Answer \(Score 5\):\n(?P<reference>.*)\n\n)?"
    r"###Score Rubrics:\n\[(?P<rubric>.*?)\]\n(?P<guideline>Score 1: .*)\n\n###Feedback: ?\Z",
    re.DOTALL,
)


@dataclass(frozen=True, slots=True)
class _Prompt:
    """The parts of a Prometheus absolute-grading prompt."""

    query: str
    response: str
    reference: str | None
    criterion: Criterion


def _parse_prompt(record: Record, name: str) -> _Prompt:
    match = _PROMPT.search(record.get(name, str))
    if match is None:
        raise record.error(
            name,
            "not a Prometheus grading prompt (expected the sections '###The instruction to evaluate:', "
            "'###Response to evaluate:', '###Score Rubrics:' with 'Score 1..5' lines, '###Feedback:')",
        )
    # The rubric's first sentence is its question; the rest (often nothing) describes it.
    head, *rest = re.split(r"(?<=[?.])\s+", match["rubric"].strip(), maxsplit=1)
    criterion = Criterion(name=head, description="".join(rest), guideline=match["guideline"], scale=(1, 5))
    return _Prompt(match["query"], match["response"], match["reference"], criterion)


def _chosen_first(instance_id: str) -> bool:
    """Whether the chosen response is candidate 1: the first byte of the id's SHA-256 is even (107 of 221)."""
    return hashlib.sha256(instance_id.encode()).digest()[0] % 2 == 0


def _load_hhh(root: Path) -> Iterator[Instance]:
    for record in json_records(root / "prometheus" / "hhh_alignment_eval.json"):
        chosen = _parse_prompt(record, "chosen_instruction")
        rejected = _parse_prompt(record, "rejected_instruction")
        if (chosen.query, chosen.criterion) != (rejected.query, rejected.criterion):
            raise record.error(
                "rejected_instruction", "instruction or rubric differs from chosen_instruction"
            )
        instance_id = f"prometheus-hhh:{record.position}"
        first = _chosen_first(instance_id)
        pair = (chosen.response, rejected.response) if first else (rejected.response, chosen.response)
        source = record.get("source", str)
        yield Instance(
            id=instance_id,
            query=chosen.query,
            candidates=pair,
            criteria=(chosen.criterion,),
            category=source,
            label=1 if first else 2,
            metadata={"source": source, "position": record.position},
        )


def _load_rubric_set(file: str, prefix: str) -> Callable[[Path], Iterator[Instance]]:
    def load(root: Path) -> Iterator[Instance]:
        for record in json_records(root / "prometheus" / file):
            prompt = _parse_prompt(record, "instruction")
            qid, responder = record.get("idx", int), record.get("response_source", str)
            runs = _gpt4_runs(record)
            yield Instance(
                id=f"{prefix}:{qid}:{responder}",
                query=prompt.query,
                candidates=(prompt.response,),
                reference=prompt.reference,
                criteria=(prompt.criterion,),
                category=record.get("category", str),
                scores={"score": round(fmean(score for score, _ in runs), 9)},
                metadata={
                    "question_id": qid,
                    "response_source": responder,
                    "annotators": {"score": [score for score, _ in runs]},
                },
            )

    return load


def _gpt4_scores(file: str, prefix: str, run: int | None) -> Callable[[Path], Iterator[Judgment]]:
    def load(root: Path) -> Iterator[Judgment]:
        for record in json_records(root / "prometheus" / file):
            yield _gpt4_judgment(record, prefix, run)

    return load


def _gpt4_runs(record: Record) -> list[tuple[int, str]]:
    """GPT-4's recorded (score, feedback) runs of one output, checked."""
    scores = record.get("gpt4_score", list)
    feedback = record.get("gpt4_feedback", list)
    if not scores or len(scores) != len(feedback):
        raise record.error("gpt4_feedback", f"{len(feedback)} feedback texts for {len(scores)} scores")
    for k, (score, text) in enumerate(zip(scores, feedback, strict=True)):
        if isinstance(score, bool) or not isinstance(score, int) or not 1 <= score <= 5:
            raise record.error(f"gpt4_score[{k}]", f"expected an integer 1-5, got {score!r}")
        if not isinstance(text, str):
            raise record.error(f"gpt4_feedback[{k}]", f"expected str, got {type(text).__name__}")
    return list(zip(scores, feedback, strict=True))


def _gpt4_judgment(record: Record, prefix: str, run: int | None) -> Judgment:
    """All runs (scores = their mean, one trace entry per run) or run ``run`` (1-based) alone."""
    runs = _gpt4_runs(record)
    if run is not None:
        if run > len(runs):
            raise record.error("gpt4_score", f"{len(runs)} recorded runs, no run {run}")
        runs = [runs[run - 1]]
    method = "recorded:gpt-4" if run is None else f"recorded:gpt-4-run{run}"
    trace = [TraceEntry(stage=method, messages=[], raw=text, parsed=score) for score, text in runs]
    qid, responder = record.get("idx", int), record.get("response_source", str)
    return Judgment(
        id=f"{prefix}:{qid}:{responder}",
        method=method,
        status="ok",
        scores=[round(fmean(score for score, _ in runs), 9)],
        trace=trace,
    )


_GPT4_RUNS = 3


def _prometheus_recorded(file: str, prefix: str) -> Callable[[Path], list[RecordedSource]]:
    def recorded(root: Path) -> list[RecordedSource]:
        judge = "GPT-4 (2023, as recorded by Prometheus)"
        runs = [
            RecordedSource(
                name=f"gpt-4-run{run}",
                judge=f"{judge}, run {run}",
                description=f"GPT-4's recorded run {run} of {_GPT4_RUNS}: its 1-5 rubric score and feedback.",
                load=_gpt4_scores(file, prefix, run),
            )
            for run in range(1, _GPT4_RUNS + 1)
        ]
        mean = RecordedSource(
            name="gpt-4",
            judge=judge,
            description=(
                "Three sampled GPT-4 1-5 rubric scores with feedback per output; scores = [their mean], "
                "each run is a trace entry (parsed = its score, raw = its feedback). Measured against this "
                "benchmark's reference (the same mean) it correlates perfectly: measure a single run instead."
            ),
            load=_gpt4_scores(file, prefix, None),
        )
        return [mean, *runs]

    return recorded


def _prometheus_fetch(file: str, sha: str) -> tuple[RemoteFile, ...]:
    commit = "dcfb44272d5d0414832f5dbb8c2a05ebc2614234"
    return _fetch(
        "prometheus-eval/prometheus-eval", commit, "eval/benchmark/data/", "prometheus", {file: sha}
    )


_HHH = Benchmark(
    name="prometheus-hhh",
    title="HHH-alignment (BIG-bench) pairs as packaged by Prometheus: human-preferred vs other response",
    kind="pairwise",
    labels="preferred response 1/2, no ties (order set by a hash of the id)",
    license=_PROMETHEUS_LICENSE + "; HHH-alignment from BIG-bench (Askell et al.)",
    path="prometheus/hhh_alignment_eval.json",
    load=_load_hhh,
    size=221,
    url=_PROMETHEUS_URL,
    fetch=_prometheus_fetch(
        "hhh_alignment_eval.json", "fe6655dfeec99d04d582692767c736f2385b5e067f0b894d1b73a32af7be9c9e"
    ),
    notes=(
        "The source lists chosen before rejected; here the chosen response is candidate 1 when the first "
        "byte of sha256('prometheus-hhh:<position>') is even (107 pairs, label 1) and candidate 2 otherwise "
        "(114, label 2). Query, response and the 1-5 rubric are parsed out of Prometheus' grading prompts; "
        "the rubric (one per HHH subset) is the instance's criterion. Category = HHH subset."
    ),
)


def _rubric_benchmark(name: str, file: str, sha: str, title: str) -> Benchmark:
    return Benchmark(
        name=name,
        title=title,
        kind="pointwise",
        labels="no human labels: the reference is GPT-4's 1-5 score (mean of 3 recorded runs)",
        reference="GPT-4 (mean of 3 recorded runs)",
        aspects=("score",),
        license=_PROMETHEUS_LICENSE,
        path=f"prometheus/{file}",
        load=_load_rubric_set(file, name),
        size=320,
        url=_PROMETHEUS_URL,
        group_by="question_id",
        system_by="response_source",
        recorded=_prometheus_recorded(file, name),
        fetch=_prometheus_fetch(file, sha),
        notes=(
            "Ids are <name>:<question idx>:<response_source>. Each output has its own 1-5 rubric (the "
            "instance's criterion, with the score descriptions as guideline) and a score-5 reference answer. "
            "No human scores: a judge is measured against GPT-4 (Instance.scores['score'] = the mean of its "
            "three runs, the runs are the annotators behind Krippendorff's alpha), as in Prometheus' "
            "correlation-with-GPT-4 protocol. recorded:gpt-4-run1..3 are the single runs."
        ),
    )


_MTBENCH_RUBRIC = _rubric_benchmark(
    "prometheus-mtbench",
    "mt_bench_eval.json",
    "5bf33413c34173c3b94f008499fd9098fb6338d5d1cf64f341e8e0c9b9f105cf",
    "MT-Bench second turns x 4 responders with Prometheus' per-question rubrics and 3 recorded GPT-4 scores",
)
_VICUNA_RUBRIC = _rubric_benchmark(
    "prometheus-vicuna",
    "vicuna_eval.json",
    "131550a5815f75014a3ea71b0f534fb7ef0ca49b714c4e66935c35fdee1daacc",
    "Vicuna-Bench x 4 responders with Prometheus' per-question rubrics and 3 recorded GPT-4 scores",
)


BENCHMARKS: tuple[Benchmark, ...] = (
    _FAIREVAL,
    _PANDALM,
    _AUTOJ,
    _LLMEVAL2,
    _LLMEVAL2_ELI5,
    _HHH,
    _MTBENCH_RUBRIC,
    _VICUNA_RUBRIC,
)
