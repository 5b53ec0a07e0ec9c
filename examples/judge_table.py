"""Judge your data as it is: a CSV under its own column names, and AlpacaEval annotations by preset.

    python examples/judge_table.py http://127.0.0.1:8000/v1 openai:Qwen/Qwen2.5-7B-Instruct

The same from the command line (docs/inputs.md):

    faceteval judge examples/data/pairs.csv --field query=prompt --field candidates=output_a,output_b \\
        --field label=winner --label-map a=1,b=2,tie=0 --model ... --base-url ... --out j.jsonl
    faceteval judge examples/data/alpacaeval.json --preset alpacaeval --model ... --out a.jsonl

The CSV's last row has a label the map does not know: it is named (file, line, column) and written as an
error judgment, and the other rows are judged. A DataFrame is read the same way when pandas is installed.
"""

from __future__ import annotations

import sys
from pathlib import Path

from faceteval import LLM, DnA, JudgeOptions, SQLiteCache, compute_result, judge, read_instances
from faceteval.core import Instance
from faceteval.errors import FacetevalError

DATA = Path(__file__).parent / "data"
FIELDS = {"query": "prompt", "candidates": ["output_a", "output_b"], "label": "winner"}
LABELS = {"a": 1, "b": 2, "tie": 0}


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    base_url, model = argv
    try:
        with SQLiteCache("responses.sqlite") as cache:
            llm = LLM.from_spec(model, base_url=base_url, cache=cache, concurrency=16)
            csv_pairs = read_instances(DATA / "pairs.csv", fields=FIELDS, label_map=LABELS)
            judged = judge(csv_pairs, DnA(aspects=2), llm, options=JudgeOptions(swap=True))
            annotations = list(read_instances(DATA / "alpacaeval.json", preset="alpacaeval"))
            by_preset = judge(annotations, DnA(aspects=2), llm)
    except FacetevalError as error:  # a server that is not there, a bad file: one line, no traceback
        print(f"error: {error}", file=sys.stderr)
        return 1
    labels = {i.id: i.label for i in read_instances(DATA / "pairs.csv", fields=FIELDS, label_map=LABELS)
              if isinstance(i, Instance)}  # fmt: skip
    for j in judged:
        said = f"verdict {j.verdict}, human label {labels[j.id]}" if j.status == "ok" else j.error
        print(f"pairs.csv {j.id}: {j.status}: {said}")
    result = compute_result(by_preset, [i for i in annotations if isinstance(i, Instance)])
    assert result.pairwise is not None
    for system in result.pairwise.systems:
        print(f"alpacaeval.json system {system.name}: {system.wins} wins, {system.losses} losses")
    try:
        import pandas as pd
    except ModuleNotFoundError:
        return 0
    frame = pd.read_csv(DATA / "pairs.csv")
    read = [i for i in read_instances(frame, fields=FIELDS, label_map=LABELS) if isinstance(i, Instance)]
    print(f"DataFrame: {len(read)} of {len(frame)} rows read as instances")
    return 0 if any(j.status == "ok" for j in judged) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
