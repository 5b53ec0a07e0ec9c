"""A tour of faceteval's Python API against a local OpenAI-compatible server.

    python examples/python_api.py http://127.0.0.1:8000/v1 openai:Qwen/Qwen2.5-7B-Instruct

1. instances and criteria built in code;
2. a dry run: what judging them would ask, with nothing called;
3. the same pairs judged by four methods (direct, cot, DnA-Eval with fixed weights, Fennec), one cache;
4. a file judged as a stream: each judgment written as it is done, in input order, memory bounded;
5. errors: a server that is not there is one `FacetevalError`, not a traceback.

docs/python.md explains each name used here.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

from faceteval import (
    LLM,
    CoT,
    Criterion,
    Direct,
    DnA,
    Instance,
    JudgeOptions,
    Judgment,
    Method,
    RunStats,
    SQLiteCache,
    create_method,
    judge,
    judge_each,
    read_instances,
)
from faceteval.errors import FacetevalError

PAIRS = Path(__file__).parent / "data" / "pairs.jsonl"
CRITERIA = (
    Criterion(name="Correctness", description="What the answer says is true.", weight=3),
    Criterion(name="Concision", description="The answer says what was asked and no more.", weight=1),
)
INSTANCES = [
    Instance(id="sum", query="What is 17 + 25?", candidates=("42", "The sum is 32."), label=1),
    Instance(id="capital", query="Capital of Japan?", candidates=("Kyoto.", "Tokyo."), label=2),
]


def dry_run(base_url: str, model: str) -> None:
    """What judging the instances with DnA-Eval would ask for, with nothing called."""
    llm = LLM.from_spec(model, base_url=base_url, dry_run=True)
    for j in judge(INSTANCES, DnA(aspects=3), llm):
        print(f"dry run {j.id}: {j.status}, {j.usage.calls} calls planned, ~{j.usage.input_tokens} tokens in")


def compare_methods(llm: LLM) -> None:
    """The same pairs judged by four methods; the verdict is 1-based, 0 for a tie."""
    methods: dict[str, Method] = {
        "direct": Direct(),
        "cot": CoT(),
        "dna": DnA(criteria=CRITERIA),  # fixed weights: no weighting call
        "fennec": create_method("fennec", criteria_count=2),
    }
    for name, method in methods.items():
        judgments = judge(INSTANCES, method, llm, options=JudgeOptions(swap=True))
        verdicts = {j.id: (j.verdict, j.consistent) for j in judgments}
        print(f"{name:7} verdicts (verdict, orders agree): {verdicts}")
    dna = judge(INSTANCES[:1], DnA(criteria=CRITERIA), llm)[0]
    for facet in dna.facets:
        print(f"  dna facet {facet.name}: weight {facet.weight}, scores {facet.scores}")


async def stream(llm: LLM, out: Path) -> RunStats:
    """Judge a file as it is read, each judgment written to ``out`` as soon as those before it are."""
    with out.open("w", encoding="utf-8") as file:

        def write(judgment: Judgment) -> None:
            file.write(judgment.model_dump_json(exclude={"trace"}) + "\n")

        try:
            return await judge_each(read_instances(PAIRS), Direct(), llm, sink=write)
        finally:
            await llm.aclose()


def unreachable(model: str) -> None:
    """A server that is not there stops the run with one error, before any judgment."""
    llm = LLM.from_spec(model, base_url="http://127.0.0.1:9/v1")
    try:
        judge(INSTANCES, Direct(), llm)
    except FacetevalError as error:
        print(f"{type(error).__name__}: {error}")


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    base_url, model = argv
    dry_run(base_url, model)
    with tempfile.TemporaryDirectory() as folder, SQLiteCache(Path(folder) / "responses.sqlite") as cache:
        llm = LLM.from_spec(model, base_url=base_url, cache=cache)
        compare_methods(llm)
        out = Path(folder) / "judgments.jsonl"
        stats = asyncio.run(stream(llm, out))
        print(f"streamed {stats.judged} judgments ({dict(stats.statuses)}), {stats.total.calls} calls made")
    unreachable(model)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
