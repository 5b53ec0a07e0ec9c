"""`write_report` reads a run directory and writes both reports beside it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from faceteval.errors import InputError
from faceteval.report import load_run, write_report
from tests.unit.report.runs import pairwise_records, pairwise_summary, write_run


def test_writes_markdown_and_html(tmp_path: Path) -> None:
    instances, judgments = pairwise_records()
    run_dir = write_run(tmp_path / "run", pairwise_summary(), instances, judgments)
    markdown_path, html_path = write_report(run_dir)
    assert (markdown_path, html_path) == (run_dir / "report.md", run_dir / "report.html")
    markdown = markdown_path.read_text(encoding="utf-8")
    assert markdown.startswith("# llmbar-natural × recorded:gpt-4\n")
    assert "### Example 1: p2" in markdown  # the examples come from the JSONL files
    html = html_path.read_text(encoding="utf-8")
    assert html.count("data:image/png;base64,") == 5
    assert "<script" not in html


def test_summary_alone_is_enough(tmp_path: Path) -> None:
    (tmp_path / "summary.json").write_text(json.dumps({"benchmark": "b", "judge": "j"}), encoding="utf-8")
    markdown_path, html_path = write_report(tmp_path)
    assert markdown_path.read_text(encoding="utf-8").startswith("# b × j\n")
    assert html_path.is_file()


def test_unreadable_lines_are_skipped_and_counted(tmp_path: Path) -> None:
    instances, judgments = pairwise_records()
    run_dir = write_run(tmp_path, pairwise_summary(), instances, judgments)
    with (run_dir / "judgments.jsonl").open("a", encoding="utf-8") as file:
        file.write('{"id": "p9"}\nnot json\n\n')
    run = load_run(run_dir)
    assert run.unreadable == 2
    assert len(run.instances) == 4
    assert len(run.judgments) == 4


@pytest.mark.parametrize("content", [None, "{not json", "[1, 2]"])
def test_a_missing_or_broken_summary_is_an_input_error(tmp_path: Path, content: str | None) -> None:
    if content is not None:
        (tmp_path / "summary.json").write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=r"summary\.json"):
        write_report(tmp_path)
    assert not (tmp_path / "report.md").exists()
