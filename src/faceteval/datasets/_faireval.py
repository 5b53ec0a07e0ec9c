"""FairEval: the Vicuna-80 questions, ChatGPT's and Vicuna-13B's answers, one human preference each.

Candidate 1 is ChatGPT (``answer_gpt35``), candidate 2 Vicuna-13B; the folder's ``SOURCE.md`` describes
the files.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from faceteval._util.records import jsonl_records
from faceteval.core import Criterion, Instance
from faceteval.datasets._base import github_files, same_count, text_lines
from faceteval.datasets._benchmark import Benchmark
from faceteval.errors import InputError

_FAIREVAL_LABELS = {"CHATGPT": 1, "VICUNA13B": 2, "TIE": 0}
"""Candidate 1 is ``answer_gpt35`` and candidate 2 ``answer_vicuna-13b``: FairEval's own order (m1=gpt35,
m2=vicuna-13b in its README) and the order of ``llmbar/Processed/FairEval``."""

FAIREVAL_CRITERIA = (
    Criterion(name="helpfulness", description="How much the answer helps the user with their question."),
    Criterion(name="relevance", description="How closely the answer keeps to the question asked."),
    Criterion(name="accuracy", description="Whether what the answer states is correct."),
    Criterion(name="level of details", description="How thorough and detailed the answer is."),
)
"""The four aspects FairEval's review prompt names ("Please rate the helpfulness, relevance, accuracy, level
of details of their responses"); the DnA-Eval paper lists the same four as FairEval's predefined criteria
(Table 1, Section 4: the human annotators were given them), so every instance carries them and DnA-Eval scores
them instead of generating aspects."""


def _load_faireval(root: Path) -> Iterator[Instance]:
    base = root / "faireval"
    questions = jsonl_records(base / "question.jsonl")
    answers = [jsonl_records(base / "answer" / f"answer_{m}.jsonl") for m in ("gpt35", "vicuna-13b")]
    review = base / "review" / "review_gpt35_vicuna-13b_human.txt"
    labels = text_lines(review)
    for model, records in zip(("gpt35", "vicuna-13b"), answers, strict=True):
        same_count(
            len(records), len(questions), base / "answer" / f"answer_{model}.jsonl", "one per question"
        )
    same_count(len(labels), len(questions), review, "one label line per question")
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
            criteria=FAIREVAL_CRITERIA,
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
    criteria=FAIREVAL_CRITERIA,
    prompt_style="faireval",
    fetch=github_files(
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


BENCHMARKS: tuple[Benchmark, ...] = (_FAIREVAL,)
