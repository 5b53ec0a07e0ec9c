"""Fennec correction with a scripted provider: threshold, weighted mean, refusals, re-judging."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from scipy import stats as scipy_stats

from faceteval import Instance, JudgeOptions, Judgment, judge
from faceteval.core import FacetScore
from faceteval.errors import BadRequestError, InputError
from faceteval.llm import LLM, CompletionRequest, ModelSpec, ScriptedProvider
from faceteval.methods.fennec import Fennec
from faceteval.prompts import fence
from faceteval.workflows.fennec._correct import (
    CORRECTION_STAGE,
    Correction,
    CorrectionStats,
    CorrectOptions,
    correct_each,
)
from faceteval.workflows.fennec._correctable import load_correctable, response_score
from tests.support.fennec_judge import DEFAULT_CRITERIA, FennecJudge, stage_of

REFUSAL = "I'm sorry, but I can't help with that."
NAMES = [name for name, _ in DEFAULT_CRITERIA]


def llm_for(fennec: FennecJudge, **replace: Any) -> LLM:
    """An LLM answered by ``fennec``, except stages in ``replace`` (stage -> reply)."""

    def script(request: CompletionRequest) -> Any:
        messages = [m.to_dict() for m in request.messages]
        stage = stage_of(messages)
        if stage in replace:
            fennec.calls.append(stage)
            fennec.prompts.append(messages)
            return replace[stage]
        return fennec.respond(messages)

    return LLM(ScriptedProvider(script), ModelSpec("scripted", "judge"))


def judged_files(
    tmp_path: Path,
    instances: list[Instance],
    fennec: FennecJudge,
    method: Fennec | None = None,
    **options: Any,
) -> tuple[Path, Path]:
    """Judge ``instances`` with fennec; the judgments file and the instances file."""
    judgments = judge(instances, method or Fennec(), llm_for(fennec), options=JudgeOptions(**options))
    assert all(j.status == "ok" for j in judgments)
    return write_judgments(tmp_path, judgments), write_instances(tmp_path, instances)


def write_judgments(tmp_path: Path, judgments: list[Judgment]) -> Path:
    path = tmp_path / "judgments.jsonl"
    path.write_text("".join(j.model_dump_json() + "\n" for j in judgments), encoding="utf-8")
    return path


def write_instances(tmp_path: Path, instances: list[Instance]) -> Path:
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(i.model_dump_json() + "\n" for i in instances), encoding="utf-8")
    return path


def run(
    judgments: Path, instances: Path, llm: LLM, **options: Any
) -> tuple[list[Correction], CorrectionStats]:
    items = load_correctable(judgments, instances)
    out: list[Correction] = []
    stats = CorrectionStats()

    async def go() -> None:
        await correct_each(items, llm, options=CorrectOptions(**options), sink=out.append, stats=stats)

    anyio.run(go)
    return out, stats


def pair(i: int, a: str, b: str) -> Instance:
    return Instance(id=str(i), query=f"Question {i}?", candidates=(a, b))


def correction_prompts(fennec: FennecJudge) -> list[str]:
    return [
        p[-1]["content"]
        for p, stage in zip(fennec.prompts, fennec.calls, strict=True)
        if stage == CORRECTION_STAGE
    ]


def test_only_responses_below_the_threshold_are_rewritten(tmp_path: Path) -> None:
    weak = {"Accuracy": 1, "Comprehensiveness": 2, "Coherence": 3, "Contextuality": 2, "Conciseness": 2}
    fennec = FennecJudge(quality={"fine": 4, "weak": weak, "edge": 3, "awful": 1})
    instances = [pair(1, "fine", "weak"), pair(2, "edge", "awful")]
    judgments, inputs = judged_files(tmp_path, instances, fennec)
    fennec.calls.clear()
    fennec.prompts.clear()

    corrections, stats = run(judgments, inputs, llm_for(fennec))

    prompts = correction_prompts(fennec)
    originals = sorted(p.split("[The Start of Original Response]\n> ")[1].split("\n")[0] for p in prompts)
    assert originals == ["awful", "weak"]  # "edge" scores exactly 3: kept
    assert fennec.calls == [CORRECTION_STAGE, CORRECTION_STAGE]
    assert [(c.id, c.candidate, c.status, c.score) for c in corrections] == [
        ("1", 1, "kept", 4.0),
        ("1", 2, "corrected", 2.0),
        ("2", 1, "kept", 3.0),
        ("2", 2, "corrected", 1.0),
    ]
    weak_line = corrections[1]
    assert weak_line.correction == "weak (corrected)" and weak_line.original == "weak"
    assert [j.score for j in weak_line.judgments] == [1, 2, 3, 2, 2]
    assert [j.criterion for j in weak_line.judgments] == NAMES
    assert all(j.guideline and j.description for j in weak_line.judgments)
    weak_prompt = next(p for p in prompts if "Original Response]\n> weak\n" in p)
    assert (
        '[Evaluation Criteria]: "Accuracy: Evaluates if the response is correct."\nResponse Score: 1\n'
        in weak_prompt
    )
    assert "Explanation:\n> Response B on Accuracy: weak.\n" in weak_prompt  # its own explanation, not A's
    assert "fine" not in weak_prompt
    assert weak_line.usage.calls == 1 and [e.stage for e in weak_line.trace] == [CORRECTION_STAGE]
    kept = corrections[0]
    assert kept.correction is None and kept.trace == [] and kept.usage.calls == 0
    assert (stats.responses, stats.below, stats.judgments, stats.skipped) == (4, 2, 2, 0)
    assert stats.statuses == {"kept": 2, "corrected": 2}
    assert stats.total.calls == 2


def test_the_score_is_the_weighted_mean_when_the_judgment_has_weights(tmp_path: Path) -> None:
    scores = {"Accuracy": 1, "Comprehensiveness": 2, "Coherence": 5, "Contextuality": 5, "Conciseness": 5}
    fennec = FennecJudge(quality={"x": scores, "y": 4}, weights=(40, 30, 10, 10, 10))
    judgments, inputs = judged_files(tmp_path, [pair(1, "x", "y")], fennec, Fennec(aggregate="weighted"))

    corrections, _ = run(judgments, inputs, llm_for(fennec))

    x = corrections[0]
    assert sum(scores.values()) / 5 == pytest.approx(3.6)  # unweighted it would be kept
    assert x.score == pytest.approx(0.4 * 1 + 0.3 * 2 + 0.1 * 5 * 3)
    assert x.status == "corrected"
    assert [j.weight for j in x.judgments] == pytest.approx([0.4, 0.3, 0.1, 0.1, 0.1])
    assert corrections[1].score == 4.0 and corrections[1].status == "kept"


def test_response_score_ignores_weights_unless_every_facet_has_one() -> None:
    facets = [
        FacetScore(name="A", scores=[1, 5], weight=0.9),
        FacetScore(name="B", scores=[4, 5]),
    ]
    assert response_score(facets, 1) == 2.5
    assert response_score([facets[0], facets[1].model_copy(update={"weight": 0.1})], 1) == pytest.approx(1.3)


def test_judgments_of_another_method_are_refused_with_file_and_line(tmp_path: Path) -> None:
    fennec = FennecJudge()
    judgments, inputs = judged_files(tmp_path, [pair(1, "a", "b")], fennec)
    other = Judgment(id="1", method="dna", status="ok", verdict=1, scores=[7, 3])
    with judgments.open("a", encoding="utf-8") as handle:
        handle.write("\n" + other.model_dump_json() + "\n")

    with pytest.raises(InputError) as caught:
        load_correctable(judgments, inputs)
    assert str(caught.value).startswith(f"{judgments}:3: field 'method': ")
    assert "'dna'" in str(caught.value) and "fennec" in str(caught.value)


def test_facets_without_explanations_are_refused_with_file_and_line(tmp_path: Path) -> None:
    bare = Judgment(
        id="1",
        method="fennec",
        status="ok",
        verdict=1,
        scores=[4, 2],
        facets=[FacetScore(name="Accuracy", scores=[4, 2])],
    )
    judgments = write_judgments(tmp_path, [bare])
    inputs = write_instances(tmp_path, [pair(1, "a", "b")])

    with pytest.raises(InputError) as caught:
        load_correctable(judgments, inputs)
    assert str(caught.value).startswith(f"{judgments}:1: field 'facets.0.explanations': ")
    assert "Accuracy" in str(caught.value)


def test_failed_judgments_are_skipped_and_counted(tmp_path: Path) -> None:
    fennec = FennecJudge(quality={"a": 2})
    judgments, inputs = judged_files(tmp_path, [pair(1, "a", "b")], fennec)
    failed = Judgment(id="2", method="fennec", status="parse_error", error="unreadable")
    with judgments.open("a", encoding="utf-8") as handle:
        handle.write(failed.model_dump_json() + "\n")

    corrections, stats = run(judgments, inputs, llm_for(fennec))

    assert [(c.id, c.status) for c in corrections] == [("1", "corrected"), ("1", "kept")]
    assert (stats.judgments, stats.skipped, stats.responses) == (1, 1, 2)


def test_an_unreadable_rewrite_is_reasked_once_then_a_parse_error_with_the_raw_reply(tmp_path: Path) -> None:
    fennec = FennecJudge(quality={"a": 2, "b": 4})
    judgments, inputs = judged_files(tmp_path, [pair(1, "a", "b")], fennec)
    fennec.calls.clear()

    corrections, stats = run(judgments, inputs, llm_for(fennec, **{CORRECTION_STAGE: REFUSAL}), rejudge=True)

    a = corrections[0]
    assert fennec.calls == [CORRECTION_STAGE, CORRECTION_STAGE]  # asked, re-asked once, nothing else
    assert a.status == "parse_error" and a.correction is None and a.rejudge is None
    assert a.raw == REFUSAL
    assert a.error is not None and "refusal" in a.error and "re-ask" in a.error
    assert [e.raw for e in a.trace] == [REFUSAL, REFUSAL]
    assert all(e.problem for e in a.trace) and a.usage.calls == 2
    assert "Your previous reply could not be used" in a.trace[1].messages[-1]["content"]
    assert stats.statuses == {"parse_error": 1, "kept": 1}
    assert stats.errors[a.error] == 1 and stats.examples[a.error] == "1#1"


def test_a_provider_failure_is_an_error_and_the_run_goes_on(tmp_path: Path) -> None:
    fennec = FennecJudge(quality={"a": 2, "b": 1})
    judgments, inputs = judged_files(tmp_path, [pair(1, "a", "b")], fennec)
    refused = BadRequestError("the prompt is too long")

    corrections, stats = run(judgments, inputs, llm_for(fennec, **{CORRECTION_STAGE: refused}))

    assert [c.status for c in corrections] == ["error", "error"]
    assert corrections[0].error == "BadRequestError: the prompt is too long"
    assert corrections[0].raw is None and corrections[0].correction is None
    assert stats.statuses == {"error": 2}


def test_rejudging_scores_the_correction_against_the_original_on_the_same_criteria(tmp_path: Path) -> None:
    fennec = FennecJudge(quality={"x": 2, "x (corrected)": 5, "z": 1, "z (corrected)": 2, "y": 4})
    judgments, inputs = judged_files(tmp_path, [pair(1, "x", "y"), pair(2, "z", "y")], fennec)
    fennec.calls.clear()
    fennec.prompts.clear()

    corrections, stats = run(judgments, inputs, llm_for(fennec), rejudge=True)

    # per corrected response: one rewrite, then 5 criteria x 2 orders; nothing generated again
    assert sorted(set(fennec.calls)) == [CORRECTION_STAGE, "fennec.pairwise"]
    assert fennec.calls.count("fennec.pairwise") == 2 * 5 * 2
    x, _, z, _ = corrections
    assert x.rejudge is not None and z.rejudge is not None
    assert (x.rejudge.original, x.rejudge.corrected, x.rejudge.gain) == (2.0, 5.0, 3.0)
    assert (x.rejudge.verdict, x.rejudge.consistent, x.rejudge.status) == (2, True, "ok")
    assert (z.rejudge.original, z.rejudge.corrected, z.rejudge.gain) == (1.0, 2.0, 1.0)
    pairwise = [e for e in x.trace if e.stage == "fennec.pairwise"]
    assert len(pairwise) == 10 and sorted({tuple(e.order or []) for e in pairwise}) == [(1, 2), (2, 1)]
    guideline = x.judgments[0].guideline
    assert guideline and all(fence(guideline) in e.messages[-1]["content"] for e in pairwise[:1])
    assert x.usage.calls == 11
    gain = stats.improvement()
    assert (gain.responses, gain.before, gain.after, gain.gain) == (2, 1.5, 3.5, 2.0)
    assert (gain.wins, gain.ties, gain.losses) == (2, 0, 0)
    low, high = scipy_stats.t.interval(0.95, 1, loc=2.0, scale=1.0)
    assert gain.ci == pytest.approx((low, high))


def test_traces_can_be_left_out_but_the_raw_reply_is_kept(tmp_path: Path) -> None:
    fennec = FennecJudge(quality={"a": 2, "b": 4})
    judgments, inputs = judged_files(tmp_path, [pair(1, "a", "b")], fennec)

    corrections, stats = run(judgments, inputs, llm_for(fennec, **{CORRECTION_STAGE: ""}), trace=False)

    assert corrections[0].status == "parse_error" and corrections[0].raw == ""
    assert corrections[0].trace == [] and corrections[0].usage.calls == 2
    assert stats.total.calls == 2


def test_a_swapped_judgment_shows_the_original_orders_scores_beside_their_explanations(
    tmp_path: Path,
) -> None:
    # Shown first, a response gains 2: averaged over the orders, "weak" has 2 on Accuracy, but the
    # explanation the prompt shows was written for the 1 it got where it was shown second.
    fennec = FennecJudge(quality={"fine": 4, "weak": 1}, first_bias=2)
    judgments, inputs = judged_files(tmp_path, [pair(1, "fine", "weak")], fennec, swap=True)
    fennec.calls.clear()
    fennec.prompts.clear()

    corrections, _ = run(judgments, inputs, llm_for(fennec))

    weak = corrections[1]
    assert weak.status == "corrected" and weak.score == pytest.approx(2.0)  # the threshold: both orders
    assert {j.score for j in weak.judgments} == {1}
    (prompt,) = correction_prompts(fennec)
    assert "Response Score: 1\nExplanation:\n> Response B on Accuracy: weak.\n" in prompt
    assert "Response Score: 2" not in prompt
