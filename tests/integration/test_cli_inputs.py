"""Every command that reads instances reads them through the one reader: `judge`, `meta-eval`, `hdeval
train` / `apply` and `review import` take --field, --label-map, --preset, --format, --hf-dataset and
--split; bad rows are named by file, row and column while the rest runs; and later commands read a
judged input as the run read it (its record says how)."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from faceteval._cli._app import cli
from faceteval.review import ReviewStore
from faceteval.store import record_path_for
from faceteval.viewer._opened import open_run
from faceteval.viewer._runs import run_at
from tests.integration import test_hdeval_train as hdeval_data
from tests.support.files import read_jsonl
from tests.support.llm_server import LLMServer
from tests.support.rule_judge import RuleJudge

PAIRS = [
    {"prompt": "Explain rain.", "output_a": "good", "output_b": "poor", "winner": "a"},
    {"prompt": "Name a prime.", "output_a": "poor", "output_b": "good", "winner": "b"},
    {"prompt": "Explain snow.", "output_a": "good", "output_b": "fair", "winner": "maybe"},
]
FIELDS = ["--field", "query=prompt", "--field", "candidates=output_a,output_b", "--field", "label=winner"]


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args], terminal_width=200)


@pytest.fixture(scope="module")
def server() -> Iterator[LLMServer]:
    rule = RuleJudge(quality={"good": 9, "fair": 6, "poor": 3})
    with LLMServer(rule.for_server()) as running:
        yield running


def local(server: LLMServer, tmp_path: Path) -> list[str]:
    return ["--model", "openai:judge", "--base-url", server.base_url, "--cache", str(tmp_path / "c.sqlite")]


def write_csv(path: Path, rows: list[dict[str, Any]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_judge_reads_a_csv_by_its_field_map_and_review_import_reads_it_again(
    server: LLMServer, tmp_path: Path
) -> None:
    pairs = write_csv(tmp_path / "pairs.csv", PAIRS)
    out = tmp_path / "j.jsonl"
    result = invoke(
        "judge",
        pairs,
        *FIELDS,
        "--label-map",
        "a=1,b=2",
        "--method",
        "dna",
        *local(server, tmp_path),
        "--out",
        out,
    )
    assert result.exit_code == 6, result.output  # some judgments failed (exit 6), the rest written
    judgments = read_jsonl(out)
    assert [(j["id"], j["status"], j["verdict"]) for j in judgments[:2]] == [("2", "ok", 1), ("3", "ok", 2)]
    bad = judgments[2]
    assert (bad["id"], bad["status"]) == ("line-4", "error")
    assert bad["error"].startswith(
        f"invalid input: {pairs}:4: field 'winner': winner='maybe' is not in the label map"
    )
    record = json.loads(record_path_for(out).read_text())
    assert record["inputs"]["input"]["read_as"] == {
        "fields": {
            "query": "prompt",
            "candidates": ["output_a", "output_b"],
            "label": "winner",
            "label_map": {"a": 1, "b": 2},
            "label_base": 1,
        }
    }
    imported = invoke("review", "import", tmp_path / "project", out, "--task", "rain")
    assert imported.exit_code == 0, imported.output
    assert "Imported 2 outputs" in imported.output
    store = ReviewStore.open(tmp_path / "project", create=False)
    assert {item.id for item in store.items("rain")} == {"2", "3"}
    reported = invoke("report", out)
    assert reported.exit_code == 0, reported.output
    report = out.with_suffix(".report.md").read_text()
    assert "candidates are not shown" not in report and "is not valid" not in report
    opened = open_run(run_at(out), tmp_path / "index")  # type: ignore[arg-type]
    assert opened.inputs is None and opened.input_problem is not None
    assert "the viewer shows inputs in faceteval's own JSON Lines" in opened.input_problem
    opened.close()


def test_review_import_reads_an_input_given_with_its_own_field_map(server: LLMServer, tmp_path: Path) -> None:
    rows = [{"q": p["prompt"], "x": p["output_a"], "y": p["output_b"]} for p in PAIRS[:2]]
    pairs = write_csv(tmp_path / "pairs.csv", rows)
    fields = ["--field", "query=q", "--field", "candidates=x,y"]
    out = tmp_path / "j.jsonl"
    judged = invoke("judge", pairs, *fields, "--method", "dna", *local(server, tmp_path), "--out", out)
    assert judged.exit_code == 0, judged.output
    record_path_for(out).unlink()  # no record: the input and how to read it are given
    moved = pairs.rename(tmp_path / "moved.csv")
    plain = invoke("review", "import", tmp_path / "p1", out, "--input", moved, "--task", "t")
    assert plain.exit_code == 1 and "field 'query': missing" in plain.output
    mapped = invoke("review", "import", tmp_path / "p2", out, "--input", moved, "--task", "t", *fields)
    assert mapped.exit_code == 0, mapped.output


def test_judge_reads_a_saved_hugging_face_dataset_with_a_preset(server: LLMServer, tmp_path: Path) -> None:
    import datasets

    def battle(question: str, a: str, b: str, winner: str) -> dict[str, Any]:
        return {
            "question_id": question,
            "model_a": "model-x",
            "model_b": "model-y",
            "winner": winner,
            "judge": "arena_user_1",
            "conversation_a": [
                {"content": "Explain rain.", "role": "user"},
                {"content": a, "role": "assistant"},
            ],
            "conversation_b": [
                {"content": "Explain rain.", "role": "user"},
                {"content": b, "role": "assistant"},
            ],
            "turn": 1,
            "anony": True,
            "language": "English",
        }

    rows = [battle("q1", "good", "poor", "model_a"), battle("q2", "poor", "good", "model_b")]
    datasets.DatasetDict({"train": datasets.Dataset.from_list(rows)}).save_to_disk(str(tmp_path / "arena"))
    out = tmp_path / "j.jsonl"
    args = ["--hf-dataset", tmp_path / "arena", "--split", "train", "--preset", "chatbot-arena"]
    result = invoke("judge", *args, "--method", "dna", *local(server, tmp_path), "--out", out)
    assert result.exit_code == 0, result.output
    assert [(j["id"], j["verdict"]) for j in read_jsonl(out)] == [("q1", 1), ("q2", 2)]
    record = json.loads(record_path_for(out).read_text())
    assert record["inputs"]["input"]["read_as"] == {
        "format": "hf",
        "preset": "chatbot-arena",
        "split": "train",
    }
    assert "model-x" in result.output  # the result per system names the preset's systems
    imported = invoke("review", "import", tmp_path / "project", out, "--task", "arena")
    assert imported.exit_code == 0, imported.output
    # The result computed again from the input, read as the record says (a dataset, by the preset):
    reported = invoke("report", out, "--systems", "s1,s2")
    assert reported.exit_code == 0, reported.output
    report = out.with_suffix(".report.md").read_text()
    assert "model-x" in report and "model-y" in report  # only the instances name them


def test_judge_reads_parquet_with_a_preset(server: LLMServer, tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [
        {"instruction": "Explain rain.", "output_1": "good", "generator_1": "gpt4", "output_2": "poor",
         "generator_2": "mine", "preference": 1.1},
        {"instruction": "Explain snow.", "output_1": "poor", "generator_1": "gpt4", "output_2": "good",
         "generator_2": "mine", "preference": 7.0},
    ]  # fmt: skip
    path = tmp_path / "annotations.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    out = tmp_path / "j.jsonl"
    result = invoke(
        "judge", path, "--preset", "alpacaeval", "--method", "dna", *local(server, tmp_path), "--out", out
    )
    assert result.exit_code == 6, result.output  # some judgments failed (exit 6), the rest written
    judgments = read_jsonl(out)
    assert (judgments[0]["status"], judgments[0]["verdict"]) == ("ok", 1)
    assert judgments[1]["error"] == (
        f"invalid input: {path}:2: field 'preference': row 2: expected 1 to 2 (1.5 or 0: a draw), got 7"
    )


def test_judge_reads_a_jsonl_file_in_other_names_without_a_map(server: LLMServer, tmp_path: Path) -> None:
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"prompt": "Explain rain.", "output_a": "good", "output_b": "poor"}) + "\n")
    out = tmp_path / "j.jsonl"
    result = invoke("judge", pairs, "--method", "dna", *local(server, tmp_path), "--out", out)
    assert result.exit_code == 0, result.output
    assert [j["verdict"] for j in read_jsonl(out)] == [1]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["x.jsonl", "--hf-dataset", "d"], "give INPUT or --hf-dataset, not both"),
        ([], "give INPUT (a file), or --hf-dataset NAME_OR_PATH"),
        (["x.jsonl", "--split", "test"], "--split chooses a split of --hf-dataset"),
        (["x.jsonl", "--preset", "alpaca"], "'alpaca' is not one of"),
    ],
)
def test_judge_input_usage_errors(tmp_path: Path, args: list[str], message: str) -> None:
    result = invoke("judge", *args, "--model", "openai:judge", "--dry-run")
    assert result.exit_code == 2 and message in result.output


def test_meta_eval_reads_a_preset_file_and_a_hugging_face_dataset(tmp_path: Path) -> None:
    import datasets

    rows = [
        {"chosen": "\n\nHuman: Hi\n\nAssistant: Hello!", "rejected": "\n\nHuman: Hi\n\nAssistant: Go away."},
        {"chosen": "\n\nHuman: Help?\n\nAssistant: Sure.", "rejected": "\n\nHuman: Help?\n\nAssistant: No."},
    ]
    path = tmp_path / "hh.json"
    path.write_text(json.dumps(rows))
    judged = tmp_path / "judged.jsonl"
    judged.write_text(
        "".join(
            json.dumps({"id": i, "method": "m", "status": "ok", "verdict": v}) + "\n"
            for i, v in (("1", 1), ("2", 2))
        )
    )
    result = invoke(
        "meta-eval",
        path,
        "--preset",
        "hh-rlhf",
        "--judgments",
        judged,
        "--out",
        tmp_path / "o",
        "--no-report",
    )
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())["summary"]
    assert (summary["agreement"]["hits"], summary["agreement"]["n"]) == (1, 2)
    instances = read_jsonl(tmp_path / "o" / "instances.jsonl")
    assert [i["systems"] for i in instances] == [["chosen", "rejected"]] * 2

    datasets.Dataset.from_list(rows).save_to_disk(str(tmp_path / "hh"))
    args = ["--hf-dataset", tmp_path / "hh", "--preset", "hh-rlhf", "--judgments", judged]
    result = invoke("meta-eval", *args, "--out", tmp_path / "o2", "--no-report")
    assert result.exit_code == 0, result.output
    bad = invoke("meta-eval", path, "--preset", "alpacaeval", "--judgments", judged, "--out", tmp_path / "o3")
    assert bad.exit_code == 1 and f"{path}:1: field 'instruction': record 1: missing" in bad.output
    builtin = invoke(
        "meta-eval", "llmbar-natural", "--preset", "hh-rlhf", "--judgments", judged, "--out", tmp_path / "o4"
    )
    assert builtin.exit_code == 2 and "llmbar-natural is a built-in benchmark" in builtin.output


def test_hdeval_trains_and_applies_on_csv_files_read_by_field_maps(tmp_path: Path) -> None:
    def as_csv(path: Path, rows: list[dict[str, Any]]) -> Path:
        flat = [
            {"uid": r["id"], "prompt": r["query"], "text": r["candidates"][0], "task": r["task"],
             "coh": r["scores"]["coherence"], "flu": r["scores"]["fluency"]}
            for r in rows
        ]  # fmt: skip
        return write_csv(path, flat)

    labelled = as_csv(tmp_path / "labelled.csv", hdeval_data.outputs(16, "a"))
    fresh = as_csv(tmp_path / "fresh.csv", hdeval_data.outputs(4, "b"))
    fields = ["--field", "id=uid", "--field", "query=prompt", "--field", "candidates=text"]
    scores = ["--field", "scores.coherence=coh", "--field", "scores.fluency=flu"]
    with LLMServer(hdeval_data.responder) as server:
        engine = [
            "--model",
            "openai:judge",
            "--base-url",
            server.base_url,
            "--cache",
            tmp_path / "c.sqlite",
            "-q",
        ]
        train = [
            "hdeval",
            "train",
            labelled,
            *fields,
            *scores,
            "--target",
            "coherence,fluency",
            "--layers",
            "1",
        ]
        result = invoke(*train, "--aggregator", "lr", "--resamples", "0", "--out", tmp_path / "ev", *engine)
        assert result.exit_code == 0, result.output
        record = json.loads((tmp_path / "ev" / "evaluator.json").read_text())
        assert record["inputs"]["input"]["read_as"]["fields"]["query"] == "prompt"
        result = invoke(
            "hdeval", "apply", tmp_path / "ev", fresh, *fields, "--out", tmp_path / "s.jsonl", *engine
        )
        assert result.exit_code == 0, result.output
    scored = read_jsonl(tmp_path / "s.jsonl")
    assert [row["id"] for row in scored] == ["b0", "b1", "b2", "b3"] and {r["status"] for r in scored} == {
        "ok"
    }
    unmapped = invoke(
        "hdeval", "apply", tmp_path / "ev", fresh, "--format", "csv", "--out", tmp_path / "t.jsonl"
    )
    assert unmapped.exit_code == 1 and "field 'candidates': missing" in unmapped.output
