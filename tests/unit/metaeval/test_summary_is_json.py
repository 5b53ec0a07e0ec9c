"""A summary holding NaN or infinity fails where it is written, rather than being written as no JSON
reader (and no other tool) can read it."""

from pathlib import Path

import pytest

from faceteval.metaeval.internal import write_summary
from faceteval.store import MetaEvalRecord, MetaEvalSummary


def record(agreement: float) -> MetaEvalRecord:
    return MetaEvalRecord(summary=MetaEvalSummary(agreement={"value": agreement}))


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_a_summary_that_is_not_json_is_not_written(tmp_path: Path, value: float) -> None:
    write_summary(tmp_path, record(0.5))
    before = (tmp_path / "summary.json").read_text(encoding="utf-8")
    with pytest.raises(ValueError, match="not JSON compliant"):
        write_summary(tmp_path, record(value))
    assert (tmp_path / "summary.json").read_text(encoding="utf-8") == before
