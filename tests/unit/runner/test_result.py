"""The result of a judge run: counted by the library as it writes the judgments, returned and recorded."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from faceteval import Direct, JudgeOptions, judge, read_instances, read_run
from faceteval._runner import FileJob, RunAborted, RunResult, checked_items, judge_file
from faceteval.datasets import read_judgments
from faceteval.errors import ProviderServerError
from faceteval.llm import LLM, CompletionRequest, ModelSpec, RetryPolicy, ScriptedProvider
from faceteval.results import compute_result
from tests.support.files import write_jsonl
from tests.support.rule_judge import RuleJudge

NO_RETRY = RetryPolicy(max_retries=0)
PAIRS = 80


def pairs(path: Path) -> Path:
    """`PAIRS` pairs of systems A and B, each first in every other pair; B's output is the better."""
    rows = []
    for i in range(PAIRS):
        a, b = f"A's answer {i}", f"B's answer {i}"
        candidates, systems = ([a, b], ["A", "B"]) if i % 2 == 0 else ([b, a], ["B", "A"])
        rows.append({"id": str(i), "query": f"Question {i}?", "candidates": candidates, "systems": systems})
    return write_jsonl(path, rows)


RULE = RuleJudge(
    quality={f"{s}'s answer {i}": 8 if s == "B" else 3 for i in range(PAIRS) for s in "AB"}, record=False
)


def llm(script: Callable[[CompletionRequest], str | ProviderServerError]) -> LLM:
    return LLM(ScriptedProvider(script), ModelSpec("scripted", "judge"), retry=NO_RETRY)


def failing(questions: set[int]) -> Callable[[CompletionRequest], str | ProviderServerError]:
    """The rule judge, but the questions numbered in ``questions`` fail (a server's error)."""

    def script(request: CompletionRequest) -> str | ProviderServerError:
        prompt = "\n".join(message.content for message in request.messages)
        if any(f"Question {q}?" in prompt for q in questions):
            return ProviderServerError("down", status=500)
        return RULE.respond([{"role": m.role, "content": m.content} for m in request.messages])

    return script


def test_judge_file_returns_the_result_it_stores_in_the_record(tmp_path: Path) -> None:
    data, out = pairs(tmp_path / "pairs.jsonl"), tmp_path / "j.jsonl"
    job = FileJob.check(data, out, cache=None, systems=["ignored", "here"])
    result = RunResult(instances=job.instances)
    judging = llm(failing({3}))

    async def main() -> None:
        items = checked_items(job, read_instances(data), Direct())
        await judge_file(job, items, Direct(), judging, options=JudgeOptions(), result=result)

    anyio.run(main)

    record = read_run(out)
    assert result.result is not None and record.summary.result == result.result
    assert result.result == compute_result(read_judgments(out), read_instances(data))
    assert result.result.pairwise is not None
    assert [(s.name, s.wins, s.losses, s.failed) for s in result.result.pairwise.systems] == [
        ("B", 79, 0, 1),
        ("A", 0, 79, 1),
    ]
    assert result.result.failures == {"error": 1}
    assert record.options["systems"] == ["ignored", "here"]  # recorded as given; the instances name theirs


def test_a_rerun_stopped_early_counts_the_earlier_judgments_it_keeps_with_their_own_systems(
    tmp_path: Path,
) -> None:
    """The earlier ok judgments of instances the re-run never read (it stopped first) are kept in the
    output, and counted in the result under their instances' systems, not their positions."""
    data, out = pairs(tmp_path / "pairs.jsonl"), tmp_path / "j.jsonl"
    judge(read_instances(data), Direct(), llm(failing({5, 6, 7, 8, 9})), out=out)
    assert read_run(out).summary.judgments == {"error": 5, "ok": 75}

    options = JudgeOptions(abort_after=5, window=4)  # reads a few instances ahead, far from the end
    with pytest.raises(RunAborted):
        judge(read_instances(data), Direct(), llm(failing(set(range(PAIRS)))), options=options, out=out)

    record = read_run(out)
    assert record.summary.reused == 75 and record.stopped_by is not None
    stored = record.summary.result
    assert stored is not None and stored == compute_result(read_judgments(out), read_instances(data))
    assert stored.pairwise is not None
    assert [(s.name, s.wins, s.failed) for s in stored.pairwise.systems] == [("B", 75, 5), ("A", 0, 5)]


def test_a_dry_run_has_no_result(tmp_path: Path) -> None:
    data = pairs(tmp_path / "pairs.jsonl")
    job = FileJob.check(data, None, cache=None)
    result = RunResult(instances=job.instances)
    planning = LLM(ScriptedProvider.sequence([]), ModelSpec("scripted", "judge"), dry_run=True)

    async def main() -> None:
        items = checked_items(job, read_instances(data), Direct())
        await judge_file(job, items, Direct(), planning, options=JudgeOptions(), result=result)

    anyio.run(main)
    assert result.result is None and result.stats.judged == PAIRS
