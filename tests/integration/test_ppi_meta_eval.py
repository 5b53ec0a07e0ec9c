"""``meta-eval --ppi-labels N --ppi-draws R`` on a real benchmark and its recorded judge (the summary's
``ppi`` block, the console table, the report's section), the flags refused, and ``--labels`` replacing
the benchmark's labels (a real process of the command: its exit status and message)."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from faceteval import Direct, MetaEvalOptions, meta_evaluate
from faceteval.errors import ConfigError
from faceteval.llm import LLM, ModelSpec, ScriptedProvider
from faceteval.metaeval import PpiSettings, load_target

PPI_KEYS = (
    "labels",
    "draws",
    "level",
    "coverage",
    "coverage_judge_only",
    "coverage_human_only",
    "width",
    "width_judge_only",
    "width_human_only",
    "pairs",
    "skipped",
)
POOLED = [key for key in PPI_KEYS if key.startswith(("coverage", "width"))]


@pytest.fixture(scope="module")
def data_dir() -> Path:
    value = os.environ.get("FACETEVAL_DATA_DIR")
    assert value, "FACETEVAL_DATA_DIR must name the benchmark data directory (make test sets it)"
    return Path(value)


def faceteval(data_dir: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    """``faceteval meta-eval ARGS`` in a process of its own, as a user runs it."""
    env = os.environ | {"PYTHONPATH": os.pathsep.join(sys.path), "COLUMNS": "200"}
    command = [sys.executable, "-m", "faceteval", "meta-eval", *map(str, args), "--data-dir", str(data_dir)]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=600, check=False)


def summary_of(out: Path) -> dict[str, Any]:
    return dict(json.loads((out / "summary.json").read_text(encoding="utf-8"))["summary"])


@pytest.fixture(scope="module")
def mtbench_ppi(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("ppi") / "mtb"
    done = faceteval(
        data_dir, "mtbench-human", "--judgments", "recorded:gpt4-pair", "--ppi-labels", "50",
        "--ppi-draws", "20", "--seed", "2", "--resamples", "0", "--out", out,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out, done.stdout


def test_the_ppi_block_has_the_documented_keys(mtbench_ppi: tuple[Path, str]) -> None:
    block = summary_of(mtbench_ppi[0])["ppi"]
    assert all(key in block for key in PPI_KEYS)
    assert (block["labels"], block["draws"], block["level"], block["seed"]) == (50, 20, 0.95, 2)
    # MT-Bench's 6 models make 15 pairs, each with at least 136 labelled items (2 x 50 needed)
    pairs = block["pairs"]
    assert len(pairs) == 15 and block["skipped"] == []
    assert sum(pair["items"] for pair in pairs) == 2668
    assert "gpt-4 vs llama-13b" in {pair["pair"] for pair in pairs}
    for key in POOLED:
        assert block[key] == pytest.approx(statistics.fmean(pair[key] for pair in pairs))
    for pair in pairs:
        assert all(key in pair for key in (*POOLED, "pair", "items", "human_win_rate"))
        assert 0 <= pair["human_win_rate"] <= 1
        assert pair["coverage_judge_only"] in (0.0, 1.0)  # the judge's own interval is the same every draw
        low, high = pair["judge_ci"]
        assert pair["coverage_judge_only"] == float(low <= pair["human_win_rate"] <= high)
    # gpt4-pair rates GPT-4 above what the humans give it against most models
    assert block["coverage_judge_only"] < 0.6
    assert block["coverage"] > 0.85
    assert block["width"] < block["width_human_only"]
    assert summary_of(mtbench_ppi[0])["n"] == 2668  # the rest of the run is measured as before


def test_the_console_and_the_report_show_it(mtbench_ppi: tuple[Path, str]) -> None:
    out, stdout = mtbench_ppi
    assert "prediction-powered win rates: 50 random human labels per pair, 20 draws" in stdout
    assert "gpt-4 vs llama-13b" in stdout and "pooled (mean over pairs)" in stdout
    report = (out / "report.md").read_text(encoding="utf-8")
    section = report.split("## Prediction-powered win rates", 1)[1].split("\n## ", 1)[0]
    block = summary_of(out)["ppi"]
    pooled = next(line for line in section.splitlines() if line.startswith("| Pooled"))
    assert f"{100 * block['coverage']:.1f}%" in pooled
    assert f"{block['width_human_only']:.3f}" in pooled
    assert section.count("| gpt-") >= 4
    assert "Prediction-powered win rates" in (out / "report.html").read_text(encoding="utf-8")
    options = json.loads((out / "summary.json").read_text(encoding="utf-8"))["options"]
    assert options["ppi"] == {"labels": 50, "draws": 20, "seed": 2, "level": 0.95}


def test_pairs_with_too_few_labelled_items_are_skipped(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "few"
    done = faceteval(
        data_dir, "pandalm", "--judgments", "recorded:pandalm-7b", "--ppi-labels", "50", "--ppi-draws", "3",
        "--resamples", "0", "--no-report", "--out", out,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    block = summary_of(out)["ppi"]
    assert {s["pair"] for s in block["skipped"]} == {
        "bloom-7b vs opt-7b", "cerebras-gpt-6.7B vs opt-7b", "cerebras-gpt-6.7B vs pythia-6.9b",
        "llama-7b vs pythia-6.9b",
    }  # fmt: skip
    assert all(s["items"] < 100 for s in block["skipped"]) and len(block["pairs"]) == 6
    assert "4 pairs with fewer than 100 labelled items skipped" in " ".join(done.stdout.split())


@pytest.mark.parametrize(
    ("args", "status", "message"),
    [
        (("mtbench-human", "--judgments", "recorded:gpt4-pair", "--ppi-labels", "1"), 2,
         "'--ppi-labels': 1 is not in the range x>=2"),
        (("mtbench-human", "--judgments", "recorded:gpt4-pair", "--ppi-labels", "5", "--ppi-draws", "0"), 2,
         "'--ppi-draws': 0 is not in the range x>=1"),
        (("mtbench-human", "--judgments", "recorded:gpt4-pair", "--ppi-draws", "10"), 2,
         "--ppi-draws applies with --ppi-labels only"),
        (("llmbar-natural", "--method", "direct", "--model", "fake:x", "--ppi-labels", "10"), 2,
         "--ppi-labels measures recorded or given judgments (--judgments), not a --method run"),
        (("prometheus-mtbench", "--judgments", "recorded:gpt-4-run1", "--ppi-labels", "10"), 1,
         "--ppi-labels measures pairwise win rates; prometheus-mtbench is pointwise"),
    ],
)  # fmt: skip
def test_flags_that_cannot_be_measured_are_refused(
    data_dir: Path, tmp_path: Path, args: tuple[str, ...], status: int, message: str
) -> None:
    done = faceteval(data_dir, *args, "--out", tmp_path / "refused")
    assert done.returncode == status, done.stdout + done.stderr
    assert message in " ".join(done.stderr.split())
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "refused" / "summary.json").exists()


def test_a_method_run_is_refused_ppi_from_python(data_dir: Path, tmp_path: Path) -> None:
    llm = LLM(ScriptedProvider(lambda request: "1"), ModelSpec("scripted", "j"))
    with pytest.raises(ConfigError, match="not on a method's run"):
        meta_evaluate(
            "llmbar-natural", Direct(), llm, out=tmp_path / "x", data_dir=data_dir,
            options=MetaEvalOptions(ppi=PpiSettings(labels=5)),
        )  # fmt: skip
    assert not (tmp_path / "x").exists()


def test_labels_replace_the_benchmark_s_by_id(data_dir: Path, tmp_path: Path) -> None:
    # every llmbar-natural pair relabelled with GPT-4's own recorded verdict: agreement becomes 100%
    target = load_target("llmbar-natural", data_dir)
    recorded = tmp_path / "natural"
    done = faceteval(
        data_dir, "llmbar-natural", "--judgments", "recorded:llmbar/GPT-4/Vanilla", "--resamples", "0",
        "--no-report", "--out", recorded,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert summary_of(recorded)["agreement"]["value"] == pytest.approx(0.93)
    verdicts = {
        row["id"]: row["verdict"]
        for row in map(json.loads, (recorded / "judgments.jsonl").read_text(encoding="utf-8").splitlines())
    }
    labels = tmp_path / "labels.jsonl"
    rows = [{"id": i.id, "label": verdicts[i.id], "annotators": ["kim"]} for i in target.instances]
    labels.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    out = tmp_path / "relabelled"
    done = faceteval(
        data_dir, "llmbar-natural", "--judgments", "recorded:llmbar/GPT-4/Vanilla", "--labels", labels,
        "--resamples", "0", "--no-report", "--out", out,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert summary_of(out)["agreement"]["value"] == 1.0
    written = [
        json.loads(line) for line in (out / "instances.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert {row["id"]: row["label"] for row in written} == verdicts
    options = json.loads((out / "summary.json").read_text(encoding="utf-8"))["options"]
    assert options["labels"] == str(labels)


def test_labels_of_a_few_ids_leave_the_others(data_dir: Path, tmp_path: Path) -> None:
    labels = tmp_path / "two.jsonl"
    labels.write_text(
        '{"id": "llmbar-natural:1", "label": 2}\n{"id": "llmbar-natural:2", "label": 2}\n', encoding="utf-8"
    )
    target = load_target("llmbar-natural", data_dir)
    out = tmp_path / "two"
    options = MetaEvalOptions(resamples=0, report=False, labels=labels)
    meta_evaluate("llmbar-natural", judgments="recorded:llmbar/GPT-4/Vanilla", out=out, options=options,
                  data_dir=data_dir)  # fmt: skip
    written = {
        row["id"]: row["label"]
        for row in map(json.loads, (out / "instances.jsonl").read_text(encoding="utf-8").splitlines())
    }
    own = {i.id: i.label for i in target.instances}
    assert own["llmbar-natural:1"] == own["llmbar-natural:2"] == 1
    expected = own | {"llmbar-natural:1": 2, "llmbar-natural:2": 2}
    assert written == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"id": "nobody", "label": 1}\n', "1 id is not among llmbar-natural's instances: 'nobody'"),
        ('{"id": "llmbar-natural:1", "scores": {"overall": 3}}\n', "has scores; llmbar-natural is pairwise"),
        ('{"id": "llmbar-natural:1", "label": 3}\n', "is labelled 3, but it has 2 candidates"),
        ('{"id": "llmbar-natural:1"}\n', "bad.jsonl:1: field 'label'"),
    ],
)
def test_labels_that_do_not_fit_are_refused(data_dir: Path, tmp_path: Path, text: str, message: str) -> None:
    labels = tmp_path / "bad.jsonl"
    labels.write_text(text, encoding="utf-8")
    done = faceteval(
        data_dir, "llmbar-natural", "--judgments", "recorded:llmbar/GPT-4/Vanilla", "--labels", labels,
        "--out", tmp_path / "refused",
    )  # fmt: skip
    assert done.returncode != 0
    assert message in " ".join(done.stderr.split()), done.stderr
    assert str(labels) in " ".join(done.stderr.split())
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "refused" / "summary.json").exists()
