"""`hdeval train --group-by` keeps each group on one side of the train/test split, `--system-by` gives
the system level, and `--features` never learns a target from its own score (`--features-only`
chooses the criteria): on CoEval's recorded ChatGPT scores and on a user's file, with no LLM."""

from __future__ import annotations

import csv
import json
import os
import random
from collections import defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from faceteval._cli._app import cli
from tests.support.files import write_jsonl

RECORDED = ["coeval-eli5", "--features", "recorded:coeval-chatgpt", "--aggregator", "lr", "--resamples", "0"]


@pytest.fixture
def data_dir() -> Path:
    return Path(os.environ.get("FACETEVAL_DATA_DIR", "../shared/data"))


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, ["hdeval", "train", *map(str, args)], catch_exceptions=False)


def rows(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "features.jsonl").read_text().splitlines()]


def sides(out: Path, key: str) -> dict[str, set[str]]:
    """Each group's sides of the split (``train``, ``test``)."""
    found: dict[str, set[str]] = defaultdict(set)
    for row in rows(out):
        found[str(row["metadata"][key])].add(row["split"])
    return found


def test_group_by_keeps_each_group_on_one_side_of_the_split(data_dir: Path, tmp_path: Path) -> None:
    common = [*RECORDED, "--target", "Accuracy", "--data-dir", data_dir]
    grouped = invoke(*common, "--group-by", "question_id", "--out", tmp_path / "grouped")
    plain = invoke(*common, "--out", tmp_path / "plain")

    assert grouped.exit_code == 0, grouped.output
    assert plain.exit_code == 0, plain.output
    by_question = sides(tmp_path / "grouped", "question_id")
    assert len(by_question) == 50 and all(len(split) == 1 for split in by_question.values())
    assert any(len(split) == 2 for split in sides(tmp_path / "plain", "question_id").values())
    summary = json.loads((tmp_path / "grouped" / "summary.json").read_text())
    assert set(summary["held_out"]["Accuracy"]["aggregator"]) == {"sample", "summary", "system"}
    assert "summary level: within each question_id, then averaged" in grouped.output
    info = json.loads((tmp_path / "grouped" / "evaluator.json").read_text())["summary"]
    assert info["group_by"] == "question_id"


def test_a_criterion_named_as_a_target_is_left_out_unless_chosen(data_dir: Path, tmp_path: Path) -> None:
    common = [*RECORDED, "--target", "Accuracy,Coherence", "--data-dir", data_dir]
    dropped = invoke(*common, "--out", tmp_path / "dropped")
    chosen = invoke(*common, "--features-only", "accuracy,Helpfulness", "--out", tmp_path / "chosen")

    assert dropped.exit_code == 0, dropped.output
    assert sorted(rows(tmp_path / "dropped")[0]["features"]) == [
        "Analogy usage",
        "Comprehensibility",
        "Helpfulness",
    ]
    assert "--features: left out Accuracy, Coherence: named as targets" in " ".join(dropped.output.split())
    summary = json.loads((tmp_path / "dropped" / "summary.json").read_text())
    assert "judge_on_aspect" in summary["held_out"]["Coherence"]  # measured beside, from the recorded scores
    assert chosen.exit_code == 0, chosen.output
    assert sorted(rows(tmp_path / "chosen")[0]["features"]) == ["Accuracy", "Helpfulness"]
    assert "left out" not in chosen.output


def test_features_only_names_known_criteria_of_given_features(data_dir: Path, tmp_path: Path) -> None:
    unknown = invoke(
        *RECORDED,
        "--target",
        "Accuracy",
        "--data-dir",
        data_dir,
        "--features-only",
        "Fluency,Accuracy",
        "--out",
        tmp_path / "a",
    )
    assert unknown.exit_code == 2, unknown.output
    assert "--features-only Fluency: no such criterion in --features" in unknown.output
    assert "Comprehensibility, Analogy usage, Accuracy, Coherence, Helpfulness" in unknown.output
    without = invoke(
        "coeval-eli5",
        "--target",
        "Accuracy",
        "--features-only",
        "Accuracy",
        "--out",
        tmp_path / "b",
        "--data-dir",
        data_dir,
    )
    assert without.exit_code == 2 and "give --features" in without.output
    nothing = invoke(
        *RECORDED,
        "--target",
        "Accuracy",
        "--data-dir",
        data_dir,
        "--group-by",
        "topic",
        "--out",
        tmp_path / "c",
    )
    assert (
        nothing.exit_code == 2
        and "cannot group by 'topic'" in nothing.output
        and "question_id" in nothing.output
    )


def user_file(tmp_path: Path) -> tuple[Path, Path]:
    """Outputs of 4 systems for 12 queries, a human quality score, and recorded criterion scores."""
    rng = random.Random(5)
    data, judged = tmp_path / "outputs.csv", []
    with data.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["prompt", "model", "output", "quality"])
        for q in range(12):
            for s in range(4):
                clarity, detail = rng.uniform(1, 5), rng.uniform(1, 5)
                quality = 0.7 * clarity + 0.3 * detail + 0.5 * s + rng.gauss(0, 0.3)
                writer.writerow([f"Prompt {q}?", f"sys{s}", f"Output {q}-{s}.", f"{quality:.3f}"])
                facets = [{"name": "clarity", "scores": [clarity]}, {"name": "detail", "scores": [detail]}]
                judged.append({"id": f"Prompt {q}?|sys{s}", "method": "m", "status": "ok", "facets": facets})
    return data, write_jsonl(tmp_path / "judged.jsonl", judged)


def test_a_users_file_grouped_by_its_query_with_its_systems_by_a_column(tmp_path: Path) -> None:
    data, judged = user_file(tmp_path)
    out = tmp_path / "evaluator"
    run = invoke(
        data, "--field", "query=prompt", "--field", "candidates=output", "--field", "scores.quality=quality",
        "--id", "query,model", "--system-by", "model", "--group-by", "query", "--features", judged,
        "--target", "quality", "--aggregator", "lr", "--resamples", "0", "--out", out,
    )  # fmt: skip

    assert run.exit_code == 0, run.output
    assert all(len(split) == 1 for split in sides(out, "query").values())
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["held_out"]["quality"]["aggregator"]) == {"sample", "summary", "system"}
    read_as = json.loads((out / "evaluator.json").read_text())["inputs"]["input"]["read_as"]
    assert (read_as["id_fields"], read_as["system_by"]) == (["query", "model"], "model")
