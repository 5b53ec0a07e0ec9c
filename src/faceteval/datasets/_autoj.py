"""Auto-J's pairwise test set (Auto-P): 58 real-user scenarios x 24 pairs, a human preference or a tie;
and Auto-J-13B's recorded verdicts in both orders.

Every decision about coding is written next to the code that makes it; the folder's ``SOURCE.md``
describes the files.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from faceteval._util.records import Record, jsonl_records
from faceteval.core import Instance, Judgment, OrderResult, TraceEntry
from faceteval.datasets._base import coded, github_files, same_count
from faceteval.datasets._benchmark import Benchmark, RecordedSource

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
            label=coded(record, "label", _AUTOJ_LABEL),
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
        same_count(len(outputs[-1]), AUTOJ_PAIRS, base / name, "one per pair of the test set")
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
    fetch=github_files(
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


BENCHMARKS: tuple[Benchmark, ...] = (_AUTOJ,)
