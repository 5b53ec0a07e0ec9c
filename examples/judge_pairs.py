"""Judge pairs with DnA-Eval through a local OpenAI-compatible server (vLLM, Ollama, llama.cpp, LM Studio).

    python examples/judge_pairs.py http://127.0.0.1:8000/v1 openai:Qwen/Qwen2.5-7B-Instruct [PAIRS.jsonl]

Each pair is judged in both orders; every facet's weight and scores are printed, then the verdict. The
replies are cached in responses.sqlite, so running it again makes no call. PAIRS defaults to
examples/data/pairs.jsonl (instances with a human `label`: the last column says whether the judge agrees).
"""

from __future__ import annotations

import sys
from pathlib import Path

from faceteval import LLM, DnA, JudgeOptions, SQLiteCache, judge, read_instances
from faceteval.errors import FacetevalError

PAIRS = Path(__file__).parent / "data" / "pairs.jsonl"


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    base_url, model = argv[0], argv[1]
    pairs = argv[2] if len(argv) == 3 else PAIRS
    try:
        with SQLiteCache("responses.sqlite") as cache:
            llm = LLM.from_spec(model, base_url=base_url, cache=cache, concurrency=16)
            judgments = judge(read_instances(pairs), DnA(aspects=3), llm, options=JudgeOptions(swap=True))
    except FacetevalError as error:  # a server that is not there, a bad file: one line, no traceback
        print(f"error: {error}", file=sys.stderr)
        return 1
    labels = {
        instance.id: instance.label
        for instance in read_instances(pairs)
        if not isinstance(instance, Exception)
    }
    for j in judgments:
        print(f"{j.id}: {j.status}, verdict {j.verdict}, orders agree: {j.consistent}")
        for facet in j.facets:
            print(f"  {facet.weight or 0:5.2f}  {facet.scores}  {facet.name}")
        if j.status == "ok" and labels.get(j.id) is not None:
            print(f"  human label {labels[j.id]}: {'agrees' if j.verdict == labels[j.id] else 'disagrees'}")
    return 0 if any(j.status == "ok" for j in judgments) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
