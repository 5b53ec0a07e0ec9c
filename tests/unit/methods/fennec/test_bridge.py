"""Fennec's bridging over real recorded judgments, with a rule-based LLM: records, filter, failures, files."""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import pytest

from faceteval._runner import RunAborted
from faceteval.core import Criterion
from faceteval.errors import AuthenticationError, ConfigError, FacetevalError, ParseError, ProviderServerError
from faceteval.llm import LLM, CompletionRequest, ModelSpec, RetryPolicy, ScriptedProvider
from faceteval.methods.fennec._parsers import DecisionParser, ReverseCriteriaParser
from faceteval.prompts import fence
from faceteval.store import SQLiteCache
from faceteval.workflows.fennec._bridge import (
    BridgeRecord,
    bridge,
    bridge_each,
    criteria_text,
    rounded,
)
from faceteval.workflows.fennec._bridge_files import bridge_files, save_bridge, sft_example, summarize
from faceteval.workflows.fennec._bridge_sources import BridgeSource, decision_text, load_sources
from tests.support.bridge_judge import REFUSAL, BridgeJudge

AUTOJ_CODE = {0: 1, 1: 2, 2: 0}
"""Auto-J's output codes as the verdict of the response shown first / second / tie."""


@pytest.fixture(scope="module")
def data_dir() -> Path:
    value = os.environ.get("FACETEVAL_DATA_DIR")
    assert value, "set FACETEVAL_DATA_DIR to the benchmark data directory (../shared/data)"
    root = Path(value)
    assert (root / "autoj").is_dir(), f"FACETEVAL_DATA_DIR={value} holds no autoj/"
    return root


def llm_for(script: Callable[[CompletionRequest], Any], cache: SQLiteCache | None = None) -> LLM:
    provider = ScriptedProvider(script)
    return LLM(provider, ModelSpec("scripted", "judge"), cache=cache, retry=RetryPolicy(max_retries=0))


def run(sources: Sequence[BridgeSource], judge: BridgeJudge) -> list[BridgeRecord]:
    return bridge(sources, llm_for(judge.for_provider()))


def distinct(sources: Sequence[BridgeSource], n: int) -> list[BridgeSource]:
    """The first ``n`` sources that share no response text (PandaLM repeats responses across tasks)."""
    chosen: list[BridgeSource] = []
    for source in sources:
        if not any(set(source.responses) & set(other.responses) for other in chosen):
            chosen.append(source)
    assert len(chosen) >= n, f"only {len(chosen)} sources with distinct responses"
    return chosen[:n]


def jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# -- reading the recorded judgments ----------------------------------------------------------------------


def test_autoj_gives_one_record_per_order_with_the_verdict_as_shown(data_dir: Path) -> None:
    sources = load_sources("autoj-pairwise", data_dir, limit=3)
    pairs = jsonl(data_dir / "autoj/test/testdata_pairwise.jsonl")[:3]
    first = jsonl(data_dir / "autoj/outputs/pairwise_example_output.jsonl")[:3]
    swapped = jsonl(data_dir / "autoj/outputs/pairwise_exchange_example_output.jsonl")[:3]
    assert [s.id for s in sources] == [f"autoj-pairwise:{k}#{o}" for k in (1, 2, 3) for o in (1, 2)]
    for k, pair in enumerate(pairs):
        shown, exchanged = sources[2 * k], sources[2 * k + 1]
        assert (shown.kind, shown.judge, shown.query) == ("pairwise", "auto-j-13b", pair["prompt"])
        assert shown.responses == (pair["response 1"], pair["response 2"]) and shown.order == (1, 2)
        assert exchanged.responses == (pair["response 2"], pair["response 1"]) and exchanged.order == (2, 1)
        assert shown.verdict == AUTOJ_CODE[int(first[k]["output"])]
        assert exchanged.verdict == AUTOJ_CODE[int(swapped[k]["output"])]
        assert shown.judgment == decision_text(shown.verdict)  # the release holds the verdict code only
        assert json.loads(shown.recorded) == first[k]
        assert shown.problem is None and shown.score is None


def test_pandalm_judgment_is_the_recorded_reason_then_the_decision(data_dir: Path) -> None:
    sources = load_sources("pandalm", data_dir, limit=3)
    recorded = json.loads((data_dir / "pandalm/pandalm-7b-testset-v1.json").read_text(encoding="utf-8"))[:3]
    tasks = json.loads((data_dir / "pandalm/testset-v1.json").read_text(encoding="utf-8"))
    assert [s.id for s in sources] == [f"pandalm:{r['idx']}" for r in recorded]
    for source, record in zip(sources, recorded, strict=True):
        task = next(t for t in tasks if t["idx"] == record["idx"])
        assert source.judge == "pandalm-7b" and source.verdict == record["pandalm_result"]
        assert source.responses == (task["response1"], task["response2"])
        decision = decision_text(record["pandalm_result"])
        assert source.judgment == f"{record['pandalm_reason'].strip()}\n\n{decision}"
        assert record["pandalm_reference"] in source.recorded


def test_prometheus_records_are_single_eval_with_the_gpt4_score_and_feedback(data_dir: Path) -> None:
    sources = load_sources("prometheus-mtbench", data_dir, limit=2)
    recorded = json.loads((data_dir / "prometheus/mt_bench_eval.json").read_text(encoding="utf-8"))[:2]
    assert [s.id for s in sources] == [
        f"prometheus-mtbench:{r['idx']}:{r['response_source']}" for r in recorded
    ]
    for source, record in zip(sources, recorded, strict=True):
        score, feedback = record["gpt4_score"][0], record["gpt4_feedback"][0]
        assert (source.kind, source.judge, source.score, source.verdict) == (
            "single",
            "gpt-4-run1",
            score,
            None,
        )
        assert source.judgment == f"Response Score: {score}\nExplanation: {feedback.strip()}"
        assert len(source.responses) == 1 and source.responses[0] in record["instruction"]
        assert source.reference and source.reference in record["instruction"]
    runs = load_sources("prometheus-mtbench", data_dir, judge="gpt-4", limit=1)
    assert [s.id for s in runs] == [f"{sources[0].id}#{k}" for k in (1, 2, 3)]
    assert [s.score for s in runs] == recorded[0]["gpt4_score"]


def test_only_known_benchmarks_and_judges_are_bridged(data_dir: Path) -> None:
    with pytest.raises(ConfigError, match="cannot be bridged; bridgeable benchmarks: autoj-pairwise"):
        load_sources("summeval", data_dir)
    with pytest.raises(FacetevalError, match="no recorded judge 'gpt-5'"):
        load_sources("pandalm", data_dir, judge="gpt-5")


# -- bridging --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("benchmark", "limit", "kind"),
    [("autoj-pairwise", 2, "pairwise"), ("pandalm", 3, "pairwise"), ("prometheus-mtbench", 3, "single")],
)
def test_consistent_records_are_kept(data_dir: Path, benchmark: str, limit: int, kind: str) -> None:
    sources = load_sources(benchmark, data_dir, limit=limit)
    judge = BridgeJudge()
    records = run(sources, judge)
    assert [r.id for r in records] == [s.id for s in sources]
    stage = f"bridge.{kind}"
    assert sorted(judge.calls) == sorted(["bridge.criteria", "bridge.guideline", stage] * len(sources))
    for record, source in zip(records, sources, strict=True):
        assert (record.status, record.consistent, record.kept, record.kind) == ("ok", True, True, kind)
        assert [e.stage for e in record.trace] == ["bridge.criteria", "bridge.guideline", stage]
        assert record.usage.calls == 3 and record.usage.input_tokens > 0
        assert record.criteria[0] == Criterion(
            name="Helpfulness", description="Evaluates whether the response does what the user asked."
        )
        assert record.criteria_text == criteria_text(record.criteria)
        assert record.guideline is not None and record.guideline.startswith("1. Not at all satisfactory")
        assert (record.judgment, record.responses, record.query) == (
            source.judgment,
            list(source.responses),
            source.query,
        )
        if kind == "pairwise":
            assert record.regenerated_verdict == record.verdict == source.verdict
            assert record.regenerated_score is None
        else:
            assert record.regenerated_score == record.score == source.score
        assert (record.error, record.raw, record.stage) == (None, None, None)


def test_the_criteria_follow_the_judgment(data_dir: Path) -> None:
    (source,) = load_sources("pandalm", data_dir, limit=1)
    assert "more concise" in source.judgment  # PandaLM-7B's recorded reason for pandalm:0
    (record,) = run([source], BridgeJudge())
    assert [c.name for c in record.criteria] == ["Helpfulness", "Conciseness", "Accuracy"]


def test_the_prompts_carry_the_judgment_then_the_recovered_criteria_and_guideline(data_dir: Path) -> None:
    (source,) = load_sources("pandalm", data_dir, limit=1)
    judge = BridgeJudge()
    (record,) = run([source], judge)
    reverse_criteria, reverse_guideline, bridging = judge.prompts
    for prompt in (reverse_criteria, reverse_guideline):
        assert f"[The Start of Response 1]\n{fence(source.responses[0])}\n[The End of Response 1]" in prompt
        assert f"[The Start of Response 2]\n{fence(source.responses[1])}\n[The End of Response 2]" in prompt
        assert f"[The Start of Judge Result]\n{fence(source.judgment)}\n[The End of Judge Result]" in prompt
    assert (
        "[Evaluation Criteria]:\n" not in reverse_criteria and "[Scoring Guideline]" not in reverse_criteria
    )
    assert record.criteria_text and record.guideline
    assert f"[Evaluation Criteria]:\n{fence(record.criteria_text)}\n" in reverse_guideline
    criteria, guideline = fence(record.criteria_text), fence(record.guideline)
    assert f"[Evaluation Criteria]:\n{criteria}\n\n[Scoring Guideline]:\n{guideline}\n" in bridging
    assert (
        fence(source.judgment) not in bridging
    )  # the judge decides again without seeing the recorded result
    assert (
        'Begin your final decision statement with "So, the final decision is Response 1 / Response 2 / Tie"'
        in (bridging)
    )
    assert bridging.endswith("Please return [Judge Result]:")


def test_single_eval_prompts_show_the_reference(data_dir: Path) -> None:
    (source,) = load_sources("prometheus-mtbench", data_dir, limit=1)
    judge = BridgeJudge()
    run([source], judge)
    assert source.reference is not None
    for prompt in judge.prompts:
        assert f"[The Start of Reference Answer]\n{fence(source.reference)}\n" in prompt
        assert f"[The Start of Response]\n{fence(source.responses[0])}\n[The End of Response]" in prompt


def test_inconsistent_records_are_marked_and_left_out_of_the_training_data(
    data_dir: Path, tmp_path: Path
) -> None:
    sources = load_sources("autoj-pairwise", data_dir, limit=3)
    misled = sources[2]  # both orders of autoj-pairwise:2
    records = run(sources, BridgeJudge(mislead=[misled.responses[0]]))
    marks = {r.id: (r.status, r.consistent, r.kept) for r in records}
    assert marks["autoj-pairwise:2#1"] == marks["autoj-pairwise:2#2"] == ("ok", False, False)
    assert all(marks[s.id] == ("ok", True, True) for s in sources if not s.id.startswith("autoj-pairwise:2#"))
    wrong = records[2]
    assert wrong.verdict is not None and wrong.regenerated_verdict not in (None, wrong.verdict)
    summary = summarize(records)
    assert (summary.records, summary.kept, summary.inconsistent, summary.parse_errors) == (6, 4, 2, 0)
    files = save_bridge(records, tmp_path, benchmark="autoj-pairwise", judge="auto-j-13b", llm={"model": "m"})
    assert [r["id"] for r in jsonl(files.records)] == [s.id for s in sources]
    chats = jsonl(files.sft)
    assert len(chats) == 4
    assert all(fence(misled.responses[0]) not in chat["messages"][1]["content"] for chat in chats)


def test_a_single_eval_record_whose_new_score_differs_is_inconsistent(data_dir: Path) -> None:
    sources = load_sources("prometheus-mtbench", data_dir, limit=2)
    records = run(sources, BridgeJudge(mislead=[sources[1].responses[0]]))
    assert [(r.consistent, r.kept) for r in records] == [(True, True), (False, False)]
    assert records[1].regenerated_score is not None and records[1].regenerated_score != records[1].score


def test_a_recorded_mean_is_compared_rounded_half_up() -> None:
    assert (rounded(2.5), rounded(2.49), rounded(2.666666667), rounded(4.0)) == (3, 2, 3, 4)


def test_unreadable_replies_are_parse_errors_with_the_raw_reply(data_dir: Path, tmp_path: Path) -> None:
    sources = distinct(load_sources("pandalm", data_dir, limit=20), 3)
    refuse = {"bridge.criteria": [sources[0].responses[0]], "bridge.pairwise": [sources[1].responses[0]]}
    records = run(sources, BridgeJudge(refuse=refuse))
    early, late, fine = records
    assert (early.status, early.stage, early.raw, early.consistent) == (
        "parse_error",
        "bridge.criteria",
        REFUSAL,
        None,
    )
    assert "refusal" in (early.error or "") and "re-ask" in (early.error or "")
    assert [e.stage for e in early.trace] == ["bridge.criteria", "bridge.criteria"]  # asked, then re-asked
    assert [e.raw for e in early.trace] == [REFUSAL, REFUSAL] and early.usage.calls == 2
    assert (early.criteria, early.criteria_text, early.guideline) == ([], None, None)
    assert (late.status, late.stage, late.raw) == ("parse_error", "bridge.pairwise", REFUSAL)
    assert late.criteria and late.guideline  # what was recovered before the failure is kept
    assert late.regenerated_verdict is None and late.usage.calls == 4
    assert fine.kept
    summary = summarize(records)
    assert (summary.records, summary.kept, summary.parse_errors, summary.inconsistent) == (3, 1, 2, 0)
    assert summary.usage.calls == 2 + 4 + 3
    files = save_bridge(records, tmp_path, benchmark="pandalm", judge="pandalm-7b", llm={"model": "m"})
    written = jsonl(files.records)
    assert [(r["status"], r["raw"]) for r in written] == [
        ("parse_error", REFUSAL),
        ("parse_error", REFUSAL),
        ("ok", None),
    ]
    assert len(jsonl(files.sft)) == 1
    assert json.loads(files.run.read_text())["summary"]["parse_errors"] == 2


def test_a_single_eval_score_out_of_ten_is_never_read_as_the_recorded_score(data_dir: Path) -> None:
    (source,) = load_sources("prometheus-mtbench", data_dir, limit=1)
    assert source.score is not None
    out_of_ten = f"Response Score: {rounded(source.score)}/10\nExplanation: It follows the guideline."
    judge = BridgeJudge()

    def script(request: CompletionRequest) -> Any:
        if "Single-Score Evaluations" in request.messages[0].content:
            return out_of_ten
        return judge.for_provider()(request)

    (record,) = bridge([source], llm_for(script))
    assert (record.status, record.stage, record.raw) == ("parse_error", "bridge.single", out_of_ten)
    assert "is given out of 10; it must be on a 1-5 scale" in (record.error or "")
    assert record.regenerated_score is None and not record.kept
    assert [e.stage for e in record.trace][-2:] == ["bridge.single", "bridge.single"]  # asked, then re-asked


def test_recorded_outputs_without_a_verdict_are_skipped_without_a_call(data_dir: Path) -> None:
    sources = load_sources("pandalm", data_dir, judge="gpt-3.5-turbo")
    unreadable = [s for s in sources if s.problem is not None]
    assert len(unreadable) == 25  # PandaLM's 'garbage' results
    chosen = [unreadable[0], next(s for s in sources if s.problem is None)]
    judge = BridgeJudge()
    skipped, done = run(chosen, judge)
    assert (skipped.status, skipped.trace, skipped.usage.calls, skipped.verdict) == ("skipped", [], 0, None)
    assert "garbage" in (skipped.error or "") and skipped.recorded.startswith("result: garbage")
    assert done.kept and len(judge.calls) == 3
    assert summarize([skipped, done]).skipped == 1


def test_provider_failures_are_errors_and_credentials_refused_stop_the_run(data_dir: Path) -> None:
    (source,) = load_sources("autoj-pairwise", data_dir, limit=1)[:1]
    judge = BridgeJudge()

    def failing_guideline(request: CompletionRequest) -> Any:
        if "Scoring Guidelines" in request.messages[0].content:
            return ProviderServerError("server down", status=503)
        return judge.for_provider()(request)

    (record,) = bridge([source], llm_for(failing_guideline))
    assert (record.status, record.stage, record.consistent) == ("error", "bridge.guideline", None)
    assert record.error == "ProviderServerError: server down"
    assert len(record.criteria) == 2 and record.guideline is None
    assert [e.error is not None for e in record.trace] == [False, True]
    with pytest.raises(AuthenticationError):
        bridge([source], llm_for(lambda request: AuthenticationError("bad key")))
    # In Python every source gets its record, however many fail in a row (the command stops at ten).
    twelve = load_sources("autoj-pairwise", data_dir, limit=6)
    down = bridge(twelve, llm_for(lambda request: ProviderServerError("server down", status=503)))
    assert len(down) == 12 and {r.status for r in down} == {"error"}


def test_a_rerun_is_answered_from_the_cache(data_dir: Path, tmp_path: Path) -> None:
    sources = load_sources("pandalm", data_dir, limit=2)
    with SQLiteCache(tmp_path / "cache.sqlite") as cache:
        first = bridge(sources, llm_for(BridgeJudge().for_provider(), cache))
        silent = ScriptedProvider.sequence([])  # any call would fail the test
        again = bridge(sources, LLM(silent, ModelSpec("scripted", "judge"), cache=cache))
    assert silent.requests == []
    assert [r.usage.cached_calls for r in again] == [3, 3] and [r.usage.cached_calls for r in first] == [0, 0]
    strip = {"usage", "trace"}
    assert [r.model_dump(exclude=strip) for r in again] == [r.model_dump(exclude=strip) for r in first]


# -- training data and files -----------------------------------------------------------------------------


def test_the_sft_file_holds_valid_chats_of_the_kept_records(data_dir: Path, tmp_path: Path) -> None:
    sources = [
        *load_sources("autoj-pairwise", data_dir, limit=1),
        *distinct(load_sources("pandalm", data_dir, limit=20), 2),
        *load_sources("prometheus-mtbench", data_dir, limit=2),
    ]
    records = run(sources, BridgeJudge(mislead=[sources[2].responses[0]]))
    files = save_bridge(
        records,
        tmp_path / "out",
        benchmark="mixed",
        judge="various",
        llm={"model": "scripted:judge"},
        limit=2,
    )
    assert files == bridge_files(tmp_path / "out", "mixed")
    kept = [r for r in records if r.kept]
    chats = jsonl(files.sft)
    assert len(chats) == len(kept) == 5
    for chat, record in zip(chats, kept, strict=True):
        assert list(chat) == ["messages"]
        messages = chat["messages"]
        assert [m["role"] for m in messages] == ["system", "user", "assistant"]
        assert all(set(m) == {"role", "content"} and m["content"].strip() for m in messages)
        assert messages[2]["content"] == record.judgment  # the recorded judgment, not the regenerated one
        assert record.criteria_text and record.guideline
        assert fence(record.criteria_text) in messages[1]["content"]
        assert fence(record.guideline) in messages[1]["content"]
        assert chat == sft_example(record)
        if record.kind == "pairwise":
            assert "Pairwise Evaluations" in messages[0]["content"]
            assert "So, the final decision is Response 1 / Response 2 / Tie" in messages[1]["content"]
        else:
            assert "Single-Score Evaluations" in messages[0]["content"]
            assert messages[2]["content"].startswith("Response Score: ")
    lines = files.records.read_text(encoding="utf-8").splitlines()
    assert [BridgeRecord.model_validate_json(line) for line in lines] == records
    run_info = json.loads(files.run.read_text(encoding="utf-8"))
    options = run_info["options"]  # schema 2: what was bridged is among the options
    assert (options["benchmark"], options["judge"], options["limit"]) == ("mixed", "recorded:various", 2)
    assert run_info["summary"] | {"usage": None, "files": None} == {
        "records": 6,
        "kept": 5,
        "inconsistent": 1,
        "parse_errors": 0,
        "errors": 0,
        "skipped": 0,
        "usage": None,
        "duplicates": 0,
        "files": None,  # schema 2: the file names are in the summary
    }
    assert run_info["summary"]["usage"]["calls"] == 18
    assert set(run_info["prompts"]) >= {
        "fennec/reverse_criteria",
        "fennec/reverse_guideline",
        "fennec/single",
    }


def test_a_repeated_chat_is_written_once_and_counted(data_dir: Path, tmp_path: Path) -> None:
    sources = load_sources("pandalm", data_dir, judge="gpt-3.5-turbo", limit=3)
    same = (sources[0].query, sources[0].responses, sources[0].judgment)
    assert (sources[2].query, sources[2].responses, sources[2].judgment) == same  # under another id
    records = run(sources, BridgeJudge())
    assert all(r.kept for r in records)
    summary = summarize(records)
    assert (summary.kept, summary.duplicates, summary.chats) == (3, 1, 2)
    files = save_bridge(records, tmp_path, benchmark="pandalm", judge="gpt-3.5-turbo", llm={"model": "m"})
    assert [r["id"] for r in jsonl(files.records)] == ["pandalm:0", "pandalm:1", "pandalm:2"]
    assert jsonl(files.sft) == [sft_example(records[0]), sft_example(records[1])]
    assert sft_example(records[2]) == sft_example(records[0])
    assert json.loads(files.run.read_text())["summary"]["duplicates"] == 1


def test_only_kept_records_become_chats(data_dir: Path) -> None:
    sources = load_sources("autoj-pairwise", data_dir, limit=1)
    records = run(sources, BridgeJudge(mislead=[sources[0].responses[0]]))
    with pytest.raises(ValueError, match="only kept records"):
        sft_example(records[0])


# -- parsers ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [
        ("Response 1 covers more. So, the final decision is Response 1.", 1),
        ("**So, the final decision is Response 2**", 2),
        ("They are equally good.\nSo, the final decision is Tie.", 0),
        ("Final decision: response 2", 2),
        ("At first the final decision is Response 1 ... on reflection, the final decision is Tie.", 0),
    ],
)
def test_the_decision_parser_reads_the_final_decision(reply: str, verdict: int) -> None:
    assert DecisionParser().parse(reply) == verdict


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ("Response 1 is better.", "no final decision"),
        ("So, the final decision is Response 1 / Response 2 / Tie.", "no final decision"),
        ("I'm sorry, I cannot evaluate this.", "refusal"),
        ("   ", "empty"),
    ],
)
def test_the_decision_parser_refuses_replies_without_a_decision(reply: str, problem: str) -> None:
    with pytest.raises(ParseError, match=problem) as caught:
        DecisionParser().parse(reply)
    assert caught.value.raw == reply
    assert DecisionParser().parse(DecisionParser().example()) == 1


def test_the_reverse_criteria_parser_takes_one_to_ten_criteria() -> None:
    parser = ReverseCriteriaParser()
    assert [c.name for c in parser.parse("1. Accuracy: The facts are right.")] == ["Accuracy"]
    assert len(parser.parse(parser.example())) == 3
    eleven = "\n".join(f"{k}. Aspect {k}: Part {k}." for k in range(1, 12))
    with pytest.raises(ParseError, match="at most 10 criteria but found 11"):
        parser.parse(eleven)
    with pytest.raises(ParseError, match="refusal"):
        parser.parse("Sorry, I can't do that.")


def test_skipped_records_neither_count_toward_stopping_nor_reset_the_count(data_dir: Path) -> None:
    sources = load_sources("autoj-pairwise", data_dir, limit=6)
    skipped = dataclasses.replace(sources[0], problem="no readable verdict")
    mixed = [s for source in sources for s in (source, skipped)]  # a skipped record after each
    records: list[BridgeRecord] = []
    down = llm_for(lambda request: ProviderServerError("server down", status=503))
    with pytest.raises(RunAborted, match="stopped after 10 records in a row failed"):
        anyio.run(partial(bridge_each, mixed, down, sink=records.append, abort_after=10))
    assert [r.status for r in records].count("error") == 10
