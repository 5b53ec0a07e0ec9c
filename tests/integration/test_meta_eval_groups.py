"""`meta-eval --group-by` and `--system-by` on a user's own file: correlations within each group (the
summary level) and over the systems' means (the system level), and a `--limit` sample that keeps
groups whole; on a built-in benchmark, `--group-by` in place of its own. No LLM is asked."""

from __future__ import annotations

import csv
import json
import os
import random
from collections import defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from faceteval import meta_evaluate, read_instances
from faceteval._cli._app import cli
from faceteval._runner import MetaEvalOptions
from faceteval.errors import ConfigError
from tests.support.files import read_jsonl, write_jsonl

DOCS, SYSTEMS = 8, 3


@pytest.fixture
def data_dir() -> Path:
    return Path(os.environ.get("FACETEVAL_DATA_DIR", "../shared/data"))


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, ["meta-eval", *map(str, args)], catch_exceptions=False)


def scored(tmp_path: Path) -> tuple[Path, Path]:
    """A CSV of summaries (``DOCS`` documents, ``SYSTEMS`` systems each) with a human coherence score,
    and a judge's scores of them (ids made of document and system)."""
    rng = random.Random(3)
    data, judged = tmp_path / "summaries.csv", []
    with data.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["doc", "system", "article", "summary", "coherence"])
        for d in range(DOCS):
            for s in range(SYSTEMS):
                human = 1 + s + rng.random()
                writer.writerow([f"d{d}", f"s{s}", f"Article {d}.", f"Summary {d}-{s}.", f"{human:.2f}"])
                judge = human + rng.gauss(0, 0.8)
                judged.append({"id": f"d{d}|s{s}", "method": "m", "status": "ok", "scores": [judge]})
    return data, write_jsonl(tmp_path / "judgments.jsonl", judged)


MAPPED = [
    "--field",
    "query=article",
    "--field",
    "candidates=summary",
    "--field",
    "scores.coherence=coherence",
]


def summary(out: Path) -> dict:
    return json.loads((out / "summary.json").read_text())


def test_group_by_adds_the_summary_level_and_system_by_the_system_level(tmp_path: Path) -> None:
    data, judged = scored(tmp_path)
    common = [data, *MAPPED, "--id", "doc,system", "--judgments", judged, "--resamples", "0", "--no-report"]
    grouped = invoke(*common, "--group-by", "doc", "--system-by", "system", "--out", tmp_path / "grouped")
    plain = invoke(*common, "--out", tmp_path / "plain")

    assert grouped.exit_code == 0, grouped.output
    assert plain.exit_code == 0, plain.output
    levels = summary(tmp_path / "grouped")["summary"]["correlations"]["coherence"]
    assert set(levels) == {"sample", "summary", "system"}
    assert levels["summary"]["pearson"]["n"] == DOCS  # the documents averaged over
    assert set(summary(tmp_path / "plain")["summary"]["correlations"]["coherence"]) == {"sample"}
    assert summary(tmp_path / "grouped")["summary"]["systems"]["coherence"][0]["system"] == "s2"
    options = summary(tmp_path / "grouped")["options"]
    assert (options["group_by"], options["system_by"]) == ("doc", "system")
    assert "summary" in grouped.output and "system" in grouped.output


def test_a_field_given_as_systems_gives_the_system_level_as_system_by_does(tmp_path: Path) -> None:
    data, judged = scored(tmp_path)
    run = invoke(
        data, *MAPPED, "--field", "systems=system", "--id", "doc,system", "--judgments", judged,
        "--resamples", "0", "--no-report", "--out", tmp_path / "run",
    )  # fmt: skip

    assert run.exit_code == 0, run.output
    assert set(summary(tmp_path / "run")["summary"]["correlations"]["coherence"]) == {"sample", "system"}


def test_group_by_an_instance_field_of_instances_kept_slim(tmp_path: Path) -> None:
    """The query is not kept of instances measured against recorded judgments, but for grouping by it."""
    data, judged = scored(tmp_path)
    run = invoke(
        data, *MAPPED, "--id", "doc,system", "--judgments", judged, "--group-by", "query",
        "--resamples", "0", "--no-report", "--out", tmp_path / "run",
    )  # fmt: skip

    assert run.exit_code == 0, run.output
    levels = summary(tmp_path / "run")["summary"]["correlations"]["coherence"]
    assert levels["summary"]["pearson"]["n"] == DOCS  # the documents averaged over


def test_a_limit_sample_keeps_each_group_whole(tmp_path: Path) -> None:
    data, judged = scored(tmp_path)
    common = [data, *MAPPED, "--id", "doc,system", "--judgments", judged, "--resamples", "0", "--no-report"]
    grouped = invoke(*common, "--group-by", "doc", "--limit", "9", "--out", tmp_path / "grouped")
    plain = invoke(*common, "--limit", "9", "--out", tmp_path / "plain")

    assert grouped.exit_code == 0, grouped.output
    assert plain.exit_code == 0, plain.output

    def docs(out: Path) -> dict[str, int]:
        counts: dict[str, int] = defaultdict(int)
        for row in read_jsonl(out / "instances.jsonl"):
            counts[row["metadata"]["doc"]] += 1
        return dict(counts)

    assert sorted(docs(tmp_path / "grouped").values()) == [SYSTEMS] * 3  # three whole documents
    assert any(n < SYSTEMS for n in docs(tmp_path / "plain").values())  # a stratified sample splits some


def test_a_group_field_no_instance_has_is_a_usage_error(tmp_path: Path) -> None:
    data, judged = scored(tmp_path)
    run = invoke(
        data,
        *MAPPED,
        "--id",
        "doc,system",
        "--judgments",
        judged,
        "--group-by",
        "topic",
        "--out",
        tmp_path / "r",
    )

    assert run.exit_code == 2, run.output
    assert "cannot group by 'topic'" in run.output
    assert "the instances have: id, query, doc, system" in run.output
    assert not (tmp_path / "r").exists()


def test_group_by_replaces_a_benchmarks_own(tmp_path: Path, data_dir: Path) -> None:
    """CoEval's ELI5 has no groups of its own: grouped by its inputs, its summary level appears."""
    common = ["coeval-eli5", "--data-dir", data_dir, "--judgments", "recorded:chatgpt", "--resamples", "0"]
    run = invoke(*common, "--no-report", "--group-by", "question_id", "--out", tmp_path / "grouped")

    assert run.exit_code == 0, run.output
    levels = summary(tmp_path / "grouped")["summary"]["correlations"]["Accuracy"]
    assert set(levels) == {"sample", "summary", "system"}
    refused = invoke(*common, "--id", "question_id", "--out", tmp_path / "refused")
    assert refused.exit_code == 2 and "describe your own file" in refused.output


def test_group_by_in_python(tmp_path: Path) -> None:
    data, judged = scored(tmp_path)
    fields = {"query": "article", "candidates": "summary", "scores": {"coherence": "coherence"}}
    instances = read_instances(data, fields=fields, id_fields="doc,system")
    options = MetaEvalOptions(group_by="doc", system_by="system", resamples=0, report=False)
    result = meta_evaluate(instances, judgments=judged, out=tmp_path / "run", options=options)

    assert set(result.correlations["coherence"]) == {"sample", "summary", "system"}
    with pytest.raises(ConfigError, match="cannot group by 'topic'"):
        meta_evaluate(
            read_instances(data, fields=fields, id_fields="doc,system"), judgments=judged,
            out=tmp_path / "again", options=MetaEvalOptions(group_by="topic"),
        )  # fmt: skip
