"""`faceteval calibrate` and `judge --calibration` end to end, over HTTP, against a local server: a
threshold chosen on labelled judgments keeps the verdicts it guarantees and abstains on the rest."""

from __future__ import annotations

import html
import json
import re
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from scipy.stats import beta

from faceteval import LLM, JudgeOptions, create_method, judge, read_instances
from faceteval._cli._app import cli
from faceteval.errors import ConfigError, InputError
from faceteval.results import read_calibration
from tests.support.files import read_jsonl
from tests.support.llm_server import LLMServer
from tests.support.rule_judge import RuleJudge
from tests.support.view_runs import view


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, list(map(str, args)), catch_exceptions=False)


def write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def labelled(clear: int, close: int, *, prefix: str = "") -> list[dict[str, Any]]:
    """``clear`` pairs far apart in quality, labelled as the judge will see them; ``close`` pairs near
    in quality, every other one labelled against the judge (people disagree where the judge is unsure)."""
    rows = [
        {"id": f"{prefix}clear{k}", "query": f"q{k}", "candidates": ["good", "poor"], "label": 1}
        for k in range(clear)
    ]
    rows += [
        {"id": f"{prefix}close{k}", "query": f"r{k}", "candidates": ["good", "fair"], "label": 1 + k % 2}
        for k in range(close)
    ]
    return rows


@pytest.fixture
def server():  # type: ignore[no-untyped-def]
    with LLMServer(RuleJudge(quality={"good": 9, "fair": 7, "poor": 2}).for_server()) as running:
        yield running


def judged(tmp_path: Path, server: LLMServer, rows: list[dict[str, Any]], name: str, *extra: str) -> Result:
    source = write(tmp_path / f"{name}.input.jsonl", rows)
    return run(
        "judge", source, "--method", "direct", "--model", "openai:judge", "--base-url", server.base_url,
        "--out", tmp_path / f"{name}.jsonl", "--cache", tmp_path / "cache.sqlite", *extra,
    )  # fmt: skip


def test_a_threshold_is_calibrated_and_new_verdicts_below_it_abstain(
    tmp_path: Path, server: LLMServer
) -> None:
    assert judged(tmp_path, server, labelled(40, 40), "cal").exit_code == 0
    made = run("calibrate", tmp_path / "cal.jsonl", "--target-agreement", "0.9", "--delta", "0.1", "--out",
               tmp_path / "cal.json")  # fmt: skip
    assert made.exit_code == 0, made.output
    calibration = read_calibration(tmp_path / "cal.json")
    confidences = {j["id"]: j["confidence"] for j in read_jsonl(tmp_path / "cal.jsonl")}
    # the clear pairs are the more confident, all agree: 40 of 40 has a lower bound of 0.1 ** (1 / 40) >= 0.9;
    # with the close ones (60 of 80 agree) the bound falls below the target, so the sequence stops there
    assert calibration.threshold == confidences["clear0"] > confidences["close0"]
    assert (calibration.kept, calibration.agreement) == (40, 1.0)
    assert calibration.lower_bound == pytest.approx(beta.ppf(0.1, 40, 1))
    assert calibration.judge.model == "openai:judge" and calibration.judge.method == "direct"
    assert calibration.judge.estimator == "signals" and calibration.data.n == 80

    new = labelled(3, 2, prefix="new-")
    result = judged(tmp_path, server, new, "new", "--calibration", tmp_path / "cal.json")
    assert result.exit_code == 0, result.output
    judgments = {j["id"]: j for j in read_jsonl(tmp_path / "new.jsonl")}
    assert [judgments[f"new-clear{k}"]["status"] for k in range(3)] == ["ok"] * 3
    for k in range(2):
        abstained = judgments[f"new-close{k}"]
        assert abstained["status"] == "abstained" and abstained["verdict"] is None
        assert (
            abstained["confidence"] < calibration.threshold
            and "below the calibrated threshold" in abstained["error"]
        )
    assert "3 ok, 2 abstained" in result.output and "agree with humans at least 90%" in result.output
    record = json.loads((tmp_path / "new.run.json").read_text())
    assert record["options"]["calibration"]["threshold"] == calibration.threshold
    assert record["options"]["calibration"]["data_sha256"] == calibration.data.sha256
    summary = record["summary"]
    assert summary["judgments"] == {"ok": 3, "abstained": 2}
    assert summary["result"]["statuses"] == {"abstained": 2, "ok": 3} and summary["result"]["failures"] == {}
    assert (
        sum(s["wins"] + s["losses"] + s["ties"] for s in summary["result"]["pairwise"]["positions"]) == 3 * 2
    )


def test_python_runs_take_the_calibration_too(tmp_path: Path, server: LLMServer) -> None:
    judged(tmp_path, server, labelled(40, 40), "cal")
    run("calibrate", tmp_path / "cal.jsonl", "--target-agreement", "0.9", "--out", tmp_path / "cal.json")
    instances = read_instances(write(tmp_path / "py.jsonl", labelled(1, 1, prefix="py-")))
    llm = LLM.from_spec("openai:judge", base_url=server.base_url)
    found = judge(
        instances, create_method("direct"), llm, options=JudgeOptions(calibration=tmp_path / "cal.json")
    )
    assert [j.status for j in found] == ["ok", "abstained"]


def test_a_calibration_for_another_judge_is_refused_before_any_call(
    tmp_path: Path, server: LLMServer
) -> None:
    judged(tmp_path, server, labelled(40, 40), "cal")
    run("calibrate", tmp_path / "cal.jsonl", "--target-agreement", "0.9", "--out", tmp_path / "cal.json")
    served = len(server.requests)
    for flags, differs in (
        (["--swap"], "options.swap"),
        (["--model", "openai:other"], "model"),
        (["--method", "cot"], "method"),
        (["--score-mode", "logprobs", "--confidence", "verdict-logprobs"], "estimator"),
        (["--confidence", "simulated-annotators", "--annotators", "3"], "estimator"),
    ):
        source = write(tmp_path / "other.jsonl", labelled(1, 0))
        base = ["--method", "direct", "--model", "openai:judge"]
        result = run(
            "judge", source, *base, *flags, "--base-url", server.base_url,
            "--calibration", tmp_path / "cal.json", "--out", tmp_path / "other.out.jsonl",
        )  # fmt: skip
        assert result.exit_code == 1, result.output
        assert "calibrated for another judge" in result.output and differs in result.output
    assert len(server.requests) == served


@pytest.mark.parametrize(
    ("content", "field"),
    [
        ('{"kind": "something-else"}', "kind"),
        ('{"kind": "faceteval-calibration", "schema_version": 99}', "schema_version"),
        ('{"kind": "faceteval-calibration", "schema_version": 1, "threshold": 0.5}', "target_agreement"),
        ("not json", None),
    ],
)
def test_a_bad_calibration_file_is_named_with_its_field(
    tmp_path: Path, content: str, field: str | None
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(InputError) as caught:
        JudgeOptions(calibration=path)
    assert str(path) in str(caught.value) and (field is None or field in str(caught.value))


def test_calibrating_needs_labels_and_keeps_a_threshold_that_cannot_be_met_honest(
    tmp_path: Path, server: LLMServer
) -> None:
    unlabelled = [{k: v for k, v in row.items() if k != "label"} for row in labelled(2, 0)]
    judged(tmp_path, server, unlabelled, "none")
    result = run(
        "calibrate", tmp_path / "none.jsonl", "--target-agreement", "0.9", "--out", tmp_path / "c.json"
    )
    assert result.exit_code == 1 and "human label" in result.output
    # ten agreeing verdicts cannot show 99% agreement at delta 0.1: no threshold, every verdict abstains
    judged(tmp_path, server, labelled(10, 0), "few")
    result = run(
        "calibrate", tmp_path / "few.jsonl", "--target-agreement", "0.99", "--out", tmp_path / "c.json"
    )
    assert result.exit_code == 0 and "every verdict is abstained" in result.output
    assert read_calibration(tmp_path / "c.json").threshold is None
    again = judged(tmp_path, server, labelled(1, 0, prefix="x"), "few2", "--calibration", tmp_path / "c.json")
    assert read_jsonl(tmp_path / "few2.jsonl")[0]["status"] == "abstained", again.output


def test_labels_from_a_file_replace_the_instances_own(tmp_path: Path, server: LLMServer) -> None:
    judged(tmp_path, server, labelled(12, 0), "own")
    flipped = write(tmp_path / "labels.jsonl", [{"id": f"clear{k}", "label": 2} for k in range(12)])
    result = run("calibrate", tmp_path / "own.jsonl", "--target-agreement", "0.5", "--labels", flipped,
                 "--out", tmp_path / "c.json")  # fmt: skip
    assert result.exit_code == 0, result.output
    calibration = read_calibration(tmp_path / "c.json")
    assert calibration.threshold is None and calibration.data.n == 12
    bad = write(tmp_path / "bad-labels.jsonl", [{"id": "a", "label": "first"}])
    result = run("calibrate", tmp_path / "own.jsonl", "--target-agreement", "0.5", "--labels", bad, "--out",
                 tmp_path / "c2.json")  # fmt: skip
    assert result.exit_code == 1 and "bad-labels.jsonl" in result.output and "label" in result.output


def test_labels_a_review_queue_chose_by_doubt_are_set_aside(tmp_path: Path, server: LLMServer) -> None:
    judged(tmp_path, server, labelled(12, 0), "own")
    rows = [
        {"id": f"clear{k}", "label": 2, "sampling": "uncertainty" if k < 4 else "random"} for k in range(12)
    ]
    result = run("calibrate", tmp_path / "own.jsonl", "--target-agreement", "0.5",
                 "--labels", write(tmp_path / "queue.jsonl", rows), "--out", tmp_path / "c.json")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "4 labels chosen where the judge was least sure set aside" in result.output
    assert read_calibration(tmp_path / "c.json").data.n == 8
    chosen = [{"id": "clear0", "label": 1, "sampling": "disagreement"}]
    only = write(tmp_path / "only.jsonl", chosen)
    result = run("calibrate", tmp_path / "own.jsonl", "--target-agreement", "0.5",
                 "--labels", only, "--out", tmp_path / "c2.json")  # fmt: skip
    assert result.exit_code == 1 and "no pairwise label drawn at random" in result.output


def test_a_calibration_is_refused_for_a_judge_in_python_too(tmp_path: Path, server: LLMServer) -> None:
    judged(tmp_path, server, labelled(40, 40), "cal")
    run("calibrate", tmp_path / "cal.jsonl", "--target-agreement", "0.9", "--out", tmp_path / "cal.json")
    instances = read_instances(write(tmp_path / "py.jsonl", labelled(1, 0)))
    llm = LLM.from_spec("openai:judge", base_url=server.base_url)
    with pytest.raises(ConfigError, match="calibrated for another judge"):
        judge(instances, create_method("cot"), llm, options=JudgeOptions(calibration=tmp_path / "cal.json"))


def test_the_report_states_the_guarantee_and_draws_the_coverage_curve(
    tmp_path: Path, server: LLMServer
) -> None:
    judged(tmp_path, server, labelled(40, 40), "cal")
    run("calibrate", tmp_path / "cal.jsonl", "--target-agreement", "0.9", "--out", tmp_path / "cal.json")
    judged(tmp_path, server, labelled(3, 2, prefix="new-"), "new", "--calibration", tmp_path / "cal.json")
    made = run("report", tmp_path / "new.jsonl")
    assert made.exit_code == 0, made.output
    markdown = (tmp_path / "new.report.md").read_text()
    assert "## Selective judging" in markdown
    assert "agree with humans at least 90% of the time, with probability at least 90%" in markdown
    assert (
        "2 of 5 verdicts are abstained" in markdown
        and "| Abstained (below the calibrated threshold) | 2 |" in markdown
    )
    html = (tmp_path / "new.report.html").read_text()
    assert 'alt="Agreement with humans on the verdicts kept, at each coverage"' in html
    curve = json.loads((tmp_path / "new.run.json").read_text())["options"]["calibration"]["curve"]
    assert [round(p["coverage"], 3) for p in curve] == [0.5, 1.0]  # the clear pairs, then all
    assert [p["agreement"] for p in curve] == [1.0, 0.75]


def test_the_viewer_shows_the_abstentions_and_the_guarantee(tmp_path: Path, server: LLMServer) -> None:
    judged(tmp_path, server, labelled(40, 40), "cal")
    run("calibrate", tmp_path / "cal.jsonl", "--target-agreement", "0.9", "--out", tmp_path / "cal.json")
    judged(tmp_path, server, labelled(3, 2, prefix="new-"), "new", "--calibration", tmp_path / "cal.json")
    (tmp_path / "cal.jsonl").unlink()  # one run to list
    (tmp_path / "cal.run.json").unlink()
    with view(tmp_path / "new.jsonl", index_dir=tmp_path / "index") as base:
        listing = urllib.request.urlopen(base + "/", timeout=60).read().decode()
        link = re.search(r'href="(/run/[0-9a-f]+)"', listing)
        assert link is not None
        page = html.unescape(urllib.request.urlopen(base + link[1], timeout=60).read().decode())
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))
    assert "2 abstained (below the calibrated threshold" in text
    assert "Selective judging" in text and "agree with humans at least 90% of the time" in text


def test_a_run_whose_every_verdict_abstains_is_written_in_place_of_the_earlier(
    tmp_path: Path, server: LLMServer
) -> None:
    judged(tmp_path, server, labelled(10, 0), "few")
    run("calibrate", tmp_path / "few.jsonl", "--target-agreement", "0.99", "--out", tmp_path / "c.json")
    assert judged(tmp_path, server, labelled(2, 0, prefix="x"), "out").exit_code == 0  # without the threshold
    assert {j["status"] for j in read_jsonl(tmp_path / "out.jsonl")} == {"ok"}
    again = judged(tmp_path, server, labelled(2, 0, prefix="x"), "out", "--calibration", tmp_path / "c.json")
    assert again.exit_code == 0, again.output
    assert {j["status"] for j in read_jsonl(tmp_path / "out.jsonl")} == {"abstained"}
