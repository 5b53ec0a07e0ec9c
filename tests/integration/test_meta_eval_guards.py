"""meta-eval and compare refuse what would mislead, and never leave a run directory describing two runs."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from faceteval._cli._app import cli
from faceteval.report import render_comparison
from tests.integration.test_meta_eval import (
    MAPPING,
    labelled_pairs,
    local,
    meta_eval,
    pointwise_labels,
    record_of,
    scored_judgments,
    summary_of,
)
from tests.support.files import sqlite_database
from tests.support.llm_server import LLMServer, Status
from tests.support.rule_judge import RuleJudge


@pytest.fixture(scope="module")
def data_dir() -> Path:
    return Path(os.environ["FACETEVAL_DATA_DIR"])


@pytest.fixture
def server() -> Iterator[LLMServer]:
    with LLMServer(RuleJudge(quality={"good": 8, "poor": 3}).for_server()) as running:
        yield running


def lines(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def flat(text: str) -> str:
    return " ".join(text.split())


def three_candidates(tmp_path: Path, verdicts: list[int]) -> tuple[Path, Path]:
    labels = lines(
        tmp_path / "three.jsonl",
        [
            {"id": f"t{i}", "query": "Pick the best", "candidates": ["a", "b", "c"], "label": label}
            for i, label in enumerate((3, 1, 2))
        ],
    )
    judged = lines(
        tmp_path / "three_j.jsonl",
        [{"id": f"t{i}", "method": "m", "status": "ok", "verdict": v} for i, v in enumerate(verdicts)],
    )
    return labels, judged


def test_three_candidates_are_measured_and_a_verdict_past_them_is_named(
    data_dir: Path, tmp_path: Path
) -> None:
    labels, judged = three_candidates(tmp_path, [3, 1, 1])
    result = meta_eval(data_dir, labels, "--judgments", judged, "--out", tmp_path / "ok")
    assert result.exit_code == 0, result.output
    summary = summary_of(tmp_path / "ok")
    assert summary["agreement"]["hits"] == 2 and summary["agreement"]["n"] == 3
    assert summary["confusion"]["3"]["3"] == 1 and summary["confusion"]["2"]["1"] == 1

    _, wrong = three_candidates(tmp_path, [3, 7, 1])
    result = meta_eval(data_dir, labels, "--judgments", wrong, "--out", tmp_path / "bad")
    assert result.exit_code == 1
    assert (
        f"{wrong}: judgment 't1': field 'verdict': 7 is not a candidate of the instance, which has 3 "
        "(a verdict is 1-3, or 0 for a tie)" in flat(result.output)
    )
    assert not (tmp_path / "bad" / "summary.json").exists()


def test_empty_and_repeated_judgments_are_errors_naming_the_file(data_dir: Path, tmp_path: Path) -> None:
    labels = labelled_pairs(tmp_path, n=2)
    empty = lines(tmp_path / "empty.jsonl", [])
    result = meta_eval(data_dir, labels, "--judgments", empty, *MAPPING, "--out", tmp_path / "o")
    assert result.exit_code == 1 and f"{empty}: no judgments" in flat(result.output)
    twice = lines(tmp_path / "twice.jsonl", [{"id": "p0", "method": "m", "status": "ok", "verdict": 1}] * 2)
    result = meta_eval(data_dir, labels, "--judgments", twice, *MAPPING, "--out", tmp_path / "o")
    assert result.exit_code == 1 and f"{twice}: judgment id 'p0' appears twice" in flat(result.output)


def test_judging_options_with_recorded_judgments_are_a_usage_error(data_dir: Path, tmp_path: Path) -> None:
    labels = labelled_pairs(tmp_path, n=2)
    args = [labels, "--judgments", labels, *MAPPING, "--out", tmp_path / "o"]
    result = meta_eval(data_dir, *args, "--swap", "--model", "openai:x", "--seeds", "0,1", "--dry-run")
    assert result.exit_code == 2
    assert (
        "--seeds, --model, --swap, --dry-run judge with --method; --judgments measures the given "
        "judgments as they are" in flat(result.output)
    )
    assert not (tmp_path / "o").exists()
    builtin = meta_eval(
        data_dir,
        "llmbar-natural",
        "--judgments",
        "recorded:llmbar/GPT-4/Vanilla",
        "--field",
        "id=qid",
        "--out",
        tmp_path / "b",
    )
    assert builtin.exit_code == 2 and "llmbar-natural is a built-in benchmark" in flat(builtin.output)


def test_a_run_never_overwrites_its_own_inputs(data_dir: Path, tmp_path: Path) -> None:
    labels = labelled_pairs(tmp_path, n=4)
    judged = lines(
        tmp_path / "j.jsonl",
        [{"id": f"p{i}", "method": "m", "status": "ok", "verdict": 1 + i % 2} for i in range(4)],
    )
    run = tmp_path / "run"
    assert meta_eval(data_dir, labels, "--judgments", judged, *MAPPING, "--out", run).exit_code == 0
    before = (run / "judgments.jsonl").read_bytes()
    into_itself = meta_eval(data_dir, labels, "--judgments", run, *MAPPING, "--limit", "2", "--out", run)
    assert into_itself.exit_code == 2 and "would overwrite the input" in flat(into_itself.output)
    assert (run / "judgments.jsonl").read_bytes() == before

    own = tmp_path / "mine"
    own.mkdir()
    named_like_ours = own / "instances.jsonl"
    named_like_ours.write_bytes(labels.read_bytes())
    result = meta_eval(data_dir, named_like_ours, "--judgments", judged, *MAPPING, "--out", own)
    assert result.exit_code == 2 and f"would overwrite the input {named_like_ours}" in flat(result.output)
    assert named_like_ours.read_bytes() == labels.read_bytes()


def test_a_dry_run_or_a_bad_model_leaves_the_run_directory_as_it_was(data_dir: Path, tmp_path: Path) -> None:
    labels = labelled_pairs(tmp_path, n=4)
    out = tmp_path / "run"
    out.mkdir()
    earlier = '{"id": "earlier", "query": "q", "candidates": ["a", "b"]}\n'  # an earlier run's files
    (out / "instances.jsonl").write_text(earlier)
    (out / "summary.json").write_text('{"schema_version": 1}\n')
    plan = meta_eval(
        data_dir, labels, "--method", "dna", *MAPPING, "--model", "openai:x", "--dry-run", "--out", out
    )
    assert plan.exit_code == 0, plan.output
    assert "Dry run" in plan.output and "4 instances" in flat(plan.output)
    assert "labels.jsonl (all 4 instances)" in flat(plan.output)  # what is judged, not a scratch file
    assert "instances.jsonl" not in plan.output
    dry_sample = ("--method", "dna", *MAPPING, "--model", "openai:x", "--dry-run", "--limit", "2")
    sample = meta_eval(data_dir, labels, *dry_sample, "--out", out)
    assert sample.exit_code == 0 and "labels.jsonl (2 of 4 instances)" in flat(sample.output)
    unknown = meta_eval(data_dir, labels, "--method", "dna", *MAPPING, "--model", "foo:bar", "--out", out)
    assert unknown.exit_code == 1 and "unknown provider 'foo'" in unknown.output
    assert (out / "instances.jsonl").read_text() == earlier
    assert (out / "summary.json").read_text() == '{"schema_version": 1}\n'


def test_a_run_that_judges_nothing_leaves_the_directory_and_one_stopped_midway_no_earlier_summary(
    data_dir: Path,
    tmp_path: Path,
    server: LLMServer,
) -> None:
    labels = labelled_pairs(tmp_path, n=12)  # a run stops after 10 failures in a row
    out = tmp_path / "run"
    base = [labels, "--method", "direct", *MAPPING, "-q", "--concurrency", "1"]
    args = [*base, "--out", out]
    assert meta_eval(data_dir, *args, *local(server, tmp_path)).exit_code == 0
    assert summary_of(out)["n"] == 12 and (out / "report.md").exists()
    earlier = {path.name: path.read_bytes() for path in out.iterdir()}
    dead = ["--model", "openai:judge", "--base-url", "http://127.0.0.1:9/v1", "--no-cache", "--retries", "0"]
    stopped = meta_eval(data_dir, *args, *dead)
    assert stopped.exit_code == 1
    assert {path.name: path.read_bytes() for path in out.iterdir()} == earlier  # nothing judged: as it was
    assert CliRunner().invoke(cli, ["report", str(out)]).exit_code == 0

    rule = RuleJudge(quality={"good": 8, "poor": 3})
    answered: list[int] = []

    def two_then_failing(body: dict[str, object]) -> object:
        answered.append(1)
        return rule.respond(body["messages"]) if len(answered) <= 2 else Status(500)  # type: ignore[arg-type]

    with LLMServer(two_then_failing) as failing:
        midway = ["--model", "openai:judge", "--base-url", failing.base_url, "--no-cache", "--retries", "0"]
        stopped = meta_eval(data_dir, *args, *midway, "--swap")  # (another job: nothing to reuse)
    assert stopped.exit_code == 1
    assert '"status":"ok"' in (out / "judgments.jsonl").read_text()  # two judged: put in place
    assert not (out / "summary.json").exists() and not (out / "report.md").exists()
    report = CliRunner().invoke(cli, ["report", str(out)])
    assert report.exit_code == 1 and "not a meta-evaluation run (no summary.json)" in flat(report.output)
    assert "error: no report written (see above)" in flat(report.output)
    finished = tmp_path / "finished"
    assert meta_eval(data_dir, *base, "--out", finished, *local(server, tmp_path)).exit_code == 0
    (finished / "report.md").unlink()
    both = CliRunner().invoke(cli, ["report", str(out), str(finished)])  # the broken one first
    assert both.exit_code == 1 and (finished / "report.md").exists()
    assert "1 of 2 runs has no report" in flat(both.output)


def test_sweeps_show_a_row_per_run_and_repeated_seeds_are_refused(
    data_dir: Path,
    tmp_path: Path,
    server: LLMServer,
) -> None:
    labels = labelled_pairs(tmp_path, n=4)
    base = [labels, "--method", "dna", *MAPPING, *local(server, tmp_path), "-q"]
    repeated = meta_eval(data_dir, *base, "--seeds", "0,0", "--out", tmp_path / "r")
    assert repeated.exit_code == 2 and "'0,0' repeats a value" in flat(repeated.output)
    swept = meta_eval(data_dir, *base, "--aspects", "1,2", "--no-report", "--out", tmp_path / "s")
    assert swept.exit_code == 0, swept.output
    for row in ("aspects-1", "aspects-2"):
        assert f"{row} │ 100.00% │ 4 / 4 │" in flat(swept.output)
    assert "(summary.json; each run in its own directory)" in flat(swept.output)
    assert not (tmp_path / "s" / "report.md").exists()


def test_compare_names_unjudged_instances_and_shows_both_correlations(data_dir: Path, tmp_path: Path) -> None:
    labels = pointwise_labels(tmp_path)
    human = [i % 5 + 1 for i in range(30)]
    good = scored_judgments(tmp_path / "good.jsonl", [float(h) for h in human])
    rows = [json.loads(line) for line in good.read_text().splitlines()]
    rows[0]["status"], rows[1]["status"] = "parse_error", "parse_error"
    partial = lines(tmp_path / "partial.jsonl", rows[:-3])
    printed = {}
    for judged in (good, partial):
        result = meta_eval(data_dir, labels, "--judgments", judged, "--out", tmp_path / judged.stem)
        assert result.exit_code == 0, result.output
        printed[judged.stem] = flat(result.output)
    assert "unjudged" not in summary_of(tmp_path / "good")
    assert summary_of(tmp_path / "partial")["unjudged"] == {"quality": 5}  # 2 parse errors, 3 missing
    assert "quality: 5 human-scored instances have no judge score" in printed["partial"]
    assert (
        "Left out for want of a judge score (failed or missing judgments): quality: 5."
        in (tmp_path / "partial" / "report.md").read_text()
    )
    runs = [str(tmp_path / "good"), str(tmp_path / "partial")]
    compared = CliRunner().invoke(
        cli, ["compare", *runs, "--resamples", "200", "--json", str(tmp_path / "c.json")]
    )
    assert compared.exit_code == 0, compared.output
    result = json.loads((tmp_path / "c.json").read_text())
    assert result["unjudged"] == {"a": 0, "b": 5}
    pearson = result["metrics"]["quality.pearson"]
    assert pearson["a"] == pytest.approx(1.0) and pearson["b"] == pytest.approx(1.0) and pearson["n"] == 25
    assert "B (" in compared.output and "has no usable judgment of 5 of the 30 instances" in flat(
        compared.output
    )
    no_test = CliRunner().invoke(cli, ["compare", *runs, "--resamples", "0"])
    assert no_test.exit_code == 1 and "give --resamples above 0" in flat(no_test.output)
    files = CliRunner().invoke(cli, ["compare", str(good), str(partial)])  # two judge runs' files
    assert files.exit_code == 2 and "Directory" not in files.output, files.output
    assert f"{good} is a file: compare takes two meta-eval run directories" in flat(files.output)
    told = flat(files.output).split("faceteval meta-eval ", 1)[1].split()  # the command it suggests
    again = meta_eval(data_dir, labels, *told[1:], "--resamples", "0")
    assert again.exit_code == 0, again.output


def test_recorded_judges_take_the_name_hdeval_takes_too(data_dir: Path, tmp_path: Path) -> None:
    args = ["coeval-eli5", "--limit", "20", "--resamples", "0", "--out"]
    short = meta_eval(data_dir, *args, tmp_path / "a", "--judgments", "recorded:chatgpt")
    long = meta_eval(data_dir, *args, tmp_path / "b", "--judgments", "recorded:coeval-chatgpt")
    assert short.exit_code == 0 and long.exit_code == 0, long.output
    assert summary_of(tmp_path / "a")["correlations"] == summary_of(tmp_path / "b")["correlations"]


def test_a_csv_label_written_as_a_float_is_read_and_a_boolean_verdict_is_not(
    data_dir: Path, tmp_path: Path
) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text("id,query,a,b,winner\nx,q?,one,two,2.0\ny,q?,one,two,1\n", encoding="utf-8")
    fields = ["--field", "candidates=a,b", "--field", "label=winner"]
    judged = lines(tmp_path / "j.jsonl", [{"id": "x", "method": "m", "status": "ok", "verdict": 2}])
    result = meta_eval(data_dir, labels, *fields, "--judgments", judged, "--out", tmp_path / "o")
    assert result.exit_code == 0, result.output
    assert summary_of(tmp_path / "o")["agreement"] | {"ci": None} == summary_of(tmp_path / "o")[
        "agreement"
    ] | {"value": 0.5, "hits": 1, "n": 2, "ci": None}
    boolean = lines(tmp_path / "b.jsonl", [{"id": "x", "method": "m", "status": "ok", "verdict": True}])
    result = meta_eval(data_dir, labels, *fields, "--judgments", boolean, "--out", tmp_path / "p")
    assert result.exit_code == 1
    assert f"{boolean}:1: field 'verdict'" in flat(result.output) and "not true or false" in result.output


def test_a_limited_sample_keeps_the_labels_shares_and_the_seed_moves_it(data_dir: Path) -> None:
    from collections import Counter

    from faceteval.metaeval import load_target, select

    target = load_target("autoj-pairwise", data_dir)
    share = Counter(i.label for i in target.instances)
    samples = [select(target.instances, limit=100, seed=seed) for seed in range(4)]
    for sample in samples:
        counts = Counter(i.label for i in sample)
        assert len(sample) == 100
        assert all(abs(counts[label] - 100 * n / len(target.instances)) < 1 for label, n in share.items())
    assert len({tuple(sorted(i.id for i in sample)) for sample in samples}) == 4
    assert len({tuple(sorted(Counter(i.category for i in s).items())) for s in samples}) > 1
    # Over many seeds, each (label, category) stratum is drawn as often as its size deserves.
    strata = Counter((i.label, i.category) for i in target.instances)
    drawn: Counter[tuple[object, object]] = Counter()
    seeds = 300
    for seed in range(seeds):
        drawn.update((i.label, i.category) for i in select(target.instances, limit=100, seed=seed))
    owed = {key: 100 * n / len(target.instances) for key, n in strata.items()}
    off = [abs(drawn[key] / seeds - share) for key, share in owed.items()]
    assert max(off) < 0.12 and sum(off) < 5.5  # sampling noise alone: about 0.07 and 3.6
    assert [i.id for i in select(target.instances, limit=100, seed=1)] == [i.id for i in samples[1]]


def test_a_limited_sample_of_a_grouped_benchmark_takes_whole_groups(data_dir: Path) -> None:
    from faceteval.metaeval import load_target, select

    target = load_target("summeval", data_dir)
    sample = select(target.instances, limit=40, seed=0, group_by=target.group_by)
    groups = {i.metadata[target.group_by] for i in sample}
    sizes = {g: sum(i.metadata[target.group_by] == g for i in target.instances) for g in groups}
    assert len(sample) == 40 and len(groups) == 3  # two whole documents (16 each) and 8 of a third
    assert sorted(sum(i.metadata[target.group_by] == g for i in sample) for g in groups) == [8, 16, 16]
    assert all(size == 16 for size in sizes.values())


def test_a_sweep_whose_runs_measured_different_aspects_prints_them_all(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from faceteval._cli._metaeval_display import show_results

    runs = [
        {"dir": "a1", "c.pearson": {"value": 0.5}, "f.pearson": {"value": 0.4}, "status": {"ok": 3}},
        {
            "dir": "a2",
            "c.pearson": {"value": 0.6},
            "g.pearson": {"value": 0.1},
            "status": {"ok": 2, "error": 1},
        },
    ]
    show_results({"benchmark": "b", "judge": "j", "kind": "pointwise", "runs": runs}, Path("x"))
    printed = flat(capsys.readouterr().out)
    assert "│ a1 │ 0.500 │ 0.400 │ n/a │ 3 / 3 │" in printed
    assert "│ a2 │ 0.600 │ n/a │ 0.100 │ 2 / 3 │" in printed


def test_a_method_that_can_judge_none_of_the_instances_fails_rather_than_scoring_zero(
    data_dir: Path, tmp_path: Path
) -> None:
    labels = labelled_pairs(tmp_path, n=3)  # no criteria: CoEval cannot judge them
    dead = ["--model", "openai:x", "--base-url", "http://127.0.0.1:9/v1", "--no-cache"]
    result = meta_eval(data_dir, labels, "--method", "coeval", *MAPPING, *dead, "--out", tmp_path / "run")
    assert result.exit_code == 1 and "no instance was judged" in result.output
    assert not (tmp_path / "run" / "summary.json").exists()
    plan = meta_eval(
        data_dir, labels, "--method", "coeval", *MAPPING, *dead, "--dry-run", "--out", tmp_path / "p"
    )
    assert plan.exit_code == 1 and "3 instances cannot be judged as they are" in flat(plan.output)


def test_judgments_of_no_instance_are_a_warning_apart_from_those_a_filter_left_out(
    data_dir: Path, tmp_path: Path
) -> None:
    labels = labelled_pairs(tmp_path, n=6)
    rows = [{"id": f"p{i}", "method": "m", "status": "ok", "verdict": 1} for i in range(6)]
    rows += [{"id": f"other-{i}", "method": "m", "status": "ok", "verdict": 1} for i in range(7)]
    judged = lines(tmp_path / "j.jsonl", rows)
    out = tmp_path / "run"
    result = meta_eval(data_dir, labels, "--judgments", judged, *MAPPING, "--category", "even", "--out", out)
    assert result.exit_code == 0, result.output
    summary = summary_of(out)
    assert summary["n"] == 3 and summary["judgments_outside_sample"] == 3  # the odd ones: --category
    assert summary["unmatched_judgments"] == 7
    assert summary["unmatched_examples"] == [f"other-{i}" for i in range(5)]
    warning = flat(result.stderr)
    assert "warning: 7 judgments match no instance of labels" in warning
    assert "'other-0', 'other-1', 'other-2', 'other-3', 'other-4' ..." in warning
    assert "outside the sample" not in warning  # those are left out as asked: no warning
    assert "3 judgments of instances outside the sample" in flat(result.stdout)
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "| Of no instance of labels: ids such as 'other-0', 'other-1'" in report


def test_judgments_all_outside_the_sample_are_named_so(data_dir: Path, tmp_path: Path) -> None:
    labels = labelled_pairs(tmp_path, n=6)
    judged = lines(
        tmp_path / "j.jsonl", [{"id": f"p{i}", "method": "m", "status": "ok", "verdict": 1} for i in (1, 3)]
    )
    result = meta_eval(
        data_dir, labels, "--judgments", judged, *MAPPING, "--category", "even", "--out", tmp_path / "o"
    )
    assert result.exit_code == 1
    assert "none of its 2 judgments is of the 3 instances measured" in flat(result.output)


def test_compare_says_when_it_pairs_only_the_instances_both_runs_measured(
    data_dir: Path, tmp_path: Path
) -> None:
    labels = labelled_pairs(tmp_path, n=8)
    judged = lines(
        tmp_path / "j.jsonl", [{"id": f"p{i}", "method": "m", "status": "ok", "verdict": 1} for i in range(8)]
    )
    for name, sample in (("whole", ()), ("sample", ("--limit", "4"))):
        result = meta_eval(
            data_dir, labels, "--judgments", judged, *MAPPING, *sample, "--out", tmp_path / name
        )
        assert result.exit_code == 0, result.output
    runs = [str(tmp_path / "whole"), str(tmp_path / "sample")]
    compared = CliRunner().invoke(cli, ["compare", *runs, "--json", str(tmp_path / "c.json")])
    assert compared.exit_code == 0, compared.output
    assert "Note: Compared on the 4 instances both runs measured (A has 8, B has 4)." in flat(compared.output)
    result = json.loads((tmp_path / "c.json").read_text())
    assert result["instances"] == {"a": 8, "b": 4, "shared": 4} and result["metrics"]["agreement"]["n"] == 4
    markdown = render_comparison(summary_of(tmp_path / "whole"), summary_of(tmp_path / "sample"), result)
    assert "- Note: compared on the 4 instances both runs measured (A has 8, B has 4)" in markdown
    same = CliRunner().invoke(cli, ["compare", runs[0], runs[0]])
    assert same.exit_code == 0 and "Note:" not in same.output


def test_an_all_hit_sample_shows_a_binomial_interval_not_a_point(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "nat"
    args = ("llmbar-natural", "--judgments", "recorded:llmbar/GPT-4/Vanilla", "--limit", "10", "--out", out)
    result = meta_eval(data_dir, *args)
    assert result.exit_code == 0, result.output
    agreement = summary_of(out)["agreement"]
    assert (agreement["hits"], agreement["n"], agreement["ci_method"]) == (10, 10, "clopper-pearson")
    assert agreement["ci"] == pytest.approx([0.6915, 1.0], abs=1e-4)
    printed = flat(result.stdout)
    assert "100.00% │ 69.2-100.0 ‡ │ 10 / 10" in printed and "100.0-100.0" not in printed
    assert "‡ exact binomial (Clopper-Pearson) CI" in printed
    assert "| Agreement | 100.0% | [69.2%, 100.0%] ‡ | 10 / 10 | 0 |" in (out / "report.md").read_text()


def test_a_file_not_ours_in_the_run_directory_is_refused_unless_forced(
    data_dir: Path, tmp_path: Path
) -> None:
    labels = labelled_pairs(tmp_path, n=4)
    judged = lines(
        tmp_path / "j.jsonl",
        [{"id": f"p{i}", "method": "m", "status": "ok", "verdict": 1 + i % 2} for i in range(4)],
    )
    run = tmp_path / "run"
    run.mkdir()
    database = sqlite_database(run / "summary.json")
    before = database.read_bytes()
    result = meta_eval(data_dir, labels, "--judgments", judged, *MAPPING, "--out", run)
    assert result.exit_code == 1, result.output
    assert f"would overwrite {database}, an SQLite database" in flat(result.output)
    assert database.read_bytes() == before and [p.name for p in run.iterdir()] == ["summary.json"]
    forced = meta_eval(data_dir, labels, "--judgments", judged, *MAPPING, "--out", run, "--force")
    assert forced.exit_code == 0, forced.output
    assert summary_of(run)["n"] == 4


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def described(run: Path) -> dict[str, dict[str, object]]:
    """What the summary of ``run`` should say of its instances and judgments, as the files are now."""
    return {
        name: {"lines": (run / name).read_bytes().count(b"\n"), "sha256": sha256((run / name).read_bytes())}
        for name in ("instances.jsonl", "judgments.jsonl")
    }


def test_a_summary_records_the_files_it_measured_and_reports_refuse_another_runs(
    data_dir: Path, tmp_path: Path
) -> None:
    labels = labelled_pairs(tmp_path, n=6)
    for name, verdicts in (("a", [1, 2, 1, 2, 1, 2]), ("b", [1, 1, 1, 2, 2, 2])):
        judged = lines(
            tmp_path / f"{name}.jsonl",
            [{"id": f"p{i}", "method": "m", "status": "ok", "verdict": v} for i, v in enumerate(verdicts)],
        )
        result = meta_eval(data_dir, labels, "--judgments", judged, *MAPPING, "--out", tmp_path / name)
        assert result.exit_code == 0, result.output
        assert record_of(tmp_path / name)["written"] == described(tmp_path / name)
    a, b = tmp_path / "a", tmp_path / "b"
    shutil.copyfile(b / "judgments.jsonl", a / "judgments.jsonl")  # a's summary, b's judgments
    for command in (["report", str(a)], ["compare", str(a), str(b), "--resamples", "0"]):
        refused = CliRunner().invoke(cli, command)
        assert refused.exit_code == 1, refused.output
        assert (
            f"{a / 'judgments.jsonl'}: not the file summary.json describes: it was changed since, or is "
            "another run's" in flat(refused.output)
        )
    old = {key: value for key, value in summary_of(a).items() if key != "written"}
    (a / "summary.json").write_text(json.dumps(old), encoding="utf-8")  # as written before summaries said
    for command in (["report", str(a)], ["compare", str(a), str(b), "--resamples", "0"]):
        result = CliRunner().invoke(cli, command)
        assert result.exit_code == 0, result.output


def test_a_method_runs_summary_records_the_instances_and_judgments_it_wrote(
    data_dir: Path, tmp_path: Path, server: LLMServer
) -> None:
    labels = labelled_pairs(tmp_path, n=4)
    out = tmp_path / "run"
    args = [
        labels,
        "--method",
        "direct",
        *MAPPING,
        "-q",
        "--no-report",
        "--out",
        out,
        *local(server, tmp_path),
    ]
    assert meta_eval(data_dir, *args).exit_code == 0
    assert record_of(out)["written"] == described(out)
    record = json.loads((out / "judgments.run.json").read_text(encoding="utf-8"))
    assert record["written"]["judgments.jsonl"] == described(out)["judgments.jsonl"]
