"""`faceteval hdeval train` -> `apply` -> `experiment` -> `report`, over a local OpenAI-compatible server,
and on CoEval's recorded ChatGPT criterion scores with no LLM at all."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner, Result

from faceteval._cli._app import cli
from tests.support.hdeval_judge import quality, responder
from tests.support.llm_server import LLMServer


def outputs(n: int, prefix: str) -> list[dict[str, Any]]:
    """Outputs whose human scores follow two judge criteria: coherence = logical flow, fluency = grammar."""
    rows = []
    for i in range(n):
        text = f"{prefix} output {i}"
        flow, grammar = quality(text, "logical flow"), quality(text, "grammar")
        rows.append(
            {
                "id": f"{prefix}{i}",
                "query": f"Summarise article {i // 4}.",
                "candidates": [text],
                "task": "Summarize a news article.",
                "scores": {"coherence": flow + 0.1 * (i % 3), "fluency": grammar - 0.1 * (i % 2)},
            }
        )
    return rows


def write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args], terminal_width=200)


def test_train_prunes_applies_and_resumes_over_http(tmp_path: Path) -> None:
    unscored = {"id": "x", "query": "Summarise.", "candidates": ["An output."], "scores": {"coherence": 3}}
    labelled = write(tmp_path / "labelled.jsonl", [*outputs(48, "a"), unscored])  # no fluency score: no call
    fresh = write(tmp_path / "fresh.jsonl", outputs(8, "b"))
    out = tmp_path / "evaluator"
    with LLMServer(responder) as server:
        engine = [
            "--model",
            "openai:judge",
            "--base-url",
            server.base_url,
            "--cache",
            tmp_path / "c.sqlite",
            "-q",
        ]
        args = [
            "hdeval", "train", labelled, "--target", "coherence,fluency", "--layers", "3", "--children", "2",
            "--expand", "1", "--aggregator", "lr", "--resamples", "100", "--out", out, *engine,
        ]  # fmt: skip
        trained = invoke(*args)
        assert trained.exit_code == 0, trained.output
        calls = len(server.requests)
        # Layer 1: 2 aspects; layer 2: both decomposed into 2; layer 3: the top layer-2 criterion into 2.
        assert calls == 3 + 48 * (2 + 4 + 2)  # 3 decompositions, then one call per output and criterion
        assert "1 of 49 outputs has no human score for every target (coherence, fluency): left out" in (
            " ".join(trained.output.split())
        )
        again = invoke(*args)
        assert again.exit_code == 0 and len(server.requests) == calls  # every reply from the cache
        applied = invoke("hdeval", "apply", out, fresh, "--out", tmp_path / "scored.jsonl", *engine)
        assert applied.exit_code == 0, applied.output

    summary = json.loads((out / "summary.json").read_text())
    tree = {node["id"].lower(): node for node in summary["tree"]}
    assert len(tree) == 8 and summary["split"] == {"train": 24, "test": 24, "left_out": 0}
    assert tree["coherence"]["expanded"] and tree["fluency"]["expanded"]
    expanded_layer_2 = [i for i, node in tree.items() if node["layer"] == 2 and node["expanded"]]
    assert expanded_layer_2 in (["coherence / logical flow"], ["fluency / grammar"])  # the informative ones
    top = sorted(tree, key=lambda i: -tree[i]["importance"])[:2]
    assert set(top) == {"coherence / logical flow", "fluency / grammar"}
    assert tree["coherence / logical flow"]["importance_by_target"]["coherence"] > 0.5
    learned = summary["held_out"]["coherence"]["aggregator"]["sample"]["pearson"]
    assert learned["value"] > 0.95 and learned["n"] == 24

    scored = [json.loads(line) for line in (tmp_path / "scored.jsonl").read_text().splitlines()]
    assert [row["status"] for row in scored] == ["ok"] * 8
    for row, source in zip(scored, outputs(8, "b"), strict=True):
        assert row["scores"]["coherence"] == pytest.approx(source["scores"]["coherence"], abs=0.3)
        contributions = {k.lower(): v for k, v in row["contributions"]["coherence"].items()}
        assert max(contributions, key=lambda k: abs(contributions[k])) in (
            "coherence / logical flow",
            *[c for c in contributions if abs(contributions[c]) < 1e-9],
        )
    by_query: dict[str, list[dict[str, Any]]] = {}
    for row, source in zip(scored, outputs(8, "b"), strict=True):
        by_query.setdefault(source["query"], []).append(row)
    for rows in by_query.values():
        ranks = sorted(rows, key=lambda r: r["ranks"]["coherence"])
        assert [r["scores"]["coherence"] for r in ranks] == sorted(
            (r["scores"]["coherence"] for r in rows), reverse=True
        )

    experiment = invoke("hdeval", "experiment", out)
    assert experiment.exit_code == 0, experiment.output
    results = json.loads((out / "experiments.json").read_text())
    assert set(results["ablations"]) == {
        "full",
        "without layer 3",
        "without layers 2-3",
        "without aggregator (mean)",
    }
    assert results["ablations"]["full"]["pearson"] > results["ablations"]["without layers 2-3"]["pearson"]
    assert [p["fraction"] for p in results["data"]] == [0.05, 0.1, 0.25, 0.5, 0.75, 1.0]
    assert results["criteria"][-1]["criteria"] == 8
    assert set(results["importance"]) == {"lr", "dt", "rf", "mlp", "mean"}
    by_lr = results["importance"]["lr"]["coherence"]
    assert max(by_lr, key=by_lr.__getitem__) == "coherence / Logical Flow"
    explained = results["shap"]
    assert len(explained["rows"]) == len(explained["scores"]) == 48  # every stored output, fewer than 100
    values = np.asarray(explained["values"])
    assert values.shape == (2, 48, 8)
    strongest = np.abs(values[0]).mean(axis=0).argmax()
    assert explained["criteria"][strongest] == "coherence / Logical Flow"
    report = (out / "report.md").read_text()
    assert "Ablations (Table 4)" in report and "coherence / Logical Flow" in report
    assert "What each aggregator relies on" in report and "SHAP explanations" in report
    assert (out / "report.html").read_text().count("data:image/png;base64,") == 5

    again = invoke("hdeval", "experiment", out, "--run", "ablations")
    assert again.exit_code == 0, again.output
    merged = json.loads((out / "experiments.json").read_text())
    assert set(merged) >= {"ablations", "data", "criteria", "importance", "shap"}
    shown = invoke("criteria", "show", out)
    assert shown.exit_code == 0 and "Logical Flow" in shown.output and "expanded" in shown.output


@pytest.fixture
def data_dir() -> Path:
    return Path(os.environ.get("FACETEVAL_DATA_DIR", "../shared/data"))


def test_recorded_chatgpt_criterion_scores_train_without_an_llm(data_dir: Path, tmp_path: Path) -> None:
    from scipy import stats

    from faceteval.metaeval import load_judgments, load_target

    out = tmp_path / "eli5"
    args = [
        "hdeval", "train", "coeval-eli5", "--features", "recorded:coeval-chatgpt", "--target",
        "Accuracy,Coherence", "--aggregator", "lr", "--resamples", "200", "--out", out,
        "--data-dir", data_dir,
    ]  # fmt: skip
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["split"]["train"] + summary["split"]["test"] == 200
    assert summary["level"] == "sample"  # HD-Eval's (Table 1): led with, the system level beside it
    assert result.output.index("(sample level") < result.output.index("(system level")
    features = [json.loads(line) for line in (out / "features.jsonl").read_text().splitlines()]
    test = [row for row in features if row["split"] == "test"]
    # the targets' own recorded scores are no features of theirs, but still their judge's on the aspect
    assert not {"Accuracy", "Coherence"} & set(features[0]["features"])
    assert "left out Accuracy, Coherence: named as targets" in " ".join(result.output.split())
    judge = summary["held_out"]["Accuracy"]["judge_on_aspect"]["sample"]["pearson"]
    recorded = {
        j.id: next(f.scores[0] for f in j.facets if f.name == "Accuracy")
        for j in load_judgments(
            "recorded:coeval-chatgpt", load_target("coeval-eli5", data_dir), data_dir
        ).judgments
    }
    expected = stats.pearsonr([recorded[r["id"]] for r in test], [r["targets"]["Accuracy"] for r in test])
    assert judge["value"] == pytest.approx(expected.statistic)
    for target in ("Accuracy", "Coherence"):
        rows = summary["held_out"][target]
        assert set(rows) == {"aggregator", "mean_of_criteria", "judge_on_aspect"}
        for levels in rows.values():
            low, high = levels["sample"]["pearson"]["ci"]
            assert low < levels["sample"]["pearson"]["value"] < high
            assert "system" in levels  # CoEval names each output's system
    assert np.isclose(sum(node["importance"] > 0 for node in summary["tree"]), len(summary["tree"]), atol=2)

    features = ["--features", "recorded:coeval-chatgpt", "--data-dir", data_dir]
    applied = invoke("hdeval", "apply", out, "coeval-eli5", *features, "--out", tmp_path / "eli5.jsonl")
    assert applied.exit_code == 0, applied.output
    other = invoke("hdeval", "apply", out, "coeval-rocstories", *features, "--out", tmp_path / "roc.jsonl")
    assert other.exit_code == 1 and not (tmp_path / "roc.jsonl").exists()
    assert (
        "scores none of the outputs on" in " ".join(other.output.split())
        and "'Comprehensibility'" in other.output
    )


def test_human_scores_from_a_labels_file_replace_the_benchmarks(data_dir: Path, tmp_path: Path) -> None:
    from faceteval.metaeval import load_target

    instances = load_target("coeval-eli5", data_dir).instances[:60]
    labels = [
        {"id": i.id, "scores": {"Accuracy": 6 - i.scores["Accuracy"]}, "annotators": ["kim"]}
        for i in instances
        if i.scores and "Accuracy" in i.scores
    ][:40]
    path = write(tmp_path / "labels.jsonl", labels)
    out = tmp_path / "eli5"
    args = [
        "hdeval", "train", "coeval-eli5", "--features", "recorded:coeval-chatgpt", "--target", "Accuracy",
        "--aggregator", "lr", "--resamples", "0", "--labels", path, "--out", out, "--data-dir", data_dir,
    ]  # fmt: skip
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    features = [json.loads(line) for line in (out / "features.jsonl").read_text().splitlines()]
    assert {row["id"]: row["targets"]["Accuracy"] for row in features} == {
        row["id"]: row["scores"]["Accuracy"] for row in labels
    }
    assert "have no human score" in " ".join(result.output.split())


def test_outputs_to_score_may_come_as_json_or_csv_without_human_scores(tmp_path: Path) -> None:
    from faceteval.workflows.hdeval._cli._commands import _input_target

    rows = [{"id": "a", "query": "Summarise.", "candidates": ["One line."]}]
    as_json = tmp_path / "new.json"
    as_json.write_text(json.dumps(rows), encoding="utf-8")
    as_csv = tmp_path / "new.csv"
    as_csv.write_text("id,query,candidates\na,Summarise.,One line.\n", encoding="utf-8")
    for path in (as_json, as_csv):
        (instance,) = _input_target(str(path), tmp_path).instances
        assert (instance.id, instance.candidates) == ("a", ("One line.",)) and instance.scores is None


def synthetic_evaluator(out: Path) -> Path:
    from faceteval.methods.hdeval import TrainConfig, evaluator_info, evaluator_summary, save_evaluator, train
    from tests.support import hdeval_synthetic as synthetic

    instances = synthetic.instances(32)
    config = TrainConfig(targets=("coherence", "fluency"), layers=1, aggregator="lr")
    trained = train(synthetic.tree(), instances, config, synthetic.Judge(ids=[i.id for i in instances]))
    options = {"benchmark": "synthetic", "origin": "rule judge"}
    summary = evaluator_summary(trained, **options, resamples=0)
    save_evaluator(out, trained, summary=summary, info=evaluator_info(trained, **options))
    return out


def test_apply_lists_every_bad_row_and_refuses_a_file_without_outputs(tmp_path: Path) -> None:
    evaluator = synthetic_evaluator(tmp_path / "evaluator")
    good = {"id": "a", "query": "Summarise.", "candidates": ["One line."]}
    bad = write(
        tmp_path / "bad.jsonl", [good, {"id": "b", "candidates": ["x"]}, good, {"id": "c", "query": "q"}]
    )
    empty = write(tmp_path / "empty.jsonl", [])
    for path, problems in [
        (
            bad,
            [
                "3 bad rows",
                "bad.jsonl:2: field 'query'",
                "bad.jsonl:3: field 'id': duplicate",
                "bad.jsonl:4",
            ],
        ),
        (empty, ["empty.jsonl: no instances"]),
    ]:
        out = tmp_path / f"{path.stem}.scored.jsonl"
        result = invoke(
            "hdeval", "apply", evaluator, path, "--features", tmp_path / "unused.jsonl", "--out", out
        )
        assert result.exit_code == 1, result.output
        assert all(problem in result.output for problem in problems), result.output
        assert not out.exists()


def test_experiments_without_shap_installed(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "stories"
    args = [
        "hdeval", "train", "coeval-rocstories", "--features", "recorded:coeval-chatgpt",
        "--target", "Coherence", "--aggregator", "lr", "--resamples", "0", "--out", out,
        "--data-dir", data_dir,
    ]  # fmt: skip
    assert invoke(*args).exit_code == 0
    monkeypatch.setitem(sys.modules, "shap", None)
    asked = invoke("hdeval", "experiment", out, "--run", "shap")
    assert asked.exit_code != 0 and "pip install 'faceteval[shap]'" in asked.output
    default = invoke("hdeval", "experiment", out)
    assert default.exit_code == 0, default.output
    assert "shap is not installed" in default.output
    results = json.loads((out / "experiments.json").read_text())
    assert "shap" not in results and {"ablations", "importance"} <= set(results)
    assert "SHAP explanations" not in (out / "report.md").read_text()


def test_the_command_line_offers_every_aggregator_and_experiment() -> None:
    from faceteval.methods.hdeval import AGGREGATORS
    from faceteval.workflows.hdeval._cli import _commands as _hdeval
    from faceteval.workflows.hdeval._experiments import EXPERIMENTS

    assert _hdeval.AGGREGATORS == AGGREGATORS and _hdeval.EXPERIMENTS == EXPERIMENTS


def test_decompose_writes_an_editable_tree_that_train_starts_from(tmp_path: Path) -> None:
    tree_path = tmp_path / "tree.yaml"
    labelled = write(tmp_path / "labelled.jsonl", outputs(16, "c"))
    with LLMServer(responder) as server:
        engine = [
            "--model",
            "openai:judge",
            "--base-url",
            server.base_url,
            "--cache",
            tmp_path / "c.sqlite",
            "-q",
        ]
        made = invoke(
            "hdeval", "decompose", "--task", "Summarize a news article.", "--criteria", "coherence,fluency",
            "--children", "2", "--out", tree_path, *engine,
        )  # fmt: skip
        assert made.exit_code == 0, made.output
        assert len(server.requests) == 2
        written = tree_path.read_text()
        assert "name: coherence" in written and "name: Logical Flow" in written
        tree_path.write_text(written.replace("name: Word Choice", "name: Word choice and tone"))
        shown = invoke("criteria", "show", tree_path)
        assert shown.exit_code == 0 and "Word choice and tone" in shown.output
        trained = invoke(
            "hdeval", "train", labelled, "--target", "coherence", "--tree", tree_path, "--layers", "2",
            "--aggregator", "lr", "--resamples", "0", "--out", tmp_path / "ev", *engine,
        )  # fmt: skip
        assert trained.exit_code == 0, trained.output
    summary = json.loads((tmp_path / "ev" / "summary.json").read_text())
    assert "fluency / Word choice and tone" in {node["id"] for node in summary["tree"]}


def test_decompose_refuses_options_it_would_not_use(tmp_path: Path) -> None:
    tree = tmp_path / "tree.yaml"
    tree.write_text("task: Summarize.\ncriteria:\n  - name: coherence\n", encoding="utf-8")
    engine = ["--model", "openai:judge", "--base-url", "http://127.0.0.1:9/v1", "--out", tmp_path / "t.yaml"]
    with_tree = invoke(
        "hdeval", "decompose", "--tree", tree, "--task", "Other.", "--criteria", "a,b", *engine
    )
    assert with_tree.exit_code == 2 and "--task, --criteria start a new tree" in with_tree.output
    without = invoke("hdeval", "decompose", "--task", "T.", "--criteria", "a", "--node", "a", *engine)
    assert without.exit_code == 2 and "--node names a node of --tree" in without.output
    assert not (tmp_path / "t.yaml").exists()


def test_train_refused_before_any_call_leaves_no_evaluator_directory(data_dir: Path, tmp_path: Path) -> None:
    rows = outputs(12, "flat")
    for row in rows:
        row["scores"]["fluency"] = 3.0  # nothing to learn about fluency
    labels = write(tmp_path / "flat.jsonl", rows)
    out = tmp_path / "evaluators" / "flat"
    engine = ["--model", "openai:judge", "--base-url", "http://127.0.0.1:9/v1", "--no-cache"]
    flat = invoke("hdeval", "train", labels, "--target", "coherence,fluency", *engine, "--out", out)
    assert flat.exit_code == 1 and "the same fluency score (3)" in " ".join(flat.output.split())
    assert not out.exists() and not out.parent.exists()

    recorded = ["--features", "recorded:coeval-chatgpt", "--data-dir", data_dir, "--out", out]
    layered = invoke("hdeval", "train", "coeval-eli5", "--target", "Accuracy", *recorded, "--layers", "2")
    assert layered.exit_code == 2 and "--layers would do nothing" in " ".join(layered.output.split())
    assert not out.exists()


def test_an_interrupted_training_stops_as_judge_does_and_resumes(tmp_path: Path) -> None:
    import signal
    import subprocess
    import time

    labelled = write(tmp_path / "labelled.jsonl", outputs(24, "d"))
    out, cache = tmp_path / "evaluator", tmp_path / "c.sqlite"
    with LLMServer(responder, latency=0.2) as slow:
        command = [
            sys.executable, "-m", "faceteval", "hdeval", "train", str(labelled), "--target", "coherence",
            "--layers", "1", "--aggregator", "lr", "--resamples", "0", "--concurrency", "2", "--quiet",
            "--model", "openai:judge", "--base-url", slow.base_url, "--cache", str(cache), "--out", str(out),
        ]  # fmt: skip
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 180  # ends once the calls come: a busy machine starts slowly
        while time.monotonic() < deadline and len(slow.requests) < 4:
            time.sleep(0.05)
        assert len(slow.requests) >= 4, f"{len(slow.requests)} calls after 180 s"
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=30)
        assert process.returncode == 130, stderr
        assert "Interrupted. Every reply received so far is in the cache" in " ".join(stderr.split())
        assert not (out / "evaluator.json").exists()
        resumed = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
        assert resumed.returncode == 0, resumed.stderr
    assert (out / "evaluator.json").exists()
