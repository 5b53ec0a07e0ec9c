"""`check_run`: a run directory's files checked as `read_run` checks them, without holding them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from faceteval.core import Instance, Judgment
from faceteval.errors import InputError
from faceteval.metaeval import Settings, measure, read_run
from faceteval.metaeval.internal import JUDGMENTS, SUMMARY, check_run, labelled_target


def measured(folder: Path) -> Path:
    instances = [Instance(id=f"i{k}", query="q", candidates=["a", "b"], label=1 + k % 2) for k in range(6)]
    judgments = [Judgment(id=f"i{k}", method="direct", status="ok", verdict=1) for k in range(6)]
    target = labelled_target(instances, name="pairs")
    measure(folder, target, instances, judgments, judge="j", settings=Settings(resamples=0))
    return folder


def test_a_run_as_written_is_checked_and_its_record_returned(tmp_path: Path) -> None:
    run = measured(tmp_path / "run")
    assert check_run(run) == read_run(run)[0]


def test_a_file_changed_since_is_refused(tmp_path: Path) -> None:
    run = measured(tmp_path / "run")
    with (run / JUDGMENTS).open("a", encoding="utf-8") as out:
        out.write(Judgment(id="x", method="direct", status="ok").model_dump_json() + "\n")
    with pytest.raises(InputError, match="changed since"):
        check_run(run)


def test_a_bad_line_of_a_run_written_before_summaries_described_their_files_is_named(tmp_path: Path) -> None:
    run = measured(tmp_path / "run")
    summary = json.loads((run / SUMMARY).read_text(encoding="utf-8"))
    del summary["written"]
    (run / SUMMARY).write_text(json.dumps(summary), encoding="utf-8")
    check_run(run)
    lines = (run / JUDGMENTS).read_text(encoding="utf-8").splitlines()
    (run / JUDGMENTS).write_text("\n".join([*lines[:2], '{"id": "i9"}', *lines[2:]]) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as raised:
        check_run(run)
    assert raised.value.line == 3 and str(raised.value).startswith(str(run / JUDGMENTS))
