"""`faceteval meta-eval`, `compare`, `report` and `datasets` end to end, on the real benchmarks."""

from __future__ import annotations

import json
import os
import shutil
import statistics
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from faceteval._cli._app import cli
from faceteval.datasets import benchmarks, get_benchmark
from faceteval.metaeval import Settings, join, load_judgments, load_target, summarize
from tests.support.llm_server import LLMServer
from tests.support.rule_judge import DEFAULT_ASPECTS, RuleJudge

COUNT_KEYS = ("agreement_order1", "agreement_order2", "agreement_consistent", "positional_agreement")


@pytest.fixture(scope="module")
def data_dir() -> Path:
    value = os.environ.get("FACETEVAL_DATA_DIR")
    assert value, "FACETEVAL_DATA_DIR must name the benchmark data directory (make test sets it)"
    return Path(value)


def meta_eval(data_dir: Path, *args: str | Path) -> Result:
    result = CliRunner().invoke(
        cli, ["meta-eval", *map(str, args), "--data-dir", str(data_dir)], catch_exceptions=False
    )
    return result


def record_of(out: Path) -> dict[str, Any]:
    """A run's summary.json: its run record (schema 2)."""
    return dict(json.loads((out / "summary.json").read_text(encoding="utf-8")))


def summary_of(out: Path) -> dict[str, Any]:
    """The numbers of a run's summary.json (schema 2: its record's summary)."""
    return dict(record_of(out)["summary"])


# -- published numbers --------------------------------------------------------------------------------


def test_autoj_reproduces_its_leaderboard_row(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "autoj"
    result = meta_eval(data_dir, "autoj-pairwise", "--judgments", "recorded:auto-j-13b", "--out", out)
    assert result.exit_code == 0, result.output
    summary = summary_of(out)
    assert round(100 * summary["agreement_consistent"]["value"], 2) == 54.96
    assert round(100 * summary["consistency"]["value"], 2) == 83.41
    assert summary["agreement_consistent"]["n"] == summary["n"] == 1392
    lo, hi = summary["agreement_consistent"]["ci"]
    assert lo < summary["agreement_consistent"]["value"] < hi
    assert summary["reported"]["agreement_consistent"] == pytest.approx(0.5496)
    assert (out / "report.md").is_file() and (out / "report.html").is_file()
    assert len((out / "judgments.jsonl").read_text().splitlines()) == 1392
    assert "54.96%" in result.output and "83.41%" in result.output


@pytest.mark.parametrize(
    ("turn", "with_ties", "without_ties"), [(1, (886, 1343), (727, 859)), (2, (871, 1325), (731, 864))]
)
def test_mtbench_gpt4_pair_reproduces_the_paper(
    data_dir: Path, tmp_path: Path, turn: int, with_ties: tuple[int, int], without_ties: tuple[int, int]
) -> None:
    out = tmp_path / "mtb"
    args = ("mtbench-human", "--judgments", "recorded:gpt4-pair", "--turn", str(turn), "--out", out)
    result = meta_eval(data_dir, *args, "--resamples", "0")
    assert result.exit_code == 0, result.output
    votes = summary_of(out)["votes"]
    assert (votes["with_ties"]["hits"], votes["with_ties"]["n"]) == with_ties
    assert (votes["without_ties"]["hits"], votes["without_ties"]["n"]) == without_ties
    assert round(100 * votes["with_ties"]["value"]) == 66


def _llmbar_sources(data_dir: Path) -> list[tuple[str, str]]:
    return [
        (b.name, s.name)
        for b in benchmarks()
        if b.name.startswith("llmbar-")
        for s in b.recorded_sources(data_dir)
    ]


def test_every_recorded_llmbar_judge_reproduces_its_statistics(data_dir: Path) -> None:
    checked = 0
    for benchmark_name, source_name in _llmbar_sources(data_dir):
        target = load_target(benchmark_name, data_dir)
        source = load_judgments(f"recorded:{source_name}", target, data_dir)
        summary = summarize(
            target,
            join(target.instances, source.judgments),
            judge=source.name,
            settings=Settings(resamples=0),
        )
        for key in (*COUNT_KEYS, "accuracy_order_avg"):
            assert round(summary[key]["value"], 3) == round(source.reported[key], 3), (
                benchmark_name,
                source_name,
                key,
            )
        checked += 1
    assert checked >= 203


def test_gpt4_vanilla_on_natural_through_the_command(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "nat"
    args = ("llmbar-natural", "--judgments", "recorded:llmbar/GPT-4/Vanilla", "--out", out)
    assert meta_eval(data_dir, *args).exit_code == 0
    summary = summary_of(out)
    assert summary["accuracy_order_avg"]["value"] == pytest.approx(0.955)
    assert summary["positional_agreement"]["value"] == pytest.approx(0.95)
    assert summary["consistency"]["value"] == pytest.approx(0.95)


# -- pointwise ----------------------------------------------------------------------------------------


def test_coeval_chatgpt_correlations_and_alpha(data_dir: Path, tmp_path: Path) -> None:
    from scipy import stats

    out = tmp_path / "coeval"
    args = ("coeval-eli5", "--judgments", "recorded:chatgpt", "--out", out, "--resamples", "50")
    assert meta_eval(data_dir, *args).exit_code == 0
    summary = summary_of(out)
    benchmark = get_benchmark("coeval-eli5")
    aspect = benchmark.aspects[0]
    instances = {i.id: i for i in benchmark.instances(data_dir)}
    judged = [json.loads(line) for line in (out / "judgments.jsonl").read_text().splitlines()]
    pairs = [
        (next(f["scores"][0] for f in j["facets"] if f["name"] == aspect), instances[j["id"]].scores[aspect])
        for j in judged
    ]
    expected = stats.spearmanr([p[0] for p in pairs], [p[1] for p in pairs]).statistic
    sample = summary["correlations"][aspect]["sample"]
    assert sample["spearman"]["value"] == pytest.approx(expected)
    assert sample["spearman"]["n"] == 200
    assert "system" in summary["correlations"][aspect]
    alpha = summary["alpha"][aspect]["interval"]
    assert -1 <= alpha["annotators"] <= 1 and -1 <= alpha["annotators_and_judge"] <= 1


def test_prometheus_gpt4_runs_agree_with_each_other(data_dir: Path, tmp_path: Path) -> None:
    import krippendorff
    from scipy import stats

    out = tmp_path / "run1"
    args = ("prometheus-mtbench", "--judgments", "recorded:gpt-4-run1", "--out", out, "--resamples", "0")
    result = meta_eval(data_dir, *args)
    assert result.exit_code == 0, result.output
    assert "Measured against GPT-4" in " ".join(result.output.split())
    summary = summary_of(out)
    assert summary["reference"] == "GPT-4 (mean of 3 recorded runs)"
    raw = json.loads((data_dir / "prometheus" / "mt_bench_eval.json").read_text())
    runs = [[record["gpt4_score"][k] for record in raw] for k in range(3)]
    alpha = summary["alpha"]["score"]
    assert alpha["interval"]["annotators"] == pytest.approx(
        krippendorff.alpha(reliability_data=runs, level_of_measurement="interval")
    )
    assert alpha["ordinal"]["annotators"] == pytest.approx(
        krippendorff.alpha(reliability_data=runs, level_of_measurement="ordinal")
    )
    mean = [sum(record["gpt4_score"]) / 3 for record in raw]
    sample = summary["correlations"]["score"]["sample"]
    assert sample["pearson"]["value"] == pytest.approx(stats.pearsonr(runs[0], mean).statistic)
    assert "GPT-4 (mean of 3 recorded runs)" in (out / "report.md").read_text()


# -- running a method ---------------------------------------------------------------------------------


def labelled_pairs(tmp_path: Path, n: int = 8) -> Path:
    rows = []
    for i in range(n):
        good_first = i % 2 == 0
        rows.append(
            {
                "qid": f"p{i}",
                "instruction": f"Question {i // 2}?",
                "output_1": "good" if good_first else "poor",
                "output_2": "poor" if good_first else "good",
                "winner": "A" if good_first else "B",
                "kind": "even" if good_first else "odd",
            }
        )
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


MAPPING = ("--field", "id=qid", "--field", "category=kind")


@pytest.fixture
def server():  # type: ignore[no-untyped-def]
    rule = RuleJudge(quality={"good": 8, "poor": 3})
    with LLMServer(rule.for_server()) as running:
        yield running


def local(server: LLMServer, tmp_path: Path) -> list[str]:
    return [
        "--model",
        "openai:judge",
        "--base-url",
        server.base_url,
        "--cache",
        str(tmp_path / "cache.sqlite"),
    ]


def test_a_method_run_is_measured_reported_and_resumable(
    data_dir: Path, tmp_path: Path, server: LLMServer
) -> None:
    out = tmp_path / "dna"
    args = [labelled_pairs(tmp_path), "--method", "dna", "--swap", *MAPPING, "--out", out, "-q"]
    result = meta_eval(data_dir, *args, *local(server, tmp_path))
    assert result.exit_code == 0, result.output
    summary = summary_of(out)
    assert summary["agreement"] == summary["agreement"] | {"value": 1.0, "hits": 8, "n": 8}
    assert summary["consistency"]["value"] == 1.0
    record = record_of(out)  # schema 2: the method and the options are the record's
    assert record["method"]["name"] == "dna" and record["options"]["swap"] is True
    assert summary["usage"]["calls"] > 0
    assert set(summary["by_category"]) == {"even", "odd"}
    assert summary["facet_weights"]["(all)"]
    calls = server.request_count
    again = meta_eval(data_dir, *args, *local(server, tmp_path))
    assert again.exit_code == 0 and server.request_count == calls  # every reply from the cache
    assert summary_of(out)["agreement"]["value"] == 1.0
    first, cached = summary["usage"], summary_of(out)["usage"]
    assert first["made"]["calls"] == first["calls"] - first["cached_calls"] == calls  # those the server had
    assert cached["cached_calls"] == cached["calls"] == first["calls"]  # counted at their price ...
    assert cached["made"] == {
        "calls": 0,
        "input_tokens": 0,
        "output_tokens": 0,
        "cost_usd": 0.0,
    }  # ... not spent
    usage = " ".join((out / "report.md").read_text().split("## Usage and cost")[1].split("##")[0].split())
    assert "Total and Per instance count the cached calls at their price, as if made" in usage
    assert "| Calls made (spent) | 0 | 0 | 0 | 0 |" in usage

    # People weigh the judge's facets: one in the judge's order, one in the reverse order.
    same, reverse = (
        dict(zip(DEFAULT_ASPECTS, (5, 3, 2), strict=True)),
        dict(zip(DEFAULT_ASPECTS, (1, 2, 3), strict=True)),
    )
    weights = tmp_path / "weights.jsonl"
    weights.write_text(
        "".join(
            json.dumps({"id": f"p{i}", "annotator": name, "weights": w}) + "\n"
            for i in range(4)
            for name, w in (("ann", same), ("bob", reverse))
        )
    )
    weighed = meta_eval(data_dir, *args, "--human-weights", weights, *local(server, tmp_path))
    assert weighed.exit_code == 0, weighed.output
    assert server.request_count == calls
    rankings = summary_of(out)["weight_rankings"]
    assert rankings["judge_vs_human"] | {"ci": None} == {"value": 0.5, "n": 4, "ci": None}  # mean of 0 and 1
    assert rankings["human_vs_human"]["value"] == 1.0 and rankings["human_vs_human"]["n"] == 4
    assert "judge vs people 0.500" in " ".join(weighed.output.split())
    assert "Facet weights: judge vs people" in (out / "report.md").read_text()


def test_a_bad_human_weighting_is_named(data_dir: Path, tmp_path: Path) -> None:
    weights = tmp_path / "weights.jsonl"
    weights.write_text(json.dumps({"id": "p0", "weights": {"a": 1, "b": "high"}}) + "\n")
    labels = labelled_pairs(tmp_path, n=2)
    result = meta_eval(
        data_dir, labels, "--judgments", labels, "--human-weights", weights, *MAPPING, "--out", tmp_path / "o"
    )
    assert result.exit_code == 1
    assert "weights.jsonl:1: field 'weights.b'" in " ".join(result.output.split())


def test_compare_two_methods_and_the_aspect_sweep(data_dir: Path, tmp_path: Path, server: LLMServer) -> None:
    labels = labelled_pairs(tmp_path, n=12)
    common = [labels, *MAPPING, "-q", *local(server, tmp_path), "--resamples", "100"]
    assert meta_eval(data_dir, *common, "--method", "direct", "--out", tmp_path / "direct").exit_code == 0
    sweep = meta_eval(data_dir, *common, "--method", "dna", "--aspects", "1,2", "--out", tmp_path / "sweep")
    assert sweep.exit_code == 0, sweep.output
    summary = summary_of(tmp_path / "sweep")
    assert [row["aspects"] for row in summary["sweep"]] == [1, 2]
    assert (tmp_path / "sweep" / "aspects-2" / "summary.json").is_file()
    compared = CliRunner().invoke(
        cli,
        [
            "compare",
            str(tmp_path / "direct"),
            str(tmp_path / "sweep" / "aspects-2"),
            "--json",
            str(tmp_path / "c.json"),
        ],
    )
    assert compared.exit_code == 0, compared.output
    comparison = json.loads((tmp_path / "c.json").read_text())
    agreement = comparison["metrics"]["agreement"]
    assert agreement["n"] == 12 and agreement["p_value"] == 1.0  # both judges right everywhere
    report = CliRunner().invoke(cli, ["report", str(tmp_path / "direct")])
    assert report.exit_code == 0 and (tmp_path / "direct" / "report.html").is_file()
    table = tmp_path / "cost.md"
    cost = CliRunner().invoke(
        cli, ["cost", str(tmp_path / "direct"), str(tmp_path / "sweep"), "--markdown", str(table)]
    )
    assert cost.exit_code == 0, cost.output
    rows = {line.split("|")[1].strip(): line for line in table.read_text().splitlines()[2:] if "|" in line}
    direct_calls = summary_of(tmp_path / "direct")["usage"]["calls"]
    assert direct_calls == 12  # one call per pair
    assert f"| {direct_calls} |" in next(row for name, row in rows.items() if name.startswith("direct"))
    sweep_calls = {run["dir"]: run["usage"]["calls"] for run in summary["sweep"]}
    for sub_run, calls in sweep_calls.items():
        assert f"| {calls:,} |" in next(row for name, row in rows.items() if name.endswith(f"[{sub_run}]"))
    assert sweep_calls["aspects-2"] > sweep_calls["aspects-1"]  # one more facet to score
    # At 80 columns, too narrow for a column per figure, each run gets a block: no name or number cut.
    narrow = CliRunner().invoke(cli, ["cost", str(tmp_path / "sweep")], env={"COLUMNS": "80"})
    assert narrow.exit_code == 0, narrow.output
    lines = narrow.output.splitlines()
    assert max(map(len, lines[:-1])) <= 80 and "…" not in narrow.output
    for sub_run, calls in sweep_calls.items():
        block = lines.index(next(line for line in lines if line.endswith(f"[{sub_run}]")))
        cells = [[cell.strip() for cell in line.split("│")[1:-1]] for line in lines[block : block + 6]]
        assert ["Calls", f"{calls:,}"] in cells
    wide = CliRunner().invoke(cli, ["cost", str(tmp_path / "sweep")], env={"COLUMNS": "250"})
    assert "Cached calls" in next(line for line in wide.output.splitlines() if "Calls /" in line)


def seeded_judge(body: dict[str, Any]) -> str:
    """A judge whose seed matters: seed 0 is right; any other seed always prefers the first response."""
    bias = 0.0 if body.get("seed", 0) == 0 else 9.0
    return RuleJudge(quality={"good": 8, "poor": 3}, first_bias=bias, record=False).respond(body["messages"])


def test_repeated_runs_over_seeds_and_their_significance(data_dir: Path, tmp_path: Path) -> None:
    labels = labelled_pairs(tmp_path, n=12)
    with LLMServer(seeded_judge) as seeded:
        common = [labels, *MAPPING, "-q", *local(seeded, tmp_path), "--resamples", "100", "--seeds", "0,1"]
        direct = meta_eval(data_dir, *common, "--method", "direct", "--out", tmp_path / "direct")
        assert direct.exit_code == 0, direct.output
        seeds = {request.body.get("seed") for request in seeded.requests}
        assert seeds == {0, 1}  # each repeat reached the server with its own seed
        dna = meta_eval(data_dir, *common, "--method", "dna", "--out", tmp_path / "dna")
        assert dna.exit_code == 0, dna.output
    summary = summary_of(tmp_path / "direct")
    assert [(row["dir"], row["seed"]) for row in summary["runs"]] == [("seed-0", 0), ("seed-1", 1)]
    # Seed 0 is right on all 12 pairs; seed 1 picks the first response, right on the 6 labelled 1.
    assert summary["repeats"]["agreement"]["values"] == [1.0, 0.5]
    assert summary["repeats"]["agreement"]["mean"] == pytest.approx(0.75)
    assert summary["repeats"]["agreement"]["sd"] == pytest.approx(statistics.stdev([1.0, 0.5]))
    assert summary_of(tmp_path / "direct" / "seed-1")["agreement"]["hits"] == 6
    assert "Repeated runs" in (tmp_path / "direct" / "report.md").read_text()
    compared = CliRunner().invoke(
        cli, ["compare", str(tmp_path / "direct"), str(tmp_path / "dna"), "--json", str(tmp_path / "c.json")]
    )
    assert compared.exit_code == 0, compared.output
    comparison = json.loads((tmp_path / "c.json").read_text())
    assert comparison["runs_paired"] == 2 and comparison["n"] == 24  # 12 pairs x 2 seeds, pooled
    agreement = comparison["metrics"]["agreement"]
    assert (agreement["a"], agreement["b"]) == (pytest.approx(0.75), pytest.approx(0.75))


def pointwise_labels(tmp_path: Path, n: int = 30) -> Path:
    rows = [
        {
            "id": f"s{i}",
            "query": f"Summarise text {i}.",
            "candidates": [f"summary {i}"],
            "scores": {"quality": i % 5 + 1},
        }
        for i in range(n)
    ]
    path = tmp_path / "scores.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def scored_judgments(path: Path, scores: list[float]) -> Path:
    path.write_text(
        "".join(
            json.dumps({"id": f"s{i}", "method": path.stem, "status": "ok", "scores": [score]}) + "\n"
            for i, score in enumerate(scores)
        ),
        encoding="utf-8",
    )
    return path


def test_compare_two_pointwise_judges(data_dir: Path, tmp_path: Path) -> None:
    from scipy import stats

    labels = pointwise_labels(tmp_path)
    human = [i % 5 + 1 for i in range(30)]
    close = scored_judgments(
        tmp_path / "close.jsonl", [h + (0.5 if i % 3 == 0 else 0) for i, h in enumerate(human)]
    )
    noisy = scored_judgments(tmp_path / "noisy.jsonl", [(i * 7) % 5 + 1 for i in range(30)])
    for judgments in (close, noisy):
        result = meta_eval(data_dir, labels, "--judgments", judgments, "--out", tmp_path / judgments.stem)
        assert result.exit_code == 0, result.output
    summary = summary_of(tmp_path / "close")
    assert summary["kind"] == "pointwise" and summary["reference"] == "humans"
    close_scores = [json.loads(line)["scores"][0] for line in close.read_text().splitlines()]
    assert summary["correlations"]["quality"]["sample"]["pearson"]["value"] == pytest.approx(
        stats.pearsonr(close_scores, human).statistic
    )
    compared = CliRunner().invoke(
        cli,
        [
            "compare",
            str(tmp_path / "noisy"),
            str(tmp_path / "close"),
            "--resamples",
            "500",
            "--json",
            str(tmp_path / "c.json"),
        ],
    )
    assert compared.exit_code == 0, compared.output
    assert "quality.pearson" in compared.output
    pearson = json.loads((tmp_path / "c.json").read_text())["metrics"]["quality.pearson"]
    noisy_scores = [json.loads(line)["scores"][0] for line in noisy.read_text().splitlines()]
    expected = stats.pearsonr(close_scores, human).statistic - stats.pearsonr(noisy_scores, human).statistic
    assert pearson["difference"] == pytest.approx(expected)
    assert pearson["ci"][0] > 0  # the close judge is clearly better
    assert pearson["p_value"] < 0.05 and pearson["significance"] in ("**", "***")


def test_labels_only_benchmarks_refuse_a_method(data_dir: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli,
        [
            "meta-eval",
            "mtbench-human",
            "--method",
            "dna",
            "--model",
            "openai:x",
            "--out",
            str(tmp_path / "x"),
            "--data-dir",
            str(data_dir),
        ],
    )
    assert result.exit_code == 1 and "ships labels only" in result.output


def test_user_file_with_our_judgments_and_a_stratified_limit(data_dir: Path, tmp_path: Path) -> None:
    labels = labelled_pairs(tmp_path, n=10)
    judgments = tmp_path / "j.jsonl"
    judgments.write_text(
        "".join(
            json.dumps({"id": f"p{i}", "method": "mine", "status": "ok", "verdict": 1}) + "\n"
            for i in range(10)
        )
    )
    out = tmp_path / "mine"
    result = meta_eval(
        data_dir, labels, "--judgments", judgments, *MAPPING, "--limit", "4", "--seed", "3", "--out", out
    )
    assert result.exit_code == 0, result.output
    summary = summary_of(out)
    assert summary["n"] == 4 and summary["agreement"]["hits"] == 2  # stratified: two of each label
    assert summary["judgments_outside_sample"] == 6  # left out by --limit: not judgments of no instance
    assert summary["unmatched_judgments"] == 0 and summary["unmatched_examples"] == []
    assert "6 judgments of instances outside the sample" in result.output
    assert "match no instance" not in result.output
    status = (out / "report.md").read_text(encoding="utf-8")
    assert "(--limit, --turn, --category): left out on purpose | 6 |" in status
    assert "| Of no instance of labels | 0 |" in status


def test_a_bad_row_in_a_user_file_is_named(data_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"instruction": "q", "output_1": "a", "output_2": "b", "winner": "C"}) + "\n")
    result = CliRunner().invoke(
        cli,
        [
            "meta-eval",
            str(path),
            "--judgments",
            str(path),
            "--out",
            str(tmp_path / "o"),
            "--data-dir",
            str(data_dir),
        ],
    )
    assert result.exit_code == 1
    assert "bad.jsonl:1: field 'winner'" in " ".join(result.output.split())


def test_datasets_list_names_every_benchmark(data_dir: Path) -> None:
    result = CliRunner().invoke(cli, ["datasets", "list", "--data-dir", str(data_dir)], terminal_width=250)
    assert result.exit_code == 0, result.output
    for name in ("llmbar-adversarial-gptout", "mtbench-human", "autoj-pairwise", "summeval", "coeval-eli5"):
        assert name in result.output
    assert "missing" not in result.output


def test_datasets_list_says_when_its_data_directory_is_not_there(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["datasets", "list", "--data-dir", str(tmp_path / "nowhere")])
    assert result.exit_code == 0
    assert (
        "nowhere is not a directory: set --data-dir, FACETEVAL_DATA_DIR or data-dir in faceteval.toml"
        in " ".join(result.output.split())
    )


def test_datasets_fetch_says_what_it_found_in_a_line(data_dir: Path, tmp_path: Path) -> None:
    shutil.copytree(data_dir / "faireval", tmp_path / "faireval")  # every file present: no download
    result = CliRunner().invoke(cli, ["datasets", "fetch", "faireval", "--data-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"faireval: 4 files in {tmp_path}: 4 already present"


def test_datasets_list_fits_a_narrow_terminal_and_details_come_with_verbose(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from faceteval._cli import _datasets

    monkeypatch.setattr(_datasets.console, "_width", 80)  # (restored to None: sized by the terminal again)
    short = CliRunner().invoke(cli, ["datasets", "list", "--data-dir", str(data_dir)])
    rows = [line for line in short.output.splitlines() if line.startswith("│")]
    assert len(rows) == len(list(benchmarks()))  # one line each
    assert all(len(line) <= 80 for line in short.output.splitlines())
    assert "│ summeval" in short.output and "--verbose" in short.output
    detailed = CliRunner().invoke(cli, ["datasets", "list", "-v", "--data-dir", str(data_dir)])
    assert "  license: MIT License (LLMBar); read from llmbar/LLMBar/Natural" in detailed.output
