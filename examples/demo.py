"""The offline demo behind `make demo`: what judging LLMBar would cost, per method and stage.

No LLM is called. For each of direct, cot and dna (and dna with --swap), it prints the dry-run plan
of `faceteval judge`: the calls each stage would make, estimated tokens, and the estimated cost with
a real price. The instances are LLMBar's (adversarial set from FACETEVAL_DATA_DIR when it is there,
else the 40-instance MIT-licensed sample kept in examples/data).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SAMPLE = HERE / "data" / "llmbar-sample.jsonl"
MODEL = "openai:gpt-4o-mini"
ADVERSARIAL = ("Neighbor", "GPTInst", "GPTOut", "Manual")
RUNS = [
    ("direct", []),
    ("cot", []),
    ("dna", ["--aspects", "3"]),
    ("dna", ["--aspects", "3", "--swap"]),
]


def adversarial_jsonl(data_dir: Path, target: Path) -> int:
    """Write LLMBar-Adversarial (319 pairs) as canonical JSONL; returns the count."""
    count = 0
    with target.open("w", encoding="utf-8") as out:
        for subset in ADVERSARIAL:
            records = json.loads(
                (data_dir / "llmbar/LLMBar/Adversarial" / subset / "dataset.json").read_text()
            )
            for i, record in enumerate(records):
                instance = {
                    "id": f"{subset.lower()}-{i}",
                    "query": record["input"],
                    "candidates": [record["output_1"], record["output_2"]],
                    "label": record["label"],
                    "category": f"Adversarial/{subset}",
                }
                out.write(json.dumps(instance, ensure_ascii=False) + "\n")
                count += 1
    return count


def main() -> int:
    data_dir = Path(os.environ.get("FACETEVAL_DATA_DIR", HERE.parent.parent / "shared" / "data"))
    with tempfile.TemporaryDirectory() as tmp:
        if (data_dir / "llmbar/LLMBar/Adversarial").is_dir():
            source = Path(tmp) / "llmbar-adversarial.jsonl"
            n = adversarial_jsonl(data_dir, source)
            print(f"LLMBar-Adversarial from {data_dir / 'llmbar'}: {n} pairs (gold labels, MIT license).")
        else:
            source = SAMPLE
            print(f"{data_dir} has no LLMBar; using the 40-pair sample in {SAMPLE}.")
        print(f"What judging it with {MODEL} would take. Dry runs: no LLM is called, nothing is judged.\n")
        for method, extra in RUNS:
            command = [
                sys.executable,
                "-m",
                "faceteval",
                "judge",
                str(source),
                "--method",
                method,
                "--model",
                MODEL,
                "--dry-run",
                "--no-cache",
                *extra,
            ]
            shown = [
                "faceteval judge",
                source.name,
                "--method",
                method,
                "--model",
                MODEL,
                "--dry-run",
                *extra,
            ]
            print("$ " + " ".join(shown))
            sys.stdout.flush()
            completed = subprocess.run(command, check=False)
            if completed.returncode != 0:
                return completed.returncode
            print()
    print(
        "To judge for real: add --out judgments.jsonl and a reachable model "
        "(OPENAI_API_KEY, or --base-url for any OpenAI-compatible server)."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
