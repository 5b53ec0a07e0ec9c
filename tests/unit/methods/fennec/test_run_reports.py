"""The reports of ``correct`` and ``bridge`` runs, from hand-made records and outputs: the gain of
re-judged corrections, failed corrections, records not kept, and a run without its record."""

from __future__ import annotations

from pathlib import Path

import pytest

from faceteval.core import Criterion
from faceteval.errors import InputError
from faceteval.store import BridgeRunRecord, BridgeRunSummary, CorrectionGain, CorrectRecord, CorrectSummary
from faceteval.store.internal import write_atomic
from faceteval.workflows.fennec._bridge import BridgeRecord
from faceteval.workflows.fennec._correct import Correction
from faceteval.workflows.fennec._run_reports import write_bridge_report, write_correct_report
from tests.support.report_runs import markdown_table


def lines(path: Path, items: list[Correction] | list[BridgeRecord]) -> Path:
    path.write_text("".join(item.model_dump_json() + "\n" for item in items), encoding="utf-8")
    return path


def correction(id_: str, status: str, **more: object) -> Correction:
    base = {
        "id": id_,
        "candidate": 1,
        "query": "q",
        "original": "old <b>text</b>",
        "score": 2.0,
        "threshold": 3.0,
    }
    return Correction.model_validate({**base, "status": status, **more})


def test_a_correction_runs_report_has_the_gain_what_changed_and_what_failed(tmp_path: Path) -> None:
    out = lines(
        tmp_path / "c.jsonl",
        [
            correction("a", "corrected", correction="new text"),
            correction("b", "kept", score=4.0),
            correction("c", "parse_error", raw="not a rewrite"),
        ],
    )
    gain = CorrectionGain(responses=1, before=2.0, after=4.5, gain=2.5, ci=[1.0, 4.0], wins=1)
    summary = CorrectSummary(
        responses=3, corrected=1, kept=1, parse_errors=1, improvement=gain, rejudged={"ok": 1}
    )
    write_atomic(
        tmp_path / "c.run.json", CorrectRecord(summary=summary, options={"threshold": 3.0}).to_json()
    )

    markdown_path, html_path = write_correct_report(out)

    markdown = markdown_path.read_text(encoding="utf-8")
    assert markdown.startswith("# Correction run: c.jsonl") and html_path.name == "c.report.html"
    assert markdown_table(markdown, "Gain of the corrections")[0] == {
        "Responses": "1",
        "Before": "2.00",
        "After": "4.50",
        "Gain": "2.50",
        "Gain CI": "[1.00, 4.00]",
        "Corrected better": "1",
        "Tie": "0",
        "Original better": "0",
    }
    changed = markdown_table(markdown, "What changed")
    assert [(row["Response"], row["Original"], row["Correction"]) for row in changed] == [
        ("a #1", "old &lt;b&gt;text&lt;/b&gt;", "new text")
    ]
    assert markdown_table(markdown, "Corrections that failed") == [
        {"Response": "c #1", "Status": "parse error", "Why": "not a rewrite"}
    ]


def bridged(id_: str, status: str, consistent: bool | None, **more: object) -> BridgeRecord:
    return BridgeRecord.model_validate(
        {
            "id": id_,
            "benchmark": "b",
            "judge": "j",
            "kind": "pairwise",
            "query": "q",
            "responses": ["x", "y"],
            "judgment": "Response 1",
            "recorded": "1",
            "verdict": 1,
            "status": status,
            "consistent": consistent,
            "criteria": [Criterion(name="Accuracy").model_dump()],
            "guideline": "1. bad 5. good",
            **more,
        }
    )


def test_a_bridge_runs_report_has_what_was_recovered_and_what_was_not_kept(tmp_path: Path) -> None:
    out = lines(
        tmp_path / "b.jsonl",
        [
            bridged("r1", "ok", True, regenerated_verdict=1),
            bridged("r2", "ok", False, regenerated_verdict=2),
            bridged("r3", "error", None, error="the server said no"),
        ],
    )
    summary = BridgeRunSummary(sources=3, records=3, kept=1, inconsistent=1, errors=1)
    write_atomic(tmp_path / "b.run.json", BridgeRunRecord(summary=summary).to_json())

    markdown = write_bridge_report(out)[0].read_text(encoding="utf-8")

    assert markdown_table(markdown, "What was recovered") == [
        {
            "Record": "r1",
            "Recorded": "response 1",
            "Regenerated": "response 1",
            "Criteria recovered": "Accuracy",
            "Guideline recovered": "1. bad 5. good",
        }
    ]
    assert [(row["Record"], row["Status"], row["Why"]) for row in markdown_table(markdown, "Not kept")] == [
        ("r2", "ok (inconsistent)", "—"),
        ("r3", "error", "the server said no"),
    ]


def test_a_run_without_its_record_is_refused_naming_the_record(tmp_path: Path) -> None:
    out = lines(tmp_path / "c.jsonl", [correction("a", "kept", score=4.0)])
    with pytest.raises(
        InputError, match=r"c\.run\.json: no such file: the run record of .*c\.jsonl is needed"
    ):
        write_correct_report(out)
