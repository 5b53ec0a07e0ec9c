"""A judge run's judgments, facets and result as pandas DataFrames (``pip install 'faceteval[pandas]'``).

    python examples/dataframes.py http://127.0.0.1:8000/v1 openai:Qwen/Qwen2.5-7B-Instruct

Judges the example pairs with DnA-Eval in both orders, writing the judgments and their run record,
then reads them back as tables: one row per judgment (with the human labels of the pairs), one row
per facet score, and the run's result per system.

docs/python.md ("DataFrames out") lists every column.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from faceteval import LLM, DnA, JudgeOptions, judge, read_instances, read_run
from faceteval.errors import FacetevalError

PAIRS = Path(__file__).parent / "data" / "pairs.jsonl"
SHOWN = ["id", "status", "verdict", "label", "score_1", "score_2", "consistent", "calls"]


def main(base_url: str, model: str) -> None:
    llm = LLM.from_spec(model, base_url=base_url)
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "judgments.jsonl"
        judge(read_instances(PAIRS), DnA(aspects=3), llm, out=out, options=JudgeOptions(swap=True))
        run = read_run(out)  # the run record beside the judgments
        table = run.to_pandas(instances=read_instances(PAIRS))  # one row per judgment
        facets = run.to_pandas(facets=True)  # one row per judgment, facet and candidate
        summary = run.to_pandas("summary")  # the run's result, one row per system
    print(table[SHOWN].to_string(index=False))
    ok = table[table["status"] == "ok"]
    print(f"\nagreement with the human labels: {(ok['verdict'] == ok['label']).mean():.2f} over {len(ok)}")
    print(f"mean facet score by candidate: {facets.groupby('candidate')['score'].mean().round(2).to_dict()}")
    # without systems named in the input, the systems are the candidates' positions
    rates = summary[["system", "wins", "ties", "losses", "win_rate", "win_rate_low", "win_rate_high"]]
    print(f"\n{rates.to_string(index=False)}")


if __name__ == "__main__":
    try:
        main(*sys.argv[1:3])
    except FacetevalError as error:
        sys.exit(f"error: {error}")
