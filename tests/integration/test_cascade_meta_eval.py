"""``meta-eval --confidence strategies`` and ``--cascade`` on the real recorded judges: the summary's
cascade block, the report's section, the strategies confidence checked against LLMBar's files, and
the flag combinations refused (a real process of the command: its exit status and message)."""

from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from faceteval import MetaEvalOptions, meta_evaluate
from faceteval.errors import ConfigError
from faceteval.metaeval import CascadeSettings, read_summary
from faceteval.report._cascade import cascade
from faceteval.report.internal import summary_view

NATURAL_JUDGES = "recorded:llmbar/ChatGPT/Vanilla,recorded:llmbar/GPT-4/Vanilla"
KEYS = (
    "target_agreement",
    "delta",
    "splits",
    "violation_rate",
    "coverage",
    "agreement",
    "judges",
    "relative_cost",
)


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


def judgments_of(out: Path) -> dict[str, dict[str, Any]]:
    lines = (out / "judgments.jsonl").read_text(encoding="utf-8").splitlines()
    return {record["id"]: record for record in map(json.loads, lines)}


@pytest.fixture(scope="module")
def natural_cascade(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cascade") / "natural"
    done = faceteval(
        data_dir, "llmbar-natural", "--judgments", NATURAL_JUDGES, "--cascade", "--confidence", "strategies",
        "--splits", "20", "--seed", "4", "--resamples", "0", "--out", out,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out


def test_the_strategies_confidence_is_the_share_of_gpt4s_strategies_agreeing(natural_cascade: Path) -> None:
    # llmbar-natural:24 (dataset.json record 24): GPT-4's Vanilla says 2 in both orders; over the 15
    # evaluators/GPT-4/*/result.json records 24, the last verdict dict's two winners are "2" 19 times
    # and "1" 11 times (counted by hand from the files)
    judged = judgments_of(natural_cascade)["llmbar-natural:24"]
    assert judged["verdict"] == 2
    assert judged["confidence"] == pytest.approx(19 / 30)
    assert judged["confidence_estimator"] == "strategies"
    # every ok verdict of the run now has a strategies confidence, within [0, 1]
    ok = [j for j in judgments_of(natural_cascade).values() if j["status"] == "ok"]
    assert all(j["confidence_estimator"] == "strategies" and 0 <= j["confidence"] <= 1 for j in ok)


def test_the_selective_accuracy_reads_the_strategies_confidence(data_dir: Path, tmp_path: Path) -> None:
    runs = {}
    for confidence in ("signals", "strategies"):
        out = tmp_path / confidence
        done = faceteval(
            data_dir, "llmbar-natural", "--judgments", "recorded:llmbar/GPT-4/Vanilla", "--confidence",
            confidence, "--resamples", "0", "--no-report", "--out", out,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        runs[confidence] = summary_of(out)["selective_accuracy"]
    # signals: only the orders' agreement (0 or 1); strategies: shares of 30 votes
    assert runs["signals"]["mean_confidence"] != runs["strategies"]["mean_confidence"]
    confidences = [
        j["confidence"] for j in judgments_of(tmp_path / "strategies").values() if "confidence" in j
    ]
    assert runs["strategies"]["mean_confidence"] == pytest.approx(statistics.fmean(confidences))


def test_the_cascade_block_has_the_documented_keys_and_meaning(natural_cascade: Path) -> None:
    block = summary_of(natural_cascade)["cascade"]
    assert all(key in block for key in KEYS)
    assert (block["target_agreement"], block["delta"], block["splits"]) == (0.9, 0.1, 20)
    assert (block["calibration_size"], block["test_size"], block["confidence"]) == (50, 50, "strategies")
    splits = block["per_split"]
    assert len(splits) == 20
    assert block["violation_rate"] == sum(s["violated"] for s in splits) / 20
    assert block["coverage"] == pytest.approx(statistics.fmean(s["coverage"] for s in splits))
    kept = [s["agreement"] for s in splits if s["agreement"] is not None]
    assert block["agreement"] == pytest.approx(statistics.fmean(kept))
    assert [j["judge"] for j in block["judges"]] == NATURAL_JUDGES.split(",")
    assert math.fsum(j["share_decided"] for j in block["judges"]) == pytest.approx(1.0)
    assert math.fsum(j["coverage"] for j in block["judges"]) == pytest.approx(block["coverage"])
    for k, judge in enumerate(block["judges"]):
        ranked = sorted(math.inf if s["thresholds"][k] is None else s["thresholds"][k] for s in splits)
        assert judge["threshold"] == (None if math.isinf(ranked[9]) else ranked[9])  # the lower median
    # no usage is recorded: each judge asked costs one; ChatGPT is asked for every instance
    assert block["cost_basis"] == "judgments"
    gpt4_asked = [1 - s["decided"][NATURAL_JUDGES.split(",")[0]] / 50 for s in splits]
    assert block["relative_cost"] == pytest.approx(1 + statistics.fmean(gpt4_asked))
    # the run measures the last judge alone, as a run of it without --cascade does
    assert summary_of(natural_cascade)["judge"] == "recorded:llmbar/GPT-4/Vanilla"


def test_the_report_and_the_terminal_show_the_cascade(data_dir: Path, natural_cascade: Path) -> None:
    report = (natural_cascade / "report.md").read_text(encoding="utf-8")
    assert "## Cascade" in report and "| recorded:llmbar/ChatGPT/Vanilla |" in report
    assert 'id="cascade"' in (natural_cascade / "report.html").read_text(encoding="utf-8")


def test_one_judge_is_a_cascade_of_one(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "one"
    done = faceteval(
        data_dir, "pandalm", "--judgments", "recorded:pandalm-7b", "--cascade", "--splits", "5",
        "--resamples", "0", "--no-report", "--out", out,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "cascade: agreement >= 0.9" in done.stdout
    block = summary_of(out)["cascade"]
    assert [j["judge"] for j in block["judges"]] == ["recorded:pandalm-7b"]
    assert block["relative_cost"] == 1.0 and block["confidence"] == "signals"


@pytest.mark.parametrize(
    ("args", "status", "message"),
    [
        (("llmbar-natural", "--judgments", NATURAL_JUDGES, "--cascade", "--panel-vote", "majority"), 2,
         "--panel-vote combines them as a panel"),
        (("llmbar-natural", "--judgments", "recorded:llmbar/GPT-4/Vanilla", "--splits", "5"), 2,
         "--splits applies with --cascade only"),
        (("llmbar-natural", "--judgments", "recorded:llmbar/GPT-4/Vanilla", "--delta", "0.2",
          "--target-agreement", "0.8"), 2, "apply with --cascade only"),
        (("llmbar-natural", "--method", "direct", "--model", "fake:x", "--confidence", "strategies"), 2,
         "not a --method run"),
        (("llmbar-natural", "--judgments", "recorded:llmbar/GPT-4/Vanilla", "--cascade", "--delta", "1"), 2,
         "--delta"),
        (("mtbench-human", "--judgments", "recorded:gpt4-pair", "--confidence", "strategies"), 1,
         "gpt4-pair has no other prompting strategy recorded on mtbench-human"),
        (("llmbar-natural", "--judgments", NATURAL_JUDGES, "--confidence", "strategies"), 1, "not a panel's"),
        (("llmbar-natural", "--judgments", NATURAL_JUDGES, "--cascade", "--judge-costs", "1"), 1,
         "one positive cost per judge of the cascade (2)"),
        (("llmbar-natural", "--judgments", NATURAL_JUDGES, "--cascade", "--judge-costs", "1,nan"), 2,
         "each cost is a finite number above 0"),
        (("llmbar-natural", "--judgments", NATURAL_JUDGES, "--cascade", "--judge-costs", "1,0"), 2,
         "each cost is a finite number above 0"),
        (("llmbar-natural", "--judgments", NATURAL_JUDGES, "--cascade", "--target-agreement", "nan"), 2,
         "'nan' is not a finite number"),
    ],
)  # fmt: skip
def test_combinations_that_cannot_be_measured_are_refused(
    data_dir: Path, tmp_path: Path, args: tuple[str, ...], status: int, message: str
) -> None:
    done = faceteval(data_dir, *args, "--out", tmp_path / "refused")
    assert done.returncode == status, done.stdout + done.stderr
    assert message in " ".join(done.stderr.split())
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "refused" / "summary.json").exists()


def test_given_costs_weigh_the_judges(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "costs"
    done = faceteval(
        data_dir, "llmbar-adversarial", "--judgments", NATURAL_JUDGES, "--cascade", "--judge-costs", "1,20",
        "--splits", "5", "--resamples", "0", "--no-report", "--out", out,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    block = summary_of(out)["cascade"]
    assert block["cost_basis"] == "given"
    first = NATURAL_JUDGES.split(",")[0]
    expected = [(1 + 20 * (1 - s["decided"][first] / block["test_size"])) / 20 for s in block["per_split"]]
    assert block["relative_cost"] == pytest.approx(statistics.fmean(expected))


def test_the_python_api_records_the_cascade_and_its_options(data_dir: Path, tmp_path: Path) -> None:
    settings = CascadeSettings(target_agreement=0.8, delta=0.2, splits=3, seed=2)
    options = MetaEvalOptions(resamples=0, report=False, confidence="strategies", cascade=settings)
    summary = meta_evaluate(
        "llmbar-natural", judgments=NATURAL_JUDGES, out=tmp_path / "api", options=options, data_dir=data_dir
    )
    assert summary.cascade is not None and summary.cascade["splits"] == 3
    record = read_summary(tmp_path / "api")
    assert record.options["confidence"] == "strategies"
    assert record.options["cascade"] == {
        "target_agreement": 0.8, "delta": 0.2, "splits": 3, "seed": 2, "judge_costs": None,
    }  # fmt: skip
    with pytest.raises(ConfigError, match="of recorded judges"):
        meta_evaluate(
            "llmbar-natural", judgments=[], out=tmp_path / "list", options=options, data_dir=data_dir
        )


def test_a_record_written_before_cascades_reads_and_reports_without_one(tmp_path: Path) -> None:
    fixtures = Path(__file__).parents[1] / "fixtures" / "records" / "v1" / "meta-eval"
    runs = [path.parent for path in fixtures.rglob("summary.json")]
    assert runs
    for run in runs:
        view = summary_view(read_summary(run))
        assert "cascade" not in view
        assert cascade(view) is None


def test_on_adversarial_pairs_chatgpt_is_never_trusted_and_the_guarantee_holds(
    data_dir: Path, tmp_path: Path, natural_cascade: Path
) -> None:
    out = tmp_path / "adversarial"
    done = faceteval(
        data_dir, "llmbar-adversarial", "--judgments", NATURAL_JUDGES, "--cascade", "--confidence",
        "strategies", "--splits", "200", "--seed", "0", "--resamples", "0", "--no-report", "--out", out,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    block = summary_of(out)["cascade"]
    chatgpt, gpt4 = block["judges"]
    assert gpt4["share_decided"] == 1.0
    # ChatGPT's most confident adversarial verdicts are mostly wrong: no threshold passes the bound
    assert chatgpt["no_threshold"] == 200 and chatgpt["share_decided"] == 0
    assert block["violation_rate"] <= block["delta"]
    assert block["coverage"] < summary_of(natural_cascade)["cascade"]["coverage"] - 0.2


@pytest.mark.parametrize("strategy", ["Vanilla", "CoT"])
def test_over_200_splits_the_target_is_missed_at_most_delta_of_the_time(
    data_dir: Path, tmp_path: Path, strategy: str
) -> None:
    """The documented measurement (seed 0, 200 calibration/test halvings of LLMBar-Natural)."""
    judges = f"recorded:llmbar/ChatGPT/{strategy},recorded:llmbar/GPT-4/{strategy}"
    done = faceteval(
        data_dir, "llmbar-natural", "--judgments", judges, "--cascade", "--confidence", "strategies",
        "--splits", "200", "--seed", "0", "--resamples", "0", "--no-report", "--out", tmp_path / "run",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    block = summary_of(tmp_path / "run")["cascade"]
    assert block["splits"] == 200 and block["violation_rate"] <= block["delta"]
    # ChatGPT decides a part of the kept verdicts: its thresholds pass where enough of its verdicts agree
    assert 0 < block["judges"][0]["share_decided"] < 0.5
