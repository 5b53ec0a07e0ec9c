"""A judge run's output as pandas DataFrames: judged against the local server, read back from its record."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from faceteval import DnA, JudgeOptions, judge, judgments_to_pandas, read_instances, read_run
from faceteval._cli._app import cli
from faceteval.frames import result_to_pandas
from faceteval.llm import LLM
from tests.support import example_judge
from tests.support.files import write_jsonl
from tests.support.llm_server import LLMServer
from tests.support.markdown import ROOT
from tests.support.processes import SRC
from tests.support.rule_judge import DEFAULT_ASPECTS, RuleJudge


@pytest.fixture
def server() -> Iterator[LLMServer]:
    rule = RuleJudge(quality={"strong": 9, "fair": 6, "weak": 2})
    with LLMServer(rule.for_server()) as running:
        yield running


def pairs(tmp_path: Path) -> Path:
    texts = {"base": "fair", "tuned": "strong", "old": "weak"}
    rows = []
    for i, (a, b) in enumerate([("base", "tuned"), ("tuned", "old"), ("old", "base"), ("tuned", "base")]):
        rows.append(
            {"id": f"q{i}", "query": f"Question {i}?", "candidates": [texts[a], texts[b]], "systems": [a, b]}
        )
    return write_jsonl(tmp_path / "pairs.jsonl", rows)


def test_a_judge_runs_output_reads_back_as_its_judgments_and_its_result(
    server: LLMServer, tmp_path: Path
) -> None:
    source = pairs(tmp_path)
    llm = LLM.from_spec("openai:judge", base_url=server.base_url, env={})
    out = tmp_path / "judgments.jsonl"
    judgments = judge(read_instances(source), DnA(), llm, out=out, options=JudgeOptions(swap=True))
    record = read_run(out)

    table = record.to_pandas(instances=read_instances(source))
    pd.testing.assert_frame_equal(table, judgments_to_pandas(judgments, instances=read_instances(source)))
    assert table["id"].tolist() == ["q0", "q1", "q2", "q3"]
    assert table["winner"].tolist() == ["tuned", "tuned", "base", "tuned"]
    assert table["verdict"].tolist() == [j.verdict for j in judgments] == [2, 1, 2, 1]
    assert table["consistent"].all() and (table["status"] == "ok").all()
    assert table["calls"].sum() == sum(j.usage.calls for j in judgments)
    facet_columns = [c for c in table.columns if c.startswith("facet/")]
    assert len(facet_columns) == 2 * len(DEFAULT_ASPECTS)
    assert table.loc[0, f"facet/{DEFAULT_ASPECTS[0]}/2"] == 9.0  # tuned's ("strong") on every facet

    long = record.to_pandas(facets=True, instances=read_instances(source))
    assert len(long) == 4 * len(DEFAULT_ASPECTS) * 2
    by_system = long.groupby("system")["score"].mean().to_dict()
    assert by_system == {"tuned": 9.0, "base": 6.0, "old": 2.0}

    summary = record.to_pandas("summary")
    result = record.summary.result
    assert result is not None and result.pairwise is not None
    pd.testing.assert_frame_equal(summary, result_to_pandas(result))
    rows = summary.set_index("system")
    for standing in result.pairwise.systems:
        assert rows.loc[standing.name, "wins"] == standing.wins
        assert rows.loc[standing.name, "win_rate"] == standing.win_rate.value
        assert standing.win_rate.ci is not None
        assert rows.loc[standing.name, "win_rate_low"] == standing.win_rate.ci[0]
    assert rows.loc["tuned", "wins"] == 3 and rows.loc["tuned", "win_rate"] == 1.0
    assert rows.loc["tuned", "rank"] == 1 and set(summary["kind"]) == {"pairwise"}


def test_systems_named_on_the_command_line_are_the_tables_systems(server: LLMServer, tmp_path: Path) -> None:
    source = write_jsonl(
        tmp_path / "pairs.jsonl",
        [{"id": str(i), "query": f"Q{i}?", "candidates": ["strong", "weak"]} for i in range(3)]
        + [{"id": "single", "query": "Q?", "candidates": ["fair"]}],
    )
    out = tmp_path / "out.jsonl"
    args = [str(source), "--method", "direct", "--model", "openai:judge", "--base-url", server.base_url]
    done = CliRunner().invoke(cli, ["judge", *args, "--no-cache", "--out", str(out)], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    table = read_run(out).to_pandas()
    pairwise = table[table["id"] != "single"]
    assert "system_1" not in table and (pairwise["verdict"] == 1).all()
    assert pd.isna(table.set_index("id").loc["single", "score_2"])
    named = tmp_path / "named.jsonl"
    args += ["--systems", "mine,theirs"]
    source.write_text(
        "".join(line for line in source.read_text().splitlines(keepends=True) if "single" not in line)
    )
    done = CliRunner().invoke(
        cli, ["judge", *args, "--no-cache", "--out", str(named)], catch_exceptions=False
    )
    assert done.exit_code == 0, done.output
    table = read_run(named).to_pandas()
    assert table["winner"].tolist() == ["mine"] * 3 and table["system_2"].tolist() == ["theirs"] * 3
    summary = read_run(named).to_pandas("summary").set_index("system")
    assert summary.loc["mine", "wins"] == 3 and summary.loc["theirs", "losses"] == 3


def test_the_example_prints_the_three_tables() -> None:
    with LLMServer(example_judge.respond) as server:
        done = subprocess.run(
            [sys.executable, str(ROOT / "examples" / "dataframes.py"), server.base_url, "openai:judge"],
            env={**os.environ, "PYTHONPATH": str(SRC)},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    lines = [line.split() for line in done.stdout.splitlines()]
    assert lines[0] == ["id", "status", "verdict", "label", "score_1", "score_2", "consistent", "calls"]
    assert sum(1 for line in lines if line[1:2] == ["ok"]) == 8
    assert any(line[:4] == ["agreement", "with", "the", "human"] for line in lines)
    assert ["system", "wins", "ties", "losses", "win_rate", "win_rate_low", "win_rate_high"] in lines
    wins = [int(line[1]) for line in lines if line[:1] in (["1"], ["2"]) and len(line) == 7]
    assert sum(wins) == 8
