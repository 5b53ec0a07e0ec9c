"""Fennec SFT export: the four sets, swap augmentation and filtering, single-eval, corrections, files."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from faceteval import Instance, JudgeOptions, Judgment, judge
from faceteval.core import Criterion
from faceteval.errors import FacetevalError, InputError
from faceteval.llm import LLM, ModelSpec, ScriptedProvider
from faceteval.methods.fennec import Fennec
from faceteval.workflows.fennec._sft import build_sft, export_sft, read_corrections, write_sft
from faceteval.workflows.fennec._sft_model import (
    SET_FILES,
    SFT_SETS,
    STATS_FILE,
    Correction,
    Sample,
    SftData,
    preference,
    swap_labels,
)
from tests.support.fennec_judge import DEFAULT_CRITERIA, FennecJudge, guideline_for
from tests.support.files import write_jsonl

QUERY = "Explain rain."
NAMES = [name for name, _ in DEFAULT_CRITERIA[:3]]


def run(instances: list[Instance], method: Fennec, rule: FennecJudge, *, swap: bool) -> list[Judgment]:
    llm = LLM(ScriptedProvider(rule.for_provider()), ModelSpec("scripted", "judge"))
    return judge(instances, method, llm, options=JudgeOptions(swap=swap))


def pair(i: str, a: str = "good", b: str = "poor", query: str = QUERY, **extra: Any) -> Instance:
    return Instance(id=i, query=query, candidates=(a, b), **extra)


def export(
    instances: list[Instance],
    method: Fennec,
    rule: FennecJudge,
    *,
    swap: bool,
    corrections: Sequence[Correction] = (),
    **options: Any,
) -> SftData:
    judgments = run(instances, method, rule, swap=swap)
    return build_sft(judgments, {i.id: i for i in instances}, corrections, **options)


def reply(sample: Sample) -> str:
    return sample.messages[-1][1]


def user(sample: Sample) -> str:
    return sample.messages[1][1]


def consistent_judge() -> FennecJudge:
    return FennecJudge(quality={"good": 5, "poor": 2})


def assert_chat(record: dict[str, Any]) -> None:
    """A record is one chat: system, user, assistant, each with text."""
    assert list(record) == ["messages"]
    messages = record["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant"]
    for message in messages:
        assert set(message) == {"role", "content"}
        assert isinstance(message["content"], str) and message["content"].strip()


def test_one_order_judgment_gains_its_swapped_sample() -> None:
    data = export([pair("1")], Fennec(criteria_count=3), consistent_judge(), swap=False)
    stats = data.stats
    assert stats.samples == {"criteria": 1, "score": 3, "judge": 6, "correction": 0}
    assert (stats.augmented, stats.inconsistent, stats.total) == (3, 0, 10)
    real, swapped = data.sets["judge"][:2]
    assert (real.augmented, swapped.augmented) == (False, True)
    assert user(real).index("[The Start of Response A]\n> good") < user(real).index("Response B]\n> poor")
    assert "[The Start of Response A]\n> poor\n[The End of Response A]" in user(swapped)
    assert "[The Start of Response B]\n> good\n[The End of Response B]" in user(swapped)
    assert reply(real) == (
        "Response A Score: 5\nExplanation: Response A on Accuracy: good.\n"
        "Response B Score: 2\nExplanation: Response B on Accuracy: poor.\n"
        "Comparison: compared on Accuracy."
    )
    assert reply(swapped) == (
        "Response A Score: 2\nExplanation: Response A on Accuracy: poor.\n"
        "Response B Score: 5\nExplanation: Response B on Accuracy: good.\n"
        "Comparison: compared on Accuracy."
    )
    assert real.messages[0] == swapped.messages[0]  # the same pairwise system message


def test_augmented_samples_are_what_the_judge_writes_in_the_swapped_order() -> None:
    one = export([pair("1")], Fennec(criteria_count=3), consistent_judge(), swap=False)
    both = export([pair("1")], Fennec(criteria_count=3), consistent_judge(), swap=True)
    augmented = {s.messages for s in one.sets["judge"] if s.augmented}
    assert both.stats.augmented == 0 and both.stats.samples["judge"] == 6
    assert {s.messages for s in both.sets["judge"]} == {s.messages for s in one.sets["judge"]}
    assert len(augmented) == 3 and augmented < {s.messages for s in both.sets["judge"]}


def test_swapping_exchanges_the_labels_in_comparison_and_explanations() -> None:
    instances = [pair("1")]
    (judgment,) = run(instances, Fennec(criteria_count=1), consistent_judge(), swap=False)
    facet = judgment.facets[0].model_copy(
        update={
            "explanation": "Response A is clearer than Response B; response b rambles.",
            "explanations": ["Better than Response B.", "Worse than Response A."],
        }
    )
    judgment = judgment.model_copy(update={"facets": [facet]})
    data = build_sft([judgment], {"1": instances[0]})
    real, swapped = data.sets["judge"]
    assert reply(real).endswith("Comparison: Response A is clearer than Response B; response b rambles.")
    assert reply(swapped) == (
        "Response A Score: 2\nExplanation: Worse than Response B.\n"
        "Response B Score: 5\nExplanation: Better than Response A.\n"
        "Comparison: Response B is clearer than Response A; response a rambles."
    )


def test_no_augment_keeps_only_the_real_samples() -> None:
    data = export([pair("1")], Fennec(criteria_count=3), consistent_judge(), swap=False, augment=False)
    assert data.stats.samples["judge"] == 3 and data.stats.augmented == 0
    assert not any(s.augmented for s in data.sets["judge"])
    assert data.stats.to_dict()["augment"] is False


def test_swap_inconsistent_criteria_are_dropped() -> None:
    # The first response shown gains 2: Accuracy keeps its preference (5 vs 2, then 4 vs 5), the
    # other criteria flip with the order (5 vs 2, then 4 vs 3).
    rule = FennecJudge(quality={"good": {"Accuracy": 5}, "poor": 2}, first_bias=2)
    data = export([pair("1")], Fennec(criteria_count=3), rule, swap=True)
    assert data.stats.inconsistent == 4  # two criteria, one sample per order each
    assert (data.stats.samples["judge"], data.stats.augmented) == (2, 0)
    judged = {user(s).split("[Evaluation Criteria]:\n> ", 1)[1].split(":", 1)[0] for s in data.sets["judge"]}
    assert judged == {"Accuracy"}
    assert [reply(s).splitlines()[0] for s in data.sets["judge"]] == [
        "Response A Score: 5",
        "Response A Score: 4",
    ]
    # guidelines and criteria do not depend on the order: all are kept
    assert (data.stats.samples["criteria"], data.stats.samples["score"]) == (1, 3)


def test_a_biased_judge_in_one_order_is_not_filtered() -> None:
    rule = FennecJudge(quality={"good": {"Accuracy": 5}, "poor": 2}, first_bias=2)
    data = export([pair("1")], Fennec(criteria_count=3), rule, swap=False)
    assert (data.stats.inconsistent, data.stats.samples["judge"], data.stats.augmented) == (0, 6, 3)


def test_single_eval_gives_one_sample_per_response_and_no_swap() -> None:
    data = export(
        [pair("1")], Fennec(criteria_count=2, single=True), consistent_judge(), swap=True, single=True
    )
    stats = data.stats
    assert (stats.samples["judge"], stats.augmented, stats.inconsistent, stats.single) == (4, 0, 0, 1)
    assert stats.duplicates["judge"] == 4  # the second order repeats the first
    first = data.sets["judge"][0]
    assert "Single-Score Evaluations" in first.messages[0][1]
    assert "[The Start of Response]\n> good\n[The End of Response]" in user(first)
    assert reply(first) == "Response Score: 5\nExplanation: Response on Accuracy: good."
    assert {reply(s).splitlines()[0] for s in data.sets["judge"]} == {
        "Response Score: 5",
        "Response Score: 2",
    }


def test_single_eval_is_told_from_the_judgment_without_a_run_record() -> None:
    data = export([pair("1")], Fennec(criteria_count=2, single=True), consistent_judge(), swap=False)
    assert data.stats.single == 1 and data.stats.samples["judge"] == 4
    assert all(reply(s).startswith("Response Score: ") for s in data.sets["judge"])


def test_predefined_criteria_give_no_criteria_samples() -> None:
    own = (Criterion(name="Depth", description="Goes beyond the obvious."), Criterion(name="Tone"))
    instances = [pair("1", criteria=own), pair("2", query="Name a prime.")]
    data = export(instances, Fennec(criteria_count=3), consistent_judge(), swap=False)
    assert data.stats.predefined == 1
    assert data.stats.samples["criteria"] == 1  # the second instance's generated criteria only
    assert "Name a prime." in user(data.sets["criteria"][0])
    guidelines = {
        user(s).split("[Evaluation Criteria]:\n> ", 1)[1].split("\n", 1)[0] for s in data.sets["score"]
    }
    assert {"Depth: Goes beyond the obvious.", "Tone"} <= guidelines and len(guidelines) == 5
    depth = next(s for s in data.sets["score"] if "Depth: Goes" in user(s))
    assert reply(depth) == guideline_for("Depth: Goes beyond the obvious.")

    given = Fennec(criteria=own)
    data = export([pair("3")], given, consistent_judge(), swap=False, criteria_given=True)
    assert data.stats.samples["criteria"] == 0 and data.stats.predefined == 1
    assert data.stats.samples["score"] == 2 and data.stats.samples["judge"] == 4


def test_generated_criteria_sample_lists_the_judged_criteria() -> None:
    data = export([pair("1")], Fennec(criteria_count=3), consistent_judge(), swap=False)
    (sample,) = data.sets["criteria"]
    assert "creating Evaluation Criteria" in sample.messages[0][1]
    assert "establish three [Evaluation Criteria]" in user(sample)
    assert reply(sample) == "\n".join(f"{k}. {n}: {d}" for k, (n, d) in enumerate(DEFAULT_CRITERIA[:3], 1))
    guideline = next(s for s in data.sets["score"] if "Coherence:" in user(s))
    assert reply(guideline) == guideline_for(f"Coherence: {DEFAULT_CRITERIA[2][1]}")


def test_identical_samples_are_written_once() -> None:
    instances = [pair("1"), pair("2"), pair("3", "poor", "good")]
    data = export(instances, Fennec(criteria_count=3), consistent_judge(), swap=False)
    stats = data.stats
    assert (stats.samples["criteria"], stats.duplicates["criteria"]) == (1, 2)
    assert (stats.samples["score"], stats.duplicates["score"]) == (3, 6)
    # the second pair repeats the first; the third is the first's augmentation and vice versa
    assert (stats.samples["judge"], stats.duplicates["judge"]) == (6, 12)
    assert len({s.messages for s in data.sets["judge"]}) == 6


def test_failed_judgments_are_skipped_and_counted() -> None:
    instances = [pair("1")]
    judgments = run(instances, Fennec(criteria_count=2), consistent_judge(), swap=False)
    failed = Judgment(id="2", method="fennec", status="parse_error", error="no score for Response B")
    data = build_sft([*judgments, failed], {"1": instances[0]})
    assert (data.stats.judgments, data.stats.failed) == (2, 1)
    assert data.stats.samples["judge"] == 4
    assert data.stats.to_dict()["sets"]["judge"]["skipped"] == 1


def test_foreign_judgments_and_unknown_instances_are_errors() -> None:
    with pytest.raises(FacetevalError, match="'dna', not fennec"):
        build_sft([Judgment(id="1", method="dna", status="ok")], {"1": pair("1")})
    judgments = run([pair("1")], Fennec(criteria_count=1), consistent_judge(), swap=False)
    with pytest.raises(FacetevalError, match="has no instance: it is not in the judged input"):
        build_sft(judgments, {})


def correction_line(**fields: Any) -> dict[str, Any]:
    line: dict[str, Any] = {
        "id": "1",
        "candidate": 2,
        "query": QUERY,
        "original": "poor",
        "score": 4.0,
        "threshold": 8.0,
        "status": "corrected",
        "correction": "Rain falls when droplets in clouds grow heavy.",
        "judgments": [
            {
                "criterion": "Accuracy",
                "description": "Evaluates if the response is correct.",
                "guideline": guideline_for("Accuracy: Evaluates if the response is correct."),
                "score": 2,
                "explanation": "It says nothing about clouds.",
            },
            {
                "criterion": "Conciseness",
                "description": None,
                "guideline": None,
                "score": 2.5,
                "explanation": "Too short to be useful.",
            },
        ],
        "error": None,
        "raw": "[Modified Response]: Rain falls ...",
        "usage": {"calls": 1},
        "trace": [],
        "rejudge": None,
    }
    return line | fields


def test_corrected_lines_give_correction_samples(tmp_path: Path) -> None:
    rows = [
        correction_line(),
        correction_line(candidate=1, original="good", status="kept", correction=None),
        correction_line(status="error", correction=None, error="ProviderError: down"),
        correction_line(status="parse_error", correction="Rain.", raw="Rain."),  # only corrected lines count
        correction_line(id="2"),  # the same sample again
    ]
    corrections = read_corrections(write_jsonl(tmp_path / "corrected.jsonl", rows))
    assert [c.status for c in corrections] == ["corrected", "kept", "error", "parse_error", "corrected"]
    data = build_sft([], {}, corrections)
    stats = data.stats
    assert (stats.samples["correction"], stats.duplicates["correction"], stats.corrections) == (1, 1, 5)
    assert dict(stats.not_corrected) == {"error": 1, "kept": 1, "parse_error": 1}
    assert stats.to_dict()["inputs"]["corrected"] == 2
    (sample,) = data.sets["correction"]
    assert "content modification" in sample.messages[0][1]
    prompt = user(sample)
    assert "[The Start of Original Response]\n> poor\n[The End of Original Response]" in prompt
    assert (
        '[Evaluation Criteria]: "Accuracy: Evaluates if the response is correct."\nResponse Score: 2\n'
        "Explanation:\n> It says nothing about clouds." in prompt
    )
    assert '[Evaluation Criteria]: "Conciseness"\nResponse Score: 2.5\n' in prompt
    assert reply(sample) == "Rain falls when droplets in clouds grow heavy."


def test_a_malformed_corrections_line_names_its_field(tmp_path: Path) -> None:
    bad = correction_line(judgments=[{"criterion": "Accuracy", "score": "two", "explanation": "x"}])
    path = write_jsonl(tmp_path / "corrected.jsonl", [correction_line(), bad])
    with pytest.raises(InputError, match=r"corrected.jsonl:2: field 'judgments\[0\].score': expected int"):
        read_corrections(path)
    path = write_jsonl(tmp_path / "other.jsonl", [{"id": "1", "status": "corrected", "query": QUERY}])
    with pytest.raises(InputError, match="field 'judgments': missing"):
        read_corrections(path)


def test_preference_and_label_swap() -> None:
    assert [preference(s) for s in ([5, 2], [2, 5], [3, 3], [1, 4, 4], [1, 5, 4])] == [1, 2, 0, 0, 2]
    assert swap_labels("Response A and Response B, not Response C or Responses.") == (
        "Response B and Response A, not Response C or Responses."
    )
    assert swap_labels("Response A beats Response B and Response C.", 3) == (
        "Response C beats Response B and Response A."
    )


def write_run(
    tmp_path: Path, instances: list[Instance], method: Fennec, rule: FennecJudge, swap: bool
) -> Path:
    """A judgments file with its run record and input, as `faceteval judge` leaves them."""
    pairs = write_jsonl(tmp_path / "pairs.jsonl", [i.model_dump(exclude_none=True) for i in instances])
    judgments = run(instances, method, rule, swap=swap)
    out = tmp_path / "j.jsonl"
    out.write_text("".join(j.model_dump_json() + "\n" for j in judgments), encoding="utf-8")
    record = {"input": str(pairs), "method": method.describe(), "options": {"swap": swap}}
    (tmp_path / "j.run.json").write_text(json.dumps(record), encoding="utf-8")
    return out


def load(path: Path, cache: Path) -> list[dict[str, Any]]:
    import datasets

    rows = datasets.load_dataset("json", data_files=str(path), split="train", cache_dir=str(cache))
    return [dict(row) for row in rows]


def test_export_writes_files_that_load_as_chat_datasets(tmp_path: Path) -> None:
    rule = FennecJudge(quality={"good": {"Accuracy": 5}, "great": 5, "poor": 2}, first_bias=2)
    instances = [pair("1"), pair("2", "great", "poor", query="Name a prime.")]
    judgments_path = write_run(tmp_path, instances, Fennec(criteria_count=3), rule, swap=True)
    corrections = write_jsonl(
        tmp_path / "corrected.jsonl", [correction_line(), correction_line(status="kept")]
    )
    out = tmp_path / "sft"
    data = export_sft(judgments_path, out, corrections)
    stats = json.loads((out / STATS_FILE).read_text(encoding="utf-8"))
    written = stats.pop("written")  # each set file's line count and SHA-256, as put in place
    assert stats == data.stats.to_dict()
    assert {name: entry["lines"] for name, entry in written.items()} == {
        SET_FILES[name]: len(samples) for name, samples in data.sets.items()
    }
    # the first pair keeps Accuracy only (in both orders); "great" wins every criterion in both orders
    assert {name: stats["sets"][name]["samples"] for name in SFT_SETS} == {
        "criteria": 2,
        "score": 6,
        "judge": 2 + 6,
        "correction": 1,
    }
    assert stats["sets"]["judge"] | {"file": None} == {
        "file": None,
        "samples": 8,
        "duplicates": 0,
        "skipped": 0,
        "augmented": 0,
        "inconsistent": 4,
        "incomplete": 0,
    }
    assert stats["total"] == sum(stats["sets"][name]["samples"] for name in SFT_SETS)
    assert stats["inputs"]["not_corrected"] == {"kept": 1}
    for name in SFT_SETS:
        path = out / SET_FILES[name]
        lines = path.read_text(encoding="utf-8").splitlines()
        assert len(lines) == stats["sets"][name]["samples"] > 0
        rows = load(path, tmp_path / "hf-cache")
        assert len(rows) == len(lines)
        for row, line in zip(rows, lines, strict=True):
            assert_chat(row)
            assert row == json.loads(line)


def test_export_reads_predefined_criteria_and_single_eval_from_the_run_record(tmp_path: Path) -> None:
    own = (Criterion(name="Depth", description="Goes beyond the obvious."),)
    method = Fennec(criteria=own, single=True)
    judgments_path = write_run(tmp_path, [pair("1")], method, consistent_judge(), swap=False)
    out = tmp_path / "sft"
    data = export_sft(judgments_path, out, augment=False)
    assert data.stats.samples == {"criteria": 0, "score": 1, "judge": 2, "correction": 0}
    assert (data.stats.predefined, data.stats.single) == (1, 1)
    for name in ("criteria", "correction"):
        assert (out / SET_FILES[name]).read_text(encoding="utf-8") == ""
    for name in ("score", "judge"):
        for row in load(out / SET_FILES[name], tmp_path / "hf-cache"):
            assert_chat(row)


def test_export_refuses_judgments_of_another_method(tmp_path: Path) -> None:
    judgments_path = write_run(tmp_path, [pair("1")], Fennec(criteria_count=1), consistent_judge(), False)
    record = json.loads((tmp_path / "j.run.json").read_text(encoding="utf-8"))
    record["method"] = {"name": "dna", "params": {}}
    (tmp_path / "j.run.json").write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(FacetevalError, match="judged with 'dna', not fennec"):
        export_sft(judgments_path, tmp_path / "sft")
    assert not (tmp_path / "sft").exists()


def test_write_sft_writes_empty_sets_as_empty_files(tmp_path: Path) -> None:
    written = write_sft(build_sft([], {}), tmp_path / "out")
    assert set(written) == {*SFT_SETS, "stats"}
    assert all(written[name].read_text(encoding="utf-8") == "" for name in SFT_SETS)
    stats = json.loads(written["stats"].read_text(encoding="utf-8"))
    assert stats["total"] == 0 and stats["sets"]["judge"]["file"] == "judge.jsonl"
