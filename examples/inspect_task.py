"""An Inspect AI task scored by faceteval: a model answers the example questions, and DnA-Eval judges each
answer against a recorded one (the first candidate of examples/data/pairs.jsonl), in both orders.

With Inspect's own command, against any OpenAI-compatible server (vLLM, Ollama, llama.cpp, LM Studio):

    export LOCAL_BASE_URL=http://127.0.0.1:8000/v1 LOCAL_API_KEY=none
    inspect eval examples/inspect_task.py --model openai-api/local/Qwen/Qwen2.5-7B-Instruct

or as a script, which runs the same eval and prints each sample's score and facets from its log:

    python examples/inspect_task.py http://127.0.0.1:8000/v1 openai-api/local/Qwen/Qwen2.5-7B-Instruct

A score is 1 when the model's answer wins, 0.5 for a tie (or orders that disagree) and 0 when it loses:
the task's mean is the model's win rate over the recorded answers. ``-T against=none`` scores each answer
alone instead (DnA-Eval's overall score on 1 to 10, as 0 to 1: (score - 1) / 9). The log is written to
./logs.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import inspect_ai
from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import get_model
from inspect_ai.solver import generate

from faceteval.integrations.inspect import facet_scorer

PAIRS = Path(__file__).parent / "data" / "pairs.jsonl"


def sample(record: dict[str, Any]) -> Sample:
    """A pair as an Inspect sample: its query to answer, its first candidate as the baseline."""
    return Sample(id=record["id"], input=record["query"], metadata={"baseline": record["candidates"][0]})


@task
def answers_against_recorded(against: str | None = "baseline", aspects: int = 3) -> Task:
    """The example questions, answered by the model under test, judged by DnA-Eval."""
    records = [json.loads(line) for line in PAIRS.read_text(encoding="utf-8").splitlines() if line.strip()]
    against = None if against in (None, "none") else against
    return Task(
        dataset=MemoryDataset([sample(record) for record in records]),
        solver=generate(),
        scorer=facet_scorer("dna", aspects=aspects, against=against),
    )


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    base_url, name = argv
    model = get_model(name, base_url=base_url, api_key=os.environ.get("LOCAL_API_KEY", "none"))
    (log,) = inspect_ai.eval(answers_against_recorded(), model=model, log_dir="logs", display="none")
    if log.status != "success" or log.results is None or log.samples is None:
        print(f"error: the eval ended with status {log.status}: {log.error}", file=sys.stderr)
        return 1
    for scored in log.results.scores:
        metrics = ", ".join(f"{m.name} {m.value:.3f}" for m in scored.metrics.values())
        print(
            f"{scored.name}: {metrics} ({scored.scored_samples} scored, {scored.unscored_samples} unscored)"
        )
    for each in log.samples:
        score = (each.scores or {})["facet_scorer"]
        details = score.metadata or {}
        print(f"{each.id}: {score.value} ({details.get('verdict') or details.get('status')})")
        for facet in details.get("facets", []):
            print(f"  {facet.get('weight') or 0:5.2f}  {facet['scores']}  {facet['name']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
